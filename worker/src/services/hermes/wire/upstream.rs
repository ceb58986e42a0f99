//! The parts of Hermes 0.19's API the proxy reads and sends (snake_case, SPEC §10), read leniently, and
//! their conversion to the client's shapes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{ModelEntry, SessionMessage, SessionSummary, Usage};

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
#[allow(clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;

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
}
