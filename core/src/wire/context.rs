//! `mnote.page_ai_context.v1`: a page frozen into an addressable context.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::WarningV1;
use crate::page::BlockType;

/// Schema id of [`PageAiContextV1`].
pub const PAGE_AI_CONTEXT_V1: &str = "mnote.page_ai_context.v1";

/// One block as a model sees it in a frozen context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextBlockV1 {
    /// The block's id, valid as a write target when listed in `allowedTargetBlockIds`.
    pub block_id: String,
    /// The block's type.
    #[serde(rename = "type")]
    pub kind: BlockType,
    /// The block's text, or a piece of it when `partial`.
    pub text: String,
    /// `pageRev:{revision}:block:{blockId}:{h8}`.
    pub revision_ref: String,
    /// Whether writes may touch the block.
    pub editable: bool,
    /// Heading level, for headings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// For `outline`: how many blocks follow this heading before the next heading of the same or higher rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_count: Option<usize>,
    /// A neighbour shown for context only; never a write target.
    #[serde(default, skip_serializing_if = "is_false")]
    pub context_only: bool,
    /// Only part of the block's text: a single block larger than the budget was cut.
    #[serde(default, skip_serializing_if = "is_false")]
    pub partial: bool,
    /// For a partial piece, the char offset of `text` within the block's full text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// `mnote.page_ai_context.v1`: a page frozen into an addressable context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PageAiContextV1 {
    /// Always [`PAGE_AI_CONTEXT_V1`].
    pub schema: String,
    /// The page's workspace.
    pub workspace_id: String,
    /// The page's document.
    pub document_id: String,
    /// The page's title.
    pub title: String,
    /// `full`, `outline`, `block`, `selection` or `keyword`.
    pub scope: String,
    /// The revision this context was frozen at.
    pub revision: u64,
    /// `body:{revision}:{hash}` of the page at that revision.
    pub conflict_detection_key: String,
    /// Names this frozen snapshot; minted by the caller.
    pub context_id: String,
    /// The only blocks a write based on this context may target.
    pub allowed_target_block_ids: Vec<String>,
    /// The blocks the user selected (for `block` and `selection`).
    pub selected_block_ids: Vec<String>,
    /// The `text` view, when requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_text: Option<String>,
    /// The `page_xml` view, when requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_xml: Option<String>,
    /// The `json` view, when requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<ContextBlockV1>>,
    /// True when the budget cut the context; fetch `continuation` for the rest.
    pub truncated: bool,
    /// Things the reader should know, e.g. that the context was cut.
    pub warnings: Vec<WarningV1>,
    /// Opaque token for the next chunk, when `truncated`.
    pub continuation: Option<String>,
}

/// A [`PageAiContextV1`] as a session that remembers it reads it (the browser package's
/// `PageSession.rememberContext`): what a write bound to it is checked against, with the views, warnings and
/// the rest of each block skipped unread.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Read)]
#[serde(rename_all = "camelCase")]
pub struct ContextHeldV1 {
    /// [`PAGE_AI_CONTEXT_V1`], or `mnote.page_ai_context.v2` (the server's fetches), whose fields read here
    /// are the same.
    pub schema: String,
    /// The document.
    pub document_id: String,
    /// The scope's name.
    pub scope: String,
    /// The page revision the context was frozen at.
    pub revision: u64,
    /// The snapshot's id.
    pub context_id: String,
    /// The only blocks a write bound to the context may target.
    pub allowed_target_block_ids: Vec<String>,
    /// The `json` view's blocks, when the context has it.
    #[serde(default)]
    pub blocks: Option<Vec<HeldBlockV1>>,
}

/// What [`ContextHeldV1`] keeps of a block: its id and `revisionRef`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Read)]
#[serde(rename_all = "camelCase")]
pub struct HeldBlockV1 {
    /// The block.
    pub block_id: String,
    /// `pageRev:{revision}:block:{id}:{h8}`.
    pub revision_ref: String,
}
