//! The event-stream relay: Hermes' `GET /v1/runs/{id}/events` in, the browser's stream out, event by
//! event as the bytes arrive, never buffered whole.
//!
//! [`SseRelay`] is a pure transformer, fed upstream chunks in any split ([`pipe`] runs it in the
//! Workers runtime). It reads the upstream the way
//! a browser's `EventSource` does (WHATWG HTML, "Parsing an event stream"): CR, LF and CRLF each end a
//! line, a leading byte-order mark is dropped, `data:` lines make up an event and a blank line
//! dispatches it. So the relay and the browser always agree on where an event starts and ends.
//!
//! Every byte the relay writes, it framed itself, in one of two shapes:
//! - `data: {json}\n\n` for each event: the upstream object, with `session_id` added and the Worker's
//!   secrets scrubbed from every string ([`redact`]), written by serde_json, which escapes every control
//!   character; no CR or LF inside a field can start a line, field or event downstream;
//! - `: keepalive\n\n` for each upstream comment, so proxies keep the connection open. The comment's own
//!   text is not forwarded: it means nothing to a client and could carry anything.
//!
//! Upstream line endings, blank lines and the fields Hermes does not use (`event:`, `id:`, `retry:`) are
//! not forwarded; without an `event:` type every event reaches `EventSource.onmessage`.
//!
//! After `run.completed`, `run.failed` or `run.cancelled` the relay is finished and the stream ends.
//! When the upstream ends, breaks or falls silent first, [`SseRelay::dropped`] writes a final
//! `run.failed` carrying `hermes_client_upstream_unavailable`, so a client always sees an end.
//!
//! A `data:` payload that is not a JSON object cannot carry a `session_id`; it is skipped and counted
//! ([`SseRelay::skipped`]) for the log.

pub mod pipe;
mod redact;

use pageai_core::error::ErrorCode;
use serde_json::{Map, Value};

pub use self::redact::{MARK, Redactor};
use crate::config::Secret;

/// Events after which Hermes sends nothing more for the run.
pub const TERMINAL_EVENTS: [&str; 3] = ["run.completed", "run.failed", "run.cancelled"];

/// The longest line or event accepted; past it the stream counts as broken (it protects memory).
pub const MAX_EVENT_BYTES: usize = 4 * 1024 * 1024;

/// What the relay writes for each upstream comment.
const KEEPALIVE: &[u8] = b": keepalive\n\n";

/// A byte-order mark, which the event-stream format allows (and ignores) at the very start.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// The one event whose text is a stream, and may carry a secret split over several events.
const DELTA_EVENT: &str = "message.delta";

/// Turns Hermes' event stream into the client's.
#[derive(Debug)]
pub struct SseRelay {
    run_id: String,
    session_id: String,
    trace_id: String,
    redactor: Redactor,
    /// The line read so far (its end not seen yet).
    line: Vec<u8>,
    /// The last line ended with CR: an LF next is the rest of that CRLF, not a blank line.
    after_cr: bool,
    /// No line has ended yet (a leading byte-order mark is still possible).
    first_line: bool,
    /// The `data:` lines of the event being read, each followed by LF.
    data: Option<Vec<u8>>,
    finished: bool,
    skipped: usize,
}

impl SseRelay {
    /// A relay for one run of one session, scrubbing `secrets` from every event it forwards.
    pub fn new(run_id: &str, session_id: &str, trace_id: &str, secrets: Vec<Secret>) -> Self {
        SseRelay {
            run_id: run_id.to_string(),
            session_id: session_id.to_string(),
            trace_id: trace_id.to_string(),
            redactor: Redactor::new(secrets),
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            data: None,
            finished: false,
            skipped: 0,
        }
    }

    /// Feeds upstream bytes; returns what to send downstream now (possibly nothing). Each event is in
    /// the answer of the chunk that completes it.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while !rest.is_empty() && !self.finished {
            if std::mem::take(&mut self.after_cr) && rest.first() == Some(&b'\n') {
                rest = rest.get(1..).unwrap_or_default();
                continue;
            }
            let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') else {
                self.line.extend_from_slice(rest);
                self.check_line_size(&mut out);
                break;
            };
            self.line.extend_from_slice(rest.get(..end).unwrap_or_default());
            self.after_cr = rest.get(end) == Some(&b'\r');
            rest = rest.get(end + 1..).unwrap_or_default();
            self.check_line_size(&mut out);
            if self.finished {
                break;
            }
            let mut line = std::mem::take(&mut self.line);
            self.line_done(&line, &mut out);
            // Keep the allocation for the next line.
            line.clear();
            self.line = line;
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
    /// finished (after any streamed text still held back). Empty when the run already finished.
    pub fn dropped(&mut self, reason: &str, timed_out: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        self.finished = true;
        self.line.clear();
        self.data = None;
        self.release_held(&mut out);
        let mut event = Map::new();
        event.insert("event".into(), "run.failed".into());
        event.insert("run_id".into(), self.run_id.clone().into());
        event.insert("error".into(), format!("the Hermes event stream ended before the run finished: {reason}").into());
        event.insert("code".into(), ErrorCode::HermesUpstreamUnavailable.as_str().into());
        event.insert("timed_out".into(), timed_out.into());
        event.insert("trace_id".into(), self.trace_id.clone().into());
        self.write(event, &mut out);
        out
    }

    fn check_line_size(&mut self, out: &mut Vec<u8>) {
        if self.line.len() > MAX_EVENT_BYTES {
            out.extend(self.dropped("an event line exceeded the size limit", false));
        }
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<u8>) {
        let line = match std::mem::take(&mut self.first_line) {
            true => line.strip_prefix(BOM).unwrap_or(line),
            false => line,
        };
        if line.is_empty() {
            if let Some(mut data) = self.data.take() {
                data.pop();
                self.dispatch(&data, out);
            }
            return;
        }
        if line.first() == Some(&b':') {
            out.extend_from_slice(KEEPALIVE);
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
        // As the standard builds its data buffer: each line's value and an LF (the last one is dropped
        // when the event is dispatched).
        let data = self.data.get_or_insert_with(|| Vec::with_capacity(value.len() + 1));
        data.extend_from_slice(value);
        data.push(b'\n');
        if data.len() > MAX_EVENT_BYTES {
            out.extend(self.dropped("an event exceeded the size limit", false));
        }
    }

    fn dispatch(&mut self, data: &[u8], out: &mut Vec<u8>) {
        let parsed = match std::str::from_utf8(data) {
            Ok(text) => serde_json::from_str::<Value>(text),
            // The browser would decode it with replacement characters; so does the relay.
            Err(_) => serde_json::from_str::<Value>(&String::from_utf8_lossy(data)),
        };
        let Ok(Value::Object(mut event)) = parsed else {
            self.skipped += 1;
            return;
        };
        self.redactor.scrub_map(&mut event);
        let name = event.get("event").and_then(Value::as_str);
        let terminal = name.is_some_and(|e| TERMINAL_EVENTS.contains(&e));
        let is_delta = name == Some(DELTA_EVENT);
        match event.get_mut("delta") {
            Some(Value::String(delta)) if is_delta => *delta = self.redactor.stream(delta),
            _ if terminal => self.release_held(out),
            // Held text waits for the next delta even across a tool event, so the text a client
            // joins together cannot hold a secret either.
            _ => {}
        }
        self.write(event, out);
        if terminal {
            self.finished = true;
        }
    }

    /// Streamed text held back as the possible start of a secret, sent at the end (before the terminal
    /// event or the synthesized failure) as one more `message.delta`.
    fn release_held(&mut self, out: &mut Vec<u8>) {
        if let Some(text) = self.redactor.release() {
            let mut event = Map::new();
            event.insert("event".into(), DELTA_EVENT.into());
            event.insert("run_id".into(), self.run_id.clone().into());
            event.insert("delta".into(), text.into());
            self.write(event, out);
        }
    }

    /// Writes one event, with the session id, as `data: {json}\n\n`.
    fn write(&self, mut event: Map<String, Value>, out: &mut Vec<u8>) {
        event.insert("session_id".into(), self.session_id.clone().into());
        let start = out.len();
        out.extend_from_slice(b"data: ");
        match serde_json::to_writer(&mut *out, &event) {
            Ok(()) => out.extend_from_slice(b"\n\n"),
            // A map of JSON values always serialises; if it ever did not, write nothing rather than half.
            Err(_) => out.truncate(start),
        }
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
