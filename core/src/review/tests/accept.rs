//! Accept: replays, stale pages and partial accepts.

use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;
use serde_json::json;

use super::*;

#[test]
fn accept_applies_once_and_replays_byte_for_byte() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]));
    let first = h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    assert!(!first.replayed);
    assert_eq!(first.applied.as_ref().unwrap().new_revision, Some(8));
    assert_eq!(session.state, State::Applied);
    assert_eq!(page.revision, 8);
    let answer: ReviewAnswerV1 = serde_json::from_str(&first.json).unwrap();
    assert_eq!(answer.state, State::Applied);
    assert_eq!(answer.result.as_ref().unwrap().audit.actor, "user_1");

    let again = h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    assert!(again.replayed && again.applied.is_none());
    assert_eq!(again.json, first.json);
    assert_eq!(page.revision, 8, "a replay writes nothing");

    let e = h.accept(&mut session, &mut page, Some(&["p_1"]), "k_accept").unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_idempotency_conflict");
    let e = h.accept(&mut session, &mut page, None, "k_other").unwrap_err();
    assert_eq!(
        e,
        Error::ReviewInvalidTransition {
            state: "applied".into(),
            action: "accept".into(),
            allowed: vec!["revert".into()],
        }
    );
    assert_eq!(page.revision, 8);
}

#[test]
fn accept_after_a_touched_block_changed_goes_stale_with_a_fresh_preview_and_writes_nothing() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(&mut page, json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]));
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_1", "text": "第一版计划，周四发布。"}]), "k_edit");
    let edited = page.clone();

    let answer = h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    assert_eq!(page, edited, "a stale accept never applies");
    assert!(answer.applied.is_none());
    assert_eq!(session.state, State::Stale);
    let body: ReviewAnswerV1 = serde_json::from_str(&answer.json).unwrap();
    assert_eq!(body.state, State::Stale);
    let stale = body.stale.unwrap();
    assert_eq!(stale.current_revision, 8);
    assert_eq!(stale.current_conflict_detection_key, page.conflict_detection_key());
    let fresh = stale.preview.unwrap();
    assert_eq!(fresh.base_revision, 8);
    assert!(fresh.dry_run);
    assert_eq!(fresh.changed_blocks[0].after.as_deref(), Some("第二版计划，周四发布。"));
    assert_eq!(session.stale.as_ref().unwrap().preview.as_ref(), Some(&fresh));

    // The same key replays the stale answer; a new key cannot accept a stale session.
    assert_eq!(h.accept(&mut session, &mut page, None, "k_accept").unwrap().json, answer.json);
    let e = h.accept(&mut session, &mut page, None, "k_accept2").unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_review_invalid_transition");
    assert_eq!(page, edited);

    // A retry re-previews against the current page; then the accept applies.
    h.retry(&mut session, &mut page, "call_2", None).unwrap();
    assert_eq!(session.state, State::AwaitingUser);
    assert_eq!(session.base.revision, 8);
    assert!(session.stale.is_none());
    h.accept(&mut session, &mut page, None, "k_accept3").unwrap();
    assert_eq!(page.revision, 9);
    assert_eq!(page.blocks[1].text, "第二版计划，周四发布。");
}

#[test]
fn accept_after_edits_to_other_blocks_applies_onto_the_current_page_and_says_so() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([
            {"op": "replace", "matchText": "第一版", "content": "第二版"},
            {"op": "insert_after", "afterBlockId": "p_2", "block": {"type": "paragraph", "text": "新段落"}}
        ]),
    );
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "Notes!"}]), "k_edit");
    h.edit(
        &mut page,
        json!([{"op": "insert_after", "afterBlockId": "h_1", "block": {"type": "paragraph", "text": "他人"}}]),
        "k_edit2",
    );

    let answer = h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    let result = answer.applied.unwrap();
    assert_eq!(session.state, State::Applied);
    assert_eq!((result.base_revision, result.new_revision), (9, Some(10)));
    let rebased = result.warnings.iter().find(|w| w.code == "rebased").unwrap();
    assert_eq!(
        rebased.message,
        "the change was made against revision 7; the blocks it touches are unchanged, so it applied on revision 9"
    );
    assert_eq!(session.base.revision, 7, "the session keeps its base");
    assert_eq!(page.block("p_1").unwrap().text, "第二版计划，周五发布。");
    assert_eq!(page.block("p_3").unwrap().text, "Notes!", "the other edits stay");
    assert_eq!(page.blocks[1].text, "他人");
    let body: ReviewAnswerV1 = serde_json::from_str(&answer.json).unwrap();
    assert_eq!(body.result.unwrap().warnings, result.warnings);
}

#[test]
fn an_edit_to_an_anchor_makes_the_accept_stale_and_a_partial_accept_only_minds_its_own_blocks() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let ops = json!([
        {"op": "update", "blockId": "p_1", "text": "新计划"},
        {"op": "insert_after", "afterBlockId": "p_2", "block": {"type": "paragraph", "text": "新段落"}}
    ]);
    let mut session = h.propose(&mut page, ops.clone());
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_2", "text": "The API is final."}]), "k_edit");
    h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    assert_eq!(session.state, State::Stale, "p_2 anchors the insert");

    let mut session = h.propose(&mut page, ops);
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_2", "text": "The API is final again."}]), "k_edit2");
    let answer = h.accept(&mut session, &mut page, Some(&["p_1"]), "k_part").unwrap();
    assert_eq!(session.state, State::Applied, "the chosen part does not touch p_2");
    assert_eq!(answer.applied.unwrap().warnings[0].code, "rebased");
    assert_eq!(page.block("p_1").unwrap().text, "新计划");
}

#[test]
fn a_stale_proposal_that_no_longer_applies_says_why() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session =
        h.propose(&mut page, json!([{"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"}]));
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_1", "text": "重写了"}]), "k_edit");
    h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    let stale = session.stale.as_ref().unwrap();
    assert!(stale.preview.is_none());
    let error = stale.error.as_ref().unwrap();
    assert_eq!(error.code, "mnote_match_not_found");
    assert_eq!(error.trace_id, "trace_1");
}

#[test]
fn partial_accept_applies_only_the_chosen_blocks() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    // A block-less replace that hits two blocks, plus an update of a third.
    let mut session = h.propose(
        &mut page,
        json!([
            {"op": "replace", "matchText": "发布", "content": "上线", "occurrence": "all"},
            {"op": "replace", "matchText": "draft", "content": "final", "occurrence": "all"},
            {"op": "update", "blockId": "p_3", "text": "Notizen"}
        ]),
    );
    let changed: Vec<&str> =
        session.preview.as_ref().unwrap().changed_blocks.iter().map(|c| c.block_id.as_str()).collect();
    assert_eq!(changed, ["p_1", "p_2", "p_3"]);
    let answer = h.accept(&mut session, &mut page, Some(&["p_2", "p_3"]), "k_part").unwrap();
    let result = answer.applied.unwrap();
    let ids: Vec<&str> = result.changed_blocks.iter().map(|c| c.block_id.as_str()).collect();
    assert_eq!(ids, ["p_2", "p_3"]);
    assert_eq!(
        texts(&page)[1..4],
        [("p_1", "第一版计划，周五发布。"), ("p_2", "The API is final. Ship the final."), ("p_3", "Notizen")]
    );
    let applied = session.applied.as_ref().unwrap();
    assert_eq!(applied.block_ids.as_deref(), Some(&["p_2".to_string(), "p_3".to_string()][..]));
    assert_eq!(page.revision, 8);
}

#[test]
fn partial_accept_keeps_the_after_texts_the_preview_showed() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([
            {"op": "replace", "matchText": "周五", "content": "周四"},
            {"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"},
            {"op": "insert_after", "afterBlockId": "p_3", "block": {"type": "paragraph", "text": "新段落"}},
            {"op": "move", "blockId": "p_2", "afterBlockId": "h_1"}
        ]),
    );
    let preview = session.preview.clone().unwrap();
    let inserted = preview.changed_blocks.iter().find(|c| c.op == "insert").unwrap().block_id.clone();
    h.accept(&mut session, &mut page, Some(&["p_1", inserted.as_str()]), "k_part").unwrap();
    let p1 = preview.changed_blocks.iter().find(|c| c.block_id == "p_1").unwrap();
    assert_eq!(page.block("p_1").unwrap().text, p1.after.clone().unwrap());
    assert_eq!(page.block(&inserted).unwrap().text, "新段落");
    assert_eq!(page.position("p_2"), Some(2), "the move was not chosen");
}

#[test]
fn a_bad_choice_of_blocks_changes_nothing() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([
            {"op": "insert_after", "afterBlockId": "p_1", "block": {"blockId": "n_1", "type": "paragraph", "text": "one"}},
            {"op": "insert_after", "afterBlockId": "n_1", "block": {"blockId": "n_2", "type": "paragraph", "text": "two"}}
        ]),
    );
    let before = session.clone();
    let e = h.accept(&mut session, &mut page, Some(&["p_3"]), "k1").unwrap_err();
    assert_eq!(e, Error::invalid("/blockIds/0", "block \"p_3\" has no change in this proposal"));
    let e = h.accept(&mut session, &mut page, Some(&[]), "k2").unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
    // n_2 hangs off n_1: choosing it alone fails validation as a batch.
    let e = h.accept(&mut session, &mut page, Some(&["n_2"]), "k3").unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_block_not_found");
    assert_eq!(session, before);
    assert_eq!(page.revision, 7);
    h.accept(&mut session, &mut page, Some(&["n_1", "n_2"]), "k4").unwrap();
    assert_eq!(page.position("n_2"), Some(3));
}
