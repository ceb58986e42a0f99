//! Unit tests of the review services: a harness around the executor, then the propose paths here, the
//! accept, stale and partial paths in `accept`, and reject, abort, retry, revert and storage in `lifecycle`.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde_json::{Value, json};

use super::*;
use crate::error::Error;
use crate::executor::idempotency::MemoryIdempotencyStore;
use crate::executor::{Call, Env, FrozenContext, Origin, execute};
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
    p = p.at_revision(7);
    p
}

struct Harness {
    profile: Profile,
    store: MemoryIdempotencyStore,
    contexts: BTreeMap<String, FrozenContext>,
    minted: u32,
}

impl Harness {
    fn new(mode: ReviewMode) -> Self {
        Harness {
            profile: Profile { review_mode: mode, ..Profile::default() },
            store: MemoryIdempotencyStore::new(),
            contexts: BTreeMap::new(),
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
            role: crate::policy::Role::Owner,
            contexts: &self.contexts,
            idempotency: &mut self.store,
            mint: &mut mint,
            suggestions: &[],
        };
        let out = f(&mut env);
        self.minted = minted;
        out
    }

    fn propose_as(
        &mut self,
        page: &mut Page,
        tool: &str,
        mut args: Value,
        origin: Origin,
    ) -> crate::Result<ReviewSessionV1> {
        // An AI write that a `yolo` session applies is bound to its run's context, as the executor requires:
        // here one over the whole page as it is. A held proposal only previews, and needs none.
        let applies = self.profile.review_mode == ReviewMode::Yolo;
        if applies && origin.is_ai() && args.get("contextId").is_none() {
            self.contexts.insert("ctx_page".into(), FrozenContext::whole_page(page, "ctx_page"));
            args["contextId"] = json!("ctx_page");
        }
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
            let typed = call.typed()?;
            let request = ProposeRequest { session_id: "rs_1", run_id: "run_1", trace_id: "trace_1", call: &typed };
            propose(page, &request, env)
        })
    }

    fn propose(&mut self, page: &mut Page, ops: Value) -> ReviewSessionV1 {
        let args = ops_args(page, ops);
        self.propose_as(page, "mnote.doc.apply_block_ops", args, Origin::Hermes).unwrap()
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

    fn revert(&mut self, session: &mut ReviewSessionV1, page: &mut Page, key: &str) -> crate::Result<Answer> {
        let request = RevertRequest { idempotency_key: key.into() };
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
    Stamp { actor: "user_1", at: LATER }
}

fn ops_args(page: &Page, ops: Value) -> Value {
    json!({
        "documentId": page.document_id, "baseRevision": page.revision, "operations": ops,
        "dryRun": false, "idempotencyKey": "k_model",
    })
}

fn texts(page: &Page) -> Vec<(&str, &str)> {
    page.blocks.iter().map(|b| (b.block_id.as_str(), b.text.as_str())).collect()
}

fn trail(session: &ReviewSessionV1) -> Vec<(State, Action, State)> {
    session.transitions.iter().map(|t| (t.from, t.action, t.to)).collect()
}

#[test]
fn a_hermes_write_waits_for_the_user_in_review_mode() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let before = page.clone();
    let session = h.propose(&mut page, json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]));
    assert_eq!(page, before, "a proposal writes nothing");
    assert_eq!(session.state, State::AwaitingUser);
    assert_eq!(session.schema, PAGE_AI_REVIEW_SESSION_V1);
    assert_eq!(session.mode, ReviewMode::Review);
    assert_eq!(session.base.revision, 7);
    assert_eq!(session.base.conflict_detection_key, page.conflict_detection_key());
    assert_eq!(session.base.allowed_target_block_ids, None);
    assert_eq!(session.source.tool_name, "mnote.doc.apply_block_ops");
    let preview = session.preview.as_ref().unwrap();
    assert!(preview.dry_run && preview.blocked);
    assert_eq!(preview.changed_blocks[0].after.as_deref(), Some("第二版计划，周五发布。"));
    assert!(session.actions.accept.allowed && session.actions.reject && session.actions.abort);
    assert!(!session.actions.revert);
    assert_eq!(
        trail(&session),
        [(State::Draft, Action::Preview, State::Previewing), (State::Previewing, Action::Present, State::AwaitingUser)]
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
    assert_eq!(applied.touched[0].revision_ref.as_deref(), Some(page.revision_ref(&page.blocks[1]).as_str()));
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
        serde_json::to_value(s).unwrap().as_object().unwrap().keys().cloned().collect()
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
    let plan = h.propose_as(&mut page, "doc_plan_update", args, Origin::Hermes).unwrap();
    assert_eq!(plan.state, State::AwaitingUser);
    assert_eq!(plan.source.tool_name, "mnote.doc.plan_update");
    assert_eq!(page.revision, 7);
}

#[test]
fn a_call_that_does_not_validate_makes_no_session() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let args = ops_args(&page, json!([{"op": "replace", "matchText": "draft", "content": "final"}]));
    let e = h.propose_as(&mut page, "mnote.doc.apply_block_ops", args, Origin::Hermes).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_match_ambiguous");
    let read = json!({"scope": {"type": "full"}});
    let e = h.propose_as(&mut page, "mnote.doc.fetch", read, Origin::Hermes).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
}

mod accept;
mod lifecycle;
mod suggest;
mod undo_run;

#[test]
fn a_persons_write_goes_straight_to_the_executor_and_an_ai_write_to_a_session() {
    let mut h = Harness::new(ReviewMode::Required);
    let page = page();
    let args = ops_args(&page, json!([{"op": "update", "blockId": "p_3", "text": "x"}]));
    let submitted = |h: &mut Harness, origin| {
        let call = Call {
            tool_name: "mnote.doc.apply_block_ops",
            args: &args,
            origin,
            actor: "someone",
            at: AT,
            tool_call_id: "call_1",
            new_context_id: "",
        };
        h.with_env(|env| submit(&page, &call.typed().unwrap(), env).unwrap())
    };
    assert_eq!(submitted(&mut h, Origin::User), Submission::Execute);
    assert_eq!(submitted(&mut h, Origin::ReviewAccept), Submission::Execute);
    assert!(matches!(submitted(&mut h, Origin::Hermes), Submission::Session(_)));
    assert!(matches!(submitted(&mut h, Origin::Shortcut), Submission::Session(_)));
}
