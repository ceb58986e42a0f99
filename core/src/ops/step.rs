//! One step of a batch: one function per operation kind, each checking its operation in SPEC §5's order
//! against the working copy, changing it, and returning the operation as normalized (minted ids filled in)
//! with the operations that undo it.

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::matching::{self, Hit};
use super::{NewBlock, Occurrence, Operation, Slot, TargetScope, Working};
use crate::error::{Error, Result};
use crate::page::{Attrs, Block, BlockType, validate_block_id};

/// What a batch did to one block. Only the strongest change per block is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    Replace,
    Move,
    Update,
    Insert,
    Delete,
}

impl Change {
    /// The `op` of a changed block.
    pub(super) const fn as_str(self) -> &'static str {
        match self {
            Change::Replace => "replace",
            Change::Move => "move",
            Change::Update => "update",
            Change::Insert => "insert",
            Change::Delete => "delete",
        }
    }

    /// Insert and delete outrank update, which outranks replace and move.
    const fn rank(self) -> u8 {
        match self {
            Change::Insert | Change::Delete => 3,
            Change::Update => 2,
            Change::Replace | Change::Move => 1,
        }
    }
}

/// An operation as normalized, and the operations that undo it.
pub(super) type Step = (Operation, Vec<Operation>);

/// A batch being planned: the working copy, the scope (inserted blocks join it), the id minter, and the
/// strongest change per block so far.
pub(super) struct Planner<'p, 's, 'm> {
    pub work: Working<'p>,
    pub scope: TargetScope<'s>,
    pub mint: &'m mut dyn FnMut() -> String,
    pub changes: Vec<(String, Change)>,
}

impl Planner<'_, '_, '_> {
    /// Applies `op` to the working copy. `at` names a field of this operation for errors.
    pub(super) fn step(&mut self, op: &Operation, at: &dyn Fn(&str) -> String) -> Result<Step> {
        match op {
            Operation::Replace { block_id, match_text, content, occurrence } => {
                self.replace(block_id.as_deref(), match_text, content, *occurrence, at).map(|undo| (op.clone(), undo))
            }
            Operation::InsertAfter { after_block_id, block } => self.insert(after_block_id, block, true, at),
            Operation::InsertBefore { before_block_id, block } => self.insert(before_block_id, block, false, at),
            Operation::Update { block_id, text, kind, attrs } => {
                let undo = self.update(block_id, text.as_deref(), *kind, attrs.as_ref(), at)?;
                Ok((op.clone(), vec![undo]))
            }
            Operation::Delete { block_id } => Ok((op.clone(), vec![self.delete(block_id, at)?])),
            Operation::Move { block_id, after_block_id } => {
                Ok((op.clone(), vec![self.move_block(block_id, after_block_id.as_deref(), at)?]))
            }
        }
    }

    /// `replace`: every occurrence of `match_text` in the targeted blocks (exactly one unless `all`).
    fn replace(
        &mut self,
        block_id: Option<&str>,
        match_text: &str,
        content: &str,
        occurrence: Occurrence,
        at: &dyn Fn(&str) -> String,
    ) -> Result<Vec<Operation>> {
        if match_text.is_empty() {
            return Err(Error::invalid(at("matchText"), "must not be empty"));
        }
        let single = match block_id {
            Some(id) => Some(self.check_target(id, &at("blockId"), true)?),
            None => None,
        };
        let hits = self.find(single, match_text)?;
        let work = &self.work;
        if occurrence == Occurrence::Unique && hits.len() > 1 {
            let matches = hits.iter().map(|h| (work.id_at(h.slot), h.char_offset)).collect();
            return Err(Error::MatchAmbiguous { match_text: match_text.into(), matches });
        }
        // Every hit must sit in an editable block; without blockId a locked block can only be reached
        // through an unrestricted scope.
        let mut touched: Vec<usize> = hits.iter().map(|h| h.slot).collect();
        touched.dedup();
        if let Some(&locked) = touched.iter().find(|&&slot| !work.block(slot).is_some_and(|b| b.editable)) {
            return Err(Error::BlockNotEditable { block_id: work.id_at(locked) });
        }
        let mut inverse = Vec::new();
        for slot in touched {
            let Some(block) = self.work.block_mut(slot) else {
                continue;
            };
            inverse.push(Operation::Update {
                block_id: block.block_id.clone(),
                text: Some(block.text.clone()),
                kind: None,
                attrs: None,
            });
            block.text = block.text.replace(match_text, content);
            let id = block.block_id.clone();
            self.note(&id, Change::Replace);
        }
        Ok(inverse)
    }

    /// Every occurrence of `match_text` in the block at `single`, or else in every block the scope allows;
    /// none at all is `mnote_match_not_found` with the closest text as a hint.
    fn find(&self, single: Option<usize>, match_text: &str) -> Result<Vec<Hit>> {
        let scope = &self.scope;
        let in_target =
            |index: usize, block: &Block| single.map_or_else(|| scope.allows(&block.block_id), |s| s == index);
        let finder = memchr::memmem::Finder::new(match_text.as_bytes());
        let mut hits: Vec<Hit> = Vec::new();
        for (index, block) in self.work.blocks().enumerate() {
            if in_target(index, block) {
                matching::hits_in(index, &block.text, &finder, &mut hits);
            }
        }
        if hits.is_empty() {
            let texts = self
                .work
                .blocks()
                .enumerate()
                .filter(|(i, b)| in_target(*i, b))
                .map(|(_, b)| (b.block_id.as_str(), b.text.as_str()));
            return Err(Error::MatchNotFound {
                match_text: match_text.into(),
                did_you_mean: matching::did_you_mean(match_text, texts),
            });
        }
        Ok(hits)
    }

    /// `insert_after` / `insert_before`: a new block next to `anchor`, with its id given or minted.
    fn insert(&mut self, anchor: &str, block: &NewBlock, after: bool, at: &dyn Fn(&str) -> String) -> Result<Step> {
        let anchor_field = if after { "afterBlockId" } else { "beforeBlockId" };
        let index = self.check_target(anchor, &at(anchor_field), false)?;
        let id = match &block.block_id {
            Some(id) => {
                validate_block_id(id).map_err(|reason| Error::invalid(at("block/blockId"), reason))?;
                if self.work.position(id).is_some() {
                    return Err(Error::invalid(at("block/blockId"), format!("block id {id:?} is already taken")));
                }
                id.clone()
            }
            None => self.fresh_id(&at("block/blockId"))?,
        };
        let new = Block {
            block_id: id.clone(),
            kind: block.kind,
            text: block.text.clone(),
            attrs: block.attrs.clone(),
            editable: true,
        };
        new.validate(&at("block")).map_err(|e| Error::invalid(at("block"), e.message()))?;
        self.work.slots.insert(if after { index + 1 } else { index }, Slot::Owned(Box::new(new)));
        self.scope.admit(&id);
        self.note(&id, Change::Insert);
        let block = NewBlock { block_id: Some(id.clone()), ..block.clone() };
        let anchor = anchor.to_owned();
        let normalized = match after {
            true => Operation::InsertAfter { after_block_id: anchor, block },
            false => Operation::InsertBefore { before_block_id: anchor, block },
        };
        Ok((normalized, vec![Operation::Delete { block_id: id }]))
    }

    /// `update`: a block's text, type or attrs; a new type without attrs keeps what still fits.
    fn update(
        &mut self,
        block_id: &str,
        text: Option<&str>,
        kind: Option<BlockType>,
        attrs: Option<&Attrs>,
        at: &dyn Fn(&str) -> String,
    ) -> Result<Operation> {
        if text.is_none() && kind.is_none() && attrs.is_none() {
            return Err(Error::invalid(at(""), "update needs text, type or attrs"));
        }
        let index = self.check_target(block_id, &at("blockId"), true)?;
        let Some(block) = self.work.block_mut(index) else {
            return Err(Error::invalid(at("blockId"), "not found"));
        };
        let inverse = Operation::Update {
            block_id: block_id.to_owned(),
            text: Some(block.text.clone()),
            kind: Some(block.kind),
            attrs: Some(block.attrs.clone()),
        };
        let mut next = block.clone();
        if let Some(text) = text {
            next.text = text.to_owned();
        }
        if let Some(kind) = kind {
            next.kind = kind;
            if attrs.is_none() {
                next.attrs = attrs_for(kind, &block.attrs);
            }
        }
        if let Some(attrs) = attrs {
            next.attrs = attrs.clone();
        }
        next.validate(&at("")).map_err(|e| match e {
            Error::InvalidPage { pointer, reason } => Error::invalid(pointer, reason),
            other => other,
        })?;
        *block = next;
        self.note(block_id, Change::Update);
        Ok(inverse)
    }

    /// `delete`: removes a block; the undo re-inserts it next to its neighbour.
    fn delete(&mut self, block_id: &str, at: &dyn Fn(&str) -> String) -> Result<Operation> {
        let index = self.check_target(block_id, &at("blockId"), true)?;
        let work = &mut self.work;
        let removed = work.block(index).cloned().ok_or_else(|| Error::invalid(at("blockId"), "not found"))?;
        work.slots.remove(index);
        let restore =
            NewBlock { block_id: Some(removed.block_id), kind: removed.kind, text: removed.text, attrs: removed.attrs };
        let inverse = match index.checked_sub(1).and_then(|p| work.block(p)) {
            Some(prev) => Operation::InsertAfter { after_block_id: prev.block_id.clone(), block: restore },
            None => match work.block(0) {
                Some(next) => Operation::InsertBefore { before_block_id: next.block_id.clone(), block: restore },
                // Deleting the only block: nothing to anchor an undo on. Refuse rather than lose it.
                None => {
                    return Err(Error::invalid(at("blockId"), "a page keeps at least one block; update it instead"));
                }
            },
        };
        self.note(block_id, Change::Delete);
        Ok(inverse)
    }

    /// `move`: a block after `after` (or to the top); the undo moves it back after its old neighbour.
    fn move_block(&mut self, block_id: &str, after: Option<&str>, at: &dyn Fn(&str) -> String) -> Result<Operation> {
        let from = self.check_target(block_id, &at("blockId"), true)?;
        if let Some(anchor) = after {
            if anchor == block_id {
                return Err(Error::invalid(at("afterBlockId"), "a block cannot move after itself"));
            }
            self.check_target(anchor, &at("afterBlockId"), false)?;
        }
        let work = &mut self.work;
        let previous = from.checked_sub(1).and_then(|p| work.block(p)).map(|b| b.block_id.clone());
        let slot = work.slots.remove(from);
        if let Slot::Base(i) = slot {
            work.moved.insert(i);
        }
        let to = match after {
            Some(anchor) => work.position(anchor).map_or(0, |p| p + 1),
            None => 0,
        };
        work.slots.insert(to, slot);
        self.note(block_id, Change::Move);
        Ok(Operation::Move { block_id: block_id.to_owned(), after_block_id: previous })
    }

    /// SPEC §5's order for one target: exists → in scope → editable (when `needs_edit`). An anchor (an
    /// insert's neighbour, a move's destination) is not written, so it need not be editable: a locked anchor
    /// only has to lie within the scope (see [`Planner::locked_within_scope`]).
    fn check_target(&self, id: &str, pointer: &str, needs_edit: bool) -> Result<usize> {
        let index = self.work.require(id, pointer)?;
        if !self.scope.allows(id) && (needs_edit || !self.locked_within_scope(index)) {
            let allowed = self.scope.ids().unwrap_or_default();
            return Err(Error::BlockTargetOutOfScope { block_id: id.to_owned(), allowed });
        }
        if needs_edit && !self.work.block(index).is_some_and(|b| b.editable) {
            return Err(Error::BlockNotEditable { block_id: id.to_owned() });
        }
        Ok(index)
    }

    /// Whether the locked block at `index` lies within the scope. Allowed lists never name locked blocks (a
    /// context's `allowedTargetBlockIds` are its editable blocks), so a scope says it reaches a run of locked
    /// blocks by allowing the editable blocks on both sides of it, or on its one side at a page edge. On a
    /// full-page scope every locked block passes; a selection that stops before a locked block does not
    /// reach past it.
    fn locked_within_scope(&self, index: usize) -> bool {
        let work = &self.work;
        if work.block(index).is_none_or(|b| b.editable) {
            return false;
        }
        let before = (0..index).rev().filter_map(|i| work.block(i)).find(|b| b.editable);
        let after = (index + 1..work.slots.len()).filter_map(|i| work.block(i)).find(|b| b.editable);
        let allowed = |b: &Block| self.scope.allows(&b.block_id);
        match (before, after) {
            (None, None) => false,
            (Some(side), None) | (None, Some(side)) => allowed(side),
            (Some(before), Some(after)) => allowed(before) && allowed(after),
        }
    }

    /// Records `change` to block `id`, keeping the strongest change per block.
    fn note(&mut self, id: &str, change: Change) {
        match self.changes.iter_mut().find(|(b, _)| b == id) {
            Some((_, existing))
                if change.rank() > existing.rank() || (*existing == Change::Insert && change == Change::Delete) =>
            {
                *existing = change
            }
            Some(_) => {}
            None => self.changes.push((id.to_owned(), change)),
        }
    }

    fn fresh_id(&mut self, pointer: &str) -> Result<String> {
        for _ in 0..16 {
            let id = (self.mint)();
            if validate_block_id(&id).is_ok() && self.work.position(&id).is_none() {
                return Ok(id);
            }
        }
        Err(Error::invalid(pointer, "could not mint a fresh block id"))
    }
}

/// Attrs for a block whose type changes: keep what still fits, fill what the new type needs.
fn attrs_for(kind: BlockType, old: &Attrs) -> Attrs {
    match kind {
        BlockType::Heading => Attrs { level: Some(old.level.unwrap_or(2)), ..Attrs::default() },
        BlockType::BulletedListItem | BlockType::NumberedListItem => {
            Attrs { depth: Some(old.depth.unwrap_or(0)), ..Attrs::default() }
        }
        BlockType::Todo => Attrs {
            depth: Some(old.depth.unwrap_or(0)),
            checked: Some(old.checked.unwrap_or(false)),
            ..Attrs::default()
        },
        BlockType::Code => Attrs { language: old.language.clone(), ..Attrs::default() },
        BlockType::Image => Attrs { src: old.src.clone(), alt: old.alt.clone(), ..Attrs::default() },
        BlockType::Paragraph | BlockType::Quote | BlockType::Divider | BlockType::Table => Attrs::default(),
    }
}
