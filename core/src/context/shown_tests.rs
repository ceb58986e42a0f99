//! How a v2 context places suggestions: after the last piece of their block, on new blocks at their anchor
//! (through a run of inserts), never on a context-only neighbour, and never more than once across chunks.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::ops::{NewBlock, Operation};
use crate::page::{Attrs, Block, BlockType, Page};
use crate::wire::{AuthorKind, AuthorV1, SUGGESTION_V1, SuggestionDiffV1, SuggestionState};

fn page() -> Page {
    Page::new(
        "ws_1",
        "doc_1",
        "Plan",
        vec![
            Block::paragraph("p_1", "alpha"),
            Block::paragraph("p_2", "一二三四五六七八九十"),
            Block::paragraph("p_3", "omega"),
        ],
    )
    .unwrap()
}

fn suggestion(
    session: &str,
    block: &str,
    before: Option<&str>,
    after: Option<&str>,
    ops: Vec<Operation>,
) -> SuggestionV1 {
    SuggestionV1 {
        schema: SUGGESTION_V1.into(),
        suggestion_id: alloc::format!("{session}:{block}"),
        session_id: session.into(),
        document_id: "doc_1".into(),
        block_id: block.into(),
        change: if before.is_none() { "insert".into() } else { "update".into() },
        author: AuthorV1 { kind: AuthorKind::Person, actor: "alice".into(), run_id: None },
        reason: None,
        operations: ops,
        diff: SuggestionDiffV1 { before: before.map(String::from), after: after.map(String::from), segments: vec![] },
        state: SuggestionState::Pending,
        created_at: "2026-12-05T00:00:00Z".into(),
    }
}

fn insert_after(anchor: &str, id: &str, text: &str) -> Operation {
    let block =
        NewBlock { block_id: Some(id.into()), kind: BlockType::Paragraph, text: text.into(), attrs: Attrs::default() };
    Operation::InsertAfter { after_block_id: anchor.into(), block }
}

fn shown(ctx: &PageAiContextV2) -> Vec<(&str, &str)> {
    ctx.suggestions.iter().map(|s| (s.block_id.as_str(), s.anchor_block_id.as_str())).collect()
}

#[test]
fn a_cut_block_shows_its_suggestion_once_after_its_last_piece() {
    let list = [suggestion("rs_a", "p_2", Some("一二三四五六七八九十"), Some("一二三"), vec![])];
    let request = ContextRequest::new(Scope::Block { block_id: "p_2".into() }).with_budget(5);
    let mut ctx = build_context_v2(&page(), &request, "c", &list).unwrap();
    let mut seen = Vec::new();
    loop {
        let text = ctx.page_text.clone().unwrap();
        seen.push((text.contains("⟦suggestion rs_a:p_2"), ctx.suggestions.len()));
        let Some(token) = ctx.continuation.clone() else { break };
        ctx = build_context_v2(&page(), &request.clone().with_continuation(token), "c", &list).unwrap();
    }
    assert_eq!(seen, [(false, 0), (false, 0), (true, 1)], "4 + 4 + 2 characters, the marker after the last");
}

#[test]
fn new_blocks_show_at_their_anchor_through_a_run_of_inserts_and_not_on_neighbours() {
    let list = [
        suggestion("rs_b", "n_2", None, Some("second new"), vec![insert_after("n_1", "n_2", "second new")]),
        suggestion("rs_b", "n_1", None, Some("first new"), vec![insert_after("p_1", "n_1", "first new")]),
        suggestion("rs_c", "p_3", Some("omega"), Some("OMEGA"), vec![]),
        suggestion("rs_d", "n_9", None, Some("orphan"), vec![insert_after("gone", "n_9", "orphan")]),
    ];
    let ctx = build_context_v2(&page(), &ContextRequest::new(Scope::Full), "c", &list).unwrap();
    assert_eq!(shown(&ctx), [("n_2", "p_1"), ("n_1", "p_1"), ("p_3", "p_3")], "the orphan is left out");
    let text = ctx.page_text.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);
    assert!(lines[1].contains("pending insert by person \"alice\"⟧ (no block yet) → \"second new\""), "{text}");
    // A selection of p_2 shows p_1 and p_3 as context-only neighbours, without their suggestions.
    let request = ContextRequest::new(Scope::Selection { block_ids: vec!["p_2".into()] });
    let ctx = build_context_v2(&page(), &request, "c", &list).unwrap();
    assert!(ctx.suggestions.is_empty());
    assert!(!ctx.page_xml.unwrap().contains("<suggestion"));
}

#[test]
fn other_documents_and_ended_suggestions_are_not_shown() {
    let mut other = suggestion("rs_e", "p_1", Some("alpha"), Some("beta"), vec![]);
    other.document_id = "doc_2".into();
    let mut ended = suggestion("rs_f", "p_1", Some("alpha"), Some("gamma"), vec![]);
    ended.state = SuggestionState::Accepted;
    let ctx = build_context_v2(&page(), &ContextRequest::new(Scope::Full), "c", &[other, ended]).unwrap();
    assert!(ctx.suggestions.is_empty());
    assert_eq!(ctx.page_text.unwrap(), "alpha\n一二三四五六七八九十\nomega");
}
