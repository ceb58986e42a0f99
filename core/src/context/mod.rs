//! The context builder: freezes a page into `mnote.page_ai_context.v1`, or into
//! `mnote.page_ai_context.v2` with the page's pending suggestions shown in every view (what
//! `mnote.doc.fetch` and `mnote.block.fetch` answer; see [`crate::wire::PageAiContextV2`]).
//!
//! A context is what a model reads before it edits: the blocks of one scope, with their ids and
//! `revisionRef`s, the page's `conflictDetectionKey`, and the only blocks a write may target
//! (`allowedTargetBlockIds`). Three views render the same blocks: `text`, `page_xml` and `json`.
//!
//! Large pages are cut by a character budget at block boundaries; the answer then carries an opaque
//! `continuation` token bound to the document, the revision and the scope. A token from an older revision
//! fails with `mnote_context_stale`.
//!
//! The budget counts characters of the `text` view (each block's text plus one separator), whatever views
//! are requested, so the same budget yields the same chunks for every view. A v2 context's suggestion
//! lines are outside the budget, so v1 and v2 cut the same chunks and share continuation tokens; a chunk
//! shows the suggestions of the blocks it shows.

mod continuation;
mod shown;
mod xml;

use crate::json::Read;
use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::normalize;
use crate::page::{Block, BlockType, Page};
use crate::wire::{
    ContextBlockV1, ContextSuggestionV2, PAGE_AI_CONTEXT_V1, PAGE_AI_CONTEXT_V2, PageAiContextV1, PageAiContextV2,
    SuggestionV1, WarningV1,
};

pub use continuation::Cursor;
pub use xml::escape_into as xml_escape_into;

crate::json::tagged::internally_tagged! {
    /// Which blocks a context contains.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[cfg_attr(test, derive(schemars::JsonSchema))]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Scope ("type") read as #[serde(rename_all = "snake_case", deny_unknown_fields)] {
        /// Every block; every editable block is a target.
        Full,
        /// Headings only, each with the size of its section; nothing is a target.
        Outline,
        /// One block; it is the target if editable.
        Block {
            /// The block.
            #[serde(rename = "blockId")]
            block_id: String,
        },
        /// The selected blocks plus one context-only neighbour on each side; editable selected blocks are targets.
        Selection {
            /// The selected blocks, in any order.
            #[serde(rename = "blockIds")]
            block_ids: Vec<String>,
        },
        /// Blocks whose text contains the query (case- and width-insensitive); editable matches are targets.
        Keyword {
            /// The text to look for.
            query: String,
        },
    }
}

impl Scope {
    /// The scope a command works in: the user's selection when there is one, else the whole page. The
    /// browser's preview (`PageSession.route` with a `selection`) and the server's command route both use it,
    /// so a command on two selected blocks cannot preview against the whole page and then run on two.
    pub fn for_command(selection: &[String]) -> Scope {
        if selection.is_empty() { Scope::Full } else { Scope::Selection { block_ids: selection.to_vec() } }
    }

    /// The scope's wire name.
    pub fn name(&self) -> &'static str {
        match self {
            Scope::Full => "full",
            Scope::Outline => "outline",
            Scope::Block { .. } => "block",
            Scope::Selection { .. } => "selection",
            Scope::Keyword { .. } => "keyword",
        }
    }
}

/// A rendering of the context's blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Block texts joined by newlines: `pageText`.
    Text,
    /// `<page><block>…</block></page>`: `pageXml`.
    PageXml,
    /// The blocks array: `blocks`.
    Json,
}

/// The character budget of one context chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Budget {
    /// At most this many characters of the text view, cut at block boundaries.
    pub max_chars: usize,
}

/// What to freeze: the input of `mnote.doc.fetch`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextRequest {
    /// Which blocks.
    pub scope: Scope,
    /// Which views; all three when omitted.
    #[serde(default = "all_formats")]
    pub formats: Vec<Format>,
    /// The budget; none means the whole scope in one answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// A token from a previous, truncated answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

fn all_formats() -> Vec<Format> {
    vec![Format::Text, Format::PageXml, Format::Json]
}

impl ContextRequest {
    /// A request for `scope` in every view, without a budget.
    pub fn new(scope: Scope) -> Self {
        ContextRequest { scope, formats: all_formats(), budget: None, continuation: None }
    }

    /// The same request with only these views.
    pub fn with_formats(mut self, formats: &[Format]) -> Self {
        self.formats = formats.to_vec();
        self
    }

    /// The same request with a budget of `max_chars`.
    pub fn with_budget(mut self, max_chars: usize) -> Self {
        self.budget = Some(Budget { max_chars });
        self
    }

    /// The same request, continuing from `token`.
    pub fn with_continuation(mut self, token: impl Into<String>) -> Self {
        self.continuation = Some(token.into());
        self
    }
}

/// One block of the resolved scope.
struct Entry<'p> {
    block: &'p Block,
    context_only: bool,
    block_count: Option<usize>,
}

/// The blocks of a scope and what it allows.
struct Resolved<'p> {
    entries: Vec<Entry<'p>>,
    allowed: Vec<String>,
    selected: Vec<String>,
}

/// Freezes `page` into a context. `context_id` names the snapshot and is minted by the caller.
pub fn build_context(page: &Page, request: &ContextRequest, context_id: &str) -> Result<PageAiContextV1> {
    build_snapshot(page, request, context_id).map(|snapshot| snapshot.context)
}

/// A context and the blocks it shows, whatever views it renders.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot<'p> {
    /// The context, as [`build_context`] answers it.
    pub context: PageAiContextV1,
    /// The blocks of this chunk (a cut block once), in page order: what a reader of the context has seen.
    pub blocks: Vec<&'p Block>,
}

/// [`build_context`], together with the blocks the context shows: what a frozen context remembers of them
/// ([`crate::executor::FrozenContext::freeze`]).
pub fn build_snapshot<'p>(page: &'p Page, request: &ContextRequest, context_id: &str) -> Result<Snapshot<'p>> {
    let (context, blocks) = freeze(page, request, context_id, None)?;
    Ok(Snapshot { context: into_v1(context), blocks })
}

/// Freezes `page` into a `mnote.page_ai_context.v2` context that shows `suggestions` (the page's, as
/// [`crate::review::suggestions`] lists them; those of other documents, or no longer waiting, are skipped)
/// on the blocks it shows, marked in every view as not the page's text.
pub fn build_context_v2(
    page: &Page,
    request: &ContextRequest,
    context_id: &str,
    suggestions: &[SuggestionV1],
) -> Result<PageAiContextV2> {
    build_snapshot_v2(page, request, context_id, suggestions).map(|snapshot| snapshot.context)
}

/// A v2 context and the blocks it shows: [`Snapshot`] for [`build_context_v2`].
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotV2<'p> {
    /// The context, as [`build_context_v2`] answers it.
    pub context: PageAiContextV2,
    /// The blocks of this chunk, in page order.
    pub blocks: Vec<&'p Block>,
}

/// [`build_context_v2`], together with the blocks the context shows.
pub fn build_snapshot_v2<'p>(
    page: &'p Page,
    request: &ContextRequest,
    context_id: &str,
    suggestions: &[SuggestionV1],
) -> Result<SnapshotV2<'p>> {
    let (context, blocks) = freeze(page, request, context_id, Some(suggestions))?;
    Ok(SnapshotV2 { context, blocks })
}

/// The one builder: a v2 context (with no suggestions and no marking when `suggestions` is `None`, which
/// is then v1's views exactly) and the blocks it shows.
fn freeze<'p>(
    page: &'p Page,
    request: &ContextRequest,
    context_id: &str,
    suggestions: Option<&[SuggestionV1]>,
) -> Result<(PageAiContextV2, Vec<&'p Block>)> {
    check_request(request)?;
    let resolved = resolve(page, &request.scope)?;
    let scope_tag = continuation::scope_tag(&request.scope);
    let start = start_of(page, request, scope_tag, resolved.entries.len())?;
    let (pieces, next) = cut(&resolved.entries, start, request.budget);
    let has = |f: Format| request.formats.contains(&f);
    let blocks = pieces.iter().filter_map(|p| resolved.entries.get(p.entry)).map(|e| e.block).collect();
    let shown = suggestions.map(|all| shown_after(page, &pieces, &resolved.entries, all));
    let views = Views { page, pieces: &pieces, entries: &resolved.entries, shown: shown.as_deref() };
    let context = PageAiContextV2 {
        schema: PAGE_AI_CONTEXT_V2.to_string(),
        workspace_id: page.workspace_id.clone(),
        document_id: page.document_id.clone(),
        title: page.title.clone(),
        scope: request.scope.name().to_string(),
        revision: page.revision,
        conflict_detection_key: page.conflict_detection_key(),
        context_id: context_id.to_string(),
        page_text: has(Format::Text).then(|| page_text(&views)),
        page_xml: has(Format::PageXml).then(|| xml::render(&views)),
        blocks: has(Format::Json).then(|| json_blocks(page, &pieces, &resolved.entries)),
        suggestions: shown.into_iter().flatten().flat_map(|(_, list)| list).collect(),
        truncated: next.is_some(),
        warnings: warnings(next, &pieces, resolved.entries.len()),
        continuation: next.map(|cursor| cursor.encode(page, scope_tag)),
        allowed_target_block_ids: resolved.allowed,
        selected_block_ids: resolved.selected,
    };
    Ok((context, blocks))
}

/// The v1 form of a context built without suggestions: the same fields, v1's id.
fn into_v1(context: PageAiContextV2) -> PageAiContextV1 {
    PageAiContextV1 {
        schema: PAGE_AI_CONTEXT_V1.to_string(),
        workspace_id: context.workspace_id,
        document_id: context.document_id,
        title: context.title,
        scope: context.scope,
        revision: context.revision,
        conflict_detection_key: context.conflict_detection_key,
        context_id: context.context_id,
        allowed_target_block_ids: context.allowed_target_block_ids,
        selected_block_ids: context.selected_block_ids,
        page_text: context.page_text,
        page_xml: context.page_xml,
        blocks: context.blocks,
        truncated: context.truncated,
        warnings: context.warnings,
        continuation: context.continuation,
    }
}

/// What the views render: the chunk's pieces and, for v2, the suggestions shown after each piece (by
/// piece index).
pub(crate) struct Views<'v, 'p> {
    page: &'v Page,
    pieces: &'v [Piece<'p>],
    entries: &'v [Entry<'p>],
    shown: Option<&'v [(usize, Vec<ContextSuggestionV2>)]>,
}

impl Views<'_, '_> {
    /// The suggestions shown after piece `index`.
    fn after(&self, index: usize) -> &[ContextSuggestionV2] {
        let shown = self.shown.unwrap_or_default();
        shown.iter().find(|(at, _)| *at == index).map_or(&[], |(_, list)| list.as_slice())
    }
}

/// The suggestions each piece shows after it: those anchored on its block, when the piece ends its block
/// and the block is not a context-only neighbour.
fn shown_after(
    page: &Page,
    pieces: &[Piece<'_>],
    entries: &[Entry<'_>],
    suggestions: &[SuggestionV1],
) -> Vec<(usize, Vec<ContextSuggestionV2>)> {
    let mut anchored = shown::anchored(page, suggestions);
    let mut out = Vec::new();
    for (index, piece) in pieces.iter().enumerate() {
        let Some(entry) = entries.get(piece.entry).filter(|e| piece.ends && !e.context_only) else { continue };
        let id = &entry.block.block_id;
        let (here, rest): (Vec<_>, Vec<_>) = anchored.into_iter().partition(|s| s.anchor_block_id == *id);
        anchored = rest;
        if !here.is_empty() {
            out.push((index, here));
        }
    }
    out
}

fn check_request(request: &ContextRequest) -> Result<()> {
    if request.formats.is_empty() {
        return Err(Error::invalid("/formats", "name at least one of text, page_xml, json"));
    }
    if let Some(Budget { max_chars: 0 }) = request.budget {
        return Err(Error::invalid("/budget/maxChars", "must be at least 1"));
    }
    Ok(())
}

/// Where this chunk starts: the request's continuation token (bound to the page and scope), or the top.
fn start_of(page: &Page, request: &ContextRequest, scope_tag: u64, entries: usize) -> Result<Cursor> {
    let Some(token) = &request.continuation else {
        return Ok(Cursor { entry: 0, offset: 0 });
    };
    let cursor = Cursor::decode(token, page, scope_tag)?;
    if cursor.entry >= entries {
        return Err(Error::invalid("/continuation", "the token points past the end of the scope"));
    }
    Ok(cursor)
}

/// What the reader should know: the budget cut the context (and where), or cut inside a block.
fn warnings(next: Option<Cursor>, pieces: &[Piece<'_>], entries: usize) -> Vec<WarningV1> {
    let mut warnings = Vec::new();
    if let Some(next) = next {
        warnings.push(WarningV1 {
            code: "context_truncated".into(),
            message: format!(
                "the budget cut the context after {} of {entries} blocks; fetch `continuation` for the rest",
                next.entry
            ),
        });
    }
    if pieces.iter().any(|p| p.partial) {
        warnings.push(WarningV1 {
            code: "block_partial".into(),
            message: "a block larger than the budget was cut inside; it is marked partial".into(),
        });
    }
    warnings
}

/// The `text` view: the pieces' texts, one per line; for v2, each piece followed by a marked line per
/// suggestion it shows, and any line of a block's text that could read as one escaped.
fn page_text(views: &Views<'_, '_>) -> String {
    let mut out = String::with_capacity(views.pieces.iter().map(|p| p.text.len() + 1).sum());
    for (i, piece) in views.pieces.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match views.shown {
            None => out.push_str(piece.text),
            Some(_) => shown::push_block_text(&mut out, piece.text),
        }
        for suggestion in views.after(i) {
            out.push('\n');
            shown::push_text_line(&mut out, suggestion);
        }
    }
    out
}

/// The `json` view: one [`ContextBlockV1`] per piece.
fn json_blocks(page: &Page, pieces: &[Piece<'_>], entries: &[Entry<'_>]) -> Vec<ContextBlockV1> {
    pieces
        .iter()
        .filter_map(|piece| {
            let entry = entries.get(piece.entry)?;
            let block = entry.block;
            Some(ContextBlockV1 {
                block_id: block.block_id.clone(),
                kind: block.kind,
                text: piece.text.to_owned(),
                revision_ref: page.revision_ref(block),
                editable: block.editable,
                level: block.attrs.level,
                block_count: entry.block_count,
                context_only: entry.context_only,
                partial: piece.partial,
                offset: piece.partial.then_some(piece.offset),
            })
        })
        .collect()
}

/// Resolves a scope to its blocks and allowed targets, without the budget.
pub fn allowed_targets(page: &Page, scope: &Scope) -> Result<Vec<String>> {
    Ok(resolve(page, scope)?.allowed)
}

fn resolve<'p>(page: &'p Page, scope: &Scope) -> Result<Resolved<'p>> {
    let plain = |block: &'p Block| Entry { block, context_only: false, block_count: None };
    let editable_ids = |entries: &[Entry<'_>]| -> Vec<String> {
        entries.iter().filter(|e| !e.context_only && e.block.editable).map(|e| e.block.block_id.clone()).collect()
    };
    match scope {
        Scope::Full => {
            let entries: Vec<Entry<'p>> = page.blocks.iter().map(plain).collect();
            let allowed = editable_ids(&entries);
            Ok(Resolved { entries, allowed, selected: Vec::new() })
        }
        Scope::Outline => Ok(Resolved { entries: outline(page), allowed: Vec::new(), selected: Vec::new() }),
        Scope::Block { block_id } => {
            let block = page.require_block(block_id)?;
            let entries = vec![plain(block)];
            let allowed = editable_ids(&entries);
            Ok(Resolved { entries, allowed, selected: vec![block_id.clone()] })
        }
        Scope::Selection { block_ids } => selection(page, block_ids),
        Scope::Keyword { query } => {
            let needle = normalize::fold(query.trim());
            if needle.is_empty() {
                return Err(Error::invalid("/scope/query", "must contain a non-blank query"));
            }
            let entries: Vec<Entry<'p>> =
                page.blocks.iter().filter(|b| normalize::contains_folded(&b.text, &needle)).map(plain).collect();
            let allowed = editable_ids(&entries);
            Ok(Resolved { entries, allowed, selected: Vec::new() })
        }
    }
}

fn outline(page: &Page) -> Vec<Entry<'_>> {
    let mut entries = Vec::new();
    for (i, block) in page.blocks.iter().enumerate() {
        let Some(level) = block.attrs.level.filter(|_| block.kind == BlockType::Heading) else {
            continue;
        };
        let rest = page.blocks.get(i + 1..).unwrap_or_default();
        let count = rest
            .iter()
            .position(|b| b.kind == BlockType::Heading && b.attrs.level.is_some_and(|l| l <= level))
            .unwrap_or(rest.len());
        entries.push(Entry { block, context_only: false, block_count: Some(count) });
    }
    entries
}

fn selection<'p>(page: &'p Page, block_ids: &[String]) -> Result<Resolved<'p>> {
    if block_ids.is_empty() {
        return Err(Error::invalid("/scope/blockIds", "select at least one block"));
    }
    let mut selected_at = vec![false; page.blocks.len()];
    for (i, id) in block_ids.iter().enumerate() {
        let index = page.position(id).ok_or_else(|| match page.require_block(id) {
            Err(e) => e,
            Ok(_) => Error::invalid(format!("/scope/blockIds/{i}"), "unknown block"),
        })?;
        if let Some(flag) = selected_at.get_mut(index) {
            *flag = true;
        }
    }
    let is_selected = |i: usize| selected_at.get(i).copied().unwrap_or(false);
    let mut entries = Vec::new();
    let mut allowed = Vec::new();
    let mut selected = Vec::new();
    for (i, block) in page.blocks.iter().enumerate() {
        if is_selected(i) {
            selected.push(block.block_id.clone());
            if block.editable {
                allowed.push(block.block_id.clone());
            }
            entries.push(Entry { block, context_only: false, block_count: None });
        } else if (i > 0 && is_selected(i - 1)) || is_selected(i + 1) {
            entries.push(Entry { block, context_only: true, block_count: None });
        }
    }
    Ok(Resolved { entries, allowed, selected })
}

/// A block, or a piece of one, that made it into the chunk.
pub(crate) struct Piece<'p> {
    entry: usize,
    text: &'p str,
    partial: bool,
    offset: usize,
    /// The piece reaches the end of its block (false only for a head cut inside a block).
    ends: bool,
}

/// Takes entries from `start` while they fit the budget. Returns the pieces and, when cut, where to go on.
fn cut<'p>(entries: &[Entry<'p>], start: Cursor, budget: Option<Budget>) -> (Vec<Piece<'p>>, Option<Cursor>) {
    let max = budget.map_or(usize::MAX, |b| b.max_chars);
    let mut used = 0usize;
    let mut pieces = Vec::new();
    for (index, entry) in entries.iter().enumerate().skip(start.entry) {
        let full = entry.block.text.as_str();
        let offset = if index == start.entry { start.offset } else { 0 };
        let text = skip_chars(full, offset);
        // Counting chars is a pass over the text: skip it when there is no budget to check against.
        let cost = if max == usize::MAX { 0 } else { text.chars().count() + 1 };
        if used.saturating_add(cost) <= max {
            used += cost;
            pieces.push(Piece { entry: index, text, partial: offset > 0, offset, ends: true });
            continue;
        }
        if !pieces.is_empty() {
            return (pieces, Some(Cursor { entry: index, offset: 0 }));
        }
        // A single block larger than the whole budget: cut inside it, and say so.
        let take = max.saturating_sub(1).max(1);
        let head = take_chars(text, take);
        pieces.push(Piece { entry: index, text: head, partial: true, offset, ends: false });
        return (pieces, Some(Cursor { entry: index, offset: offset + take }));
    }
    (pieces, None)
}

fn byte_index_of_char(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

fn skip_chars(s: &str, n: usize) -> &str {
    if n == 0 {
        return s;
    }
    s.get(byte_index_of_char(s, n)..).unwrap_or("")
}

fn take_chars(s: &str, n: usize) -> &str {
    s.get(..byte_index_of_char(s, n)).unwrap_or(s)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod shown_tests;
