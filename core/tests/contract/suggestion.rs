//! Suggestions: `suggestion.*.json` under `tests/fixtures/wire/v1/`.
//!
//! Input `{page, profile, sessions, steps}`: each session is a write call (`toolName, args, origin, actor,
//! at, toolCallId`) with its ids (`sessionId, runId, traceId`) and an optional `reason`; a call of origin
//! `user` is a person's suggestion (`review::suggest`), any other an AI proposal (`review::propose`). Each
//! step is `{action: edit, operations}` (another person writes the page) or `{action: accept, session,
//! key}` (an editor accepts the session at that index). The output is the page's pending suggestions
//! (`review::suggestions`), an array of `mnote.suggestion.v1`.

use pageai_core::executor::{Call, Origin, execute};
use pageai_core::json::from_value;
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::review::{self, AcceptRequest, Noted, ProposeRequest, Stamp};
use serde_json::{Value, json};

use crate::support::{self, Case, Layout, array, call_of, pretty, with_env};

const OWNED: [&str; 1] = ["suggestion."];
const AT0: &str = "2026-11-30T08:00:00Z";
const AT1: &str = "2026-11-30T08:01:00Z";

fn run(input: &Value) -> (&'static str, String) {
    let mut page: Page = from_value(input["page"].clone()).unwrap();
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let outcome = with_env(&profile, &page.clone(), |env| {
        let mut sessions = Vec::new();
        for s in input["sessions"].as_array().unwrap() {
            let typed = call_of(s, &s["args"], "").typed()?;
            let request = ProposeRequest {
                session_id: s["sessionId"].as_str().unwrap(),
                run_id: s["runId"].as_str().unwrap(),
                trace_id: s["traceId"].as_str().unwrap(),
                call: &typed,
            };
            let reason = s["reason"].as_str().map(String::from).or_else(|| review::reason_of(&typed).map(String::from));
            let session = match typed.origin {
                Origin::User => review::suggest(&mut page, &request, env)?,
                _ => review::propose(&mut page, &request, env)?,
            };
            sessions.push((session, reason));
        }
        for step in input["steps"].as_array().cloned().unwrap_or_default() {
            let stamp = Stamp { actor: "user_editor", at: AT1 };
            match step["action"].as_str().unwrap() {
                "edit" => {
                    let args = json!({
                        "documentId": page.document_id, "baseRevision": page.revision, "dryRun": false,
                        "idempotencyKey": format!("idem_edit_{}", page.revision), "operations": step["operations"],
                    });
                    let call = Call {
                        tool_name: "mnote.doc.apply_block_ops",
                        args: &args,
                        origin: Origin::User,
                        actor: "user_other",
                        at: AT1,
                        tool_call_id: "call_edit",
                        new_context_id: "",
                    };
                    execute(&mut page, &call, env)?;
                }
                "accept" => {
                    let (session, _) = &mut sessions[step["session"].as_u64().unwrap() as usize];
                    let request =
                        AcceptRequest { block_ids: None, idempotency_key: step["key"].as_str().unwrap().into() };
                    review::accept(session, &mut page, &request, &stamp, env)?;
                }
                other => panic!("unknown step {other}"),
            }
        }
        let noted: Vec<Noted<'_>> =
            sessions.iter().map(|(session, reason)| Noted { session, reason: reason.as_deref() }).collect();
        Ok::<_, pageai_core::Error>(review::suggestions(&noted, &page))
    });
    match outcome {
        Ok(list) => ("output", array(&list.iter().map(pretty).collect::<Vec<_>>())),
        Err(e) => support::error(&e),
    }
}

fn session(id: &str, tool: &str, origin: &str, actor: &str, args: Value) -> Value {
    json!({
        "toolName": tool, "args": args, "origin": origin, "actor": actor, "at": AT0, "toolCallId": format!("call_{id}"),
        "sessionId": id, "runId": format!("run_{id}"), "traceId": "trace_golden",
    })
}

fn edit(key: &str, operations: Value) -> Value {
    json!({"documentId": "doc_golden", "baseRevision": 4, "operations": operations, "dryRun": false, "idempotencyKey": key})
}

fn person(id: &str, reason: Option<&str>) -> Value {
    let mut s = session(
        id,
        "mnote.doc.apply_block_ops",
        "user",
        "user_alice",
        edit(
            "idem_alice",
            json!([{"op": "replace", "blockId": "p_2", "matchText": "is not final", "content": "is final"}]),
        ),
    );
    if let Some(reason) = reason {
        s["reason"] = json!(reason);
    }
    s
}

fn hermes_plan() -> Value {
    session(
        "rs_hermes",
        "mnote.doc.plan_update",
        "hermes",
        "hermes",
        json!({"documentId": "doc_golden", "baseRevision": 4, "idempotencyKey": "idem_model", "summary": "统一版本号",
        "operations": [
            {"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"},
            {"op": "replace", "blockId": "p_2", "matchText": "The API may change.", "content": "The API may still change."}
        ]}),
    )
}

fn cases() -> Vec<Case> {
    let input = |sessions: Value, steps: Value| json!({"page": support::weekly_page(), "profile": {"reviewMode": "review"}, "sessions": sessions, "steps": steps});
    let touch_p2 = json!({"action": "edit", "operations": [
        {"op": "update", "blockId": "p_2", "text": "Risks: the API is not final. It may change."}]});
    [
        ("person_pending", input(json!([person("rs_alice", Some("Legal signed the API off"))]), json!([]))),
        ("hermes_on_person", input(json!([person("rs_alice", None), hermes_plan()]), json!([]))),
        (
            "stale",
            input(
                json!([person("rs_alice", None)]),
                json!([touch_p2, {"action": "accept", "session": 0, "key": "idem_accept"}]),
            ),
        ),
        (
            "accepted_leaves_the_rest",
            input(
                json!([hermes_plan(), person("rs_alice", None)]),
                json!([{"action": "accept", "session": 1, "key": "idem_accept"}]),
            ),
        ),
    ]
    .into_iter()
    .map(|(name, input)| Case::new(format!("suggestion.{name}.json"), input, run))
    .collect()
}

#[test]
fn suggestions_match_their_golden_fixtures() {
    let cases = cases();
    support::check("v1", &cases, Layout::Ordered);
    support::exercised("v1", &OWNED, &cases);
}
