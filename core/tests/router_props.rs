//! Router properties: it never panics on any input, and a direct recommendation always dry-runs cleanly on
//! the page it was routed against.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Effect, Env, FrozenContext, Origin, preview};
use pageai_core::page::{Block, Page};
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::route::{RouteInput, RouteV1, route};
use proptest::prelude::*;
use std::collections::BTreeMap;

fn page() -> Page {
    let blocks = vec![
        Block::heading("h_1", 1, "计划 Plan"),
        Block::paragraph("p_1", "第一版计划：把 A 改成 B。"),
        Block::paragraph("p_2", "The API is not final, the API may change."),
        Block::paragraph("p_3", "locked 文本").locked(),
        Block::new("l_1", pageai_core::BlockType::BulletedListItem, "列表项 item"),
        Block::paragraph("p_4", "最后一段 last words"),
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
            let mut env = Env { profile: &profile, grants: None, contexts: &contexts, idempotency: &mut store, mint: &mut mint };
            let c = Call { tool_name: &call.tool_name, args: &call.args, origin: Origin::User, actor: "u", at: "t", tool_call_id: "c", new_context_id: "x" };
            let out = preview(&p, &c, &mut env);
            prop_assert!(matches!(out, Ok(ref o) if matches!(o.effect, Effect::Previewed(_))), "{prompt:?} → {out:?}");
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
