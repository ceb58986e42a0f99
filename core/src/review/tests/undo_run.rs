//! Undo of one Hermes run ([`undo_run`]): every applied session of the run as one write, other changes
//! kept; a later edit to one of its blocks previews first; replays, refusals and roles.

use super::*;
use crate::wire::{RunUndoOutcome, RunUndoV1};

/// A run's write, held for review then accepted: the session is `applied`.
fn applied(h: &mut Harness, page: &mut Page, session_id: &str, run_id: &str, ops: Value) -> ReviewSessionV1 {
    let args = json!({
        "documentId": page.document_id, "baseRevision": page.revision, "operations": ops,
        "dryRun": false, "idempotencyKey": alloc::format!("k_{session_id}"),
    });
    let mut session = h
        .with_env(|env| {
            let call = Call {
                tool_name: "mnote.doc.apply_block_ops",
                args: &args,
                origin: Origin::Hermes,
                actor: "hermes",
                at: AT,
                tool_call_id: session_id,
                new_context_id: "",
            };
            let typed = call.typed()?;
            let request = ProposeRequest { session_id, run_id, trace_id: "trace_1", call: &typed };
            propose(page, &request, env)
        })
        .unwrap();
    h.accept(&mut session, page, None, &alloc::format!("k_accept_{session_id}")).unwrap();
    assert_eq!(session.state, State::Applied);
    session
}

fn undo(
    h: &mut Harness,
    run_id: &str,
    sessions: &mut [ReviewSessionV1],
    page: &mut Page,
    key: &str,
    confirm: Option<u64>,
) -> crate::Result<RunUndo> {
    let request = UndoRunRequest { idempotency_key: key.into(), confirm_revision: confirm };
    h.with_env(|env| undo_run(run_id, sessions, page, &request, &user(), env))
}

fn answer_of(undo: &RunUndo) -> RunUndoV1 {
    serde_json::from_str(&undo.json).unwrap()
}

/// Run 1 rewrites p_1 and p_2 in two sessions; run 2 (another run) rewrites h_1.
fn two_runs(h: &mut Harness, page: &mut Page) -> Vec<ReviewSessionV1> {
    vec![
        applied(h, page, "rs_a", "run_1", json!([{"op": "update", "blockId": "p_1", "text": "第二版计划。"}])),
        applied(h, page, "rs_other", "run_2", json!([{"op": "update", "blockId": "h_1", "text": "Plan v2"}])),
        applied(h, page, "rs_b", "run_1", json!([{"op": "update", "blockId": "p_2", "text": "The API is final."}])),
    ]
}

#[test]
fn undo_of_a_run_reverts_its_writes_as_one_and_keeps_every_other_change() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let before = page.clone();
    let mut sessions = two_runs(&mut h, &mut page);
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "Notes by a person"}]), "k_person");
    let revision = page.revision;

    let done = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", None).unwrap();
    let answer = answer_of(&done);
    assert_eq!(answer.schema, "mnote.run_undo.v1");
    assert_eq!(answer.outcome, RunUndoOutcome::Undone);
    assert_eq!(answer.session_ids, ["rs_b", "rs_a"], "the last applied is undone first");
    assert!(answer.changed_block_ids.is_empty());
    assert_eq!(page.revision, revision + 1, "one write");
    assert_eq!(answer.revision, page.revision);
    assert_eq!(done.applied.as_ref().and_then(|r| r.new_revision), Some(page.revision));
    assert_eq!(done.undone, [2, 0]);
    let text = |id: &str| page.block(id).unwrap().text.clone();
    assert_eq!(text("p_1"), before.block("p_1").unwrap().text);
    assert_eq!(text("p_2"), before.block("p_2").unwrap().text);
    assert_eq!(text("p_3"), "Notes by a person", "the person's edit stays");
    assert_eq!(text("h_1"), "Plan v2", "another run's write stays");
    assert_eq!(sessions[0].state, State::Reverted);
    assert_eq!(sessions[2].state, State::Reverted);
    assert_eq!(sessions[1].state, State::Applied);

    // The same key replays the same bytes and writes nothing; another key finds nothing left.
    let again = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", None).unwrap();
    assert!(again.replayed && again.applied.is_none());
    assert_eq!(again.json, done.json);
    assert_eq!(page.revision, revision + 1);
    let e = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo_2", None).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_run_already_undone");
    assert_eq!(e.details()["sessionIds"], json!(["rs_a", "rs_b"]));
    // The same key with another body is not a replay.
    let e = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", Some(3)).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_idempotency_conflict");
}

#[test]
fn a_later_edit_to_a_run_block_previews_and_writes_only_when_confirmed() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let before = page.clone();
    let mut sessions = two_runs(&mut h, &mut page);
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_1", "text": "第二版计划，周一发布。"}]), "k_person");
    let at_preview = page.clone();
    let stored = sessions.clone();

    let shown = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", None).unwrap();
    let answer = answer_of(&shown);
    assert_eq!(answer.outcome, RunUndoOutcome::NeedsConfirm);
    assert_eq!(answer.changed_block_ids, ["p_1"]);
    assert_eq!(answer.revision, at_preview.revision);
    let preview = answer.preview.as_ref().unwrap();
    assert!(preview.dry_run);
    let p_1 = preview.changed_blocks.iter().find(|c| c.block_id == "p_1").unwrap();
    assert_eq!(p_1.before.as_deref(), Some("第二版计划，周一发布。"));
    assert_eq!(p_1.after.as_deref(), Some(before.block("p_1").unwrap().text.as_str()));
    assert!(shown.applied.is_none() && shown.undone.is_empty());
    assert_eq!(page, at_preview, "a preview writes nothing");
    assert_eq!(sessions, stored, "nor moves a session");

    // A confirm of a preview the page has moved on from is refused.
    h.edit(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "More notes"}]), "k_person_2");
    let e = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", Some(answer.revision)).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_run_undo_stale");
    assert_eq!(page.revision, at_preview.revision + 1);

    let shown = answer_of(&undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", None).unwrap());
    let done = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", Some(shown.revision)).unwrap();
    let done_answer = answer_of(&done);
    assert_eq!(done_answer.outcome, RunUndoOutcome::Undone);
    assert_eq!(done_answer.changed_block_ids, ["p_1"], "names the later edit it replaced");
    assert_eq!(page.revision, shown.revision + 1);
    assert_eq!(page.block("p_1").unwrap().text, before.block("p_1").unwrap().text);
    assert_eq!(page.block("p_2").unwrap().text, before.block("p_2").unwrap().text);
    assert_eq!(page.block("p_3").unwrap().text, "More notes");
}

#[test]
fn a_block_the_run_wrote_twice_is_no_later_edit() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let before = page.clone();
    let mut sessions = vec![
        applied(&mut h, &mut page, "rs_a", "run_1", json!([{"op": "update", "blockId": "p_1", "text": "v2"}])),
        applied(&mut h, &mut page, "rs_b", "run_1", json!([{"op": "update", "blockId": "p_1", "text": "v3"}])),
        applied(
            &mut h,
            &mut page,
            "rs_c",
            "run_1",
            json!([{"op": "insert_after", "afterBlockId": "p_1", "block": {"type": "paragraph", "text": "new"}}]),
        ),
    ];
    let done = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", None).unwrap();
    assert_eq!(answer_of(&done).outcome, RunUndoOutcome::Undone);
    assert_eq!(texts(&page), texts(&before));
}

#[test]
fn refusals_are_coded_and_write_nothing() {
    let mut h = Harness::new(ReviewMode::Review);
    let mut page = page();
    let mut sessions = two_runs(&mut h, &mut page);
    let revision = page.revision;
    let e = undo(&mut h, "run_9", &mut sessions, &mut page, "k", None).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_run_not_found");
    let e = undo(&mut h, "", &mut sessions, &mut page, "k", None).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_run_not_found");
    let e = undo(&mut h, "run_1", &mut sessions, &mut page, " ", None).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_invalid_arguments");

    // A run whose writes still wait for review has nothing to undo, and says so.
    let mut waiting = vec![h.propose(&mut page, json!([{"op": "update", "blockId": "p_3", "text": "x"}]))];
    let e = undo(&mut h, "run_1", &mut waiting, &mut page, "k", None).unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_run_nothing_to_undo");
    assert!(e.message().contains("1 awaiting_user"), "{}", e.message());

    // A viewer may not undo: the accept rule of the role table.
    h.profile = Profile { review_mode: ReviewMode::Review, ..Profile::default() };
    let request = UndoRunRequest { idempotency_key: "k".into(), confirm_revision: None };
    let e = h
        .with_env(|env| {
            env.role = crate::policy::Role::Viewer;
            undo_run("run_1", &mut sessions, &mut page, &request, &user(), env)
        })
        .unwrap_err();
    assert_eq!(e.code().as_str(), "mnote_role_forbidden");
    assert!(may_undo_run(crate::policy::Role::Editor).is_ok());
    assert_eq!(page.revision, revision);
    assert!(sessions.iter().all(|s| s.state == State::Applied));
}

proptest::proptest! {
    /// Undo of a run gives back the page before the run when nothing else changed; a block another writer
    /// edited in between (one the run did not touch) keeps that edit, and the rest is as before the run.
    #[test]
    fn undo_restores_the_page_before_the_run(
        writes in proptest::collection::vec((0usize..3, "[a-z 第版]{1,12}"), 1..5),
        person in proptest::option::of("[A-Z]{1,8}"),
    ) {
        let ids = ["h_1", "p_1", "p_2"];
        let mut h = Harness::new(ReviewMode::Review);
        let mut page = page();
        let before = page.clone();
        let mut sessions = Vec::new();
        for (n, (block, text)) in writes.iter().enumerate() {
            let op = json!([{"op": "update", "blockId": ids[*block], "text": text}]);
            sessions.push(applied(&mut h, &mut page, &alloc::format!("rs_{n}"), "run_1", op));
            if n == 0 && let Some(text) = &person {
                h.edit(&mut page, json!([{"op": "update", "blockId": "p_3", "text": text}]), "k_person");
            }
        }
        let revision = page.revision;
        let done = undo(&mut h, "run_1", &mut sessions, &mut page, "k_undo", None).unwrap();
        proptest::prop_assert_eq!(answer_of(&done).outcome, RunUndoOutcome::Undone);
        proptest::prop_assert_eq!(page.revision, revision + 1);
        let mut expected = before.clone();
        if let Some(text) = &person {
            expected.blocks[3].text = text.clone();
        }
        proptest::prop_assert_eq!(texts(&page), texts(&expected));
    }
}
