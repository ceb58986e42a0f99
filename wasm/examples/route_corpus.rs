//! The native answers for the router corpus (`tests/fixtures/router/`), as the WASM parity test reads them.
//!
//! For every corpus line this runs core natively, exactly as `PageSession` runs it in WASM: a full-page
//! context frozen as `ctx_corpus`, `route` with the line's selection and profile and the key `idem_corpus`,
//! then a dry-run of the recommendation (origin `shortcut`, actor `corpus`, a fixed clock and tool call id,
//! inserted blocks minted `b_corpus1`, `b_corpus2`, …). It prints one JSON line per corpus line:
//! `{"id", "route", "preview", "previewError"}`, where the last three are core's JSON text, so the test can
//! compare bytes, not values.
//!
//! ```sh
//! cargo run -q -p pageai-wasm --example route_corpus > native.jsonl
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;

use pageai_core::context::{ContextRequest, Format, Scope, build_context};
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Env, FrozenContext, Origin, preview};
use pageai_core::page::{Page, Permission};
use pageai_core::profile::{Profile, ReviewMode, ToolsPolicy};
use pageai_core::route::{RouteInput, route};
use pageai_core::wire::ErrorBody;
use serde_json::{Value, json};

fn main() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/router");
    let mut pages = BTreeMap::new();
    for entry in std::fs::read_dir(fixtures.join("pages")).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        pages.insert(stem, Page::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap());
    }
    let corpus = std::fs::read_to_string(fixtures.join("corpus.jsonl")).unwrap();
    let mut out = std::io::stdout().lock();
    for raw in corpus.lines().filter(|l| !l.trim().is_empty()) {
        let line: Value = serde_json::from_str(raw).unwrap();
        let mut page = pages[line["page"].as_str().unwrap()].clone();
        page.permission = if line["permission"] == "read" { Permission::Read } else { Permission::Edit };
        let request = ContextRequest::new(Scope::Full).with_formats(&[Format::Json]);
        let context = FrozenContext::of(&build_context(&page, &request, "ctx_corpus").unwrap());
        let selection: Vec<String> = serde_json::from_value(line["selection"].clone()).unwrap();
        let profile = Profile {
            tools: ToolsPolicy { disabled: serde_json::from_value(line["profile"]["disabled"].clone()).unwrap() },
            review_mode: serde_json::from_value::<ReviewMode>(line["profile"]["reviewMode"].clone()).unwrap(),
        };
        let input = RouteInput {
            page: &page,
            context: &context,
            selection: &selection,
            profile: &profile,
            grants: None,
            idempotency_key: "idem_corpus",
        };
        let routed = route(line["prompt"].as_str().unwrap(), &input);
        let (mut dry_run, mut dry_run_error) = (Value::Null, Value::Null);
        if let Some(call) = &routed.recommended_tool_call {
            let contexts: BTreeMap<String, FrozenContext> = [(context.context_id.clone(), context.clone())].into();
            let mut store = MemoryIdempotencyStore::new();
            let mut n = 0;
            let mut mint = || {
                n += 1;
                format!("b_corpus{n}")
            };
            let mut env = Env {
                profile: &profile,
                grants: None,
                role: pageai_core::policy::Role::Owner,
                contexts: &contexts,
                idempotency: &mut store,
                mint: &mut mint,
                suggestions: &[],
            };
            let call = Call {
                tool_name: &call.tool_name,
                args: &call.args,
                origin: Origin::Shortcut,
                actor: "corpus",
                at: "2026-11-30T08:00:00Z",
                tool_call_id: "call_corpus",
                new_context_id: "",
            };
            match preview(&page, &call, &mut env) {
                Ok(outcome) => dry_run = json!(outcome.json),
                Err(e) => dry_run_error = json!(serde_json::to_string(&ErrorBody::new(&e, "")).unwrap()),
            }
        }
        let route_json = serde_json::to_string(&routed).unwrap();
        let record = json!({"id": line["id"], "route": route_json, "preview": dry_run, "previewError": dry_run_error});
        writeln!(out, "{record}").unwrap();
    }
}
