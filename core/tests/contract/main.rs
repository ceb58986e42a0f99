//! The contract tests: core's answers against the golden wire fixtures under `tests/fixtures/wire/`, which
//! the package (`wasm/tests`) and the Worker tests read too. One binary, one module per family of fixtures,
//! and one support module for what they share (where the fixtures are, how one is checked and rewritten,
//! the executor set-up of a fixture's call):
//!
//! | module | fixtures |
//! |---|---|
//! | `context_tools` | `v1/page_ai_context.*`, `v1/tool_result.*`, `v1/doc_search.*`, `v1/ai_tool_manifest.*`, `v1/mcp_tools_list.*`, `v1/openai_functions.*` |
//! | `review` | `v1/page_ai_review_session.*`, `v1/tool_event.*` |
//! | `live_v1` | `v1/live_event.*` |
//! | `live_v2` | `v2/live_event.*` |
//! | `route` | `v1/page_ai_command_route.*` |
//! | `suggestion` | `v1/suggestion.*` |
//! | `context_v2` | `v2/page_ai_context.*` |
//! | `run_undo` | `v1/run_undo.*` |
//!
//! Each fixture keeps its input and the answer core gives it; a test recomputes the answer from the
//! stored input. Run with `UPDATE_GOLDEN=1` to rewrite them after a deliberate change; a `v1` shape must
//! never change in a way that breaks old readers (a breaking change is a new version beside it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

mod context_tools;
mod context_v2;
mod live_v1;
mod live_v2;
mod review;
mod route;
mod run_undo;
mod suggestion;
mod support;

/// Every wire schema core lists (`wire::SCHEMA_IDS`) is spelled out in at least one golden fixture, so the
/// package and the Worker have its shape to read.
#[test]
fn every_wire_schema_has_a_golden_fixture() {
    let mut texts = Vec::new();
    for version in ["v1", "v2"] {
        for entry in std::fs::read_dir(support::dir(version)).unwrap() {
            texts.push(std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
    }
    for id in pageai_core::wire::SCHEMA_IDS {
        let quoted = format!("\"{id}\"");
        assert!(texts.iter().any(|text| text.contains(&quoted)), "no fixture holds {id}");
    }
}
