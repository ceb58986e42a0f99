//! Block-level preconditions (SPEC §5): a write conflicts only when a block it touches changed since the
//! caller read it.
//!
//! The blocks a write touches are each operation's target (`blockId`), the anchor of an insert
//! (`afterBlockId` / `beforeBlockId`) or a move (`afterBlockId`), and, for a `replace` without `blockId`,
//! the blocks the plan changed. What the caller read of each is known, in this order, from:
//!
//! 1. the frozen context named by `contextId`: its content hash of the block (a touched block whose hash
//!    differs now, or that is gone, conflicts); a block the context did not contain goes on to 2;
//! 2. the `revisionRefs` the caller passed (`pageRev:{rev}:block:{id}:{h8}`): the same comparison;
//! 3. `baseRevision` and the page's [`history`](crate::history): the block conflicts when it changed after
//!    `baseRevision`, or when it is gone and the page moved on since `baseRevision`.
//!
//! A `baseRevision` ahead of the page always conflicts. `mnote.page.save` and a caller that sends
//! `requireExactRevision: true` keep the strict page-level rule: `baseRevision` must be the page's revision.
//! The ids the operations name are checked before planning, so a stale caller hears about the change (with
//! the block's current text) rather than, say, that its `matchText` is gone; the blocks a block-less
//! `replace` changed are checked after planning. Either way nothing is applied when any check fails.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use hashbrown::{HashMap, HashSet};

use super::FrozenContext;
use crate::error::{BlockConflict, Error, Result};
use crate::ops::{Operation, Plan};
use crate::page::{Block, Page};
use crate::wire::WarningV1;

/// Code of the warning a write answers with when it landed on a newer revision than its `baseRevision`.
pub const REBASED: &str = "rebased";

/// Up to this many ids, each is found by its own scan of the page; more are found in one pass (a scan
/// compares short ids, cheaper than hashing every block id once, until a few ids are wanted).
const SCANS: usize = 2;

/// What the caller read, from every source it gave.
pub(super) struct Preconditions<'a> {
    base_revision: u64,
    strict: bool,
    context: Option<&'a BTreeMap<String, String>>,
    refs: BTreeMap<&'a str, &'a str>,
}

impl<'a> Preconditions<'a> {
    /// The caller's read: `baseRevision`, whether the page-level rule applies, the frozen context (if the
    /// write is bound to one) and the `revisionRefs` it sent, checked for shape.
    pub(super) fn new(
        base_revision: u64,
        strict: bool,
        context: Option<&'a FrozenContext>,
        refs: Option<&'a [String]>,
    ) -> Result<Self> {
        let mut by_id = BTreeMap::new();
        for (i, revision_ref) in refs.unwrap_or_default().iter().enumerate() {
            let pointer = format!("/revisionRefs/{i}");
            let (id, hash) = parse_revision_ref(revision_ref).ok_or_else(|| {
                Error::invalid(&pointer, "a revisionRef is pageRev:{revision}:block:{blockId}:{8 hex digits}")
            })?;
            if by_id.insert(id, hash).is_some_and(|other| other != hash) {
                return Err(Error::invalid(pointer, format!("two different revisionRefs for block {id:?}")));
            }
        }
        let context = context.map(|c| &c.block_hashes).filter(|hashes| !hashes.is_empty());
        Ok(Preconditions { base_revision, strict, context, refs: by_id })
    }

    /// Checks the blocks `operations` name (targets and anchors), before planning. Ids that an earlier
    /// operation of the batch inserts are not the page's yet and are skipped. Answers the ids checked.
    pub(super) fn check_named<'o>(&self, page: &Page, operations: &'o [Operation]) -> Result<BTreeSet<&'o str>> {
        let mut inserted: BTreeSet<&str> = BTreeSet::new();
        let mut named: BTreeSet<&'o str> = BTreeSet::new();
        for op in operations {
            named.extend(op.referenced_ids().into_iter().filter(|id| !inserted.contains(id)));
            if let Operation::InsertAfter { block, .. } | Operation::InsertBefore { block, .. } = op
                && let Some(id) = &block.block_id
            {
                inserted.insert(id);
            }
        }
        if self.base_revision > page.revision {
            return Err(self.conflict(page, Vec::new()));
        }
        if self.strict {
            if self.base_revision == page.revision {
                return Ok(named);
            }
            let blocks = self.conflicts(page, named.iter().copied());
            return Err(self.conflict(page, blocks));
        }
        self.require_unchanged(page, named.iter().copied())?;
        Ok(named)
    }

    /// Checks the blocks `plan` changed that no operation named (a `replace` without `blockId`), after
    /// planning.
    pub(super) fn check_changed(&self, page: &Page, plan: &Plan, named: &BTreeSet<&str>) -> Result<()> {
        if self.strict {
            return Ok(());
        }
        let unnamed = plan
            .changed
            .iter()
            .filter(|c| c.before.is_some() && !named.contains(c.block_id.as_str()))
            .map(|c| c.block_id.as_str());
        self.require_unchanged(page, unnamed)
    }

    fn require_unchanged<'i>(&self, page: &Page, ids: impl Iterator<Item = &'i str>) -> Result<()> {
        if self.base_revision == page.revision && self.context.is_none() && self.refs.is_empty() {
            return Ok(()); // nothing can have changed since the caller's read
        }
        let blocks = self.conflicts(page, ids);
        match blocks.is_empty() {
            true => Ok(()),
            false => Err(self.conflict(page, blocks)),
        }
    }

    /// Every block of `ids` that changed since the caller's read, as it is now, in the order given.
    fn conflicts<'i>(&self, page: &Page, ids: impl Iterator<Item = &'i str>) -> Vec<BlockConflict> {
        let ids: Vec<&str> = ids.collect();
        let found = (ids.len() > SCANS).then(|| find_all(page, &ids));
        let find = |id: &str| match &found {
            Some(found) => found.get(id).copied(),
            None => page.block(id),
        };
        ids.into_iter()
            .filter_map(|id| {
                let block = find(id);
                self.changed(page, id, block).then(|| BlockConflict {
                    block_id: id.into(),
                    revision_ref: block.map(|b| page.revision_ref(b)),
                    text: block.map(|b| b.text.clone()),
                    changed_at_revision: block.and_then(|_| page.history.entry(id)),
                })
            })
            .collect()
    }

    /// Whether block `id` (now `block`, or gone) changed since the caller's read: the three sources in order.
    fn changed(&self, page: &Page, id: &str, block: Option<&Block>) -> bool {
        let read = self.context.and_then(|hashes| hashes.get(id).map(String::as_str));
        match (read.or_else(|| self.refs.get(id).copied()), block) {
            (Some(hash), Some(block)) => block.content_hash8() != hash,
            (Some(_), None) => true,
            (None, Some(_)) => page.history.changed_after(id, self.base_revision),
            (None, None) => self.base_revision < page.revision,
        }
    }

    fn conflict(&self, page: &Page, blocks: Vec<BlockConflict>) -> Error {
        Error::RevisionConflict { expected: self.base_revision, actual: page.revision, blocks }
    }
}

/// The blocks of `page` named in `ids`, found in one pass that stops once every one is found.
fn find_all<'p>(page: &'p Page, ids: &[&str]) -> HashMap<&'p str, &'p Block> {
    let wanted: HashSet<&str> = ids.iter().copied().collect();
    let mut found = HashMap::with_capacity(wanted.len());
    for block in &page.blocks {
        if wanted.contains(block.block_id.as_str()) {
            found.insert(block.block_id.as_str(), block);
            if found.len() == wanted.len() {
                break;
            }
        }
    }
    found
}

/// The `rebased` warning of a write made against `base` that lands (or, previewed, would land) on the page's newer
/// revision; `None` when `base` is the page's revision.
pub(super) fn rebased(base: u64, page: &Page, dry_run: bool) -> Option<WarningV1> {
    let now = page.revision;
    let verb = if dry_run { "was previewed" } else { "applied" };
    (base < now).then(|| WarningV1 {
        code: REBASED.into(),
        message: format!(
            "the change was made against revision {base}; the blocks it touches are unchanged, so it {verb} \
             on revision {now}"
        ),
    })
}

/// `(blockId, h8)` of `pageRev:{revision}:block:{blockId}:{h8}`, or `None` when it is not one.
fn parse_revision_ref(revision_ref: &str) -> Option<(&str, &str)> {
    let mut parts = revision_ref.split(':');
    let (page_rev, revision, block, id, hash) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let well_formed = page_rev == "pageRev"
        && block == "block"
        && parts.next().is_none()
        && !revision.is_empty()
        && revision.bytes().all(|b| b.is_ascii_digit())
        && crate::page::validate_block_id(id).is_ok()
        && hash.len() == 8
        && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    well_formed.then_some((id, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revision_refs_parse_only_in_their_one_shape() {
        assert_eq!(parse_revision_ref("pageRev:7:block:p_2:1a2b3c4d"), Some(("p_2", "1a2b3c4d")));
        for bad in [
            "",
            "pageRev:7:block:p_2",
            "pageRev:x:block:p_2:1a2b3c4d",
            "pageRev:7:blk:p_2:1a2b3c4d",
            "pageRev:7:block:p 2:1a2b3c4d",
            "pageRev:7:block:p_2:1A2B3C4D",
            "pageRev:7:block:p_2:1a2b3c4",
            "pageRev:7:block:p_2:1a2b3c4d:x",
        ] {
            assert_eq!(parse_revision_ref(bad), None, "{bad:?}");
        }
    }
}
