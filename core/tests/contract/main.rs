//! The contract tests: core's answers against the golden wire fixtures under `tests/fixtures/wire/`, which
//! the package (`wasm/tests`) and the Worker tests read too. One binary, one module per family of fixtures,
//! and one support module for what they share (where the fixtures are, how one is checked and rewritten,
//! the executor set-up of a fixture's call):
//!
//! | module | fixtures |
//! |---|---|
//! | `context_tools` | `v1/page_ai_context.*`, `v1/tool_result.*`, `v1/ai_tool_manifest.*`, `v1/mcp_tools_list.*`, `v1/openai_functions.*` |
//! | `review` | `v1/page_ai_review_session.*`, `v1/tool_event.*` |
//! | `live_v1` | `v1/live_event.*` |
//! | `live_v2` | `v2/live_event.*` |
//! | `route` | `v1/page_ai_command_route.*` |
//!
//! Each fixture keeps its input and the answer core gives it; a test recomputes the answer from the
//! stored input. Run with `UPDATE_GOLDEN=1` to rewrite them after a deliberate change; a `v1` shape must
//! never change in a way that breaks old readers (a breaking change is a new version beside it).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

mod context_tools;
mod live_v1;
mod live_v2;
mod review;
mod route;
mod support;
