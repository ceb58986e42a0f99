//! The event-stream relay: Hermes' `GET /v1/runs/{id}/events` in, the browser's stream out, event by
//! event as the bytes arrive, never buffered whole.
//!
//! [`SseRelay`] is a pure line transformer, fed upstream chunks in any split:
//! - each `data: {json}` event gets `session_id` added and is re-sent as one `data:` line;
//! - comments (`: keepalive`) pass through unchanged, so proxies keep the connection open;
//! - after `run.completed`, `run.failed` or `run.cancelled` the relay is finished and the stream ends;
//! - when the upstream ends, breaks or falls silent first, [`SseRelay::dropped`] writes a final
//!   `run.failed` carrying `hermes_client_upstream_unavailable`, so a client always sees an end.
//!
//! A `data:` payload that is not a JSON object cannot carry a `session_id`; it is skipped and counted
//! ([`SseRelay::skipped`]) for the log. Other SSE fields (`event:`, `id:`) are not used by Hermes and
//! are dropped, so every event reaches `EventSource.onmessage`.

use pageai_core::error::ErrorCode;
use serde_json::{Map, Value, json};

/// Events after which Hermes sends nothing more for the run.
pub const TERMINAL_EVENTS: [&str; 3] = ["run.completed", "run.failed", "run.cancelled"];

/// The longest line or event accepted; past it the stream counts as broken (it protects memory).
pub const MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

/// Turns Hermes' event stream into the client's.
#[derive(Debug)]
pub struct SseRelay {
    run_id: String,
    session_id: String,
    trace_id: String,
    line: Vec<u8>,
    data: Option<String>,
    finished: bool,
    skipped: usize,
}

impl SseRelay {
    /// A relay for one run of one session.
    pub fn new(run_id: &str, session_id: &str, trace_id: &str) -> Self {
        SseRelay {
            run_id: run_id.to_string(),
            session_id: session_id.to_string(),
            trace_id: trace_id.to_string(),
            line: Vec::new(),
            data: None,
            finished: false,
            skipped: 0,
        }
    }

    /// Feeds upstream bytes; returns what to send downstream now (possibly nothing).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for &byte in chunk {
            if self.finished {
                break;
            }
            if byte != b'\n' {
                self.line.push(byte);
                if self.line.len() > MAX_EVENT_BYTES {
                    out.extend(self.dropped("an event line exceeded the size limit", false));
                }
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            self.line_done(&line, &mut out);
        }
        out
    }

    /// Whether a terminal event (or a synthesized failure) was sent: the stream should end.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// How many malformed events were skipped so far.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The final `run.failed` event for an upstream that ended, broke or fell silent before the run
    /// finished. Empty when the run already finished.
    pub fn dropped(&mut self, reason: &str, timed_out: bool) -> Vec<u8> {
        if self.finished {
            return Vec::new();
        }
        self.finished = true;
        self.line.clear();
        self.data = None;
        let event = json!({
            "event": "run.failed",
            "run_id": self.run_id,
            "session_id": self.session_id,
            "error": format!("the Hermes event stream ended before the run finished: {reason}"),
            "code": ErrorCode::HermesUpstreamUnavailable.as_str(),
            "timed_out": timed_out,
            "trace_id": self.trace_id,
        });
        frame(&event)
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<u8>) {
        if line.is_empty() {
            match self.data.take() {
                Some(data) => self.dispatch(&data, out),
                // A blank line after a comment: keep the upstream framing.
                None => out.push(b'\n'),
            }
            return;
        }
        if line.first() == Some(&b':') {
            out.extend_from_slice(line);
            out.push(b'\n');
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => (line.get(..colon).unwrap_or_default(), line.get(colon + 1..).unwrap_or_default()),
            None => (line, &[][..]),
        };
        if field != b"data" {
            return;
        }
        let value = value.strip_prefix(b" ").unwrap_or(value);
        let value = String::from_utf8_lossy(value);
        match &mut self.data {
            Some(data) => {
                data.push('\n');
                data.push_str(&value);
            }
            None => self.data = Some(value.into_owned()),
        }
    }

    fn dispatch(&mut self, data: &str, out: &mut Vec<u8>) {
        let Ok(Value::Object(mut event)) = serde_json::from_str::<Value>(data) else {
            self.skipped += 1;
            return;
        };
        event.insert("session_id".into(), Value::String(self.session_id.clone()));
        let terminal = event.get("event").and_then(Value::as_str).is_some_and(|e| TERMINAL_EVENTS.contains(&e));
        out.extend(frame_map(event));
        if terminal {
            self.finished = true;
        }
    }
}

fn frame(event: &Value) -> Vec<u8> {
    format!("data: {event}\n\n").into_bytes()
}

fn frame_map(event: Map<String, Value>) -> Vec<u8> {
    frame(&Value::Object(event))
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

    fn relay() -> SseRelay {
        SseRelay::new("run_1", "mnote_doc_1_s1", "tr_1")
    }

    fn text(bytes: Vec<u8>) -> String {
        String::from_utf8(bytes).unwrap_or_default()
    }

    fn events(out: &str) -> Vec<Value> {
        out.lines().filter_map(|l| l.strip_prefix("data: ")).filter_map(|d| serde_json::from_str(d).ok()).collect()
    }

    #[test]
    fn adds_the_session_id_and_keeps_the_fields() {
        let mut relay = relay();
        let out = text(
            relay.push(b"data: {\"event\":\"message.delta\",\"run_id\":\"run_1\",\"delta\":\"\xe5\xbd\x93\"}\n\n"),
        );
        assert_eq!(
            out,
            "data: {\"delta\":\"当\",\"event\":\"message.delta\",\"run_id\":\"run_1\",\"session_id\":\"mnote_doc_1_s1\"}\n\n"
        );
        assert!(!relay.is_finished());
    }

    #[test]
    fn any_split_of_the_bytes_gives_the_same_output() {
        let upstream = ": keepalive\n\ndata: {\"event\":\"message.delta\",\"delta\":\"当前页\"}\r\n\r\n\
                        data: {\"event\":\"run.completed\",\"output\":\"ok\"}\n\n: stream closed\n\n";
        let whole = text(relay().push(upstream.as_bytes()));
        for size in [1, 2, 3, 7, 64] {
            let mut relay = relay();
            let mut out = Vec::new();
            for chunk in upstream.as_bytes().chunks(size) {
                out.extend(relay.push(chunk));
            }
            assert_eq!(text(out), whole, "chunks of {size}");
            assert!(relay.is_finished());
        }
        assert!(whole.starts_with(": keepalive\n\n"), "{whole}");
        assert!(!whole.contains("stream closed"), "nothing after the terminal event: {whole}");
        let events = events(&whole);
        assert_eq!(events.len(), 2);
        assert!(events.iter().all(|e| e["session_id"] == "mnote_doc_1_s1"));
    }

    #[test]
    fn each_terminal_event_ends_the_stream() {
        for terminal in TERMINAL_EVENTS {
            let mut relay = relay();
            let input = format!("data: {{\"event\":\"{terminal}\"}}\n\ndata: {{\"event\":\"message.delta\"}}\n\n");
            let out = text(relay.push(input.as_bytes()));
            assert!(relay.is_finished(), "{terminal}");
            assert_eq!(events(&out).len(), 1, "{terminal}: {out}");
            assert!(relay.dropped("late", false).is_empty(), "no second end");
        }
    }

    #[test]
    fn a_drop_before_the_end_emits_a_coded_run_failed() {
        let mut relay = relay();
        relay.push(b"data: {\"event\":\"message.delta\",\"delta\":\"x\"}\n\ndata: {\"event\":\"mess");
        let out = text(relay.dropped("the connection broke", false));
        let failed = events(&out);
        assert_eq!(failed.len(), 1);
        assert_eq!(failed[0]["event"], "run.failed");
        assert_eq!(failed[0]["code"], "hermes_client_upstream_unavailable");
        assert_eq!(failed[0]["session_id"], "mnote_doc_1_s1");
        assert_eq!(failed[0]["run_id"], "run_1");
        assert_eq!(failed[0]["trace_id"], "tr_1");
        assert!(relay.is_finished());
        assert!(relay.push(b"data: {\"event\":\"run.completed\"}\n\n").is_empty(), "nothing after the end");
    }

    #[test]
    fn malformed_events_are_skipped_and_counted() {
        let mut relay = relay();
        let out = text(relay.push(b"data: {not json\n\ndata: [1,2]\n\ndata: {\"event\":\"tool.started\"}\n\n"));
        assert_eq!(events(&out).len(), 1);
        assert_eq!(relay.skipped(), 2);
    }

    #[test]
    fn multi_line_data_and_other_fields() {
        let mut relay = relay();
        let out = text(relay.push(b"event: x\nid: 7\ndata: {\"event\":\ndata: \"tool.started\"}\n\n"));
        let events = events(&out);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0]["event"], "tool.started");
        assert!(!out.contains("event: x") && !out.contains("id: 7"), "{out}");
    }

    #[test]
    fn an_endless_line_breaks_the_stream_instead_of_memory() {
        let mut relay = relay();
        let mut out = Vec::new();
        let chunk = vec![b'a'; 1024 * 1024];
        for _ in 0..5 {
            out.extend(relay.push(&chunk));
        }
        assert!(relay.is_finished());
        assert_eq!(events(&text(out))[0]["code"], "hermes_client_upstream_unavailable");
    }
}
