//! Tool events, `mnote.tool_event.v1`: what the UI and the Hermes event stream are told about each tool
//! call and review session.
//!
//! There are four events: `tool.started`, `tool.completed`, `tool.failed` and `review.updated`. A direct
//! shortcut and a Hermes run build them with the same functions, from the same inputs (the call's ids, the
//! executor's [`Outcome`] or [`Error`], or a [`ReviewSessionV1`]), so they have the same shape. Time comes
//! from the caller.

use alloc::string::String;

use crate::error::Error;
use crate::executor::{Effect, Outcome};
use crate::json;
use crate::review::ReviewSessionV1;
use crate::wire::ToolResultV1;

pub use crate::wire::{EventKind, EventSummaryV1, TOOL_EVENT_V1, ToolEventV1};

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
