//! The stored image of a page: `page_blocks` row by row, in page order, kept in the object's memory beside
//! the page. After a command, [`StoredBlocks::diff`] compares it with the page and answers the rows to write
//! ([`PageRows`]): blocks whose content changed, new blocks, gone blocks and moved blocks, nothing else.
//! Once those rows are committed, [`StoredBlocks::apply`] brings the image up to date with the [`StoredBlocksPatch`]
//! the same diff made.
//!
//! The diff costs one pass over the page and allocates only for what changed: blocks are compared where
//! both sides have the same id at the same place (the common head and tail, which is the whole page for
//! an edit in place); only the stretch in between, where blocks were inserted, deleted or moved, is
//! matched by id, and the longest run of blocks still in their old order there keeps its keys.

use std::collections::HashMap;
use std::ops::Range;

use pageai_core::Error;
use pageai_core::page::{Block, Page};

use super::order::OrderKey;
use super::rows::{PageRows, RowWrite};

/// One row of `page_blocks`.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredBlock {
    /// The block as stored.
    pub block: Block,
    /// Its place in the page.
    pub ord: OrderKey,
    /// The page revision that last wrote the row.
    pub changed_rev: u64,
    /// The length of its stored form (JSON), for the page's size.
    pub bytes: usize,
}

/// `page_blocks` in page order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredBlocks {
    rows: Vec<StoredBlock>,
}

/// How the stored_blocks follows a committed write.
#[derive(Debug)]
pub struct StoredBlocksPatch {
    /// Rows whose body changed where they stand (head and tail), by index.
    in_place: Vec<(usize, StoredBlock)>,
    /// The stretch of old rows that is replaced by `slots`.
    middle: Range<usize>,
    /// The new stretch, in page order.
    slots: Vec<Slot>,
}

#[derive(Debug)]
enum Slot {
    /// The old row at this index of the middle stretch, unchanged.
    Kept(usize),
    /// A new, moved or changed row.
    Written(StoredBlock),
}

impl StoredBlocks {
    /// The image of rows read from storage, in `ORDER BY ord` order.
    pub fn from_rows(rows: Vec<StoredBlock>) -> Self {
        StoredBlocks { rows }
    }

    /// The rows, in page order.
    pub fn rows(&self) -> &[StoredBlock] {
        &self.rows
    }

    /// The rows that turn the stored page into `page`, and the patch that does the same to this image.
    /// Refuses (before anything is written) a block whose stored form exceeds [`super::MAX_BLOCK_BYTES`].
    pub fn diff(&self, page: &Page) -> Result<(PageRows, StoredBlocksPatch), Error> {
        let (old, new) = (&self.rows, &page.blocks);
        let mut diff = Diff { revision: page.revision, rows: Vec::new(), in_place: Vec::new() };
        // One pass over the common head, and one over the common tail: the same id at the same place.
        let mut head = 0;
        while let (Some(o), Some(n)) = (old.get(head), new.get(head)) {
            if o.block.block_id != n.block_id {
                break;
            }
            diff.in_place(head, o, n)?;
            head += 1;
        }
        let rest = old.len().min(new.len()) - head;
        let mut tail = 0;
        while tail < rest {
            let (o, n) = (old.len() - 1 - tail, new.len() - 1 - tail);
            let (Some(old_row), Some(block)) = (old.get(o), new.get(n)) else { break };
            if old_row.block.block_id != block.block_id {
                break;
            }
            diff.in_place(o, old_row, block)?;
            tail += 1;
        }
        let middle = head..old.len() - tail;
        let slots = diff.middle(old, middle.clone(), new, head..new.len() - tail)?;
        let patch = StoredBlocksPatch { in_place: diff.in_place, middle, slots };
        // Every write lands here before it is stored: one past the page limit is refused now, so the page a
        // GET answers can always be PUT back.
        pageai_core::limits::check_page(pageai_core::limits::page_json_bytes(page, self.block_bytes_after(&patch))?)?;
        let rows = PageRows::new(page, diff.rows)?;
        Ok((rows, patch))
    }

    /// The sum of the stored blocks' lengths once `patch` is applied, without applying it.
    fn block_bytes_after(&self, patch: &StoredBlocksPatch) -> usize {
        let length = |i: usize| self.rows.get(i).map_or(0, |r| r.bytes);
        let total: usize = self.rows.iter().map(|r| r.bytes).sum();
        // The rows changed in place and the middle stretch are disjoint parts of the old image.
        let old_in_place: usize = patch.in_place.iter().map(|(i, _)| length(*i)).sum();
        let new_in_place: usize = patch.in_place.iter().map(|(_, row)| row.bytes).sum();
        let dropped: usize = patch.middle.clone().map(length).sum();
        let stretch: usize = patch
            .slots
            .iter()
            .map(|slot| match slot {
                Slot::Kept(j) => length(patch.middle.start + j),
                Slot::Written(row) => row.bytes,
            })
            .sum();
        total.saturating_sub(old_in_place).saturating_sub(dropped).saturating_add(new_in_place).saturating_add(stretch)
    }

    /// Applies a committed write's patch; `blocks` is how many blocks the page has now (a patch that does
    /// not end there was made against another image, and the caller must reload).
    pub fn apply(&mut self, patch: StoredBlocksPatch, blocks: usize) -> Result<(), String> {
        let StoredBlocksPatch { in_place, middle, slots } = patch;
        for (i, row) in in_place {
            *self.rows.get_mut(i).ok_or("patch row out of range")? = row;
        }
        if middle.end > self.rows.len() || middle.start > middle.end {
            return Err("patch stretch out of range".into());
        }
        let start = middle.start;
        let mut taken: Vec<Option<StoredBlock>> = self.rows.drain(middle).map(Some).collect();
        let mut stretch = Vec::with_capacity(slots.len());
        for slot in slots {
            stretch.push(match slot {
                Slot::Kept(j) => taken.get_mut(j).and_then(Option::take).ok_or("patch keeps a row twice")?,
                Slot::Written(row) => row,
            });
        }
        self.rows.splice(start..start, stretch);
        if self.rows.len() != blocks {
            return Err(format!(
                "the image has {} rows after the patch; the page has {blocks} blocks",
                self.rows.len()
            ));
        }
        Ok(())
    }
}

/// The rows one diff writes, as it finds them.
struct Diff {
    revision: u64,
    rows: Vec<RowWrite>,
    in_place: Vec<(usize, StoredBlock)>,
}

impl Diff {
    /// A block that kept its id and place: written only when its content changed.
    fn in_place(&mut self, index: usize, old: &StoredBlock, new: &Block) -> Result<(), Error> {
        if old.block == *new {
            return Ok(());
        }
        let body = encode(new)?;
        self.in_place.push((index, self.stored(new, old.ord.clone(), body.len())));
        self.rows.push(RowWrite::Body { block_id: new.block_id.clone(), body });
        Ok(())
    }

    fn stored(&self, block: &Block, ord: OrderKey, bytes: usize) -> StoredBlock {
        StoredBlock { block: block.clone(), ord, changed_rev: self.revision, bytes }
    }

    /// The stretch between the common head and tail: old rows `old_range`, new blocks `new_range`.
    fn middle(
        &mut self,
        old: &[StoredBlock],
        old_range: Range<usize>,
        new: &[Block],
        new_range: Range<usize>,
    ) -> Result<Vec<Slot>, Error> {
        let lower = old_range.start.checked_sub(1).and_then(|i| old.get(i)).map(|r| r.ord.clone());
        let upper = old.get(old_range.end).map(|r| r.ord.clone());
        let old_stretch = old.get(old_range).unwrap_or_default();
        let new_stretch = new.get(new_range.clone()).unwrap_or_default();
        if old_stretch.is_empty() && new_stretch.is_empty() {
            return Ok(Vec::new());
        }
        let by_id: HashMap<&str, usize> =
            old_stretch.iter().enumerate().map(|(j, r)| (r.block.block_id.as_str(), j)).collect();
        let found: Vec<Option<usize>> = new_stretch.iter().map(|b| by_id.get(b.block_id.as_str()).copied()).collect();
        let mut referenced = vec![false; old_stretch.len()];
        for j in found.iter().flatten() {
            if let Some(seen) = referenced.get_mut(*j) {
                *seen = true;
            }
        }
        for (row, _) in old_stretch.iter().zip(&referenced).filter(|(_, seen)| !**seen) {
            self.rows.push(RowWrite::Delete { block_id: row.block.block_id.clone() });
        }
        let kept = in_order(&found);
        let mut stretch = Stretch { slots: Vec::with_capacity(new_stretch.len()), run: Vec::new(), lower };
        for (i, block) in new_stretch.iter().enumerate() {
            let position = new_range.start + i;
            match (found.get(i).copied().flatten(), kept.get(i).copied().unwrap_or(false)) {
                (Some(j), true) => {
                    let Some(row) = old_stretch.get(j) else { continue };
                    stretch.flush(self, new, Some(&row.ord))?;
                    if row.block == *block {
                        stretch.slots.push(Slot::Kept(j));
                    } else {
                        let body = encode(block)?;
                        stretch.slots.push(Slot::Written(self.stored(block, row.ord.clone(), body.len())));
                        self.rows.push(RowWrite::Body { block_id: block.block_id.clone(), body });
                    }
                    stretch.lower = Some(row.ord.clone());
                }
                (found, _) => stretch.run.push((position, found.is_some())),
            }
        }
        stretch.flush(self, new, upper.as_ref())?;
        Ok(stretch.slots)
    }
}

/// The new stretch as it is built: its slots, and the run of blocks waiting for keys after `lower`.
struct Stretch {
    slots: Vec<Slot>,
    /// Positions in the page of new or moved blocks (`true` when moved), since the last kept block.
    run: Vec<(usize, bool)>,
    lower: Option<OrderKey>,
}

impl Stretch {
    /// Gives the waiting run keys between `lower` and `upper`, and writes its rows.
    fn flush(&mut self, diff: &mut Diff, page: &[Block], upper: Option<&OrderKey>) -> Result<(), Error> {
        if self.run.is_empty() {
            return Ok(());
        }
        let keys = OrderKey::between(self.lower.as_ref(), upper, self.run.len())
            .map_err(|e| crate::services::tables::storage("order a block", e))?;
        for ((position, moved), ord) in self.run.drain(..).zip(keys) {
            let Some(block) = page.get(position) else { continue };
            let (block_id, body, key) = (block.block_id.clone(), encode(block)?, ord.to_hex());
            let bytes = body.len();
            diff.rows.push(if moved {
                RowWrite::Moved { block_id, ord: key, body }
            } else {
                RowWrite::Insert { block_id, ord: key, body }
            });
            self.lower = Some(ord.clone());
            self.slots.push(Slot::Written(diff.stored(block, ord, bytes)));
        }
        Ok(())
    }
}

/// Which of `found` (old indices, in new order; `None` for new blocks) keep their place: the longest
/// strictly increasing run of old indices (patience sorting, `O(n log n)`). Everything else moved.
fn in_order(found: &[Option<usize>]) -> Vec<bool> {
    // tails[l] = position in `found` of the smallest last element of an increasing run of length l + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; found.len()];
    let value = |p: usize| found.get(p).copied().flatten().unwrap_or(usize::MAX);
    for (p, old) in found.iter().enumerate() {
        let Some(old) = *old else { continue };
        let length = tails.partition_point(|&t| value(t) < old);
        if let Some(slot) = previous.get_mut(p) {
            *slot = length.checked_sub(1).and_then(|l| tails.get(l).copied());
        }
        match tails.get_mut(length) {
            Some(slot) => *slot = p,
            None => tails.push(p),
        }
    }
    let mut kept = vec![false; found.len()];
    let mut at = tails.last().copied();
    while let Some(p) = at {
        if let Some(k) = kept.get_mut(p) {
            *k = true;
        }
        at = previous.get(p).copied().flatten();
    }
    kept
}

/// A block's stored form (its JSON), refused past [`super::MAX_BLOCK_BYTES`] by core's rule
/// ([`pageai_core::limits::block_json`]: 413 `mnote_block_too_large`, naming the block). Every write path
/// asked it already (core's operations engine, a whole-page store); this is the last word before a row is
/// written, so no block can reach SQLite's value limit.
pub(super) fn encode(block: &Block) -> Result<String, Error> {
    pageai_core::limits::block_json(block)
}

#[cfg(test)]
#[path = "stored_blocks_tests.rs"]
mod tests;
