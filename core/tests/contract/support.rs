//! What every contract test shares: where the wire fixtures are, how a fixture is checked (and rewritten
//! with `UPDATE_GOLDEN=1`), how its JSON is laid out, and the executor set-up a fixture's call runs in.

use std::path::{Path, PathBuf};

use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Env, FrozenContext};
use pageai_core::json::from_value;
use pageai_core::page::Page;
use pageai_core::policy::Role;
use pageai_core::profile::Profile;
use pageai_core::wire::ErrorBody;
use serde_json::{Value, json};

/// The `traceId` of every coded error a fixture keeps.
pub const TRACE: &str = "trace_golden";

/// `tests/fixtures/wire/{version}`, shared with the package and Worker tests.
pub fn dir(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wire").join(version)
}

/// A stored fixture, as JSON.
pub fn read(version: &str, name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir(version).join(name)).unwrap()).unwrap()
}

/// Computes a fixture's answer from its input: `("output" | "error", json)`.
pub type Runner = Box<dyn Fn(&Value) -> (&'static str, String)>;

/// One fixture: its file name, the input it is made from, and how its answer is computed.
pub struct Case {
    pub file: String,
    pub input: Value,
    pub run: Runner,
}

impl Case {
    pub fn new(file: String, input: Value, run: impl Fn(&Value) -> (&'static str, String) + 'static) -> Self {
        Case { file, input, run: Box::new(run) }
    }
}

/// How a fixture file is written on `UPDATE_GOLDEN=1`.
#[derive(Clone, Copy)]
pub enum Layout {
    /// `{input, output|error}`, the answer in the struct's own field order, so JS readers that compare
    /// `JSON.stringify` output byte for byte see the same order as the Rust serializer.
    Ordered,
    /// The same two keys as one JSON value, keys sorted (the `v2` files).
    Sorted,
}

/// Every case against its fixture under `version`: the stored input must still produce the stored answer
/// (compared as JSON). With `UPDATE_GOLDEN=1` the fixtures are rewritten first.
pub fn check(version: &str, cases: &[Case], layout: Layout) {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for case in cases {
        let path = dir(version).join(&case.file);
        let (key, output) = (case.run)(&case.input);
        if update {
            std::fs::create_dir_all(dir(version)).unwrap();
            let rendered = match layout {
                Layout::Ordered => object(&[("input", pretty(&case.input)), (key, output.clone())]) + "\n",
                Layout::Sorted => {
                    let mut file = serde_json::Map::new();
                    file.insert("input".into(), case.input.clone());
                    file.insert(key.into(), serde_json::from_str(&output).unwrap());
                    serde_json::to_string_pretty(&file).unwrap() + "\n"
                }
            };
            std::fs::write(&path, rendered).unwrap();
        }
        let stored = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("missing fixture {}; run with UPDATE_GOLDEN=1", path.display()));
        let stored: Value = serde_json::from_str(&stored).unwrap();
        let (stored_key, recomputed) = (case.run)(&stored["input"]);
        assert_eq!(stored_key, key, "{}: success/error flipped", case.file);
        let recomputed: Value = serde_json::from_str(&recomputed).unwrap();
        assert_eq!(recomputed, stored[key], "{}: output drifted from the golden fixture", case.file);
    }
}

/// Every fixture file under `version` whose name starts with one of `owned` is produced by a case: a
/// stray fixture nobody checks would silently rot.
pub fn exercised(version: &str, owned: &[&str], cases: &[Case]) {
    let names: Vec<&str> = cases.iter().map(|c| c.file.as_str()).collect();
    for entry in std::fs::read_dir(dir(version)).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        if owned.iter().any(|prefix| file.starts_with(prefix)) {
            assert!(names.contains(&file.as_str()), "{file} is not produced by any case");
        }
    }
}

fn indent(s: &str) -> String {
    s.replace('\n', "\n  ")
}

/// A JSON object from already-rendered values, keeping their key order.
pub fn object(fields: &[(&str, String)]) -> String {
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("  \"{k}\": {}", indent(v))).collect();
    format!("{{\n{}\n}}", body.join(",\n"))
}

/// A JSON array from already-rendered values.
pub fn array(items: &[String]) -> String {
    if items.is_empty() {
        return "[]".into();
    }
    let body: Vec<String> = items.iter().map(|v| format!("  {}", indent(v))).collect();
    format!("[\n{}\n]", body.join(",\n"))
}

pub fn pretty<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

/// A coded error as a fixture keeps it.
pub fn error(e: &pageai_core::Error) -> (&'static str, String) {
    ("error", pretty(&ErrorBody::new(e, TRACE)))
}

/// Pretty-prints JSON text without reordering its keys.
pub fn pretty_keep_order(json: &str) -> String {
    let mut out = String::new();
    let mut indent = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = json.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}') | Some(']')) {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                    continue;
                }
                indent += 1;
                out.push('\n');
                out.push_str(&"  ".repeat(indent));
            }
            '}' | ']' => {
                indent = indent.saturating_sub(1);
                out.push('\n');
                out.push_str(&"  ".repeat(indent));
                out.push(c);
            }
            ',' => {
                out.push(',');
                out.push('\n');
                out.push_str(&"  ".repeat(indent));
            }
            ':' => out.push_str(": "),
            c => out.push(c),
        }
    }
    out
}

/// The context id an AI write of a fixture names: [`with_env`] binds it to the fixture's page.
pub const CONTEXT_ID: &str = "ctx_golden_run";

/// Runs `f` with the executor's environment of a fixture: `profile`, every scope granted, the owner's
/// role, one frozen context ([`CONTEXT_ID`], over every block of `page` with no block hashes, so the
/// calls' `baseRevision` decides as before), a fresh idempotency store, and block ids minted as
/// `b_golden{n}`.
pub fn with_env<R>(profile: &Profile, page: &Page, f: impl FnOnce(&mut Env<'_>) -> R) -> R {
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0;
    let mut mint = || {
        n += 1;
        format!("b_golden{n}")
    };
    let context = FrozenContext {
        context_id: CONTEXT_ID.into(),
        document_id: page.document_id.clone(),
        revision: page.revision,
        scope: "full".into(),
        allowed_target_block_ids: page.blocks.iter().map(|b| b.block_id.clone()).collect(),
        block_hashes: Default::default(),
    };
    let mut env = Env {
        profile,
        grants: None,
        role: Role::Owner,
        contexts: &context,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    f(&mut env)
}

/// A fixture's call `{toolName, origin, actor, at, toolCallId}` with `args`; a read it makes freezes
/// `new_context_id`.
pub fn call_of<'a>(c: &'a Value, args: &'a Value, new_context_id: &'a str) -> Call<'a> {
    Call {
        tool_name: c["toolName"].as_str().unwrap(),
        args,
        origin: from_value(c["origin"].clone()).unwrap(),
        actor: c["actor"].as_str().unwrap(),
        at: c["at"].as_str().unwrap(),
        tool_call_id: c["toolCallId"].as_str().unwrap(),
        new_context_id,
    }
}

/// The four-block weekly report the tool-result and review-session fixtures are made on (a heading, a
/// Chinese and an English paragraph, a locked block).
pub fn weekly_page() -> Value {
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
