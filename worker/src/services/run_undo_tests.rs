//! Undo of a Hermes run over stores in memory: one write, one audit entry, an event per session; a later
//! edit to a run block previews first; replays, refusals and roles.
#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::audit::AuditStore;
use pageai_core::policy::Role;
use pageai_core::profile::ReviewMode;
use pageai_core::review::State;
use serde_json::{Value, json};

use super::*;
use crate::identity::Acting;
use crate::services::reviews::{self, ReviewAction};
use crate::services::test_support::{MemoryStores, hermes_call, in_mode, json_of, page_of};
use crate::services::tool_calls;

fn page() -> Page {
    page_of(&["alpha one", "beta two", "gamma"])
}

/// Hermes run `run_id` writes `text` into `block` (held, then accepted by an editor); answers the session id.
fn run_writes(page: &mut Page, memory: &mut MemoryStores, run_id: &str, block: &str, text: &str) -> String {
    let args = json!({
        "documentId": "doc_1", "baseRevision": page.revision, "dryRun": false,
        "idempotencyKey": format!("k_{run_id}_{block}"), "contextId": memory.frozen_page(page),
        "operations": [{"op": "update", "blockId": block, "text": text}],
    });
    let mut request = hermes_call("doc_apply_block_ops", args);
    request.run_id = run_id.into();
    let id = tool_calls::call(page, request, &mut memory.stores()).expect("held").review_session.expect("a session");
    let accept = ReviewAction::Accept(pageai_core::review::AcceptRequest {
        block_ids: None,
        idempotency_key: format!("k_accept_{}", id.session_id),
    });
    reviews::act(page, &id.session_id, &accept, &mut memory.stores()).expect("accepted");
    id.session_id
}

/// A person edits `block` directly.
fn person_edits(page: &mut Page, block: &str, text: &str) {
    let index = page.blocks.iter().position(|b| b.block_id == block).expect("block");
    page.blocks[index].text = text.into();
    page.revision += 1;
}

fn undo_of(page: &mut Page, memory: &mut MemoryStores, key: &str, confirm: Option<u64>) -> Result<Value, Error> {
    let request = UndoRunRequest { idempotency_key: key.into(), confirm_revision: confirm };
    undo(page, "run_1", &request, &mut memory.stores()).map(|json| json_of(&json))
}

fn state(memory: &MemoryStores, id: &str) -> State {
    memory.sessions.by_id[id].0.state
}

#[test]
fn an_undo_is_one_write_one_audit_entry_and_an_event_per_session() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let first = run_writes(&mut page, &mut memory, "run_1", "p_1", "ALPHA");
    let other = run_writes(&mut page, &mut memory, "run_2", "p_3", "GAMMA");
    let second = run_writes(&mut page, &mut memory, "run_1", "p_2", "BETA");
    let (revision, audited) = (page.revision, memory.audit.len());
    memory.events.clear();
    memory.writes.clear();

    let answer = undo_of(&mut page, &mut memory, "k_undo", None).expect("undone");
    assert_eq!((answer["schema"].as_str(), answer["outcome"].as_str()), (Some("mnote.run_undo.v1"), Some("undone")));
    assert_eq!(answer["sessionIds"], json!([second, first]));
    let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["alpha one", "beta two", "GAMMA"], "the other run's write stays");
    assert_eq!(page.revision, revision + 1);
    assert_eq!((state(&memory, &first), state(&memory, &second)), (State::Reverted, State::Reverted));
    assert_eq!(state(&memory, &other), State::Applied);
    assert_eq!(memory.writes.len(), 1, "one page change on the live channel");
    assert_eq!(memory.event_names(), ["review.updated", "review.updated"]);
    let entries = memory.audit.entries();
    assert_eq!(entries.len(), audited + 1, "one audit entry");
    let last = entries.last().expect("entry");
    assert_eq!((last.action.as_str(), last.revision), ("review.undo_run", page.revision));
    assert!(last.summary.contains(&first) && last.summary.contains(&second), "{}", last.summary);
    pageai_core::audit::verify(&entries).expect("the chain verifies");

    let again = undo_of(&mut page, &mut memory, "k_undo", None).expect("replayed");
    assert_eq!(again, answer);
    assert_eq!((page.revision, memory.audit.len()), (revision + 1, audited + 1), "a replay records nothing");
    let e = undo_of(&mut page, &mut memory, "k_undo_2", None).expect_err("all undone");
    assert_eq!(e.code().as_str(), "mnote_run_already_undone");
}

#[test]
fn a_later_edit_previews_records_nothing_and_a_confirm_writes() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    run_writes(&mut page, &mut memory, "run_1", "p_1", "ALPHA");
    run_writes(&mut page, &mut memory, "run_1", "p_2", "BETA");
    person_edits(&mut page, "p_2", "BETA, said a person");
    let (revision, audited) = (page.revision, memory.audit.len());
    memory.events.clear();

    let shown = undo_of(&mut page, &mut memory, "k_undo", None).expect("previewed");
    assert_eq!(shown["outcome"], "needs_confirm");
    assert_eq!(shown["changedBlockIds"], json!(["p_2"]));
    assert_eq!(shown["preview"]["dryRun"], true);
    assert_eq!((page.revision, memory.audit.len(), memory.events.len()), (revision, audited, 0), "nothing recorded");
    assert_eq!(page.blocks[1].text, "BETA, said a person");

    let done = undo_of(&mut page, &mut memory, "k_undo", shown["revision"].as_u64()).expect("confirmed");
    assert_eq!(done["outcome"], "undone");
    let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["alpha one", "beta two", "gamma"]);
    assert_eq!(memory.audit.len(), audited + 1);
}

#[test]
fn viewers_unknown_runs_and_runs_still_in_review_are_refused() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let e = undo_of(&mut page, &mut memory, "k", None).expect_err("no such run");
    assert_eq!(e.code().as_str(), "mnote_run_not_found");
    run_writes(&mut page, &mut memory, "run_1", "p_1", "ALPHA");
    memory.acting = Acting { user: "vera".into(), role: Role::Viewer };
    let e = undo_of(&mut page, &mut memory, "k", None).expect_err("a viewer");
    assert_eq!(e.code().as_str(), "mnote_role_forbidden");
    assert_eq!(page.blocks[0].text, "ALPHA");

    let mut page = self::page();
    let mut memory = in_mode(ReviewMode::Review);
    let args = json!({
        "documentId": "doc_1", "baseRevision": 0, "dryRun": false, "idempotencyKey": "k_held",
        "contextId": memory.frozen_page(&page), "operations": [{"op": "update", "blockId": "p_1", "text": "X"}],
    });
    tool_calls::call(&mut page, hermes_call("doc_apply_block_ops", args), &mut memory.stores()).expect("held");
    let e = undo_of(&mut page, &mut memory, "k", None).expect_err("nothing applied");
    assert_eq!(e.code().as_str(), "mnote_run_nothing_to_undo");
}
