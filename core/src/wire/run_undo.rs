//! `mnote.run_undo.v1`: the answer of an undo of one Hermes run (`crate::review::undo_run`).

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{ErrorBody, ToolResultV1};

/// Schema id of [`RunUndoV1`].
pub const RUN_UNDO_V1: &str = "mnote.run_undo.v1";

/// What an undo of a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunUndoOutcome {
    /// The run's applied writes were undone as one write: `result` holds it.
    Undone,
    /// A later edit changed a block the run wrote: nothing was written. `changedBlockIds` names those
    /// blocks and `preview` shows what the undo would do to the page as it is now; send the undo again with
    /// `confirmRevision` set to this answer's `revision` to write it.
    NeedsConfirm,
}

/// `mnote.run_undo.v1`: the answer of `POST /api/documents/{id}/runs/{runId}/undo`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunUndoV1 {
    /// Always [`RUN_UNDO_V1`].
    pub schema: String,
    /// Always `true`; failures use the error body.
    pub ok: bool,
    /// The Hermes run.
    pub run_id: String,
    /// The page's document.
    pub document_id: String,
    /// `undone` or `needs_confirm`.
    pub outcome: RunUndoOutcome,
    /// The request's key. An `undone` answer is replayed byte for byte for the same key and body; a
    /// `needs_confirm` one is not kept (it changed nothing), so the confirm may reuse the key.
    pub idempotency_key: String,
    /// The run's review sessions the undo covers, the last applied first (the order they are undone in).
    pub session_ids: Vec<String>,
    /// Blocks the run wrote that a later edit (a person's, another run's) changed since. On
    /// `needs_confirm`, why it waits; on a confirmed `undone`, the blocks whose later edit it replaced.
    pub changed_block_ids: Vec<String>,
    /// The page's revision: after the undo (`undone`), or the one the preview was made at
    /// (`needs_confirm`), which `confirmRevision` must name.
    pub revision: u64,
    /// `needs_confirm`: a dry-run of the undo against the page as it is now; `null` when it no longer
    /// applies (then `previewError` says why).
    pub preview: Option<ToolResultV1>,
    /// `needs_confirm`: why the undo no longer applies (a block it anchors on is gone), else `null`.
    pub preview_error: Option<ErrorBody>,
    /// `undone`: the write (revision + 1), with its own `inverse`; else `null`.
    pub result: Option<ToolResultV1>,
}
