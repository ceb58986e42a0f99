//! Unit tests of the live channel: messages from real executor writes and review sessions, the size bound,
//! following (in place, structural, gaps), and catching up.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde_json::{Value, json};

use super::*;
use crate::error::ErrorCode;
use crate::events::{self, EventIds};
use crate::executor::idempotency::MemoryIdempotencyStore;
use crate::executor::{Call, Effect, Env, FrozenContext, NoContexts, Origin, execute};
use crate::history::BlockHistory;
use crate::json::{from_json, to_json};
use crate::page::{Block, Page};
use crate::profile::{Profile, ReviewMode};
use crate::review::{self, ProposeRequest};
use crate::wire::{LiveKind, ToolEventV1, ToolResultFollowV1, ToolResultV1};

const AT: &str = "2027-01-15T08:00:00.000Z";

fn page() -> Page {
    let blocks = vec![
        Block::heading("h_1", 1, "计划 Plan"),
        Block::paragraph("p_1", "alpha"),
        Block::paragraph("p_2", "beta"),
        Block::paragraph("p_3", "gamma"),
    ];
    let mut page = Page::new("ws", "doc_1", "Plan", blocks).unwrap();
    page.revision = 4;
    page
}

/// Runs `operations` through the executor as `origin` (applied); answers the result and its events.
fn write(page: &mut Page, operations: Value, origin: Origin) -> (ToolResultV1, Vec<ToolEventV1>) {
    let args = json!({
        "documentId": page.document_id, "baseRevision": page.revision, "dryRun": false,
        "idempotencyKey": "k_1", "operations": operations, "contextId": "ctx_page",
    });
    let context = FrozenContext::whole_page(page, "ctx_page");
    let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0;
    let mut mint = || {
        n += 1;
        alloc::format!("b_new{n}")
    };
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: crate::policy::Role::Owner,
        contexts: &context,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    let call = Call {
        tool_name: "mnote.doc.apply_block_ops",
        args: &args,
        origin,
        actor: origin.actor(),
        at: AT,
        tool_call_id: "call_1",
        new_context_id: "",
    };
    let ids = EventIds {
        run_id: "run_1",
        tool_call_id: "call_1",
        tool_name: "mnote.doc.apply_block_ops",
        review_session_id: None,
        trace_id: "tr_1",
        at: AT,
    };
    let started = events::tool_started(&ids);
    let outcome = execute(page, &call, &mut env).unwrap();
    let completed = events::tool_completed(&ids, &outcome);
    let Effect::Applied(result) = outcome.effect else { panic!("not applied: {:?}", outcome.effect) };
    (result, vec![started, completed])
}

/// The ids a store would write for a change from `before` to `after`: new or changed blocks, and blocks
/// whose predecessor changed (a superset of the moved ones, which is what following needs).
fn committed(before: &Page, after: &Page, writes: &[AppliedWrite], events: &[ToolEventV1]) -> Vec<LiveEventV1> {
    let (written, deleted) = touched(writes);
    let change =
        Change { from_revision: before.revision, written: &written, deleted: &deleted, author: Author::Writes(writes) };
    messages(&Commit { page: after, at: AT, change: Some(change), events, sessions: &[] }, 11)
}

fn applied(origin: Origin, result: ToolResultV1) -> AppliedWrite {
    AppliedWrite { origin, run_id: Some("run_1".into()), review_session_id: None, result }
}

#[test]
fn a_write_is_told_between_its_tool_events_and_follows_onto_the_old_page() {
    let before = page();
    let mut after = before.clone();
    let (result, events) = write(
        &mut after,
        json!([{"op": "replace", "blockId": "p_2", "matchText": "beta", "content": "BETA"}]),
        Origin::Hermes,
    );
    let sent = committed(&before, &after, &[applied(Origin::Hermes, result)], &events);
    let kinds: Vec<_> = sent.iter().map(|m| (m.seq, m.revision, m.body.kind())).collect();
    assert_eq!(kinds, [(11, 4, LiveKind::ToolEvent), (12, 5, LiveKind::PageChanged), (13, 5, LiveKind::ToolEvent)]);
    let LiveBody::PageChanged(change) = &sent[1].body else { panic!() };
    assert_eq!((change.from_revision, change.origin, change.actor.as_str()), (4, Origin::Hermes, "hermes"));
    assert_eq!((change.run_id.as_deref(), change.tool_call_id.as_deref()), (Some("run_1"), Some("call_1")));
    assert_eq!(change.blocks.len(), 1);
    assert_eq!((change.blocks[0].text.as_str(), change.blocks[0].after_block_id.as_deref()), ("BETA", Some("p_1")));
    assert_eq!(change.blocks[0].revision_ref, after.revision_ref(&after.blocks[2]));
    assert_eq!(change.operations.len(), 1);

    let mut copy = before.clone();
    for message in &sent {
        follow(&mut copy, message).unwrap();
    }
    assert_eq!(copy, after);
}

#[test]
fn inserts_moves_and_deletes_follow_exactly() {
    let before = page();
    let mut after = before.clone();
    let operations = json!([
        {"op": "insert_after", "afterBlockId": "p_3", "block": {"type": "todo", "text": "new", "attrs": {"checked": true}}},
        {"op": "move", "blockId": "p_1", "afterBlockId": "p_3"},
        {"op": "delete", "blockId": "p_2"},
        {"op": "insert_before", "beforeBlockId": "h_1", "block": {"type": "paragraph", "text": "first"}},
    ]);
    let (result, events) = write(&mut after, operations, Origin::User);
    let sent = committed(&before, &after, &[applied(Origin::User, result)], &events);
    let mut copy = before.clone();
    for message in &sent {
        // Through JSON, as a browser gets it.
        let decoded: LiveEventV1 = from_json(&encode(message).unwrap()).unwrap();
        assert_eq!(&decoded, message);
        follow(&mut copy, &decoded).unwrap();
    }
    assert_eq!(copy, after);
    let LiveBody::PageChanged(change) = &sent[1].body else { panic!() };
    assert_eq!(change.deleted_block_ids, ["p_2"]);
    assert_eq!(change.blocks[0].after_block_id, None, "the new first block has no block before it");
}

#[test]
fn a_gap_an_old_change_or_a_forged_block_asks_for_a_resync_and_changes_nothing() {
    let before = page();
    let mut after = before.clone();
    let (result, events) =
        write(&mut after, json!([{"op": "update", "blockId": "p_1", "text": "ALPHA"}]), Origin::Shortcut);
    let sent = committed(&before, &after, &[applied(Origin::Shortcut, result)], &events);
    let change = &sent[1];

    let mut behind = before.clone();
    behind.revision = 3;
    let error = follow(&mut behind, change).unwrap_err();
    assert_eq!(error.code(), ErrorCode::LiveResync);
    assert!(error.message().starts_with("resync:"), "{}", error.message());
    assert_eq!(behind.blocks, before.blocks);

    let mut current = after.clone();
    assert_eq!(follow(&mut current, change).unwrap_err().code(), ErrorCode::LiveResync, "already applied");

    let mut forged = change.clone();
    if let LiveBody::PageChanged(c) = &mut forged.body {
        c.blocks[0].text = "not what was hashed".into();
    }
    let mut copy = before.clone();
    assert_eq!(follow(&mut copy, &forged).unwrap_err().code(), ErrorCode::LiveResync);
    assert_eq!(copy, before);

    // A tool event of a revision the copy has not reached means a change went missing.
    let mut copy = before.clone();
    assert_eq!(follow(&mut copy, &sent[2]).unwrap_err().code(), ErrorCode::LiveResync);
    assert_eq!(follow(&mut copy, &sent[0]).unwrap(), Followed { applied: false, revision: 4 });
}

#[test]
fn a_client_follows_its_own_write_from_the_result_or_refuses_and_changes_nothing() {
    let before = page();
    let mut after = before.clone();
    let operations = json!([
        {"op": "insert_after", "afterBlockId": "p_3", "block": {"type": "paragraph", "text": "new"}},
        {"op": "replace", "blockId": "p_2", "matchText": "beta", "content": "BETA"},
    ]);
    let (result, _) = write(&mut after, operations, Origin::User);
    // Through JSON, read as the package reads it.
    let result: ToolResultFollowV1 = from_json(&to_json(&result).unwrap()).unwrap();
    let mut copy = before.clone();
    assert_eq!(follow_write(&mut copy, &result), Ok(5));
    assert_eq!(copy, after);

    let code = |page: &Page, edit: &dyn Fn(&mut ToolResultFollowV1)| {
        let (mut copy, mut result) = (page.clone(), result.clone());
        edit(&mut result);
        let error = follow_write(&mut copy, &result).unwrap_err();
        assert_eq!(&copy, page, "{error:?}");
        let pointer = match &error {
            Error::InvalidArguments { pointer, .. } => Some(pointer.clone()),
            _ => None,
        };
        (error.code(), pointer)
    };
    let invalid = |at: &str| (ErrorCode::InvalidArguments, Some(String::from(at)));
    assert_eq!(code(&after, &|_| {}), (ErrorCode::RevisionConflict, None), "already followed");
    assert_eq!(code(&before, &|r| r.dry_run = true), invalid("/dryRun"));
    assert_eq!(code(&before, &|r| r.document_id = "doc_2".into()), invalid("/documentId"));
    assert_eq!(code(&before, &|r| r.new_revision = Some(7)), invalid("/newRevision"));
    assert_eq!(code(&before, &|r| r.schema = "mnote.tool_result.v9".into()).0, ErrorCode::UnsupportedSchema);
    // A copy that is not the page the server wrote to: the replay fails, or gives other changes.
    let mut other = before.clone();
    other.blocks[2].text = "changed here".into();
    assert_eq!(code(&other, &|_| {}).0, ErrorCode::MatchNotFound);
    other.blocks[2].text = "beta, changed here".into();
    assert_eq!(code(&other, &|_| {}), invalid("/changedBlocks/0"));
}

#[test]
fn a_snapshot_replaces_the_page_and_hello_checks_the_revision() {
    let mut later = page();
    later.revision = 9;
    later.blocks.truncate(2);
    let mut copy = page();
    assert_eq!(follow(&mut copy, &hello(&later, 30, AT, 0, false, LIMITS)).unwrap_err().code(), ErrorCode::LiveResync);
    assert_eq!(follow(&mut copy, &snapshot(&later, 30, AT)).unwrap(), Followed { applied: true, revision: 9 });
    assert_eq!(copy, later);
    assert!(!follow(&mut copy, &hello(&later, 30, AT, 0, true, LIMITS)).unwrap().applied);
    let mut other = later.clone();
    other.document_id = "doc_2".into();
    assert_eq!(follow(&mut copy, &snapshot(&other, 30, AT)).unwrap_err().code(), ErrorCode::InvalidArguments);
}

#[test]
fn a_proposal_is_told_with_its_stored_session_and_an_unstored_one_is_not() {
    let mut page = page();
    let profile = Profile::default();
    let mut store = MemoryIdempotencyStore::new();
    let mut mint = String::new;
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: crate::policy::Role::Owner,
        contexts: &NoContexts,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    let args = json!({"documentId": "doc_1", "baseRevision": 4, "idempotencyKey": "k_p",
        "operations": [{"op": "replace", "blockId": "p_3", "matchText": "gamma", "content": "GAMMA"}]});
    let call = Call {
        tool_name: "mnote.doc.plan_update",
        args: &args,
        origin: Origin::Hermes,
        actor: "hermes",
        at: AT,
        tool_call_id: "call_p",
        new_context_id: "",
    };
    let typed = call.typed().unwrap();
    let request = ProposeRequest { session_id: "rs.doc_1.x", run_id: "run_h", trace_id: "tr", call: &typed };
    let session = review::propose(&mut page, &request, &mut env).unwrap();
    let ids = EventIds {
        run_id: "run_h",
        tool_call_id: "call_p",
        tool_name: "mnote.doc.plan_update",
        review_session_id: None,
        trace_id: "tr",
        at: AT,
    };
    let events = vec![events::tool_started(&ids), events::review_updated(&session, AT)];
    let stored = [session.clone()];
    let sent = messages(&Commit { page: &page, at: AT, change: None, events: &events, sessions: &stored }, 1);
    assert_eq!(sent.iter().map(|m| m.body.kind()).collect::<Vec<_>>(), [LiveKind::ToolEvent, LiveKind::ReviewUpdated]);
    assert!(sent.iter().all(|m| m.revision == 4));
    let LiveBody::ReviewUpdated(told) = &sent[1].body else { panic!() };
    assert_eq!(told.session_id, "rs.doc_1.x");
    let unstored = messages(&Commit { page: &page, at: AT, change: None, events: &events, sessions: &[] }, 1);
    assert_eq!(unstored.len(), 1, "a session the command did not store is not told");
}

#[test]
fn a_person_storing_the_page_is_origin_user_and_an_unexplained_change_is_a_snapshot() {
    let before = page();
    let mut after = before.clone();
    after.revision = 5;
    after.title = "New".into();
    after.blocks[1].text = "changed".into();
    let (written, deleted) = compared(Some(&before), &after);
    after.history = BlockHistory::new(5);
    let person = Change { from_revision: 4, written: &written, deleted: &deleted, author: Author::Person("user") };
    let sent = messages(&Commit { page: &after, at: AT, change: Some(person), events: &[], sessions: &[] }, 1);
    let LiveBody::PageChanged(change) = &sent[0].body else { panic!() };
    assert_eq!((change.origin, change.title.as_str(), change.operations.len()), (Origin::User, "New", 0));
    let mut copy = before.clone();
    follow(&mut copy, &sent[0]).unwrap();
    assert_eq!(copy, after);

    let nobody = Change { author: Author::Writes(&[]), ..person };
    let sent = messages(&Commit { page: &after, at: AT, change: Some(nobody), events: &[], sessions: &[] }, 1);
    assert_eq!(sent[0].body.kind(), LiveKind::Snapshot);
}

#[test]
fn an_oversized_message_becomes_a_refetch_notice_with_the_same_envelope() {
    let mut big = page();
    big.blocks[1].text = "x".repeat(MAX_MESSAGE_BYTES);
    let message = snapshot(&big, 7, AT);
    let json = encode(&message).unwrap();
    assert!(json.len() < 1024, "{json}");
    let notice: LiveEventV1 = from_json(&json).unwrap();
    assert_eq!((notice.seq, notice.revision), (7, 4));
    let LiveBody::Refetch(refetch) = &notice.body else { panic!("{json}") };
    assert_eq!((refetch.skipped, refetch.code.as_str()), (LiveKind::Snapshot, "mnote_live_message_too_large"));
    assert!(refetch.bytes > MAX_MESSAGE_BYTES);
    let mut copy = page();
    assert_eq!(follow(&mut copy, &notice).unwrap_err().code(), ErrorCode::LiveResync);
    assert_eq!(encode(&snapshot(&page(), 7, AT)).unwrap(), to_json(&snapshot(&page(), 7, AT)).unwrap());
}

#[test]
fn decoding_refuses_a_payload_that_does_not_match_its_kind() {
    let hello = to_json(&hello(&page(), 3, AT, 0, false, LIMITS)).unwrap();
    assert!(from_json::<LiveEventV1>(&hello.replace("\"kind\":\"hello\"", "\"kind\":\"snapshot\"")).is_err());
    assert!(from_json::<LiveEventV1>(&hello.replace("\"hello\":{", "\"extra\":1,\"hello\":{")).is_err());
    let value: Value = serde_json::from_str(&hello).unwrap();
    assert_eq!(value["hello"]["limits"]["maxSockets"], 64);
}

#[test]
fn limits_close_with_coded_reasons_that_fit_a_close_frame() {
    assert!(check_socket_count(63, 64).is_ok());
    let full = check_socket_count(64, 64).unwrap_err();
    assert_eq!(full.code(), ErrorCode::LiveSocketLimit);
    assert!(close_reason(&full).starts_with("mnote_live_socket_limit: "));
    let large = check_incoming(MAX_INCOMING_BYTES + 1).unwrap_err();
    assert!(close_reason(&large).starts_with("mnote_live_message_too_large: "));
    assert!(check_incoming(MAX_INCOMING_BYTES).is_ok());
    let long = crate::Error::LiveResync { revision: 1, message_revision: 2, reason: "重".repeat(100) };
    assert!(close_reason(&long).len() <= MAX_CLOSE_REASON_BYTES);
}

#[test]
fn catching_up_replays_what_is_kept_and_snapshots_the_rest() {
    let window = LogWindow { first: Some((101, 40)), last_seq: 1100, revision: 60 };
    assert_eq!(catch_up(&window, None, None), CatchUp::Nothing);
    assert_eq!(catch_up(&window, Some(1100), None), CatchUp::Nothing);
    assert_eq!(catch_up(&window, Some(100), None), CatchUp::AfterSeq(100));
    assert_eq!(catch_up(&window, Some(99), None), CatchUp::Snapshot, "message 100 is gone");
    assert_eq!(catch_up(&window, Some(99), Some(45)), CatchUp::AfterRevision(45));
    assert_eq!(catch_up(&window, Some(5000), None), CatchUp::Snapshot, "another store's future");
    assert_eq!(catch_up(&window, None, Some(60)), CatchUp::Nothing);
    assert_eq!(catch_up(&window, None, Some(40)), CatchUp::AfterRevision(40));
    assert_eq!(catch_up(&window, None, Some(39)), CatchUp::Snapshot);
    assert_eq!(catch_up(&window, None, Some(61)), CatchUp::Snapshot);
    let empty = LogWindow { first: None, last_seq: 0, revision: 3 };
    assert_eq!(catch_up(&empty, Some(0), None), CatchUp::Nothing);
    assert_eq!(catch_up(&empty, None, Some(2)), CatchUp::Snapshot, "changes made before the channel are not kept");
}
