//! The operations engine: validate, dry-run and apply a batch of block operations.
//!
//! Every write, whoever asks for it, becomes a list of [`Operation`]s and passes through [`plan`]. Planning
//! works on a cheap copy-on-write view of the page and checks each operation in the order of SPEC §5
//! (block exists → in scope → editable → match found → match unique). The first failure is returned and
//! nothing is applied: a batch is all-or-nothing. A successful plan holds the resulting blocks, the
//! per-block changes and diffs, the risk, and the inverse operations that undo it.
//!
//! Every block a batch inserts or changes is measured against [`crate::limits::MAX_BLOCK_BYTES`] before the
//! plan is returned, so a block too large to store is refused (`mnote_block_too_large`) whoever asked.
//!
//! A dry-run is a plan that is shown; an apply is the same plan committed with [`Plan::commit`]. Because both
//! come from one function, applying what a dry-run previewed yields exactly the `after` texts it showed.

pub mod diff;
mod matching;
mod step;
mod types;

pub use crate::vocab::Risk;
pub use types::{ChangedBlock, NewBlock, Occurrence, Operation, TargetScope};

use alloc::borrow::ToOwned;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::page::{Block, Page, validate_block_id};
use diff::BlockDiff;
use step::{Change, Planner};

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
    /// Untouched blocks are moved, not copied; the plan's own blocks are copied, so a plan shared by a
    /// write's preview and its apply ([`crate::executor`]) is committed without copying the plan. The page's [`history`](crate::history) records the new
    /// revision for every block the batch inserted, changed or moved, and forgets the blocks it deleted.
    pub fn commit(&self, page: &mut Page) {
        let revision = page.revision + 1;
        for changed in &self.changed {
            match changed.after {
                Some(_) => page.history.record(changed.block_id.as_str(), revision),
                None => page.history.forget(&changed.block_id),
            }
        }
        let mut base: Vec<Option<Block>> = core::mem::take(&mut page.blocks).into_iter().map(Some).collect();
        page.blocks = self
            .slots
            .iter()
            .filter_map(|s| match s {
                Slot::Base(i) => base.get_mut(*i).and_then(Option::take),
                Slot::Owned(b) => Some(Block::clone(b)),
            })
            .collect();
        page.revision = revision;
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
    /// Base blocks that moved, by their index in the page: the only untouched-looking slots that changed.
    moved: hashbrown::HashSet<usize>,
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

    /// The id of the block at `index`, or `""` past the end.
    fn id_at(&self, index: usize) -> String {
        self.block(index).map(|b| b.block_id.clone()).unwrap_or_default()
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
    let work =
        Working { page, slots: (0..page.blocks.len()).map(Slot::Base).collect(), moved: hashbrown::HashSet::new() };
    let mut planner = Planner { work, scope: scope.clone(), mint, changes: Vec::new() };
    let mut normalized = Vec::with_capacity(operations.len());
    let mut inverse_steps: Vec<Vec<Operation>> = Vec::with_capacity(operations.len());
    for (i, op) in operations.iter().enumerate() {
        let at = |field: &str| format!("/operations/{i}/{field}");
        let (op, inverse) = planner.step(op, &at)?;
        normalized.push(op);
        inverse_steps.push(inverse);
    }
    // Every block the batch inserted or changed must fit one stored block: one rule, whoever writes.
    for slot in &planner.work.slots {
        if let Slot::Owned(block) = slot {
            crate::limits::check_block(block)?;
        }
    }
    let (changed, diffs) = summarize(&planner.work, &planner.changes);
    let risk = risk_of(&normalized, changed.len());
    let inverse = inverse_steps.into_iter().rev().flatten().collect();
    Ok(Plan { slots: planner.work.slots, changed, diffs, operations: normalized, inverse, risk })
}

/// More than three deletes is high; any delete, an `occurrence: all` or several changed blocks is medium.
fn risk_of(operations: &[Operation], changed_blocks: usize) -> Risk {
    let deletes = operations.iter().filter(|op| matches!(op, Operation::Delete { .. })).count();
    let wide = operations.iter().any(|op| matches!(op, Operation::Replace { occurrence: Occurrence::All, .. }));
    if deletes > 3 {
        Risk::High
    } else if deletes > 0 || wide || changed_blocks > 1 {
        Risk::Medium
    } else {
        Risk::Low
    }
}

fn summarize(work: &Working<'_>, strongest: &[(String, Change)]) -> (Vec<ChangedBlock>, Vec<BlockDiff>) {
    let page = work.page;
    let touched: hashbrown::HashMap<&str, Change> = strongest.iter().map(|(id, op)| (id.as_str(), *op)).collect();
    // Page order of the result first, then deleted blocks in their old order. Only owned and moved slots
    // can have changed, so untouched blocks cost one match each.
    let mut order: Vec<(&str, Change, Option<&Block>)> = Vec::with_capacity(strongest.len());
    for slot in &work.slots {
        let block = match slot {
            Slot::Owned(b) => Some(&**b),
            Slot::Base(i) if work.moved.contains(i) => page.blocks.get(*i),
            Slot::Base(_) => None,
        };
        if let Some(block) = block
            && let Some((id, op)) = touched.get_key_value(block.block_id.as_str())
        {
            order.push((id, *op, Some(block)));
        }
    }
    let present: hashbrown::HashSet<&str> = order.iter().map(|(id, _, _)| *id).collect();
    for (id, op) in strongest {
        if !present.contains(id.as_str()) {
            order.push((id.as_str(), *op, None));
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
        let op = match (base, now) {
            (None, _) => Change::Insert,
            (Some(_), None) => Change::Delete,
            (Some(_), Some(_)) => op,
        };
        changed.push(ChangedBlock {
            block_id: id.to_string(),
            op: op.as_str().into(),
            before,
            after: after_text,
            revision_ref,
        });
    }
    (changed, diffs)
}

#[cfg(test)]
mod tests;
