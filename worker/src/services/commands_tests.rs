//! Page-AI commands over stores in memory: shortcut applied, shortcut held, Hermes hand-off, and `mode`.
#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::profile::ToolsPolicy;
use serde_json::Value;

use super::*;
use crate::services::test_support::{MemoryStores, in_mode, page_of};

fn page() -> Page {
    page_of(&["我们用 Rust 写内核。", "second paragraph", "third paragraph"])
}

fn command(prompt: &str, scope: Scope, mode: Option<ReviewMode>) -> CommandRequest {
    CommandRequest {
        document_id: "doc_1".into(),
        prompt: prompt.into(),
        scope,
        selection: None,
        mode,
        trace_id: None,
        run_hermes: None,
    }
}

#[test]
fn a_low_risk_replace_in_yolo_mode_is_applied_and_audited() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Yolo);
    let answer = run(&mut page, &command("把「Rust」替换为「Go」", Scope::Full, None), "tr_1", &mut memory.stores())
        .expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Applied);
    assert_eq!(answer.route.intent.as_str(), "direct_replace");
    assert_eq!(page.blocks[0].text, "我们用 Go 写内核。");
    assert_eq!(answer.page.as_ref().expect("read back").revision, 1);
    let result: Value = serde_json::from_str(answer.result.as_ref().expect("result").get()).expect("json");
    assert_eq!((result["dryRun"].as_bool(), result["newRevision"].as_u64()), (Some(false), Some(1)));
    assert_eq!(answer.review_session.as_ref().expect("a record").state, State::Applied);
    // The same events and audit entry as a Hermes call, from the shortcut.
    assert_eq!(memory.event_names(), ["tool.started", "review.updated", "tool.completed"]);
    assert!(memory.events.iter().all(|e| Some(e.run_id.as_str()) == answer.run_id.as_deref()));
    let entries = pageai_core::audit::AuditStore::entries(&memory.audit);
    assert_eq!((entries.len(), entries[0].action.as_str(), entries[0].actor.as_str()), (1, "tool.applied", "shortcut"));
    assert!(memory.contexts.by_id.contains_key(&answer.context_id), "the context is frozen");
}

#[test]
fn the_shortcut_applies_the_routers_typed_write_recorded_as_its_wire_json_would_be() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Yolo);
    let answer = run(&mut page, &command("把「Rust」替换为「Go」", Scope::Full, None), "tr_1", &mut memory.stores())
        .expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Applied);
    // The write ran typed, never parsed back from the route; the same call sent as the route's JSON (with
    // dryRun:false) is the same write: an idempotent replay of the very bytes, not a conflict.
    let recommended = answer.route.recommended_tool_call.clone().expect("a recommendation");
    let mut args = recommended.args;
    args["dryRun"] = Value::Bool(false);
    let request = tool_calls::ToolCallRequest {
        call: pageai_core::executor::SentCall::parse(recommended.tool_name, args),
        run_id: "run_h".into(),
        tool_call_id: "call_h".into(),
        trace_id: "tr_h".into(),
        origin: Origin::Hermes,
    };
    let replay = tool_calls::call(&mut page, request, &mut memory.stores()).expect("replayed");
    assert_eq!(replay.result.get(), answer.result.as_ref().expect("result").get());
    assert_eq!(page.revision, 1, "nothing written again");
}

/// The block the command inserts: its id in the session's preview, in the applied result, on the page.
fn inserted_ids(answer: &CommandAnswer, page: &Page) -> (Option<String>, Option<String>, Option<String>) {
    let session = answer.review_session.as_ref().expect("a session");
    let inserted = |result: &pageai_core::wire::ToolResultV1| {
        result.changed_blocks.iter().find(|c| c.op == "insert").map(|c| c.block_id.clone())
    };
    let previewed = session.preview.as_ref().and_then(inserted);
    let applied = session.applied.as_ref().and_then(|a| inserted(&a.result));
    let on_page = page.blocks.last().map(|b| b.block_id.clone());
    (previewed, applied, on_page)
}

#[test]
fn the_command_plans_its_write_once_and_the_previewed_block_is_the_one_that_lands() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Yolo);
    let answer = run(&mut page, &command("在末尾添加「谢谢大家」", Scope::Full, None), "tr_1", &mut memory.stores())
        .expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Applied);
    // One plan, the router's dry-run: its one inserted block's id is the only block id minted, and the
    // session's preview, the applied result and the page all show it.
    assert_eq!(memory.mint.block_ids, 1, "the write was planned more than once");
    let (previewed, applied, on_page) = inserted_ids(&answer, &page);
    assert_eq!(page.blocks.last().map(|b| b.text.as_str()), Some("谢谢大家"));
    assert!(previewed.as_deref().is_some_and(|id| id.starts_with("b_mint")), "{previewed:?}");
    assert_eq!((&previewed, &applied), (&on_page, &on_page));

    // Held for review, the proposal is the router's plan too: no second plan.
    let mut page = self::page();
    let mut memory = in_mode(ReviewMode::Review);
    let answer = run(&mut page, &command("在末尾添加「谢谢大家」", Scope::Full, None), "tr_1", &mut memory.stores())
        .expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Review);
    assert_eq!(memory.mint.block_ids, 1, "the held write was planned more than once");
    assert!(inserted_ids(&answer, &page).0.is_some_and(|id| id.starts_with("b_mint")));
}

#[test]
fn in_review_mode_the_shortcut_waits_for_the_user() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let answer =
        run(&mut page, &command("replace \"second\" with \"2nd\"", Scope::Full, None), "tr_1", &mut memory.stores())
            .expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Review);
    assert!(answer.route.requires_review);
    assert_eq!(answer.review_session.as_ref().expect("held").state, State::AwaitingUser);
    assert_eq!(page.revision, 0);
    assert!(answer.page.is_none() && answer.result.is_none());
}

#[test]
fn a_case_folded_match_is_held_for_review_even_in_yolo_mode() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Yolo);
    let answer =
        run(&mut page, &command("replace \"SECOND\" with \"2nd\"", Scope::Full, None), "tr_1", &mut memory.stores())
            .expect("ran");
    assert!(answer.route.requires_review && !answer.route.requires_hermes_run, "{}", answer.route.reason);
    assert_eq!(answer.outcome, CommandOutcome::Review);
    assert_eq!(answer.review_session.as_ref().expect("held").state, State::AwaitingUser);
    assert_eq!(page.revision, 0, "nothing is written before the user accepts");
}

#[test]
fn mode_overrides_the_profile_but_never_relaxes_required() {
    // The rule itself is core's `ReviewMode::overridden_by`, tested there; this is the command using it.
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Required);
    let answer = run(
        &mut page,
        &command("replace \"second\" with \"2nd\"", Scope::Full, Some(ReviewMode::Yolo)),
        "tr",
        &mut memory.stores(),
    )
    .expect("ran");
    assert_eq!((answer.outcome, answer.mode), (CommandOutcome::Review, ReviewMode::Required));
}

#[test]
fn a_complex_prompt_goes_to_hermes_with_a_hint_and_a_context() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Yolo);
    let answer =
        run(&mut page, &command("把这一页润色得更专业", Scope::Full, None), "tr_1", &mut memory.stores()).expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Hermes);
    assert!(answer.route.requires_hermes_run);
    assert!(answer.route.tool_hint.is_some());
    assert!(memory.contexts.by_id.contains_key(&answer.context_id));
    assert!(memory.events.is_empty() && memory.sessions.by_id.is_empty());
    assert_eq!(page.revision, 0);
}

#[test]
fn a_write_outside_the_selection_is_not_recommended() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Yolo);
    let scope = Scope::Selection { block_ids: vec!["p_2".into()] };
    let answer = run(&mut page, &command("replace \"third\" with \"3rd\"", scope, None), "tr", &mut memory.stores())
        .expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Hermes);
    // The router looks for the text only inside the selection, so it is not found there.
    let code = answer.route.reason_code.map(|c| c.as_str());
    assert!(matches!(code, Some("out_of_selection" | "match_not_found")), "{code:?}");
    assert!(answer.route.recommended_tool_call.is_none());
    assert_eq!(page.blocks[2].text, "third paragraph");
}

#[test]
fn a_disabled_write_tool_is_neither_recommended_nor_run() {
    let mut page = page();
    let mut memory = MemoryStores::new(Profile {
        tools: ToolsPolicy { disabled: vec!["mnote.doc.apply_block_ops".into()] },
        review_mode: ReviewMode::Yolo,
    });
    let answer =
        run(&mut page, &command("replace \"second\" with \"2nd\"", Scope::Full, None), "tr", &mut memory.stores())
            .expect("ran");
    assert_eq!(answer.outcome, CommandOutcome::Hermes);
    assert!(answer.route.recommended_tool_call.is_none());
    assert_eq!(answer.route.reason_code.map(|c| c.as_str()), Some("tool_disabled"));
    assert_eq!(page.revision, 0);
}
