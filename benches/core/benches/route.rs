//! Router speed: route plus its self dry-run, on a 200-block and a 10,000-block page. Targets (native
//! median): 50 µs or less, and 2 ms or less.

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
    for (name, size, target) in [("route_200", 200, "第123段"), ("route_10k", 10_000, "第9876段")] {
        let p = page(size);
        let context = FrozenContext {
            context_id: "ctx".into(),
            document_id: p.document_id.clone(),
            revision: p.revision,
            scope: "full".into(),
            allowed_target_block_ids: p.blocks.iter().map(|b| b.block_id.clone()).collect(),
            block_hashes: Default::default(),
        };
        let prompt = format!("请把「{target}」替换为「第一百段」");
        let input = RouteInput {
            page: &p,
            context: &context,
            selection: &[],
            profile: &profile,
            grants: None,
            idempotency_key: "k",
        };
        assert!(route(&prompt, &input).recommended_tool_call.is_some(), "the bench prompt routes directly");
        c.bench_function(name, |b| b.iter(|| route(black_box(&prompt), black_box(&input))));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
