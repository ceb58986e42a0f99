//! Tests of the relay: the WHATWG line rules, the relay's own framing, secrets, and the ends of a run.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "a failed expectation is the test's report"
)]

use proptest::prelude::*;

use super::*;

const KEY: &str = "hk-0123456789abcdef0123";

fn relay() -> SseRelay {
    SseRelay::new("run_1", "mnote_doc_1_s1", "tr_1", vec![Secret::new(KEY)])
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_default()
}

fn events(out: &str) -> Vec<Value> {
    out.lines().filter_map(|l| l.strip_prefix("data: ")).filter_map(|d| serde_json::from_str(d).ok()).collect()
}

fn fed_in_chunks(upstream: &[u8], size: usize) -> (String, SseRelay) {
    let mut relay = relay();
    let mut out = Vec::new();
    for chunk in upstream.chunks(size.max(1)) {
        out.extend(relay.push(chunk));
    }
    (text(out), relay)
}

/// Every unit the relay wrote is one of its two shapes, and nothing else is there.
fn assert_self_framed(out: &str) {
    assert!(!out.contains('\r'), "a CR reached the client: {out:?}");
    let mut units: Vec<&str> = out.split("\n\n").collect();
    assert_eq!(units.pop(), Some(""), "the output ends with a blank line: {out:?}");
    for unit in units {
        let ok = unit == ": keepalive"
            || unit.strip_prefix("data: ").is_some_and(|json| {
                !json.contains('\n') && matches!(serde_json::from_str::<Value>(json), Ok(Value::Object(_)))
            });
        assert!(ok, "a unit the relay did not frame: {unit:?} in {out:?}");
    }
}

#[test]
fn adds_the_session_id_and_keeps_the_fields() {
    let mut relay = relay();
    let out =
        text(relay.push(b"data: {\"event\":\"message.delta\",\"run_id\":\"run_1\",\"delta\":\"\xe5\xbd\x93\"}\n\n"));
    assert_eq!(
        out,
        "data: {\"delta\":\"当\",\"event\":\"message.delta\",\"run_id\":\"run_1\",\"session_id\":\"mnote_doc_1_s1\"}\n\n"
    );
    assert!(!relay.is_finished());
}

#[test]
fn any_split_of_the_bytes_gives_the_same_output() {
    let upstream = ": keepalive\n\ndata: {\"event\":\"message.delta\",\"delta\":\"当前页\"}\r\n\r\n\
                    data: {\"event\":\"tool.started\",\"tool\":\"t\"}\r\r\
                    : keepalive\rdata: {\"event\":\"message.delta\",\"delta\":\"x\"}\r\n\n\
                    data: {\"event\":\"run.completed\",\"output\":\"ok\"}\n\n: stream closed\n\n";
    let (whole, _) = fed_in_chunks(upstream.as_bytes(), upstream.len());
    for size in [1, 2, 3, 7, 64] {
        let (out, relay) = fed_in_chunks(upstream.as_bytes(), size);
        assert_eq!(out, whole, "chunks of {size}");
        assert!(relay.is_finished());
    }
    assert_self_framed(&whole);
    assert!(whole.starts_with(": keepalive\n\n"), "{whole}");
    assert!(!whole.contains("stream closed"), "nothing after the terminal event: {whole}");
    let events = events(&whole);
    let names: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(names, ["message.delta", "tool.started", "message.delta", "run.completed"]);
    assert!(events.iter().all(|e| e["session_id"] == "mnote_doc_1_s1"));
}

#[test]
fn cr_lf_and_crlf_each_end_a_line() {
    for end in ["\n", "\r", "\r\n"] {
        let upstream = format!("data: {{\"event\":\"message.delta\",{end}data: \"delta\":\"a\"}}{end}{end}");
        let (out, _) = fed_in_chunks(upstream.as_bytes(), 1);
        assert_eq!(events(&out).len(), 1, "{end:?}: {out:?}");
        assert_eq!(events(&out)[0]["delta"], "a");
        assert_self_framed(&out);
    }
}

#[test]
fn the_issue_18_bytes_are_a_comment_then_a_line_and_forge_nothing() {
    // `: keepalive\rdata: {"event":"run.completed"}\r` is a comment line, then a data line: the relay
    // writes its own keepalive and holds the data line until a blank line completes the event.
    let mut relay = relay();
    let out = text(relay.push(b": keepalive\rdata: {\"event\":\"run.completed\"}\r"));
    assert_eq!(out, ": keepalive\n\n");
    assert!(!relay.is_finished());
    // A blank line makes it an event (as for a browser reading Hermes directly), framed by the relay.
    let out = text(relay.push(b"\n\r"));
    assert_eq!(out, "data: {\"event\":\"run.completed\",\"session_id\":\"mnote_doc_1_s1\"}\n\n");
    assert!(relay.is_finished());
}

#[test]
fn a_comment_is_never_forwarded_as_it_came() {
    let (out, _) = fed_in_chunks(b":\n: a\rb\r\n: data: {\"event\":\"run.completed\"}\n\n: \xff\n", 5);
    assert_eq!(out, ": keepalive\n\n".repeat(4), "{out:?}");
}

#[test]
fn line_breaks_in_json_whitespace_do_not_survive() {
    let upstream = b"data: {\"event\":\r\ndata:\"tool.started\",\rdata: \"preview\":\"a\\nb\\rc\"}\n\ndata: {}\n\n";
    let (out, _) = fed_in_chunks(upstream, 3);
    assert_self_framed(&out);
    let events = events(&out);
    assert_eq!(events[0]["preview"], "a\nb\rc", "escaped in the JSON text, intact in the value");
    assert_eq!(events.len(), 2);
}

#[test]
fn a_leading_byte_order_mark_is_ignored_once() {
    let (out, _) =
        fed_in_chunks("\u{feff}data: {\"event\":\"x\"}\n\n\u{feff}data: {\"event\":\"y\"}\n\n".as_bytes(), 1);
    let events = events(&out);
    assert_eq!(events.len(), 1, "a BOM on a later line makes it an unknown field: {out:?}");
    assert_eq!(events[0]["event"], "x");
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

#[test]
fn an_endless_event_of_short_lines_breaks_the_stream_too() {
    let mut relay = relay();
    let mut out = Vec::new();
    let chunk = b"data: xxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(32 * 1024);
    for _ in 0..5 {
        out.extend(relay.push(&chunk));
    }
    assert!(relay.is_finished());
    assert_eq!(events(&text(out))[0]["code"], "hermes_client_upstream_unavailable");
}

#[test]
fn the_key_is_scrubbed_from_every_event_and_field() {
    let upstream = format!(
        "data: {{\"event\":\"message.delta\",\"delta\":\"key {KEY}.\"}}\n\n\
         data: {{\"event\":\"tool.started\",\"tool\":\"t\",\"preview\":\"--token {KEY}\"}}\n\n\
         data: {{\"event\":\"reasoning.available\",\"text\":\"\\u0068{}\",\"deep\":{{\"{KEY}\":[\"{KEY}\"]}}}}\n\n\
         data: {{\"event\":\"run.failed\",\"error\":\"bad key {KEY}\"}}\n\n",
        &KEY[1..]
    );
    let (out, _) = fed_in_chunks(upstream.as_bytes(), 5);
    assert!(!out.contains(KEY), "{out}");
    let events = events(&out);
    assert_eq!(events[0]["delta"], "key [redacted].");
    assert_eq!(events[1]["preview"], "--token [redacted]");
    assert_eq!(events[2]["text"], "[redacted]", "a JSON escape does not hide it");
    assert_eq!(events[2]["deep"], serde_json::json!({ "[redacted]": ["[redacted]"] }));
    assert_eq!(events[3]["error"], "bad key [redacted]");
}

#[test]
fn a_key_split_over_deltas_and_a_tool_event_is_scrubbed_and_the_tail_released_at_the_end() {
    let upstream = format!(
        "data: {{\"event\":\"message.delta\",\"delta\":\"a {}\"}}\n\n\
         data: {{\"event\":\"tool.started\",\"tool\":\"t\"}}\n\n\
         data: {{\"event\":\"message.delta\",\"delta\":\"{} b h\"}}\n\n\
         data: {{\"event\":\"run.completed\",\"output\":\"done\"}}\n\n",
        &KEY[..5],
        &KEY[5..]
    );
    let (out, _) = fed_in_chunks(upstream.as_bytes(), 4);
    let events = events(&out);
    let shape: Vec<(&str, &str)> =
        events.iter().map(|e| (e["event"].as_str().unwrap(), e["delta"].as_str().unwrap_or(""))).collect();
    assert_eq!(
        shape,
        [
            ("message.delta", "a "),
            ("tool.started", ""),
            ("message.delta", "[redacted] b "),
            ("message.delta", "h"),
            ("run.completed", ""),
        ]
    );
    assert_eq!(events[3]["run_id"], "run_1");
    assert_eq!(events[3]["session_id"], "mnote_doc_1_s1");
}

#[test]
fn held_text_is_released_before_a_synthesized_failure() {
    let mut relay = relay();
    let out = text(relay.push(b"data: {\"event\":\"message.delta\",\"delta\":\"with\"}\n\n"));
    assert_eq!(events(&out)[0]["delta"], "wit");
    let out = text(relay.dropped("the connection broke", false));
    let names: Vec<Value> = events(&out).iter().map(|e| e["event"].clone()).collect();
    assert_eq!(names, ["message.delta", "run.failed"]);
    assert_eq!(events(&out)[0]["delta"], "h");
}

/// Pieces an upstream stream is made of, good and bad, to shuffle.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("data: ".to_string()),
        Just("data:".to_string()),
        Just(":".to_string()),
        Just(" keepalive".to_string()),
        Just("event: run.completed".to_string()),
        Just("\r".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("{\"event\":\"message.delta\",\"delta\":\"".to_string()),
        Just("{\"event\":\"run.completed\"}".to_string()),
        Just("\"}".to_string()),
        Just(KEY.to_string()),
        Just(KEY[..7].to_string()),
        Just(KEY[7..].to_string()),
        Just("\\u0068".to_string()),
        Just("\u{feff}".to_string()),
        "[a-z \\\\\"{}:,]{0,6}",
    ]
}

/// One delta's text: plain words and pieces of the key.
fn delta_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just(KEY[..3].to_string()),
            Just(KEY[3..12].to_string()),
            Just(KEY[12..].to_string()),
            "[a-k -]{0,5}"
        ],
        0..4,
    )
    .prop_map(|parts| parts.concat())
}

fn line_end() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("\n"), Just("\r"), Just("\r\n")]
}

proptest! {
    #[test]
    fn whatever_the_upstream_sends_the_client_gets_only_relay_framed_units(
        pieces in prop::collection::vec(piece(), 0..40),
        sizes in prop::collection::vec(1usize..12, 1..8),
    ) {
        let upstream = pieces.concat();
        let (whole, _) = fed_in_chunks(upstream.as_bytes(), upstream.len());
        assert_self_framed(&whole);
        prop_assert!(!whole.contains(KEY), "{whole:?}");
        // Any other split of the same bytes gives the same output.
        let mut relay = relay();
        let mut out = Vec::new();
        let mut rest = upstream.as_bytes();
        for size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (chunk, tail) = rest.split_at((*size).min(rest.len()));
            out.extend(relay.push(chunk));
            rest = tail;
        }
        prop_assert_eq!(text(out), whole);
    }

    #[test]
    fn the_text_joined_from_deltas_is_the_upstream_text_with_the_key_replaced(
        deltas in prop::collection::vec((delta_text(), any::<bool>(), line_end()), 1..12),
        size in 1usize..40,
    ) {
        let mut upstream = String::new();
        for (delta, tool_after, end) in &deltas {
            let event = serde_json::json!({ "event": "message.delta", "delta": delta });
            upstream.push_str(&format!("data: {event}{end}{end}"));
            if *tool_after {
                upstream.push_str(&format!(": keepalive{end}data: {{\"event\":\"tool.completed\"}}{end}{end}"));
            }
        }
        upstream.push_str("data: {\"event\":\"run.completed\"}\n\n");
        let (out, relay) = fed_in_chunks(upstream.as_bytes(), size);
        prop_assert!(relay.is_finished());
        let joined: String = events(&out)
            .iter()
            .filter(|e| e["event"] == DELTA_EVENT)
            .map(|e| e["delta"].as_str().unwrap_or_default().to_string())
            .collect();
        let expected = deltas.iter().map(|(d, _, _)| d.as_str()).collect::<String>().replace(KEY, MARK);
        prop_assert_eq!(joined, expected);
        prop_assert!(!out.contains(KEY));
    }
}
