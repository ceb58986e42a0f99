//! `mnote.page.save` as operations: the whole new block list becomes inserts, moves, updates and deletes,
//! so the coarse path passes through the same engine and guards as every precise write.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use hashbrown::HashMap;

use crate::error::{Error, Result};
use crate::ops::{NewBlock, Operation};
use crate::page::{Block, Page};

/// The operations that turn `page` into `blocks`. Inserts and moves come first, so the page is never empty
/// while blocks are deleted. Locked blocks must appear unchanged and in their old relative order; they are
/// never moved: the blocks around them move instead, as few as possible (a longest increasing run of old
/// positions stays where it is).
pub(super) fn operations_for(page: &Page, blocks: &[Block]) -> Result<Vec<Operation>> {
    let seen = check_blocks(page, blocks)?;
    let kept = blocks_that_stay(page, blocks)?;
    let old: HashMap<&str, &Block> = page.blocks.iter().map(|b| (b.block_id.as_str(), b)).collect();
    let mut plan = Plan { order: page.blocks.iter().map(|b| b.block_id.clone()).collect(), ops: Vec::new() };
    let mut previous: Option<&str> = None;
    for block in blocks {
        match old.get(block.block_id.as_str()) {
            None => plan.insert(block, previous)?,
            Some(existing) => {
                if !kept.contains(block.block_id.as_str()) {
                    plan.place(&block.block_id, previous);
                }
                plan.update(existing, block);
            }
        }
        previous = Some(&block.block_id);
    }
    for existing in page.blocks.iter().filter(|b| !seen.contains(b.block_id.as_str())) {
        plan.ops.push(Operation::Delete { block_id: existing.block_id.clone() });
    }
    if plan.ops.is_empty() {
        return Err(Error::invalid("/blocks", "the blocks are the same as the page's; nothing to save"));
    }
    Ok(plan.ops)
}

/// Checks the new block list on its own and against the page: at least one block, each valid, ids unique,
/// no block locked or unlocked. Returns the ids it holds.
fn check_blocks<'a>(page: &Page, blocks: &'a [Block]) -> Result<BTreeSet<&'a str>> {
    if blocks.is_empty() {
        return Err(Error::invalid("/blocks", "a page keeps at least one block"));
    }
    let mut seen = BTreeSet::new();
    for (i, block) in blocks.iter().enumerate() {
        block.validate(&format!("/blocks/{i}")).map_err(|e| Error::invalid(format!("/blocks/{i}"), e.message()))?;
        if !seen.insert(block.block_id.as_str()) {
            return Err(Error::invalid(format!("/blocks/{i}/blockId"), "duplicate block id"));
        }
    }
    for (i, block) in blocks.iter().enumerate() {
        if let Some(existing) = page.block(&block.block_id)
            && existing.editable != block.editable
        {
            return Err(Error::invalid(format!("/blocks/{i}/editable"), "a save cannot lock or unlock blocks"));
        }
    }
    Ok(seen)
}

/// The operations so far, and the block order they leave.
struct Plan {
    order: Vec<String>,
    ops: Vec<Operation>,
}

impl Plan {
    /// Inserts a new block after `previous`, or first on the page.
    fn insert(&mut self, block: &Block, previous: Option<&str>) -> Result<()> {
        let new = NewBlock {
            block_id: Some(block.block_id.clone()),
            kind: block.kind,
            text: block.text.clone(),
            attrs: block.attrs.clone(),
        };
        let at = match (previous, self.order.first()) {
            (Some(prev), _) => {
                self.ops.push(Operation::InsertAfter { after_block_id: prev.into(), block: new });
                self.position(prev).map_or(0, |p| p + 1)
            }
            (None, Some(first)) => {
                self.ops.push(Operation::InsertBefore { before_block_id: first.clone(), block: new });
                0
            }
            (None, None) => return Err(Error::invalid("/blocks", "the page has no block to anchor on")),
        };
        self.order.insert(at, block.block_id.clone());
        Ok(())
    }

    /// Moves an existing block right after `previous` (first when `None`), unless it is there already.
    fn place(&mut self, id: &str, previous: Option<&str>) {
        let current_previous = self.position(id).and_then(|p| p.checked_sub(1)).and_then(|p| self.order.get(p));
        if current_previous.map(String::as_str) == previous {
            return;
        }
        self.ops.push(Operation::Move { block_id: id.into(), after_block_id: previous.map(String::from) });
        self.order.retain(|b| b != id);
        let at = previous.and_then(|prev| self.position(prev)).map_or(0, |p| p + 1);
        self.order.insert(at, id.into());
    }

    /// Updates an existing block's text, type and attributes when any of them changed.
    fn update(&mut self, existing: &Block, block: &Block) {
        if existing.text != block.text || existing.kind != block.kind || existing.attrs != block.attrs {
            self.ops.push(Operation::Update {
                block_id: block.block_id.clone(),
                text: (existing.text != block.text).then(|| block.text.clone()),
                kind: (existing.kind != block.kind).then_some(block.kind),
                attrs: Some(block.attrs.clone()),
            });
        }
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.order.iter().position(|b| b == id)
    }
}

/// Existing blocks that keep their place: every locked block, plus, between consecutive locked blocks, a
/// longest run whose old positions increase in the new order.
fn blocks_that_stay<'a>(page: &Page, blocks: &'a [Block]) -> Result<BTreeSet<&'a str>> {
    let old_index: HashMap<&str, usize> =
        page.blocks.iter().enumerate().map(|(i, b)| (b.block_id.as_str(), i)).collect();
    let mut kept = BTreeSet::new();
    let mut segment: Vec<(&'a str, usize)> = Vec::new();
    let mut last_locked: Option<usize> = None;
    for (i, block) in blocks.iter().enumerate() {
        let Some(&old) = old_index.get(block.block_id.as_str()) else {
            continue;
        };
        if !block.editable {
            if last_locked.is_some_and(|l| l > old) {
                return Err(Error::invalid(format!("/blocks/{i}"), "a save cannot reorder locked blocks"));
            }
            kept.extend(longest_increasing(&segment, last_locked, Some(old)));
            segment.clear();
            kept.insert(block.block_id.as_str());
            last_locked = Some(old);
        } else {
            segment.push((block.block_id.as_str(), old));
        }
    }
    kept.extend(longest_increasing(&segment, last_locked, None));
    Ok(kept)
}

/// Ids of a longest subsequence of `items` whose old positions increase and lie strictly between `low`
/// and `high` (patience sorting, O(n log n)).
fn longest_increasing<'a>(items: &[(&'a str, usize)], low: Option<usize>, high: Option<usize>) -> Vec<&'a str> {
    let fits = |old: usize| low.is_none_or(|l| old > l) && high.is_none_or(|h| old < h);
    let candidates: Vec<(&'a str, usize)> = items.iter().copied().filter(|(_, old)| fits(*old)).collect();
    let mut tails: Vec<usize> = Vec::new(); // index into candidates of the smallest tail of each length
    let mut parent: Vec<Option<usize>> = alloc::vec![None; candidates.len()];
    for (i, &(_, old)) in candidates.iter().enumerate() {
        let len = tails.partition_point(|&t| candidates.get(t).is_some_and(|c| c.1 < old));
        if let Some(p) = len.checked_sub(1)
            && let (Some(slot), Some(&t)) = (parent.get_mut(i), tails.get(p))
        {
            *slot = Some(t);
        }
        if len == tails.len() {
            tails.push(i);
        } else if let Some(t) = tails.get_mut(len) {
            *t = i;
        }
    }
    let mut out = Vec::new();
    let mut next = tails.last().copied();
    while let Some(i) = next {
        if let Some(c) = candidates.get(i) {
            out.push(c.0);
        }
        next = parent.get(i).copied().flatten();
    }
    out
}
