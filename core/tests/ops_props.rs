//! Invariants of the operations engine and the executor, over random pages, batches and scopes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::collections::BTreeSet;

use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Effect, Env, NoContexts, Origin, execute};
use pageai_core::ops::{NewBlock, Occurrence, Operation, TargetScope, plan};
use pageai_core::page::{Attrs, Block, BlockType, Page};
use pageai_core::profile::{Profile, ReviewMode};
use proptest::prelude::*;
use serde_json::json;

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["alpha", "beta", "第一版", "第二段", "A", "ＡＢ", "x y", "改成", "end."])
        .prop_map(String::from)
}

fn any_page() -> impl Strategy<Value = Page> {
    prop::collection::vec((prop::collection::vec(word(), 1..5), any::<bool>()), 1..12).prop_map(|specs| {
        let blocks = specs
            .into_iter()
            .enumerate()
            .map(|(i, (words, locked))| {
                let b = Block::paragraph(format!("p_{i}"), words.join(" "));
                if locked && i % 3 == 0 { b.locked() } else { b }
            })
            .collect();
        let mut page = Page::new("ws", "doc", "t", blocks).unwrap();
        page = page.at_revision(7);
        page
    })
}

fn any_id() -> impl Strategy<Value = String> {
    (0usize..14).prop_map(|i| format!("p_{i}"))
}

fn any_op() -> impl Strategy<Value = Operation> {
    prop_oneof![
        (prop::option::of(any_id()), word(), word(), any::<bool>()).prop_map(|(block_id, m, c, all)| {
            Operation::Replace {
                block_id,
                match_text: m,
                content: c,
                occurrence: if all { Occurrence::All } else { Occurrence::Unique },
            }
        }),
        (any_id(), word()).prop_map(|(id, text)| Operation::InsertAfter {
            after_block_id: id,
            block: NewBlock { block_id: None, kind: BlockType::Paragraph, text, attrs: Attrs::default() },
        }),
        (any_id(), word()).prop_map(|(id, text)| Operation::Update {
            block_id: id,
            text: Some(text),
            kind: None,
            attrs: None
        }),
        any_id().prop_map(|id| Operation::Delete { block_id: id }),
        (any_id(), prop::option::of(any_id()))
            .prop_map(|(id, after)| Operation::Move { block_id: id, after_block_id: after }),
    ]
}

/// [`any_op`], or an insert before a block or a move after one: the operations that take an anchor.
fn any_op_or_anchor() -> impl Strategy<Value = Operation> {
    prop_oneof![
        any_op(),
        (any_id(), word()).prop_map(|(id, text)| Operation::InsertBefore {
            before_block_id: id,
            block: NewBlock { block_id: None, kind: BlockType::Paragraph, text, attrs: Attrs::default() },
        }),
        (any_id(), prop::option::of(any_id()))
            .prop_map(|(id, after)| Operation::Move { block_id: id, after_block_id: after }),
    ]
}

fn minter() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        format!("b_{n:010}")
    }
}

fn run(
    page: &mut Page,
    ops: &[Operation],
    dry_run: bool,
    key: &str,
    store: &mut MemoryIdempotencyStore,
) -> Result<pageai_core::executor::Outcome, pageai_core::Error> {
    let base = page.revision;
    run_at(page, base, ops, dry_run, key, store)
}

fn run_at(
    page: &mut Page,
    base: u64,
    ops: &[Operation],
    dry_run: bool,
    key: &str,
    store: &mut MemoryIdempotencyStore,
) -> Result<pageai_core::executor::Outcome, pageai_core::Error> {
    let args =
        json!({"documentId": "doc", "baseRevision": base, "operations": ops, "dryRun": dry_run, "idempotencyKey": key});
    let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
    let mut mint = minter();
    let call = Call {
        tool_name: "doc_apply_block_ops",
        args: &args,
        origin: Origin::User,
        actor: "u",
        at: "t",
        tool_call_id: "c",
        new_context_id: "x",
    };
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: pageai_core::policy::Role::Owner,
        contexts: &NoContexts,
        idempotency: store,
        mint: &mut mint,
        suggestions: &[],
    };
    execute(page, &call, &mut env)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn dry_run_never_changes_the_page(mut page in any_page(), ops in prop::collection::vec(any_op(), 1..5)) {
        let before = page.clone();
        let _ = run(&mut page, &ops, true, "k", &mut MemoryIdempotencyStore::new());
        prop_assert_eq!(page, before);
    }

    #[test]
    fn apply_yields_exactly_what_the_preview_showed(mut page in any_page(), ops in prop::collection::vec(any_op(), 1..5)) {
        let mut store = MemoryIdempotencyStore::new();
        let Ok(preview) = run(&mut page, &ops, true, "k", &mut store) else { return Ok(()) };
        let Effect::Previewed(preview) = preview.effect else { panic!("a dry-run previews") };
        let applied = run(&mut page, &ops, false, "k", &mut store).unwrap();
        let Effect::Applied(applied) = applied.effect else { panic!("the same batch applies") };
        prop_assert_eq!(&preview.changed_blocks, &applied.changed_blocks);
        for change in &preview.changed_blocks {
            let now = page.block(&change.block_id).map(|b| b.text.clone());
            prop_assert_eq!(now, change.after.clone());
        }
        // Re-applying the preview's normalized operations to the old page gives the same blocks.
        prop_assert_eq!(preview.operations, applied.operations);
    }

    #[test]
    fn a_failing_batch_changes_nothing(mut page in any_page(), ops in prop::collection::vec(any_op(), 1..6)) {
        let before = page.clone();
        let mut store = MemoryIdempotencyStore::new();
        if run(&mut page, &ops, false, "k", &mut store).is_err() {
            prop_assert_eq!(&page, &before);
            prop_assert!(store.is_empty());
        }
    }

    #[test]
    fn writes_never_leave_the_scope(page in any_page(), ops in prop::collection::vec(any_op(), 1..5), allowed in prop::collection::btree_set(any_id(), 0..6)) {
        let scope = TargetScope::only(allowed.iter().cloned());
        let mut mint = minter();
        if let Ok(plan) = plan(&page, &ops, &scope, &mut mint) {
            let existing: BTreeSet<&str> = page.blocks.iter().map(|b| b.block_id.as_str()).collect();
            for change in &plan.changed {
                if existing.contains(change.block_id.as_str()) {
                    prop_assert!(allowed.contains(&change.block_id), "{} changed outside {:?}", change.block_id, allowed);
                }
            }
            for block in &page.blocks {
                if !allowed.contains(&block.block_id) {
                    let blocks = plan.blocks_after(&page);
                    let after = blocks.iter().find(|b| b.block_id == block.block_id);
                    prop_assert_eq!(after, Some(block));
                }
            }
        }
    }

    /// A list of page ids in page order (what a context freezes) plans exactly as the same ids hashed, also
    /// narrowed by a second list: same blocks, same changes, same errors with the same allowed ids.
    #[test]
    fn a_listed_scope_plans_as_the_same_ids_do(
        page in any_page(),
        ops in prop::collection::vec(any_op_or_anchor(), 1..5),
        keep in prop::collection::vec(any::<bool>(), 12),
        asked in prop::option::of(prop::collection::vec(any_id(), 0..6)),
    ) {
        let listed: Vec<String> = page
            .blocks
            .iter()
            .zip(&keep)
            .filter(|(b, keep)| **keep || b.editable)
            .map(|(b, _)| b.block_id.clone())
            .collect();
        let plan_with = |scope: TargetScope<'_>| {
            let scope = scope.narrowed_by(asked.as_deref());
            plan(&page, &ops, &scope, &mut minter()).map(|p| (p.blocks_after(&page), p.changed, p.diffs))
        };
        let hashed = plan_with(TargetScope::only(listed.iter().map(String::as_str)));
        let fast = plan_with(TargetScope::listed(&page, &listed));
        match (hashed, fast) {
            (Ok(hashed), Ok(fast)) => prop_assert_eq!(hashed, fast),
            (Err(hashed), Err(fast)) => prop_assert_eq!(hashed.details(), fast.details()),
            (hashed, fast) => prop_assert!(false, "{hashed:?} vs {fast:?}"),
        }
    }

    /// An insert or move may anchor on a locked block (it is not written), yet no batch ever changes one.
    #[test]
    fn locked_blocks_never_change_even_as_anchors(page in any_page(), ops in prop::collection::vec(any_op_or_anchor(), 1..5)) {
        let editable: Vec<String> = page.blocks.iter().filter(|b| b.editable).map(|b| b.block_id.clone()).collect();
        let scope = TargetScope::only(editable.iter().map(String::as_str));
        let mut mint = minter();
        if let Ok(plan) = plan(&page, &ops, &scope, &mut mint) {
            let after = plan.blocks_after(&page);
            for locked in page.blocks.iter().filter(|b| !b.editable) {
                prop_assert!(plan.changed.iter().all(|c| c.block_id != locked.block_id), "{} changed", locked.block_id);
                prop_assert_eq!(after.iter().find(|b| b.block_id == locked.block_id), Some(locked));
            }
        }
    }

    #[test]
    fn an_idempotent_replay_is_byte_identical(mut page in any_page(), ops in prop::collection::vec(any_op(), 1..4)) {
        let mut store = MemoryIdempotencyStore::new();
        let base = page.revision;
        if let Ok(first) = run_at(&mut page, base, &ops, false, "same", &mut store) {
            let after_first = page.clone();
            // The client retries the very same request: same key, same arguments, same old baseRevision.
            let second = run_at(&mut page, base, &ops, false, "same", &mut store).unwrap();
            prop_assert_eq!(second.effect, Effect::Replayed);
            prop_assert_eq!(second.json, first.json);
            prop_assert_eq!(&page, &after_first);
        }
    }
}
