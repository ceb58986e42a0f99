//! Router properties: it never panics on any input, and a direct recommendation always dry-runs cleanly on
//! the page it was routed against.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use pageai_core::BlockType;
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Effect, Env, FrozenContext, Origin, preview};
use pageai_core::ops::Risk;
use pageai_core::page::{Attrs, Block, Page};
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::route::Intent;
use pageai_core::route::{RouteInput, RouteV1, route};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn page() -> Page {
    let todo = |id: &str, text: &str, checked: bool| {
        let mut b = Block::new(id, BlockType::Todo, text);
        b.attrs = Attrs { checked: Some(checked), depth: Some(0), ..Attrs::default() };
        b
    };
    let mut code = Block::new("c_1", BlockType::Code, "let total = 3.5;");
    code.attrs.language = Some("rust".into());
    let blocks = vec![
        Block::heading("h_1", 1, "计划 Plan"),
        Block::paragraph("p_1", "第一版计划：把 A 改成 B。Budget 100 元, rate 13.5%."),
        Block::paragraph("p_2", "The API is not final, the API may change."),
        Block::paragraph("p_3", "locked 文本").locked(),
        Block::new("l_1", BlockType::BulletedListItem, "列表项 item"),
        todo("t_1", "Ship the Rust core", false),
        todo("t_2", "寫測試 tests", true),
        code,
        Block::new("q_1", BlockType::Quote, "Small steps, often."),
        Block::paragraph("p_4", "最后一段 last words"),
        Block::paragraph("p_5", "Signed: Legal").locked(),
    ];
    Page::new("ws", "doc", "t", blocks).unwrap()
}

fn context(p: &Page) -> FrozenContext {
    FrozenContext {
        context_id: "ctx".into(),
        document_id: p.document_id.clone(),
        revision: p.revision,
        scope: "full".into(),
        allowed_target_block_ids: p.blocks.iter().filter(|b| b.editable).map(|b| b.block_id.clone()).collect(),
        block_hashes: Default::default(),
    }
}

fn run(prompt: &str, selection: &[String]) -> (Page, FrozenContext, RouteV1) {
    let p = page();
    let ctx = context(&p);
    let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
    let r = route(
        prompt,
        &RouteInput { page: &p, context: &ctx, selection, profile: &profile, grants: None, idempotency_key: "k" },
    );
    (p, ctx, r)
}

fn prompt_pieces() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "把",
        "将",
        "「",
        "」",
        "『",
        "』",
        "“",
        "”",
        "\"",
        "'",
        "`",
        "《",
        "》",
        "替换为",
        "改成",
        "删除",
        "第二段",
        "最后一段",
        "在末尾添加",
        "后面加一段",
        "选中的",
        "全部",
        "，再",
        "replace ",
        " with ",
        "delete ",
        "the third paragraph",
        "append ",
        "make ",
        " a todo",
        "all ",
        "A",
        "B",
        "API",
        "第一版",
        "计划",
        "请",
        "please ",
        "。",
        "！",
        "?",
        " and ",
        "\u{0}",
        "\u{FEFF}",
        "😀",
        "ＡＢ",
        "勾选",
        "取消勾选",
        "第一个待办",
        "check off ",
        "uncheck ",
        "mark ",
        " as done",
        "the first todo",
        "移到最后",
        "移到",
        "后面",
        "move ",
        " to the top",
        "the code block",
        "the quote",
        " after ",
        "the heading ",
        "替換為",
        "刪除",
        "s/",
        "/",
        " -> ",
        "→",
        "100 元",
        "3.5%",
        "13.5%",
        "api",
        " rust core ",
        "Signed: Legal",
        "summarize",
        "总结一下",
        "what is ",
        "?",
    ]);
    prop::collection::vec(pieces, 0..14).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_any_string(s in any::<String>()) {
        let _ = run(&s, &[]);
    }

    #[test]
    fn never_panics_on_lossy_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let s = String::from_utf8_lossy(&bytes);
        let _ = run(&s, &["p_1".to_string()]);
    }

    #[test]
    fn direct_recommendations_always_dry_run_cleanly(prompt in prompt_pieces(), select in any::<bool>()) {
        let selection: Vec<String> = if select { vec!["p_1".into(), "p_2".into()] } else { vec![] };
        let (p, ctx, r) = run(&prompt, &selection);
        prop_assert_eq!(r.requires_hermes_run, r.recommended_tool_call.is_none());
        if let Some(call) = r.recommended_tool_call {
            let contexts: BTreeMap<String, FrozenContext> = [(ctx.context_id.clone(), ctx)].into_iter().collect();
            let mut store = MemoryIdempotencyStore::new();
            let mut mint = || "b_0000000001".to_string();
            let profile = Profile::default();
            let mut env = Env { profile: &profile, grants: None, role: pageai_core::policy::Role::Owner, contexts: &contexts, idempotency: &mut store, mint: &mut mint, suggestions: &[] };
            let c = Call { tool_name: &call.tool_name, args: &call.args, origin: Origin::User, actor: "u", at: "t", tool_call_id: "c", new_context_id: "x" };
            let out = preview(&p, &c, &mut env);
            prop_assert!(matches!(out, Ok(ref o) if matches!(o.effect, Effect::Previewed(_))), "{prompt:?} → {out:?}");
        }
    }
}

/// A case- and space-perturbed piece of some block's text: `(block index, perturbed)`.
fn perturbed_literal() -> impl Strategy<Value = (usize, String)> {
    let texts: Vec<String> = page().blocks.iter().map(|b| b.text.clone()).collect();
    (
        0..texts.len(),
        any::<prop::sample::Index>(),
        1usize..12,
        prop::collection::vec(any::<bool>(), 12),
        0usize..3,
        0usize..3,
    )
        .prop_map(move |(i, at, len, flips, lead, trail)| {
            let chars: Vec<char> = texts[i].chars().collect();
            let start = if chars.is_empty() { 0 } else { at.index(chars.len()) };
            let piece: String =
                chars
                    .iter()
                    .skip(start)
                    .take(len)
                    .zip(flips.iter().cycle())
                    .map(|(c, flip)| {
                        if *flip {
                            c.to_uppercase().next().unwrap_or(*c)
                        } else {
                            c.to_lowercase().next().unwrap_or(*c)
                        }
                    })
                    .collect();
            (i, format!("{}{piece}{}", " ".repeat(lead), " ".repeat(trail)))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// A literal matched only by ignoring case or surrounding spaces is never a low-risk or unreviewed write,
    /// and what it matched is the page's own text, the same ignoring case.
    #[test]
    fn case_folded_matches_are_never_low_risk((_, literal) in perturbed_literal(), yolo in any::<bool>()) {
        prop_assume!(!literal.contains('"') && !literal.trim().is_empty());
        let p = page();
        let ctx = context(&p);
        let mode = if yolo { ReviewMode::Yolo } else { ReviewMode::Review };
        let profile = Profile { review_mode: mode, ..Profile::default() };
        let prompt = format!("replace \"{literal}\" with \"Z\"");
        let r = route(&prompt, &RouteInput { page: &p, context: &ctx, selection: &[], profile: &profile, grants: None, idempotency_key: "k" });
        if let Some(call) = &r.recommended_tool_call {
            let matched = call.args["operations"][0]["matchText"].as_str().unwrap_or_default().to_string();
            prop_assert!(p.blocks.iter().any(|b| b.text.contains(&matched)), "{matched:?} is on the page");
            if matched != literal {
                prop_assert_eq!(matched.to_lowercase(), literal.trim().to_lowercase());
                prop_assert!(!p.blocks.iter().any(|b| b.text.contains(&literal)), "exact text is never read another way");
                prop_assert!(r.risk >= Risk::Medium, "{prompt:?} → {:?}", r.risk);
                prop_assert!(r.requires_review, "{prompt:?} is folded but not reviewed");
                prop_assert!(r.reason.contains("ignoring case"), "{}", r.reason);
            }
        }
    }

    /// A question or a summary never carries write risk, a review, or a call.
    #[test]
    fn read_only_routes_never_carry_write_risk(prompt in prompt_pieces(), mode in prop::sample::select(vec![ReviewMode::Yolo, ReviewMode::Review, ReviewMode::Required])) {
        let p = page();
        let ctx = context(&p);
        let profile = Profile { review_mode: mode, ..Profile::default() };
        let r = route(&prompt, &RouteInput { page: &p, context: &ctx, selection: &[], profile: &profile, grants: None, idempotency_key: "k" });
        if r.intent == Intent::ReadOnlyQuestion {
            prop_assert_eq!(r.risk, Risk::Low);
            prop_assert!(!r.requires_review && r.recommended_tool_call.is_none() && r.requires_hermes_run);
        }
    }

    /// Whatever a direct route does, a locked block comes out of its dry-run exactly as it went in.
    #[test]
    fn direct_routes_never_change_a_locked_block(prompt in prompt_pieces()) {
        let (p, ctx, r) = run(&prompt, &[]);
        if let Some(call) = r.recommended_tool_call {
            let contexts: BTreeMap<String, FrozenContext> = [(ctx.context_id.clone(), ctx)].into_iter().collect();
            let mut store = MemoryIdempotencyStore::new();
            let mut mint = || "b_0000000001".to_string();
            let profile = Profile::default();
            let mut env = Env { profile: &profile, grants: None, role: pageai_core::policy::Role::Owner, contexts: &contexts, idempotency: &mut store, mint: &mut mint, suggestions: &[] };
            let c = Call { tool_name: &call.tool_name, args: &call.args, origin: Origin::User, actor: "u", at: "t", tool_call_id: "c", new_context_id: "x" };
            if let Ok(out) = preview(&p, &c, &mut env) && let Effect::Previewed(result) = out.effect {
                for locked in p.blocks.iter().filter(|b| !b.editable) {
                    prop_assert!(result.changed_blocks.iter().all(|c| c.block_id != locked.block_id), "{prompt:?} changed {}", locked.block_id);
                }
            }
        }
    }
}

#[test]
fn a_one_megabyte_prompt_is_routed_quickly_to_hermes() {
    let big = "把「A」替换为「B」".repeat(100_000);
    assert!(big.len() > 1_000_000);
    let (_, _, r) = run(&big, &[]);
    assert!(r.requires_hermes_run);
    assert_eq!(r.reason_code.map(|c| c.as_str()), Some("complex"));
}

#[test]
fn the_folded_branch_of_the_property_is_reachable() {
    let p = page();
    let ctx = context(&p);
    let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
    let r = route(
        "replace \" ship the RUST core\" with \"Z\"",
        &RouteInput { page: &p, context: &ctx, selection: &[], profile: &profile, grants: None, idempotency_key: "k" },
    );
    let call = r.recommended_tool_call.expect("a unique folded match is recommended");
    assert_eq!(call.args["operations"][0]["matchText"], "Ship the Rust core");
    assert_eq!((r.risk, r.requires_review), (Risk::Medium, true));
}
