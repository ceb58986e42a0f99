//! Reject, abort, retry, revert, and sessions stored as JSON.

use alloc::vec;
use serde_json::json;

use super::*;

#[test]
fn reject_and_abort_never_write_and_close_the_session() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let ops = json!([{"op": "delete", "blockId": "p_3"}]);
    let mut rejected = h.propose(&mut page, ops.clone());
    reject(&mut rejected, &user()).unwrap();
    assert_eq!(rejected.state, State::Rejected);
    assert!(!rejected.actions.accept.allowed && !rejected.actions.retry.allowed);
    let e = h.accept(&mut rejected, &mut page, None, "k1").unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_review_invalid_transition");
    assert_eq!(reject(&mut rejected, &user()).unwrap_err().code().as_str(), "mnote_review_invalid_transition");

    let mut aborted = h.propose(&mut page, ops);
    abort(&mut aborted, &user()).unwrap();
    assert_eq!(aborted.state, State::Aborted);
    assert!(h.retry(&mut aborted, &mut page, "call_9", None).is_err());
    assert!(h.accept(&mut aborted, &mut page, None, "k2").is_err());
    assert_eq!(page, self::page());
}

#[test]
fn retry_needs_a_new_tool_call_id() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "A"}]));
    let e = h.retry(&mut session, &mut page, "call_1", None).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
    h.retry(&mut session, &mut page, "call_2", Some(json!([{"op": "update", "blockId": "p_3", "text": "B"}]))).unwrap();
    assert_eq!(session.tool_call_id, "call_2");
    assert_eq!(session.previous_tool_call_ids, ["call_1"]);
    assert_eq!(session.preview.as_ref().unwrap().changed_blocks[0].after.as_deref(), Some("B"));
    assert_eq!(session.preview.as_ref().unwrap().audit.tool_call_id, "call_2");
    for reused in ["call_1", "call_2"] {
        assert!(h.retry(&mut session, &mut page, reused, None).is_err());
    }
    assert_eq!(page.revision, 7);
}

#[test]
fn a_retry_whose_preview_fails_keeps_the_error_and_can_retry_again() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "A"}]));
    h.retry(&mut session, &mut page, "call_2", Some(json!([{"op": "delete", "blockId": "p_4"}]))).unwrap();
    assert_eq!(session.state, State::Failed);
    assert_eq!(session.error.as_ref().unwrap().code, "mnote_block_not_editable");
    h.retry(&mut session, &mut page, "call_3", None).unwrap();
    assert_eq!(session.state, State::AwaitingUser);
    assert!(session.error.is_none());
    assert_eq!(session.previous_tool_call_ids, ["call_1", "call_2"]);
}

#[test]
fn revert_undoes_a_structural_change_exactly() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let original = page.clone();
    let mut session = h.propose(
        &mut page,
        json!([
            {"op": "replace", "matchText": "draft", "content": "final", "occurrence": "all"},
            {"op": "insert_before", "beforeBlockId": "h_1", "block": {"type": "quote", "text": "引言"}},
            {"op": "update", "blockId": "p_1", "type": "heading", "attrs": {"level": 2}},
            {"op": "delete", "blockId": "p_3"},
            {"op": "move", "blockId": "p_2", "afterBlockId": null}
        ]),
    );
    h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    assert_ne!(page.blocks, original.blocks);
    let answer = h.revert(&mut session, &mut page, "k_revert").unwrap();
    assert_eq!(page.blocks, original.blocks);
    assert_eq!(page.revision, 9);
    assert_eq!(session.state, State::Reverted);
    let body: ReviewAnswerV1 = serde_json::from_str(&answer.json).unwrap();
    assert_eq!((body.action, body.state), (Action::Revert, State::Reverted));
    // Replays, and a second undo is refused.
    assert_eq!(h.revert(&mut session, &mut page, "k_revert").unwrap().json, answer.json);
    assert_eq!(
        h.revert(&mut session, &mut page, "k_revert2").unwrap_err().code().as_str(),
        "mnote_review_invalid_transition"
    );
    assert_eq!(
        h.revert(&mut session, &mut page, "k_accept").unwrap_err().code().as_str(),
        "mnote_idempotency_conflict"
    );
    assert_eq!(page.revision, 9);
}

#[test]
fn revert_refuses_when_a_touched_block_changed_since() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([
            {"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"},
            {"op": "update", "blockId": "p_3", "text": "Notizen"}
        ]),
    );
    h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    // An edit elsewhere does not block the undo of these blocks; an edit of p_3 does.
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_2", "text": "x"}]), "k_e1");
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "mine"}]), "k_e2");
    let before = (page.clone(), session.clone());
    let e = h.revert(&mut session, &mut page, "k_revert").unwrap_err();
    assert_eq!(e, Error::RevertConflict { changed: vec!["p_3".into()] });
    assert_eq!((page.clone(), session.clone()), before);

    // Put p_3 back as the session left it: the undo is possible again and keeps the other edit.
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "Notizen"}]), "k_e3");
    h.revert(&mut session, &mut page, "k_revert").unwrap();
    assert_eq!(page.block("p_1").unwrap().text, "第一版计划，周五发布。");
    assert_eq!(page.block("p_3").unwrap().text, "Notes");
    assert_eq!(page.block("p_2").unwrap().text, "x");
}

#[test]
fn revert_refuses_when_an_anchor_is_gone() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "delete", "blockId": "p_2"}]));
    h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    // The undo re-inserts p_2 after p_1; someone deleted p_1 meanwhile.
    h.edit(&mut page, json!([{"op": "delete", "blockId": "p_1"}]), "k_e1");
    let e = h.revert(&mut session, &mut page, "k_revert").unwrap_err();
    assert_eq!(e, Error::RevertConflict { changed: vec!["p_1".into()] });
}

#[test]
fn a_session_round_trips_through_json() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "A"}]));
    h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    let json = serde_json::to_string(&session).unwrap();
    let back: ReviewSessionV1 = crate::json::from_json(&json).unwrap();
    assert_eq!(back, session);
    // And a stored session keeps working: the replay survives the round trip.
    let mut back = back;
    let replay = h.accept(&mut back, &mut page, None, "k_accept").unwrap();
    assert!(replay.replayed);
}

#[test]
fn the_transition_history_is_bounded() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "A"}]));
    for n in 0..40 {
        h.retry(&mut session, &mut page, &alloc::format!("call_r{n}"), None).unwrap();
    }
    assert_eq!(session.transitions.len(), MAX_TRANSITIONS);
    assert_eq!(session.transitions.last().unwrap().to, State::AwaitingUser);
}

#[test]
fn another_document_is_refused() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "A"}]));
    let mut other = page.clone();
    other.document_id = "doc_2".into();
    let e = h.accept(&mut session, &mut other, None, "k").unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
    assert_eq!(session.state, State::AwaitingUser);
}

#[test]
fn a_session_records_its_contexts_list_as_it_is_shared_by_its_clones() {
    // Block ids whose page order is not their sorted order.
    let blocks = vec![Block::paragraph("p_9", "nine"), Block::paragraph("p_10", "ten")];
    let mut page = Page::new("ws", "doc_1", "Plan", blocks).unwrap();
    let mut h = Harness::new(ReviewMode::Yolo);
    let session = h.propose(&mut page, json!([{"op": "update", "blockId": "p_10", "text": "TEN"}]));
    assert_eq!(session.state, State::Applied);
    let ids = session.base.allowed_target_block_ids.clone().unwrap();
    assert_eq!(*ids, [String::from("p_9"), String::from("p_10")], "the context's list, in page order");
    let copy = session.clone();
    assert!(alloc::sync::Arc::ptr_eq(&ids, copy.base.allowed_target_block_ids.as_ref().unwrap()), "shared");
    let stored = serde_json::to_value(&session).unwrap();
    assert_eq!(stored["base"]["allowedTargetBlockIds"], json!(["p_9", "p_10"]), "a plain array");
    let back: ReviewSessionV1 = serde_json::from_value(stored).unwrap();
    assert_eq!(back, session);

    // A list of the call's own, with no context, is recorded sorted, once each, as before.
    let mut held = Harness::new(ReviewMode::Review);
    let mut args = ops_args(&page, json!([{"op": "update", "blockId": "p_9", "text": "NINE"}]));
    args["allowedTargetBlockIds"] = json!(["p_9", "p_10", "p_9"]);
    let session = held.propose_as(&mut page, "mnote.doc.apply_block_ops", args, Origin::Hermes).unwrap();
    assert_eq!(session.state, State::AwaitingUser);
    assert_eq!(session.base.allowed_target_block_ids.as_deref().unwrap(), ["p_10", "p_9"]);
}
