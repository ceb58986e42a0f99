//! The shapes on both sides of the proxy: the client routes' requests and answers (seed 7-5, camelCase),
//! and the parts of Hermes 0.19's API the proxy reads and sends (snake_case, SPEC §10).
//!
//! Client request bodies refuse unknown fields, so a typo is a `hermes_client_bad_request` naming the
//! field, never a silently ignored option. Hermes' answers are read leniently: it adds fields between
//! releases, and the proxy only needs a few.
//!
//! Session ids are `mnote_{documentId}_{suffix}`, with a suffix of `[A-Za-z0-9-]` (no `_`). Document ids
//! may contain `_`, so the underscore-free suffix is what keeps `doc` and `doc_1` apart when sessions are
//! listed by prefix.

use pageai_core::Error;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Schema version of each entry of `GET /api/hermes/client/tools`.
pub const HERMES_TOOL_V1: &str = "mnote.hermes_tool.v1";

/// Longest session-id suffix accepted.
const MAX_SUFFIX_LEN: usize = 64;

/// Longest run id accepted (Hermes mints `run_` + 32 hex digits).
const MAX_RUN_ID_LEN: usize = 128;

/// Longest chat message accepted.
pub const MAX_MESSAGE_CHARS: usize = 32_000;

/// What every mnote session id starts with.
const SESSION_ID_PREFIX: &str = "mnote_";

/// Session ids of one document start with this.
pub fn session_prefix(document_id: &str) -> String {
    format!("{SESSION_ID_PREFIX}{document_id}_")
}

/// The session id `mnote_{documentId}_{suffix}` that [`session_document`] reads back. The caller mints
/// `suffix` from [`is_session_suffix`]'s alphabet.
pub fn session_id_of(document_id: &str, suffix: &str) -> String {
    format!("{}{suffix}", session_prefix(document_id))
}

/// Whether `suffix` is a valid session-id suffix.
pub fn is_session_suffix(suffix: &str) -> bool {
    (1..=MAX_SUFFIX_LEN).contains(&suffix.len()) && suffix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The document a session id belongs to, if the id has the mnote shape.
pub fn session_document(session_id: &str) -> Option<&str> {
    let rest = session_id.strip_prefix(SESSION_ID_PREFIX)?;
    let (document_id, suffix) = rest.rsplit_once('_')?;
    let plain = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    (is_session_suffix(suffix) && !document_id.is_empty() && document_id.len() <= 64 && plain(document_id))
        .then_some(document_id)
}

/// Checks a session id: the mnote shape, and, when `document_id` is given, that document's prefix.
pub fn check_session_id(pointer: &str, session_id: &str, document_id: Option<&str>) -> Result<(), Error> {
    let bad = |reason: String| Error::HermesBadRequest { pointer: pointer.to_string(), reason };
    let Some(owner) = session_document(session_id) else {
        return Err(bad("a session id is mnote_{documentId}_{suffix}, the suffix of A-Z, a-z, 0-9 and '-'".into()));
    };
    match document_id {
        Some(document_id) if owner != document_id => {
            Err(bad(format!("session {session_id:?} does not belong to document {document_id:?}")))
        }
        _ => Ok(()),
    }
}

/// Checks a run id from a path.
pub fn check_run_id(run_id: &str) -> Result<(), Error> {
    let valid = (1..=MAX_RUN_ID_LEN).contains(&run_id.len())
        && run_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    match valid {
        true => Ok(()),
        false => Err(Error::HermesBadRequest {
            pointer: "/runId".into(),
            reason: "a run id has 1 to 128 characters from A-Z, a-z, 0-9, '_' and '-'".into(),
        }),
    }
}

// ----- client requests -----------------------------------------------------------------------------

/// `POST /api/hermes/client/sessions`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateSessionBody {
    /// Accepted for the 7-5 shape; the document decides the workspace.
    pub workspace_id: Option<String>,
    /// The document the session is about.
    pub document_id: String,
    /// Accepted for the 7-5 shape; the `x-trace-id` header carries the trace.
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
    /// Accepted for the 7-5 shape; the `x-trace-id` header carries the trace.
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
    /// Accepted for the 7-5 shape.
    pub trace_id: Option<String>,
}

// ----- client answers -------------------------------------------------------------------------------

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
    /// `hermes`: the session was created in Hermes right away (0.19 has `POST /api/sessions`).
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
    /// The tools the profile enables.
    pub tools: Vec<ToolEntry>,
}

/// One tool.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    /// The dotted name.
    pub name: String,
    /// Its capability scope.
    pub scope: String,
    /// [`HERMES_TOOL_V1`].
    pub schema_version: &'static str,
}

// ----- Hermes ---------------------------------------------------------------------------------------

/// `GET /api/sessions` answer.
#[derive(Debug, Deserialize)]
pub struct HermesSessionList {
    /// One page of sessions.
    #[serde(default)]
    pub data: Vec<HermesSession>,
    /// More pages follow.
    #[serde(default)]
    pub has_more: bool,
}

/// `GET /api/sessions/{id}` answer.
#[derive(Debug, Deserialize)]
pub struct HermesSessionEnvelope {
    /// The session.
    pub session: HermesSession,
}

/// A Hermes session (the client-safe fields of `_session_response`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct HermesSession {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: Option<String>,
    /// Start of the first user message.
    pub preview: Option<String>,
    /// Stored messages.
    pub message_count: Option<u64>,
    /// Tool calls.
    pub tool_call_count: Option<u64>,
    /// Last message time, Unix seconds (fractional).
    pub last_active: Option<f64>,
    /// Creation time, Unix seconds (fractional).
    pub started_at: Option<f64>,
    /// The model.
    pub model: Option<String>,
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Completion tokens.
    pub output_tokens: Option<u64>,
}

/// `GET /api/sessions/{id}/messages` answer.
#[derive(Debug, Deserialize)]
pub struct HermesMessages {
    /// The messages, in order.
    #[serde(default)]
    pub data: Vec<HermesMessage>,
}

/// A stored message (`_message_response`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct HermesMessage {
    /// Row id (an integer in 0.19).
    pub id: Value,
    /// The role.
    pub role: String,
    /// Text, or null, or structured parts.
    pub content: Value,
    /// The tool call answered.
    pub tool_call_id: Option<String>,
    /// The tool.
    pub tool_name: Option<String>,
    /// Unix seconds.
    pub timestamp: Option<f64>,
    /// Reasoning text.
    pub reasoning: Option<String>,
}

impl HermesMessage {
    /// The content as text: a string as is, null as `None`, anything else as its JSON.
    pub fn text(&self) -> Option<String> {
        match &self.content {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    }

    /// The message as the client sees it.
    pub fn to_client(&self) -> SessionMessage {
        SessionMessage {
            message_id: match &self.id {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            },
            role: self.role.clone(),
            content: self.text(),
            tool_call_id: self.tool_call_id.clone(),
            tool_name: self.tool_name.clone(),
            timestamp: self.timestamp.map(seconds),
            reasoning: self.reasoning.clone(),
        }
    }
}

impl HermesSession {
    /// The session as a client list entry.
    pub fn to_summary(&self) -> SessionSummary {
        SessionSummary {
            session_id: self.id.clone(),
            title: self.title.clone(),
            preview: self.preview.clone(),
            message_count: self.message_count.unwrap_or(0),
            tool_call_count: self.tool_call_count.unwrap_or(0),
            updated_at: self.last_active.or(self.started_at).map(seconds),
            model: self.model.clone(),
        }
    }

    /// The session's token totals.
    pub fn usage(&self) -> Usage {
        let (input, output) = (self.input_tokens.unwrap_or(0), self.output_tokens.unwrap_or(0));
        Usage { input_tokens: input, output_tokens: output, total_tokens: input.saturating_add(output) }
    }
}

/// `conversation_history` from stored messages: the user and assistant turns that carry text.
///
/// Hermes 0.19 keeps only `role` and `content` of each history entry, so tool calls and tool results
/// cannot be replayed faithfully (a `tool` message without its call would be refused by the model API);
/// the text turns carry the conversation.
pub fn history(messages: &[HermesMessage]) -> Vec<HistoryMessage> {
    messages
        .iter()
        .filter(|m| m.role == "user" || m.role == "assistant")
        .filter_map(|m| {
            let content = m.text()?;
            (!content.trim().is_empty()).then(|| HistoryMessage { role: m.role.clone(), content })
        })
        .collect()
}

/// One entry of `conversation_history`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

/// `POST /v1/runs` body.
#[derive(Debug, Serialize)]
pub struct RunRequest<'a> {
    /// The user's message.
    pub input: &'a str,
    /// The injected context, manifest summary, hint and policy (an ephemeral system prompt in Hermes).
    pub instructions: &'a str,
    /// The session the run belongs to.
    pub session_id: &'a str,
    /// Earlier turns of the session (Hermes 0.19 does not load them itself).
    pub conversation_history: &'a [HistoryMessage],
    /// A model or route alias.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a str>,
}

/// `POST /v1/runs` answer.
#[derive(Debug, Deserialize)]
pub struct HermesRunStarted {
    /// The run.
    pub run_id: String,
}

/// `GET /v1/runs/{id}` answer: the pollable run status (Hermes keeps it a while after the run ends).
#[derive(Debug, Deserialize)]
pub struct HermesRunStatus {
    /// The session the run was started in.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// `POST /api/sessions` body.
#[derive(Debug, Serialize)]
pub struct CreateSessionRequest<'a> {
    /// The minted id.
    pub id: &'a str,
    /// The title, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
}

/// `GET /v1/models` answer.
#[derive(Debug, Deserialize)]
pub struct HermesModels {
    /// The models.
    #[serde(default)]
    pub data: Vec<HermesModel>,
}

/// One model.
#[derive(Debug, Deserialize)]
pub struct HermesModel {
    /// Its id.
    pub id: String,
}

impl HermesModel {
    /// The model as the client sees it.
    pub fn to_entry(&self) -> ModelEntry {
        let label = match self.id.as_str() {
            "hermes-agent" => "Hermes Agent".to_string(),
            other => other.to_string(),
        };
        ModelEntry { id: self.id.clone(), label, provider: "hermes" }
    }
}

/// Fractional Unix seconds to whole seconds.
fn seconds(value: f64) -> i64 {
    value.floor() as i64
}

#[cfg(test)]
#[allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "a failed expectation is the test's report"
)]
mod tests {
    use super::*;

    fn code(result: Result<(), Error>) -> &'static str {
        result.err().map_or("ok", |e| e.code().as_str())
    }

    #[test]
    fn session_ids_belong_to_one_document() {
        assert_eq!(session_document("mnote_doc_1_abc"), Some("doc_1"));
        assert_eq!(session_document("mnote_doc_abc-2"), Some("doc"));
        assert_eq!(session_document("mnote_doc_1_trace_1"), Some("doc_1_trace"));
        assert_eq!(session_id_of("doc_1", "A-9"), "mnote_doc_1_A-9");
        assert_eq!(session_document(&session_id_of("doc_1_x", "abc")), Some("doc_1_x"));
        for bad in ["", "mnote_", "mnote__x", "other_doc_x", "mnote_doc_", "mnote_d/x_y", "mnote_doc_a.b"] {
            assert_eq!(session_document(bad), None, "{bad:?}");
        }
        assert_eq!(code(check_session_id("/sessionId", "mnote_doc_1_abc", Some("doc_1"))), "ok");
        assert_eq!(code(check_session_id("/sessionId", "mnote_doc_1_abc", Some("doc"))), "hermes_client_bad_request");
        assert_eq!(code(check_session_id("/sessionId", "telegram_123", None)), "hermes_client_bad_request");
        // A prefix match alone is not enough: `doc` must not list `doc_1`'s sessions.
        let prefix = session_prefix("doc");
        let of_doc_1 = "mnote_doc_1_abc";
        assert!(of_doc_1.starts_with(&prefix) && session_document(of_doc_1) != Some("doc"));
    }

    #[test]
    fn run_ids_are_plain_tokens() {
        assert_eq!(code(check_run_id("run_0123abcd")), "ok");
        assert_eq!(code(check_run_id("run/../x")), "hermes_client_bad_request");
        assert_eq!(code(check_run_id(&"r".repeat(129))), "hermes_client_bad_request");
    }

    #[test]
    fn history_keeps_the_text_turns() {
        let messages: HermesMessages = serde_json::from_str(
            r#"{"object":"list","data":[
              {"id":1,"role":"user","content":"第一问","timestamp":1.5},
              {"id":2,"role":"assistant","content":null,"tool_calls":[{"id":"c1"}]},
              {"id":3,"role":"tool","content":"{\"ok\":true}","tool_call_id":"c1","tool_name":"mcp__mnote__doc_fetch"},
              {"id":4,"role":"assistant","content":"答：标题是 X"},
              {"id":5,"role":"system","content":"ignored"}]}"#,
        )
        .unwrap_or(HermesMessages { data: vec![] });
        let history = history(&messages.data);
        let roles: Vec<(&str, &str)> = history.iter().map(|m| (m.role.as_str(), m.content.as_str())).collect();
        assert_eq!(roles, [("user", "第一问"), ("assistant", "答：标题是 X")]);
        let client = messages.data[2].to_client();
        assert_eq!(client.message_id, "3");
        assert_eq!(client.tool_name.as_deref(), Some("mcp__mnote__doc_fetch"));
        assert_eq!(messages.data[0].to_client().timestamp, Some(1));
    }

    #[test]
    fn client_bodies_refuse_unknown_fields() {
        let body = pageai_core::wire::from_json::<StartRunBody>(
            r#"{"documentId":"d","sessionId":"mnote_d_x","message":"hi","colour":"red"}"#,
        );
        assert_eq!(body.err().map(|e| e.details()["pointer"].clone()), Some(Value::from("/colour")));
    }
}
