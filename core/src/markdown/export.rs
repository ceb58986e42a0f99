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
    // Content indentation of the open list item at each depth, so nested items line up under their parent.
    let mut list_indent: Vec<usize> = Vec::new();
    let mut numbers: Vec<u64> = Vec::new();
    let mut previous: Option<BlockType> = None;
    for block in blocks {
        let is_list = block.kind.is_list();
        if previous.is_some() {
            out.push_str(if is_list && previous.is_some_and(BlockType::is_list) { "\n" } else { "\n\n" });
        }
        if !is_list {
            list_indent.clear();
            numbers.clear();
        }
        let marker = markers.then(|| format!("<!-- {MARKER_PREFIX} id={} -->", block.block_id));
        let inline_marker = |out: &mut String| {
            if let Some(m) = &marker {
                out.push(' ');
                out.push_str(m);
            }
        };
        match block.kind {
            BlockType::Heading => {
                let level = block.attrs.level.unwrap_or(1).clamp(1, 6);
                out.push_str(&"#".repeat(level as usize));
                out.push(' ');
                out.push_str(&block.text);
                inline_marker(&mut out);
            }
            BlockType::Paragraph if block.text.trim().is_empty() => {
                if markers {
                    out.push_str(&format!("<!-- {MARKER_PREFIX} id={}{EMPTY_FLAG}", block.block_id));
                }
            }
            BlockType::Paragraph => {
                out.push_str(&block.text);
                inline_marker(&mut out);
            }
            BlockType::BulletedListItem | BlockType::NumberedListItem | BlockType::Todo => {
                let depth = (block.attrs.depth.unwrap_or(0) as usize).min(list_indent.len());
                list_indent.truncate(depth);
                numbers.truncate(depth + 1);
                let indent: usize = list_indent.iter().sum();
                let bullet = match block.kind {
                    BlockType::NumberedListItem => {
                        numbers.resize(depth + 1, 0);
                        let n = numbers.last_mut().map(|n| {
                            *n += 1;
                            *n
                        });
                        format!("{}. ", n.unwrap_or(1))
                    }
                    BlockType::Todo => {
                        numbers.resize(depth + 1, 0);
                        if block.attrs.checked == Some(true) { "- [x] ".into() } else { "- [ ] ".into() }
                    }
                    _ => {
                        numbers.resize(depth + 1, 0);
                        "- ".into()
                    }
                };
                // Todos nest under the "- " part, like bullets.
                let width = if block.kind == BlockType::Todo { 2 } else { bullet.len() };
                list_indent.push(width);
                out.push_str(&" ".repeat(indent));
                out.push_str(&bullet);
                push_indented(&mut out, &block.text, indent + width);
                inline_marker(&mut out);
            }
            BlockType::Quote => {
                for (i, line) in block.text.split('\n').enumerate() {
                    if i > 0 {
                        out.push('\n');
                    }
                    out.push('>');
                    if !line.is_empty() {
                        out.push(' ');
                        out.push_str(line);
                    }
                }
                inline_marker(&mut out);
            }
            BlockType::Code => {
                let fence = "`".repeat(longest_backtick_run(&block.text).max(2) + 1);
                out.push_str(&fence);
                out.push_str(block.attrs.language.as_deref().unwrap_or(""));
                out.push('\n');
                out.push_str(&block.text);
                if !block.text.is_empty() {
                    out.push('\n');
                }
                out.push_str(&fence);
                push_marker_line(&mut out, marker.as_deref());
            }
            BlockType::Divider => {
                out.push_str("---");
                push_marker_line(&mut out, marker.as_deref());
            }
            BlockType::Image => {
                out.push_str("![");
                out.push_str(&escape_link_text(block.attrs.alt.as_deref().unwrap_or("")));
                out.push_str("](<");
                out.push_str(block.attrs.src.as_deref().unwrap_or(""));
                out.push_str(">)");
                inline_marker(&mut out);
            }
            BlockType::Table => {
                out.push_str(block.text.trim_end());
                push_marker_line(&mut out, marker.as_deref());
            }
        }
        previous = Some(block.kind);
    }
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

fn push_indented(out: &mut String, text: &str, indent: usize) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(line);
    }
}

fn push_marker_line(out: &mut String, marker: Option<&str>) {
    if let Some(m) = marker {
        out.push('\n');
        out.push_str(m);
    }
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn escape_link_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]")
}
