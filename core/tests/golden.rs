//! Golden wire fixtures under `tests/fixtures/wire/v1/`, shared with the WASM and Worker tests.
//!
//! Each `page_ai_context.*.json` holds `{input:{page, request, contextId}, output}` (or `error` for a coded
//! failure, with `traceId` "trace_golden"). Run with `UPDATE_GOLDEN=1` to rewrite them after a deliberate
//! change; a `v1` shape must never change in a way that breaks old readers.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::path::{Path, PathBuf};

use pageai_core::context::{ContextRequest, build_context};
use pageai_core::page::Page;
use pageai_core::wire::{ErrorBody, from_value};
use serde_json::{Value, json};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wire/v1")
}

/// Writes `{input, output|error}` with the output in the struct's own field order, so JS readers that
/// compare `JSON.stringify` output byte for byte see the same order as the Rust serializer.
fn render(input: &Value, key: &str, output_json: &str) -> String {
    format!(
        "{{\n  \"input\": {},\n  \"{key}\": {}\n}}\n",
        indent(&serde_json::to_string_pretty(input).unwrap()),
        indent(output_json)
    )
}

fn indent(s: &str) -> String {
    s.replace('\n', "\n  ")
}

fn run(input: &Value) -> (&'static str, String) {
    let page: Page = from_value(input["page"].clone()).unwrap();
    page.validate().unwrap();
    let request: ContextRequest = from_value(input["request"].clone()).unwrap();
    match build_context(&page, &request, input["contextId"].as_str().unwrap()) {
        Ok(ctx) => ("output", serde_json::to_string_pretty(&ctx).unwrap()),
        Err(e) => (
            "error",
            serde_json::to_string_pretty(&ErrorBody::new(&e, "trace_golden")).unwrap(),
        ),
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
        let (_, out) = run(&input);
        serde_json::from_str::<Value>(&out).unwrap()["continuation"].clone()
    };
    let mut stale = page.clone();
    stale["revision"] = json!(13);
    vec![
        ("full", case(json!({"scope": {"type": "full"}}))),
        (
            "outline",
            case(json!({"scope": {"type": "outline"}, "formats": ["json", "page_xml"]})),
        ),
        (
            "block",
            case(json!({"scope": {"type": "block", "blockId": "t_2"}, "formats": ["page_xml"]})),
        ),
        (
            "selection",
            case(json!({"scope": {"type": "selection", "blockIds": ["t_1", "p_2"]}})),
        ),
        (
            "keyword",
            case(
                json!({"scope": {"type": "keyword", "query": "rust"}, "formats": ["text", "json"]}),
            ),
        ),
        (
            "budget_first",
            case(json!({"scope": {"type": "full"}, "budget": {"maxChars": 60}})),
        ),
        (
            "budget_next",
            case(
                json!({"scope": {"type": "full"}, "budget": {"maxChars": 60}, "continuation": first_chunk.clone()}),
            ),
        ),
        (
            "stale_continuation",
            json!({"page": stale, "request": {"scope": {"type": "full"}, "continuation": first_chunk}, "contextId": "ctx_golden"}),
        ),
        (
            "block_not_found",
            case(json!({"scope": {"type": "selection", "blockIds": ["t_3"]}})),
        ),
    ]
}

#[test]
fn context_fixtures_match() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut seen = 0;
    for (name, input) in cases() {
        let path = dir().join(format!("page_ai_context.{name}.json"));
        let (key, output) = run(&input);
        let rendered = render(&input, key, &output);
        if update {
            std::fs::create_dir_all(dir()).unwrap();
            std::fs::write(&path, &rendered).unwrap();
        }
        let stored = std::fs::read_to_string(&path).unwrap_or_else(|_| {
            panic!(
                "missing fixture {}; run with UPDATE_GOLDEN=1",
                path.display()
            )
        });
        let stored: Value = serde_json::from_str(&stored).unwrap();
        // The stored input must still produce the stored answer.
        let (stored_key, recomputed) = run(&stored["input"]);
        assert_eq!(stored_key, key, "{name}: success/error flipped");
        let recomputed: Value = serde_json::from_str(&recomputed).unwrap();
        assert_eq!(
            recomputed, stored[key],
            "{name}: output drifted from the golden fixture"
        );
        seen += 1;
    }
    assert_eq!(seen, 9);
}

#[test]
fn every_fixture_file_is_exercised() {
    // A stray fixture nobody checks would silently rot.
    let names: Vec<String> = cases()
        .into_iter()
        .map(|(n, _)| format!("page_ai_context.{n}.json"))
        .collect();
    for entry in std::fs::read_dir(dir()).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if file.starts_with("page_ai_context.") {
            assert!(names.contains(&file), "{file} is not produced by any case");
        }
    }
}
