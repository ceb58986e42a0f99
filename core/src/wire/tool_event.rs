//! `mnote.tool_event.v1`: one tool or review event.

use crate::json::Read;
use alloc::string::String;
use serde::{Deserialize, Serialize};

use crate::vocab::{Risk, State};

/// Schema id of [`ToolEventV1`].
pub const TOOL_EVENT_V1: &str = "mnote.tool_event.v1";

/// Which event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub enum EventKind {
    /// A tool call began.
    #[serde(rename = "tool.started")]
    ToolStarted,
    /// A tool call answered.
    #[serde(rename = "tool.completed")]
    ToolCompleted,
    /// A tool call failed with a coded error.
    #[serde(rename = "tool.failed")]
    ToolFailed,
    /// A review session changed state.
    #[serde(rename = "review.updated")]
    ReviewUpdated,
}

/// The short result of a call or session: enough for a status line, never the content.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventSummaryV1 {
    /// Whether the call succeeded; absent for `tool.started`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// For writes: whether nothing was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    /// For writes: how risky.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    /// For writes: how many blocks change (or changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_block_count: Option<usize>,
    /// For writes: whether the write waits for review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<bool>,
    /// For applied writes: the page's new revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_revision: Option<u64>,
    /// True when the answer was an idempotent replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayed: Option<bool>,
    /// For failures: the stable error code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// For `review.updated`: the session's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_state: Option<State>,
}

/// `mnote.tool_event.v1`: one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolEventV1 {
    /// Always [`TOOL_EVENT_V1`].
    pub schema: String,
    /// Which event.
    pub event: EventKind,
    /// The Hermes run, or the id the caller gave a direct shortcut.
    pub run_id: String,
    /// The tool call.
    pub tool_call_id: String,
    /// The tool's dotted name.
    pub tool_name: String,
    /// The review session the call belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_session_id: Option<String>,
    /// Correlates logs, events and error bodies.
    pub trace_id: String,
    /// When, by the caller's clock, RFC 3339.
    pub at: String,
    /// The short result.
    pub summary: EventSummaryV1,
}
