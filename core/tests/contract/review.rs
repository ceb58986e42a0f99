//! Review sessions and tool events: `page_ai_review_session.*.json` and `tool_event.*.json` under
//! `tests/fixtures/wire/v1/`.
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
//! Block ids are minted as `b_golden{n}`.

use pageai_core::events::{self, EventIds};
use pageai_core::executor::{Call, Origin, execute};
use pageai_core::json::from_value;
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::review::{
    self, AcceptRequest, ProposeRequest, RetryRequest, RevertRequest, ReviewAnswerV1, ReviewSessionV1, Stamp,
};
use serde_json::{Value, json};

use crate::support::{self, Case, Layout, array, call_of, object, pretty, with_env};

const OWNED: [&str; 2] = ["page_ai_review_session.", "tool_event."];

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
    with_env(&profile, &page.clone(), |env| {
        let p = &input["propose"];
        let call = call_of(p, &p["args"], "");
        let typed = call.typed()?;
        let request = ProposeRequest {
            session_id: p["sessionId"].as_str().unwrap(),
            run_id: p["runId"].as_str().unwrap(),
            trace_id: p["traceId"].as_str().unwrap(),
            call: &typed,
        };
        let mut session = review::propose(&mut page, &request, env)?;
        let mut answers = Vec::new();
        let steps = input["steps"].as_array().cloned().unwrap_or_default();
        for step in &steps {
            let stamp = Stamp { actor: step["actor"].as_str().unwrap(), at: step["at"].as_str().unwrap() };
            match step["action"].as_str().unwrap() {
                "accept" => {
                    let request: AcceptRequest = from_value(step["request"].clone()).unwrap();
                    let answer = review::accept(&mut session, &mut page, &request, &stamp, env)?;
                    answers.push(answer.json);
                }
                "revert" => {
                    let request: RevertRequest = from_value(step["request"].clone()).unwrap();
                    let answer = review::revert(&mut session, &mut page, &request, &stamp, env)?;
                    answers.push(answer.json);
                }
                "retry" => {
                    let request: RetryRequest = from_value(step["request"].clone()).unwrap();
                    review::retry(&mut session, &mut page, &request, &stamp, env)?;
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
                    execute(&mut page, &call, env).unwrap();
                }
                other => panic!("unknown step {other}"),
            }
        }
        Ok(Script { page, session, answers })
    })
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
        Err(e) => support::error(&e),
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
    let call = call_of(c, &c["args"], "ctx_golden");
    let event = with_env(&profile, &page.clone(), |env| match execute(&mut page, &call, env) {
        Ok(outcome) => events::tool_completed(&ids, &outcome),
        Err(e) => events::tool_failed(&ids, &e),
    });
    ("output", pretty(&event))
}

const AT0: &str = "2026-11-30T08:00:00Z";
const AT1: &str = "2026-11-30T08:01:00Z";
const AT2: &str = "2026-11-30T08:02:00Z";
const AT3: &str = "2026-11-30T08:03:00Z";

fn script(mode: &str, tool: &str, args: Value, origin: &str, steps: Value) -> Value {
    json!({
        "page": support::weekly_page(),
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

/// `args` naming the run's context, as an AI write that is applied must (the executor refuses it otherwise).
fn bound(mut args: Value) -> Value {
    args["contextId"] = json!(support::CONTEXT_ID);
    args
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
        ("yolo_applied", script("yolo", "mnote.doc.apply_block_ops", bound(replace()), "shortcut", json!([]))),
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
            "page": support::weekly_page(),
            "profile": {"reviewMode": mode},
            "call": {"toolName": tool, "args": args, "origin": origin, "actor": origin, "at": AT0, "toolCallId": "call_golden"},
            "ids": {"runId": run, "traceId": "trace_golden"},
        })
    };
    let with = |mut v: Value, event: &str| {
        v["event"] = json!(event);
        v
    };
    let mut applied = bound(ops(json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}])));
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

fn all_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (name, input) in session_cases() {
        out.push(Case::new(format!("page_ai_review_session.{name}.json"), input, run_session));
    }
    for (name, input) in event_cases() {
        out.push(Case::new(format!("tool_event.{name}.json"), input, run_event));
    }
    out
}

#[test]
fn fixtures_match() {
    support::check("v1", &all_cases(), Layout::Ordered);
}

#[test]
fn every_fixture_file_is_exercised() {
    support::exercised("v1", &OWNED, &all_cases());
}

/// What the fixtures promise a reader, checked on the stored files rather than on fresh output.
#[test]
fn fixtures_show_the_contract() {
    let read = |name: &str| -> Value { support::read("v1", name) };
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
