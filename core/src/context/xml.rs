//! The `page_xml` view and its escaping.
//!
//! Text and attribute values are escaped (`& < > " '`), and characters that XML 1.0 forbids even as
//! references (most C0 controls, U+FFFE, U+FFFF) become U+FFFD. So no block text, however hostile
//! (`</block>`, `<page`, quotes, control characters), can break the structure.

use alloc::string::String;
use core::fmt::Write;

use super::{Entry, Piece};
use crate::page::Page;

/// Appends `text` to `out`, escaped for use in XML text and attribute values.
pub fn escape_into(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let replacement = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&apos;",
            b'\t' | b'\n' => continue,
            // '\r' would be normalized away by XML parsers; keep it as a reference.
            b'\r' => "&#13;",
            0..=0x1f => "\u{FFFD}",
            // U+FFFE and U+FFFF are EF BF BE / EF BF BF in UTF-8.
            0xEF if matches!(bytes.get(i + 1..i + 3), Some([0xBF, 0xBE | 0xBF])) => {
                out.push_str(text.get(start..i).unwrap_or(""));
                out.push('\u{FFFD}');
                start = i + 3;
                continue;
            }
            _ => continue,
        };
        if i >= start {
            out.push_str(text.get(start..i).unwrap_or(""));
            out.push_str(replacement);
            start = i + 1;
        }
    }
    out.push_str(text.get(start..).unwrap_or(""));
}

pub(super) fn render(page: &Page, pieces: &[Piece<'_>], entries: &[Entry<'_>]) -> String {
    let text_len: usize = pieces.iter().map(|p| p.text.len()).sum();
    let mut out = String::with_capacity(text_len + pieces.len() * 64 + 128);
    out.push_str("<page id=\"");
    escape_into(&mut out, &page.document_id);
    let _ = write!(out, "\" revision=\"{}\" title=\"", page.revision);
    escape_into(&mut out, &page.title);
    out.push_str("\">");
    for piece in pieces {
        let Some(entry) = entries.get(piece.entry) else { continue };
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
    }
    out.push_str("</page>");
    out
}
