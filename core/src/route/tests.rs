use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::{Value, json};

use super::*;
use crate::ops::Risk;
use crate::page::Block;
use crate::profile::ReviewMode;

fn page() -> Page {
    let mut p = Page::new(
        "ws",
        "doc",
        "t",
        vec![
            Block::heading("h_1", 1, "周报 Weekly"),
            Block::paragraph("p_1", "本周完成了第一版计划。"),
            Block::paragraph("p_2", "The API is not final. The API may change."),
            Block::paragraph("p_3", "Signed off by legal.").locked(),
            Block::paragraph("p_4", "Next: ship the Rust core."),
        ],
    )
    .unwrap();
    p = p.at_revision(2);
    p
}

fn frozen(p: &Page) -> FrozenContext {
    FrozenContext {
        context_id: "ctx".into(),
        document_id: p.document_id.clone(),
        revision: p.revision,
        scope: "full".into(),
        allowed_target_block_ids: p.blocks.iter().filter(|b| b.editable).map(|b| b.block_id.clone()).collect(),
        block_hashes: Default::default(),
    }
}

fn run(prompt: &str, selection: &[&str], mode: ReviewMode) -> RouteV1 {
    let p = page();
    let ctx = frozen(&p);
    let selection: Vec<String> = selection.iter().map(|s| s.to_string()).collect();
    let profile = Profile { review_mode: mode, ..Profile::default() };
    route(
        prompt,
        &RouteInput {
            page: &p,
            context: &ctx,
            selection: &selection,
            profile: &profile,
            grants: None,
            idempotency_key: "k",
        },
    )
}

fn ops(r: &RouteV1) -> Value {
    r.recommended_tool_call.as_ref().map(|c| c.args["operations"].clone()).unwrap_or(Value::Null)
}

#[test]
fn quoted_chinese_replace_is_direct_and_low_risk() {
    let r = run("请把「第一版」替换为「第二版」。", &[], ReviewMode::Yolo);
    assert_eq!(r.intent, Intent::DirectReplace);
    assert!(!r.requires_hermes_run && !r.requires_review);
    assert_eq!(r.risk, Risk::Low);
    assert_eq!(r.confidence, 0.95);
    assert_eq!(ops(&r), json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]));
    let args = &r.recommended_tool_call.as_ref().unwrap().args;
    assert_eq!(args["dryRun"], true);
    assert_eq!(args["baseRevision"], 2);
    assert_eq!(args["contextId"], "ctx");
    assert_eq!(args["idempotencyKey"], "k");
}

#[test]
fn english_forms_and_quote_pairs() {
    for prompt in [
        "replace \"Rust core\" with \"Rust kernel\"",
        "Can you change 'Rust core' to 'Rust kernel'?",
        "please replace `Rust core` with `Rust kernel`.",
        "把“Rust core”换成“Rust kernel”",
    ] {
        let r = run(prompt, &[], ReviewMode::Review);
        assert_eq!(ops(&r), json!([{"op": "replace", "matchText": "Rust core", "content": "Rust kernel"}]), "{prompt}");
        assert!(r.requires_review, "review mode reviews every write");
    }
}

#[test]
fn an_occurrence_in_a_locked_block_or_outside_the_selection_makes_the_text_ambiguous() {
    let p = Page::new(
        "ws",
        "doc",
        "t",
        vec![
            Block::paragraph("p_1", "The fee is 10%. Ship it."),
            Block::paragraph("p_2", "The fee is fixed.").locked(),
            Block::paragraph("p_3", "Ship it later."),
        ],
    )
    .unwrap();
    let ctx = frozen(&p);
    let profile = Profile::default();
    let go = |prompt: &str, selection: &[String]| {
        let input =
            RouteInput { page: &p, context: &ctx, selection, profile: &profile, grants: None, idempotency_key: "k" };
        route(prompt, &input)
    };
    let p_1 = ["p_1".to_string()];
    for (prompt, selection, candidates) in [
        ("replace \"fee\" with \"charge\"", &[][..], ["p_1", "p_2"]),
        ("把「fee」改成「charge」", &[][..], ["p_1", "p_2"]),
        ("delete \"Ship it\"", &p_1[..], ["p_1", "p_3"]),
        ("add \"Note\" after \"fee\"", &[][..], ["p_1", "p_2"]),
        ("turn \"fee\" into a quote", &[][..], ["p_1", "p_2"]),
        ("把「fee」那段改成引用", &[][..], ["p_1", "p_2"]),
        ("在「fee」后面加一段「Note」", &[][..], ["p_1", "p_2"]),
        ("please replace \"fee\" with \"charge\" for me, thanks", &[][..], ["p_1", "p_2"]),
        ("use \"charge\" instead of \"fee\"", &[][..], ["p_1", "p_2"]),
        ("用「charge」替换「fee」好吗", &[][..], ["p_1", "p_2"]),
    ] {
        let r = go(prompt, selection);
        assert!(r.recommended_tool_call.is_none(), "{prompt}: {}", r.reason);
        assert_eq!(r.reason_code, Some(ReasonCode::MatchAmbiguous), "{prompt}: {}", r.reason);
        assert_eq!(r.tool_hint.unwrap().candidate_block_ids, candidates, "{prompt}");
    }
    // Named through the selection, the text is the selected block's.
    let r = go("in the selected paragraph, delete \"Ship it\"", &p_1);
    assert!(r.recommended_tool_call.is_some(), "{}", r.reason);
}

#[test]
fn ambiguity_goes_to_hermes_with_where() {
    let r = run("replace \"API\" with \"interface\"", &[], ReviewMode::Yolo);
    assert!(r.requires_hermes_run);
    assert_eq!(r.reason_code, Some(ReasonCode::MatchAmbiguous));
    assert_eq!(r.reason, "matchText \"API\" found 2 times in p_2");
    let hint = r.tool_hint.unwrap();
    assert_eq!(hint.candidate_block_ids, ["p_2"]);
    assert_eq!(hint.read_tools, ["mnote.doc.fetch", "mnote.block.fetch", "mnote.doc.search"]);
    assert_eq!(hint.write_tool.as_deref(), Some("mnote.doc.plan_update"));
    let r = run("replace all \"API\" with \"interface\"", &[], ReviewMode::Yolo);
    assert_eq!(ops(&r)[0]["occurrence"], "all");
    assert_eq!(r.risk, Risk::Medium);
}

#[test]
fn ordinals_selection_and_types() {
    let r = run("删除第二段", &[], ReviewMode::Yolo);
    assert_eq!(ops(&r), json!([{"op": "delete", "blockId": "p_2"}]));
    assert_eq!(r.risk, Risk::Medium);
    let r = run("把最后一段改成标题", &[], ReviewMode::Yolo);
    assert_eq!(ops(&r), json!([{"op": "update", "blockId": "p_4", "type": "heading", "attrs": {"level": 2}}]));
    let r = run("make the selected paragraph a todo", &["p_1"], ReviewMode::Yolo);
    assert_eq!(ops(&r), json!([{"op": "update", "blockId": "p_1", "type": "todo"}]));
    let r = run("delete the third paragraph", &[], ReviewMode::Yolo);
    assert_eq!(r.reason_code, Some(ReasonCode::NotEditable), "p_3 is locked");
    let r = run("delete the ninth paragraph", &[], ReviewMode::Yolo);
    assert_eq!(r.reason_code, Some(ReasonCode::TargetNotFound));
}

#[test]
fn selection_bounds_the_write() {
    let r = run("把选中的段落里的「Rust」改成「Go」", &["p_1"], ReviewMode::Yolo);
    assert_eq!(r.reason_code, Some(ReasonCode::OutOfSelection), "Rust is only outside the selection");
    let r = run("把选中的段落里的「Rust」改成「Go」", &["p_4"], ReviewMode::Yolo);
    assert_eq!(ops(&r), json!([{"op": "replace", "blockId": "p_4", "matchText": "Rust", "content": "Go"}]));
}

#[test]
fn a_selection_bounds_a_text_search_even_unsaid() {
    // Two blocks selected, a text only outside them: not a write anywhere else on the page.
    for prompt in ["把「Rust」改成「Go」", "replace \"Rust\" with \"Go\"", "删除「Rust」"] {
        let r = run(prompt, &["p_1", "p_2"], ReviewMode::Yolo);
        assert!(r.requires_hermes_run && r.recommended_tool_call.is_none(), "{prompt}: {r:?}");
        assert_eq!(r.reason_code, Some(ReasonCode::OutOfSelection), "{prompt}");
        assert!(r.reason.contains("outside the selection") && r.reason.contains("p_4"), "{}", r.reason);
    }
    // Inside the selection, the write is direct and stays there.
    let r = run("replace \"API\" with \"interface\" everywhere", &["p_2"], ReviewMode::Yolo);
    assert_eq!(r.recommended_tool_call.as_ref().map(|c| c.args["allowedTargetBlockIds"].clone()), Some(json!(["p_2"])));
    // A block named by position, and the place of an insert, are not bounded by it.
    let r = run("删除第二段", &["p_4"], ReviewMode::Yolo);
    assert_eq!(ops(&r), json!([{"op": "delete", "blockId": "p_2"}]));
    let r = run("在末尾添加「谢谢大家」", &["p_1"], ReviewMode::Yolo);
    assert!(!r.requires_hermes_run, "{r:?}");
}

#[test]
fn inserts_and_multi_commands() {
    let r = run("在末尾添加「谢谢大家」", &[], ReviewMode::Yolo);
    assert_eq!(
        ops(&r),
        json!([{"op": "insert_after", "afterBlockId": "p_4", "block": {"type": "paragraph", "text": "谢谢大家"}}])
    );
    let r = run("在「第一版」后面加一段「补充说明」", &[], ReviewMode::Yolo);
    assert_eq!(ops(&r)[0]["afterBlockId"], "p_1");
    let r = run("把「第一版」改成「第二版」，再把「Rust core」改成「Rust kernel」", &[], ReviewMode::Yolo);
    assert_eq!(ops(&r).as_array().unwrap().len(), 2);
    assert_eq!(r.risk, Risk::Medium, "two blocks");
    let r = run("replace \"第一版\" with \"v2\" and \"Rust core\" with \"kernel\"", &[], ReviewMode::Yolo);
    assert_eq!(ops(&r).as_array().unwrap().len(), 2);
    let r = run("把「第一版」改成「第二版」，再把「API」改成「接口」", &[], ReviewMode::Yolo);
    assert_eq!(r.reason_code, Some(ReasonCode::MatchAmbiguous), "one ambiguous part sends the batch to Hermes");
}

#[test]
fn unquoted_only_when_unique_and_plain() {
    let r = run("将第一版替换成第二版", &[], ReviewMode::Yolo);
    assert_eq!(r.confidence, 0.85);
    assert_eq!(ops(&r), json!([{"op": "replace", "matchText": "第一版", "content": "第二版"}]));
    let r = run("把语气改成更正式", &[], ReviewMode::Yolo);
    assert_eq!(r.intent, Intent::ComplexRewrite);
    let r = run("replace Rust with Go", &[], ReviewMode::Yolo);
    assert_eq!(ops(&r), json!([{"op": "replace", "matchText": "Rust", "content": "Go"}]));
}

#[test]
fn questions_rewrites_and_unsupported() {
    assert_eq!(run("这一页讲了什么？", &[], ReviewMode::Yolo).intent, Intent::ReadOnlyQuestion);
    assert_eq!(run("How many paragraphs are there?", &[], ReviewMode::Yolo).intent, Intent::ReadOnlyQuestion);
    assert_eq!(run("帮我润色一下第二段", &[], ReviewMode::Yolo).intent, Intent::ComplexRewrite);
    assert_eq!(run("make it more professional", &[], ReviewMode::Yolo).intent, Intent::ComplexRewrite);
    assert_eq!(run("把这一页发邮件给老板", &[], ReviewMode::Yolo).intent, Intent::Unsupported);
    assert_eq!(run("", &[], ReviewMode::Yolo).intent, Intent::Unsupported);
}

#[test]
fn disabled_tool_and_read_only_page_are_never_recommended() {
    let p = page();
    let ctx = frozen(&p);
    let mut profile = Profile::default();
    profile.tools.disabled = vec!["mnote.doc.apply_block_ops".into()];
    let r = route(
        "把「第一版」替换为「第二版」",
        &RouteInput { page: &p, context: &ctx, selection: &[], profile: &profile, grants: None, idempotency_key: "k" },
    );
    assert_eq!(r.reason_code, Some(ReasonCode::ToolDisabled));
    assert!(r.recommended_tool_call.is_none());
    let mut read_only = page();
    read_only.permission = crate::page::Permission::Read;
    let r = route(
        "把「第一版」替换为「第二版」",
        &RouteInput {
            page: &read_only,
            context: &ctx,
            selection: &[],
            profile: &Profile::default(),
            grants: None,
            idempotency_key: "k",
        },
    );
    assert_eq!(r.reason_code, Some(ReasonCode::ReadOnlyDocument));
    assert_eq!(r.tool_hint.unwrap().write_tool, None);
}
