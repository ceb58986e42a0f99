//! The client routes' requests and answers (seed 7-5, camelCase). Request bodies refuse unknown fields.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Schema version of each entry of `GET /api/hermes/client/tools` (core's, with every other schema id).
pub use pageai_core::wire::HermesToolV1;

/// Longest chat message accepted.
pub const MAX_MESSAGE_CHARS: usize = 32_000;

/// `POST /api/hermes/client/sessions`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSessionBody {
    /// Accepted for the 7-5 shape; the document decides the workspace.
    pub workspace_id: Option<String>,
    /// The document the session is about.
    pub document_id: String,
    /// The trace, when no `x-trace-id` header names one (adopted by [`crate::correlation`]).
    pub trace_id: Option<String>,
    /// The session's title in Hermes.
    pub title: Option<String>,
}

/// `POST /api/hermes/client/runs`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartRunBody {
    /// Accepted for the 7-5 shape.
    pub workspace_id: Option<String>,
    /// The document the run reads and edits.
    pub document_id: String,
    /// The session (`mnote_{documentId}_…`).
    pub session_id: String,
    /// The user's message.
    pub message: String,
    /// A Hermes model (or route alias); Hermes' default when absent.
    pub model: Option<String>,
    /// The browser's view of the page. Not trusted: the Worker freezes the stored page instead.
    pub page_context: Option<Value>,
    /// The block the user selected; the run's scope is then that selection.
    pub selected_block_id: Option<String>,
    /// The text the user selected, passed to Hermes as a hint.
    pub selected_text: Option<String>,
    /// The trace, when no `x-trace-id` header names one (adopted by [`crate::correlation`]).
    pub trace_id: Option<String>,
}

/// `POST /api/hermes/client/runs/{runId}/abort`; every field is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AbortBody {
    /// Accepted for the 7-5 shape.
    pub workspace_id: Option<String>,
    /// Checked against the session id when both are given.
    pub document_id: Option<String>,
    /// Echoed in the answer.
    pub session_id: Option<String>,
    /// The trace, when no `x-trace-id` header names one (adopted by [`crate::correlation`]).
    pub trace_id: Option<String>,
}

/// `GET /api/hermes/client/sessions`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionList {
    /// Always `true`.
    pub ok: bool,
    /// The request's trace.
    pub trace_id: String,
    /// The document's sessions, most recently active first.
    pub sessions: Vec<SessionSummary>,
}

/// One session in a list.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// `mnote_{documentId}_…`.
    pub session_id: String,
    /// Hermes' title.
    pub title: Option<String>,
    /// The start of the first user message.
    pub preview: Option<String>,
    /// Messages stored by Hermes.
    pub message_count: u64,
    /// Tool calls made.
    pub tool_call_count: u64,
    /// Last activity, Unix seconds.
    pub updated_at: Option<i64>,
    /// The model used.
    pub model: Option<String>,
}

/// `POST /api/hermes/client/sessions`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedSession {
    /// Always `true`.
    pub ok: bool,
    /// The minted id.
    pub session_id: String,
    /// The request's trace.
    pub trace_id: String,
    /// `hermes_on_first_run`, the 7-5 value: Hermes keeps the session and its messages from its first run on,
    /// and mnote keeps none. (Hermes 0.19 has `POST /api/sessions`, so the session exists in Hermes at once.)
    pub persistence: &'static str,
}

/// `GET /api/hermes/client/sessions/{id}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionDetail {
    /// Always `true`.
    pub ok: bool,
    /// The session.
    pub session_id: String,
    /// The request's trace.
    pub trace_id: String,
    /// Hermes' messages, in order.
    pub messages: Vec<SessionMessage>,
    /// Token totals of the session.
    pub usage: Usage,
}

/// One message of a session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionMessage {
    /// Hermes' message id, as a string.
    pub message_id: String,
    /// `user`, `assistant`, `tool` or `system`.
    pub role: String,
    /// The text (null for a tool-call-only assistant turn).
    pub content: Option<String>,
    /// The tool call this message answers.
    pub tool_call_id: Option<String>,
    /// The tool that produced it.
    pub tool_name: Option<String>,
    /// Unix seconds.
    pub timestamp: Option<i64>,
    /// The model's reasoning, when Hermes kept it.
    pub reasoning: Option<String>,
}

/// Token totals.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// Their sum.
    pub total_tokens: u64,
}

/// `POST /api/hermes/client/runs`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    /// Always `true`.
    pub ok: bool,
    /// The session.
    pub session_id: String,
    /// Hermes' run id; stream it from `/api/hermes/client/events/{runId}`.
    pub run_id: String,
    /// Always null: Hermes assigns message ids when the run stores them.
    pub message_id: Option<String>,
    /// Always empty: events come over the stream.
    pub events: Vec<Value>,
    /// The request's trace.
    pub trace_id: String,
}

/// `POST /api/hermes/client/runs/{runId}/abort`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Aborted {
    /// Always `true`.
    pub ok: bool,
    /// The run.
    pub run_id: String,
    /// The session, as the request named it.
    pub session_id: Option<String>,
    /// The request's trace.
    pub trace_id: String,
    /// `[{event:"abort.started", run_id}]`; `run.cancelled` follows on the event stream.
    pub events: Vec<Value>,
}

/// `GET /api/hermes/client/models`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Models {
    /// Always `true`.
    pub ok: bool,
    /// The request's trace.
    pub trace_id: String,
    /// Hermes' first (primary) model.
    pub default_model: Option<String>,
    /// Every model and route alias Hermes lists.
    pub models: Vec<ModelEntry>,
}

/// One model.
#[derive(Debug, Serialize)]
pub struct ModelEntry {
    /// The id to pass as `model`.
    pub id: String,
    /// A display name.
    pub label: String,
    /// Always `hermes`: every model runs through Hermes.
    pub provider: &'static str,
}

/// `GET /api/hermes/client/tools`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tools {
    /// Always `true`.
    pub ok: bool,
    /// The request's trace.
    pub trace_id: String,
    /// The tools the profile enables (core's `wire::hermes_tools`).
    pub tools: Vec<HermesToolV1>,
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;

    #[test]
    fn client_bodies_refuse_unknown_fields() {
        let body = pageai_core::wire::from_json_serde::<StartRunBody>(
            r#"{"documentId":"d","sessionId":"mnote_d_x","message":"hi","colour":"red"}"#,
        );
        assert_eq!(body.err().map(|e| e.details()["pointer"].clone()), Some(Value::from("/colour")));
    }
}
