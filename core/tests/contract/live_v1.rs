//! The live channel, `tests/fixtures/wire/v1/live_event.*.json`, shared with the package tests (`PageSession.applyRemote` follows each fixture's messages from its input page to its output
//! page).
//!
//! Input `{page, profile, command, firstSeq}`, where `command` is what one committed command did:
//! - `{kind: "write", call}`: a write tool call run by the executor (applied or not);
//! - `{kind: "propose", call, sessionId, runId, traceId}`: an AI write held in a new review session;
//! - `{kind: "accept", call, sessionId, runId, traceId, accept: {actor, at, request}}`: the session of a
//!   proposal, then a person's accept (only the accept's messages are the output);
//! - `{kind: "reconnect", at}`: a client too far behind: the snapshot and the `hello` it is sent;
//! - `{kind: "decode", message}`: a message as a client receives it (the output is the decoding error).
//!
//! `call` is `{toolName, args, origin, actor, at, toolCallId, runId}`; each `args.operations[].content` is
//! `contentRepeat` repeated (`{text, times}`) when the input has one, so a fixture can describe a write too
//! large to send without holding it. The blocks a write stored are the result's `changedBlocks` (deleted
//! when their op is `delete`), as the Worker's page store writes them for these batches.
//!
//! The output is `{messages, page}`: the messages, numbered from `firstSeq`, and the page once they are
//! applied; or `error`. Block ids are minted as `b_golden{n}`.

use pageai_core::events::{self, EventIds};
use pageai_core::executor::{Call, Effect, Origin, execute};
use pageai_core::json::{from_json, from_value};
use pageai_core::live::{self, AppliedWrite, Author, Change, Commit};
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::review::{self, AcceptRequest, ProposeRequest, ReviewSessionV1, Stamp};
use pageai_core::wire::{LiveEventV1, LiveFollowV1, ToolEventV1};
use serde_json::{Value, json};

use crate::support::{self, Case, Layout, array, call_of, object, pretty, with_env};

const OWNED: &str = "live_event.";
const AT: &str = "2027-01-15T08:00:00.000Z";
const AT2: &str = "2027-01-15T08:01:00.000Z";

/// What one command committed: its page, change, events and stored sessions.
struct Committed {
    before: Page,
    page: Page,
    writes: Vec<AppliedWrite>,
    events: Vec<ToolEventV1>,
    sessions: Vec<ReviewSessionV1>,
}

fn ids<'a>(call: &'a Call<'a>, run_id: &'a str, session: Option<&'a str>) -> EventIds<'a> {
    EventIds {
        run_id,
        tool_call_id: call.tool_call_id,
        tool_name: call.tool_name,
        review_session_id: session,
        trace_id: "trace_golden",
        at: call.at,
    }
}

fn run_command(input: &Value) -> Committed {
    let mut page: Page = from_value(input["page"].clone()).unwrap();
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let command = &input["command"];
    let c = &command["call"];
    let mut args = c["args"].clone();
    if let Some(repeat) = input.get("contentRepeat") {
        let text = repeat["text"].as_str().unwrap().repeat(repeat["times"].as_u64().unwrap() as usize);
        for op in args["operations"].as_array_mut().unwrap() {
            op["content"] = Value::String(text.clone());
        }
    }
    let call = call_of(c, &args, "ctx_golden_read");
    let run_id = c["runId"].as_str().unwrap();
    with_env(&profile, &page.clone(), |env| {
        let before = page.clone();
        let mut committed = Committed { before, page: page.clone(), writes: vec![], events: vec![], sessions: vec![] };
        match command["kind"].as_str().unwrap() {
            "write" => {
                committed.events.push(events::tool_started(&ids(&call, run_id, None)));
                let outcome = execute(&mut page, &call, env).unwrap();
                committed.events.push(events::tool_completed(&ids(&call, run_id, None), &outcome));
                if let Effect::Applied(result) = outcome.effect {
                    committed.writes.push(AppliedWrite {
                        origin: call.origin,
                        run_id: Some(run_id.into()),
                        review_session_id: None,
                        result,
                    });
                }
            }
            kind @ ("propose" | "accept") => {
                let session_id = command["sessionId"].as_str().unwrap();
                let typed = call.typed().unwrap();
                let request = ProposeRequest { session_id, run_id, trace_id: "trace_golden", call: &typed };
                let mut session = review::propose(&mut page, &request, env).unwrap();
                let session_ids = ids(&call, run_id, Some(session_id));
                committed.events =
                    vec![events::tool_started(&ids(&call, run_id, None)), events::review_updated(&session, call.at)];
                if kind == "accept" {
                    committed.before = page.clone();
                    let a = &command["accept"];
                    let stamp = Stamp { actor: a["actor"].as_str().unwrap(), at: a["at"].as_str().unwrap() };
                    let request: AcceptRequest = from_value(a["request"].clone()).unwrap();
                    let answer = review::accept(&mut session, &mut page, &request, &stamp, env).unwrap();
                    let result = answer.applied.unwrap();
                    let write = AppliedWrite {
                        origin: Origin::ReviewAccept,
                        run_id: Some(session.run_id.clone()),
                        review_session_id: Some(session_id.into()),
                        result,
                    };
                    committed.writes = vec![write];
                    committed.events = vec![events::review_updated(&session, stamp.at)];
                } else {
                    let outcome = review::answer(&session, false).unwrap();
                    committed.events.push(events::tool_completed(&session_ids, &outcome));
                }
                committed.sessions = vec![session];
            }
            other => panic!("unknown command {other}"),
        }
        committed.page = page;
        committed
    })
}

/// The blocks a result stored, as the page store writes them for these batches.
fn rows(results: &[AppliedWrite]) -> (Vec<String>, Vec<String>) {
    let changed = results.iter().flat_map(|w| w.result.changed_blocks.iter());
    let (deleted, written): (Vec<_>, Vec<_>) = changed.partition(|c| c.op == "delete");
    (
        written.into_iter().map(|c| c.block_id.clone()).collect(),
        deleted.into_iter().map(|c| c.block_id.clone()).collect(),
    )
}

fn run(input: &Value) -> (&'static str, String) {
    let first_seq = input["firstSeq"].as_u64().unwrap_or(1);
    let kind = input["command"]["kind"].as_str().unwrap();
    if kind == "decode" {
        let text = serde_json::to_string(&input["command"]["message"]).unwrap();
        let error = from_json::<LiveEventV1>(&text).unwrap_err();
        return support::error(&error);
    }
    let (messages, page) = if kind == "reconnect" {
        let page: Page = from_value(input["page"].clone()).unwrap();
        let at = input["command"]["at"].as_str().unwrap();
        let limits = live::LIMITS;
        (vec![live::snapshot(&page, first_seq, at), live::hello(&page, first_seq, at, 0, true, limits)], page)
    } else {
        let committed = run_command(input);
        let (written, deleted) = rows(&committed.writes);
        let change = (committed.page.revision != committed.before.revision).then_some(Change {
            from_revision: committed.before.revision,
            written: &written,
            deleted: &deleted,
            author: Author::Writes(&committed.writes),
        });
        let commit =
            Commit { page: &committed.page, at: AT, change, events: &committed.events, sessions: &committed.sessions };
        (live::messages(&commit, first_seq), committed.page.clone())
    };
    // What is sent is what `encode` writes: a message over the bound is its refetch notice, and a client
    // that gets one reads the page over HTTP, so the fixture does not keep that page.
    let sent: Vec<String> = messages.iter().map(|m| live::encode(m).unwrap()).collect();
    let refetched = sent.iter().any(|m| m.contains(r#""kind":"refetch""#));
    let sent: Vec<String> = sent.iter().map(|m| pretty(&from_json::<LiveEventV1>(m).unwrap())).collect();
    match refetched {
        true => ("output", object(&[("messages", array(&sent))])),
        false => ("output", object(&[("messages", array(&sent)), ("page", pretty(&page))])),
    }
}

fn sample_page() -> Value {
    json!({
        "workspaceId": "ws_golden", "documentId": "doc_golden", "title": "发布计划 Release plan", "revision": 12,
        "permission": "edit",
        "blocks": [
            {"blockId": "h_1", "type": "heading", "text": "发布计划 Release plan", "attrs": {"level": 1}},
            {"blockId": "p_1", "type": "paragraph", "text": "第一段：我们在周五发布。"},
            {"blockId": "t_1", "type": "todo", "text": "Run `make test`", "attrs": {"checked": false, "depth": 0}},
            {"blockId": "p_2", "type": "paragraph", "text": "Locked legal text.", "editable": false},
            {"blockId": "q_1", "type": "quote", "text": "Ship small, ship often."}
        ]
    })
}

fn call(tool: &str, origin: &str, operations: Value, dry_run: Option<bool>) -> Value {
    let mut args = json!({
        "documentId": "doc_golden", "baseRevision": 12, "idempotencyKey": "idem_golden", "operations": operations,
    });
    if let Some(dry_run) = dry_run {
        args["dryRun"] = json!(dry_run);
    }
    // An AI write that is applied names its run's context (the executor refuses it otherwise).
    if origin != "user" && dry_run == Some(false) {
        args["contextId"] = json!(support::CONTEXT_ID);
    }
    let actor = if origin == "user" { "user_golden" } else { origin };
    json!({"toolName": tool, "args": args, "origin": origin, "actor": actor, "at": AT, "toolCallId": "call_golden",
           "runId": "run_golden"})
}

fn case(profile: &str, command: Value) -> Value {
    json!({"page": sample_page(), "profile": {"reviewMode": profile}, "command": command, "firstSeq": 41})
}

fn cases() -> Vec<(&'static str, Value)> {
    let replace = json!([{"op": "replace", "blockId": "p_1", "matchText": "周五", "content": "周四"}]);
    let apply = "mnote.doc.apply_block_ops";
    let mut behind = sample_page();
    behind["revision"] = json!(30);
    // Four blocks grown to 60 KB each: every block fits the block limit, the change does not fit a message.
    let grow = json!([
        {"op": "replace", "blockId": "h_1", "matchText": "发布计划", "content": ""},
        {"op": "replace", "blockId": "p_1", "matchText": "第一段", "content": ""},
        {"op": "replace", "blockId": "t_1", "matchText": "Run", "content": ""},
        {"op": "replace", "blockId": "q_1", "matchText": "Ship small", "content": ""}
    ]);
    let mut refetch = case("yolo", json!({"kind": "write", "call": call(apply, "hermes", grow, Some(false))}));
    refetch["contentRepeat"] = json!({"text": "长", "times": 20_000});
    vec![
        (
            "page_changed",
            case("yolo", json!({"kind": "write", "call": call(apply, "hermes", replace.clone(), Some(false))})),
        ),
        (
            "structural",
            case(
                "review",
                json!({"kind": "write", "call": call(apply, "user", json!([
                    {"op": "insert_after", "afterBlockId": "t_1", "block": {"type": "todo", "text": "Tag the release", "attrs": {"checked": false}}},
                    {"op": "move", "blockId": "q_1", "afterBlockId": "h_1"},
                    {"op": "delete", "blockId": "t_1"}
                ]), Some(false))}),
            ),
        ),
        (
            "review_proposal",
            case(
                "review",
                json!({"kind": "propose", "sessionId": "rs.doc_golden.a1", "call": call("mnote.doc.plan_update", "hermes", replace.clone(), None)}),
            ),
        ),
        (
            "review_accept",
            case(
                "review",
                json!({"kind": "accept", "sessionId": "rs.doc_golden.a1",
                       "call": call("mnote.doc.plan_update", "hermes", replace.clone(), None),
                       "accept": {"actor": "user_golden", "at": AT2, "request": {"idempotencyKey": "idem_accept"}}}),
            ),
        ),
        (
            "snapshot",
            json!({"page": behind, "profile": {"reviewMode": "review"}, "command": {"kind": "reconnect", "at": AT}, "firstSeq": 2077}),
        ),
        ("refetch", refetch),
        (
            "kind_mismatch",
            json!({"page": sample_page(), "profile": {"reviewMode": "review"}, "command": {"kind": "decode", "message": {
                "schema": "mnote.live_event.v1", "seq": 3, "revision": 12, "kind": "snapshot", "at": AT,
                "documentId": "doc_golden", "hello": {"replayed": 0, "snapshot": false,
                "limits": {"maxSockets": 64, "maxIncomingBytes": 4096, "maxMessageBytes": 262144}}}}}),
        ),
    ]
}

fn all_cases() -> Vec<Case> {
    cases().into_iter().map(|(name, input)| Case::new(format!("{OWNED}{name}.json"), input, run)).collect()
}

#[test]
fn fixtures_match() {
    support::check("v1", &all_cases(), Layout::Ordered);
}

#[test]
fn following_each_fixture_gives_its_page() {
    for (name, input) in cases() {
        let (key, output) = run(&input);
        if key == "error" {
            continue;
        }
        let output: Value = serde_json::from_str(&output).unwrap();
        // Read whole, and read as a follower does (tool events and sessions skipped unread): the same page.
        for light in [false, true] {
            let mut page: Page = from_value(input["page"].clone()).unwrap();
            let mut refused = None;
            for message in output["messages"].as_array().unwrap() {
                let followed = match light {
                    false => live::follow(&mut page, &from_value::<LiveEventV1>(message.clone()).unwrap()),
                    true => live::follow_light(&mut page, &from_value::<LiveFollowV1>(message.clone()).unwrap()),
                };
                if let Err(e) = followed {
                    refused = Some(e.code().as_str());
                }
            }
            match output.get("page") {
                None => {
                    assert_eq!(refused, Some("mnote_live_resync"), "{name}: a change too large to send is refetched")
                }
                // As JSON: the block history a follower keeps is not part of the page's wire form.
                Some(expected) => {
                    assert_eq!((refused, serde_json::to_value(&page).unwrap()), (None, expected.clone()), "{name}")
                }
            }
        }
    }
}

#[test]
fn every_fixture_file_is_exercised() {
    support::exercised("v1", &[OWNED], &all_cases());
}

#[test]
fn a_write_too_large_to_send_is_a_refetch_between_its_tool_events() {
    let (_, output) = run(&cases().into_iter().find(|(n, _)| *n == "refetch").unwrap().1);
    let output: Value = serde_json::from_str(&output).unwrap();
    let kinds: Vec<&str> = output["messages"].as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["tool.event", "refetch", "tool.event"]);
    assert_eq!(output["messages"][1]["refetch"]["skipped"], "page.changed");
    assert!(output.get("page").is_none(), "the page it leaves is read over HTTP, not kept in the fixture");
}
