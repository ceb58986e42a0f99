//! The AI tool-call policy over stores in memory: what a read, a held write, a yolo write, a replay and a
//! refused write each leave behind (page, session, audit, events).
#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::audit::AuditStore;
use pageai_core::profile::{Profile, ReviewMode, ToolsPolicy};
use pageai_core::review::REVIEW_PENDING;
use serde_json::json;

use super::*;
use crate::services::test_support::{MemoryStores, hermes_call as request, in_mode, page_of};

fn page() -> Page {
    page_of(&["alpha one", "beta two", "gamma three"])
}

fn memory(mode: ReviewMode) -> MemoryStores {
    let mut memory = in_mode(mode);
    memory.frozen_page(&page());
    memory
}

fn replace(key: &str, dry_run: bool, extra: Value) -> Value {
    let mut args = json!({
        "documentId": "doc_1", "baseRevision": 0, "dryRun": dry_run, "idempotencyKey": key, "contextId": "ctx_page",
        "operations": [{"op": "replace", "blockId": "p_2", "matchText": "beta", "content": "BETA"}],
    });
    if let (Some(map), Some(more)) = (args.as_object_mut(), extra.as_object()) {
        map.extend(more.clone());
    }
    args
}

fn result_of(reply: &ToolReply) -> Value {
    serde_json::from_str(reply.result.get()).expect("the result is JSON")
}

#[test]
fn a_fetch_freezes_its_context_until_the_ttl() {
    let mut page = page();
    let mut memory = memory(ReviewMode::Review);
    let args = json!({"documentId": "doc_1", "scope": {"type": "selection", "blockIds": ["p_1", "p_2"]}});
    let reply = call(&mut page, request("doc_fetch", args), &mut memory.stores()).expect("fetched");
    let context = result_of(&reply);
    let id = context["contextId"].as_str().expect("a context id").to_string();
    assert_eq!(context["allowedTargetBlockIds"], json!(["p_1", "p_2"]));
    let (frozen, expires) = memory.contexts.by_id.get(&id).expect("stored");
    assert_eq!(frozen.allowed_target_block_ids, ["p_1", "p_2"]);
    assert_eq!(*expires, memory.now.ms + 3_600_000);
    assert_eq!(memory.event_names(), ["tool.started", "tool.completed"]);
    assert_eq!(memory.events[0].tool_name, "mnote.doc.fetch");
    assert!(memory.audit.is_empty(), "reads are not audited");
}

#[test]
fn in_review_mode_a_hermes_write_is_held_and_never_applied() {
    for dry_run in [true, false] {
        let mut page = page();
        let mut memory = memory(ReviewMode::Review);
        let reply =
            call(&mut page, request("doc_apply_block_ops", replace("k1", dry_run, json!({}))), &mut memory.stores())
                .expect("held");
        assert_eq!(page.revision, 0, "dryRun:{dry_run}: the page is unchanged");
        assert_eq!(page.blocks[1].text, "beta two");
        let session = reply.review_session.clone().expect("a session");
        assert_eq!(session.state, State::AwaitingUser);
        let result = result_of(&reply);
        assert_eq!((result["blocked"].as_bool(), result["dryRun"].as_bool()), (Some(true), Some(true)));
        let warning = result["warnings"].as_array().expect("warnings").last().expect("one").clone();
        assert_eq!(warning["code"], REVIEW_PENDING);
        assert!(warning["message"].as_str().expect("text").contains(&session.session_id));
        assert_eq!(memory.event_names(), ["tool.started", "review.updated", "tool.completed"]);
        assert_eq!(memory.events[2].review_session_id.as_deref(), Some(session.session_id.as_str()));
        let entries = memory.audit.entries();
        assert_eq!(entries.len(), 1);
        assert_eq!((entries[0].action.as_str(), entries[0].actor.as_str()), ("review.propose", "hermes"));
        assert!(memory.idempotency.is_empty());
    }
}

#[test]
fn a_preview_and_its_apply_share_one_session() {
    let mut page = page();
    let mut memory = memory(ReviewMode::Required);
    let first = call(&mut page, request("doc_apply_block_ops", replace("k1", true, json!({}))), &mut memory.stores())
        .expect("held");
    let again = call(&mut page, request("doc_apply_block_ops", replace("k1", false, json!({}))), &mut memory.stores())
        .expect("found");
    assert_eq!(first.review_session, again.review_session);
    assert_eq!(memory.sessions.by_id.len(), 1);
    assert_eq!(memory.audit.len(), 1, "finding the session again records nothing");
    // Other operations under the same key make their own proposal.
    let other = replace("k1", false, json!({"operations": [{"op": "delete", "blockId": "p_3"}]}));
    let third = call(&mut page, request("doc_apply_block_ops", other), &mut memory.stores()).expect("held");
    assert_ne!(third.review_session, first.review_session);
}

#[test]
fn in_yolo_mode_a_write_applies_keeps_a_session_and_replays() {
    let mut page = page();
    let mut memory = memory(ReviewMode::Yolo);
    let args = replace("k1", false, json!({}));
    let reply = call(&mut page, request("doc_apply_block_ops", args.clone()), &mut memory.stores()).expect("applied");
    assert_eq!((page.revision, page.blocks[1].text.as_str()), (1, "BETA two"));
    let session = reply.review_session.clone().expect("a record of the same shape");
    assert_eq!(session.state, State::Applied);
    let result = result_of(&reply);
    assert_eq!(result["newRevision"], 1);
    let entries = memory.audit.entries();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].action, "tool.applied");
    assert_eq!(entries[0].review_session_id.as_deref(), Some(session.session_id.as_str()));
    assert_eq!(entries[0].revision, 1);

    let replay = call(&mut page, request("doc_apply_block_ops", args), &mut memory.stores()).expect("replayed");
    assert_eq!(replay.result.get(), reply.result.get(), "byte for byte");
    assert_eq!(page.revision, 1, "a replay writes nothing");
    assert_eq!(memory.audit.len(), 1);

    let changed = replace("k1", false, json!({"baseRevision": 1}));
    let error = call(&mut page, request("doc_apply_block_ops", changed), &mut memory.stores()).expect_err("conflict");
    assert_eq!(error.code().as_str(), "mnote_idempotency_conflict");
    assert_eq!(memory.event_names().last().map(String::as_str), Some("tool.failed"));
}

#[test]
fn in_yolo_mode_a_preview_is_only_a_preview_and_proposals_are_held() {
    let mut page = page();
    let mut memory = memory(ReviewMode::Yolo);
    let reply = call(&mut page, request("doc_apply_block_ops", replace("k1", true, json!({}))), &mut memory.stores())
        .expect("previewed");
    assert!(reply.review_session.is_none());
    assert_eq!(result_of(&reply)["blocked"], false);
    let plan = json!({
        "documentId": "doc_1", "baseRevision": 0, "idempotencyKey": "k2", "contextId": "ctx_page",
        "operations": [{"op": "replace", "matchText": "gamma", "content": "GAMMA"}],
    });
    let held = call(&mut page, request("doc_plan_update", plan), &mut memory.stores()).expect("held");
    assert_eq!(held.review_session.expect("a session").state, State::AwaitingUser);
    assert_eq!(page.revision, 0);
}

#[test]
fn a_write_outside_the_frozen_selection_is_refused() {
    let mut page = page();
    let mut memory = memory(ReviewMode::Yolo);
    let fetch = json!({"documentId": "doc_1", "scope": {"type": "selection", "blockIds": ["p_1", "p_2"]}});
    let context = result_of(&call(&mut page, request("doc_fetch", fetch), &mut memory.stores()).expect("fetched"));
    let args = json!({
        "contextId": context["contextId"], "documentId": "doc_1", "baseRevision": 0, "dryRun": false,
        "idempotencyKey": "k1", "operations": [{"op": "replace", "blockId": "p_3", "matchText": "gamma", "content": "x"}],
    });
    let error = call(&mut page, request("doc_apply_block_ops", args), &mut memory.stores()).expect_err("refused");
    assert_eq!(error.code().as_str(), "mnote_block_target_out_of_scope");
    assert_eq!(page.revision, 0);
    assert!(memory.sessions.by_id.is_empty());
}

#[test]
fn forged_and_expired_contexts_are_not_found() {
    let mut page = page();
    let mut memory = memory(ReviewMode::Yolo);
    let forged = replace("k1", false, json!({"contextId": "ctx_forged"}));
    let error = call(&mut page, request("doc_apply_block_ops", forged), &mut memory.stores()).expect_err("forged");
    assert_eq!(error.code().as_str(), "mnote_context_not_found");

    let fetch = json!({"documentId": "doc_1", "scope": {"type": "full"}});
    let context = result_of(&call(&mut page, request("doc_fetch", fetch), &mut memory.stores()).expect("fetched"));
    memory.now.ms += 3_600_001;
    let late = replace("k2", false, json!({"contextId": context["contextId"]}));
    let error = call(&mut page, request("doc_apply_block_ops", late), &mut memory.stores()).expect_err("expired");
    assert_eq!(error.code().as_str(), "mnote_context_not_found");
}

#[test]
fn a_disabled_tool_is_refused_by_the_guard() {
    let mut page = page();
    let mut memory = MemoryStores::new(Profile {
        tools: ToolsPolicy { disabled: vec!["mnote.doc.search".into()] },
        review_mode: ReviewMode::Yolo,
    });
    let args = json!({"documentId": "doc_1", "query": "beta"});
    let error = call(&mut page, request("doc_search", args), &mut memory.stores()).expect_err("disabled");
    assert_eq!(error.code().as_str(), "mnote_tool_disabled");
    assert_eq!(memory.event_names(), ["tool.started", "tool.failed"]);
    assert_eq!(memory.events[1].summary.error_code.as_deref(), Some("mnote_tool_disabled"));
}

#[test]
fn unknown_tools_get_the_nearest_names() {
    let mut page = page();
    let mut memory = memory(ReviewMode::Yolo);
    let error = call(&mut page, request("doc_fetchh", json!({"documentId": "doc_1"})), &mut memory.stores())
        .expect_err("unknown");
    assert_eq!(error.code().as_str(), "mnote_unknown_tool");
}

#[test]
fn the_document_is_named_by_the_arguments() {
    assert_eq!(
        document_of(&SentCall::parse("doc_fetch".into(), json!({"documentId": "doc_1"})), "/args"),
        Ok("doc_1".into())
    );
    for (args, pointer) in [
        (json!({}), "/args/documentId"),
        (json!({"documentId": 7}), "/args/documentId"),
        (json!({"documentId": "a/b"}), "/args/documentId"),
        (json!([]), "/args"),
    ] {
        let error = document_of(&SentCall::parse("doc_fetch".into(), args.clone()), "/args").expect_err("refused");
        assert_eq!(error.details()["pointer"], pointer, "{args}");
    }
}

#[test]
fn a_missing_or_mistyped_dry_run_is_an_error_never_a_default() {
    for mode in [ReviewMode::Yolo, ReviewMode::Review] {
        let mut missing = replace("k1", false, json!({}));
        missing.as_object_mut().expect("object").remove("dryRun");
        let mistyped = replace("k2", false, json!({"dryRun": "no"}));
        for (args, pointer) in [(missing, ""), (mistyped, "/dryRun")] {
            let mut page = page();
            let mut memory = memory(mode);
            let error =
                call(&mut page, request("doc_apply_block_ops", args), &mut memory.stores()).expect_err("refused");
            assert_eq!(error.code().as_str(), "mnote_invalid_arguments", "{mode:?}: {error:?}");
            assert_eq!(error.details()["pointer"], pointer);
            assert_eq!(page.revision, 0);
            assert!(memory.sessions.by_id.is_empty());
        }
    }
}

#[test]
fn an_ai_write_without_a_context_is_refused_and_changes_nothing() {
    // doc_plan_update does not take these arguments: it is refused for them and for the missing context at
    // once, so the model fixes its call in one go.
    for (tool, code) in
        [("doc_apply_block_ops", "mnote_context_required"), ("doc_plan_update", "mnote_invalid_arguments")]
    {
        let mut page = page();
        let mut memory = memory(ReviewMode::Yolo);
        let mut args = replace("k1", false, json!({}));
        args.as_object_mut().map(|a| a.remove("contextId"));
        let refused = call(&mut page, request(tool, args), &mut memory.stores()).err();
        assert_eq!(refused.as_ref().map(|e| e.code().as_str()), Some(code), "{tool}");
        if let Some(details) = refused.map(|e| e.details()).filter(|_| code == "mnote_invalid_arguments") {
            let pointers: Vec<&Value> =
                details["errors"].as_array().into_iter().flatten().map(|e| &e["pointer"]).collect();
            assert!(pointers.contains(&&json!("/contextId")), "{details}");
        }
        assert_eq!(page.blocks[1].text, "beta two");
        assert!(memory.sessions.by_id.is_empty(), "no session either");
        assert_eq!(memory.event_names(), ["tool.started", "tool.failed"]);
    }
}
