//! The live channel over random writes: a client that follows the messages of a committed batch, through
//! their JSON, ends with exactly the page the server wrote; one that missed a batch is told to resync and
//! keeps its page.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use pageai_core::error::ErrorCode;
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Effect, Env, NoContexts, Origin, execute};
use pageai_core::json::from_json;
use pageai_core::live::{self, AppliedWrite, Author, Change, Commit};
use pageai_core::ops::{NewBlock, Operation};
use pageai_core::page::{Attrs, Block, BlockType, Page};
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::wire::{LiveEventV1, ToolResultV1};
use proptest::prelude::*;
use serde_json::json;

fn any_page() -> impl Strategy<Value = Page> {
    prop::collection::vec(prop::sample::select(vec!["alpha", "第一版", "beta", "x y"]), 1..10).prop_map(|words| {
        let blocks = words.iter().enumerate().map(|(i, w)| Block::paragraph(format!("p_{i}"), *w)).collect();
        let mut page = Page::new("ws", "doc", "t", blocks).unwrap();
        page.revision = 3;
        page
    })
}

fn any_id() -> impl Strategy<Value = String> {
    (0usize..11).prop_map(|i| format!("p_{i}"))
}

fn any_op() -> impl Strategy<Value = Operation> {
    let new_block = |text: &str| NewBlock {
        block_id: None,
        kind: BlockType::Todo,
        text: text.into(),
        attrs: Attrs { checked: Some(false), ..Attrs::default() },
    };
    prop_oneof![
        (any_id(), "[a-z]{0,6}")
            .prop_map(move |(id, text)| Operation::InsertAfter { after_block_id: id, block: new_block(&text) }),
        (any_id(), "[a-z]{0,6}")
            .prop_map(move |(id, text)| Operation::InsertBefore { before_block_id: id, block: new_block(&text) }),
        (any_id(), "[a-z一二]{0,6}").prop_map(|(id, text)| Operation::Update {
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

fn apply(page: &mut Page, operations: &[Operation]) -> Option<ToolResultV1> {
    let args = json!({"documentId": "doc", "baseRevision": page.revision, "dryRun": false,
        "idempotencyKey": "k", "operations": operations});
    let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0;
    let mut mint = || {
        n += 1;
        format!("b_{n}")
    };
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: pageai_core::policy::Role::Owner,
        contexts: &NoContexts,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    let call = Call {
        tool_name: "mnote.doc.apply_block_ops",
        args: &args,
        origin: Origin::User,
        actor: "user",
        at: "2027-01-01T00:00:00Z",
        tool_call_id: "c",
        new_context_id: "",
    };
    match execute(page, &call, &mut env).ok()?.effect {
        Effect::Applied(result) => Some(result),
        _ => None,
    }
}

fn sent(before: &Page, after: &Page, result: ToolResultV1) -> Vec<LiveEventV1> {
    let writes = [AppliedWrite { origin: Origin::User, run_id: None, review_session_id: None, result }];
    // The blocks the executor recorded in the page's history: what the Worker sends.
    let (written, deleted) = live::touched(&writes);
    let change = Change {
        from_revision: before.revision,
        written: &written,
        deleted: &deleted,
        author: Author::Writes(&writes),
    };
    let commit = Commit { page: after, at: "2027-01-01T00:00:00Z", change: Some(change), events: &[], sessions: &[] };
    live::messages(&commit, 1).iter().map(|m| from_json(&live::encode(m).unwrap()).unwrap()).collect()
}

proptest! {
    #[test]
    fn following_a_batch_gives_the_servers_page(page in any_page(), ops in prop::collection::vec(any_op(), 1..5)) {
        let mut after = page.clone();
        let Some(result) = apply(&mut after, &ops) else { return Ok(()) };
        let mut copy = page.clone();
        for message in sent(&page, &after, result) {
            live::follow(&mut copy, &message).unwrap();
        }
        prop_assert_eq!(copy, after);
    }

    #[test]
    fn a_missed_batch_asks_for_a_resync_and_keeps_the_page(
        page in any_page(),
        first in prop::collection::vec(any_op(), 1..3),
        second in prop::collection::vec(any_op(), 1..3),
    ) {
        let mut middle = page.clone();
        let Some(_) = apply(&mut middle, &first) else { return Ok(()) };
        let mut last = middle.clone();
        let Some(result) = apply(&mut last, &second) else { return Ok(()) };
        let mut copy = page.clone();
        for message in sent(&middle, &last, result) {
            let error = live::follow(&mut copy, &message).unwrap_err();
            prop_assert_eq!(error.code(), ErrorCode::LiveResync);
        }
        prop_assert_eq!(copy, page);
    }
}
