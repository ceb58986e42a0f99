use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec;
use serde_json::{Value, json};

use super::idempotency::MemoryIdempotencyStore;
use super::*;
use crate::error::Error;
use crate::ops::Risk;
use crate::page::{Block, Permission};
use crate::profile::ReviewMode;

fn page() -> Page {
    let mut p = Page::new(
        "ws",
        "doc_1",
        "t",
        vec![
            Block::paragraph("p_1", "第一版计划"),
            Block::paragraph("p_2", "second paragraph"),
            Block::paragraph("p_3", "locked").locked(),
        ],
    )
    .unwrap();
    p = p.at_revision(5);
    p
}

struct Harness {
    profile: Profile,
    contexts: BTreeMap<String, FrozenContext>,
    store: MemoryIdempotencyStore,
    minted: u32,
}

impl Harness {
    fn new() -> Self {
        let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
        Harness { profile, contexts: BTreeMap::new(), store: MemoryIdempotencyStore::new(), minted: 0 }
    }

    /// Runs `f` with the executor's environment over this harness: the owner's role, its contexts and
    /// idempotency records, and block ids minted as `b_{n}`.
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

    /// Runs one call. An AI write that names no context is bound to one over the whole page as it is
    /// ([`FrozenContext::whole_page`]), as its run's `doc_fetch` would have made it.
    fn call(&mut self, page: &mut Page, tool: &str, mut args: Value, origin: Origin) -> Result<Outcome> {
        let unbound = args.get("contextId").is_none();
        if origin.is_ai() && unbound && Tool::from_name(tool).is_some_and(Tool::writes) {
            self.contexts.insert("ctx_page".into(), FrozenContext::whole_page(page, "ctx_page"));
            args["contextId"] = json!("ctx_page");
        }
        let call = Call {
            tool_name: tool,
            args: &args,
            origin,
            actor: "tester",
            at: "2026-11-30T00:00:00Z",
            tool_call_id: "tc_1",
            new_context_id: "ctx_1",
        };
        let out = self.with_env(|env| execute(page, &call, env));
        if let Ok(Outcome { effect: Effect::Read { frozen: Some(f) }, .. }) = &out {
            self.contexts.insert(f.context_id.clone(), f.clone());
        }
        out
    }
}

fn apply_args(ops: Value, dry_run: bool, key: &str) -> Value {
    json!({"documentId": "doc_1", "baseRevision": 5, "operations": ops, "dryRun": dry_run, "idempotencyKey": key})
}

#[test]
fn seed_acceptance_out_of_scope_write_is_refused() {
    let mut h = Harness::new();
    let mut p = page();
    let mut args =
        apply_args(json!([{"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"}]), true, "k");
    args["allowedTargetBlockIds"] = json!(["p_2"]);
    let err = h.call(&mut p, "mnote.doc.apply_block_ops", args, Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_target_out_of_scope");
}

#[test]
fn seed_acceptance_disabled_tool_is_refused() {
    let mut h = Harness::new();
    h.profile.tools.disabled = vec!["mnote.block.fetch".into()];
    let mut p = page();
    let err = h.call(&mut p, "block_fetch", json!({"blockIds": ["p_1"]}), Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_tool_disabled");
    let m = crate::manifest::manifest(&h.profile, None, p.permission);
    let fetch = m.tools.iter().find(|t| t.name == "mnote.block.fetch").unwrap();
    assert!(!fetch.availability.enabled);
    assert_eq!(fetch.availability.unsupported_reason, "disabled in the profile");
}

#[test]
fn missing_dry_run_or_key_is_an_error_not_a_default() {
    let mut h = Harness::new();
    let mut p = page();
    let mut args = apply_args(json!([]), true, "k");
    args.as_object_mut().unwrap().remove("dryRun");
    let err = h.call(&mut p, "mnote.doc.apply_block_ops", args, Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_invalid_arguments");
    assert!(err.message().contains("dryRun"), "{}", err.message());
    let mut args = apply_args(json!([]), true, "k");
    args.as_object_mut().unwrap().remove("idempotencyKey");
    let err = h.call(&mut p, "mnote.doc.apply_block_ops", args, Origin::Hermes).unwrap_err();
    assert!(err.message().contains("idempotencyKey"));
    let bad = apply_args(json!([{"op": "replace", "matchText": 3, "content": "x"}]), true, "k");
    let err = h.call(&mut p, "mnote.doc.apply_block_ops", bad, Origin::Hermes).unwrap_err();
    // Internally tagged operations are parsed as a whole, so the pointer names the operation.
    assert_eq!(err.details()["pointer"], "/operations/0");
    assert!(err.message().contains("expected a string"), "{}", err.message());
}

#[test]
fn dry_run_then_apply_then_replay() {
    let mut h = Harness::new();
    let mut p = page();
    let ops = json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]);
    let preview = h.call(&mut p, "doc_apply_block_ops", apply_args(ops.clone(), true, "k1"), Origin::Shortcut).unwrap();
    assert!(matches!(preview.effect, Effect::Previewed(_)));
    assert_eq!(p, page(), "a dry-run never changes the page");

    let applied =
        h.call(&mut p, "doc_apply_block_ops", apply_args(ops.clone(), false, "k1"), Origin::Shortcut).unwrap();
    let Effect::Applied(result) = &applied.effect else { panic!("expected an apply") };
    assert_eq!(result.new_revision, Some(6));
    assert_eq!(p.revision, 6);
    assert_eq!(p.blocks[0].text, "第二版计划");

    let replay = h.call(&mut p, "doc_apply_block_ops", apply_args(ops, false, "k1"), Origin::Shortcut).unwrap();
    assert_eq!(replay.effect, Effect::Replayed);
    assert_eq!(replay.json, applied.json, "a replay is byte for byte");
    assert_eq!(p.revision, 6, "a replay writes nothing");

    let other = apply_args(json!([{"op": "replace", "matchText": "second", "content": "2nd"}]), false, "k1");
    let err = h.call(&mut p, "doc_apply_block_ops", other, Origin::Shortcut).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_idempotency_conflict");
}

/// The test page after another writer changed p_2 (revision 6) and deleted nothing: a page whose history
/// the executor kept.
fn moved_on(h: &mut Harness) -> Page {
    let mut p = page();
    let edit = apply_args(json!([{"op": "update", "blockId": "p_2", "text": "changed by someone"}]), false, "k_other");
    h.call(&mut p, "doc_apply_block_ops", edit, Origin::User).unwrap();
    assert_eq!(p.revision, 6);
    p
}

fn conflict_of(err: &Error) -> (&'static str, Value) {
    (err.code().as_str(), err.details())
}

#[test]
fn a_write_whose_blocks_did_not_change_lands_on_the_newer_revision_and_says_so() {
    let mut h = Harness::new();
    let mut p = moved_on(&mut h);
    let write = apply_args(
        json!([{"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"}]),
        false,
        "k",
    );
    let out = h.call(&mut p, "doc_apply_block_ops", write, Origin::Hermes).unwrap();
    let Effect::Applied(result) = out.effect else { panic!() };
    assert_eq!((result.base_revision, result.new_revision), (6, Some(7)), "baseRevision: what it applied on");
    assert_eq!(result.warnings[0].code, "rebased");
    assert_eq!(
        result.warnings[0].message,
        "the change was made against revision 5; the blocks it touches are unchanged, so it applied on revision 6"
    );
    assert_eq!(p.blocks[0].text, "第二版计划");
    assert_eq!(p.blocks[1].text, "changed by someone", "the other writer's change stays");
}

#[test]
fn a_write_touching_a_changed_block_conflicts_with_the_blocks_current_text() {
    let mut h = Harness::new();
    let mut p = moved_on(&mut h);
    // The match text is gone too: the stale read is reported, not the missing match.
    let write =
        apply_args(json!([{"op": "replace", "blockId": "p_2", "matchText": "second", "content": "2nd"}]), true, "k");
    let err = h.call(&mut p, "doc_apply_block_ops", write, Origin::Hermes).unwrap_err();
    let block = &p.blocks[1];
    assert_eq!(
        conflict_of(&err),
        (
            "mnote_revision_conflict",
            json!({"baseRevision": 5, "currentRevision": 6, "blocks": [{
                "blockId": "p_2", "revisionRef": p.revision_ref(block), "text": "changed by someone",
                "changedAtRevision": 6
            }]})
        )
    );
    assert_eq!(err.message(), "block p_2 changed since revision 5 (the page is at revision 6)");
}

#[test]
fn anchors_and_blocks_a_blockless_replace_changes_are_touched_too() {
    let mut h = Harness::new();
    let mut p = moved_on(&mut h);
    let insert = json!([{"op": "insert_after", "afterBlockId": "p_2", "block": {"type": "paragraph", "text": "n"}}]);
    let err = h.call(&mut p, "doc_apply_block_ops", apply_args(insert, true, "k1"), Origin::Hermes).unwrap_err();
    assert_eq!(err.details()["blocks"][0]["blockId"], "p_2");
    let moving = json!([{"op": "move", "blockId": "p_1", "afterBlockId": "p_2"}]);
    let err = h.call(&mut p, "doc_apply_block_ops", apply_args(moving, true, "k2"), Origin::Hermes).unwrap_err();
    assert_eq!(err.details()["blocks"][0]["blockId"], "p_2");
    // "someone" now only occurs in p_2: the replace finds it there, then the check after planning refuses.
    let blockless = json!([{"op": "replace", "matchText": "someone", "content": "x"}]);
    let err = h.call(&mut p, "doc_apply_block_ops", apply_args(blockless, true, "k3"), Origin::Hermes).unwrap_err();
    assert_eq!(err.details()["blocks"][0]["blockId"], "p_2");
}

#[test]
fn a_block_deleted_since_the_read_conflicts_as_gone() {
    let mut h = Harness::new();
    let mut p = page();
    let delete = apply_args(json!([{"op": "delete", "blockId": "p_2"}]), false, "k_other");
    h.call(&mut p, "doc_apply_block_ops", delete, Origin::User).unwrap();
    let update = apply_args(json!([{"op": "update", "blockId": "p_2", "text": "x"}]), true, "k");
    let err = h.call(&mut p, "doc_apply_block_ops", update, Origin::Hermes).unwrap_err();
    assert_eq!(err.details()["blocks"], json!([{"blockId": "p_2", "revisionRef": null, "text": null}]));
    // At the current revision the same call is simply a missing block.
    let mut fresh = apply_args(json!([{"op": "update", "blockId": "p_2", "text": "x"}]), true, "k");
    fresh["baseRevision"] = json!(6);
    let err = h.call(&mut p, "doc_apply_block_ops", fresh, Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_not_found");
}

#[test]
fn the_strict_page_level_check_stays_for_exact_revision_callers_page_save_and_future_revisions() {
    let mut h = Harness::new();
    let mut p = moved_on(&mut h);
    let mut exact = apply_args(json!([{"op": "update", "blockId": "p_1", "text": "x"}]), true, "k");
    exact["requireExactRevision"] = json!(true);
    let err = h.call(&mut p, "doc_apply_block_ops", exact, Origin::Hermes).unwrap_err();
    assert_eq!(err.details(), json!({"baseRevision": 5, "currentRevision": 6, "blocks": []}));
    let blocks = json!([{"blockId": "p_1", "type": "paragraph", "text": "x"}, {"blockId": "p_2", "type": "paragraph", "text": "second paragraph"}, {"blockId": "p_3", "type": "paragraph", "text": "locked", "editable": false}]);
    let save =
        json!({"documentId": "doc_1", "baseRevision": 5, "blocks": blocks, "dryRun": true, "idempotencyKey": "k"});
    let err = h.call(&mut p, "page_save", save, Origin::User).unwrap_err();
    // The save would put back p_2's old text: p_2 is the block that changed.
    assert_eq!(err.details()["blocks"][0]["blockId"], "p_2");
    let mut ahead = apply_args(json!([{"op": "update", "blockId": "p_1", "text": "x"}]), true, "k");
    ahead["baseRevision"] = json!(9);
    let err = h.call(&mut p, "doc_apply_block_ops", ahead, Origin::Hermes).unwrap_err();
    assert_eq!(err.details(), json!({"baseRevision": 9, "currentRevision": 6, "blocks": []}));
}

#[test]
fn a_page_without_history_conflicts_on_any_older_base_unless_the_caller_names_what_it_read() {
    let mut h = Harness::new();
    let mut p = page(); // revision 5, read from nowhere: nothing known before 5
    let mut write = apply_args(json!([{"op": "update", "blockId": "p_1", "text": "x"}]), true, "k");
    write["baseRevision"] = json!(3);
    assert_eq!(
        h.call(&mut p, "doc_apply_block_ops", write.clone(), Origin::Hermes).unwrap_err().code().as_str(),
        "mnote_revision_conflict"
    );
    let current = p.revision_ref(&p.blocks[0]);
    write["revisionRefs"] = json!([current.replace("pageRev:5", "pageRev:3")]);
    let out = h.call(&mut p, "doc_apply_block_ops", write.clone(), Origin::Hermes).unwrap();
    let Effect::Previewed(result) = out.effect else { panic!() };
    assert_eq!(result.warnings[0].code, "rebased");
    write["revisionRefs"] = json!(["pageRev:3:block:p_1:00000000"]);
    let err = h.call(&mut p, "doc_apply_block_ops", write.clone(), Origin::Hermes).unwrap_err();
    assert_eq!(err.details()["blocks"][0]["revisionRef"], current);
    write["revisionRefs"] = json!(["p_1"]);
    let err = h.call(&mut p, "doc_apply_block_ops", write, Origin::Hermes).unwrap_err();
    assert_eq!(err.details()["pointer"], "/revisionRefs/0");
}

#[test]
fn a_context_bound_write_conflicts_when_a_block_changed_since_the_context_was_frozen() {
    let mut h = Harness::new();
    let mut p = page();
    h.call(&mut p, "doc_fetch", json!({"scope": {"type": "full"}, "formats": ["page_xml"]}), Origin::Hermes).unwrap();
    assert_eq!(h.contexts["ctx_1"].block_hashes.len(), 3, "hashes even without the json view");
    let edit = apply_args(json!([{"op": "update", "blockId": "p_2", "text": "changed"}]), false, "k_other");
    h.call(&mut p, "doc_apply_block_ops", edit, Origin::User).unwrap();
    // Even a caller that claims the current revision is held to what its context showed.
    let mut write = apply_args(json!([{"op": "update", "blockId": "p_2", "text": "mine"}]), true, "k");
    write["contextId"] = json!("ctx_1");
    write["baseRevision"] = json!(6);
    let err = h.call(&mut p, "doc_apply_block_ops", write.clone(), Origin::Hermes).unwrap_err();
    assert_eq!(err.details()["blocks"][0]["text"], "changed");
    write["operations"] = json!([{"op": "update", "blockId": "p_1", "text": "mine"}]);
    write["baseRevision"] = json!(5);
    assert!(h.call(&mut p, "doc_apply_block_ops", write, Origin::Hermes).is_ok());
}

#[test]
fn writes_bind_to_the_frozen_context() {
    let mut h = Harness::new();
    let mut p = page();
    h.call(&mut p, "doc_fetch", json!({"scope": {"type": "block", "blockId": "p_2"}}), Origin::Hermes).unwrap();
    let mut args = apply_args(json!([{"op": "replace", "matchText": "第一版", "content": "x"}]), true, "k");
    args["contextId"] = json!("ctx_1");
    // Without blockId, the search only covers the context's allowed blocks: p_1 is not among them.
    let err = h.call(&mut p, "doc_apply_block_ops", args.clone(), Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_match_not_found");
    // Passing a wider list cannot widen the frozen scope.
    args["operations"] = json!([{"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "x"}]);
    args["allowedTargetBlockIds"] = json!(["p_1", "p_2"]);
    let err = h.call(&mut p, "doc_apply_block_ops", args.clone(), Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_target_out_of_scope");
    args["contextId"] = json!("ctx_forged");
    let err = h.call(&mut p, "doc_apply_block_ops", args, Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_context_not_found");
}

#[test]
fn a_read_may_name_its_context_and_is_judged_by_the_write_rule() {
    let mut h = Harness::new();
    let mut p = page();
    // Old calls, naming no context, read as before.
    let fetch = json!({"scope": {"type": "full"}});
    assert!(h.call(&mut p, "doc_fetch", fetch.clone(), Origin::Hermes).is_ok());
    let reads = [
        ("doc_fetch", fetch),
        ("block_fetch", json!({"documentId": "doc_1", "blockIds": ["p_2"]})),
        ("doc_search", json!({"documentId": "doc_1", "query": "second"})),
    ];
    for (tool, args) in &reads {
        let mut named = args.clone();
        named["contextId"] = json!("ctx_1");
        let read = h.call(&mut p, tool, named.clone(), Origin::Hermes);
        assert!(read.is_ok(), "{tool}: {read:?}");
        // Writes answer these same codes for the same contexts.
        let mut write =
            apply_args(json!([{"op": "replace", "blockId": "p_2", "matchText": "second", "content": "2"}]), true, "k");
        for (context_id, code) in [("ctx_forged", "mnote_context_not_found"), ("ctx_other", "mnote_invalid_arguments")]
        {
            h.contexts.insert(
                "ctx_other".into(),
                FrozenContext {
                    document_id: "doc_2".into(),
                    context_id: "ctx_other".into(),
                    ..h.contexts["ctx_1"].clone()
                },
            );
            named["contextId"] = json!(context_id);
            write["contextId"] = json!(context_id);
            let refused = h.call(&mut p, tool, named.clone(), Origin::Hermes).unwrap_err();
            let refused_write = h.call(&mut p, "doc_apply_block_ops", write.clone(), Origin::Hermes).unwrap_err();
            assert_eq!(refused.code().as_str(), code, "{tool} with {context_id}");
            assert_eq!(refused, refused_write, "{tool} with {context_id}");
        }
    }
    assert_eq!(p.revision, 5, "nothing was written");
}

#[test]
fn appending_after_a_locked_last_block_leaves_it_untouched() {
    let mut h = Harness::new();
    let mut p = page();
    h.call(&mut p, "doc_fetch", json!({"scope": {"type": "full"}}), Origin::Hermes).unwrap();
    assert_eq!(h.contexts["ctx_1"].allowed_target_block_ids, ["p_1", "p_2"], "a locked block is never a target");
    let locked_ref = p.revision_ref(&p.blocks[2]);
    let ops =
        json!([{"op": "insert_after", "afterBlockId": "p_3", "block": {"type": "paragraph", "text": "appended"}}]);
    let mut args = apply_args(ops, true, "k_dry");
    args["contextId"] = json!("ctx_1");
    let preview = h.call(&mut p, "doc_apply_block_ops", args.clone(), Origin::Shortcut).unwrap();
    let Effect::Previewed(result) = preview.effect else { panic!("a dry-run previews") };
    let changed: Vec<(&str, &str)> =
        result.changed_blocks.iter().map(|c| (c.block_id.as_str(), c.op.as_str())).collect();
    assert_eq!(changed, [("b_0000000001", "insert")]);
    assert_eq!(result.risk, Risk::Low);
    args["dryRun"] = json!(false);
    args["idempotencyKey"] = json!("k_apply");
    h.call(&mut p, "doc_apply_block_ops", args, Origin::Shortcut).unwrap();
    let ids: Vec<&str> = p.blocks.iter().map(|b| b.block_id.as_str()).collect();
    assert_eq!(ids, ["p_1", "p_2", "p_3", "b_0000000002"]);
    assert_eq!((p.blocks[2].text.as_str(), p.blocks[2].editable), ("locked", false));
    assert_eq!(p.revision_ref(&p.blocks[2]).rsplit(':').next(), locked_ref.rsplit(':').next(), "same content hash");
    // A context of p_1 alone does not reach past p_2 to the locked block.
    h.call(&mut p, "doc_fetch", json!({"scope": {"type": "block", "blockId": "p_1"}}), Origin::Hermes).unwrap();
    let ops = json!([{"op": "insert_after", "afterBlockId": "p_3", "block": {"type": "paragraph", "text": "x"}}]);
    let mut args = apply_args(ops, true, "k_narrow");
    args["baseRevision"] = json!(6);
    args["contextId"] = json!("ctx_1");
    let err = h.call(&mut p, "doc_apply_block_ops", args, Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_target_out_of_scope");
}

#[test]
fn review_mode_blocks_direct_ai_writes_but_not_previews() {
    let mut h = Harness::new();
    h.profile.review_mode = ReviewMode::Review;
    let mut p = page();
    let ops = json!([{"op": "replace", "matchText": "second", "content": "2nd"}]);
    let preview = h.call(&mut p, "doc_apply_block_ops", apply_args(ops.clone(), true, "k"), Origin::Hermes).unwrap();
    let Effect::Previewed(result) = preview.effect else { panic!() };
    assert!(result.blocked);
    assert_eq!(result.blocked_reason.as_deref(), Some("the profile reviews every AI write"));
    let err = h.call(&mut p, "doc_apply_block_ops", apply_args(ops.clone(), false, "k"), Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_review_required");
    // The person accepting the review may apply it.
    let ok = h.call(&mut p, "doc_apply_block_ops", apply_args(ops, false, "k"), Origin::ReviewAccept).unwrap();
    assert!(matches!(ok.effect, Effect::Applied(_)));
}

#[test]
fn plan_update_never_writes() {
    let mut h = Harness::new();
    let mut p = page();
    let args = json!({"documentId": "doc_1", "baseRevision": 5, "operations": [{"op": "delete", "blockId": "p_2"}], "idempotencyKey": "k"});
    let out = h.call(&mut p, "mnote.doc.plan_update", args, Origin::Hermes).unwrap();
    let Effect::Previewed(result) = out.effect else { panic!() };
    assert!(result.dry_run && result.blocked);
    assert_eq!(result.warnings[0].code, "proposal_only");
    assert_eq!(p, page());
}

#[test]
fn read_only_documents_refuse_writes_but_serve_reads() {
    let mut h = Harness::new();
    let mut p = page();
    p.permission = Permission::Read;
    let err = h
        .call(
            &mut p,
            "block_delete",
            json!({"documentId": "doc_1", "baseRevision": 5, "blockId": "p_2", "dryRun": true, "idempotencyKey": "k"}),
            Origin::User,
        )
        .unwrap_err();
    assert_eq!(err.details()["reason"], "document is read-only");
    assert!(h.call(&mut p, "doc_search", json!({"query": "SECOND"}), Origin::Hermes).is_ok());
}

#[test]
fn page_save_is_high_risk_and_goes_through_the_engine() {
    let mut h = Harness::new();
    let mut p = page();
    let blocks = json!([
        {"blockId": "p_3", "type": "paragraph", "text": "locked", "editable": false},
        {"blockId": "p_1", "type": "heading", "text": "第一版计划", "attrs": {"level": 1}},
        {"blockId": "n_1", "type": "paragraph", "text": "new"}
    ]);
    let args =
        json!({"documentId": "doc_1", "baseRevision": 5, "blocks": blocks, "dryRun": true, "idempotencyKey": "k"});
    let out = h.call(&mut p, "page_save", args.clone(), Origin::User).unwrap();
    let Effect::Previewed(result) = out.effect else { panic!() };
    assert_eq!(result.risk, Risk::High);
    let mut apply = args;
    apply["dryRun"] = json!(false);
    h.call(&mut p, "page_save", apply, Origin::User).unwrap();
    let ids: vec::Vec<(&str, &str)> = p.blocks.iter().map(|b| (b.block_id.as_str(), b.kind.as_str())).collect();
    assert_eq!(ids, [("p_3", "paragraph"), ("p_1", "heading"), ("n_1", "paragraph")]);
    // An AI may never save a whole page without review.
    let mut h = Harness::new();
    let args = json!({"documentId": "doc_1", "baseRevision": 6, "blocks": [{"blockId": "p_3", "type": "paragraph", "text": "locked", "editable": false}, {"blockId": "x", "type": "paragraph", "text": "x"}], "dryRun": false, "idempotencyKey": "k2"});
    assert_eq!(h.call(&mut p, "page_save", args, Origin::Hermes).unwrap_err().code().as_str(), "mnote_review_required");
}

#[test]
fn unknown_tools_get_a_suggestion() {
    let mut h = Harness::new();
    let err = h.call(&mut page(), "doc_fecth", json!({}), Origin::Hermes).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_unknown_tool");
    assert_eq!(err.details()["nearest"][0], "doc_fetch");
    let _ = "unused".to_string();
}

#[test]
fn the_executor_itself_refuses_an_ai_write_bound_to_nothing() {
    // Typed by core, past every parse: the executor is where the rule holds.
    let args = |dry_run: bool, allowed: Option<vec::Vec<String>>| {
        let ops = vec![crate::ops::Operation::Update {
            block_id: "p_2".into(),
            text: Some("2nd".into()),
            kind: None,
            attrs: None,
        }];
        WriteArgs::ApplyBlockOps(crate::manifest::args::ApplyBlockOpsArgs {
            dry_run,
            allowed_target_block_ids: allowed,
            ..crate::manifest::args::ApplyBlockOpsArgs::dry_run(&page(), ops, "k_bound")
        })
    };
    let run = |args: WriteArgs, origin: Origin| {
        let mut p = page();
        let call = WriteCall { args, origin, actor: "tester", at: "2026-11-30T00:00:00Z", tool_call_id: "tc_1" };
        Harness::new().with_env(|env| execute_write(&mut p, call, env)).map(|o| (o.effect, p.revision))
    };
    for origin in [Origin::Hermes, Origin::Shortcut] {
        let refused = run(args(false, None), origin).unwrap_err();
        assert_eq!(refused.code().as_str(), "mnote_context_required", "{origin:?}");
        // A preview writes nothing; a review session's write carries the scope its context allowed.
        assert!(matches!(run(args(true, None), origin).unwrap().0, Effect::Previewed(_)));
        assert_eq!(run(args(false, Some(vec!["p_2".into()])), origin).unwrap().1, 6);
    }
    // A person's own write needs no context.
    assert_eq!(run(args(false, None), Origin::User).unwrap().1, 6);
}

/// The write-only preview answers a write exactly as `preview` does, and refuses a read.
#[test]
fn preview_write_json_answers_writes_as_preview_does_and_refuses_reads() {
    let page = page();
    let mut h = Harness::new();
    let args = json!({"documentId": "doc_1", "baseRevision": 5, "dryRun": true, "idempotencyKey": "k_w",
        "operations": [{"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"}]});
    fn call(args: &Value) -> Call<'_> {
        Call {
            tool_name: "mnote.doc.apply_block_ops",
            args,
            origin: Origin::User,
            actor: "tester",
            at: "2026-11-30T00:00:00Z",
            tool_call_id: "tc_1",
            new_context_id: "",
        }
    }
    let both = h.with_env(|env| (preview(&page, &call(&args), env), preview_write_json(&page, &call(&args), env)));
    assert_eq!(both.0.unwrap().json, both.1.unwrap().json);
    let fetch = json!({"scope": {"type": "full"}});
    let read = Call { tool_name: "mnote.doc.fetch", ..call(&fetch) };
    let err = h.with_env(|env| preview_write_json(&page, &read, env)).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_invalid_arguments");
}

/// A fetch answers `mnote.page_ai_context.v2` with the suggestions the caller passes, on the blocks it shows.
#[test]
fn fetches_answer_v2_with_the_callers_suggestions() {
    let mut page = page();
    let mut h = Harness::new();
    let out = h.call(&mut page, "mnote.doc.fetch", json!({"scope": {"type": "full"}}), Origin::Hermes).unwrap();
    let ctx: Value = serde_json::from_str(&out.json).unwrap();
    assert_eq!(
        (ctx["schema"].as_str(), ctx["suggestions"].as_array().map(|a| a.len())),
        (Some("mnote.page_ai_context.v2"), Some(0))
    );
    assert!(matches!(out.effect, Effect::Read { frozen: Some(_) }));
}
