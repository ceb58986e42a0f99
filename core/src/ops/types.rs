//! The types of the operations engine: operations, scopes, risk and per-block changes.

use crate::json::Read;
use alloc::borrow::Cow;
use alloc::borrow::ToOwned;
use alloc::string::String;
use alloc::vec::Vec;
use hashbrown::HashSet;
use serde::{Deserialize, Serialize};

use crate::page::{Attrs, BlockType, Page, null_as_default};

/// How many matches a `replace` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Occurrence {
    /// Exactly one match, or `mnote_match_ambiguous`.
    #[default]
    Unique,
    /// Every match.
    All,
}

/// A block to insert. Its id is minted by the caller when absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewBlock {
    /// The new block's id; minted when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_id: Option<String>,
    /// The block's type.
    #[serde(rename = "type")]
    pub kind: BlockType,
    /// Inline Markdown.
    #[serde(default, deserialize_with = "null_as_default")]
    pub text: String,
    /// Type-specific attributes.
    #[serde(default, skip_serializing_if = "Attrs::is_empty", deserialize_with = "null_as_default")]
    pub attrs: Attrs,
}

crate::json::tagged::internally_tagged! {
    /// One block operation. The `op` field names the variant.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[cfg_attr(test, derive(schemars::JsonSchema))]
    #[serde(tag = "op", rename_all = "snake_case", rename_all_fields = "camelCase", deny_unknown_fields)]
    pub enum Operation ("op") read as
        #[serde(rename_all = "snake_case", rename_all_fields = "camelCase", deny_unknown_fields)] {
        /// Replace `matchText` by `content`, in `blockId` or, without it, anywhere in the allowed blocks.
        Replace {
            /// Limit the search to this block.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            block_id: Option<String>,
            /// Exact text to find.
            match_text: String,
            /// Text to put in its place.
            content: String,
            /// `unique` (default) or `all`.
            #[serde(default, skip_serializing_if = "is_unique", deserialize_with = "null_as_default")]
            occurrence: Occurrence,
        },
        /// Insert a block after another.
        InsertAfter {
            /// The anchor.
            after_block_id: String,
            /// The new block.
            block: NewBlock,
        },
        /// Insert a block before another.
        InsertBefore {
            /// The anchor.
            before_block_id: String,
            /// The new block.
            block: NewBlock,
        },
        /// Change a block's text, type or attrs. A type change keeps only the attrs that fit the new type.
        Update {
            /// The block.
            block_id: String,
            /// New text.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            text: Option<String>,
            /// New type.
            #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
            kind: Option<BlockType>,
            /// New attrs (replacing the old ones).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            attrs: Option<Attrs>,
        },
        /// Remove a block.
        Delete {
            /// The block.
            block_id: String,
        },
        /// Move a block after another, or to the top with `afterBlockId: null`.
        Move {
            /// The block.
            block_id: String,
            /// The anchor, or null for the top of the page.
            after_block_id: Option<String>,
        },
    }
}

fn is_unique(o: &Occurrence) -> bool {
    *o == Occurrence::Unique
}

impl Operation {
    /// The `op` tag.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Replace { .. } => "replace",
            Operation::InsertAfter { .. } => "insert_after",
            Operation::InsertBefore { .. } => "insert_before",
            Operation::Update { .. } => "update",
            Operation::Delete { .. } => "delete",
            Operation::Move { .. } => "move",
        }
    }

    /// The ids of existing blocks this operation refers to.
    pub fn referenced_ids(&self) -> Vec<&str> {
        match self {
            Operation::Replace { block_id, .. } => block_id.iter().map(String::as_str).collect(),
            Operation::InsertAfter { after_block_id: id, .. } | Operation::InsertBefore { before_block_id: id, .. } => {
                alloc::vec![id.as_str()]
            }
            Operation::Update { block_id, .. } | Operation::Delete { block_id } => {
                alloc::vec![block_id.as_str()]
            }
            Operation::Move { block_id, after_block_id } => {
                let mut ids = alloc::vec![block_id.as_str()];
                ids.extend(after_block_id.as_deref());
                ids
            }
        }
    }
}

/// The write scope: which existing blocks a batch may target.
///
/// It borrows the ids it is built from and hashes them, so checking a 10,000-block full-page scope costs
/// one pass, with no copies. A list of the page's own ids in page order ([`TargetScope::listed`], as a
/// full-page context freezes them) costs less still: it is compared with the page, and nothing is hashed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TargetScope<'a> {
    allowed: Option<Allowed<'a>>,
}

/// The ids of a restricted scope.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Allowed<'a> {
    /// Exactly these.
    Only(HashSet<Cow<'a, str>>),
    /// `listed`, the page's ids in page order but for the few in `excluded`: every block of that page
    /// except those, and the blocks the batch inserts (`admitted`).
    AllBut { listed: &'a [String], excluded: Vec<&'a str>, admitted: Vec<String> },
}

/// How many of a page's blocks a [`TargetScope::listed`] list may leave out and still be checked against
/// the page rather than hashed: a full-page context leaves out the locked blocks, usually none or a few.
const MAX_LEFT_OUT: usize = 16;

impl<'a> TargetScope<'a> {
    /// Any block of the page.
    pub fn unrestricted() -> Self {
        TargetScope { allowed: None }
    }

    /// Only these blocks.
    pub fn only<I: IntoIterator<Item = S>, S: Into<Cow<'a, str>>>(ids: I) -> Self {
        TargetScope { allowed: Some(Allowed::Only(ids.into_iter().map(Into::into).collect())) }
    }

    /// Only the blocks `ids` names, for a batch on `page`: the scope of [`TargetScope::only`] for every
    /// block of `page` and every block the batch inserts, which are the only ids a plan asks about.
    ///
    /// When `ids` lists the page's blocks in page order but for a few, the scope keeps the few it leaves
    /// out instead of hashing the list.
    pub fn listed(page: &'a Page, ids: &'a [String]) -> Self {
        let mut next = ids.iter().peekable();
        let mut excluded = Vec::new();
        for block in &page.blocks {
            if next.peek().is_some_and(|id| **id == block.block_id) {
                next.next();
            } else if excluded.len() < MAX_LEFT_OUT {
                excluded.push(block.block_id.as_str());
            } else {
                return TargetScope::only(ids.iter().map(String::as_str));
            }
        }
        if next.peek().is_some() {
            // Not in page order, or not all of them the page's.
            return TargetScope::only(ids.iter().map(String::as_str));
        }
        TargetScope { allowed: Some(Allowed::AllBut { listed: ids, excluded, admitted: Vec::new() }) }
    }

    /// The intersection with another list: a caller can narrow a scope, never widen it.
    pub fn narrowed_by(self, ids: Option<&'a [String]>) -> Self {
        match (self.allowed, ids) {
            (allowed, None) => TargetScope { allowed },
            (None, Some(ids)) => TargetScope::only(ids.iter().map(String::as_str)),
            (Some(Allowed::Only(allowed)), Some(ids)) => {
                TargetScope::only(ids.iter().map(String::as_str).filter(|id| allowed.contains(*id)))
            }
            (Some(Allowed::AllBut { listed, admitted, .. }), Some(ids)) => {
                let mut every = TargetScope::only(listed.iter().map(String::as_str));
                for id in &admitted {
                    every.admit(id);
                }
                every.narrowed_by(Some(ids))
            }
        }
    }

    /// Whether `id` may be targeted. A scope made with [`TargetScope::listed`] answers for the blocks of its
    /// page and the ones a batch inserted, which are the only ids a plan asks about.
    // Not inlined: a plan asks in several places, and a call per block costs nothing next to the search.
    #[inline(never)]
    pub fn allows(&self, id: &str) -> bool {
        match &self.allowed {
            None => true,
            Some(Allowed::Only(allowed)) => allowed.contains(id),
            Some(Allowed::AllBut { excluded, .. }) => !excluded.contains(&id),
        }
    }

    /// The allowed ids, sorted, when restricted.
    pub fn ids(&self) -> Option<Vec<String>> {
        let mut ids: Vec<String> = match self.allowed.as_ref()? {
            Allowed::Only(allowed) => allowed.iter().map(|id| String::from(id.as_ref())).collect(),
            Allowed::AllBut { listed, admitted, .. } => listed.iter().chain(admitted).cloned().collect(),
        };
        ids.sort_unstable();
        Some(ids)
    }

    pub(super) fn admit(&mut self, id: &str) {
        match &mut self.allowed {
            None => {}
            Some(Allowed::Only(allowed)) => {
                allowed.insert(Cow::Owned(id.to_owned()));
            }
            Some(Allowed::AllBut { listed, excluded, admitted }) => {
                excluded.retain(|left_out| *left_out != id);
                // A listed block deleted and inserted again by the batch is listed already.
                if !listed.iter().any(|listed| listed == id) {
                    admitted.push(id.to_owned());
                }
            }
        }
    }
}

/// What happened to one block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangedBlock {
    /// The block.
    pub block_id: String,
    /// `replace`, `insert`, `update`, `delete` or `move`: the strongest thing that happened to it.
    pub op: String,
    /// Its text before, or null for an inserted block.
    pub before: Option<String>,
    /// Its text after, or null for a deleted block.
    pub after: Option<String>,
    /// `pageRev:{base}:block:{id}:{h8}` of the block the change was computed against; for an inserted
    /// block, the ref it will have at the new revision.
    pub revision_ref: String,
}

impl crate::limits::ChangedText for ChangedBlock {
    fn block_id(&self) -> &str {
        &self.block_id
    }

    fn text_len(&self) -> usize {
        self.before.as_ref().map_or(0, String::len).max(self.after.as_ref().map_or(0, String::len))
    }
}
