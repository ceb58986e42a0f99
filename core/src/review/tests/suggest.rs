//! A person's suggestions ([`suggest`]), who may decide them ([`may_act`]), and the page's suggestions as
//! `mnote.suggestion.v1` ([`suggestions`]).

use super::*;
use crate::ops::diff::SpanTag;
use crate::policy::Role;
use crate::wire::{AuthorKind, SUGGESTION_V1, SuggestionState};

impl Harness {
    /// `actor`, holding `role`, suggests `ops` on `page` (based on its current revision) as session `id`.
    fn suggest_as(
        &mut self,
        page: &mut Page,
        id: &str,
        ops: Value,
        actor: &str,
        role: Role,
    ) -> crate::Result<ReviewSessionV1> {
        let mut args = ops_args(page, ops);
        args["idempotencyKey"] = json!(alloc::format!("k_{id}"));
        self.with_env(|env| {
            env.role = role;
            let call = Call {
                tool_name: "mnote.doc.apply_block_ops",
                args: &args,
                origin: Origin::User,
                actor,
                at: AT,
                tool_call_id: id,
                new_context_id: "",
            };
            let typed = call.typed()?;
            let request = ProposeRequest { session_id: id, run_id: id, trace_id: "trace_1", call: &typed };
            suggest(page, &request, env)
        })
    }

    fn accept_as(&mut self, session: &mut ReviewSessionV1, page: &mut Page, actor: &str, key: &str) -> Answer {
        let request = AcceptRequest { block_ids: None, idempotency_key: key.into() };
        let stamp = Stamp { actor, at: LATER };
        self.with_env(|env| accept(session, page, &request, &stamp, env)).unwrap()
    }
}

fn ship_final() -> Value {
    json!([{"op": "replace", "blockId": "p_2", "matchText": "is draft", "content": "is final"}])
}

#[test]
fn a_persons_suggestion_is_held_in_every_mode_and_writes_nothing() {
    for mode in [ReviewMode::Review, ReviewMode::Required, ReviewMode::Yolo] {
        let mut h = Harness::new(mode);
        let mut page = page();
        let before = page.clone();
        let session = h.suggest_as(&mut page, "rs_p", ship_final(), "user_1", Role::Editor).unwrap();
        assert_eq!(page, before, "{mode:?}: a suggestion writes nothing, yolo included");
        assert_eq!(session.state, State::AwaitingUser, "{mode:?}");
        assert_eq!(session.source.origin, Origin::User);
        assert_eq!(session.audit.created_by, "user_1");
        let preview = session.preview.as_ref().unwrap();
        assert_eq!(preview.changed_blocks[0].after.as_deref(), Some("The API is final. Ship the draft."));
    }
}

#[test]
fn a_viewer_may_suggest_and_a_bad_edit_is_refused_by_the_same_dry_run() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let session = h.suggest_as(&mut page, "rs_v", ship_final(), "viewer_1", Role::Viewer).unwrap();
    assert_eq!(session.state, State::AwaitingUser);
    // The executor's own refusals: a locked block, a text that is not there.
    let locked = json!([{"op": "update", "blockId": "p_4", "text": "x"}]);
    let e = h.suggest_as(&mut page, "rs_l", locked, "user_1", Role::Editor).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_block_not_editable");
    let missing = json!([{"op": "replace", "blockId": "p_2", "matchText": "nowhere", "content": "x"}]);
    let e = h.suggest_as(&mut page, "rs_m", missing, "user_1", Role::Editor).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_match_not_found");
}

#[test]
fn suggest_is_for_people_and_propose_for_ai() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let args = ops_args(&page, ship_final());
    let e = h.propose_as(&mut page, "mnote.doc.apply_block_ops", args.clone(), Origin::User).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
    let e = h
        .with_env(|env| {
            let call = Call {
                tool_name: "mnote.doc.apply_block_ops",
                args: &args,
                origin: Origin::Hermes,
                actor: "hermes",
                at: AT,
                tool_call_id: "c",
                new_context_id: "",
            };
            let typed = call.typed()?;
            suggest(&mut page, &ProposeRequest { session_id: "s", run_id: "r", trace_id: "t", call: &typed }, env)
        })
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");
}

#[test]
fn who_may_decide_a_suggestion() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mine = h.suggest_as(&mut page, "rs_p", ship_final(), "viewer_1", Role::Viewer).unwrap();
    let hermes = h.propose(&mut page, json!([{"op": "replace", "matchText": "Notes", "content": "Notizen"}]));
    let allowed = |s: &ReviewSessionV1, verb, actor: &str, role| may_act(s, verb, actor, role).is_ok();
    // Only editors and owners accept, retry and revert, anyone's.
    for verb in [Action::Accept, Action::Retry, Action::Revert] {
        for session in [&mine, &hermes] {
            assert!(!allowed(session, verb, "viewer_1", Role::Viewer), "{verb:?}");
            assert!(allowed(session, verb, "editor_1", Role::Editor), "{verb:?}");
            assert!(allowed(session, verb, "owner_1", Role::Owner), "{verb:?}");
        }
    }
    // The author withdraws their own; another viewer cannot; an editor may reject anyone's.
    for verb in [Action::Reject, Action::Abort] {
        assert!(allowed(&mine, verb, "viewer_1", Role::Viewer), "{verb:?}");
        assert!(!allowed(&mine, verb, "viewer_2", Role::Viewer), "{verb:?}");
        assert!(allowed(&mine, verb, "editor_1", Role::Editor), "{verb:?}");
        assert!(!allowed(&hermes, verb, "hermes", Role::Viewer), "{verb:?}: no one owns an AI's proposal");
        assert!(allowed(&hermes, verb, "editor_1", Role::Editor), "{verb:?}");
    }
    let refused = may_act(&mine, Action::Accept, "viewer_1", Role::Viewer).unwrap_err();
    assert_eq!(refused.code().as_str(), "mnote_role_forbidden");
}

#[test]
fn an_accepted_suggestion_lands_as_one_write_by_the_accepting_person() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.suggest_as(&mut page, "rs_p", ship_final(), "user_1", Role::Viewer).unwrap();
    let answer = h.accept_as(&mut session, &mut page, "editor_1", "k_acc");
    assert_eq!(session.state, State::Applied);
    assert_eq!(page.revision, 8, "one write");
    assert_eq!(page.blocks[2].text, "The API is final. Ship the draft.");
    let result = answer.applied.unwrap();
    assert_eq!(result.audit.actor, "editor_1", "the write is the accepting person's");
    assert_eq!(session.audit.created_by, "user_1", "the session keeps who suggested it");
    assert!(suggestions(&[Noted::from(&session)], &page).is_empty(), "an accepted suggestion is no longer pending");
}

#[test]
fn a_rejected_suggestion_writes_nothing() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let before = page.clone();
    let mut session = h.suggest_as(&mut page, "rs_p", ship_final(), "user_1", Role::Editor).unwrap();
    reject(&mut session, &Stamp { actor: "user_1", at: LATER }).unwrap();
    assert_eq!((session.state, &page), (State::Rejected, &before));
    assert_eq!(state_of(session.state), Some(SuggestionState::Rejected));
    assert!(suggestions(&[Noted::from(&session)], &page).is_empty());
}

#[test]
fn a_suggestion_goes_stale_when_its_block_changes_and_shows_the_fresh_preview() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut session = h.suggest_as(&mut page, "rs_p", ship_final(), "user_1", Role::Editor).unwrap();
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_2", "text": "The API is draft. Ship it."}]), "k_e");
    let answer = h.accept_as(&mut session, &mut page, "editor_1", "k_acc");
    assert!(answer.applied.is_none());
    assert_eq!(session.state, State::Stale);
    let listed = suggestions(&[Noted::from(&session)], &page);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].state, SuggestionState::Stale);
    assert_eq!(listed[0].diff.before.as_deref(), Some("The API is draft. Ship it."), "against the page as it is");
    assert_eq!(listed[0].diff.after.as_deref(), Some("The API is final. Ship it."));
}

#[test]
fn hermes_proposes_on_top_of_a_persons_pending_suggestion() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut mine = h.suggest_as(&mut page, "rs_p", ship_final(), "user_1", Role::Editor).unwrap();
    let mut hermes =
        h.propose(&mut page, json!([{"op": "replace", "blockId": "p_2", "matchText": "Ship", "content": "Release"}]));
    let noted = [Noted { session: &mine, reason: Some("final, per the review") }, Noted::from(&hermes)];
    let listed = suggestions(&noted, &page);
    let who: Vec<(&str, AuthorKind, Option<&str>)> =
        listed.iter().map(|s| (s.block_id.as_str(), s.author.kind, s.reason.as_deref())).collect();
    assert_eq!(
        who,
        [("p_2", AuthorKind::Person, Some("final, per the review")), ("p_2", AuthorKind::Hermes, None)],
        "both wait on the same block, the person's first"
    );
    assert_eq!(listed[1].author.run_id.as_deref(), Some("run_1"));
    assert_eq!(listed[0].author.run_id, None);
    // Accepting one makes the other stale: it was previewed against the block as it was. The list says
    // so before anyone tries to accept it.
    h.accept_as(&mut hermes, &mut page, "editor_1", "k_h");
    assert_eq!(page.blocks[2].text, "The API is draft. Release the draft.");
    let left = suggestions(&[Noted::from(&mine), Noted::from(&hermes)], &page);
    assert_eq!(
        left.iter().map(|s| (s.session_id.as_str(), s.state)).collect::<Vec<_>>(),
        [("rs_p", SuggestionState::Stale)]
    );
    h.accept_as(&mut mine, &mut page, "editor_1", "k_m");
    assert_eq!(mine.state, State::Stale);
    assert_eq!(page.revision, 8, "only one write landed");
}

#[test]
fn a_suggestion_shows_its_operations_and_a_word_diff() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let ops = json!([
        {"op": "replace", "blockId": "p_2", "matchText": "is draft", "content": "is final"},
        {"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"},
        {"op": "insert_after", "afterBlockId": "p_1", "block": {"type": "paragraph", "text": "New"}}
    ]);
    let session = h.propose(&mut page, ops);
    let listed = suggestions(&[Noted::from(&session)], &page);
    let blocks: Vec<(&str, &str)> = listed.iter().map(|s| (s.block_id.as_str(), s.change.as_str())).collect();
    assert_eq!(blocks[0], ("p_1", "replace"));
    assert_eq!(blocks[2], ("p_2", "replace"), "page order, the new block at its anchor: {blocks:?}");
    assert_eq!(blocks[1].1, "insert");
    let english = &listed[2];
    assert_eq!(english.schema, SUGGESTION_V1);
    assert_eq!(english.suggestion_id, alloc::format!("{}:p_2", session.session_id));
    assert_eq!(english.operations.len(), 1, "only the operations that change this block");
    let segments: Vec<(SpanTag, &str)> = english.diff.segments.iter().map(|s| (s.tag, s.text.as_str())).collect();
    assert_eq!(
        segments,
        [
            (SpanTag::Equal, "The API is "),
            (SpanTag::Delete, "draft"),
            (SpanTag::Insert, "final"),
            (SpanTag::Equal, ". Ship the draft.")
        ]
    );
    let chinese = &listed[0].diff.segments;
    assert_eq!(chinese.iter().map(|s| s.text.as_str()).collect::<Vec<_>>(), ["第", "一", "二", "版计划，周五发布。"]);
    assert_eq!(listed[1].diff.before, None);
}

#[test]
fn only_waiting_sessions_of_this_page_are_listed() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let waiting = h.suggest_as(&mut page, "rs_w", ship_final(), "user_1", Role::Editor).unwrap();
    let mut aborted = h.suggest_as(&mut page, "rs_a", ship_final(), "user_1", Role::Editor).unwrap();
    abort(&mut aborted, &user()).unwrap();
    let mut elsewhere = waiting.clone();
    elsewhere.document_id = "doc_2".into();
    let listed = suggestions(&[Noted::from(&aborted), Noted::from(&elsewhere), Noted::from(&waiting)], &page);
    assert_eq!(listed.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["rs_w"]);
    assert_eq!(suggestions_of(Noted::from(&aborted), &page)[0].state, SuggestionState::Aborted);
}

#[test]
fn a_plan_carries_its_summary_as_the_reason() {
    let args = json!({
        "documentId": "doc_1", "baseRevision": 7, "idempotencyKey": "k_plan", "summary": " Translate the notes ",
        "operations": [{"op": "replace", "matchText": "Notes", "content": "Notizen"}],
    });
    let call = Call {
        tool_name: "doc_plan_update",
        args: &args,
        origin: Origin::Hermes,
        actor: "hermes",
        at: AT,
        tool_call_id: "c",
        new_context_id: "",
    };
    assert_eq!(reason_of(&call.typed().unwrap()), Some("Translate the notes"));
    let plain = ops_args(&page(), ship_final());
    let call = Call { args: &plain, tool_name: "mnote.doc.apply_block_ops", ..call };
    assert_eq!(reason_of(&call.typed().unwrap()), None);
}
