//! Context builder speed: the `page_xml` view of a 10,000-block (~1 MB) page, against `serde_json` of the
//! same page in the same run. The ratio is the figure that matters: the target is 1.5 or less.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use pageai_core::context::{ContextRequest, Format, Scope, build_context};
use pageai_core::page::{Block, Page};
use std::hint::black_box;

fn big_page() -> Page {
    let blocks = (0..10_000)
        .map(|i| {
            let text = if i % 2 == 0 {
                format!("第{i}段：我们把编辑命令层做成 Rust 内核，浏览器和边缘用同一份代码 <safe> & \"quoted\" 文本。")
            } else {
                format!("Paragraph {i}: the browser preview and the server dry-run share one core, so answers match.")
            };
            Block::paragraph(format!("p_{i}"), text)
        })
        .collect();
    Page::new("ws", "doc_bench", "Bench", blocks).unwrap_or_else(|e| panic!("{e}"))
}

fn bench(c: &mut Criterion) {
    let page = big_page();
    let request = ContextRequest::new(Scope::Full).with_formats(&[Format::PageXml]);
    let text_bytes: usize = page.blocks.iter().map(|b| b.text.len()).sum();
    eprintln!("page: {} blocks, {} bytes of text", page.blocks.len(), text_bytes);
    let mut group = c.benchmark_group("context_10k");
    group.bench_function("page_xml_full", |b| b.iter(|| build_context(black_box(&page), &request, "ctx")));
    group.bench_function("serde_json_to_string", |b| b.iter(|| serde_json::to_string(black_box(&page))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
