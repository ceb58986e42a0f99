//! Block history: the revision at which each block of a page last changed.
//!
//! This is what lets a write made against an older revision land when the blocks it touches did not change
//! since (SPEC §5): a block "changed after revision `r`" when [`BlockHistory::changed_at`] is greater than
//! `r`. A change is anything a write does to the block: its text, type, attrs, or position (a move).
//!
//! The history is exact for the blocks it has an entry for, and conservative for the rest: every block
//! without an entry is taken to have changed at [`BlockHistory::known_since`]. A page read from JSON knows
//! nothing of its past, so its history is empty with `known_since` = its revision: any write based on an
//! older revision then conflicts, exactly as a page-level check would. [`crate::ops::Plan::commit`] keeps
//! the history of the pages it writes; storage that keeps a page between requests keeps its history too
//! ([`BlockHistory::from_rows`], [`BlockHistory::rows`]).
//!
//! ```
//! use pageai_core::history::BlockHistory;
//!
//! let mut history = BlockHistory::new(4); // loaded at revision 4: nothing known before
//! history.record("p_2", 5);
//! assert_eq!(history.changed_at("p_2"), 5);
//! assert_eq!(history.changed_at("p_1"), 4, "no entry: conservatively, known_since");
//! assert!(history.changed_after("p_2", 4));
//! assert!(!history.changed_after("p_1", 4), "a write based on revision 4 may touch p_1");
//! history.forget("p_2"); // deleted
//! assert_eq!(history.changed_at("p_2"), 4);
//! ```

use crate::json::Read;
use alloc::collections::BTreeMap;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// The revision at which each block last changed; see the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockHistory {
    /// Every block without an entry has not changed after this revision.
    known_since: u64,
    /// Block id → the revision that last changed it.
    changed: BTreeMap<String, u64>,
}

impl BlockHistory {
    /// A history that knows nothing before `known_since`: what a page read from JSON at that revision has.
    pub fn new(known_since: u64) -> Self {
        BlockHistory { known_since, changed: BTreeMap::new() }
    }

    /// A history from stored rows: `(blockId, revision that last changed it)`, plus the `known_since` of
    /// blocks without a row (`0` when every block has one).
    pub fn from_rows(known_since: u64, rows: impl IntoIterator<Item = (String, u64)>) -> Self {
        BlockHistory { known_since, changed: rows.into_iter().collect() }
    }

    /// Every block without an entry has not changed after this revision.
    pub fn known_since(&self) -> u64 {
        self.known_since
    }

    /// The revision at which `block_id` last changed: its entry, else [`Self::known_since`].
    pub fn changed_at(&self, block_id: &str) -> u64 {
        self.changed.get(block_id).copied().unwrap_or(self.known_since)
    }

    /// The exact revision that last changed `block_id`, when there is an entry for it.
    pub fn entry(&self, block_id: &str) -> Option<u64> {
        self.changed.get(block_id).copied()
    }

    /// Whether `block_id` may have changed after `revision`.
    pub fn changed_after(&self, block_id: &str, revision: u64) -> bool {
        self.changed_at(block_id) > revision
    }

    /// Records that `block_id` changed (or was inserted) at `revision`.
    pub fn record(&mut self, block_id: impl Into<String>, revision: u64) {
        self.changed.insert(block_id.into(), revision);
    }

    /// Drops the entry of a deleted block.
    pub fn forget(&mut self, block_id: &str) {
        self.changed.remove(block_id);
    }

    /// The entries, by block id: what storage writes, and [`Self::from_rows`] reads back.
    pub fn rows(&self) -> impl Iterator<Item = (&str, u64)> {
        self.changed.iter().map(|(id, revision)| (id.as_str(), *revision))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn rows_round_trip() {
        let rows = vec![("p_1".into(), 3), ("p_2".into(), 7)];
        let history = BlockHistory::from_rows(5, rows);
        assert_eq!(history.rows().collect::<Vec<_>>(), [("p_1", 3), ("p_2", 7)]);
        assert_eq!((history.changed_at("p_1"), history.changed_at("p_2"), history.changed_at("p_9")), (3, 7, 5));
        let again = BlockHistory::from_rows(5, history.rows().map(|(id, r)| (id.into(), r)));
        assert_eq!(again, history);
    }
}
