//! `page_ai_context.*.json`, `tool_result.*.json`, `doc_search.*.json` and the catalog's `ai_tool_manifest.*.json`,
//! `mcp_tools_list.*.json`, `openai_functions.*.json` under `tests/fixtures/wire/v1/`.
//!
//! Every fixture holds `{input, output}` (or `error` for a coded failure, with `traceId` "trace_golden"):
//! - `page_ai_context.*.json`: input `{page, request, contextId}`;
//! - `ai_tool_manifest.*.json`, `mcp_tools_list.*.json`, `openai_functions.*.json`, `hermes_tool.*.json`
//!   (the entries of the Worker's `GET /api/hermes/client/tools`): input
//!   `{profile, grants, permission}`;
//! - `tool_result.*.json`: input `{page, profile, call:{toolName, args, origin, actor, at, toolCallId}}`, run
//!   through the executor with block ids minted as `b_golden{n}`;
//! - `doc_search.*.json`: the same, for `mnote.doc.search` calls (answers `mnote.doc_search.v1`).

use pageai_core::context::{ContextRequest, build_context};
use pageai_core::executor::execute;
use pageai_core::json::from_value;
use pageai_core::manifest::{manifest, mcp_tools_list, openai_functions};
use pageai_core::page::{Page, Permission};
use pageai_core::profile::Profile;
use pageai_core::wire::hermes_tools;
use serde_json::{Value, json};

use crate::support::{self, Case, Layout, call_of, pretty_keep_order, with_env};

fn run_context(input: &Value) -> (&'static str, String) {
    let page: Page = from_value(input["page"].clone()).unwrap();
    page.validate().unwrap();
    let request: ContextRequest = from_value(input["request"].clone()).unwrap();
    match build_context(&page, &request, input["contextId"].as_str().unwrap()) {
        Ok(ctx) => ("output", serde_json::to_string_pretty(&ctx).unwrap()),
        Err(e) => support::error(&e),
    }
}

fn sample_page() -> Value {
    json!({
        "workspaceId": "ws_golden", "documentId": "doc_golden", "title": "发布计划 Release plan", "revision": 12,
        "permission": "edit",
        "blocks": [
            {"blockId": "h_1", "type": "heading", "text": "发布计划 Release plan", "attrs": {"level": 1}},
            {"blockId": "p_1", "type": "paragraph", "text": "第一段：我们在周五发布 ＲＵＳＴ 内核。"},
            {"blockId": "h_2", "type": "heading", "text": "Checklist", "attrs": {"level": 2}},
            {"blockId": "t_1", "type": "todo", "text": "Run `make test`", "attrs": {"checked": true, "depth": 0}},
            {"blockId": "t_2", "type": "todo", "text": "Write the <release> notes & \"changelog\"", "attrs": {"checked": false, "depth": 0}},
            {"blockId": "p_2", "type": "paragraph", "text": "Locked legal text.", "editable": false},
            {"blockId": "c_1", "type": "code", "text": "cargo build --release", "attrs": {"language": "sh"}},
            {"blockId": "h_3", "type": "heading", "text": "Notes", "attrs": {"level": 2}},
            {"blockId": "q_1", "type": "quote", "text": "Ship small, ship often.\n小步快跑。"}
        ]
    })
}

fn cases() -> Vec<(&'static str, Value)> {
    let page = sample_page();
    let case = |request: Value| json!({"page": page.clone(), "request": request, "contextId": "ctx_golden"});
    let first_chunk = {
        let input = case(json!({"scope": {"type": "full"}, "budget": {"maxChars": 60}}));
        let (_, out) = run_context(&input);
        serde_json::from_str::<Value>(&out).unwrap()["continuation"].clone()
    };
    let mut stale = page.clone();
    stale["revision"] = json!(13);
    vec![
        ("full", case(json!({"scope": {"type": "full"}}))),
        ("outline", case(json!({"scope": {"type": "outline"}, "formats": ["json", "page_xml"]}))),
        ("block", case(json!({"scope": {"type": "block", "blockId": "t_2"}, "formats": ["page_xml"]}))),
        ("selection", case(json!({"scope": {"type": "selection", "blockIds": ["t_1", "p_2"]}}))),
        ("keyword", case(json!({"scope": {"type": "keyword", "query": "rust"}, "formats": ["text", "json"]}))),
        ("budget_first", case(json!({"scope": {"type": "full"}, "budget": {"maxChars": 60}}))),
        (
            "budget_next",
            case(json!({"scope": {"type": "full"}, "budget": {"maxChars": 60}, "continuation": first_chunk.clone()})),
        ),
        (
            "stale_continuation",
            json!({"page": stale, "request": {"scope": {"type": "full"}, "continuation": first_chunk}, "contextId": "ctx_golden"}),
        ),
        ("block_not_found", case(json!({"scope": {"type": "selection", "blockIds": ["t_3"]}}))),
    ]
}

fn run_catalog(kind: &str, input: &Value) -> (&'static str, String) {
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let grants: Option<Vec<String>> = from_value(input["grants"].clone()).unwrap();
    let permission: Permission = from_value(input["permission"].clone()).unwrap();
    let m = manifest(&profile, grants.as_deref(), permission);
    let out = match kind {
        "ai_tool_manifest" => serde_json::to_string_pretty(&m),
        "mcp_tools_list" => serde_json::to_string_pretty(&mcp_tools_list(&m)),
        "hermes_tool" => serde_json::to_string_pretty(&hermes_tools(&m)),
        _ => serde_json::to_string_pretty(&openai_functions(&m)),
    };
    ("output", out.unwrap())
}

fn run_tool(input: &Value) -> (&'static str, String) {
    let mut page: Page = from_value(input["page"].clone()).unwrap();
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let c = &input["call"];
    let call = call_of(c, &c["args"], "ctx_golden");
    with_env(&profile, &page.clone(), |env| match execute(&mut page, &call, env) {
        Ok(out) => ("output", pretty_keep_order(&out.json)),
        Err(e) => support::error(&e),
    })
}

fn tool_cases() -> Vec<(&'static str, Value)> {
    let call = |tool: &str, args: Value, origin: &str| {
        json!({
            "page": support::weekly_page(),
            "profile": {"reviewMode": "yolo"},
            "call": {"toolName": tool, "args": args, "origin": origin, "actor": "user_golden", "at": "2026-11-30T08:00:00Z", "toolCallId": "call_golden"}
        })
    };
    let base = |ops: Value, dry: bool| json!({"documentId": "doc_golden", "baseRevision": 4, "operations": ops, "dryRun": dry, "idempotencyKey": "idem_golden"});
    vec![
        (
            "replace_dry_run",
            call(
                "mnote.doc.apply_block_ops",
                base(json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]), true),
                "shortcut",
            ),
        ),
        (
            "structural_apply",
            call(
                "doc_apply_block_ops",
                base(
                    json!([
                        {"op": "insert_after", "afterBlockId": "p_1", "block": {"type": "todo", "text": "跟进 follow up", "attrs": {"checked": false, "depth": 0}}},
                        {"op": "update", "blockId": "p_2", "type": "quote"},
                        {"op": "move", "blockId": "p_2", "afterBlockId": "h_1"}
                    ]),
                    false,
                ),
                "user",
            ),
        ),
        (
            "out_of_scope",
            call(
                "doc_apply_block_ops",
                {
                    let mut a = base(
                        json!([{"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"}]),
                        true,
                    );
                    a["allowedTargetBlockIds"] = json!(["p_2"]);
                    a
                },
                "hermes",
            ),
        ),
        (
            "ambiguous",
            call(
                "doc_apply_block_ops",
                base(json!([{"op": "replace", "matchText": "API", "content": "interface"}]), true),
                "hermes",
            ),
        ),
        (
            "locked",
            call(
                "block_delete",
                json!({"documentId": "doc_golden", "baseRevision": 4, "blockId": "p_3", "dryRun": true, "idempotencyKey": "idem_golden"}),
                "hermes",
            ),
        ),
        (
            "unknown_field",
            call(
                "doc_apply_block_ops",
                {
                    let mut a = base(json!([]), true);
                    a["force"] = json!(true);
                    a
                },
                "hermes",
            ),
        ),
    ]
}

/// `mnote.doc.search` calls: their answers are `mnote.doc_search.v1`.
fn search_cases() -> Vec<(&'static str, Value)> {
    let search = |args: Value| {
        json!({
            "page": support::weekly_page(),
            "profile": {"reviewMode": "yolo"},
            "call": {"toolName": "mnote.doc.search", "args": args, "origin": "hermes", "actor": "hermes",
                     "at": "2026-11-30T08:00:00Z", "toolCallId": "call_golden"}
        })
    };
    vec![
        ("found", search(json!({"documentId": "doc_golden", "query": "API"}))),
        ("cjk_limited", search(json!({"documentId": "doc_golden", "query": "第一版", "limit": 1}))),
        ("none", search(json!({"documentId": "doc_golden", "query": "火星"}))),
    ]
}

fn catalog_cases() -> Vec<(&'static str, Value)> {
    vec![
        ("default", json!({"profile": {}, "grants": null, "permission": "edit"})),
        (
            "disabled_block_fetch",
            json!({"profile": {"tools": {"disabled": ["mnote.block.fetch"]}, "reviewMode": "yolo"}, "grants": ["doc.write", "block.read"], "permission": "edit"}),
        ),
        ("read_only", json!({"profile": {"reviewMode": "required"}, "grants": null, "permission": "read"})),
    ]
}

/// Every fixture of this file: name, input, and how to compute its answer.
fn all_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (name, input) in cases() {
        out.push(Case::new(format!("page_ai_context.{name}.json"), input, run_context));
    }
    for (name, input) in tool_cases() {
        out.push(Case::new(format!("tool_result.{name}.json"), input, run_tool));
    }
    for (name, input) in search_cases() {
        out.push(Case::new(format!("doc_search.{name}.json"), input, run_tool));
    }
    for kind in ["ai_tool_manifest", "mcp_tools_list", "openai_functions", "hermes_tool"] {
        for (name, input) in catalog_cases() {
            if kind != "ai_tool_manifest" && name != "default" && name != "disabled_block_fetch" {
                continue;
            }
            out.push(Case::new(format!("{kind}.{name}.json"), input, move |i: &Value| run_catalog(kind, i)));
        }
    }
    out
}

/// Other schemas' fixtures (review sessions, tool events, the live channel) are checked by their own
/// modules.
const OWNED: [&str; 7] = [
    "page_ai_context.",
    "tool_result.",
    "doc_search.",
    "ai_tool_manifest.",
    "mcp_tools_list.",
    "openai_functions.",
    "hermes_tool.",
];

#[test]
fn fixtures_match() {
    support::check("v1", &all_cases(), Layout::Ordered);
}

#[test]
fn every_fixture_file_is_exercised() {
    support::exercised("v1", &OWNED, &all_cases());
}
