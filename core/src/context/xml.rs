//! The `page_xml` view and its escaping.
//!
//! Text and attribute values are escaped (`& < > " '`), and characters that XML 1.0 forbids even as
//! references (most C0 controls, U+FFFE, U+FFFF) become U+FFFD. So no block text, however hostile
//! (`</block>`, `<page`, quotes, control characters), can break the structure.

use alloc::string::String;
use core::fmt::Write;

use super::{Views, shown};

/// Bytes that need a look: markup, C0 controls other than tab and newline, and 0xEF, the lead byte of
/// U+FFFE and U+FFFF. Everything else is copied in runs, which keeps escaping close to memcpy speed.
#[allow(clippy::indexing_slicing)] // const evaluation: an out-of-range index fails the build, not a run
const ATTENTION: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = b != b'\t' as usize && b != b'\n' as usize;
        b += 1;
    }
    table[b'&' as usize] = true;
    table[b'<' as usize] = true;
    table[b'>' as usize] = true;
    table[b'"' as usize] = true;
    table[b'\'' as usize] = true;
    table[0xEF] = true;
    table
};

fn needs_attention(b: u8) -> bool {
    ATTENTION.get(usize::from(b)).copied().unwrap_or(false)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Non-zero when some byte of `word` equals `byte` (exact, no false positives for the yes/no answer).
const fn has_byte(word: u64, byte: u8) -> u64 {
    let v = word ^ (ONES * byte as u64);
    v.wrapping_sub(ONES) & !v & HIGHS
}

/// The index of the first byte that needs a look. Eight bytes at a time: prose rarely needs escaping,
/// so most words are skipped after a handful of arithmetic tests.
fn next_attention(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
        let flagged = control
            | has_byte(w, b'&')
            | has_byte(w, b'<')
            | has_byte(w, b'>')
            | has_byte(w, b'"')
            | has_byte(w, b'\'')
            | has_byte(w, 0xEF);
        if flagged != 0
            && let Some(p) = chunk.iter().position(|&b| needs_attention(b))
        {
            return Some(base + p);
        }
        base += 8;
    }
    chunks.remainder().iter().position(|&b| needs_attention(b)).map(|p| base + p)
}

/// Appends `text` to `out`, escaped for use in XML text and attribute values.
pub fn escape_into(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while let Some(offset) = bytes.get(i..).and_then(next_attention) {
        i += offset;
        let (replacement, width) = match bytes.get(i..).unwrap_or_default() {
            [b'&', ..] => ("&amp;", 1),
            [b'<', ..] => ("&lt;", 1),
            [b'>', ..] => ("&gt;", 1),
            [b'"', ..] => ("&quot;", 1),
            [b'\'', ..] => ("&apos;", 1),
            // XML parsers normalize a raw CR away; a reference keeps it.
            [b'\r', ..] => ("&#13;", 1),
            [0xEF, 0xBF, 0xBE | 0xBF, ..] => ("\u{FFFD}", 3),
            [0xEF, ..] => {
                i += 1;
                continue;
            }
            _ => ("\u{FFFD}", 1),
        };
        out.push_str(text.get(start..i).unwrap_or_default());
        out.push_str(replacement);
        i += width;
        start = i;
    }
    out.push_str(text.get(start..).unwrap_or_default());
}

/// The `page_xml` view; for v2, each `<block>` followed by a `<suggestion>` per suggestion it shows.
pub(super) fn render(views: &Views<'_, '_>) -> String {
    let (page, pieces, entries) = (views.page, views.pieces, views.entries);
    let text_len: usize = pieces.iter().map(|p| p.text.len()).sum();
    let mut out = String::with_capacity(text_len + pieces.len() * 64 + 128);
    out.push_str("<page id=\"");
    escape_into(&mut out, &page.document_id);
    let _ = write!(out, "\" revision=\"{}\" title=\"", page.revision);
    escape_into(&mut out, &page.title);
    out.push_str("\">");
    for (index, piece) in pieces.iter().enumerate() {
        let Some(entry) = entries.get(piece.entry) else {
            continue;
        };
        let block = entry.block;
        out.push_str("<block id=\"");
        out.push_str(&block.block_id); // ids are [A-Za-z0-9_-]: nothing to escape
        out.push_str("\" type=\"");
        out.push_str(block.kind.as_str());
        out.push('"');
        if let Some(level) = block.attrs.level {
            let _ = write!(out, " level=\"{level}\"");
        }
        if let Some(count) = entry.block_count {
            let _ = write!(out, " blocks=\"{count}\"");
        }
        if !block.editable {
            out.push_str(" editable=\"false\"");
        }
        if entry.context_only {
            out.push_str(" context-only=\"true\"");
        }
        if piece.partial {
            let _ = write!(out, " partial=\"true\" offset=\"{}\"", piece.offset);
        }
        out.push('>');
        escape_into(&mut out, piece.text);
        out.push_str("</block>");
        for suggestion in views.after(index) {
            shown::push_xml(&mut out, suggestion);
        }
    }
    out.push_str("</page>");
    out
}
