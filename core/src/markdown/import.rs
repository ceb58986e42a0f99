//! Markdown import: `pulldown-cmark` events mapped onto blocks.

use std::collections::HashSet;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::{EMPTY_FLAG, Lines, MARKER_PREFIX};
use crate::error::{Error, Result};
use crate::page::{Attrs, Block, BlockType, validate_block_id};

pub(super) fn import(markdown: &str, mint: &mut dyn FnMut() -> String) -> Result<Vec<Block>> {
    let source = without_lone_carriage_returns(markdown);
    let drafts = Importer::new(&source).run();
    assign_ids(drafts, mint)
}

/// The text with each lone `\r` (a line ending of its own, not before `\n`) made a `\n`. CommonMark reads
/// them alike, but pulldown-cmark does not everywhere: some of its scans look ahead to the next `\n` only
/// (whether a backtick fence's info string holds a backtick, for one), so a block read one way from a
/// `\r` line reads another way once export ends that line with `\n`, and a block id was lost.
fn without_lone_carriage_returns(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let lone = |i: usize| bytes.get(i) == Some(&b'\r') && bytes.get(i + 1) != Some(&b'\n');
    if !(0..bytes.len()).any(lone) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(if c == '\r' && chars.peek() != Some(&'\n') { '\n' } else { c });
    }
    std::borrow::Cow::Owned(out)
}

/// A block before ids are assigned.
struct Draft {
    block: Block,
    marker_id: Option<String>,
    /// For a block named by a marker at the end of its own text: that text with the marker kept, and where
    /// the block ends in the source. A marker on the very next line names the block instead, and the first
    /// one was text (export puts a block's marker there when its text could end in one).
    marker_as_text: Option<(String, usize)>,
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
    let id = id.strip_suffix("empty").map_or(id, str::trim_end);
    validate_block_id(id).ok()?;
    Some(id.to_string())
}

/// What the importer is collecting right now.
enum Collect {
    /// Inline content of a heading, paragraph or list item.
    Inline(InlineBlock),
    /// The literal text of a code block.
    Code { language: Option<String>, text: String },
}

/// The inline content of a heading, paragraph or list item being read.
struct InlineBlock {
    kind: BlockType,
    attrs: Attrs,
    /// The source range of the text.
    range: Option<Range<usize>>,
    /// The last marker seen, with its range: it names the block only if nothing but white space follows it.
    marker: Option<(String, Range<usize>)>,
    image: ImageState,
}

impl Collect {
    /// Inline content of a block of `kind`, nothing seen yet.
    fn inline(kind: BlockType, attrs: Attrs, image: ImageState) -> Self {
        Collect::Inline(InlineBlock { kind, attrs, range: None, marker: None, image })
    }
}

/// Whether a paragraph is exactly one image, so it becomes an image block.
#[derive(Default)]
enum ImageState {
    #[default]
    None,
    Open {
        src: String,
        alt: String,
    },
    Closed {
        src: String,
        alt: String,
    },
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
    /// The source offset and the text of the HTML block being read.
    html: Option<(usize, String)>,
    /// While inside a blockquote or table (captured whole from source), the nesting level to skip.
    skip_depth: usize,
}

impl<'a> Importer<'a> {
    fn new(source: &'a str) -> Self {
        Importer {
            source,
            drafts: Vec::new(),
            lists: Vec::new(),
            items: Vec::new(),
            collect: None,
            html: None,
            skip_depth: 0,
        }
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
        self.drafts.push(Draft { block, marker_id, marker_as_text: None });
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
            Event::End(tag) => self.end(tag, range),
            Event::Html(html) => {
                if let Some((_, buffer)) = &mut self.html {
                    buffer.push_str(&html);
                }
            }
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
            let Some(item) = self.items.last() else {
                return;
            };
            if item.emitted {
                return;
            }
            self.collect = Some(self.item_collect());
        }
        let blank = self.source.get(range.clone()).is_some_and(|s| s.trim().is_empty());
        let Some(Collect::Inline(InlineBlock { marker: m, image, .. })) = &mut self.collect else {
            return;
        };
        if blank && marker.is_none() && m.is_some() {
            // White space after a marker leaves it the block's last thing so far (the range is widened over
            // the gap when more text follows).
            return;
        }
        // A marker with more of the block after it is text of the block; so is one inside an image's alt.
        let earlier = m.take().map(|(_, at)| at);
        let marker = marker.filter(|_| !matches!(image, ImageState::Open { .. }));
        let is_marker = marker.is_some();
        if let Some(id) = marker {
            *m = Some((id, range.clone()));
        }
        if let Some(at) = earlier {
            self.widen(at);
        }
        if !is_marker {
            self.widen(range);
        }
    }

    /// Widens the collected text over an inline event's source range.
    fn widen(&mut self, range: Range<usize>) {
        let Some(Collect::Inline(InlineBlock { range: r, image, .. })) = &mut self.collect else {
            return;
        };
        match image {
            ImageState::Open { alt, .. } => alt.push_str(self.source.get(range.clone()).unwrap_or("")),
            // Anything but the one image (and trailing space) makes it a plain paragraph.
            ImageState::Closed { .. } if self.source.get(range.clone()).is_some_and(|s| s.trim().is_empty()) => {}
            ImageState::None => {}
            _ => *image = ImageState::NotImage,
        }
        // Block text is inline Markdown source, so a backslash escape belongs to it, but the parser's range
        // of an escaped character starts after the backslash. At the start of a block that would lose the
        // escape that keeps `\-` or `\#` a paragraph, and the next export would start a list or a heading.
        let escaped = range.start > 0
            && self.source.as_bytes().get(range.start - 1) == Some(&b'\\')
            && self.source.as_bytes().get(range.start).is_some_and(u8::is_ascii_punctuation);
        let range = if escaped { range.start - 1..range.end } else { range };
        *r = Some(match r.take() {
            Some(r) => r.start.min(range.start)..r.end.max(range.end),
            None => range,
        });
    }

    fn item_collect(&self) -> Collect {
        let (kind, depth, checked) =
            self.items.last().map_or((BlockType::Paragraph, 0, None), |i| (i.kind, i.depth, i.checked));
        let attrs = Attrs { depth: Some(depth), checked, ..Attrs::default() };
        Collect::inline(kind, attrs, ImageState::NotImage)
    }

    fn start(&mut self, tag: Tag<'a>, range: Range<usize>) {
        match tag {
            Tag::Heading { level, .. } => {
                self.flush_item_text();
                let attrs = Attrs { level: Some(heading_level(level)), ..Attrs::default() };
                self.collect = Some(Collect::inline(BlockType::Heading, attrs, ImageState::NotImage));
            }
            Tag::Paragraph => {
                self.flush_item_text();
                let item_open = self.items.last().is_some_and(|i| !i.emitted);
                self.collect = Some(match item_open {
                    true => self.item_collect(),
                    false => Collect::inline(BlockType::Paragraph, Attrs::default(), ImageState::None),
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
            Tag::BlockQuote(_) => self.quote(range),
            Tag::Table(_) => self.table(range),
            Tag::HtmlBlock => {
                self.flush_item_text_at(Some(range.start));
                self.html = Some((range.start, String::new()));
            }
            Tag::List(start) => {
                self.flush_item_text();
                self.lists.push(start.is_some());
            }
            Tag::Item => self.open_item(),
            Tag::Image { dest_url, .. } => self.image(&dest_url, range),
            _ => self.inline(range, None),
        }
    }

    /// A block quote is taken whole, as its source without the `>` markers.
    fn quote(&mut self, range: Range<usize>) {
        self.flush_item_text();
        let text = strip_quote(self.slice(range));
        let (text, marker) = take_trailing_marker(&text);
        self.push(Block::new(String::new(), BlockType::Quote, text), marker);
        self.skip_depth = 1;
    }

    /// A table is taken whole, as its GFM source.
    fn table(&mut self, range: Range<usize>) {
        self.flush_item_text();
        let text = self.slice(range).trim_end().to_string();
        self.push(Block::new(String::new(), BlockType::Table, text), None);
        self.skip_depth = 1;
    }

    /// A list item opens: numbered in an ordered list, one deeper than its list's parent.
    fn open_item(&mut self) {
        self.flush_item_text();
        let ordered = self.lists.last().copied().unwrap_or(false);
        let kind = if ordered { BlockType::NumberedListItem } else { BlockType::BulletedListItem };
        let depth = u32::try_from(self.lists.len().saturating_sub(1)).unwrap_or(u32::MAX);
        self.items.push(OpenItem { kind, depth, checked: None, emitted: false });
    }

    /// An image is text of its block, unless it is the whole paragraph: then the paragraph is an image.
    fn image(&mut self, dest_url: &str, range: Range<usize>) {
        self.inline(range.clone(), None);
        if let Some(Collect::Inline(InlineBlock { image, range: r, .. })) = &mut self.collect {
            let alone = r.as_ref().is_some_and(|r| *r == range);
            *image = match (&*image, alone) {
                (ImageState::None, true) => ImageState::Open { src: dest_url.to_string(), alt: String::new() },
                _ => ImageState::NotImage,
            };
        }
    }

    fn end(&mut self, tag: TagEnd, range: Range<usize>) {
        match tag {
            TagEnd::Heading(_) | TagEnd::Paragraph | TagEnd::CodeBlock => self.finish_collect(Some(range.end)),
            TagEnd::Image => {
                if let Some(Collect::Inline(InlineBlock { image, .. })) = &mut self.collect
                    && let ImageState::Open { src, alt } = std::mem::take(image)
                {
                    *image = ImageState::Closed { src, alt };
                }
            }
            TagEnd::HtmlBlock => {
                if let Some((start, html)) = self.html.take() {
                    self.html_block(start, &html);
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
        self.flush_item_text_at(None);
    }

    /// [`Self::flush_item_text`], where the text is known to end at `end`.
    fn flush_item_text_at(&mut self, end: Option<usize>) {
        if matches!(self.collect, Some(Collect::Inline(_))) && self.items.last().is_some_and(|i| !i.emitted) {
            self.finish_collect(end);
        }
    }

    /// Ends the block being collected; `end` is where it ends in the source, for a block a marker on the next
    /// line may name.
    fn finish_collect(&mut self, end: Option<usize>) {
        let Some(collect) = self.collect.take() else {
            return;
        };
        match collect {
            Collect::Code { language, text } => {
                let mut block = Block::new(String::new(), BlockType::Code, text.strip_suffix('\n').unwrap_or(&text));
                block.attrs.language = language.filter(|l| !l.is_empty());
                self.push(block, None);
            }
            Collect::Inline(inline) => self.finish_inline(inline, end),
        }
    }

    fn finish_inline(&mut self, inline: InlineBlock, end: Option<usize>) {
        let InlineBlock { kind, attrs, range, marker, image } = inline;
        // The last marker names the block when it comes after all the text (inside a link it is text).
        let (marker_id, marker_as_text) = match marker {
            Some((id, at)) if range.as_ref().is_none_or(|r| at.start >= r.end) => {
                let whole = range.as_ref().map_or(at.clone(), |r| r.start..at.end);
                (Some(id), end.map(|end| (self.inline_text(whole), end)))
            }
            _ => (None, None),
        };
        let text = range.map(|r| self.inline_text(r)).unwrap_or_default();
        let (block, marker_as_text) = match image {
            ImageState::Closed { src, alt } => {
                let attrs = Attrs { src: Some(src), alt: Some(alt), ..Attrs::default() };
                (Block { attrs, ..Block::new(String::new(), BlockType::Image, "") }, None)
            }
            ImageState::None | ImageState::Open { .. } | ImageState::NotImage => {
                (Block { attrs, ..Block::new(String::new(), kind, text) }, marker_as_text)
            }
        };
        if let Some(item) = self.items.last_mut()
            && (kind.is_list() || block.kind.is_list())
        {
            item.emitted = true;
        }
        self.drafts.push(Draft { block, marker_id, marker_as_text });
    }

    /// The text of an inline range: continuation lines unindented, trailing white space dropped.
    fn inline_text(&self, range: Range<usize>) -> String {
        unindent(self.slice(range)).trim_end_matches([' ', '\t', '\r', '\n']).to_string()
    }

    /// A raw HTML block that starts at `start`. A marker alone names the block before it (or, marked `empty`,
    /// is an empty paragraph); any other HTML is kept as a paragraph's text.
    fn html_block(&mut self, start: usize, html: &str) {
        let (text, marker) = take_trailing_marker(html);
        if !text.is_empty() {
            self.push(Block::new(String::new(), BlockType::Paragraph, text), marker);
            return;
        }
        let Some(marker) = marker else { return };
        if self.items.last().is_some_and(|i| !i.emitted) {
            // The first thing in a list item: an empty item (`- <!-- marker -->` reads as an HTML block there).
            if let Collect::Inline(InlineBlock { kind, attrs, .. }) = self.item_collect() {
                self.push(Block { attrs, ..Block::new(String::new(), kind, "") }, Some(marker));
            }
            if let Some(item) = self.items.last_mut() {
                item.emitted = true;
            }
        } else if html.contains(EMPTY_FLAG) {
            self.push(Block::new(String::new(), BlockType::Paragraph, ""), Some(marker));
        } else if let Some(last) = self.drafts.last_mut() {
            // Right after a block that ends in a marker of its own (on the next line: nothing but white space
            // and one line break between them), this one names it and that one was text.
            let source = self.source;
            let adjacent = |end: usize| {
                source.get(end..start).is_some_and(|gap| gap.trim().is_empty() && gap.matches('\n').count() <= 1)
            };
            let renamed = last.marker_as_text.take().filter(|(_, end)| adjacent(*end));
            match (&last.marker_id, renamed) {
                (None, _) => last.marker_id = Some(marker),
                (Some(_), Some((text, _))) => {
                    last.block.text = text;
                    last.marker_id = Some(marker);
                }
                (Some(_), None) => {}
            }
        }
    }
}

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
/// A line ends at `\n`, `\r\n` or a lone `\r`.
fn unindent(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut line_start = false;
    for c in text.chars() {
        // CommonMark's whitespace is spaces and tabs: a form feed or a vertical tab is text, and
        // dropping it could leave a blank line, which the next export would read as a block break.
        if line_start && matches!(c, ' ' | '\t') {
            continue;
        }
        line_start = matches!(c, '\n' | '\r');
        out.push(c);
    }
    out
}

/// Removes one level of `>` markers (and one following space) from each line of a blockquote's source, a
/// line ending at `\n`, `\r\n` or a lone `\r`.
fn strip_quote(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for (line, ending) in Lines::of(source.trim_end()) {
        let line = line.trim_start();
        out.push_str(line.strip_prefix('>').map_or(line, |rest| rest.strip_prefix(' ').unwrap_or(rest)));
        out.push_str(ending);
    }
    out
}

fn take_trailing_marker(text: &str) -> (String, Option<String>) {
    let trimmed = text.trim_end();
    if let Some(start) = trimmed.rfind("<!--")
        && let Some(id) = trimmed.get(start..).and_then(parse_marker)
    {
        let rest = trimmed.get(..start).unwrap_or("").trim_end();
        return (rest.to_string(), Some(id));
    }
    (trimmed.to_string(), None)
}
