//! Structural commands: inserting a block, moving blocks, changing a block's type, checking a todo.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Planner, Refusal, refuse};
use crate::ops::{NewBlock, Operation};
use crate::page::{Attrs, BlockType, Page};
use crate::route::grammar::InsertAt;
use crate::vocab::ReasonCode;

/// A new block of `kind` with the attrs a fresh one has (SPEC §2): todos unchecked, lists at depth 0,
/// headings at level 2.
pub(super) fn new_block(kind: BlockType, text: &str) -> NewBlock {
    let attrs = match kind {
        BlockType::Todo => Attrs { checked: Some(false), depth: Some(0), ..Attrs::default() },
        BlockType::BulletedListItem | BlockType::NumberedListItem => Attrs { depth: Some(0), ..Attrs::default() },
        BlockType::Heading => Attrs { level: Some(2), ..Attrs::default() },
        BlockType::Paragraph
        | BlockType::Quote
        | BlockType::Code
        | BlockType::Divider
        | BlockType::Image
        | BlockType::Table => Attrs::default(),
    };
    NewBlock { block_id: None, kind, text: text.into(), attrs }
}

impl Planner<'_> {
    /// An insert at the start or end of the page, or next to the block a reference names. The anchor is
    /// not written, so a locked one is fine (the executor checks it is in scope).
    pub(super) fn insert(&mut self, block: NewBlock, at: &InsertAt) -> Result<Operation, Refusal> {
        let page = self.input.page;
        let edge = |last: bool| {
            let b = if last { page.blocks.last() } else { page.blocks.first() };
            b.map(|b| b.block_id.clone()).ok_or_else(|| refuse(ReasonCode::TargetNotFound, "the page is empty"))
        };
        let none = || refuse(ReasonCode::TargetNotFound, "no block to insert next to");
        Ok(match at {
            InsertAt::End => Operation::InsertAfter { after_block_id: edge(true)?, block },
            InsertAt::Start => Operation::InsertBefore { before_block_id: edge(false)?, block },
            InsertAt::After(r) => {
                Operation::InsertAfter { after_block_id: self.resolve(r)?.pop().ok_or_else(none)?, block }
            }
            InsertAt::Before(r) => {
                let anchor = self.resolve(r)?.into_iter().next().ok_or_else(none)?;
                Operation::InsertBefore { before_block_id: anchor, block }
            }
        })
    }

    /// Moves `ids` (in page order, kept together) to `to`: the first after the anchor, each next one after
    /// the one before it. A move that changes nothing is refused.
    pub(super) fn move_blocks(&mut self, ids: &[String], to: &InsertAt) -> Result<Vec<Operation>, Refusal> {
        let page = self.input.page;
        let order: Vec<&str> = page.blocks.iter().map(|b| b.block_id.as_str()).collect();
        let staying = |id: &&str| !ids.iter().any(|m| m == id);
        let anchor: Option<String> = match to {
            InsertAt::End => order.iter().copied().rev().find(staying).map(String::from),
            InsertAt::Start => None,
            InsertAt::After(r) => Some(self.resolve(r)?.pop().ok_or_else(|| not_there("no block to move after"))?),
            InsertAt::Before(r) => {
                let before = self.resolve(r)?.into_iter().next().ok_or_else(|| not_there("no block to move before"))?;
                let at = order.iter().position(|id| *id == before).unwrap_or_default();
                order.get(..at).unwrap_or_default().iter().copied().rev().find(staying).map(String::from)
            }
        };
        if anchor.as_ref().is_some_and(|a| ids.contains(a)) {
            return Err(refuse(ReasonCode::Complex, "the blocks to move include the block to move them next to"));
        }
        let mut after_move: Vec<&str> = order.iter().copied().filter(staying).collect();
        let at = anchor.as_deref().and_then(|a| after_move.iter().position(|id| *id == a)).map_or(0, |p| p + 1);
        for (i, id) in ids.iter().enumerate() {
            after_move.insert(at + i, id);
        }
        if after_move == order {
            return Err(not_there(format!("{} is already there; nothing to move", ids.join(", "))));
        }
        let mut ops = Vec::with_capacity(ids.len());
        let mut after = anchor;
        for id in ids {
            ops.push(Operation::Move { block_id: id.clone(), after_block_id: after.clone() });
            after = Some(id.clone());
        }
        Ok(ops)
    }
}

fn not_there(reason: impl Into<String>) -> Refusal {
    refuse(ReasonCode::TargetNotFound, reason)
}

/// A type change of one block. Only text blocks trade types directly; a table, code block or divider
/// needs its content reworked, which is a model's job.
pub(super) fn set_type(page: &Page, id: String, kind: BlockType, level: Option<u8>) -> Result<Operation, Refusal> {
    let from = page.block(&id).map(|b| b.kind);
    if !from.is_some_and(is_text_type) || !(is_text_type(kind) || kind == BlockType::Code) {
        return Err(refuse(ReasonCode::Complex, "turning this block into that type needs its content rewritten"));
    }
    let attrs = level.map(|l| Attrs { level: Some(l), ..Attrs::default() });
    Ok(Operation::Update { block_id: id, text: None, kind: Some(kind), attrs })
}

/// A block deleted by its text (`delete the todo "X"`) must be named by its whole text (spaces aside): a
/// part of it could mean the span rather than the block.
pub(super) fn whole_text(page: &Page, ids: &[String], text: &str) -> Result<(), Refusal> {
    let whole = |id: &String| page.block(id).is_some_and(|b| b.text.trim() == text.trim());
    if ids.iter().all(whole) {
        return Ok(());
    }
    Err(Refusal {
        code: ReasonCode::Complex,
        reason: alloc::format!("{text:?} is only part of {}: the span or the whole block?", ids.join(", ")),
        candidates: ids.to_vec(),
    })
}

/// Checks (or unchecks) the todos `ids`, keeping their other attrs. Todos already in that state are left
/// alone; a block that is not a todo, or nothing left to change, is refused.
pub(super) fn check(page: &Page, ids: &[String], checked: bool) -> Result<Vec<Operation>, Refusal> {
    let mut ops = Vec::new();
    for id in ids {
        let Some(block) = page.block(id) else {
            return Err(not_there("the page has no such block"));
        };
        if block.kind != BlockType::Todo {
            return Err(not_there(format!("{id} is a {}, not a todo", block.kind.as_str())));
        }
        if block.attrs.checked.unwrap_or(false) == checked {
            continue;
        }
        let attrs = Attrs { checked: Some(checked), ..block.attrs.clone() };
        ops.push(Operation::Update { block_id: id.clone(), text: None, kind: None, attrs: Some(attrs) });
    }
    if ops.is_empty() {
        let state = if checked { "checked" } else { "unchecked" };
        let verb = if ids.len() == 1 { "is" } else { "are" };
        return Err(not_there(format!("{} {verb} already {state}; nothing to change", ids.join(", "))));
    }
    Ok(ops)
}

/// Blocks whose text reads the same whatever their type: a type change is a pure relabelling.
fn is_text_type(kind: BlockType) -> bool {
    match kind {
        BlockType::Paragraph
        | BlockType::Heading
        | BlockType::BulletedListItem
        | BlockType::NumberedListItem
        | BlockType::Todo
        | BlockType::Quote => true,
        BlockType::Code | BlockType::Divider | BlockType::Image | BlockType::Table => false,
    }
}
