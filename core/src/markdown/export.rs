//! Markdown export: blocks back to CommonMark + GFM, with block-id markers.

use super::{EMPTY_FLAG, Lines, MARKER_PREFIX};
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
        push_indented(out, &block.text, 0, false);
        let own_line = block.text.contains('<');
        if !own_line {
            inline_marker(out, marker);
        }
        out.push_str(if level == 1 { "\n===" } else { "\n---" });
        if own_line {
            push_marker_line(out, marker);
        }
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
    push_indented(out, &block.text, 0, false);
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
    push_indented(out, &block.text, indent + width, matches!(bullet, Bullet::Dash));
    // As for a paragraph, a `<` could open inline HTML that swallows the marker; then the marker goes on
    // the next line, inside the item, where it is an HTML block that names it.
    match marker {
        Some(m) if block.text.contains('<') => {
            out.push('\n');
            out.push_str(&" ".repeat(indent + width));
            out.push_str(m);
        }
        _ => inline_marker(out, marker),
    }
}

/// Every line of the text after `>`, whichever line ending ends the line before it.
fn quote(out: &mut String, text: &str, marker: Option<&str>) {
    for (line, ending) in Lines::of(text) {
        out.push('>');
        if !line.is_empty() {
            out.push(' ');
            out.push_str(line);
        }
        out.push_str(ending);
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
    push_info(out, language, fence_char);
    out.push('\n');
    out.push_str(&block.text);
    if !block.text.is_empty() {
        out.push('\n');
    }
    out.push_str(&fence);
    push_marker_line(out, marker);
}

/// A code block's language as its info string, which import reads with backslash escapes and entity
/// references: a backslash or an `&` is escaped to stay literal, and so is a leading fence character, which
/// would otherwise lengthen the fence.
fn push_info(out: &mut String, language: &str, fence_char: char) {
    for (i, c) in language.chars().enumerate() {
        if matches!(c, '\\' | '&') || (i == 0 && c == fence_char) {
            out.push('\\');
        }
        out.push(c);
    }
}

/// The marker at the end of the block's last line.
fn inline_marker(out: &mut String, marker: Option<&str>) {
    if let Some(m) = marker {
        out.push(' ');
        out.push_str(m);
    }
}

/// The lines of a block's text, each but the first after `indent` spaces (the first follows its bullet;
/// `after_dash` when that is `- `).
fn push_indented(out: &mut String, text: &str, indent: usize, after_dash: bool) {
    let definition_like = text.contains("]:");
    // Until a line with text is written, a line is where the block starts.
    let mut started = false;
    for (line, ending) in Lines::of(text) {
        if started {
            out.push_str(&" ".repeat(indent));
            push_continuation(out, line);
        } else {
            push_escaped(out, line, definition_like, after_dash);
            started = !line.trim_matches([' ', '\t']).is_empty();
        }
        out.push_str(ending);
    }
}

/// A block's first line: where it would start a block of its own, a backslash makes the punctuation literal,
/// so the line stays text of this block (import keeps the backslash: text is inline Markdown source).
fn push_escaped(out: &mut String, line: &str, definition_like: bool, after_dash: bool) {
    match block_syntax_at(line, definition_like, after_dash) {
        Some(at) => {
            out.push_str(line.get(..at).unwrap_or_default());
            out.push('\\');
            out.push_str(line.get(at..).unwrap_or_default());
        }
        None => out.push_str(line),
    }
}

/// A later line of a block. A blank one would end the block, so it becomes a lone backslash, a hard line
/// break (only raw HTML, kept as a paragraph's text, brings blank lines into a block). One that could start a
/// block of its own, or underline this one, is indented four more spaces: there nothing starts a block inside
/// a paragraph, and import drops a continuation line's indentation as CommonMark does, so the text comes
/// back exactly.
fn push_continuation(out: &mut String, line: &str) {
    if line.trim_matches([' ', '\t']).is_empty() {
        out.push('\\');
        return;
    }
    // Wider than CommonMark's block starts on purpose (pulldown-cmark also takes a vertical tab or a form
    // feed as white space): any line led by punctuation or a digit.
    let lead = line.trim_start_matches([' ', '\t', '\u{b}', '\u{c}']).bytes().next();
    if lead.is_some_and(|b| b.is_ascii_punctuation() || b.is_ascii_digit()) {
        out.push_str("    ");
    }
    out.push_str(line);
}

/// Where a block's first line, written as is, would start a block of its own in CommonMark (a list item, a
/// heading, a quote, a rule, a fence, an HTML block or a link reference definition): the byte index of the
/// punctuation to escape. Block text is inline Markdown source, so everything else is written as is. After a
/// `- ` bullet, that dash counts towards a rule: `- --` is a rule, not an item.
fn block_syntax_at(line: &str, definition_like: bool, after_dash: bool) -> Option<usize> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line.get(indent..).unwrap_or_default();
    let bytes = rest.as_bytes();
    // pulldown-cmark takes a vertical tab or a form feed as white space, as it does a space or a tab.
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | 0x0b | 0x0c);
    let ends_marker = |at: usize| bytes.get(at).is_none_or(blank);
    let lead = *bytes.first()?;
    let only = |c: u8| rest.bytes().all(|b| b == c || blank(&b));
    let count = |c: u8| rest.bytes().filter(|&b| b == c).count() + usize::from(after_dash && c == b'-');
    let syntax = match lead {
        b'-' | b'+' | b'*' if ends_marker(1) => true,
        b'-' | b'*' | b'_' if only(lead) && count(lead) >= 3 => true,
        b'#' => {
            let hashes = bytes.iter().take_while(|&&b| b == b'#').count();
            hashes <= 6 && ends_marker(hashes)
        }
        b'>' => true,
        // `[label]: destination` (the label may span lines) is a link reference definition, not text; one
        // can only start a paragraph.
        b'[' => definition_like,
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

/// An image's alt text: brackets would end it, a `<` could open inline HTML that runs into the link, and a
/// line break could leave a blank line that ends the paragraph, so line breaks become spaces.
fn escape_link_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]").replace('<', "\\<").replace(['\r', '\n'], " ")
}
