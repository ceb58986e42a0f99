//! Block-level preconditions: what checking that the blocks a write touches are unchanged since the
//! caller's read costs, next to the write itself, on a 10,000-block page (goal: under 5% of the write).
//!
//! Every case applies one write through the executor (`execute_write`: plan, check, commit, answer) on a
//! fresh copy of the page (the copy is not timed). The page has a full history (every block's last
//! change, as the Worker keeps it), at revision 10,000.
//!
//! - `write_at_current_revision`: `baseRevision` is the page's: nothing can have changed, no block is
//!   looked at. This is the write itself.
//! - `write_rebased_history`: read at revision 9,000; the touched block is judged by the page's history.
//! - `write_rebased_revision_refs`: the same, with the block's `revisionRef` (a content hash compare).
//! - `write_context_bound_at_current_revision`: bound to a frozen context of the whole page (its 10,000
//!   allowed ids make the write's scope) without block hashes, at the current revision: the context-bound
//!   write itself.
//! - `write_rebased_context`: the same context with its 10,000 block hashes, read at 9,000.
//! - `write_20_blocks_*`: a 20-operation batch, at the current revision and read at 9,000 (the check
//!   indexes the page once for more than a few ids).
//!
//! Criterion times each case on its own, so on a loaded machine the cases drift apart with the load. The
//! bench therefore also prints the check's share of the write from interleaved runs: each checked write
//! right after its unchecked twin, 301 pairs, the ratio of the sums of each one's 30 fastest runs (the
//! runs the machine's other work disturbed least).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use pageai_core::context::{ContextRequest, Format, Scope};
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{
    ContextLookup, Env, FrozenContext, NoContexts, Origin, WriteArgs, WriteCall, execute_write,
};
use pageai_core::history::BlockHistory;
use pageai_core::manifest::args::ApplyBlockOpsArgs;
use pageai_core::ops::Operation;
use pageai_core::page::{Block, Page};
use pageai_core::profile::Profile;

const BLOCKS: u64 = 10_000;

fn big_page() -> Page {
    let blocks = (0..BLOCKS)
        .map(|i| {
            Block::paragraph(
                format!("p_{i}"),
                format!("第{i}段：编辑命令层把自然语言变成可校验的工具调用 paragraph {i} of the bench page."),
            )
        })
        .collect();
    let mut page = Page::new("ws", "doc", "Bench", blocks).unwrap().at_revision(BLOCKS);
    // Block i last changed at revision i + 1: every block has a row, as the Worker stores it.
    page.history = BlockHistory::from_rows(0, (0..BLOCKS).map(|i| (format!("p_{i}"), i + 1)));
    page
}

fn update(i: u64) -> Operation {
    Operation::Update { block_id: format!("p_{i}"), text: Some(format!("rewritten {i}")), kind: None, attrs: None }
}

fn args(page: &Page, operations: Vec<Operation>, base: u64) -> ApplyBlockOpsArgs {
    ApplyBlockOpsArgs { base_revision: base, dry_run: false, ..ApplyBlockOpsArgs::dry_run(page, operations, "k_bench") }
}

fn write(page: &mut Page, args: &ApplyBlockOpsArgs, contexts: &dyn ContextLookup, profile: &Profile) {
    let mut store = MemoryIdempotencyStore::new();
    let mut mint = || String::from("b_0000000000");
    let mut env = Env {
        profile,
        grants: None,
        role: pageai_core::policy::Role::Owner,
        contexts,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    let call = WriteCall {
        args: WriteArgs::ApplyBlockOps(args.clone()),
        origin: Origin::User,
        actor: "u",
        at: "t",
        tool_call_id: "c",
    };
    black_box(execute_write(page, call, &mut env).unwrap());
}

fn bench(c: &mut Criterion) {
    let page = big_page();
    let profile = Profile::default();
    let (_, frozen) =
        FrozenContext::freeze(&page, &ContextRequest::new(Scope::Full).with_formats(&[Format::Text]), "ctx_bench")
            .unwrap();
    // The same context without its block hashes: a write bound to it pays for the scope, not for the check.
    let unhashed = FrozenContext { context_id: "ctx_plain".into(), block_hashes: BTreeMap::new(), ..frozen.clone() };
    let contexts: BTreeMap<String, FrozenContext> =
        [(frozen.context_id.clone(), frozen), (unhashed.context_id.clone(), unhashed)].into();
    let target = 5_000;
    let read = BLOCKS - 1_000;
    let cases: Vec<(&str, ApplyBlockOpsArgs, &dyn ContextLookup)> = vec![
        ("write_at_current_revision", args(&page, vec![update(target)], BLOCKS), &NoContexts),
        ("write_rebased_history", args(&page, vec![update(target)], read), &NoContexts),
        (
            "write_rebased_revision_refs",
            ApplyBlockOpsArgs {
                revision_refs: Some(vec![page.revision_ref(&page.blocks[target as usize])]),
                ..args(&page, vec![update(target)], read)
            },
            &NoContexts,
        ),
        (
            "write_context_bound_at_current_revision",
            ApplyBlockOpsArgs { context_id: Some("ctx_plain".into()), ..args(&page, vec![update(target)], BLOCKS) },
            &contexts,
        ),
        (
            "write_rebased_context",
            ApplyBlockOpsArgs { context_id: Some("ctx_bench".into()), ..args(&page, vec![update(target)], read) },
            &contexts,
        ),
        (
            "write_20_blocks_at_current_revision",
            args(&page, (0..20).map(|k| update(4_000 + 50 * k)).collect(), BLOCKS),
            &NoContexts,
        ),
        (
            "write_20_blocks_rebased_history",
            args(&page, (0..20).map(|k| update(4_000 + 50 * k)).collect(), read),
            &NoContexts,
        ),
    ];
    for (checked, unchecked) in [(1, 0), (2, 0), (4, 3), (6, 5)] {
        let (a, b) = (&cases[unchecked], &cases[checked]);
        let share = interleaved_share(&page, (&a.1, a.2), (&b.1, b.2), &profile);
        eprintln!("precondition check: {} vs {}: {:+.1}% of the write", b.0, a.0, share * 100.0);
    }
    let mut group = c.benchmark_group("preconditions_10k");
    for (name, args, lookup) in &cases {
        group.bench_function(*name, |b| {
            b.iter_batched(|| page.clone(), |mut p| write(&mut p, args, *lookup, &profile), BatchSize::LargeInput)
        });
    }
    group.finish();
}

/// How much longer the `checked` write takes than its `unchecked` twin, over interleaved runs on fresh
/// copies of the page: the ratio of the sums of the 30 fastest runs of each, minus one.
fn interleaved_share(
    page: &Page,
    unchecked: (&ApplyBlockOpsArgs, &dyn ContextLookup),
    checked: (&ApplyBlockOpsArgs, &dyn ContextLookup),
    profile: &Profile,
) -> f64 {
    let time = |(args, lookup): (&ApplyBlockOpsArgs, &dyn ContextLookup)| {
        let mut copy = page.clone();
        let start = Instant::now();
        write(&mut copy, args, lookup, profile);
        start.elapsed()
    };
    let (mut plain, mut with_check): (Vec<Duration>, Vec<Duration>) = (Vec::new(), Vec::new());
    for _ in 0..301 {
        plain.push(time(unchecked));
        with_check.push(time(checked));
    }
    plain.sort();
    with_check.sort();
    // The fastest runs are the ones the machine's other work disturbed least.
    let fastest = |d: &[Duration]| d.iter().take(30).sum::<Duration>().as_secs_f64();
    fastest(&with_check) / fastest(&plain) - 1.0
}

criterion_group!(benches, bench);
criterion_main!(benches);
