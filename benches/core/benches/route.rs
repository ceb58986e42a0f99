//! Router speed: route plus its self dry-run (`route` previews every direct recommendation itself), on a
//! 200-block and a 10,000-block page. Budgets (native median), in each bench's name: 50 µs or less at 200
//! blocks (issue 27), 2 ms or less at 10,000. At 200 blocks one prompt per intent: a quoted replace, a
//! delete by position, a type change, an insert after a block named by its text, and a politely wrapped
//! English replace in the new-text-first order.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pageai_core::executor::FrozenContext;
use pageai_core::page::{Block, Page};
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::route::{RouteInput, route};

fn page(blocks: usize) -> Page {
    let blocks = (0..blocks)
        .map(|i| {
            if i % 10 == 0 {
                Block::heading(format!("h_{i}"), 2, format!("第{i}节 Section {i}"))
            } else {
                Block::paragraph(format!("p_{i}"), format!("第{i}段：编辑命令层的示例文字 paragraph {i} of the page."))
            }
        })
        .collect();
    Page::new("ws", "doc", "Bench", blocks).unwrap()
}

fn bench(c: &mut Criterion) {
    let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
    let cases: [(&str, usize, String); 6] = [
        ("route+dry-run 200 blocks replace (budget 50us)", 200, "请把「第123段」替换为「第一百段」".into()),
        ("route+dry-run 200 blocks delete (budget 50us)", 200, "删除第二十段".into()),
        ("route+dry-run 200 blocks type change (budget 50us)", 200, "turn the 30th paragraph into a quote".into()),
        ("route+dry-run 200 blocks insert (budget 50us)", 200, "在「第123段」后面加一个待办「跟进」".into()),
        (
            "route+dry-run 200 blocks en new-first (budget 50us)",
            200,
            "could you use \"page 123\" in place of \"paragraph 123 \" for me, thanks!".into(),
        ),
        ("route+dry-run 10k blocks replace (budget 2ms)", 10_000, "请把「第9876段」替换为「第一百段」".into()),
    ];
    for (name, size, prompt) in cases {
        let p = page(size);
        let context = FrozenContext {
            context_id: "ctx".into(),
            document_id: p.document_id.clone(),
            revision: p.revision,
            scope: "full".into(),
            allowed_target_block_ids: p.blocks.iter().map(|b| b.block_id.clone()).collect(),
            block_hashes: Default::default(),
        };
        let input = RouteInput {
            page: &p,
            context: &context,
            selection: &[],
            profile: &profile,
            grants: None,
            idempotency_key: "k",
        };
        let r = route(&prompt, &input);
        assert!(r.recommended_tool_call.is_some(), "{name}: the bench prompt routes directly ({})", r.reason);
        c.bench_function(name, |b| b.iter(|| route(black_box(&prompt), black_box(&input))));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
