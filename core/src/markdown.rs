//! Markdown import and export (feature `std`).
//!
//! Local-first pages are `.md` files. Import parses CommonMark + GFM with `pulldown-cmark` and maps its
//! block structure onto [`Block`]s; export writes the blocks back so that import ∘ export keeps every
//! block's type, attrs and text.
//!
//! Block ids survive a round trip through an optional marker, `<!-- mnote:block id=p_1 -->`. Export puts it
//! at the end of a block's last line, or, for code, dividers and tables, alone on the line after the block.
//! Import accepts both. Blocks without a marker (or with a duplicate or malformed one) get ids from the
//! caller's `mint` function: core has no randomness of its own.
//!
//! ```
//! use pageai_core::markdown::{export, import};
//! let mut n = 0;
//! let blocks = import("# Plan\n\nShip it <!-- mnote:block id=p_1 -->\n", &mut || { n += 1; format!("b_{n}") }).unwrap();
//! assert_eq!(blocks[0].block_id, "b_1");
//! assert_eq!(blocks[1].block_id, "p_1");
//! ```

use std::collections::HashSet;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::error::{Error, Result};
use crate::page::{Attrs, Block, BlockType, Page, validate_block_id};

const MARKER_PREFIX: &str = "mnote:block";

/// Imports UTF-8 bytes; invalid UTF-8 is [`Error::InvalidMarkdown`].
pub fn import_bytes(bytes: &[u8], mint: &mut dyn FnMut() -> String) -> Result<Vec<Block>> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::InvalidMarkdown {
        reason: format!("not UTF-8: invalid byte at offset {}", e.valid_up_to()),
    })?;
    import(text, mint)
}

/// Imports Markdown into blocks. `mint` supplies ids for blocks that carry no usable marker.
pub fn import(markdown: &str, mint: &mut dyn FnMut() -> String) -> Result<Vec<Block>> {
    let drafts = Importer::new(markdown).run();
    assign_ids(drafts, mint)
}

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
                push_marker_line(&mut out, marker.as_deref(), false);
            }
            BlockType::Divider => {
                out.push_str("---");
                push_marker_line(&mut out, marker.as_deref(), false);
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
                push_marker_line(&mut out, marker.as_deref(), true);
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

fn push_marker_line(out: &mut String, marker: Option<&str>, blank_line_first: bool) {
    if let Some(m) = marker {
        out.push_str(if blank_line_first { "\n\n" } else { "\n" });
        out.push_str(m);
    }
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn escape_link_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('[', "\\[").replace(']', "\\]")
}

/// A block before ids are assigned.
struct Draft {
    block: Block,
    marker_id: Option<String>,
}

fn assign_ids(drafts: Vec<Draft>, mint: &mut dyn FnMut() -> String) -> Result<Vec<Block>> {
    let mut taken: HashSet<String> = HashSet::with_capacity(drafts.len());
    let mut wants_mint = vec![false; drafts.len()];
    let mut blocks: Vec<Block> = Vec::with_capacity(drafts.len());
    for (i, draft) in drafts.into_iter().enumerate() {
        let mut block = draft.block;
        match draft.marker_id {
            Some(id) if taken.insert(id.clone()) => block.block_id = id,
            _ => {
                if let Some(flag) = wants_mint.get_mut(i) {
                    *flag = true;
                }
            }
        }
        blocks.push(block);
    }
    for (block, _) in blocks.iter_mut().zip(&wants_mint).filter(|(_, m)| **m) {
        let mut attempts = 0;
        block.block_id = loop {
            let id = mint();
            if validate_block_id(&id).is_ok() && taken.insert(id.clone()) {
                break id;
            }
            attempts += 1;
            if attempts > 16 {
                return Err(Error::InvalidMarkdown { reason: "the id minter keeps returning taken ids".into() });
            }
        };
    }
    Ok(blocks)
}

fn parse_marker(html: &str) -> Option<String> {
    let inner = html.trim().strip_prefix("<!--")?.strip_suffix("-->")?.trim();
    let rest = inner.strip_prefix(MARKER_PREFIX)?.trim_start();
    let id = rest.strip_prefix("id=")?.trim();
    validate_block_id(id).ok()?;
    Some(id.to_string())
}

/// What the importer is collecting right now.
enum Collect {
    /// Inline content of a heading, paragraph or list item: the source range and any marker seen.
    Inline { kind: BlockType, attrs: Attrs, range: Option<Range<usize>>, marker: Option<String>, image: ImageState },
    /// The literal text of a code block.
    Code { language: Option<String>, text: String },
}

/// Whether a paragraph is exactly one image, so it becomes an image block.
#[derive(Default)]
enum ImageState {
    #[default]
    None,
    Open { src: String, alt: String },
    Closed { src: String, alt: String },
    NotImage,
}

struct OpenItem {
    kind: BlockType,
    depth: u32,
    checked: Option<bool>,
    emitted: bool,
}

struct Importer<'a> {
    source: &'a str,
    drafts: Vec<Draft>,
    lists: Vec<bool>, // ordered?
    items: Vec<OpenItem>,
    collect: Option<Collect>,
    /// While inside a blockquote or table (captured whole from source), the nesting level to skip.
    skip_depth: usize,
}

impl<'a> Importer<'a> {
    fn new(source: &'a str) -> Self {
        Importer { source, drafts: Vec::new(), lists: Vec::new(), items: Vec::new(), collect: None, skip_depth: 0 }
    }

    fn run(mut self) -> Vec<Draft> {
        let options = Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH;
        let parser = Parser::new_ext(self.source, options).into_offset_iter();
        for (event, range) in parser {
            self.event(event, range);
        }
        self.flush_item_text();
        self.drafts
    }

    fn slice(&self, range: Range<usize>) -> &'a str {
        self.source.get(range).unwrap_or("")
    }

    fn push(&mut self, block: Block, marker_id: Option<String>) {
        self.drafts.push(Draft { block, marker_id });
    }

    fn event(&mut self, event: Event<'a>, range: Range<usize>) {
        if self.skip_depth > 0 {
            match event {
                Event::Start(Tag::BlockQuote(_) | Tag::Table(_)) => self.skip_depth += 1,
                Event::End(TagEnd::BlockQuote(_) | TagEnd::Table) => self.skip_depth -= 1,
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag, range),
            Event::End(tag) => self.end(tag),
            Event::Html(html) => self.html_block(&html),
            Event::Rule => {
                self.flush_item_text();
                self.push(Block::new(String::new(), BlockType::Divider, ""), None);
            }
            Event::TaskListMarker(checked) => {
                if let Some(item) = self.items.last_mut() {
                    item.kind = BlockType::Todo;
                    item.checked = Some(checked);
                }
            }
            Event::Text(text) => {
                if let Some(Collect::Code { text: code, .. }) = &mut self.collect {
                    code.push_str(&text);
                    return;
                }
                self.inline(range, None);
            }
            Event::InlineHtml(html) => {
                let marker = parse_marker(&html);
                self.inline(range, marker);
            }
            _ => self.inline(range, None),
        }
    }

    /// An inline event: widen the collected range, or start a tight list item's text.
    fn inline(&mut self, range: Range<usize>, marker: Option<String>) {
        if self.collect.is_none() {
            let Some(item) = self.items.last() else { return };
            if item.emitted {
                return;
            }
            self.collect = Some(self.item_collect());
        }
        let Some(Collect::Inline { range: r, marker: m, image, .. }) = &mut self.collect else { return };
        if marker.is_some() {
            *m = marker;
            return;
        }
        if matches!(image, ImageState::Open { .. }) {
            if let ImageState::Open { alt, .. } = image {
                alt.push_str(self.source.get(range.clone()).unwrap_or(""));
            }
        } else if !self.source.get(range.clone()).is_some_and(|s| s.trim().is_empty()) || r.is_some() {
            *image = ImageState::NotImage;
        }
        *r = Some(match r.take() {
            Some(r) => r.start.min(range.start)..r.end.max(range.end),
            None => range,
        });
    }

    fn item_collect(&self) -> Collect {
        let (kind, depth, checked) = self.items.last().map_or((BlockType::Paragraph, 0, None), |i| (i.kind, i.depth, i.checked));
        let attrs = Attrs { depth: Some(depth), checked, ..Attrs::default() };
        Collect::Inline { kind, attrs, range: None, marker: None, image: ImageState::NotImage }
    }

    fn start(&mut self, tag: Tag<'a>, range: Range<usize>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush_item_text();
                let attrs = Attrs { level: Some(heading_level(level)), ..Attrs::default() };
                self.collect = Some(Collect::Inline { kind: BlockType::Heading, attrs, range: None, marker: None, image: ImageState::NotImage });
            }
            Tag::Paragraph => {
                self.flush_item_text();
                let item_open = self.items.last().is_some_and(|i| !i.emitted);
                self.collect = Some(if item_open {
                    self.item_collect()
                } else {
                    Collect::Inline { kind: BlockType::Paragraph, attrs: Attrs::default(), range: None, marker: None, image: ImageState::None }
                });
            }
            Tag::CodeBlock(kind) => {
                self.flush_item_text();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().map(str::to_string),
                    CodeBlockKind::Indented => None,
                };
                self.collect = Some(Collect::Code { language, text: String::new() });
            }
            Tag::BlockQuote(_) => {
                self.flush_item_text();
                let text = strip_quote(self.slice(range));
                let (text, marker) = take_trailing_marker(&text);
                self.push(Block::new(String::new(), BlockType::Quote, text), marker);
                self.skip_depth = 1;
            }
            Tag::Table(_) => {
                self.flush_item_text();
                let text = self.slice(range).trim_end().to_string();
                self.push(Block::new(String::new(), BlockType::Table, text), None);
                self.skip_depth = 1;
            }
            Tag::List(start) => {
                self.flush_item_text();
                self.lists.push(start.is_some());
            }
            Tag::Item => {
                self.flush_item_text();
                let ordered = self.lists.last().copied().unwrap_or(false);
                let kind = if ordered { BlockType::NumberedListItem } else { BlockType::BulletedListItem };
                let depth = u32::try_from(self.lists.len().saturating_sub(1)).unwrap_or(u32::MAX);
                self.items.push(OpenItem { kind, depth, checked: None, emitted: false });
            }
            Tag::Image { dest_url, .. } => {
                if let Some(Collect::Inline { image, range: r, .. }) = &mut self.collect {
                    *image = match (&*image, r.is_none()) {
                        (ImageState::None, true) => ImageState::Open { src: dest_url.to_string(), alt: String::new() },
                        _ => ImageState::NotImage,
                    };
                }
                self.inline(range, None);
            }
            _ => self.inline(range, None),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) | TagEnd::Paragraph | TagEnd::CodeBlock => self.finish_collect(),
            TagEnd::Image => {
                if let Some(Collect::Inline { image, .. }) = &mut self.collect {
                    if let ImageState::Open { src, alt } = std::mem::take(image) {
                        *image = ImageState::Closed { src, alt };
                    }
                }
            }
            TagEnd::Item => {
                self.flush_item_text();
                self.items.pop();
            }
            TagEnd::List(_) => {
                self.flush_item_text();
                self.lists.pop();
            }
            _ => {}
        }
    }

    /// Ends a tight list item's inline text (no paragraph event wraps it).
    fn flush_item_text(&mut self) {
        if matches!(self.collect, Some(Collect::Inline { .. })) && self.items.last().is_some_and(|i| !i.emitted) {
            self.finish_collect();
        }
    }

    fn finish_collect(&mut self) {
        let Some(collect) = self.collect.take() else { return };
        match collect {
            Collect::Code { language, text } => {
                let mut block = Block::new(String::new(), BlockType::Code, text.strip_suffix('\n').unwrap_or(&text));
                block.attrs.language = language.filter(|l| !l.is_empty());
                self.push(block, None);
            }
            Collect::Inline { kind, attrs, range, marker, image } => {
                let text = range.map(|r| unindent(self.slice(r))).unwrap_or_default();
                let text = text.trim_end().to_string();
                let block = match image {
                    ImageState::Closed { src, alt } => Block {
                        attrs: Attrs { src: Some(src), alt: Some(alt), ..Attrs::default() },
                        ..Block::new(String::new(), BlockType::Image, "")
                    },
                    _ => Block { attrs, ..Block::new(String::new(), kind, text) },
                };
                if let Some(item) = self.items.last_mut() {
                    if kind.is_list() || block.kind.is_list() {
                        item.emitted = true;
                    }
                }
                self.push(block, marker);
            }
        }
    }

    /// A raw HTML block: a marker names the block before it; anything else is kept as a paragraph.
    fn html_block(&mut self, html: &str) {
        if let Some(id) = parse_marker(html) {
            if let Some(last) = self.drafts.last_mut() {
                if last.marker_id.is_none() {
                    last.marker_id = Some(id);
                }
            }
            return;
        }
        let text = html.trim_end();
        if text.is_empty() {
            return;
        }
        match self.drafts.last_mut() {
            // One HTML block arrives as several events, a line each.
            Some(Draft { block, marker_id: None }) if block.kind == BlockType::Paragraph && block.block_id == HTML_BLOCK => {
                block.text.push('\n');
                block.text.push_str(text);
            }
            _ => self.push(Block::new(HTML_BLOCK, BlockType::Paragraph, text), None),
        }
    }
}

/// Placeholder id of a paragraph built from an HTML block, replaced when ids are assigned.
const HTML_BLOCK: &str = "";

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Paragraph continuation lines lose their leading whitespace in CommonMark, so dropping it keeps meaning.
fn unindent(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(line.trim_start());
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Removes one level of `>` markers (and one following space) from each line of a blockquote's source.
fn strip_quote(source: &str) -> String {
    let mut lines = Vec::new();
    for line in source.trim_end().split('\n') {
        let line = line.trim_start();
        let line = line.strip_prefix('>').map_or(line, |rest| rest.strip_prefix(' ').unwrap_or(rest));
        lines.push(line);
    }
    lines.join("\n")
}

fn take_trailing_marker(text: &str) -> (String, Option<String>) {
    let trimmed = text.trim_end();
    if let Some(start) = trimmed.rfind("<!--") {
        if let Some(id) = trimmed.get(start..).and_then(parse_marker) {
            let rest = trimmed.get(..start).unwrap_or("").trim_end();
            return (rest.to_string(), Some(id));
        }
    }
    (trimmed.to_string(), None)
}
