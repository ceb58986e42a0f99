//! Review actions over stores in memory: accept (whole, stale, replayed), reject, abort, retry, revert.
#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::audit::AuditStore;
use pageai_core::profile::ReviewMode;
use pageai_core::review::State;
use serde_json::json;

use super::*;
use crate::services::test_support::{MemoryStores, hermes_call, in_mode, json_of, page_of};
use crate::services::tool_calls;

fn page() -> Page {
    page_of(&["alpha one", "beta two", "gamma"])
}

/// A held two-block proposal from Hermes; answers its session id.
fn held(page: &mut Page, memory: &mut MemoryStores) -> String {
    let args = json!({
        "documentId": "doc_1", "baseRevision": page.revision, "dryRun": true, "idempotencyKey": "k_model",
        "contextId": memory.frozen_page(page),
        "operations": [
            {"op": "replace", "blockId": "p_1", "matchText": "alpha", "content": "ALPHA"},
            {"op": "replace", "blockId": "p_2", "matchText": "beta", "content": "BETA"},
        ],
    });
    let request = hermes_call("doc_apply_block_ops", args);
    let reply = tool_calls::call(page, request, &mut memory.stores()).expect("held");
    reply.review_session.expect("a session").session_id
}

fn memory() -> MemoryStores {
    in_mode(ReviewMode::Review)
}

fn accept(key: &str, block_ids: Option<Vec<&str>>) -> ReviewAction {
    ReviewAction::Accept(AcceptRequest {
        block_ids: block_ids.map(|ids| ids.into_iter().map(String::from).collect()),
        idempotency_key: key.into(),
    })
}

#[test]
fn accept_applies_records_and_replays() {
    let mut page = page();
    let mut memory = memory();
    let id = held(&mut page, &mut memory);
    let audit_before = memory.audit.len();
    let answer = act(&mut page, &id, &accept("k_accept", None), &mut memory.stores()).expect("accepted");
    assert_eq!(json_of(&answer)["state"], "applied");
    assert_eq!(
        (page.revision, page.blocks[0].text.as_str(), page.blocks[1].text.as_str()),
        (1, "ALPHA one", "BETA two")
    );
    let entries = memory.audit.entries();
    assert_eq!(entries.len(), audit_before + 1);
    let last = entries.last().expect("an entry");
    assert_eq!((last.action.as_str(), last.actor.as_str(), last.revision), ("review.accept", "user", 1));
    pageai_core::audit::verify(&entries).expect("the chain verifies");

    let again = act(&mut page, &id, &accept("k_accept", None), &mut memory.stores()).expect("replayed");
    assert_eq!(again, answer, "byte for byte");
    assert_eq!((page.revision, memory.audit.len()), (1, audit_before + 1), "a replay records nothing");
}

#[test]
fn accepting_after_a_touched_block_changed_is_stale_with_a_fresh_preview() {
    let mut page = page();
    let mut memory = memory();
    let id = held(&mut page, &mut memory);
    page.blocks[1].text = "beta two, changed".into();
    page.revision += 1;
    let answer = json_of(&act(&mut page, &id, &accept("k_accept", None), &mut memory.stores()).expect("stale"));
    assert_eq!(answer["state"], "stale");
    assert_eq!(answer["stale"]["currentRevision"], 1);
    assert_eq!(answer["stale"]["preview"]["baseRevision"], 1);
    assert_eq!((page.blocks[0].text.as_str(), page.revision), ("alpha one", 1), "nothing applied");
    assert_eq!(memory.audit.entries().last().expect("entry").action, "review.stale");
}

#[test]
fn accepting_after_an_edit_elsewhere_applies_onto_the_current_page() {
    let mut page = page();
    let mut memory = memory();
    let id = held(&mut page, &mut memory);
    page.blocks[2].text = "gamma changed".into();
    page.revision += 1;
    let answer = json_of(&act(&mut page, &id, &accept("k_accept", None), &mut memory.stores()).expect("accepted"));
    assert_eq!(answer["state"], "applied");
    assert_eq!(
        (answer["result"]["baseRevision"].as_u64(), answer["result"]["newRevision"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(answer["result"]["warnings"][0]["code"], "rebased");
    assert_eq!(page.blocks[2].text, "gamma changed");
    assert_eq!(memory.audit.entries().last().expect("entry").action, "review.accept");
}

#[test]
fn partial_accept_applies_only_the_chosen_blocks() {
    let mut page = page();
    let mut memory = memory();
    let id = held(&mut page, &mut memory);
    act(&mut page, &id, &accept("k_accept", Some(vec!["p_2"])), &mut memory.stores()).expect("accepted");
    assert_eq!((page.blocks[0].text.as_str(), page.blocks[1].text.as_str()), ("alpha one", "BETA two"));
}

#[test]
fn reject_and_abort_write_nothing_and_end_the_session() {
    for (action, state, audit_action) in
        [(ReviewAction::Reject, "rejected", "review.reject"), (ReviewAction::Abort, "aborted", "review.abort")]
    {
        let mut page = page();
        let mut memory = memory();
        let id = held(&mut page, &mut memory);
        let session = json_of(&act(&mut page, &id, &action, &mut memory.stores()).expect("moved"));
        assert_eq!(session["state"], state);
        assert_eq!(page.revision, 0);
        assert_eq!(memory.audit.entries().last().expect("entry").action, audit_action);
        assert_eq!(memory.event_names().last().map(String::as_str), Some("review.updated"));
        let late = act(&mut page, &id, &accept("k", None), &mut memory.stores()).expect_err("final");
        assert_eq!(late.code().as_str(), "mnote_review_invalid_transition");
    }
}

#[test]
fn retry_previews_again_and_revert_undoes_an_accept() {
    let mut page = page();
    let mut memory = memory();
    let id = held(&mut page, &mut memory);
    let retry = ReviewAction::Retry(RetryRequest { tool_call_id: "call_2".into(), operations: None });
    let session = json_of(&act(&mut page, &id, &retry, &mut memory.stores()).expect("retried"));
    assert_eq!((session["state"].as_str(), session["toolCallId"].as_str()), (Some("awaiting_user"), Some("call_2")));
    let reuse = act(&mut page, &id, &retry, &mut memory.stores()).expect_err("a retry needs a new toolCallId");
    assert_eq!(reuse.code().as_str(), "mnote_invalid_arguments");

    act(&mut page, &id, &accept("k_accept", None), &mut memory.stores()).expect("accepted");
    let revert = ReviewAction::Revert(RevertRequest { idempotency_key: "k_revert".into() });
    let answer = json_of(&act(&mut page, &id, &revert, &mut memory.stores()).expect("reverted"));
    assert_eq!(answer["state"], "reverted");
    assert_eq!((page.revision, page.blocks[0].text.as_str()), (2, "alpha one"));
    assert_eq!(memory.sessions.by_id[&id].0.state, State::Reverted);
}

#[test]
fn unknown_sessions_are_not_found() {
    let mut page = page();
    let mut memory = memory();
    let error = act(&mut page, "rs.doc_1.nope", &ReviewAction::Get, &mut memory.stores()).expect_err("unknown");
    assert_eq!(error.code().as_str(), "mnote_review_session_not_found");
}

#[path = "reviews_suggestions_tests.rs"]
mod suggestions;
