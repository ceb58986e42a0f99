//! Block-level preconditions over random pages and writers (SPEC §5): a write conflicts exactly when a block
//! it touches changed since the caller's read.
//!
//! What a user relies on: two writers on disjoint blocks both land, in either order, with the same blocks;
//! a block one writer changed makes the other's write on it conflict; no write ever lands on a block that
//! changed since its read; an accept rebased over other people's edits writes the touched blocks exactly as
//! an accept on the unchanged page would; a write bound to a frozen context conflicts exactly when a block
//! it touches no longer looks as the context showed it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::collections::{BTreeMap, BTreeSet};

use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Effect, Env, FrozenContext, Origin, Outcome, execute};
use pageai_core::page::{Block, Page};
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::review::{self, AcceptRequest, ProposeRequest, Stamp, State};
use pageai_core::wire::ToolResultV1;
use proptest::prelude::*;
use serde_json::{Value, json};

/// One operation on block indexes (`p_{i}`); inserts name their new block.
#[derive(Debug, Clone)]
enum Op {
    Update(usize, u8),
    Replace(usize),
    Insert(usize, u8),
    Delete(usize),
    Move(usize, usize),
}

impl Op {
    /// The blocks of the page the operation touches: its target, and the anchor of an insert or move.
    fn touched(&self) -> Vec<usize> {
        match *self {
            Op::Update(i, _) | Op::Replace(i) | Op::Insert(i, _) | Op::Delete(i) => vec![i],
            Op::Move(i, j) => vec![i, j],
        }
    }

    fn json(&self, writer: &str, k: usize) -> Value {
        let id = |i: usize| format!("p_{i}");
        match *self {
            Op::Update(i, t) => json!({"op": "update", "blockId": id(i), "text": format!("{writer} {t}")}),
            Op::Replace(i) => {
                json!({"op": "replace", "blockId": id(i), "matchText": format!("alpha{i}"), "content": writer})
            }
            Op::Insert(i, t) => json!({"op": "insert_after", "afterBlockId": id(i),
                "block": {"blockId": format!("n_{writer}_{k}"), "type": "paragraph", "text": format!("new {t}")}}),
            Op::Delete(i) => json!({"op": "delete", "blockId": id(i)}),
            Op::Move(i, j) => json!({"op": "move", "blockId": id(i), "afterBlockId": id(j)}),
        }
    }
}

/// An operation on the blocks `own`, picked by the random numbers `a` and `b`.
fn pick(kind: u8, a: usize, b: usize, t: u8, own: &[usize]) -> Option<Op> {
    let x = *own.get(a % own.len().max(1))?;
    let y = own[b % own.len()];
    Some(match kind % 5 {
        0 => Op::Update(x, t),
        1 => Op::Replace(x),
        2 => Op::Insert(x, t),
        3 => Op::Delete(x),
        _ => Op::Move(x, y),
    })
}

/// An operation's kind, two block picks and a text, as random numbers.
type Spec = (u8, usize, usize, u8);

/// The shared block, the kind of the second writer's operation on it, and another block it may name.
type Pick = (usize, u8, usize);

fn specs(max: usize) -> impl Strategy<Value = Vec<Spec>> {
    proptest::collection::vec((any::<u8>(), any::<usize>(), any::<usize>(), any::<u8>()), 1..max)
}

fn page(n: usize) -> Page {
    let blocks = (0..n).map(|i| Block::paragraph(format!("p_{i}"), format!("alpha{i} beta{i}"))).collect();
    Page::new("ws", "doc_c", "Concurrent", blocks).unwrap().at_revision(3)
}

fn batch(writer: &str, ops: &[Op], base: u64) -> Value {
    let operations: Vec<Value> = ops.iter().enumerate().map(|(k, op)| op.json(writer, k)).collect();
    json!({"documentId": "doc_c", "baseRevision": base, "operations": operations, "dryRun": false,
           "idempotencyKey": format!("k_{writer}_{base}")})
}

/// The executor with its books: a person writing (never held), or Hermes under the review mode.
struct World {
    profile: Profile,
    store: MemoryIdempotencyStore,
    contexts: BTreeMap<String, FrozenContext>,
}

impl World {
    fn new(mode: ReviewMode) -> Self {
        let profile = Profile { review_mode: mode, ..Profile::default() };
        World { profile, store: MemoryIdempotencyStore::new(), contexts: BTreeMap::new() }
    }

    fn env<T>(&mut self, f: impl FnOnce(&mut Env<'_>) -> T) -> T {
        let mut mint = || String::from("b_unused");
        let mut env = Env {
            profile: &self.profile,
            grants: None,
            role: pageai_core::policy::Role::Owner,
            contexts: &self.contexts,
            idempotency: &mut self.store,
            mint: &mut mint,
            suggestions: &[],
        };
        f(&mut env)
    }

    fn call(&mut self, page: &mut Page, tool: &str, args: &Value, origin: Origin) -> pageai_core::Result<Outcome> {
        let call = Call {
            tool_name: tool,
            args,
            origin,
            actor: "writer",
            at: "2026-11-30T09:00:00Z",
            tool_call_id: "call_w",
            new_context_id: "ctx_w",
        };
        let out = self.env(|env| execute(page, &call, env));
        if let Ok(Outcome { effect: Effect::Read { frozen: Some(frozen) }, .. }) = &out {
            self.contexts.insert(frozen.context_id.clone(), frozen.clone());
        }
        out
    }

    fn write(&mut self, page: &mut Page, args: &Value) -> pageai_core::Result<ToolResultV1> {
        match self.call(page, "mnote.doc.apply_block_ops", args, Origin::User)?.effect {
            Effect::Applied(result) => Ok(result),
            other => panic!("a person's write applies: {other:?}"),
        }
    }
}

/// Whether `ops` applies on `page` as one batch.
fn valid(page: &Page, writer: &str, ops: &[Op]) -> bool {
    !ops.is_empty() && World::new(ReviewMode::Yolo).write(&mut page.clone(), &batch(writer, ops, page.revision)).is_ok()
}

fn is_conflict(e: &pageai_core::Error) -> bool {
    e.code().as_str() == "mnote_revision_conflict"
}

/// Splits blocks 1.. between two writers (block 0 is nobody's, so the page never runs empty).
fn split(n: usize, owners: &[u8]) -> (Vec<usize>, Vec<usize>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 1..n {
        match owners.get(i).copied().unwrap_or(0) % 3 {
            0 => a.push(i),
            1 => b.push(i),
            _ => {}
        }
    }
    (a, b)
}

fn ops_on(specs: &[Spec], own: &[usize]) -> Vec<Op> {
    specs.iter().filter_map(|&(kind, a, b, t)| pick(kind, a, b, t, own)).collect()
}

/// Two writers on disjoint blocks, both based on the same revision: both land in either order, and the
/// page ends with the same blocks.
fn disjoint_writers_both_land_in_either_order(
    (n, owners, a, b): (usize, Vec<u8>, Vec<Spec>, Vec<Spec>),
) -> Result<Seen, TestCaseError> {
    let (own_a, own_b) = split(n, &owners);
    let (ops_a, ops_b) = (ops_on(&a, &own_a), ops_on(&b, &own_b));
    let base = page(n);
    prop_assume!(valid(&base, "a", &ops_a) && valid(&base, "b", &ops_b));
    let mut ends = Vec::new();
    for order in [["a", "b"], ["b", "a"]] {
        let mut world = World::new(ReviewMode::Yolo);
        let mut p = base.clone();
        for writer in order {
            let ops = if writer == "a" { &ops_a } else { &ops_b };
            let result = world.write(&mut p, &batch(writer, ops, base.revision));
            prop_assert!(result.is_ok(), "{writer} after the other: {result:?}");
        }
        prop_assert_eq!(p.revision, base.revision + 2);
        ends.push(p.blocks);
    }
    prop_assert_eq!(&ends[0], &ends[1]);
    Ok(Seen { cases: 1, landed: 2, ..Seen::default() })
}

/// A block one writer changed makes the other writer's write that touches it conflict, and that write
/// changes nothing.
fn a_shared_block_makes_the_second_writer_conflict(
    (n, owners, a, b, (shared, kind, other)): (usize, Vec<u8>, Vec<Spec>, Vec<Spec>, Pick),
) -> Result<Seen, TestCaseError> {
    let (mut own_a, own_b) = split(n, &owners);
    let x = 1 + shared % (n - 1);
    own_a.retain(|&i| i != x);
    let mut ops_a = vec![Op::Update(x, 0)];
    ops_a.extend(ops_on(&a, &own_a));
    let mut touching_b = own_b.clone();
    touching_b.retain(|&i| i != x);
    let mut ops_b = ops_on(&b, &touching_b);
    let y = touching_b.get(other % touching_b.len().max(1)).copied().unwrap_or(0);
    ops_b.push(match kind % 6 {
        0 => Op::Update(x, 1),
        1 => Op::Replace(x),
        2 => Op::Insert(x, 1),
        3 => Op::Delete(x),
        4 => Op::Move(x, y),
        _ => Op::Move(y, x),
    });
    let base = page(n);
    prop_assume!(valid(&base, "a", &ops_a) && valid(&base, "b", &ops_b));
    let mut world = World::new(ReviewMode::Yolo);
    let mut p = base.clone();
    world.write(&mut p, &batch("a", &ops_a, base.revision)).unwrap();
    let after_a = p.clone();
    let err = world.write(&mut p, &batch("b", &ops_b, base.revision)).unwrap_err();
    prop_assert!(is_conflict(&err), "{err:?}");
    let listed: Vec<Value> = err.details()["blocks"].as_array().unwrap().clone();
    prop_assert!(listed.iter().any(|b| b["blockId"] == format!("p_{x}")), "{listed:?}");
    prop_assert_eq!(&p, &after_a, "a conflict writes nothing");
    Ok(Seen { cases: 1, conflicts: 1, ..Seen::default() })
}

/// Writers with random reads of the past: a write lands exactly when no block it touches changed (by
/// the answers of the writes before it) since its read, and a landed write never touched a block whose
/// content differs from what its writer read.
fn no_write_lands_on_a_block_that_changed_since_its_read(
    (n, writes): (usize, Vec<(usize, Vec<Spec>)>),
) -> Result<Seen, TestCaseError> {
    let mut world = World::new(ReviewMode::Yolo);
    let mut p = page(n);
    let start = p.revision;
    let mut snapshots: BTreeMap<u64, Page> = BTreeMap::from([(start, p.clone())]);
    // Block id → the revision whose answer last listed it as changed (the test's own books).
    let mut changed_at: BTreeMap<String, u64> = BTreeMap::new();
    let mut seen = Seen { cases: 1, ..Seen::default() };
    for (w, (back, specs)) in writes.iter().enumerate() {
        let base = start + (*back as u64) % (p.revision - start + 1);
        let read = snapshots[&base].clone();
        let all: Vec<usize> = (0..n).collect();
        let ops = ops_on(specs, &all);
        let touched: BTreeSet<String> = ops.iter().flat_map(Op::touched).map(|i| format!("p_{i}")).collect();
        let stale = touched.iter().any(|id| match p.block(id) {
            Some(_) => changed_at.get(id).is_some_and(|&r| r > base),
            None => base < p.revision,
        });
        let before = p.clone();
        match world.write(&mut p, &batch(&format!("w{w}"), &ops, base)) {
            Ok(result) => {
                seen.landed += 1;
                seen.rebased += u32::from(result.warnings.iter().any(|w| w.code == "rebased"));
                prop_assert!(!stale, "landed on a block changed since revision {base}");
                for id in &touched {
                    prop_assert_eq!(before.block(id), read.block(id), "{} differs from the read", id);
                }
                for c in &result.changed_blocks {
                    match c.after {
                        Some(_) => changed_at.insert(c.block_id.clone(), p.revision),
                        None => changed_at.remove(&c.block_id),
                    };
                }
                snapshots.insert(p.revision, p.clone());
            }
            Err(e) => {
                prop_assert_eq!(&p, &before, "a refused write writes nothing");
                prop_assert_eq!(is_conflict(&e), stale, "{:?}", e);
                seen.conflicts += u32::from(is_conflict(&e));
            }
        }
    }
    Ok(seen)
}

/// An accept rebased over edits to other blocks writes the blocks it touches exactly as the same accept
/// on the unchanged page, and keeps the other edits.
fn a_rebased_accept_equals_the_accept_on_the_unchanged_page_for_its_blocks(
    (n, owners, a, b, partial): (usize, Vec<u8>, Vec<Spec>, Vec<Spec>, Option<u8>),
) -> Result<Seen, TestCaseError> {
    let (own_a, own_b) = split(n, &owners);
    let (ops_a, ops_b) = (ops_on(&a, &own_a), ops_on(&b, &own_b));
    let base = page(n);
    prop_assume!(valid(&base, "a", &ops_a) && valid(&base, "b", &ops_b));
    let mut ends = Vec::new();
    for edit_first in [false, true] {
        let mut world = World::new(ReviewMode::Review);
        let mut p = base.clone();
        let mut args = batch("a", &ops_a, base.revision);
        args["dryRun"] = json!(true);
        let call = Call {
            tool_name: "mnote.doc.apply_block_ops",
            args: &args,
            origin: Origin::Hermes,
            actor: "hermes",
            at: "2026-11-30T09:00:00Z",
            tool_call_id: "call_a",
            new_context_id: "",
        };
        let typed = call.typed().unwrap();
        let request = ProposeRequest { session_id: "rs_a", run_id: "run_a", trace_id: "trace_a", call: &typed };
        let mut session = world.env(|env| review::propose(&mut p, &request, env)).unwrap();
        if edit_first {
            world.write(&mut p, &batch("b", &ops_b, base.revision)).unwrap();
        }
        let changed: Vec<String> =
            session.preview.as_ref().unwrap().changed_blocks.iter().map(|c| c.block_id.clone()).collect();
        let block_ids = partial.map(|mask| {
            let chosen: Vec<String> = changed
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << (i % 8)) != 0)
                .map(|(_, c)| c.clone())
                .collect();
            if chosen.is_empty() { changed.iter().take(1).cloned().collect() } else { chosen }
        });
        let accept = AcceptRequest { block_ids, idempotency_key: "k_accept".into() };
        let stamp = Stamp { actor: "user", at: "2026-11-30T09:01:00Z" };
        let answer = world.env(|env| review::accept(&mut session, &mut p, &accept, &stamp, env));
        let Ok(answer) = answer else {
            // A partial choice that does not stand alone fails the same way on both pages.
            ends.push(None);
            continue;
        };
        prop_assert_eq!(session.state, State::Applied);
        let result = answer.applied.unwrap();
        let rebased = result.warnings.iter().any(|w| w.code == "rebased");
        prop_assert_eq!(rebased, edit_first);
        let touched: Vec<(String, Option<Block>)> =
            changed.iter().map(|id| (id.clone(), p.block(id).cloned())).collect();
        if edit_first {
            let mut by_b = base.clone();
            World::new(ReviewMode::Yolo).write(&mut by_b, &batch("b", &ops_b, base.revision)).unwrap();
            for block in &by_b.blocks {
                if !changed.contains(&block.block_id) && base.block(&block.block_id) != Some(block) {
                    prop_assert_eq!(p.block(&block.block_id), Some(block), "b's edit stays");
                }
            }
        }
        ends.push(Some(touched));
    }
    prop_assert_eq!(&ends[0], &ends[1]);
    let rebased = u32::from(ends[1].is_some());
    Ok(Seen { cases: 1, landed: 2 * rebased, rebased, ..Seen::default() })
}

/// A write bound to a frozen context conflicts exactly when a block it touches no longer has the content
/// the context showed (or is gone), whatever `baseRevision` it claims.
fn a_context_bound_write_conflicts_exactly_when_a_touched_block_changed_since_the_freeze(
    (n, edits, specs): (usize, Vec<(usize, u8, bool)>, Vec<Spec>),
) -> Result<Seen, TestCaseError> {
    let mut world = World::new(ReviewMode::Yolo);
    let mut p = page(n);
    world
        .call(&mut p, "mnote.doc.fetch", &json!({"scope": {"type": "full"}, "formats": ["text"]}), Origin::Hermes)
        .unwrap();
    let frozen = p.clone();
    for (e, (i, text, delete)) in edits.iter().enumerate() {
        let id = format!("p_{}", 1 + i % (n - 1));
        // Texts from a small set: an edit may put back exactly what the context showed.
        let text = if *text == 0 {
            format!("alpha{} beta{}", 1 + i % (n - 1), 1 + i % (n - 1))
        } else {
            format!("edit {text}")
        };
        let op = if *delete {
            json!({"op": "delete", "blockId": id})
        } else {
            json!({"op": "update", "blockId": id, "text": text})
        };
        let args = json!({"documentId": "doc_c", "baseRevision": p.revision, "operations": [op], "dryRun": false,
            "idempotencyKey": format!("k_edit{e}")});
        let _ = world.write(&mut p, &args);
    }
    let all: Vec<usize> = (0..n).collect();
    let ops = ops_on(&specs, &all);
    let touched: BTreeSet<String> = ops.iter().flat_map(Op::touched).map(|i| format!("p_{i}")).collect();
    let changed = touched.iter().any(|id| p.block(id) != frozen.block(id));
    let mut args = batch("ctx", &ops, p.revision);
    args["contextId"] = json!("ctx_w");
    let before = p.clone();
    match world.write(&mut p, &args) {
        Ok(_) => {
            prop_assert!(!changed, "landed on a block changed since the freeze");
            Ok(Seen { cases: 1, landed: 1, ..Seen::default() })
        }
        Err(e) => {
            prop_assert_eq!(&p, &before);
            prop_assert_eq!(is_conflict(&e), changed, "{:?}", e);
            Ok(Seen { cases: 1, conflicts: u32::from(changed), ..Seen::default() })
        }
    }
}

/// What the runs of a property exercised, so no property holds vacuously.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    cases: u32,
    landed: u32,
    conflicts: u32,
    rebased: u32,
}

fn check<S: Strategy>(strategy: S, each: impl Fn(S::Value) -> Result<Seen, TestCaseError>) -> Seen {
    let total = std::cell::Cell::new(Seen::default());
    let config =
        ProptestConfig { cases: 256, max_global_rejects: 4096, failure_persistence: None, ..ProptestConfig::default() };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    runner
        .run(&strategy, |value| {
            let seen = each(value)?;
            let t = total.get();
            total.set(Seen {
                cases: t.cases + seen.cases,
                landed: t.landed + seen.landed,
                conflicts: t.conflicts + seen.conflicts,
                rebased: t.rebased + seen.rebased,
            });
            Ok(())
        })
        .unwrap();
    let seen = total.get();
    eprintln!("{seen:?}");
    seen
}

fn owners() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 10)
}

// Shrinking re-runs cases, so the counts are lower bounds of a passing run; each bound is far below what
// 256 cases reach, so it fails only when a generator stops reaching the case.

#[test]
fn disjoint_writers() {
    let seen = check((4..10usize, owners(), specs(4), specs(4)), disjoint_writers_both_land_in_either_order);
    assert!(seen.cases >= 100, "{seen:?}");
}

#[test]
fn shared_block() {
    let strategy = (4..10usize, owners(), specs(3), specs(3), (any::<usize>(), any::<u8>(), any::<usize>()));
    let seen = check(strategy, a_shared_block_makes_the_second_writer_conflict);
    assert!(seen.conflicts >= 100, "{seen:?}");
}

#[test]
fn stale_reads() {
    let strategy = (3..8usize, proptest::collection::vec((any::<usize>(), specs(3)), 1..12));
    let seen = check(strategy, no_write_lands_on_a_block_that_changed_since_its_read);
    assert!(seen.landed >= 200 && seen.conflicts >= 100 && seen.rebased >= 50, "{seen:?}");
}

#[test]
fn rebased_accepts() {
    let strategy = (4..10usize, owners(), specs(4), specs(4), proptest::option::of(any::<u8>()));
    let seen = check(strategy, a_rebased_accept_equals_the_accept_on_the_unchanged_page_for_its_blocks);
    assert!(seen.rebased >= 100, "{seen:?}");
}

#[test]
fn context_bound_writes() {
    let strategy = (3..8usize, proptest::collection::vec((any::<usize>(), 0..3u8, any::<bool>()), 0..6), specs(3));
    let seen = check(strategy, a_context_bound_write_conflicts_exactly_when_a_touched_block_changed_since_the_freeze);
    assert!(seen.landed >= 30 && seen.conflicts >= 30, "{seen:?}");
}
