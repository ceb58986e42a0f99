//! Operations engine speed: a dry-run of one unique replace on a 10,000-block page, against a plain
//! `memchr::memmem` scan of the whole page text in the same run; and a character diff of two 20 KB CJK
//! texts that differ in about 5% of places.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Env, NoContexts, Origin, execute};
use pageai_core::ops::diff::inline_diff;
use pageai_core::page::{Block, Page};
use pageai_core::profile::Profile;
use serde_json::json;

fn big_page() -> Page {
    let blocks = (0..10_000)
        .map(|i| {
            Block::paragraph(
                format!("p_{i}"),
                format!("第{i}段：编辑命令层把自然语言变成可校验的工具调用 paragraph {i} of the bench page."),
            )
        })
        .collect();
    Page::new("ws", "doc", "Bench", blocks).unwrap()
}

fn cjk_pair() -> (String, String) {
    let alphabet: Vec<char> = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处府研质".chars().collect();
    let mut state = 7u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let before: String = (0..6_800).map(|_| alphabet[next() % alphabet.len()]).collect();
    let after: String =
        before.chars().map(|c| if next() % 20 == 0 { alphabet[next() % alphabet.len()] } else { c }).collect();
    (before, after)
}

fn bench(c: &mut Criterion) {
    let page = big_page();
    let needle = "第9876段";
    let args = json!({
        "documentId": "doc", "baseRevision": 0, "dryRun": true, "idempotencyKey": "k",
        "operations": [{"op": "replace", "matchText": needle, "content": "第九八七六段"}]
    });
    let profile = Profile::default();
    let mut group = c.benchmark_group("ops_10k");
    // A dry-run never changes the page (a property test checks it), so one copy serves every iteration.
    let mut dry_page = page.clone();
    group.bench_function("dry_run_unique_replace", |b| {
        b.iter(|| {
            let page = &mut dry_page;
            let mut store = MemoryIdempotencyStore::new();
            let mut mint = || String::from("b_0000000000");
            let call = Call {
                tool_name: "doc_apply_block_ops",
                args: &args,
                origin: Origin::User,
                actor: "u",
                at: "t",
                tool_call_id: "c",
                new_context_id: "x",
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
            black_box(execute(page, &call, &mut env).unwrap());
        })
    });
    let text: String = page.blocks.iter().map(|b| b.text.as_str()).collect::<Vec<_>>().join("\n");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    group.bench_function("memmem_scan_whole_text", |b| {
        b.iter(|| black_box(finder.find_iter(black_box(text.as_bytes())).count()))
    });
    group.finish();

    let (before, after) = cjk_pair();
    eprintln!("cjk diff inputs: {} and {} bytes", before.len(), after.len());
    c.bench_function("char_diff_20kb_cjk_5pct", |b| {
        b.iter(|| black_box(inline_diff(black_box(&before), black_box(&after))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
