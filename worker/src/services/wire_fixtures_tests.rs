//! The shared wire fixtures (`tests/fixtures/wire/v1` and `v2`, golden JSON written by core's tests and
//! read by the package's too), read by the Worker: what it answers must be what they hold.
//!
//! - Every fixture of a schema the Worker carries (tool results, tool events, review sessions, contexts,
//!   live events, coded error bodies) decodes into the type the Worker stores and sends, and encodes back
//!   byte for byte (`v1`, whose files keep the structs' field order) or to the same JSON (`v2`).
//! - The tool-result and `doc_search` fixtures of an AI call run through the Worker's own tool path
//!   ([`super::tool_calls::call`] over the stores in memory), and answer the fixture's result or error body.
//! - The calls of those fixtures are accepted by the Worker's MCP parser ([`super::mcp::plan`]), and their
//!   error bodies by its relay parser ([`super::mcp::call_relayed`]), which hands them to the model unchanged.
//! - The MCP `tools/list` fixtures are what the Worker's `/mcp` lists ([`super::mcp::tools_list`]).
//! - The command-route fixtures are the route the Worker's command route answers
//!   ([`super::commands::run`]), but for the context id and idempotency key the object mints itself.
//!
//! Two Worker answers differ from core's bare executor by design, and the tool-path test names them: the
//! shortcut's audit names the shortcut as its actor, and a locked block is out of scope under a frozen
//! context (every AI write names one) before its lock is looked at.
#![allow(
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a failed expectation is the test's report"
)]

use std::path::{Path, PathBuf};

use pageai_core::executor::Origin;
use pageai_core::json::{from_value, to_json};
use pageai_core::manifest::manifest;
use pageai_core::page::{Page, Permission};
use pageai_core::profile::Profile;
use pageai_core::review::ReviewSessionV1;
use pageai_core::route::RouteV1;
use pageai_core::wire::{
    ErrorBody, HermesToolV1, LiveEventV1, PageAiContextV1, ReviewAnswerV1, SearchResultV1, ToolEventV1, ToolResultV1,
};
use serde::Serialize;
use serde_json::{Value, json};

use super::mcp::{Step, call_relayed, plan, tools_list};
use super::test_support::{MemoryStores, hermes_call};
use super::tool_calls;
use crate::clock::Now;

/// A live-event fixture's output: the messages the live channel sends, in order, and the page a client
/// that followed them holds (none when a message tells it to fetch the page again).
#[derive(serde::Deserialize, pageai_core::json::Read, Serialize)]
#[serde(deny_unknown_fields)]
struct LiveOutput {
    messages: Vec<LiveEventV1>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    page: Option<Page>,
}

/// A review-session fixture's output: the answers of its accepts and reverts, the page after them and the
/// session as the Worker stores it.
#[derive(serde::Deserialize, pageai_core::json::Read, Serialize)]
#[serde(deny_unknown_fields)]
struct ReviewOutput {
    answers: Vec<ReviewAnswerV1>,
    page: Page,
    session: ReviewSessionV1,
}

/// One fixture: its name (`tool_result.ambiguous`), its JSON, and its text.
struct Fixture {
    name: String,
    json: Value,
    text: String,
}

fn dir(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wire").join(version)
}

/// The fixtures of `version` whose names start with `prefix`, in name order (at least one).
fn fixtures(version: &str, prefix: &str) -> Vec<Fixture> {
    let mut found: Vec<Fixture> = std::fs::read_dir(dir(version))
        .expect("the fixtures directory")
        .map(|entry| entry.expect("an entry").path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.strip_suffix(".json")?.to_string();
            name.starts_with(prefix).then_some((name, path))
        })
        .map(|(name, path)| {
            let text = std::fs::read_to_string(&path).expect("a fixture");
            let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            Fixture { name, json, text }
        })
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(!found.is_empty(), "no {version} fixture starts with {prefix}");
    found
}

/// `text` without the whitespace between tokens: the fixture's bytes as one line of compact JSON.
fn compact(text: &str) -> String {
    let (mut out, mut in_string, mut escaped) = (String::with_capacity(text.len()), false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
        } else if !c.is_whitespace() {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// The compact text of the fixture's `key` member (`output` or `error`), as the file spells it.
fn member_text(fixture: &Fixture, key: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Members<'a> {
        #[serde(borrow, default)]
        output: Option<&'a serde_json::value::RawValue>,
        #[serde(borrow, default)]
        error: Option<&'a serde_json::value::RawValue>,
    }
    let members: Members<'_> = serde_json::from_str(&fixture.text).expect("members");
    let raw = if key == "output" { members.output } else { members.error };
    raw.map(|raw| compact(raw.get()))
}

/// Decodes `value` as `T` and encodes it back with core's encoder (the one every Worker answer goes through).
fn reencoded<T: pageai_core::json::Read + Serialize>(name: &str, value: &Value) -> String {
    let decoded: T = from_value(value.clone()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    to_json(&decoded).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// Asserts the Worker's encoding of `value` as `T` is the fixture's `key` member byte for byte.
fn same_bytes<T: pageai_core::json::Read + Serialize>(fixture: &Fixture, key: &str) -> usize {
    let Some(expected) = member_text(fixture, key) else { return 0 };
    let value = &fixture.json[key];
    assert_eq!(reencoded::<T>(&fixture.name, value), expected, "{}: {key}", fixture.name);
    1
}

#[test]
fn every_schema_the_worker_carries_reencodes_byte_for_byte() {
    let mut checked = 0;
    for fixture in fixtures("v1", "tool_result.") {
        checked += same_bytes::<ToolResultV1>(&fixture, "output") + same_bytes::<ErrorBody>(&fixture, "error");
    }
    for fixture in fixtures("v1", "tool_event.") {
        checked += same_bytes::<ToolEventV1>(&fixture, "output");
    }
    for fixture in fixtures("v1", "page_ai_review_session.") {
        checked += same_bytes::<ReviewOutput>(&fixture, "output") + same_bytes::<ErrorBody>(&fixture, "error");
    }
    for fixture in fixtures("v1", "page_ai_context.") {
        checked += same_bytes::<PageAiContextV1>(&fixture, "output") + same_bytes::<ErrorBody>(&fixture, "error");
    }
    for fixture in fixtures("v1", "live_event.") {
        checked += same_bytes::<LiveOutput>(&fixture, "output") + same_bytes::<ErrorBody>(&fixture, "error");
    }
    for fixture in fixtures("v1", "page_ai_command_route.") {
        checked += same_bytes::<RouteV1>(&fixture, "output");
    }
    for fixture in fixtures("v1", "doc_search.") {
        checked += same_bytes::<SearchResultV1>(&fixture, "output") + same_bytes::<ErrorBody>(&fixture, "error");
    }
    for fixture in fixtures("v1", "hermes_tool.") {
        checked += same_bytes::<Vec<HermesToolV1>>(&fixture, "output");
    }
    let kinds = [
        "tool_result.",
        "tool_event.",
        "page_ai_review_session.",
        "page_ai_context.",
        "live_event.",
        "page_ai_command_route.",
        "doc_search.",
        "hermes_tool.",
    ];
    let read: usize = kinds.iter().map(|prefix| fixtures("v1", prefix).len()).sum();
    assert_eq!(checked, read, "every fixture has an output or an error, and each was checked");
}

#[test]
fn live_events_v2_decode_and_encode_to_the_same_json() {
    for fixture in fixtures("v2", "live_event.") {
        let Some(output) = fixture.json.get("output") else { continue };
        let sent = reencoded::<LiveOutput>(&fixture.name, output);
        assert_eq!(serde_json::from_str::<Value>(&sent).expect("json"), *output, "{}", fixture.name);
    }
}

/// Stores in memory under the fixture's profile and clock, acting for its actor.
fn stores_for(input: &Value) -> MemoryStores {
    let profile: Profile = from_value(input["profile"].clone()).expect("profile");
    let mut memory = MemoryStores::new(profile);
    let call = &input["call"];
    memory.now = Now::fixed(1_800_000_000_000, call["at"].as_str().expect("at"));
    memory.acting.user = call["actor"].as_str().expect("actor").into();
    memory
}

#[test]
fn ai_tool_result_fixtures_are_what_the_worker_tool_path_answers() {
    let mut ran = 0;
    let searches = fixtures("v1", "doc_search.");
    for fixture in fixtures("v1", "tool_result.").into_iter().chain(searches) {
        let input = &fixture.json["input"];
        let call = &input["call"];
        let origin: Origin = from_value(call["origin"].clone()).expect("origin");
        if origin == Origin::User {
            continue; // a person's edit: the block-edit route's
        }
        let mut page: Page = from_value(input["page"].clone()).expect("page");
        let mut memory = stores_for(input);
        let mut args = call["args"].clone();
        // Every AI write names the context it was made from: the whole page, frozen now.
        args["contextId"] = json!(memory.frozen_page(&page));
        let mut request = hermes_call(call["toolName"].as_str().expect("tool"), args);
        request.origin = origin;
        request.tool_call_id = call["toolCallId"].as_str().expect("toolCallId").into();
        request.trace_id = "trace_golden".into();
        let answer = tool_calls::call(&mut page, request, &mut memory.stores());
        if fixture.name == "tool_result.locked" {
            // A frozen context never lists a locked block among its targets, so under one the Worker refuses
            // the write as out of scope before the lock is looked at; the fixture's call named no context.
            let error = answer.expect_err("refused");
            assert_eq!(error.code().as_str(), "mnote_block_target_out_of_scope", "{}", fixture.name);
            ran += 1;
            continue;
        }
        match answer {
            Ok(reply) => {
                let mut expected = member_text(&fixture, "output").expect("an output");
                if origin == Origin::Shortcut {
                    // The Worker's shortcut acts as itself: its audit names it, whoever typed the command.
                    let actor = format!("\"actor\":{}", call["actor"]);
                    expected = expected.replace(&actor, "\"actor\":\"shortcut\"");
                }
                assert_eq!(compact(reply.result.get()), expected, "{}", fixture.name);
            }
            Err(error) => assert_eq!(
                Some(to_json(&ErrorBody::new(&error, "trace_golden")).expect("json")),
                member_text(&fixture, "error"),
                "{}",
                fixture.name
            ),
        }
        ran += 1;
    }
    assert!(ran >= 5, "only {ran} tool-result fixtures ran");
}

#[test]
fn command_route_fixtures_are_what_the_command_route_answers() {
    let mut ran = 0;
    for fixture in fixtures("v1", "page_ai_command_route.") {
        let input = &fixture.json["input"];
        let mut page: Page = from_value(input["page"].clone()).expect("page");
        let profile: Profile = from_value(input["profile"].clone()).expect("profile");
        let mut memory = MemoryStores::new(profile);
        let request = super::commands::CommandRequest {
            document_id: page.document_id.clone(),
            prompt: input["prompt"].as_str().expect("prompt").into(),
            scope: from_value(input["scope"].clone()).expect("scope"),
            selection: Some(from_value(input["selection"].clone()).expect("selection")),
            mode: None,
            trace_id: None,
            run_hermes: Some(false),
        };
        let answer = super::commands::run(&mut page, &request, "trace_golden", &mut memory.stores()).expect("routed");
        let mut route = serde_json::to_value(&answer.route).expect("json");
        // The object mints the context and the key; the fixture names its own.
        if let Some(args) = route.pointer_mut("/recommendedToolCall/args") {
            args["contextId"] = input["contextId"].clone();
            args["idempotencyKey"] = input["idempotencyKey"].clone();
        }
        assert_eq!(route, fixture.json["output"], "{}", fixture.name);
        ran += 1;
    }
    assert!(ran >= 8, "only {ran} command-route fixtures ran");
}

#[test]
fn the_calls_of_the_tool_result_fixtures_are_accepted_by_the_mcp_parser() {
    for fixture in fixtures("v1", "tool_result.").into_iter().filter(|f| f.json.get("output").is_some()) {
        let call = &fixture.json["input"]["call"];
        let params = json!({"name": call["toolName"], "arguments": call["args"]});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).to_string();
        assert!(matches!(plan(&body, None), Ok(Step::CallTool { .. })), "{}", fixture.name);
    }
}

#[test]
fn every_fixture_error_body_is_relayed_to_the_model_unchanged() {
    let Step::ListTools(reply) =
        plan(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).to_string(), Some("2025-06-18"))
            .expect("planned")
    else {
        panic!("tools/list");
    };
    let mut relayed = 0;
    for prefix in ["tool_result.", "page_ai_context.", "page_ai_review_session.", "live_event."] {
        for fixture in fixtures("v1", prefix) {
            let Some(text) = member_text(&fixture, "error") else { continue };
            let answer =
                call_relayed(&reply, &text, "rq_golden").unwrap_or_else(|| panic!("{}: refused", fixture.name));
            let mut expected = fixture.json["error"].clone();
            expected["requestId"] = json!("rq_golden");
            assert_eq!(answer["result"]["structuredContent"], expected, "{}", fixture.name);
            relayed += 1;
        }
    }
    assert!(relayed >= 8, "only {relayed} error bodies relayed");
}

#[test]
fn mcp_tools_list_fixtures_are_what_the_worker_lists() {
    for fixture in fixtures("v1", "mcp_tools_list.") {
        let input = &fixture.json["input"];
        let profile: Profile = from_value(input["profile"].clone()).expect("profile");
        let grants: Option<Vec<String>> = from_value(input["grants"].clone()).expect("grants");
        let permission: Permission = from_value(input["permission"].clone()).expect("permission");
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).to_string();
        let Step::ListTools(reply) = plan(&body, Some("2025-06-18")).expect("planned") else { panic!("tools/list") };
        let listed = tools_list(&reply, &manifest(&profile, grants.as_deref(), permission));
        assert_eq!(listed["result"]["tools"], fixture.json["output"], "{}", fixture.name);
    }
}
