//! Tool events, `mnote.tool_event.v1`: what the UI and the Hermes event stream are told about each tool
//! call and review session.
//!
//! There are four events: `tool.started`, `tool.completed`, `tool.failed` and `review.updated`. A direct
//! shortcut and a Hermes run build them with the same functions, from the same inputs (the call's ids, the
//! executor's [`Outcome`] or [`Error`], or a [`ReviewSessionV1`]), so they have the same shape. Time comes
//! from the caller.

use alloc::string::String;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::executor::{Effect, Outcome};
use crate::json;
use crate::ops::Risk;
use crate::review::{ReviewSessionV1, State};
use crate::wire::ToolResultV1;

/// Schema id of [`ToolEventV1`].
pub const TOOL_EVENT_V1: &str = "mnote.tool_event.v1";

/// Which event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
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

impl EventSummaryV1 {
    /// The summary of a write's tool result.
    pub fn of_result(result: &ToolResultV1) -> Self {
        EventSummaryV1 {
            ok: Some(result.ok),
            dry_run: Some(result.dry_run),
            risk: Some(result.risk),
            changed_block_count: Some(result.changed_blocks.len()),
            blocked: Some(result.blocked),
            new_revision: result.new_revision,
            ..Self::default()
        }
    }
}

/// `mnote.tool_event.v1`: one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// The ids every event of one tool call carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventIds<'a> {
    /// The Hermes run, or the shortcut's id.
    pub run_id: &'a str,
    /// The tool call.
    pub tool_call_id: &'a str,
    /// The tool's name.
    pub tool_name: &'a str,
    /// The review session, if the call made or moved one.
    pub review_session_id: Option<&'a str>,
    /// The trace.
    pub trace_id: &'a str,
    /// When.
    pub at: &'a str,
}

fn event(kind: EventKind, ids: &EventIds<'_>, summary: EventSummaryV1) -> ToolEventV1 {
    ToolEventV1 {
        schema: TOOL_EVENT_V1.into(),
        event: kind,
        run_id: ids.run_id.into(),
        tool_call_id: ids.tool_call_id.into(),
        tool_name: ids.tool_name.into(),
        review_session_id: ids.review_session_id.map(String::from),
        trace_id: ids.trace_id.into(),
        at: ids.at.into(),
        summary,
    }
}

/// `tool.started`.
pub fn tool_started(ids: &EventIds<'_>) -> ToolEventV1 {
    event(EventKind::ToolStarted, ids, EventSummaryV1::default())
}

/// `tool.completed`, summarizing the executor's outcome.
pub fn tool_completed(ids: &EventIds<'_>, outcome: &Outcome) -> ToolEventV1 {
    let summary = match &outcome.effect {
        Effect::Previewed(result) | Effect::Applied(result) => EventSummaryV1::of_result(result),
        Effect::Replayed => match json::from_json::<ToolResultV1>(&outcome.json) {
            Ok(result) => EventSummaryV1 { replayed: Some(true), ..EventSummaryV1::of_result(&result) },
            Err(_) => EventSummaryV1 { ok: Some(true), replayed: Some(true), ..EventSummaryV1::default() },
        },
        Effect::Read { .. } => EventSummaryV1 { ok: Some(true), ..EventSummaryV1::default() },
    };
    event(EventKind::ToolCompleted, ids, summary)
}

/// `tool.failed`, with the error's code.
pub fn tool_failed(ids: &EventIds<'_>, error: &Error) -> ToolEventV1 {
    let summary =
        EventSummaryV1 { ok: Some(false), error_code: Some(error.code().as_str().into()), ..EventSummaryV1::default() };
    event(EventKind::ToolFailed, ids, summary)
}

/// `review.updated`: the session's state, with the write it made, or else its preview, summarized.
pub fn review_updated(session: &ReviewSessionV1, at: &str) -> ToolEventV1 {
    let result = session
        .reverted
        .as_ref()
        .map(|r| &r.result)
        .or(session.applied.as_ref().map(|a| &a.result))
        .or(session.preview.as_ref());
    let mut summary = result.map(EventSummaryV1::of_result).unwrap_or_default();
    summary.ok = Some(session.error.is_none());
    summary.error_code = session.error.as_ref().map(|e| e.code.clone());
    summary.review_state = Some(session.state);
    let ids = EventIds {
        run_id: &session.run_id,
        tool_call_id: &session.tool_call_id,
        tool_name: &session.source.tool_name,
        review_session_id: Some(&session.session_id),
        trace_id: &session.trace_id,
        at,
    };
    event(EventKind::ReviewUpdated, &ids, summary)
}
