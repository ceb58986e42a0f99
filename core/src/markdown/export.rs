//! Markdown export: blocks back to CommonMark + GFM, with block-id markers.

use super::{EMPTY_FLAG, MARKER_PREFIX};
use crate::page::{Block, BlockType, Page};

/// Exports a page as Markdown, with a block-id marker on every block.
pub fn export(page: &Page) -> String {
    export_blocks(&page.blocks, true)
}

/// Exports blocks as Markdown; `markers` controls the block-id markers.
pub fn export_blocks(blocks: &[Block], markers: bool) -> String {
    let mut out = String::new();
    let mut lists = Lists::default();
    let mut previous: Option<BlockType> = None;
    for block in blocks {
        let is_list = block.kind.is_list();
        if previous.is_some() {
            out.push_str(if is_list && previous.is_some_and(BlockType::is_list) { "\n" } else { "\n\n" });
        }
        if !is_list {
            lists.clear();
        }
        let marker = markers.then(|| format!("<!-- {MARKER_PREFIX} id={} -->", block.block_id));
        write_block(&mut out, block, marker.as_deref(), &mut lists);
        previous = Some(block.kind);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// One block, with its marker (when markers are on) where the block's syntax lets it stay attached.
fn write_block(out: &mut String, block: &Block, marker: Option<&str>, lists: &mut Lists) {
    match block.kind {
        BlockType::Heading => heading(out, block, marker),
        BlockType::Paragraph => paragraph(out, block, marker),
        BlockType::BulletedListItem => list_item(out, block, marker, lists, Bullet::Dash),
        BlockType::NumberedListItem => list_item(out, block, marker, lists, Bullet::Number),
        BlockType::Todo => list_item(out, block, marker, lists, Bullet::Todo(block.attrs.checked == Some(true))),
        BlockType::Quote => quote(out, &block.text, marker),
        BlockType::Code => code(out, block, marker),
        BlockType::Divider => {
            out.push_str("---");
            push_marker_line(out, marker);
        }
        BlockType::Image => {
            out.push_str("![");
            out.push_str(&escape_link_text(block.attrs.alt.as_deref().unwrap_or("")));
            out.push_str("](<");
            out.push_str(block.attrs.src.as_deref().unwrap_or(""));
            out.push_str(">)");
            inline_marker(out, marker);
        }
        BlockType::Table => {
            out.push_str(block.text.trim_end());
            push_marker_line(out, marker);
        }
    }
}

/// An ATX heading (`## x`) is one line; a heading of several lines is written setext-style (underlined),
/// which levels 1 and 2 have. Deeper ones get their line breaks as spaces.
fn heading(out: &mut String, block: &Block, marker: Option<&str>) {
    let level = block.attrs.level.unwrap_or(1);
    if block.text.contains(['\n', '\r']) && level <= 2 {
        push_indented(out, &block.text, 0);
        inline_marker(out, marker);
        out.push_str(if level == 1 { "\n===" } else { "\n---" });
        return;
    }
    out.push_str(&"#".repeat(level.clamp(1, 6) as usize));
    out.push(' ');
    let text = block.text.replace(['\n', '\r'], " ");
    out.push_str(&text);
    marker_after_text(out, &text, marker);
}

/// A paragraph; an empty one is only its marker, flagged empty (nothing at all without markers).
fn paragraph(out: &mut String, block: &Block, marker: Option<&str>) {
    if block.text.trim().is_empty() {
        if marker.is_some() {
            out.push_str(&format!("<!-- {MARKER_PREFIX} id={}{EMPTY_FLAG}", block.block_id));
        }
        return;
    }
    push_indented(out, &block.text, 0);
    marker_after_text(out, &block.text, marker);
}

/// How a list item starts.
#[derive(Clone, Copy)]
enum Bullet {
    /// `- `
    Dash,
    /// `1. `, counted per depth.
    Number,
    /// `- [ ] ` or, when checked, `- [x] `.
    Todo(bool),
}

/// The open lists: the content indentation of the open item at each depth, so nested items line up under
/// their parent, and the count of numbered items at each depth.
#[derive(Default)]
struct Lists {
    indent: Vec<usize>,
    numbers: Vec<u64>,
}

impl Lists {
    fn clear(&mut self) {
        self.indent.clear();
        self.numbers.clear();
    }
}

fn list_item(out: &mut String, block: &Block, marker: Option<&str>, lists: &mut Lists, bullet: Bullet) {
    let depth = (block.attrs.depth.unwrap_or(0) as usize).min(lists.indent.len());
    lists.indent.truncate(depth);
    lists.numbers.truncate(depth + 1);
    let indent: usize = lists.indent.iter().sum();
    lists.numbers.resize(depth + 1, 0);
    let (text, width) = match bullet {
        Bullet::Dash => (String::from("- "), 2),
        Bullet::Number => {
            let n = lists.numbers.last_mut().map(|n| {
                *n += 1;
                *n
            });
            let text = format!("{}. ", n.unwrap_or(1));
            let width = text.len();
            (text, width)
        }
        // Todos nest under the "- " part, like bullets.
        Bullet::Todo(checked) => (String::from(if checked { "- [x] " } else { "- [ ] " }), 2),
    };
    lists.indent.push(width);
    out.push_str(&" ".repeat(indent));
    out.push_str(&text);
    push_indented(out, &block.text, indent + width);
    inline_marker(out, marker);
}

fn quote(out: &mut String, text: &str, marker: Option<&str>) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push('>');
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
    }
    inline_marker(out, marker);
}

/// A fenced block, its fence longer than any run of the fence character in the text.
fn code(out: &mut String, block: &Block, marker: Option<&str>) {
    // A backtick fence's info string may not contain a backtick; a tilde fence's may.
    let language = block.attrs.language.as_deref().unwrap_or("");
    let fence_char = if language.contains('`') { '~' } else { '`' };
    let fence = fence_char.to_string().repeat(longest_run(&block.text, fence_char).max(2) + 1);
    out.push_str(&fence);
    out.push_str(language);
    out.push('\n');
    out.push_str(&block.text);
    if !block.text.is_empty() {
        out.push('\n');
    }
    out.push_str(&fence);
    push_marker_line(out, marker);
}

/// The marker at the end of the block's last line.
fn inline_marker(out: &mut String, marker: Option<&str>) {
    if let Some(m) = marker {
        out.push(' ');
        out.push_str(m);
    }
}

/// The lines of a block's text, each but the first after `indent` spaces (the first follows its bullet).
fn push_indented(out: &mut String, text: &str, indent: usize) {
    // CommonMark ends a line at `\n`, `\r\n` or a lone `\r`; only `\n` gets the indentation.
    let mut first = true;
    let definition_like = text.contains("]:");
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        }
        for (j, part) in line.split('\r').enumerate() {
            if j > 0 {
                out.push('\r');
            }
            // A blank line would end the block; a lone backslash (a hard line break) keeps it going. Only raw
            // HTML, kept as a paragraph's text, brings blank lines into a block.
            if !first && part.trim_matches([' ', '\t']).is_empty() {
                out.push('\\');
                first = false;
                continue;
            }
            match block_syntax_at(part, first, definition_like) {
                // A backslash makes the punctuation literal: the line stays text of this block.
                Some(at) => {
                    out.push_str(part.get(..at).unwrap_or_default());
                    out.push('\\');
                    out.push_str(part.get(at..).unwrap_or_default());
                }
                None => out.push_str(part),
            }
            first = false;
        }
    }
}

/// Where a line of text, written as is, would start a block of its own in CommonMark (a list item, a
/// heading, a quote, a rule, a fence, an HTML block, a link reference definition, or on a later line a
/// setext underline): the byte index
/// of the punctuation to escape. Block text is inline Markdown source, so everything else is written as is.
fn block_syntax_at(line: &str, first: bool, definition_like: bool) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line.get(indent..).unwrap_or_default();
    let bytes = rest.as_bytes();
    let ends_marker = |at: usize| matches!(bytes.get(at), None | Some(b' ' | b'\t'));
    let lead = *bytes.first()?;
    let only = |c: u8| rest.bytes().all(|b| b == c || b == b' ' || b == b'\t');
    let count = |c: u8| rest.bytes().filter(|&b| b == c).count();
    let syntax = match lead {
        b'-' | b'+' | b'*' if ends_marker(1) => true,
        b'-' | b'*' | b'_' if only(lead) && count(lead) >= 3 => true,
        b'=' | b'-' if !first && only(lead) => true,
        b'#' => {
            let hashes = bytes.iter().take_while(|&&b| b == b'#').count();
            hashes <= 6 && ends_marker(hashes)
        }
        b'>' => true,
        // `[label]: destination` (the label may span lines) is a link reference definition, not text; one
        // can only start a paragraph.
        b'[' => first && definition_like,
        b'`' | b'~' => bytes.iter().take_while(|&&b| b == lead).count() >= 3,
        b'<' => bytes.get(1).is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'/' | b'!' | b'?')),
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits <= 9 && matches!(bytes.get(digits), Some(b'.' | b')')) && ends_marker(digits + 1) {
                return Some(indent + digits);
            }
            false
        }
        _ => false,
    };
    syntax.then_some(indent)
}

/// The marker of a paragraph or heading: on the same line, unless the text has a `<`, which could open inline
/// HTML (`<!a`, `<b`) that runs on and swallows the marker; then on its own line, where it is an HTML block
/// that ends the paragraph and names it.
fn marker_after_text(out: &mut String, text: &str, marker: Option<&str>) {
    let Some(m) = marker else { return };
    if text.contains('<') {
        push_marker_line(out, Some(m));
    } else {
        out.push(' ');
        out.push_str(m);
    }
}

fn push_marker_line(out: &mut String, marker: Option<&str>) {
    if let Some(m) = marker {
        out.push('\n');
        out.push_str(m);
    }
}

fn longest_run(text: &str, of: char) -> usize {
    text.split(|c| c != of).map(str::len).max().unwrap_or(0)
}

fn escape_link_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]")
}
