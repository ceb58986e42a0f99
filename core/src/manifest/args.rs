//! The argument types of every tool. Validation deserializes into these types and the manifest's
//! `inputSchema` is derived from them (`schemars`, in a test that checks the files under `schemas/`), so the
//! schema a model sees and the validator that judges its call cannot drift apart.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::context::{Budget, Format, Scope};
use crate::ops::{NewBlock, Operation};
use crate::page::{Attrs, Block, BlockType, Page};

/// `mnote.doc.fetch`: freeze the page into a context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DocFetchArgs {
    /// The frozen context of your run (its `contextId`): the read acts for the person it was made for.
    /// Optional; pass it whenever you have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The document; defaults to the one the call is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_id: Option<String>,
    /// Which blocks: `{type:"full"}`, `{type:"outline"}`, `{type:"block",blockId}`,
    /// `{type:"selection",blockIds}` or `{type:"keyword",query}`.
    pub scope: Scope,
    /// Views to render; all three when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formats: Option<Vec<Format>>,
    /// Character budget of one chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// Token from a truncated answer, for the next chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<String>,
}

/// `mnote.block.fetch`: blocks by id, with one neighbour on each side.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockFetchArgs {
    /// The frozen context of your run (its `contextId`): the read acts for the person it was made for.
    /// Optional; pass it whenever you have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The document; defaults to the one the call is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_id: Option<String>,
    /// The blocks to fetch.
    pub block_ids: Vec<String>,
    /// Views to render; all three when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formats: Option<Vec<Format>>,
}

/// `mnote.doc.search`: where a text occurs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DocSearchArgs {
    /// The frozen context of your run (its `contextId`): the read acts for the person it was made for.
    /// Optional; pass it whenever you have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The document; defaults to the one the call is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_id: Option<String>,
    /// Text to find; case- and width-insensitive.
    pub query: String,
    /// At most this many hits (1..=200, default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// `mnote.doc.apply_block_ops`: a batch of operations, dry-run or applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyBlockOpsArgs {
    /// The frozen context this write is based on; its allowed blocks bound the write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The document.
    pub document_id: String,
    /// The revision the operations were computed against. The write conflicts only when a block it
    /// touches (a target, or the anchor of an insert or move) changed after it.
    pub base_revision: u64,
    /// The batch: all succeed or none is applied.
    pub operations: Vec<Operation>,
    /// `true` previews without writing. Required: there is no default.
    pub dry_run: bool,
    /// Same key and arguments replay the first answer; same key, other arguments is an error.
    pub idempotency_key: String,
    /// Narrows the allowed blocks further; can never widen the context's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_target_block_ids: Option<Vec<String>>,
    /// Optional: the `revisionRef`s of blocks as you read them (a context's `blocks`, a conflict's
    /// `details.blocks`); the write conflicts only if one of them changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_refs: Option<Vec<String>>,
    /// `true` refuses the write unless the page is still at `baseRevision` (page-level check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_exact_revision: Option<bool>,
}

impl ApplyBlockOpsArgs {
    /// A dry-run of `operations` against `page` as it is now: its document and revision, a fresh `key`, no
    /// context and no narrowing. Callers set the other fields with struct update syntax.
    pub fn dry_run(page: &Page, operations: Vec<Operation>, key: impl Into<String>) -> Self {
        ApplyBlockOpsArgs {
            context_id: None,
            document_id: page.document_id.clone(),
            base_revision: page.revision,
            operations,
            dry_run: true,
            idempotency_key: key.into(),
            allowed_target_block_ids: None,
            revision_refs: None,
            require_exact_revision: None,
        }
    }
}

/// `mnote.doc.plan_update`: a proposal that always stays a dry-run and becomes a review draft.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanUpdateArgs {
    /// The frozen context this proposal is based on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The document.
    pub document_id: String,
    /// The revision the operations were computed against; the proposal conflicts only when a block it
    /// touches changed after it.
    pub base_revision: u64,
    /// The proposed batch.
    pub operations: Vec<Operation>,
    /// Names this proposal.
    pub idempotency_key: String,
    /// Narrows the allowed blocks further.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_target_block_ids: Option<Vec<String>>,
    /// One sentence for the reviewer: what the change does and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Optional: the `revisionRef`s of blocks as you read them (a context's `blocks`, a conflict's
    /// `details.blocks`); the write conflicts only if one of them changed since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_refs: Option<Vec<String>>,
    /// `true` refuses the write unless the page is still at `baseRevision` (page-level check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_exact_revision: Option<bool>,
}

macro_rules! block_write_args {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* pub $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
        #[cfg_attr(test, derive(schemars::JsonSchema))]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        pub struct $name {
            /// The frozen context this write is based on.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub context_id: Option<String>,
            /// The document.
            pub document_id: String,
            /// The revision the change was computed against; the write conflicts only when a block it
            /// touches changed after it.
            pub base_revision: u64,
            /// `true` previews without writing. Required.
            pub dry_run: bool,
            /// Same key and arguments replay the first answer.
            pub idempotency_key: String,
            /// Narrows the allowed blocks further.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub allowed_target_block_ids: Option<Vec<String>>,
            /// Optional: the `revisionRef`s of blocks as you read them (a context's `blocks`, a conflict's
            /// `details.blocks`); the write conflicts only if one of them changed since.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub revision_refs: Option<Vec<String>>,
            /// `true` refuses the write unless the page is still at `baseRevision` (page-level check).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub require_exact_revision: Option<bool>,
            $($(#[$fdoc])* pub $field: $ty,)*
        }
    };
}

block_write_args! {
    /// `mnote.block.insert`: one new block after or before an anchor.
    BlockInsertArgs {
        /// Insert after this block (give this or `beforeBlockId`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub after_block_id: Option<String>,
        /// Insert before this block.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub before_block_id: Option<String>,
        /// The new block.
        pub block: NewBlock,
    }
}

block_write_args! {
    /// `mnote.block.update`: change one block's text, type or attrs.
    BlockUpdateArgs {
        /// The block.
        pub block_id: String,
        /// New text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub text: Option<String>,
        /// New type.
        #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
        pub kind: Option<BlockType>,
        /// New attrs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub attrs: Option<Attrs>,
    }
}

block_write_args! {
    /// `mnote.block.delete`: remove one block.
    BlockDeleteArgs {
        /// The block.
        pub block_id: String,
    }
}

block_write_args! {
    /// `mnote.block.move`: move one block after another, or to the top.
    BlockMoveArgs {
        /// The block.
        pub block_id: String,
        /// The anchor, or null for the top of the page.
        pub after_block_id: Option<String>,
    }
}

/// `mnote.page.save`: replace the whole page. A coarse fallback, never the precise path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PageSaveArgs {
    /// The frozen context this write is based on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The document.
    pub document_id: String,
    /// The revision the new page was computed against.
    pub base_revision: u64,
    /// The complete new list of blocks. Locked blocks must appear unchanged.
    pub blocks: Vec<Block>,
    /// `true` previews without writing. Required.
    pub dry_run: bool,
    /// Same key and arguments replay the first answer.
    pub idempotency_key: String,
}
