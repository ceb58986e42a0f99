//! The set-up every service test shares: every store a document command uses, in memory
//! ([`MemoryStores`], lent out as the [`Stores`] the Durable Object lends from its SQLite tables), a page
//! of numbered paragraphs ([`page_of`]), stores under a review mode ([`in_mode`]) and a tool call from
//! Hermes ([`hermes_call`]). The tests of `tool_calls`, `commands`, `reviews` and `block_edits` build on it,
//! and so do the Worker's wire-fixture tests.
#![allow(clippy::expect_used, reason = "a set-up that cannot be built is the test's report")]

use std::collections::BTreeMap;

use pageai_core::Error;
use pageai_core::audit::MemoryAuditStore;
use pageai_core::events::ToolEventV1;
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{FrozenContext, Origin, SentCall};
use pageai_core::ids::Kind;
use pageai_core::live::AppliedWrite;
use pageai_core::page::{Block, Page};
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::review::ReviewSessionV1;
use serde_json::Value;

use super::stores::{ContextStore, IdMinter, ProposalKey, SessionStore, Stores};
use super::tool_calls::ToolCallRequest;
use crate::clock::Now;

/// The page `doc_1` ("Plan", workspace `ws`): a paragraph per text, with ids `p_1`, `p_2`, ….
pub fn page_of(texts: &[&str]) -> Page {
    let blocks = texts.iter().enumerate().map(|(i, text)| Block::paragraph(format!("p_{}", i + 1), *text)).collect();
    Page::new("ws", "doc_1", "Plan", blocks).expect("valid page")
}

/// Empty stores under the default profile in review mode `mode`.
pub fn in_mode(mode: ReviewMode) -> MemoryStores {
    MemoryStores::new(Profile { review_mode: mode, ..Profile::default() })
}

/// A call of `tool` with `args` from Hermes: run `run_1`, call `call_1`, trace `tr_1`.
pub fn hermes_call(tool: &str, args: Value) -> ToolCallRequest {
    ToolCallRequest {
        call: SentCall::parse(tool.into(), args),
        run_id: "run_1".into(),
        tool_call_id: "call_1".into(),
        trace_id: "tr_1".into(),
        origin: Origin::Hermes,
    }
}

/// JSON text, parsed.
pub fn json_of(text: &str) -> Value {
    serde_json::from_str(text).expect("json")
}

/// Sessions in a map, with the proposal each was made for.
#[derive(Default)]
pub struct MemorySessions {
    /// By id: the session and its proposal.
    pub by_id: BTreeMap<String, (ReviewSessionV1, Option<ProposalKey>)>,
    /// Reasons, by session id.
    pub reasons: BTreeMap<String, String>,
}

impl SessionStore for MemorySessions {
    fn waiting(&self) -> Result<Vec<(ReviewSessionV1, Option<String>)>, Error> {
        let waiting = self.by_id.values().map(|(s, _)| s).filter(|s| s.state.awaits_person());
        Ok(waiting.map(|s| (s.clone(), self.reasons.get(&s.session_id).cloned())).collect())
    }
    fn of_run(&self, run_id: &str) -> Result<Vec<ReviewSessionV1>, Error> {
        Ok(self.by_id.values().map(|(s, _)| s).filter(|s| s.run_id == run_id).cloned().collect())
    }
    fn note_reason(&mut self, session_id: &str, reason: &str) -> Result<(), Error> {
        self.reasons.insert(session_id.into(), reason.into());
        Ok(())
    }
    fn get(&self, session_id: &str) -> Result<Option<ReviewSessionV1>, Error> {
        Ok(self.by_id.get(session_id).map(|(s, _)| s.clone()))
    }
    fn find_proposal(&self, key: &ProposalKey) -> Result<Option<ReviewSessionV1>, Error> {
        Ok(self.by_id.values().filter(|(_, p)| p.as_ref() == Some(key)).map(|(s, _)| s.clone()).next_back())
    }
    fn put(&mut self, session: &ReviewSessionV1, proposal: Option<&ProposalKey>) -> Result<(), Error> {
        let kept = self.by_id.get(&session.session_id).and_then(|(_, p)| p.clone());
        self.by_id.insert(session.session_id.clone(), (session.clone(), proposal.cloned().or(kept)));
        Ok(())
    }
}

/// Contexts in a map, with their expiry.
#[derive(Default)]
pub struct MemoryContexts {
    /// By id: the context and when it expires.
    pub by_id: BTreeMap<String, (FrozenContext, i64)>,
}

impl ContextStore for MemoryContexts {
    fn load(&self, context_id: &str, now_ms: i64) -> Result<Option<std::rc::Rc<FrozenContext>>, Error> {
        Ok(self.by_id.get(context_id).filter(|(_, exp)| *exp > now_ms).map(|(c, _)| std::rc::Rc::new(c.clone())))
    }
    fn freeze(&mut self, context: &FrozenContext, expires_at_ms: i64) -> Result<(), Error> {
        self.by_id.insert(context.context_id.clone(), (context.clone(), expires_at_ms));
        Ok(())
    }
}

/// Counting ids: `ctx_1`, `rs.doc.2`, `b_mint00003`.
#[derive(Default)]
pub struct CountingIds {
    /// Ids minted so far, of every kind: the last id's number.
    pub minted: u32,
    /// Of them, block ids: each write's plan mints one per block it inserts, so this counts plans.
    pub block_ids: u32,
}

impl IdMinter for CountingIds {
    fn opaque(&mut self, kind: Kind) -> Result<String, Error> {
        self.minted += 1;
        Ok(format!("{}{}", kind.prefix(), self.minted))
    }
    fn session_id(&mut self, document_id: &str) -> Result<String, Error> {
        self.minted += 1;
        Ok(format!("rs.{document_id}.{}", self.minted))
    }
    fn block_id(&mut self) -> String {
        self.minted += 1;
        self.block_ids += 1;
        format!("b_mint{:05}", self.minted)
    }
}

/// All the stores in memory; [`MemoryStores::stores`] lends it out.
pub struct MemoryStores {
    /// The profile.
    pub profile: Profile,
    /// The clock.
    pub now: Now,
    /// Idempotency records.
    pub idempotency: MemoryIdempotencyStore,
    /// The audit log.
    pub audit: MemoryAuditStore,
    /// Review sessions.
    pub sessions: MemorySessions,
    /// Frozen contexts.
    pub contexts: MemoryContexts,
    /// Emitted events.
    pub events: Vec<ToolEventV1>,
    /// Applied writes.
    pub writes: Vec<AppliedWrite>,
    /// Ids.
    pub mint: CountingIds,
    /// Whom the calls act for.
    pub acting: crate::identity::Acting,
}

impl MemoryStores {
    /// Empty stores under `profile`, at a fixed time.
    pub fn new(profile: Profile) -> Self {
        MemoryStores {
            profile,
            now: Now::fixed(1_800_000_000_000, "2027-01-15T08:00:00.000Z"),
            idempotency: MemoryIdempotencyStore::new(),
            audit: MemoryAuditStore::new(),
            sessions: MemorySessions::default(),
            contexts: MemoryContexts::default(),
            events: Vec::new(),
            writes: Vec::new(),
            mint: CountingIds::default(),
            acting: crate::identity::Acting::single_user(),
        }
    }

    /// The stores, lent out.
    pub fn stores(&mut self) -> Stores<'_> {
        Stores {
            profile: &self.profile,
            acting: &self.acting,
            now: &self.now,
            context_ttl_seconds: 3600,
            idempotency: &mut self.idempotency,
            audit: &mut self.audit,
            sessions: &mut self.sessions,
            contexts: &mut self.contexts,
            events: &mut self.events,
            writes: &mut self.writes,
            mint: &mut self.mint,
        }
    }

    /// Freezes a whole-page context of `page` as `ctx_page`, what a run's AI writes name (every AI
    /// write needs one), and answers its id.
    pub fn frozen_page(&mut self, page: &pageai_core::page::Page) -> String {
        let request = pageai_core::context::ContextRequest::new(pageai_core::context::Scope::Full);
        if let Ok((_, frozen)) = FrozenContext::freeze(page, &request, "ctx_page") {
            self.contexts.by_id.insert(frozen.context_id.clone(), (frozen, i64::MAX));
        }
        "ctx_page".into()
    }

    /// The names of the events emitted so far, e.g. `tool.started`.
    pub fn event_names(&self) -> Vec<String> {
        self.events
            .iter()
            .map(|e| serde_json::to_value(e.event).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default())
            .collect()
    }
}
