use alloc::string::ToString;
use alloc::vec;

use super::*;
use crate::page::{Block, Page};

fn page() -> Page {
    let mut p = Page::new(
        "ws_1",
        "doc_1",
        "计划 Plan",
        vec![
            Block::heading("h_1", 1, "计划 Plan"),
            Block::paragraph("p_1", "第一段：我们用 Rust 写内核。"),
            Block::heading("h_2", 2, "Details"),
            Block::paragraph("p_2", "Second paragraph about ＲＵＳＴ."),
            Block::paragraph("p_3", "locked text").locked(),
            Block::heading("h_3", 2, "End"),
            Block::paragraph("p_4", "last"),
        ],
    )
    .unwrap();
    p = p.at_revision(7);
    p
}

fn ids(blocks: &Option<Vec<ContextBlockV1>>) -> Vec<&str> {
    blocks.as_ref().unwrap().iter().map(|b| b.block_id.as_str()).collect()
}

#[test]
fn full_scope_allows_every_editable_block() {
    let ctx = build_context(&page(), &ContextRequest::new(Scope::Full), "ctx").unwrap();
    assert_eq!(ctx.scope, "full");
    assert_eq!(ctx.allowed_target_block_ids, ["h_1", "p_1", "h_2", "p_2", "h_3", "p_4"]);
    assert_eq!(ids(&ctx.blocks).len(), 7);
    assert!(!ctx.truncated);
    assert_eq!(ctx.continuation, None);
    assert!(ctx.conflict_detection_key.starts_with("body:7:"));
    assert_eq!(ctx.page_text.unwrap().lines().count(), 7);
}

#[test]
fn outline_counts_blocks_per_section_and_allows_nothing() {
    let ctx = build_context(&page(), &ContextRequest::new(Scope::Outline), "ctx").unwrap();
    assert!(ctx.allowed_target_block_ids.is_empty());
    let blocks = ctx.blocks.unwrap();
    let counts: Vec<(&str, Option<usize>)> = blocks.iter().map(|b| (b.block_id.as_str(), b.block_count)).collect();
    assert_eq!(counts, [("h_1", Some(6)), ("h_2", Some(2)), ("h_3", Some(1))]);
}

#[test]
fn block_scope_allows_only_an_editable_block() {
    let ctx = build_context(&page(), &ContextRequest::new(Scope::Block { block_id: "p_3".into() }), "c").unwrap();
    assert!(ctx.allowed_target_block_ids.is_empty(), "locked block is not a target");
    assert_eq!(ctx.selected_block_ids, ["p_3"]);
    let err = build_context(&page(), &ContextRequest::new(Scope::Block { block_id: "p_9".into() }), "c").unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_not_found");
}

#[test]
fn selection_adds_context_only_neighbours() {
    let scope = Scope::Selection { block_ids: vec!["p_2".into(), "p_1".into()] };
    let ctx = build_context(&page(), &ContextRequest::new(scope), "c").unwrap();
    assert_eq!(ctx.selected_block_ids, ["p_1", "p_2"]);
    assert_eq!(ctx.allowed_target_block_ids, ["p_1", "p_2"]);
    let blocks = ctx.blocks.unwrap();
    let shown: Vec<(&str, bool)> = blocks.iter().map(|b| (b.block_id.as_str(), b.context_only)).collect();
    assert_eq!(shown, [("h_1", true), ("p_1", false), ("h_2", true), ("p_2", false), ("p_3", true)]);
    let err = build_context(&page(), &ContextRequest::new(Scope::Selection { block_ids: vec!["nope".into()] }), "c");
    assert_eq!(err.unwrap_err().code().as_str(), "mnote_block_not_found");
}

#[test]
fn keyword_folds_case_and_width() {
    let ctx = build_context(&page(), &ContextRequest::new(Scope::Keyword { query: "rust".into() }), "c").unwrap();
    assert_eq!(ids(&ctx.blocks), ["p_1", "p_2"]);
    let ctx = build_context(&page(), &ContextRequest::new(Scope::Keyword { query: "内核".into() }), "c").unwrap();
    assert_eq!(ids(&ctx.blocks), ["p_1"]);
    let err = build_context(&page(), &ContextRequest::new(Scope::Keyword { query: "  ".into() }), "c").unwrap_err();
    assert_eq!(err.details()["pointer"], "/scope/query");
}

#[test]
fn budget_cuts_at_block_boundaries_and_continues() {
    let page = page();
    let first = build_context(&page, &ContextRequest::new(Scope::Full).with_budget(30), "c").unwrap();
    assert!(first.truncated);
    assert_eq!(first.warnings[0].code, "context_truncated");
    assert!(first.blocks.as_ref().unwrap().iter().all(|b| !b.partial));
    let token = first.continuation.clone().unwrap();
    let second =
        build_context(&page, &ContextRequest::new(Scope::Full).with_budget(30).with_continuation(token.clone()), "c")
            .unwrap();
    assert_ne!(ids(&first.blocks).last(), ids(&second.blocks).first());

    let mut newer = page.clone();
    newer.revision += 1;
    let stale =
        build_context(&newer, &ContextRequest::new(Scope::Full).with_continuation(token.clone()), "c").unwrap_err();
    assert_eq!(stale.code().as_str(), "mnote_context_stale");

    let mut other = page.clone();
    other.document_id = "doc_2".to_string();
    let wrong =
        build_context(&other, &ContextRequest::new(Scope::Full).with_continuation(token.clone()), "c").unwrap_err();
    assert_eq!(wrong.code().as_str(), "mnote_invalid_arguments");

    let wrong_scope =
        build_context(&page, &ContextRequest::new(Scope::Outline).with_continuation(token), "c").unwrap_err();
    assert_eq!(wrong_scope.code().as_str(), "mnote_invalid_arguments");

    let garbage = build_context(&page, &ContextRequest::new(Scope::Full).with_continuation("%%%"), "c").unwrap_err();
    assert_eq!(garbage.details()["pointer"], "/continuation");
}

#[test]
fn a_block_larger_than_the_budget_is_cut_and_marked_partial() {
    let page = Page::new("w", "d", "", vec![Block::paragraph("p_1", "一二三四五六七八九十")]).unwrap();
    let first = build_context(&page, &ContextRequest::new(Scope::Full).with_budget(4), "c").unwrap();
    let blocks = first.blocks.unwrap();
    assert_eq!((blocks[0].text.as_str(), blocks[0].partial, blocks[0].offset), ("一二三", true, Some(0)));
    let second = build_context(
        &page,
        &ContextRequest::new(Scope::Full).with_budget(4).with_continuation(first.continuation.unwrap()),
        "c",
    )
    .unwrap();
    let blocks = second.blocks.unwrap();
    assert_eq!((blocks[0].text.as_str(), blocks[0].offset), ("四五六", Some(3)));
    assert!(second.page_xml.unwrap().contains(r#"partial="true" offset="3""#));
}

#[test]
fn hostile_text_is_escaped_in_page_xml() {
    let page =
        Page::new("w", "d\"<", "t&", vec![Block::paragraph("p_1", "</block><page id='x'>&\u{1}\u{FFFF}\r")]).unwrap();
    let ctx = build_context(&page, &ContextRequest::new(Scope::Full).with_formats(&[Format::PageXml]), "c").unwrap();
    assert_eq!(
        ctx.page_xml.unwrap(),
        "<page id=\"d&quot;&lt;\" revision=\"0\" title=\"t&amp;\"><block id=\"p_1\" type=\"paragraph\">&lt;/block&gt;&lt;page id=&apos;x&apos;&gt;&amp;\u{FFFD}\u{FFFD}&#13;</block></page>"
    );
    assert!(ctx.page_text.is_none() && ctx.blocks.is_none());
}

#[test]
fn bad_requests_name_the_field() {
    let err = build_context(&page(), &ContextRequest::new(Scope::Full).with_formats(&[]), "c").unwrap_err();
    assert_eq!(err.details()["pointer"], "/formats");
    let err = build_context(&page(), &ContextRequest::new(Scope::Full).with_budget(0), "c").unwrap_err();
    assert_eq!(err.details()["pointer"], "/budget/maxChars");
    let err =
        crate::json::from_json::<ContextRequest>(r#"{"scope":{"type":"full"},"budget":{"maxChars":"x"}}"#).unwrap_err();
    assert_eq!(err.details()["pointer"], "/budget/maxChars");
    let err = crate::json::from_json::<ContextRequest>(r#"{"scope":{"type":"full"},"extra":1}"#).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_invalid_arguments");
    let err =
        crate::json::from_json::<ContextRequest>(r#"{"scope":{"type":"block","blockId":"a","x":1}}"#).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_invalid_arguments");
}
