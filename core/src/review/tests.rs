use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde_json::{Value, json};

use super::*;
use crate::error::Error;
use crate::executor::idempotency::MemoryIdempotencyStore;
use crate::executor::{Call, Env, NoContexts, Origin, execute};
use crate::page::{Block, Page};
use crate::profile::{Profile, ReviewMode};

const AT: &str = "2026-11-30T08:00:00Z";
const LATER: &str = "2026-11-30T08:05:00Z";

fn page() -> Page {
    let mut p = Page::new(
        "ws",
        "doc_1",
        "Plan",
        vec![
            Block::heading("h_1", 1, "计划 Plan"),
            Block::paragraph("p_1", "第一版计划，周五发布。"),
            Block::paragraph("p_2", "The API is draft. Ship the draft."),
            Block::paragraph("p_3", "Notes"),
            Block::paragraph("p_4", "Signed off.").locked(),
        ],
    )
    .unwrap();
    p.revision = 7;
    p
}

struct Harness {
    profile: Profile,
    store: MemoryIdempotencyStore,
    minted: u32,
}

impl Harness {
    fn new(mode: ReviewMode) -> Self {
        Harness {
            profile: Profile {
                review_mode: mode,
                ..Profile::default()
            },
            store: MemoryIdempotencyStore::new(),
            minted: 0,
        }
    }

    fn with_env<T>(&mut self, f: impl FnOnce(&mut Env<'_>) -> T) -> T {
        let mut minted = self.minted;
        let mut mint = || {
            minted += 1;
            alloc::format!("b_{minted:010}")
        };
        let mut env = Env {
            profile: &self.profile,
            grants: None,
            contexts: &NoContexts,
            idempotency: &mut self.store,
            mint: &mut mint,
        };
        let out = f(&mut env);
        self.minted = minted;
        out
    }

    fn propose_as(
        &mut self,
        page: &mut Page,
        tool: &str,
        args: Value,
        origin: Origin,
    ) -> crate::Result<ReviewSessionV1> {
        self.with_env(|env| {
            let call = Call {
                tool_name: tool,
                args: &args,
                origin,
                actor: "hermes",
                at: AT,
                tool_call_id: "call_1",
                new_context_id: "",
            };
            let request = ProposeRequest {
                session_id: "rs_1",
                run_id: "run_1",
                trace_id: "trace_1",
                call,
            };
            propose(page, &request, env)
        })
    }

    fn propose(&mut self, page: &mut Page, ops: Value) -> ReviewSessionV1 {
        let args = ops_args(page, ops);
        self.propose_as(page, "mnote.doc.apply_block_ops", args, Origin::Hermes)
            .unwrap()
    }

    fn accept(
        &mut self,
        session: &mut ReviewSessionV1,
        page: &mut Page,
        block_ids: Option<&[&str]>,
        key: &str,
    ) -> crate::Result<Answer> {
        let request = AcceptRequest {
            block_ids: block_ids.map(|ids| ids.iter().map(|s| s.to_string()).collect()),
            idempotency_key: key.into(),
        };
        self.with_env(|env| accept(session, page, &request, &user(), env))
    }

    fn retry(
        &mut self,
        session: &mut ReviewSessionV1,
        page: &mut Page,
        tool_call_id: &str,
        operations: Option<Value>,
    ) -> crate::Result<()> {
        let request = RetryRequest {
            tool_call_id: tool_call_id.into(),
            operations: operations.map(|o| serde_json::from_value(o).unwrap()),
        };
        self.with_env(|env| retry(session, page, &request, &user(), env))
    }

    fn revert(
        &mut self,
        session: &mut ReviewSessionV1,
        page: &mut Page,
        key: &str,
    ) -> crate::Result<Answer> {
        let request = RevertRequest {
            idempotency_key: key.into(),
        };
        self.with_env(|env| revert(session, page, &request, &user(), env))
    }

    /// Another writer (a person in the editor) changes the page between two review steps.
    fn edit(&mut self, page: &mut Page, ops: Value, key: &str) {
        let args = json!({
            "documentId": page.document_id, "baseRevision": page.revision, "operations": ops,
            "dryRun": false, "idempotencyKey": key,
        });
        self.with_env(|env| {
            let call = Call {
                tool_name: "mnote.doc.apply_block_ops",
                args: &args,
                origin: Origin::User,
                actor: "user_2",
                at: LATER,
                tool_call_id: key,
                new_context_id: "",
            };
            execute(page, &call, env).unwrap();
        });
    }
}

fn user() -> Stamp<'static> {
    Stamp {
        actor: "user_1",
        at: LATER,
    }
}

fn ops_args(page: &Page, ops: Value) -> Value {
    json!({
        "documentId": page.document_id, "baseRevision": page.revision, "operations": ops,
        "dryRun": false, "idempotencyKey": "k_model",
    })
}

fn texts(page: &Page) -> Vec<(&str, &str)> {
    page.blocks
        .iter()
        .map(|b| (b.block_id.as_str(), b.text.as_str()))
        .collect()
}

fn trail(session: &ReviewSessionV1) -> Vec<(State, Action, State)> {
    session
        .transitions
        .iter()
        .map(|t| (t.from, t.action, t.to))
        .collect()
}

#[test]
fn a_hermes_write_waits_for_the_user_in_review_mode() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let before = page.clone();
    let session = h.propose(
        &mut page,
        json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]),
    );
    assert_eq!(page, before, "a proposal writes nothing");
    assert_eq!(session.state, State::AwaitingUser);
    assert_eq!(session.schema, PAGE_AI_REVIEW_SESSION_V1);
    assert_eq!(session.mode, ReviewMode::Review);
    assert_eq!(session.base.revision, 7);
    assert_eq!(
        session.base.conflict_detection_key,
        page.conflict_detection_key()
    );
    assert_eq!(session.base.allowed_target_block_ids, None);
    assert_eq!(session.source.tool_name, "mnote.doc.apply_block_ops");
    let preview = session.preview.as_ref().unwrap();
    assert!(preview.dry_run && preview.blocked);
    assert_eq!(
        preview.changed_blocks[0].after.as_deref(),
        Some("第二版计划，周五发布。")
    );
    assert!(session.actions.accept.allowed && session.actions.reject && session.actions.abort);
    assert!(!session.actions.revert);
    assert_eq!(
        trail(&session),
        [
            (State::Draft, Action::Preview, State::Previewing),
            (State::Previewing, Action::Present, State::AwaitingUser)
        ]
    );
}

#[test]
fn yolo_applies_an_unblocked_write_and_keeps_a_session_of_the_same_shape() {
    let mut h = Harness::new(ReviewMode::Yolo);
    let mut page = page();
    let ops = json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]);
    let session = h.propose(&mut page, ops.clone());
    assert_eq!(session.state, State::Applied);
    assert_eq!(page.revision, 8);
    assert_eq!(page.blocks[1].text, "第二版计划，周五发布。");
    let applied = session.applied.as_ref().unwrap();
    assert_eq!(applied.idempotency_key, "k_model");
    assert_eq!(applied.result.new_revision, Some(8));
    assert_eq!(
        applied.touched[0].revision_ref.as_deref(),
        Some(page.revision_ref(&page.blocks[1]).as_str())
    );
    assert_eq!(
        trail(&session),
        [
            (State::Draft, Action::Preview, State::Previewing),
            (State::Previewing, Action::Apply, State::Applying),
            (State::Applying, Action::ApplySucceeded, State::Applied)
        ]
    );
    // Same keys as a session that waits for the user.
    let mut waiting = Harness::new(ReviewMode::Review);
    let mut other = self::page();
    let held = waiting.propose(&mut other, ops);
    let keys = |s: &ReviewSessionV1| -> Vec<String> {
        serde_json::to_value(s)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(keys(&session), keys(&held));
}

#[test]
fn yolo_still_holds_high_risk_writes_and_proposals() {
    let mut h = Harness::new(ReviewMode::Yolo);
    let mut page = page();
    page.blocks.push(Block::paragraph("p_5", "five"));
    let deletes = json!([
        {"op": "delete", "blockId": "p_1"}, {"op": "delete", "blockId": "p_2"},
        {"op": "delete", "blockId": "p_3"}, {"op": "delete", "blockId": "p_5"}
    ]);
    let session = h.propose(&mut page, deletes);
    assert_eq!(session.state, State::AwaitingUser);
    assert_eq!(page.revision, 7);

    let args = json!({
        "documentId": "doc_1", "baseRevision": 7, "idempotencyKey": "k_plan",
        "operations": [{"op": "replace", "matchText": "Notes", "content": "Notizen"}],
    });
    let plan = h
        .propose_as(&mut page, "doc_plan_update", args, Origin::Hermes)
        .unwrap();
    assert_eq!(plan.state, State::AwaitingUser);
    assert_eq!(plan.source.tool_name, "mnote.doc.plan_update");
    assert_eq!(page.revision, 7);
}

#[test]
fn a_call_that_does_not_validate_makes_no_session() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let args = ops_args(
        &page,
        json!([{"op": "replace", "matchText": "draft", "content": "final"}]),
    );
    let e = h
        .propose_as(&mut page, "mnote.doc.apply_block_ops", args, Origin::Hermes)
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_match_ambiguous");
    let read = json!({"scope": {"type": "full"}});
    let e = h
        .propose_as(&mut page, "mnote.doc.fetch", read, Origin::Hermes)
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
}

#[test]
fn accept_applies_once_and_replays_byte_for_byte() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]),
    );
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

    let e = h
        .accept(&mut session, &mut page, Some(&["p_1"]), "k_accept")
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_idempotency_conflict");
    let e = h
        .accept(&mut session, &mut page, None, "k_other")
        .unwrap_err();
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
fn accept_on_a_changed_page_goes_stale_with_a_fresh_preview_and_writes_nothing() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]),
    );
    h.edit(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "Notes!"}]),
        "k_edit",
    );
    let edited = page.clone();

    let answer = h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    assert_eq!(page, edited, "a stale accept never applies");
    assert!(answer.applied.is_none());
    assert_eq!(session.state, State::Stale);
    let body: ReviewAnswerV1 = serde_json::from_str(&answer.json).unwrap();
    assert_eq!(body.state, State::Stale);
    let stale = body.stale.unwrap();
    assert_eq!(stale.current_revision, 8);
    assert_eq!(
        stale.current_conflict_detection_key,
        page.conflict_detection_key()
    );
    let fresh = stale.preview.unwrap();
    assert_eq!(fresh.base_revision, 8);
    assert!(fresh.dry_run);
    assert_eq!(
        fresh.changed_blocks[0].after.as_deref(),
        Some("第二版计划，周五发布。")
    );
    assert_eq!(
        session.stale.as_ref().unwrap().preview.as_ref(),
        Some(&fresh)
    );

    // The same key replays the stale answer; a new key cannot accept a stale session.
    assert_eq!(
        h.accept(&mut session, &mut page, None, "k_accept")
            .unwrap()
            .json,
        answer.json
    );
    let e = h
        .accept(&mut session, &mut page, None, "k_accept2")
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_review_invalid_transition");
    assert_eq!(page, edited);

    // A retry re-previews against the current page; then the accept applies.
    h.retry(&mut session, &mut page, "call_2", None).unwrap();
    assert_eq!(session.state, State::AwaitingUser);
    assert_eq!(session.base.revision, 8);
    assert!(session.stale.is_none());
    h.accept(&mut session, &mut page, None, "k_accept3")
        .unwrap();
    assert_eq!(page.revision, 9);
    assert_eq!(page.blocks[1].text, "第二版计划，周五发布。");
    assert_eq!(page.blocks[3].text, "Notes!");
}

#[test]
fn a_stale_proposal_that_no_longer_applies_says_why() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([{"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"}]),
    );
    h.edit(
        &mut page,
        json!([{"op": "update", "blockId": "p_1", "text": "重写了"}]),
        "k_edit",
    );
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
    let changed: Vec<&str> = session
        .preview
        .as_ref()
        .unwrap()
        .changed_blocks
        .iter()
        .map(|c| c.block_id.as_str())
        .collect();
    assert_eq!(changed, ["p_1", "p_2", "p_3"]);
    let answer = h
        .accept(&mut session, &mut page, Some(&["p_2", "p_3"]), "k_part")
        .unwrap();
    let result = answer.applied.unwrap();
    let ids: Vec<&str> = result
        .changed_blocks
        .iter()
        .map(|c| c.block_id.as_str())
        .collect();
    assert_eq!(ids, ["p_2", "p_3"]);
    assert_eq!(
        texts(&page)[1..4],
        [
            ("p_1", "第一版计划，周五发布。"),
            ("p_2", "The API is final. Ship the final."),
            ("p_3", "Notizen")
        ]
    );
    let applied = session.applied.as_ref().unwrap();
    assert_eq!(
        applied.block_ids.as_deref(),
        Some(&["p_2".to_string(), "p_3".to_string()][..])
    );
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
    let inserted = preview
        .changed_blocks
        .iter()
        .find(|c| c.op == "insert")
        .unwrap()
        .block_id
        .clone();
    h.accept(
        &mut session,
        &mut page,
        Some(&["p_1", inserted.as_str()]),
        "k_part",
    )
    .unwrap();
    let p1 = preview
        .changed_blocks
        .iter()
        .find(|c| c.block_id == "p_1")
        .unwrap();
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
    let e = h
        .accept(&mut session, &mut page, Some(&["p_3"]), "k1")
        .unwrap_err();
    assert_eq!(
        e,
        Error::invalid(
            "/blockIds/0",
            "block \"p_3\" has no change in this proposal"
        )
    );
    let e = h
        .accept(&mut session, &mut page, Some(&[]), "k2")
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
    // n_2 hangs off n_1: choosing it alone fails validation as a batch.
    let e = h
        .accept(&mut session, &mut page, Some(&["n_2"]), "k3")
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_block_not_found");
    assert_eq!(session, before);
    assert_eq!(page.revision, 7);
    h.accept(&mut session, &mut page, Some(&["n_1", "n_2"]), "k4")
        .unwrap();
    assert_eq!(page.position("n_2"), Some(3));
}

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
    assert_eq!(
        reject(&mut rejected, &user()).unwrap_err().code().as_str(),
        "mnote_review_invalid_transition"
    );

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
    let mut session = h.propose(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "A"}]),
    );
    let e = h
        .retry(&mut session, &mut page, "call_1", None)
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
    h.retry(
        &mut session,
        &mut page,
        "call_2",
        Some(json!([{"op": "update", "blockId": "p_3", "text": "B"}])),
    )
    .unwrap();
    assert_eq!(session.tool_call_id, "call_2");
    assert_eq!(session.previous_tool_call_ids, ["call_1"]);
    assert_eq!(
        session.preview.as_ref().unwrap().changed_blocks[0]
            .after
            .as_deref(),
        Some("B")
    );
    assert_eq!(
        session.preview.as_ref().unwrap().audit.tool_call_id,
        "call_2"
    );
    for reused in ["call_1", "call_2"] {
        assert!(h.retry(&mut session, &mut page, reused, None).is_err());
    }
    assert_eq!(page.revision, 7);
}

#[test]
fn a_retry_whose_preview_fails_keeps_the_error_and_can_retry_again() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "A"}]),
    );
    h.retry(
        &mut session,
        &mut page,
        "call_2",
        Some(json!([{"op": "delete", "blockId": "p_4"}])),
    )
    .unwrap();
    assert_eq!(session.state, State::Failed);
    assert_eq!(
        session.error.as_ref().unwrap().code,
        "mnote_block_not_editable"
    );
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
    assert_eq!(
        h.revert(&mut session, &mut page, "k_revert").unwrap().json,
        answer.json
    );
    assert_eq!(
        h.revert(&mut session, &mut page, "k_revert2")
            .unwrap_err()
            .code()
            .as_str(),
        "mnote_review_invalid_transition"
    );
    assert_eq!(
        h.revert(&mut session, &mut page, "k_accept")
            .unwrap_err()
            .code()
            .as_str(),
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
    h.edit(
        &mut page,
        json!([{"op": "update", "blockId": "p_2", "text": "x"}]),
        "k_e1",
    );
    h.edit(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "mine"}]),
        "k_e2",
    );
    let before = (page.clone(), session.clone());
    let e = h.revert(&mut session, &mut page, "k_revert").unwrap_err();
    assert_eq!(
        e,
        Error::RevertConflict {
            changed: vec!["p_3".into()]
        }
    );
    assert_eq!((page.clone(), session.clone()), before);

    // Put p_3 back as the session left it: the undo is possible again and keeps the other edit.
    h.edit(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "Notizen"}]),
        "k_e3",
    );
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
    h.edit(
        &mut page,
        json!([{"op": "delete", "blockId": "p_1"}]),
        "k_e1",
    );
    let e = h.revert(&mut session, &mut page, "k_revert").unwrap_err();
    assert_eq!(
        e,
        Error::RevertConflict {
            changed: vec!["p_1".into()]
        }
    );
}

#[test]
fn a_session_round_trips_through_json() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "A"}]),
    );
    h.accept(&mut session, &mut page, None, "k_accept").unwrap();
    let json = serde_json::to_string(&session).unwrap();
    let back: ReviewSessionV1 = crate::wire::from_json(&json).unwrap();
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
    let mut session = h.propose(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "A"}]),
    );
    for n in 0..40 {
        h.retry(&mut session, &mut page, &alloc::format!("call_r{n}"), None)
            .unwrap();
    }
    assert_eq!(session.transitions.len(), MAX_TRANSITIONS);
    assert_eq!(session.transitions.last().unwrap().to, State::AwaitingUser);
}

#[test]
fn another_document_is_refused() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.propose(
        &mut page,
        json!([{"op": "update", "blockId": "p_3", "text": "A"}]),
    );
    let mut other = page.clone();
    other.document_id = "doc_2".into();
    let e = h.accept(&mut session, &mut other, None, "k").unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
    assert_eq!(session.state, State::AwaitingUser);
}
