//! The command grammar: one normalized clause in, one [`Command`] out, or nothing.
//!
//! Clauses arrive with quotes replaced by markers (see `prompt`), so every pattern can tell the user's
//! literal text from the words around it. A clause that fits no pattern is not guessed at: it goes to
//! Hermes.

use alloc::string::String;

mod en;
mod zh;

use super::prompt::quote_index;
use super::target::{Kind, Ordinal};
use crate::page::BlockType;
use crate::vocab::Intent;

pub(in crate::route) use en::{en, sed};
pub(in crate::route) use zh::{zh, zh_unquoted};

/// Which blocks a command may touch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Within {
    /// Any allowed block.
    Page,
    /// The user's selection.
    Selection,
    /// One block, by position.
    Block(Ordinal),
    /// The blocks of one kind (表格里的, the heading).
    Kind(Kind),
}

/// A block named in a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BlockRef {
    /// By position.
    Ordinal(Ordinal),
    /// The selected blocks.
    Selection,
    /// Several blocks by position (第二段和第三段, the first two paragraphs).
    Ordinals(alloc::vec::Vec<Ordinal>),
    /// The one block of a kind (the divider, 引用).
    Only(Kind),
    /// The one block (of a kind, if given) whose text contains this literal.
    Containing(String, Option<Kind>),
    /// Every block of a kind (所有待办, all the todos).
    Every(Kind),
}

/// Where an inserted block goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum InsertAt {
    /// After the last block.
    End,
    /// Before the first block.
    Start,
    /// After a block.
    After(BlockRef),
    /// Before a block.
    Before(BlockRef),
}

/// One low-ambiguity edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Command {
    /// Replace a literal (`all`: every occurrence). `quoted` is false for the riskier unquoted form.
    Replace { find: String, with: String, all: bool, within: Within, quoted: bool },
    /// Remove a literal span.
    DeleteSpan { text: String, all: bool, within: Within },
    /// Remove whole blocks.
    DeleteBlock(BlockRef),
    /// Add a block.
    Insert { text: String, kind: BlockType, at: InsertAt },
    /// Change a block's type.
    SetType { target: BlockRef, kind: BlockType, level: Option<u8> },
    /// Replace a block's whole text.
    SetText { target: BlockRef, text: String },
    /// Check or uncheck todos.
    Check { target: BlockRef, checked: bool },
    /// Move blocks, keeping their order.
    Move { target: BlockRef, to: InsertAt },
}

impl Command {
    /// The intent of the command.
    pub fn intent(&self) -> Intent {
        match self {
            Command::Replace { .. } | Command::SetText { .. } => Intent::DirectReplace,
            Command::DeleteSpan { .. } | Command::DeleteBlock(_) => Intent::DirectDelete,
            Command::Insert { .. } => Intent::DirectInsert,
            // The v1 intents have no move or check: both are structural edits that keep the text, like a
            // type change.
            Command::SetType { .. } | Command::Check { .. } | Command::Move { .. } => Intent::DirectTypeChange,
        }
    }
}

impl Command {
    /// What the command does, in a few words for the route's reason: `replace`, `check`, `move` …
    pub fn action(&self) -> &'static str {
        match self {
            Command::Replace { .. } => "replace",
            Command::DeleteSpan { .. } | Command::DeleteBlock(_) => "delete",
            Command::Insert { .. } => "insert",
            Command::SetType { .. } => "type change",
            Command::SetText { .. } => "text update",
            Command::Check { checked: true, .. } => "check",
            Command::Check { checked: false, .. } => "uncheck",
            Command::Move { .. } => "move",
        }
    }
}

/// The text of a clause that is exactly one quote marker.
pub(super) fn only_quote<'q>(s: &str, quotes: &'q [String]) -> Option<&'q str> {
    let mut chars = s.trim().chars();
    let index = quote_index(chars.next()?)?;
    if chars.next().is_some() {
        return None;
    }
    quotes.get(index).map(String::as_str)
}

/// Strips the longest of `options` that `s` starts with, so a table's order never hides a longer word
/// (`内容` behind `内`).
pub(super) fn strip_any<'a>(s: &'a str, options: &[&str]) -> (&'a str, bool) {
    let longest = options.iter().filter(|o| s.starts_with(**o)).max_by_key(|o| o.len());
    match longest.and_then(|o| s.get(o.len()..)) {
        Some(rest) => (rest, true),
        None => (s, false),
    }
}

pub(super) fn strip_any_suffix<'a>(s: &'a str, options: &[&str]) -> (&'a str, bool) {
    for o in options {
        if let Some(rest) = s.strip_suffix(o) {
            return (rest, true);
        }
    }
    (s, false)
}

/// Splits at the first of `verbs` that occurs in `s` (longest verbs first at each position).
pub(super) fn split_verb<'a>(s: &'a str, verbs: &[&'a str]) -> Option<(&'a str, &'a str, &'a str)> {
    let mut best: Option<(usize, &str)> = None;
    for v in verbs {
        if let Some(at) = s.find(v)
            && best.is_none_or(|(b, bv)| at < b || (at == b && v.len() > bv.len()))
        {
            best = Some((at, v));
        }
    }
    let (at, verb) = best?;
    Some((s.get(..at)?, verb, s.get(at + verb.len()..)?))
}
