//! A person's suggestions over stores in memory: held (never written, `yolo` included), listed beside
//! Hermes' proposals, decided by the roles core's table gives, and withdrawn by their author.
#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::audit::AuditStore;
use pageai_core::policy::Role;
use pageai_core::profile::ReviewMode;
use serde_json::{Value, json};

use super::*;
use crate::identity::Acting;
use crate::services::block_edits::{self, SuggestionBody};
use crate::services::test_support::{MemoryStores, hermes_call, in_mode, json_of, page_of};
use crate::services::tool_calls;

fn page() -> Page {
    page_of(&["alpha one", "beta two", "gamma"])
}

fn edits(key: &str, block: &str, text: &str) -> SuggestionBody {
    let operations =
        serde_json::from_value(json!([{"op": "update", "blockId": block, "text": text}])).expect("operations");
    SuggestionBody { base_revision: 0, operations, idempotency_key: key.into(), revision_refs: None, reason: None }
}

fn as_person(memory: &mut MemoryStores, user: &str, role: Role) {
    memory.acting = Acting { user: user.into(), role };
}

/// `user` (holding `role`) suggests `text` for block `block`; answers the session.
fn suggest(page: &mut Page, memory: &mut MemoryStores, user: &str, role: Role, block: &str, text: &str) -> Value {
    as_person(memory, user, role);
    let key = format!("k_{user}_{block}");
    json_of(&block_edits::suggest(page, &edits(&key, block, text), "tr_1", &mut memory.stores()).expect("held"))
}

fn listed(page: &Page, memory: &MemoryStores) -> Value {
    json_of(&suggestions(page, &memory.sessions).expect("listed"))
}

#[test]
fn a_suggestion_is_held_audited_and_evented_in_every_mode() {
    for mode in [ReviewMode::Review, ReviewMode::Yolo] {
        let mut page = page();
        let mut memory = in_mode(mode);
        let session = suggest(&mut page, &mut memory, "alice", Role::Viewer, "p_1", "ALPHA one");
        assert_eq!(session["schema"], "mnote.page_ai_review_session.v1");
        assert_eq!(
            (session["state"].as_str(), session["source"]["origin"].as_str()),
            (Some("awaiting_user"), Some("user"))
        );
        assert_eq!((page.revision, page.blocks[0].text.as_str()), (0, "alpha one"), "{mode:?}: nothing written");
        let entry = memory.audit.entries().last().cloned().expect("an audit entry");
        assert_eq!((entry.action.as_str(), entry.actor.as_str()), ("review.propose", "alice"));
        assert_eq!(memory.event_names(), ["review.updated"], "what a held AI write tells the live channel");
        // The same key and edits find the same session: nothing more is recorded.
        let again = suggest(&mut page, &mut memory, "alice", Role::Viewer, "p_1", "ALPHA one");
        assert_eq!((again["sessionId"].clone(), memory.audit.len()), (session["sessionId"].clone(), 1));
    }
}

#[test]
fn a_bad_suggestion_is_refused_like_a_bad_edit() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    as_person(&mut memory, "alice", Role::Editor);
    let err =
        block_edits::suggest(&mut page, &edits("k", "p_9", "x"), "tr_1", &mut memory.stores()).expect_err("no block");
    assert_eq!(err.code().as_str(), "mnote_block_not_found");
    assert!(memory.sessions.waiting().expect("read").is_empty());
}

#[test]
fn the_list_shows_a_persons_suggestion_and_hermes_proposal_on_the_same_block() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    suggest(&mut page, &mut memory, "alice", Role::Viewer, "p_2", "beta two, reviewed");
    as_person(&mut memory, "owner", Role::Owner);
    let args = json!({
        "documentId": "doc_1", "baseRevision": 0, "dryRun": true, "idempotencyKey": "k_model",
        "contextId": memory.frozen_page(&page),
        "operations": [{"op": "replace", "blockId": "p_2", "matchText": "two", "content": "2"}],
    });
    tool_calls::call(&mut page, hermes_call("doc_apply_block_ops", args), &mut memory.stores()).expect("held");
    let list = listed(&page, &memory);
    assert_eq!(list["documentId"], "doc_1");
    let items = list["suggestions"].as_array().expect("an array");
    let who: Vec<(&str, &str, &str)> = items
        .iter()
        .map(|s| {
            (
                s["blockId"].as_str().unwrap_or(""),
                s["author"]["kind"].as_str().unwrap_or(""),
                s["state"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(who, [("p_2", "person", "pending"), ("p_2", "hermes", "pending")]);
    assert_eq!(items[0]["schema"], "mnote.suggestion.v1");
    assert_eq!(items[0]["author"]["actor"], "alice");
    assert_eq!(
        items[0]["diff"]["segments"],
        json!([{"tag": "equal", "text": "beta two"}, {"tag": "insert", "text": ", reviewed"}])
    );
}

#[test]
fn only_an_editor_or_owner_accepts_and_the_accept_is_one_write_by_them() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let session = suggest(&mut page, &mut memory, "alice", Role::Viewer, "p_1", "ALPHA one");
    let id = session["sessionId"].as_str().expect("an id").to_string();
    let accept = ReviewAction::Accept(AcceptRequest { block_ids: None, idempotency_key: "k_acc".into() });
    for (user, role) in [("alice", Role::Viewer), ("vera", Role::Viewer)] {
        as_person(&mut memory, user, role);
        let err = act(&mut page, &id, &accept, &mut memory.stores()).expect_err("a viewer cannot accept");
        assert_eq!(err.code().as_str(), "mnote_role_forbidden");
    }
    as_person(&mut memory, "eddie", Role::Editor);
    let answer = json_of(&act(&mut page, &id, &accept, &mut memory.stores()).expect("accepted"));
    assert_eq!(answer["state"], "applied");
    assert_eq!((page.revision, page.blocks[0].text.as_str()), (1, "ALPHA one"));
    let entry = memory.audit.entries().last().cloned().expect("an entry");
    assert_eq!((entry.action.as_str(), entry.actor.as_str(), entry.revision), ("review.accept", "eddie", 1));
    assert!(listed(&page, &memory)["suggestions"].as_array().expect("array").is_empty());
}

#[test]
fn the_author_withdraws_their_own_and_no_other_viewer_can() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let session = suggest(&mut page, &mut memory, "alice", Role::Viewer, "p_1", "ALPHA one");
    let id = session["sessionId"].as_str().expect("an id").to_string();
    as_person(&mut memory, "vera", Role::Viewer);
    let err = act(&mut page, &id, &ReviewAction::Reject, &mut memory.stores()).expect_err("not hers");
    assert_eq!(err.code().as_str(), "mnote_role_forbidden");
    as_person(&mut memory, "alice", Role::Viewer);
    let rejected = json_of(&act(&mut page, &id, &ReviewAction::Reject, &mut memory.stores()).expect("withdrawn"));
    assert_eq!(rejected["state"], "rejected");
    assert_eq!(page.revision, 0, "a reject writes nothing");
    assert_eq!(memory.audit.entries().last().map(|e| e.action.clone()).as_deref(), Some("review.reject"));
}

#[test]
fn the_list_shows_the_persons_reason_and_a_plans_summary() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    as_person(&mut memory, "alice", Role::Viewer);
    let mut body = edits("k_r", "p_1", "ALPHA one");
    body.reason = Some("  the heading style  ".into());
    block_edits::suggest(&mut page, &body, "tr_1", &mut memory.stores()).expect("held");
    as_person(&mut memory, "owner", Role::Owner);
    let args = json!({
        "documentId": "doc_1", "baseRevision": 0, "idempotencyKey": "k_plan", "summary": "Number the list",
        "contextId": memory.frozen_page(&page),
        "operations": [{"op": "replace", "blockId": "p_3", "matchText": "gamma", "content": "3. gamma"}],
    });
    tool_calls::call(&mut page, hermes_call("doc_plan_update", args), &mut memory.stores()).expect("held");
    let list = listed(&page, &memory);
    let reasons: Vec<(&str, &str)> = list["suggestions"]
        .as_array()
        .expect("an array")
        .iter()
        .map(|s| (s["blockId"].as_str().unwrap_or(""), s["reason"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(reasons, [("p_1", "the heading style"), ("p_3", "Number the list")]);
}

#[test]
fn too_long_a_reason_is_refused_and_holds_nothing() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let mut body = edits("k_long", "p_1", "ALPHA one");
    body.reason = Some("why ".repeat(block_edits::MAX_REASON_CHARS));
    let err = block_edits::suggest(&mut page, &body, "tr_1", &mut memory.stores()).expect_err("too long");
    assert_eq!(err.code().as_str(), "mnote_invalid_arguments");
    assert_eq!(err.details()["errors"][0]["pointer"].as_str().or(err.details()["pointer"].as_str()), Some("/reason"));
    assert!(memory.sessions.waiting().expect("read").is_empty());
}
