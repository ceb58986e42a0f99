//! The operations engine: validate, dry-run and apply a batch of block operations.
//!
//! Every write, whoever asks for it, becomes a list of [`Operation`]s and passes through [`plan`]. Planning
//! works on a cheap copy-on-write view of the page and checks each operation in the order of SPEC §5
//! (block exists → in scope → editable → match found → match unique). The first failure is returned and
//! nothing is applied: a batch is all-or-nothing. A successful plan holds the resulting blocks, the
//! per-block changes and diffs, the risk, and the inverse operations that undo it.
//!
//! A dry-run is a plan that is shown; an apply is the same plan committed with [`Plan::commit`]. Because both
//! come from one function, applying what a dry-run previewed yields exactly the `after` texts it showed.

pub mod diff;
mod matching;
mod types;

pub use types::{ChangedBlock, NewBlock, Occurrence, Operation, Risk, TargetScope};

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::page::{Attrs, Block, BlockType, Page, validate_block_id};
use diff::BlockDiff;
use matching::Hit;

/// A validated batch, ready to show (dry-run) or commit (apply).
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The page after the batch, as references to the base page's blocks and new blocks.
    slots: Vec<Slot>,
    /// Per-block changes, in page order (deleted blocks last).
    pub changed: Vec<ChangedBlock>,
    /// Per-block diffs, in the same order.
    pub diffs: Vec<BlockDiff>,
    /// The operations with minted ids filled in: applying these reproduces this plan exactly.
    pub operations: Vec<Operation>,
    /// Operations that undo the batch, in the order to apply them.
    pub inverse: Vec<Operation>,
    /// How risky the batch is.
    pub risk: Risk,
}

impl Plan {
    /// The blocks the page will have, copied out of `base` (the page the plan was made against).
    pub fn blocks_after(&self, base: &Page) -> Vec<Block> {
        self.slots
            .iter()
            .filter_map(|s| match s {
                Slot::Base(i) => base.blocks.get(*i).cloned(),
                Slot::Owned(b) => Some((**b).clone()),
            })
            .collect()
    }

    /// Applies the plan to `page`, which must be the page it was made against: new blocks, revision + 1.
    /// Untouched blocks are moved, not copied.
    pub fn commit(self, page: &mut Page) {
        let mut base: Vec<Option<Block>> = core::mem::take(&mut page.blocks).into_iter().map(Some).collect();
        page.blocks = self
            .slots
            .into_iter()
            .filter_map(|s| match s {
                Slot::Base(i) => base.get_mut(i).and_then(Option::take),
                Slot::Owned(b) => Some(*b),
            })
            .collect();
        page.revision += 1;
    }
}

/// A block of the working copy: still the page's (by index), or changed by this batch.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    Base(usize),
    // Boxed so an untouched slot stays two words: a 10,000-block working copy is then cheap to build.
    Owned(Box<Block>),
}

/// The page as the batch changes it, without copying blocks it doesn't touch.
struct Working<'p> {
    page: &'p Page,
    slots: Vec<Slot>,
    /// Base blocks that moved: the only untouched-looking slots that changed.
    moved: BTreeSet<usize>,
}

impl<'p> Working<'p> {
    fn block(&self, index: usize) -> Option<&Block> {
        match self.slots.get(index)? {
            Slot::Base(i) => self.page.blocks.get(*i),
            Slot::Owned(b) => Some(b),
        }
    }

    fn blocks(&self) -> impl Iterator<Item = &Block> {
        self.slots.iter().filter_map(|s| match s {
            Slot::Base(i) => self.page.blocks.get(*i),
            Slot::Owned(b) => Some(b),
        })
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.blocks().position(|b| b.block_id == id)
    }

    fn block_mut(&mut self, index: usize) -> Option<&mut Block> {
        let slot = self.slots.get_mut(index)?;
        if let Slot::Base(i) = slot {
            *slot = Slot::Owned(Box::new(self.page.blocks.get(*i)?.clone()));
        }
        match slot {
            Slot::Owned(b) => Some(b),
            Slot::Base(_) => None,
        }
    }

    fn require(&self, id: &str, pointer: &str) -> Result<usize> {
        self.position(id).ok_or_else(|| {
            if validate_block_id(id).is_err() {
                return Error::invalid(pointer, "not a valid block id");
            }
            Error::BlockNotFound {
                block_id: id.to_owned(),
                nearest: crate::error::nearest_ids(id, self.blocks().map(|b| b.block_id.as_str())),
            }
        })
    }
}

/// Validates `operations` against `page` within `scope` and computes the result, without changing `page`.
///
/// `mint` supplies ids for inserted blocks that carry none. The caller has already checked the revision.
pub fn plan(
    page: &Page,
    operations: &[Operation],
    scope: &TargetScope,
    mint: &mut dyn FnMut() -> String,
) -> Result<Plan> {
    if operations.is_empty() {
        return Err(Error::invalid("/operations", "send at least one operation"));
    }
    let mut work = Working { page, slots: (0..page.blocks.len()).map(Slot::Base).collect(), moved: BTreeSet::new() };
    let mut scope = scope.clone();
    let mut normalized = Vec::with_capacity(operations.len());
    let mut inverse_steps: Vec<Vec<Operation>> = Vec::with_capacity(operations.len());
    let mut strongest: Vec<(String, &'static str)> = Vec::new();
    let mut deletes = 0usize;
    let mut wide = false;
    for (i, op) in operations.iter().enumerate() {
        let at = |field: &str| format!("/operations/{i}/{field}");
        let (op, inverse) = step(&mut work, &mut scope, op, &at, mint, &mut strongest)?;
        if matches!(op, Operation::Delete { .. }) {
            deletes += 1;
        }
        if matches!(op, Operation::Replace { occurrence: Occurrence::All, .. }) {
            wide = true;
        }
        normalized.push(op);
        inverse_steps.push(inverse);
    }
    let (changed, diffs) = summarize(&work, &strongest);
    let risk = if deletes > 3 {
        Risk::High
    } else if deletes > 0 || wide || changed.len() > 1 {
        Risk::Medium
    } else {
        Risk::Low
    };
    let inverse = inverse_steps.into_iter().rev().flatten().collect();
    Ok(Plan { slots: work.slots, changed, diffs, operations: normalized, inverse, risk })
}

fn check_target(work: &Working<'_>, scope: &TargetScope, id: &str, pointer: &str, needs_edit: bool) -> Result<usize> {
    let index = work.require(id, pointer)?;
    if !scope.allows(id) {
        return Err(Error::BlockTargetOutOfScope { block_id: id.to_owned(), allowed: scope.ids().unwrap_or_default() });
    }
    if needs_edit && !work.block(index).is_some_and(|b| b.editable) {
        return Err(Error::BlockNotEditable { block_id: id.to_owned() });
    }
    Ok(index)
}

fn note(strongest: &mut Vec<(String, &'static str)>, id: &str, op: &'static str) {
    // insert and delete outrank update, which outranks replace and move.
    let rank = |o: &str| match o {
        "insert" | "delete" => 3,
        "update" => 2,
        _ => 1,
    };
    match strongest.iter_mut().find(|(b, _)| b == id) {
        Some((_, existing)) if rank(op) > rank(existing) || *existing == "insert" && op == "delete" => *existing = op,
        Some(_) => {}
        None => strongest.push((id.to_owned(), op)),
    }
}

type Step = (Operation, Vec<Operation>);

fn step(
    work: &mut Working<'_>,
    scope: &mut TargetScope,
    op: &Operation,
    at: &dyn Fn(&str) -> String,
    mint: &mut dyn FnMut() -> String,
    strongest: &mut Vec<(String, &'static str)>,
) -> Result<Step> {
    match op {
        Operation::Replace { block_id, match_text, content, occurrence } => {
            if match_text.is_empty() {
                return Err(Error::invalid(at("matchText"), "must not be empty"));
            }
            let single = match block_id {
                Some(id) => Some(check_target(work, scope, id, &at("blockId"), true)?),
                None => None,
            };
            let in_target =
                |index: usize, block: &Block| single.map_or_else(|| scope.allows(&block.block_id), |s| s == index);
            let finder = memchr::memmem::Finder::new(match_text.as_bytes());
            let mut hits: Vec<Hit> = Vec::new();
            for (index, block) in work.blocks().enumerate() {
                if in_target(index, block) {
                    matching::hits_in(index, &block.text, &finder, &mut hits);
                }
            }
            if hits.is_empty() {
                let texts = work
                    .blocks()
                    .enumerate()
                    .filter(|(i, b)| in_target(*i, b))
                    .map(|(_, b)| (b.block_id.as_str(), b.text.as_str()));
                return Err(Error::MatchNotFound {
                    match_text: match_text.clone(),
                    did_you_mean: matching::did_you_mean(match_text, texts),
                });
            }
            let id_of =
                |work: &Working<'_>, slot: usize| work.block(slot).map(|b| b.block_id.clone()).unwrap_or_default();
            if *occurrence == Occurrence::Unique && hits.len() > 1 {
                let matches = hits.iter().map(|h| (id_of(work, h.slot), h.char_offset)).collect();
                return Err(Error::MatchAmbiguous { match_text: match_text.clone(), matches });
            }
            // Every hit must sit in an editable block; without blockId a locked block can only be reached
            // through an unrestricted scope.
            let mut touched: Vec<usize> = hits.iter().map(|h| h.slot).collect();
            touched.dedup();
            for &slot in &touched {
                if !work.block(slot).is_some_and(|b| b.editable) {
                    return Err(Error::BlockNotEditable { block_id: id_of(work, slot) });
                }
            }
            let mut inverse = Vec::new();
            for slot in touched {
                let Some(block) = work.block_mut(slot) else {
                    continue;
                };
                inverse.push(Operation::Update {
                    block_id: block.block_id.clone(),
                    text: Some(block.text.clone()),
                    kind: None,
                    attrs: None,
                });
                block.text = block.text.replace(match_text.as_str(), content);
                note(strongest, &block.block_id.clone(), "replace");
            }
            Ok((op.clone(), inverse))
        }
        Operation::InsertAfter { after_block_id: anchor, block }
        | Operation::InsertBefore { before_block_id: anchor, block } => {
            let after = matches!(op, Operation::InsertAfter { .. });
            let anchor_field = if after { "afterBlockId" } else { "beforeBlockId" };
            let index = check_target(work, scope, anchor, &at(anchor_field), false)?;
            let id = match &block.block_id {
                Some(id) => {
                    validate_block_id(id).map_err(|reason| Error::invalid(at("block/blockId"), reason))?;
                    if work.position(id).is_some() {
                        return Err(Error::invalid(at("block/blockId"), format!("block id {id:?} is already taken")));
                    }
                    id.clone()
                }
                None => fresh_id(work, mint, &at("block/blockId"))?,
            };
            let new = Block {
                block_id: id.clone(),
                kind: block.kind,
                text: block.text.clone(),
                attrs: block.attrs.clone(),
                editable: true,
            };
            new.validate(&at("block")).map_err(|e| Error::invalid(at("block"), e.message()))?;
            work.slots.insert(if after { index + 1 } else { index }, Slot::Owned(Box::new(new)));
            scope.admit(&id);
            note(strongest, &id, "insert");
            let mut normalized_block = block.clone();
            normalized_block.block_id = Some(id.clone());
            let normalized = if after {
                Operation::InsertAfter { after_block_id: anchor.clone(), block: normalized_block }
            } else {
                Operation::InsertBefore { before_block_id: anchor.clone(), block: normalized_block }
            };
            Ok((normalized, alloc::vec![Operation::Delete { block_id: id }]))
        }
        Operation::Update { block_id, text, kind, attrs } => {
            if text.is_none() && kind.is_none() && attrs.is_none() {
                return Err(Error::invalid(at(""), "update needs text, type or attrs"));
            }
            let index = check_target(work, scope, block_id, &at("blockId"), true)?;
            let Some(block) = work.block_mut(index) else {
                return Err(Error::invalid(at("blockId"), "not found"));
            };
            let inverse = Operation::Update {
                block_id: block_id.clone(),
                text: Some(block.text.clone()),
                kind: Some(block.kind),
                attrs: Some(block.attrs.clone()),
            };
            let mut next = block.clone();
            if let Some(text) = text {
                next.text = text.clone();
            }
            if let Some(kind) = kind {
                next.kind = *kind;
                if attrs.is_none() {
                    next.attrs = attrs_for(*kind, &block.attrs);
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
            note(strongest, block_id, "update");
            Ok((op.clone(), alloc::vec![inverse]))
        }
        Operation::Delete { block_id } => {
            let index = check_target(work, scope, block_id, &at("blockId"), true)?;
            let removed = work.block(index).cloned().ok_or_else(|| Error::invalid(at("blockId"), "not found"))?;
            work.slots.remove(index);
            let restore = NewBlock {
                block_id: Some(removed.block_id.clone()),
                kind: removed.kind,
                text: removed.text.clone(),
                attrs: removed.attrs.clone(),
            };
            let inverse = match index.checked_sub(1).and_then(|p| work.block(p)) {
                Some(prev) => Operation::InsertAfter { after_block_id: prev.block_id.clone(), block: restore },
                None => match work.block(0) {
                    Some(next) => Operation::InsertBefore { before_block_id: next.block_id.clone(), block: restore },
                    // Deleting the only block: nothing to anchor an undo on. Refuse rather than lose it.
                    None => {
                        return Err(Error::invalid(
                            at("blockId"),
                            "a page keeps at least one block; update it instead",
                        ));
                    }
                },
            };
            note(strongest, block_id, "delete");
            Ok((op.clone(), alloc::vec![inverse]))
        }
        Operation::Move { block_id, after_block_id } => {
            let from = check_target(work, scope, block_id, &at("blockId"), true)?;
            if let Some(anchor) = after_block_id {
                if anchor == block_id {
                    return Err(Error::invalid(at("afterBlockId"), "a block cannot move after itself"));
                }
                check_target(work, scope, anchor, &at("afterBlockId"), false)?;
            }
            let previous = from.checked_sub(1).and_then(|p| work.block(p)).map(|b| b.block_id.clone());
            let slot = work.slots.remove(from);
            if let Slot::Base(i) = slot {
                work.moved.insert(i);
            }
            let to = match after_block_id {
                Some(anchor) => work.position(anchor).map_or(0, |p| p + 1),
                None => 0,
            };
            work.slots.insert(to, slot);
            note(strongest, block_id, "move");
            Ok((op.clone(), alloc::vec![Operation::Move { block_id: block_id.clone(), after_block_id: previous }]))
        }
    }
}

fn fresh_id(work: &Working<'_>, mint: &mut dyn FnMut() -> String, pointer: &str) -> Result<String> {
    for _ in 0..16 {
        let id = mint();
        if validate_block_id(&id).is_ok() && work.position(&id).is_none() {
            return Ok(id);
        }
    }
    Err(Error::invalid(pointer, "could not mint a fresh block id"))
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

fn summarize(work: &Working<'_>, strongest: &[(String, &'static str)]) -> (Vec<ChangedBlock>, Vec<BlockDiff>) {
    let page = work.page;
    let touched: alloc::collections::BTreeMap<&str, &'static str> =
        strongest.iter().map(|(id, op)| (id.as_str(), *op)).collect();
    // Page order of the result first, then deleted blocks in their old order. Only owned and moved slots
    // can have changed, so untouched blocks cost one match each.
    let mut order: Vec<(&str, &'static str, Option<&Block>)> = Vec::with_capacity(strongest.len());
    for slot in &work.slots {
        let block = match slot {
            Slot::Owned(b) => Some(&**b),
            Slot::Base(i) if work.moved.contains(i) => page.blocks.get(*i),
            Slot::Base(_) => None,
        };
        if let Some(block) = block
            && let Some((id, op)) = touched.get_key_value(block.block_id.as_str())
        {
            order.push((id, op, Some(block)));
        }
    }
    let present: BTreeSet<&str> = order.iter().map(|(id, _, _)| *id).collect();
    for (id, op) in strongest {
        if !present.contains(id.as_str()) {
            order.push((id.as_str(), op, None));
        }
    }
    let mut changed = Vec::with_capacity(order.len());
    let mut diffs = Vec::with_capacity(order.len());
    for (id, op, now) in order {
        let base = page.block(id);
        if base.is_none() && now.is_none() {
            continue; // inserted then deleted within the batch
        }
        let revision_ref = match (base, now) {
            (Some(b), _) => page.revision_ref(b),
            (None, Some(n)) => crate::page::revision_ref_at(page.revision + 1, n),
            (None, None) => String::new(),
        };
        let before = base.map(|b| b.text.clone());
        let after_text = now.map(|b| b.text.clone());
        diffs.push(diff::block_diff(id, before.as_deref().unwrap_or(""), after_text.as_deref().unwrap_or("")));
        let op = if base.is_none() {
            "insert"
        } else if now.is_none() {
            "delete"
        } else {
            op
        };
        changed.push(ChangedBlock {
            block_id: id.to_string(),
            op: op.to_string(),
            before,
            after: after_text,
            revision_ref,
        });
    }
    (changed, diffs)
}

#[cfg(test)]
mod tests;
