//! Golden wire fixtures of review sessions and tool events, under `tests/fixtures/wire/v1/`, shared with the
//! WASM and Worker tests.
//!
//! - `page_ai_review_session.*.json`: input `{page, profile, propose, steps}`. `propose` is a write call
//!   (`toolName, args, origin, actor, at, toolCallId`) with the ids of its session (`sessionId, runId,
//!   traceId`); each step is `{action: accept|reject|abort|retry|revert|edit, actor, at, request?,
//!   operations?}`, where `edit` is another person writing the page between two review steps. The output is
//!   `{answers, page, session}`: the answers of accepts and reverts in order, the page and the session at
//!   the end; or `error` (with `traceId` "trace_golden") when the last step is refused.
//! - `tool_event.*.json`: input `{page, profile, call, ids, event}` for a tool event of one executor call
//!   (`event` is `tool.started` or `tool.result`, which becomes `tool.completed` or `tool.failed`), or a
//!   review script as above with `event: review.updated` and `at`. The output is the event.
//!
//! Block ids are minted as `b_golden{n}`. Run with `UPDATE_GOLDEN=1` to rewrite them after a deliberate
//! change; a `v1` shape must never change in a way that breaks old readers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::path::{Path, PathBuf};

use pageai_core::events::{self, EventIds};
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Env, NoContexts, Origin, execute};
use pageai_core::json::from_value;
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::review::{
    self, AcceptRequest, ProposeRequest, RetryRequest, RevertRequest, ReviewAnswerV1, ReviewSessionV1, Stamp,
};
use pageai_core::wire::ErrorBody;
use serde_json::{Value, json};

const OWNED: [&str; 2] = ["page_ai_review_session.", "tool_event."];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wire/v1")
}

fn indent(s: &str) -> String {
    s.replace('\n', "\n  ")
}

/// A JSON object from already-rendered values, keeping their key order.
fn object(fields: &[(&str, String)]) -> String {
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("  \"{k}\": {}", indent(v))).collect();
    format!("{{\n{}\n}}", body.join(",\n"))
}

fn array(items: &[String]) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let body: Vec<String> = items.iter().map(|v| format!("  {}", indent(v))).collect();
    format!("[\n{}\n]", body.join(",\n"))
}

fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

fn error(e: &pageai_core::Error) -> (&'static str, String) {
    ("error", pretty(&ErrorBody::new(e, "trace_golden")))
}

/// Runs a review script: the session (or the refusal), the answers, the page.
struct Script {
    page: Page,
    session: ReviewSessionV1,
    answers: Vec<String>,
}

fn run_script(input: &Value) -> Result<Script, pageai_core::Error> {
    let mut page: Page = from_value(input["page"].clone()).unwrap();
    page.validate().unwrap();
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0;
    let mut mint = || {
        n += 1;
        format!("b_golden{n}")
    };
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: pageai_core::policy::Role::Owner,
        contexts: &NoContexts,
        idempotency: &mut store,
        mint: &mut mint,
    };
    let p = &input["propose"];
    let origin: Origin = from_value(p["origin"].clone()).unwrap();
    let call = Call {
        tool_name: p["toolName"].as_str().unwrap(),
        args: &p["args"],
        origin,
        actor: p["actor"].as_str().unwrap(),
        at: p["at"].as_str().unwrap(),
        tool_call_id: p["toolCallId"].as_str().unwrap(),
        new_context_id: "",
    };
    let typed = call.typed()?;
    let request = ProposeRequest {
        session_id: p["sessionId"].as_str().unwrap(),
        run_id: p["runId"].as_str().unwrap(),
        trace_id: p["traceId"].as_str().unwrap(),
        call: &typed,
    };
    let mut session = review::propose(&mut page, &request, &mut env)?;
    let mut answers = Vec::new();
    let steps = input["steps"].as_array().cloned().unwrap_or_default();
    for step in &steps {
        let stamp = Stamp { actor: step["actor"].as_str().unwrap(), at: step["at"].as_str().unwrap() };
        match step["action"].as_str().unwrap() {
            "accept" => {
                let request: AcceptRequest = from_value(step["request"].clone()).unwrap();
                let answer = review::accept(&mut session, &mut page, &request, &stamp, &mut env)?;
                answers.push(answer.json);
            }
            "revert" => {
                let request: RevertRequest = from_value(step["request"].clone()).unwrap();
                let answer = review::revert(&mut session, &mut page, &request, &stamp, &mut env)?;
                answers.push(answer.json);
            }
            "retry" => {
                let request: RetryRequest = from_value(step["request"].clone()).unwrap();
                review::retry(&mut session, &mut page, &request, &stamp, &mut env)?;
            }
            "reject" => review::reject(&mut session, &stamp)?,
            "abort" => review::abort(&mut session, &stamp)?,
            "edit" => {
                let args = json!({
                    "documentId": page.document_id, "baseRevision": page.revision, "dryRun": false,
                    "idempotencyKey": format!("idem_edit_{}", page.revision),
                    "operations": step["operations"],
                });
                let call = Call {
                    tool_name: "mnote.doc.apply_block_ops",
                    args: &args,
                    origin: Origin::User,
                    actor: stamp.actor,
                    at: stamp.at,
                    tool_call_id: "call_edit",
                    new_context_id: "",
                };
                execute(&mut page, &call, &mut env).unwrap();
            }
            other => panic!("unknown step {other}"),
        }
    }
    Ok(Script { page, session, answers })
}

fn run_session(input: &Value) -> (&'static str, String) {
    match run_script(input) {
        Ok(script) => {
            let answers: Vec<String> =
                script.answers.iter().map(|a| pretty(&serde_json::from_str::<ReviewAnswerV1>(a).unwrap())).collect();
            (
                "output",
                object(&[
                    ("answers", array(&answers)),
                    ("page", pretty(&script.page)),
                    ("session", pretty(&script.session)),
                ]),
            )
        }
        Err(e) => error(&e),
    }
}

fn run_event(input: &Value) -> (&'static str, String) {
    let kind = input["event"].as_str().unwrap();
    if kind == "review.updated" {
        let script = run_script(input).unwrap();
        let at = input["at"].as_str().unwrap();
        return ("output", pretty(&events::review_updated(&script.session, at)));
    }
    let mut page: Page = from_value(input["page"].clone()).unwrap();
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let c = &input["call"];
    let i = &input["ids"];
    let ids = EventIds {
        run_id: i["runId"].as_str().unwrap(),
        tool_call_id: c["toolCallId"].as_str().unwrap(),
        tool_name: c["toolName"].as_str().unwrap(),
        review_session_id: i["reviewSessionId"].as_str(),
        trace_id: i["traceId"].as_str().unwrap(),
        at: c["at"].as_str().unwrap(),
    };
    if kind == "tool.started" {
        return ("output", pretty(&events::tool_started(&ids)));
    }
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0;
    let mut mint = || {
        n += 1;
        format!("b_golden{n}")
    };
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: pageai_core::policy::Role::Owner,
        contexts: &NoContexts,
        idempotency: &mut store,
        mint: &mut mint,
    };
    let call = Call {
        tool_name: ids.tool_name,
        args: &c["args"],
        origin: from_value(c["origin"].clone()).unwrap(),
        actor: c["actor"].as_str().unwrap(),
        at: ids.at,
        tool_call_id: ids.tool_call_id,
        new_context_id: "ctx_golden",
    };
    let event = match execute(&mut page, &call, &mut env) {
        Ok(outcome) => events::tool_completed(&ids, &outcome),
        Err(e) => events::tool_failed(&ids, &e),
    };
    ("output", pretty(&event))
}

fn page() -> Value {
    json!({
        "workspaceId": "ws_golden", "documentId": "doc_golden", "title": "周报 Weekly", "revision": 4,
        "blocks": [
            {"blockId": "h_1", "type": "heading", "text": "周报 Weekly", "attrs": {"level": 1}},
            {"blockId": "p_1", "type": "paragraph", "text": "本周完成了第一版计划，下周开始第二阶段。"},
            {"blockId": "p_2", "type": "paragraph", "text": "Risks: the API is not final. The API may change."},
            {"blockId": "p_3", "type": "paragraph", "text": "Signed off by legal.", "editable": false}
        ]
    })
}

const AT0: &str = "2026-11-30T08:00:00Z";
const AT1: &str = "2026-11-30T08:01:00Z";
const AT2: &str = "2026-11-30T08:02:00Z";
const AT3: &str = "2026-11-30T08:03:00Z";

fn script(mode: &str, tool: &str, args: Value, origin: &str, steps: Value) -> Value {
    json!({
        "page": page(),
        "profile": {"reviewMode": mode},
        "propose": {
            "toolName": tool, "args": args, "origin": origin, "actor": origin, "at": AT0,
            "toolCallId": "call_golden", "sessionId": "rs_golden", "runId": "run_golden", "traceId": "trace_golden"
        },
        "steps": steps,
    })
}

fn ops(operations: Value) -> Value {
    json!({"documentId": "doc_golden", "baseRevision": 4, "operations": operations, "dryRun": true, "idempotencyKey": "idem_model"})
}

fn replace() -> Value {
    ops(json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]))
}

fn accept(key: &str, at: &str) -> Value {
    json!({"action": "accept", "actor": "user_golden", "at": at, "request": {"idempotencyKey": key}})
}

fn session_cases() -> Vec<(&'static str, Value)> {
    let edit_p1 = json!({"action": "edit", "actor": "user_other", "at": AT1,
        "operations": [{"op": "update", "blockId": "p_1", "text": "本周完成了第一版计划。"}]});
    let edit_p2 = json!({"action": "edit", "actor": "user_other", "at": AT1,
        "operations": [{"op": "update", "blockId": "p_2", "text": "No risks."}]});
    // An edit of the block the replace touches that keeps its match text: the accept is stale, and the
    // fresh preview still applies.
    let touch_p1 = json!({"action": "edit", "actor": "user_other", "at": AT1,
        "operations": [{"op": "update", "blockId": "p_1", "text": "本周完成了第一版计划，下周开始第三阶段。"}]});
    let review = |args: Value, steps: Value| script("review", "mnote.doc.apply_block_ops", args, "hermes", steps);
    vec![
        (
            "awaiting_user",
            script(
                "review",
                "mnote.doc.plan_update",
                json!({"documentId": "doc_golden", "baseRevision": 4, "idempotencyKey": "idem_model",
                       "allowedTargetBlockIds": ["p_1", "p_2"], "summary": "统一版本号",
                       "operations": [{"op": "replace", "matchText": "第一版", "content": "第二版"}]}),
                "hermes",
                json!([]),
            ),
        ),
        ("yolo_applied", script("yolo", "mnote.doc.apply_block_ops", replace(), "shortcut", json!([]))),
        ("accepted_and_replayed", review(replace(), json!([accept("idem_accept", AT1), accept("idem_accept", AT2)]))),
        (
            "partial_accept",
            review(
                ops(json!([
                    {"op": "replace", "matchText": "API", "content": "interface", "occurrence": "all"},
                    {"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"},
                    {"op": "insert_after", "afterBlockId": "p_2", "block": {"type": "todo", "text": "跟进 follow up", "attrs": {"checked": false, "depth": 0}}}
                ])),
                json!([{"action": "accept", "actor": "user_golden", "at": AT1,
                        "request": {"blockIds": ["p_2", "b_golden1"], "idempotencyKey": "idem_accept"}}]),
            ),
        ),
        ("stale", review(replace(), json!([touch_p1.clone(), accept("idem_accept", AT2)]))),
        ("rebased_accept", review(replace(), json!([edit_p2, accept("idem_accept", AT2)]))),
        (
            "stale_no_longer_applies",
            review(
                ops(
                    json!([{"op": "replace", "blockId": "p_1", "matchText": "下周开始第二阶段", "content": "下周发布"}]),
                ),
                json!([edit_p1, accept("idem_accept", AT2)]),
            ),
        ),
        (
            "retry_after_stale",
            review(
                replace(),
                json!([
                    touch_p1,
                    accept("idem_accept", AT2),
                    {"action": "retry", "actor": "hermes", "at": AT2, "request": {"toolCallId": "call_golden_2"}},
                    accept("idem_accept_2", AT3)
                ]),
            ),
        ),
        ("rejected", review(replace(), json!([{"action": "reject", "actor": "user_golden", "at": AT1}]))),
        ("aborted", review(replace(), json!([{"action": "abort", "actor": "user_golden", "at": AT1}]))),
        (
            "reverted",
            review(
                ops(json!([
                    {"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"},
                    {"op": "delete", "blockId": "p_2"}
                ])),
                json!([
                    accept("idem_accept", AT1),
                    {"action": "revert", "actor": "user_golden", "at": AT2, "request": {"idempotencyKey": "idem_revert"}}
                ]),
            ),
        ),
        (
            "revert_conflict",
            review(
                replace(),
                json!([
                    accept("idem_accept", AT1),
                    {"action": "edit", "actor": "user_other", "at": AT2,
                     "operations": [{"op": "update", "blockId": "p_1", "text": "改过了"}]},
                    {"action": "revert", "actor": "user_golden", "at": AT3, "request": {"idempotencyKey": "idem_revert"}}
                ]),
            ),
        ),
        (
            "invalid_transition",
            review(
                replace(),
                json!([{"action": "reject", "actor": "user_golden", "at": AT1}, accept("idem_accept", AT2)]),
            ),
        ),
        (
            "retry_reused_tool_call_id",
            review(
                replace(),
                json!([{"action": "retry", "actor": "hermes", "at": AT1, "request": {"toolCallId": "call_golden"}}]),
            ),
        ),
    ]
}

fn event_cases() -> Vec<(&'static str, Value)> {
    let call = |mode: &str, tool: &str, args: Value, origin: &str, run: &str| {
        json!({
            "page": page(),
            "profile": {"reviewMode": mode},
            "call": {"toolName": tool, "args": args, "origin": origin, "actor": origin, "at": AT0, "toolCallId": "call_golden"},
            "ids": {"runId": run, "traceId": "trace_golden"},
        })
    };
    let with = |mut v: Value, event: &str| {
        v["event"] = json!(event);
        v
    };
    let mut applied = ops(json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]));
    applied["dryRun"] = json!(false);
    let mut review_updated =
        script("review", "mnote.doc.apply_block_ops", replace(), "hermes", json!([accept("idem_accept", AT1)]));
    review_updated["event"] = json!("review.updated");
    review_updated["at"] = json!(AT1);
    vec![
        (
            "started",
            with(
                call("review", "doc_fetch", json!({"scope": {"type": "full"}}), "hermes", "run_golden"),
                "tool.started",
            ),
        ),
        (
            "completed_read",
            with(
                call("review", "mnote.doc.fetch", json!({"scope": {"type": "outline"}}), "hermes", "run_golden"),
                "tool.result",
            ),
        ),
        (
            "completed_shortcut_preview",
            with(call("review", "mnote.doc.apply_block_ops", replace(), "shortcut", "shortcut_golden"), "tool.result"),
        ),
        (
            "completed_applied",
            with(call("yolo", "mnote.doc.apply_block_ops", applied, "hermes", "run_golden"), "tool.result"),
        ),
        (
            "failed",
            with(
                call(
                    "review",
                    "mnote.doc.apply_block_ops",
                    ops(json!([{"op": "replace", "matchText": "API", "content": "interface"}])),
                    "hermes",
                    "run_golden",
                ),
                "tool.result",
            ),
        ),
        ("review_updated", review_updated),
    ]
}

type Runner = fn(&Value) -> (&'static str, String);

fn all_cases() -> Vec<(String, Value, Runner)> {
    let mut out: Vec<(String, Value, Runner)> = Vec::new();
    for (name, input) in session_cases() {
        out.push((format!("page_ai_review_session.{name}.json"), input, run_session));
    }
    for (name, input) in event_cases() {
        out.push((format!("tool_event.{name}.json"), input, run_event));
    }
    out
}

#[test]
fn fixtures_match() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (file, input, run) in all_cases() {
        let path = dir().join(&file);
        let (key, output) = run(&input);
        if update {
            std::fs::create_dir_all(dir()).unwrap();
            let rendered = object(&[("input", pretty(&input)), (key, output.clone())]) + "\n";
            std::fs::write(&path, rendered).unwrap();
        }
        let stored = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("missing fixture {}; run with UPDATE_GOLDEN=1", path.display()));
        let stored: Value = serde_json::from_str(&stored).unwrap();
        // The stored input must still produce the stored answer.
        let (stored_key, recomputed) = run(&stored["input"]);
        assert_eq!(stored_key, key, "{file}: success/error flipped");
        let recomputed: Value = serde_json::from_str(&recomputed).unwrap();
        assert_eq!(recomputed, stored[key], "{file}: output drifted from the golden fixture");
    }
}

#[test]
fn every_fixture_file_is_exercised() {
    let names: Vec<String> = all_cases().into_iter().map(|(n, _, _)| n).collect();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if OWNED.iter().any(|prefix| file.starts_with(prefix)) {
            assert!(names.contains(&file), "{file} is not produced by any case");
        }
    }
}

/// What the fixtures promise a reader, checked on the stored files rather than on fresh output.
#[test]
fn fixtures_show_the_contract() {
    let read =
        |name: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir().join(name)).unwrap()).unwrap() };
    let accepted = read("page_ai_review_session.accepted_and_replayed.json");
    let answers = accepted["output"]["answers"].as_array().unwrap();
    assert_eq!(answers[0], answers[1], "a repeated accept replays the same answer");
    assert_eq!(accepted["output"]["page"]["revision"], 5, "and writes once");

    let stale = read("page_ai_review_session.stale.json");
    assert_eq!(stale["output"]["session"]["state"], "stale");
    assert_eq!(stale["output"]["page"]["revision"], 5, "only the other writer wrote");
    assert_eq!(stale["output"]["answers"][0]["stale"]["preview"]["baseRevision"], 5);

    let rebased = read("page_ai_review_session.rebased_accept.json");
    assert_eq!(rebased["output"]["session"]["state"], "applied", "an edit elsewhere does not stale it");
    let result = &rebased["output"]["answers"][0]["result"];
    assert_eq!((result["baseRevision"].as_u64(), result["newRevision"].as_u64()), (Some(5), Some(6)));
    assert_eq!(result["warnings"][0]["code"], "rebased");
    assert_eq!(rebased["output"]["session"]["base"]["revision"], 4, "the session keeps its base");

    let yolo = read("page_ai_review_session.yolo_applied.json");
    let held = read("page_ai_review_session.awaiting_user.json");
    let keys = |v: &Value| -> Vec<String> { v["output"]["session"].as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&yolo), keys(&held), "yolo sessions have the same shape");
    assert_eq!(yolo["output"]["session"]["state"], "applied");

    let shortcut = read("tool_event.completed_shortcut_preview.json");
    let hermes = read("tool_event.completed_applied.json");
    let event_keys = |v: &Value| -> Vec<String> { v["output"].as_object().unwrap().keys().cloned().collect() };
    assert_eq!(event_keys(&shortcut), event_keys(&hermes), "shortcuts and Hermes runs emit one shape");
}
