use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;

use super::*;
use crate::page::{Attrs, Block, BlockType, Page};

fn page() -> Page {
    let mut p = Page::new(
        "ws",
        "doc",
        "t",
        vec![
            Block::heading("h_1", 1, "计划"),
            Block::paragraph("p_1", "第一版计划：A and A"),
            Block::paragraph("p_2", "second A"),
            Block::paragraph("p_3", "locked").locked(),
            Block::paragraph("p_4", "last"),
        ],
    )
    .unwrap();
    p = p.at_revision(3);
    p
}

fn mint() -> impl FnMut() -> String {
    let mut n = 0;
    move || {
        n += 1;
        alloc::format!("b_new{n}")
    }
}

fn replace(block: Option<&str>, m: &str, c: &str) -> Operation {
    Operation::Replace {
        block_id: block.map(Into::into),
        match_text: m.into(),
        content: c.into(),
        occurrence: Occurrence::Unique,
    }
}

fn texts(blocks: &[Block]) -> Vec<(&str, &str)> {
    blocks.iter().map(|b| (b.block_id.as_str(), b.text.as_str())).collect()
}

#[test]
fn unique_replace_in_one_block_is_low_risk_with_a_cjk_diff() {
    let p = page();
    let plan = plan(&p, &[replace(None, "第一版", "第二版")], &TargetScope::unrestricted(), &mut mint()).unwrap();
    assert_eq!(plan.risk, Risk::Low);
    assert_eq!(plan.changed.len(), 1);
    let c = &plan.changed[0];
    assert_eq!((c.block_id.as_str(), c.op.as_str()), ("p_1", "replace"));
    assert_eq!(c.before.as_deref(), Some("第一版计划：A and A"));
    assert_eq!(c.after.as_deref(), Some("第二版计划：A and A"));
    assert_eq!(c.revision_ref, p.revision_ref(&p.blocks[1]));
    assert!(plan.diffs[0].inline.iter().any(|s| s.tag == diff::SpanTag::Insert && s.text == "二"));
    assert_eq!(
        plan.inverse,
        [Operation::Update {
            block_id: "p_1".into(),
            text: Some("第一版计划：A and A".into()),
            kind: None,
            attrs: None
        }]
    );
}

#[test]
fn ambiguous_match_lists_every_place() {
    let err = plan(&page(), &[replace(None, "A", "B")], &TargetScope::unrestricted(), &mut mint()).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_match_ambiguous");
    assert_eq!(err.details()["count"], 3);
    assert_eq!(err.message(), "matchText \"A\" found 3 times in p_1, p_2");
    assert_eq!(err.details()["matches"][1], serde_json::json!({"blockId": "p_1", "offset": 12}));
}

#[test]
fn occurrence_all_replaces_everywhere_and_is_medium() {
    let op =
        Operation::Replace {
            block_id: None, match_text: "A".into(), content: "Ω".into(), occurrence: Occurrence::All
        };
    let plan = plan(&page(), &[op], &TargetScope::unrestricted(), &mut mint()).unwrap();
    assert_eq!(plan.risk, Risk::Medium);
    assert_eq!(texts(&plan.blocks_after(&page()))[1..3], [("p_1", "第一版计划：Ω and Ω"), ("p_2", "second Ω")]);
}

#[test]
fn a_miss_suggests_the_nearest_text() {
    let err =
        plan(&page(), &[replace(Some("p_2"), "secnd", "x")], &TargetScope::unrestricted(), &mut mint()).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_match_not_found");
    assert_eq!(err.details()["didYouMean"]["text"], "second");
    assert!(err.hint().contains("did you mean \"second\""), "{}", err.hint());
}

#[test]
fn validation_follows_the_spec_order() {
    let p = page();
    let scope = TargetScope::only(["p_2"]);
    let cases: Vec<(Operation, &str)> = vec![
        (replace(Some("p_9"), "x", "y"), "mnote_block_not_found"),
        (replace(Some("p_1"), "A", "y"), "mnote_block_target_out_of_scope"),
        (replace(Some("p_2"), "zzz", "y"), "mnote_match_not_found"),
    ];
    for (op, code) in cases {
        assert_eq!(plan(&p, &[op], &scope, &mut mint()).unwrap_err().code().as_str(), code);
    }
    let err = plan(&p, &[Operation::Delete { block_id: "p_3".into() }], &TargetScope::unrestricted(), &mut mint())
        .unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_not_editable");
    let err = plan(&p, &[replace(Some("p_9"), "", "y")], &scope, &mut mint()).unwrap_err();
    assert_eq!(err.details()["pointer"], "/operations/0/matchText");
    let near = plan(&p, &[replace(Some("p_22"), "x", "y")], &scope, &mut mint()).unwrap_err();
    assert_eq!(near.details()["nearestBlockIds"][0], "p_2");
}

#[test]
fn a_failing_batch_changes_nothing_and_says_nothing_about_later_ops() {
    let p = page();
    let before = p.clone();
    let ops = [replace(Some("p_2"), "second", "2nd"), Operation::Delete { block_id: "p_9".into() }];
    assert!(plan(&p, &ops, &TargetScope::unrestricted(), &mut mint()).is_err());
    assert_eq!(p, before);
}

#[test]
fn structural_ops_and_their_inverse() {
    let mut p = page();
    let original = p.clone();
    let ops = vec![
        Operation::InsertAfter {
            after_block_id: "h_1".into(),
            block: NewBlock {
                block_id: None,
                kind: BlockType::Paragraph,
                text: "新段落".into(),
                attrs: Attrs::default(),
            },
        },
        Operation::Move { block_id: "p_4".into(), after_block_id: None },
        Operation::Update { block_id: "p_2".into(), text: None, kind: Some(BlockType::Heading), attrs: None },
        Operation::Delete { block_id: "p_1".into() },
    ];
    let planned = plan(&p, &ops, &TargetScope::unrestricted(), &mut mint()).unwrap();
    let after = planned.blocks_after(&p);
    let ids: Vec<&str> = after.iter().map(|b| b.block_id.as_str()).collect();
    assert_eq!(ids, ["p_4", "h_1", "b_new1", "p_2", "p_3"]);
    assert_eq!(after[3].attrs.level, Some(2), "a type change fills what the new type needs");
    assert_eq!(planned.risk, Risk::Medium);
    assert!(
        matches!(&planned.operations[0], Operation::InsertAfter { block, .. } if block.block_id.as_deref() == Some("b_new1"))
    );
    let ops_changed: Vec<(&str, &str)> = planned.changed.iter().map(|c| (c.block_id.as_str(), c.op.as_str())).collect();
    assert_eq!(ops_changed, [("p_4", "move"), ("b_new1", "insert"), ("p_2", "update"), ("p_1", "delete")]);
    let inverse = planned.inverse.clone();
    planned.commit(&mut p);
    assert_eq!(p.revision, 4);
    let undo = plan(&p, &inverse, &TargetScope::unrestricted(), &mut mint()).unwrap();
    undo.commit(&mut p);
    assert_eq!(p.blocks, original.blocks);
}

#[test]
fn scope_can_be_narrowed_never_widened() {
    let asked = ["p_2".to_string(), "p_4".to_string()];
    let scope = TargetScope::only(["p_1", "p_2"]).narrowed_by(Some(&asked));
    assert!(scope.allows("p_2"));
    assert!(!scope.allows("p_1"));
    assert!(!scope.allows("p_4"));
}

#[test]
fn more_than_three_deletes_is_high_risk() {
    let mut p = page();
    p.blocks.push(Block::paragraph("p_5", "x"));
    let ops: Vec<Operation> =
        ["h_1", "p_1", "p_2", "p_4"].iter().map(|id| Operation::Delete { block_id: (*id).into() }).collect();
    assert_eq!(plan(&p, &ops, &TargetScope::unrestricted(), &mut mint()).unwrap().risk, Risk::High);
}

fn new_paragraph(text: &str) -> NewBlock {
    NewBlock { block_id: None, kind: BlockType::Paragraph, text: text.into(), attrs: Attrs::default() }
}

/// The editable blocks of `p`: the allowed targets of a full-page context.
fn editable(p: &Page) -> Vec<String> {
    p.blocks.iter().filter(|b| b.editable).map(|b| b.block_id.clone()).collect()
}

#[test]
fn a_locked_block_anchors_an_insert_without_being_written() {
    let mut p = page();
    p.blocks.push(Block::paragraph("p_end", "Signed: legal").locked());
    let full = editable(&p);
    let scope = TargetScope::only(full.iter().map(String::as_str));
    for (op, expected_order) in [
        (
            Operation::InsertAfter { after_block_id: "p_end".into(), block: new_paragraph("appended") },
            &["h_1", "p_1", "p_2", "p_3", "p_4", "p_end", "b_new1"][..],
        ),
        (
            Operation::InsertBefore { before_block_id: "p_3".into(), block: new_paragraph("before the lock") },
            &["h_1", "p_1", "p_2", "b_new1", "p_3", "p_4", "p_end"],
        ),
        (
            Operation::Move { block_id: "p_1".into(), after_block_id: Some("p_end".into()) },
            &["h_1", "p_2", "p_3", "p_4", "p_end", "p_1"],
        ),
    ] {
        let planned = plan(&p, core::slice::from_ref(&op), &scope, &mut mint()).unwrap();
        let after = planned.blocks_after(&p);
        let order: Vec<&str> = after.iter().map(|b| b.block_id.as_str()).collect();
        assert_eq!(order, expected_order, "{op:?}");
        assert!(planned.changed.iter().all(|c| c.block_id != "p_3" && c.block_id != "p_end"), "{op:?}");
        for locked in ["p_3", "p_end"] {
            let before = p.block(locked).unwrap();
            let now = after.iter().find(|b| b.block_id == locked).unwrap();
            assert_eq!((now.text.as_str(), now.editable), (before.text.as_str(), false), "{op:?}");
        }
    }
}

#[test]
fn a_locked_anchor_outside_the_scope_is_refused_and_a_locked_target_stays_locked() {
    let mut p = page();
    p.blocks.push(Block::paragraph("p_end", "Signed: legal").locked());
    let insert_after = |id: &str| Operation::InsertAfter { after_block_id: id.into(), block: new_paragraph("x") };
    // p_3 sits between p_2 and p_4: a scope of p_2 alone does not reach past it.
    let err = plan(&p, &[insert_after("p_3")], &TargetScope::only(["p_2"]), &mut mint()).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_target_out_of_scope");
    // The last block is reached through p_4, the editable block before it.
    assert!(plan(&p, &[insert_after("p_end")], &TargetScope::only(["p_4"]), &mut mint()).is_ok());
    let err = plan(&p, &[insert_after("p_end")], &TargetScope::only(["p_1"]), &mut mint()).unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_target_out_of_scope");
    // Being a fine anchor never makes a locked block writable.
    let full = editable(&p);
    let scope = TargetScope::only(full.iter().map(String::as_str));
    for op in [
        Operation::Update { block_id: "p_end".into(), text: Some("x".into()), kind: None, attrs: None },
        Operation::Delete { block_id: "p_end".into() },
        Operation::Move { block_id: "p_end".into(), after_block_id: None },
        replace(Some("p_end"), "legal", "x"),
    ] {
        let err = plan(&p, core::slice::from_ref(&op), &scope, &mut mint()).unwrap_err();
        assert_eq!(err.code().as_str(), "mnote_block_target_out_of_scope", "{op:?}");
    }
    let err = plan(&p, &[Operation::Delete { block_id: "p_end".into() }], &TargetScope::unrestricted(), &mut mint())
        .unwrap_err();
    assert_eq!(err.code().as_str(), "mnote_block_not_editable");
}

#[test]
fn commit_records_the_new_revision_of_every_changed_block_and_forgets_deleted_ones() {
    let mut p: Page = crate::json::from_json(&crate::json::to_json(&page()).unwrap()).unwrap();
    assert_eq!(p.history.known_since(), 3, "a page read from JSON knows nothing before its revision");
    let operations = [
        replace(Some("p_1"), "第一版", "第二版"),
        Operation::Move { block_id: "p_4".into(), after_block_id: None },
        Operation::Delete { block_id: "p_2".into() },
        Operation::InsertAfter {
            after_block_id: "h_1".into(),
            block: NewBlock { block_id: None, kind: BlockType::Paragraph, text: "new".into(), attrs: Attrs::default() },
        },
    ];
    let plan = plan(&p, &operations, &TargetScope::unrestricted(), &mut mint()).unwrap();
    plan.commit(&mut p);
    assert_eq!(p.revision, 4);
    let rows: Vec<(&str, u64)> = p.history.rows().collect();
    assert_eq!(rows, [("b_new1", 4), ("p_1", 4), ("p_4", 4)]);
    assert!(!p.history.changed_after("h_1", 3), "an anchor does not change");
    assert!(p.history.changed_after("p_1", 3));
}
