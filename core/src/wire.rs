//! Versioned wire DTOs: the JSON shapes other programs rely on.
//!
//! Each shape carries a `schema` id such as `mnote.page_ai_context.v1`. A shape never changes in place: a
//! breaking change adds a `…v2` type beside the old one. Golden fixtures under `tests/fixtures/wire/v1/`
//! pin every shape, and the Rust, WASM and Worker tests all read them.
//!
//! Decoding lives in [`crate::json`]; its functions are re-exported here for the adapters that call them
//! by this path.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::ops::diff::BlockDiff;
use crate::ops::{ChangedBlock, Operation, Risk};
use crate::page::BlockType;

pub use crate::json::{from_json, from_value, from_value_ref, serde_error};

/// Schema id of [`PageAiContextV1`].
pub const PAGE_AI_CONTEXT_V1: &str = "mnote.page_ai_context.v1";
/// Schema id of [`ToolResultV1`].
pub const TOOL_RESULT_V1: &str = "mnote.tool_result.v1";
/// Schema id of [`SearchResultV1`].
pub const DOC_SEARCH_V1: &str = "mnote.doc_search.v1";

/// The error body every surface returns: `{ok:false, code, message, hint, details, traceId}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorBody {
    /// Always `false`.
    pub ok: bool,
    /// The stable code.
    pub code: String,
    /// A sentence for people.
    pub message: String,
    /// What to do next.
    pub hint: String,
    /// Machine-readable specifics.
    pub details: Value,
    /// Correlates this answer with logs and upstream calls.
    pub trace_id: String,
}

impl ErrorBody {
    /// The body for `error`, tagged with `trace_id`.
    pub fn new(error: &Error, trace_id: impl Into<String>) -> Self {
        ErrorBody {
            ok: false,
            code: error.code().as_str().to_string(),
            message: error.message(),
            hint: error.hint(),
            details: error.details(),
            trace_id: trace_id.into(),
        }
    }
}

/// One block as a model sees it in a frozen context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// A warning that does not stop the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WarningV1 {
    /// Stable snake_case code, e.g. `context_truncated`.
    pub code: String,
    /// A sentence for people.
    pub message: String,
}

/// `mnote.page_ai_context.v1`: a page frozen into an addressable context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// Rejects a payload whose `schema` is not `expected`.
pub fn check_schema(found: &str, expected: &str) -> Result<(), Error> {
    if found == expected {
        return Ok(());
    }
    Err(Error::UnsupportedSchema { found: found.to_string(), expected: expected.to_string() })
}

/// Who made a write, and when: stamped by the caller, who owns the clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditV1 {
    /// The tool call this answers.
    pub tool_call_id: String,
    /// The request's idempotency key.
    pub idempotency_key: String,
    /// Who asked: a user id, `hermes`, or `shortcut`.
    pub actor: String,
    /// When, as the caller's RFC 3339 timestamp.
    pub at: String,
}

/// `mnote.tool_result.v1`: the answer of every write tool, dry-run or applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolResultV1 {
    /// Always [`TOOL_RESULT_V1`].
    pub schema: String,
    /// Always `true`; failures use the error body.
    pub ok: bool,
    /// `true` when nothing was written.
    pub dry_run: bool,
    /// The tool that ran.
    pub tool_name: String,
    /// The document.
    pub document_id: String,
    /// The revision the batch was computed against.
    pub base_revision: u64,
    /// The revision after the write; absent for a dry-run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_revision: Option<u64>,
    /// What changed, block by block.
    pub changed_blocks: Vec<ChangedBlock>,
    /// Per-block unified and inline diffs.
    pub diff: Vec<BlockDiff>,
    /// Things the caller should know.
    pub warnings: Vec<WarningV1>,
    /// `low`, `medium` or `high`.
    pub risk: Risk,
    /// `true` when the batch is valid but may not be applied directly by this caller (it needs review).
    pub blocked: bool,
    /// Why it is blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_reason: Option<String>,
    /// The batch as validated, with minted block ids filled in: applying exactly these reproduces this result.
    pub operations: Vec<Operation>,
    /// For an applied batch: the operations that undo it, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inverse: Option<Vec<Operation>>,
    /// Who and when.
    pub audit: AuditV1,
}

/// One place a searched text occurs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchHitV1 {
    /// The block.
    pub block_id: String,
    /// Char offset of the hit in the block's text.
    pub offset: usize,
    /// Length of the hit in chars.
    pub length: usize,
    /// The hit with some text around it.
    pub snippet: String,
    /// Whether the block may be written.
    pub editable: bool,
}

/// `mnote.doc_search.v1`: the answer of `mnote.doc.search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchResultV1 {
    /// Always [`DOC_SEARCH_V1`].
    pub schema: String,
    /// The document.
    pub document_id: String,
    /// The revision searched.
    pub revision: u64,
    /// The query as sent.
    pub query: String,
    /// Hits in page order.
    pub hits: Vec<SearchHitV1>,
    /// Hits beyond the limit were left out.
    pub truncated: bool,
}
