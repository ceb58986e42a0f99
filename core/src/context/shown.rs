//! The pending suggestions a context shows, and how each view marks them as not the page's text
//! (`mnote.page_ai_context.v2`; see [`crate::wire::PageAiContextV2`] for the views' formats).
//!
//! A suggestion is shown after the block it changes, or for a new block after the block it is inserted
//! next to (its anchor), only when that block's last piece is in the chunk and it is not a context-only
//! neighbour: a chunk shows the suggestions of the blocks it shows, once.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::xml::escape_into;
use crate::ops::Operation;
use crate::page::Page;
use crate::wire::{AuthorKind, ContextSuggestionV2, SuggestionState, SuggestionV1};

/// The start of a suggestion's line in the `text` view; a block's own line that begins with its first
/// character is written with a `\` before it.
pub(super) const MARKER_OPEN: char = '⟦';
const MARKER_CLOSE: char = '⟧';

/// The suggestions of `page` that wait for a person (`pending` or `stale`), each with its anchor: the
/// page block it is shown after. One whose anchor cannot be found (a chain of new blocks whose root is
/// gone) is left out of the views.
pub(super) fn anchored(page: &Page, suggestions: &[SuggestionV1]) -> Vec<ContextSuggestionV2> {
    let waiting = |s: &&SuggestionV1| {
        s.document_id == page.document_id && matches!(s.state, SuggestionState::Pending | SuggestionState::Stale)
    };
    suggestions
        .iter()
        .filter(waiting)
        .filter_map(|s| {
            let anchor = anchor_of(page, s, suggestions)?;
            Some(ContextSuggestionV2 {
                suggestion_id: s.suggestion_id.clone(),
                session_id: s.session_id.clone(),
                block_id: s.block_id.clone(),
                anchor_block_id: anchor,
                change: s.change.clone(),
                author: s.author.clone(),
                reason: s.reason.clone(),
                state: s.state,
                before: s.diff.before.clone(),
                after: s.diff.after.clone(),
            })
        })
        .collect()
}

/// The page block `s` is shown after: its own block, or the block its new block is inserted next to,
/// followed through other new blocks of the list (a run of inserts), at most once per suggestion.
fn anchor_of(page: &Page, s: &SuggestionV1, all: &[SuggestionV1]) -> Option<String> {
    let mut current = s;
    for _ in 0..=all.len() {
        if page.block(&current.block_id).is_some() {
            return Some(current.block_id.clone());
        }
        let next = current.operations.iter().find_map(|op| match op {
            Operation::InsertAfter { after_block_id: anchor, .. } => Some(anchor),
            Operation::InsertBefore { before_block_id: anchor, .. } => Some(anchor),
            _ => None,
        })?;
        if page.block(next).is_some() {
            return Some(next.clone());
        }
        current = all.iter().find(|other| other.block_id == *next && other.session_id == current.session_id)?;
    }
    None
}

/// Appends a block's text to the `text` view, with `\` before any of its lines that begins with
/// [`MARKER_OPEN`], so that no line of the page's text reads as a suggestion's.
pub(super) fn push_block_text(out: &mut String, text: &str) {
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.starts_with(MARKER_OPEN) {
            out.push('\\');
        }
        out.push_str(line);
    }
}

/// Appends one suggestion's line to the `text` view (without the newline before it):
/// `⟦suggestion {id} · NOT page text · {state} {change} by {author}⟧ "before" → "after" · reason "…"`.
pub(super) fn push_text_line(out: &mut String, s: &ContextSuggestionV2) {
    out.push(MARKER_OPEN);
    let _ = write!(out, "suggestion {} · NOT page text · {} {} by ", s.suggestion_id, state_name(s.state), s.change);
    push_author(out, s);
    out.push(MARKER_CLOSE);
    out.push(' ');
    push_quoted_or(out, s.before.as_deref(), "(no block yet)");
    out.push_str(" → ");
    push_quoted_or(out, s.after.as_deref(), "(block deleted)");
    if let Some(reason) = &s.reason {
        out.push_str(" · reason ");
        push_quoted(out, reason);
    }
}

fn push_author(out: &mut String, s: &ContextSuggestionV2) {
    let kind = match s.author.kind {
        AuthorKind::Person => "person",
        AuthorKind::Hermes => "hermes",
        AuthorKind::Command => "command",
    };
    out.push_str(kind);
    out.push(' ');
    push_quoted(out, &s.author.actor);
    if let Some(run) = &s.author.run_id {
        out.push_str(" run ");
        push_quoted(out, run);
    }
}

fn state_name(state: SuggestionState) -> &'static str {
    match state {
        SuggestionState::Pending => "pending",
        SuggestionState::Stale => "stale",
        SuggestionState::Accepted => "accepted",
        SuggestionState::Rejected => "rejected",
        SuggestionState::Aborted => "aborted",
        SuggestionState::Failed => "failed",
        SuggestionState::Reverted => "reverted",
    }
}

fn push_quoted_or(out: &mut String, text: Option<&str>, none: &str) {
    match text {
        Some(text) => push_quoted(out, text),
        None => out.push_str(none),
    }
}

/// `text` as a JSON string, with the marker's brackets escaped too (`\u27e6`, `\u27e7`): one line, and
/// nothing in it closes or opens a marker.
fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            MARKER_OPEN | MARKER_CLOSE | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends one suggestion's `<suggestion>` element to the `page_xml` view: `<del>` holds the block's text
/// now, `<ins>` its text if accepted (each absent when there is none).
pub(super) fn push_xml(out: &mut String, s: &ContextSuggestionV2) {
    out.push_str("<suggestion id=\"");
    escape_into(out, &s.suggestion_id);
    out.push_str("\" session=\"");
    escape_into(out, &s.session_id);
    out.push_str("\" block=\"");
    escape_into(out, &s.block_id);
    out.push_str("\" change=\"");
    escape_into(out, &s.change);
    let _ = write!(out, "\" state=\"{}\" author=\"", state_name(s.state));
    out.push_str(match s.author.kind {
        AuthorKind::Person => "person",
        AuthorKind::Hermes => "hermes",
        AuthorKind::Command => "command",
    });
    out.push_str("\" actor=\"");
    escape_into(out, &s.author.actor);
    out.push('"');
    if let Some(run) = &s.author.run_id {
        out.push_str(" run=\"");
        escape_into(out, run);
        out.push('"');
    }
    if let Some(reason) = &s.reason {
        out.push_str(" reason=\"");
        escape_into(out, reason);
        out.push('"');
    }
    out.push_str(" page-text=\"false\">");
    if let Some(before) = &s.before {
        out.push_str("<del>");
        escape_into(out, before);
        out.push_str("</del>");
    }
    if let Some(after) = &s.after {
        out.push_str("<ins>");
        escape_into(out, after);
        out.push_str("</ins>");
    }
    out.push_str("</suggestion>");
}
