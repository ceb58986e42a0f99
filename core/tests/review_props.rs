//! Review sessions under random action sequences, with another writer editing the page between steps.
//!
//! What a user relies on: nothing is written after reject or abort; a stale session never applies; an
//! accept on a page that moved on applies only as a rebase, and says so; two accepts with the same key write
//! once; a revert restores the page exactly when nothing else changed, and
//! restores the blocks it touched when only other blocks changed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::collections::BTreeMap;

use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Env, NoContexts, Origin, execute};
use pageai_core::page::{Block, Page};
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::review::{
    self, AcceptRequest, Answer, ProposeRequest, RetryRequest, RevertRequest, ReviewSessionV1, Stamp, State,
};
use proptest::prelude::*;
use serde_json::{Value, json};

#[derive(Debug, Clone)]
enum Op {
    ReplaceIn(usize, u8),
    ReplaceAll(u8),
    Update(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Move(usize, Option<usize>),
}

#[derive(Debug, Clone)]
enum Step {
    Accept { key: u8, partial: Option<u8> },
    Reject,
    Abort,
    Retry { fresh: bool },
    Revert { key: u8 },
    Edit { block: usize, text: u8 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..6usize, any::<u8>()).prop_map(|(i, t)| Op::ReplaceIn(i, t)),
        any::<u8>().prop_map(Op::ReplaceAll),
        (0..6usize, any::<u8>()).prop_map(|(i, t)| Op::Update(i, t)),
        (0..6usize, any::<u8>()).prop_map(|(i, t)| Op::Insert(i, t)),
        (0..6usize).prop_map(Op::Delete),
        (0..6usize, proptest::option::of(0..6usize)).prop_map(|(i, j)| Op::Move(i, j)),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..3u8, proptest::option::of(any::<u8>())).prop_map(|(key, partial)| Step::Accept { key, partial }),
        1 => Just(Step::Reject),
        1 => Just(Step::Abort),
        2 => any::<bool>().prop_map(|fresh| Step::Retry { fresh }),
        3 => (0..3u8).prop_map(|key| Step::Revert { key }),
        3 => (0..6usize, any::<u8>()).prop_map(|(block, text)| Step::Edit { block, text }),
    ]
}

fn to_json(op: &Op, n: usize) -> Value {
    let id = |i: usize| format!("p_{}", i % n);
    match op {
        Op::ReplaceIn(i, t) => {
            json!({"op": "replace", "blockId": id(*i), "matchText": format!("alpha{}", i % n), "content": format!("A{t}")})
        }
        Op::ReplaceAll(t) => {
            json!({"op": "replace", "matchText": "gamma", "content": format!("G{t}"), "occurrence": "all"})
        }
        Op::Update(i, t) => json!({"op": "update", "blockId": id(*i), "text": format!("u{t}")}),
        Op::Insert(i, t) => {
            json!({"op": "insert_after", "afterBlockId": id(*i), "block": {"type": "paragraph", "text": format!("new{t} gamma")}})
        }
        Op::Delete(i) => json!({"op": "delete", "blockId": id(*i)}),
        Op::Move(i, j) => json!({"op": "move", "blockId": id(*i), "afterBlockId": j.map(id)}),
    }
}

fn base_page(n: usize) -> Page {
    let blocks = (0..n).map(|i| Block::paragraph(format!("p_{i}"), format!("alpha{i} beta{i} gamma"))).collect();
    let mut page = Page::new("ws", "doc_p", "Props", blocks).unwrap();
    page = page.at_revision(3);
    page
}

struct World {
    profile: Profile,
    store: MemoryIdempotencyStore,
    minted: u32,
}

impl World {
    fn env<T>(&mut self, f: impl FnOnce(&mut Env<'_>) -> T) -> T {
        let mut minted = self.minted;
        let mut mint = || {
            minted += 1;
            format!("b_prop{minted}")
        };
        let mut env = Env {
            profile: &self.profile,
            grants: None,
            role: pageai_core::policy::Role::Owner,
            contexts: &NoContexts,
            idempotency: &mut self.store,
            mint: &mut mint,
            suggestions: &[],
        };
        let out = f(&mut env);
        self.minted = minted;
        out
    }
}

const STAMP: Stamp<'static> = Stamp { actor: "user_p", at: "2026-11-30T09:00:00Z" };

/// What a run exercised, so the properties are shown not to hold vacuously.
#[derive(Debug, Default, Clone, Copy)]
struct Coverage {
    sessions: u32,
    applied: u32,
    partial: u32,
    stale: u32,
    rebased: u32,
    replayed: u32,
    reverted: u32,
    revert_refused: u32,
    refused_after_close: u32,
}

fn run(n: usize, ops: &[Op], steps: &[Step]) -> Result<Coverage, TestCaseError> {
    let mut seen = Coverage::default();
    let mut world = World {
        profile: Profile { review_mode: ReviewMode::Review, ..Profile::default() },
        store: MemoryIdempotencyStore::new(),
        minted: 0,
    };
    let mut page = base_page(n);
    let operations: Vec<Value> = ops.iter().map(|o| to_json(o, n)).collect();
    let args = json!({
        "documentId": "doc_p", "baseRevision": page.revision, "operations": operations,
        "dryRun": true, "idempotencyKey": "k_model",
    });
    let proposed = world.env(|env| {
        let call = Call {
            tool_name: "mnote.doc.apply_block_ops",
            args: &args,
            origin: Origin::Hermes,
            actor: "hermes",
            at: STAMP.at,
            tool_call_id: "call_1",
            new_context_id: "",
        };
        let typed = call.typed()?;
        let request = ProposeRequest { session_id: "rs_p", run_id: "run_p", trace_id: "trace_p", call: &typed };
        review::propose(&mut page, &request, env)
    });
    let Ok(mut session) = proposed else {
        // A batch that does not validate makes no session, and writes nothing.
        prop_assert_eq!(&page, &base_page(n));
        return Ok(seen);
    };
    seen.sessions += 1;
    prop_assert_eq!(session.state, State::AwaitingUser);
    prop_assert_eq!(&page, &base_page(n));

    let mut answers: BTreeMap<String, String> = BTreeMap::new();
    let mut closed = false; // rejected or aborted
    let mut before_apply: Option<Page> = None;
    let mut edited_since_apply = false;
    let mut retries = 0;

    for (s, step) in steps.iter().enumerate() {
        let page_before = page.clone();
        let session_before = session.clone();
        match step {
            Step::Edit { block, text } => {
                let args = json!({
                    "documentId": "doc_p", "baseRevision": page.revision, "dryRun": false,
                    "idempotencyKey": format!("k_edit{s}"),
                    "operations": [{"op": "update", "blockId": format!("p_{}", block % n), "text": format!("edit{text}")}],
                });
                let edited = world.env(|env| {
                    let call = Call {
                        tool_name: "mnote.doc.apply_block_ops",
                        args: &args,
                        origin: Origin::User,
                        actor: "other_writer",
                        at: STAMP.at,
                        tool_call_id: "call_edit",
                        new_context_id: "",
                    };
                    execute(&mut page, &call, env)
                });
                if edited.is_ok() && page != page_before {
                    edited_since_apply = true;
                }
                prop_assert_eq!(&session, &session_before, "another writer's edit leaves the session alone");
            }
            Step::Reject | Step::Abort => {
                let out = match step {
                    Step::Reject => review::reject(&mut session, &STAMP),
                    _ => review::abort(&mut session, &STAMP),
                };
                if out.is_ok() {
                    closed = true;
                    prop_assert!(matches!(session.state, State::Rejected | State::Aborted));
                } else {
                    prop_assert_eq!(&session, &session_before);
                }
            }
            Step::Retry { fresh } => {
                retries += 1;
                let id = if *fresh { format!("call_r{retries}") } else { "call_1".into() };
                let request = RetryRequest { tool_call_id: id, operations: None };
                let out = world.env(|env| review::retry(&mut session, &mut page, &request, &STAMP, env));
                prop_assert_eq!(&page, &page_before, "a retry never writes");
                match out {
                    Ok(()) => {
                        prop_assert!(matches!(session.state, State::AwaitingUser | State::Failed))
                    }
                    Err(_) => prop_assert_eq!(&session, &session_before),
                }
            }
            Step::Accept { key, partial } => {
                let key = format!("k_accept{key}");
                let block_ids = partial.map(|mask| {
                    let changed: Vec<String> = session
                        .preview
                        .iter()
                        .flat_map(|p| p.changed_blocks.iter().map(|c| c.block_id.clone()))
                        .collect();
                    let chosen: Vec<String> = changed
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| mask & (1 << (i % 8)) != 0)
                        .map(|(_, id)| id.clone())
                        .collect();
                    if chosen.is_empty() { changed.into_iter().take(1).collect() } else { chosen }
                });
                let request = AcceptRequest { block_ids, idempotency_key: key.clone() };
                let fresh = page.revision == session.base.revision
                    && page.conflict_detection_key() == session.base.conflict_detection_key;
                let out: Result<Answer, _> =
                    world.env(|env| review::accept(&mut session, &mut page, &request, &STAMP, env));
                let partial_request = request.block_ids.is_some();
                match out {
                    Err(_) => {
                        if closed {
                            seen.refused_after_close += 1;
                        }
                        prop_assert_eq!(&page, &page_before, "a failed accept writes nothing");
                        prop_assert_eq!(&session, &session_before, "a failed accept changes nothing");
                    }
                    Ok(answer) if answer.replayed => {
                        seen.replayed += 1;
                        prop_assert_eq!(&page, &page_before, "a replay writes nothing");
                        prop_assert_eq!(Some(&answer.json), answers.get(&key), "a replay is byte-identical");
                    }
                    Ok(answer) => {
                        prop_assert!(!answers.contains_key(&key), "a key answers once");
                        answers.insert(key.clone(), answer.json.clone());
                        if answer.applied.is_some() {
                            prop_assert!(!closed, "nothing is written after reject or abort");
                            prop_assert_eq!(session_before.state, State::AwaitingUser);
                            // On a page that moved on, only a rebase applies, and it says so.
                            let rebased =
                                answer.applied.as_ref().is_some_and(|r| r.warnings.iter().any(|w| w.code == "rebased"));
                            prop_assert_eq!(rebased, !fresh);
                            seen.rebased += u32::from(!fresh);
                            prop_assert_eq!(page.revision, page_before.revision + 1);
                            prop_assert_eq!(session.state, State::Applied);
                            before_apply = Some(page_before.clone());
                            seen.applied += 1;
                            seen.partial += u32::from(partial_request);
                            edited_since_apply = false;
                        } else {
                            prop_assert!(!fresh);
                            prop_assert_eq!(&page, &page_before, "a stale session never applies");
                            prop_assert_eq!(session.state, State::Stale);
                            seen.stale += 1;
                        }
                    }
                }
                if session_before.state == State::Stale {
                    prop_assert_eq!(&page, &page_before, "a stale session never applies");
                }
            }
            Step::Revert { key } => {
                let key = format!("k_revert{key}");
                let request = RevertRequest { idempotency_key: key.clone() };
                let out = world.env(|env| review::revert(&mut session, &mut page, &request, &STAMP, env));
                match out {
                    Err(e) => {
                        if e.code().as_str() == "mnote_revert_conflict" {
                            seen.revert_refused += 1;
                        }
                        prop_assert_eq!(&page, &page_before);
                        prop_assert_eq!(&session, &session_before);
                    }
                    Ok(answer) if answer.replayed => {
                        prop_assert_eq!(&page, &page_before);
                        prop_assert_eq!(Some(&answer.json), answers.get(&key));
                    }
                    Ok(answer) => {
                        answers.insert(key.clone(), answer.json.clone());
                        prop_assert!(!closed);
                        prop_assert_eq!(session.state, State::Reverted);
                        seen.reverted += 1;
                        let original = before_apply.clone().unwrap();
                        if edited_since_apply {
                            // Only other blocks changed: the touched blocks are back as they were.
                            for stamp in &session.applied.as_ref().unwrap().touched {
                                prop_assert_eq!(
                                    page.block(&stamp.block_id),
                                    original.block(&stamp.block_id),
                                    "block {} restored",
                                    stamp.block_id
                                );
                            }
                        } else {
                            prop_assert_eq!(&page.blocks, &original.blocks, "revert restores the page exactly");
                            prop_assert_eq!(&page.title, &original.title);
                        }
                        prop_assert_eq!(page.revision, page_before.revision + 1);
                    }
                }
            }
        }
        if closed {
            prop_assert!(matches!(session.state, State::Rejected | State::Aborted));
        }
        // The session survives being stored as JSON at every step.
        let stored: ReviewSessionV1 = pageai_core::json::from_json(&serde_json::to_string(&session).unwrap()).unwrap();
        prop_assert_eq!(&stored, &session);
    }
    Ok(seen)
}

fn check_all<S: Strategy>(
    cases: u32,
    strategy: S,
    each: impl Fn(S::Value) -> Result<Coverage, TestCaseError>,
) -> Coverage {
    let total = std::cell::Cell::new(Coverage::default());
    // A fixed seed: the coverage floors below judge the generators, so a run must not pass or fail by the
    // luck of its seed (a random seed once fell under a floor). `make fuzz` and the other property tests
    // keep exploring with fresh seeds.
    let config = ProptestConfig { cases, ..ProptestConfig::default() };
    let rng = proptest::test_runner::TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = proptest::test_runner::TestRunner::new_with_rng(config, rng);
    runner
        .run(&strategy, |value| {
            let c = each(value)?;
            let mut t = total.get();
            t.sessions += c.sessions;
            t.applied += c.applied;
            t.partial += c.partial;
            t.stale += c.stale;
            t.rebased += c.rebased;
            t.replayed += c.replayed;
            t.reverted += c.reverted;
            t.revert_refused += c.revert_refused;
            t.refused_after_close += c.refused_after_close;
            total.set(t);
            Ok(())
        })
        .unwrap();
    total.get()
}

#[test]
fn random_review_sequences_keep_their_promises() {
    let strategy = (2..6usize, proptest::collection::vec(op(), 1..4), proptest::collection::vec(step(), 1..10));
    let seen = check_all(512, strategy, |(n, ops, steps)| run(n, &ops, &steps));
    eprintln!("{seen:?}");
    // Shrinking re-runs cases, so these are lower bounds on a passing run, not exact counts. Each bound is
    // about a third of what 512 random cases usually reach (replays: 15 to 38 over a dozen runs); with the
    // runner's fixed seed the check fails when a generator stops reaching a state, never by chance.
    assert!(seen.sessions >= 150, "{seen:?}");
    assert!(seen.applied >= 50, "{seen:?}");
    assert!(seen.partial >= 15, "{seen:?}");
    assert!(seen.stale >= 20, "{seen:?}");
    assert!(seen.rebased >= 10, "{seen:?}");
    assert!(seen.replayed >= 8, "{seen:?}");
    assert!(seen.reverted >= 10, "{seen:?}");
    assert!(seen.revert_refused >= 3, "{seen:?}");
    assert!(seen.refused_after_close >= 10, "{seen:?}");
}

/// Without any other writer, accept then revert is the identity on the page's blocks, for every proposal
/// that validates.
#[test]
fn accept_then_revert_is_the_identity_without_other_writers() {
    let steps = [Step::Accept { key: 0, partial: None }, Step::Revert { key: 0 }];
    let strategy = (2..6usize, proptest::collection::vec(op(), 1..5));
    let seen = check_all(256, strategy, |(n, ops)| run(n, &ops, &steps));
    eprintln!("{seen:?}");
    assert!(seen.reverted >= 100, "{seen:?}");
    assert_eq!(seen.reverted, seen.applied);
}
