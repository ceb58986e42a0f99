//! `mnote.tool_result.v1`: the answer of every write tool.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::WarningV1;
use crate::ops::diff::BlockDiff;
use crate::ops::{ChangedBlock, Operation};
use crate::vocab::Risk;

/// Schema id of [`ToolResultV1`].
pub const TOOL_RESULT_V1: &str = "mnote.tool_result.v1";

/// Who made a write, and when: stamped by the caller, who owns the clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
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

/// An applied [`ToolResultV1`] as a client that follows its writes reads it (the browser package's
/// `PageSession.applyLocal`): what following needs, with the diffs, warnings and audit skipped unread, so
/// the browser carries no decoder for them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Read)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultFollowV1 {
    /// Always [`TOOL_RESULT_V1`].
    pub schema: String,
    /// `true` when nothing was written.
    pub dry_run: bool,
    /// The document.
    pub document_id: String,
    /// The revision the batch was computed against.
    pub base_revision: u64,
    /// The revision after the write; absent for a dry-run.
    #[serde(default)]
    pub new_revision: Option<u64>,
    /// What changed, block by block.
    pub changed_blocks: Vec<ChangedBlock>,
    /// The batch as validated, with minted block ids filled in.
    pub operations: Vec<Operation>,
}
