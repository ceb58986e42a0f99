use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec;
use serde_json::{Value, json};

use super::idempotency::MemoryIdempotencyStore;
use super::*;
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
    p.revision = 5;
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

    fn call(&mut self, page: &mut Page, tool: &str, args: Value, origin: Origin) -> Result<Outcome> {
        let mut minted = self.minted;
        let mut mint = || {
            minted += 1;
            alloc::format!("b_{minted:010}")
        };
        let call = Call {
            tool_name: tool,
            args: &args,
            origin,
            actor: "tester",
            at: "2026-11-30T00:00:00Z",
            tool_call_id: "tc_1",
            new_context_id: "ctx_1",
        };
        let mut env = Env {
            profile: &self.profile,
            grants: None,
            contexts: &self.contexts,
            idempotency: &mut self.store,
            mint: &mut mint,
        };
        let out = execute(page, &call, &mut env);
        self.minted = minted;
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

#[test]
fn stale_revision_is_a_conflict() {
    let mut h = Harness::new();
    let mut p = page();
    let mut args = apply_args(json!([{"op": "delete", "blockId": "p_2"}]), true, "k");
    args["baseRevision"] = json!(4);
    let err = h.call(&mut p, "doc_apply_block_ops", args, Origin::Hermes).unwrap_err();
    assert_eq!(err.details(), json!({"baseRevision": 4, "currentRevision": 5}));
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
