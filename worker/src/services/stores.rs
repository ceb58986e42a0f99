//! The stores a document command works at: everything besides the page that a tool call, a page-AI command
//! or a review action reads or records, behind small traits.
//!
//! The Durable Object backs the stores with SQLite ([`crate::services::tables`]): reads go to storage, writes
//! are held in memory and committed in one transaction after the command succeeded. Tests back it with
//! memory ([`memory`]). The services (`tool_calls`, `commands`, `reviews`) see only these traits, so the
//! same code runs in both and is unit-tested natively.
//!
//! Core's own traits are used where core calls back into storage: [`IdempotencyStore`] (the executor) and
//! [`AuditStore`] (the audit chain). Frozen contexts are looked up by core through `ContextLookup`, which
//! hands out references; a [`ContextStore`] is therefore read up front ([`Stores::contexts_for`]) into a map
//! that core borrows.

use std::collections::BTreeMap;

use pageai_core::Error;
use pageai_core::audit::AuditStore;
use pageai_core::events::ToolEventV1;
use pageai_core::executor::idempotency::IdempotencyStore;
use pageai_core::executor::{self, FrozenContext, Origin};
use pageai_core::live::AppliedWrite;
use pageai_core::profile::Profile;
use pageai_core::review::ReviewSessionV1;
use pageai_core::wire::ToolResultV1;

use crate::clock::Now;

/// What identifies a proposal from a model: its idempotency key and the fingerprint of its arguments
/// (without `dryRun`), so a preview and the apply that follows it land in the same review session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposalKey {
    /// The call's `idempotencyKey`.
    pub idempotency_key: String,
    /// Core's fingerprint of the tool name and the arguments without `dryRun`.
    pub fingerprint: String,
}

/// One line of a document's session list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// The session.
    pub session_id: String,
    /// Its state, e.g. `awaiting_user`.
    pub state: String,
    /// When it last changed.
    pub updated_at: String,
}

/// The review sessions of one document.
pub trait SessionStore {
    /// The session, if any.
    fn get(&self, session_id: &str) -> Result<Option<ReviewSessionV1>, Error>;
    /// The newest session made for this proposal, if any.
    fn find_proposal(&self, key: &ProposalKey) -> Result<Option<ReviewSessionV1>, Error>;
    /// Stores a new session (with the proposal it was made for) or an update of a stored one.
    fn put(&mut self, session: &ReviewSessionV1, proposal: Option<&ProposalKey>) -> Result<(), Error>;
}

/// The frozen contexts of one document, each valid until its expiry.
pub trait ContextStore {
    /// The context, unless it is unknown or expired at `now_ms`.
    fn load(&self, context_id: &str, now_ms: i64) -> Result<Option<FrozenContext>, Error>;
    /// Stores a context until `expires_at_ms`.
    fn freeze(&mut self, context: &FrozenContext, expires_at_ms: i64) -> Result<(), Error>;
}

/// Fresh ids. Block ids are infallible for core's sake; a minter that cannot mint one reports it when the
/// command is committed.
pub trait IdMinter {
    /// `{prefix}_{random}`.
    fn opaque(&mut self, prefix: &str) -> Result<String, Error>;
    /// A review session id that names `document_id`.
    fn session_id(&mut self, document_id: &str) -> Result<String, Error>;
    /// A block id for an inserted block.
    fn block_id(&mut self) -> String;
}

/// Everything a command works with besides the page.
pub struct Stores<'a> {
    /// Disabled tools and review mode.
    pub profile: &'a Profile,
    /// Whom the command acts for: the person, and their role in the page's workspace (a tool call: the
    /// person its context was made for). Their writes carry at most that role's rights.
    pub acting: &'a crate::identity::Acting,
    /// The request's clock reading.
    pub now: &'a Now,
    /// How long a context frozen now stays valid.
    pub context_ttl_seconds: u64,
    /// Idempotency records of applied writes.
    pub idempotency: &'a mut dyn IdempotencyStore,
    /// The hash-chained audit log.
    pub audit: &'a mut dyn AuditStore,
    /// Review sessions.
    pub sessions: &'a mut dyn SessionStore,
    /// Frozen contexts.
    pub contexts: &'a mut dyn ContextStore,
    /// Tool and review events emitted by this command, in order.
    pub events: &'a mut Vec<ToolEventV1>,
    /// The writes this command applied, in order: what the live channel tells of the page change.
    pub writes: &'a mut Vec<AppliedWrite>,
    /// Fresh ids.
    pub mint: &'a mut dyn IdMinter,
}

impl<'a> Stores<'a> {
    /// The same stores under another profile (a page-AI command's `mode`).
    pub fn with_profile<'b>(&'b mut self, profile: &'b Profile) -> Stores<'b> {
        Stores {
            profile,
            acting: self.acting,
            now: self.now,
            context_ttl_seconds: self.context_ttl_seconds,
            idempotency: &mut *self.idempotency,
            audit: &mut *self.audit,
            sessions: &mut *self.sessions,
            contexts: &mut *self.contexts,
            events: &mut *self.events,
            writes: &mut *self.writes,
            mint: &mut *self.mint,
        }
    }

    /// Journals an applied write for the live channel.
    pub fn applied(&mut self, origin: Origin, run_id: &str, review_session_id: Option<&str>, result: &ToolResultV1) {
        self.writes.push(AppliedWrite {
            origin,
            run_id: (!run_id.is_empty()).then(|| run_id.to_string()),
            review_session_id: review_session_id.map(String::from),
            result: result.clone(),
        });
    }

    /// The context a call names (its typed `contextId`), read up front for core's `ContextLookup`.
    /// An unknown or expired id is simply absent: the executor then answers `mnote_context_not_found`.
    pub fn contexts_for(&self, context_id: Option<&str>) -> Result<BTreeMap<String, FrozenContext>, Error> {
        let mut found = BTreeMap::new();
        if let Some(id) = context_id
            && let Some(context) = self.contexts.load(id, self.now.ms)?
        {
            found.insert(id.to_string(), context);
        }
        Ok(found)
    }

    /// Freezes `context` for [`Stores::context_ttl_seconds`].
    pub fn freeze(&mut self, context: &FrozenContext) -> Result<(), Error> {
        let expires = self.now.plus_seconds_ms(self.context_ttl_seconds);
        self.contexts.freeze(context, expires)
    }

    /// Runs `work` with core's executor environment over this stores and the preloaded `contexts`.
    pub fn with_env<T>(
        &mut self,
        contexts: &BTreeMap<String, FrozenContext>,
        work: impl FnOnce(&mut executor::Env<'_>) -> T,
    ) -> T {
        let mint = &mut *self.mint;
        let mut block_id = || mint.block_id();
        let mut env = executor::Env {
            profile: self.profile,
            grants: None,
            role: self.acting.role,
            contexts,
            idempotency: &mut *self.idempotency,
            mint: &mut block_id,
        };
        work(&mut env)
    }
}

/// In-memory stores, for tests of the services.
#[cfg(test)]
pub mod memory {
    use super::*;
    use pageai_core::audit::MemoryAuditStore;
    use pageai_core::executor::idempotency::MemoryIdempotencyStore;

    /// Sessions in a map, with the proposal each was made for.
    #[derive(Default)]
    pub struct MemorySessions {
        /// By id: the session and its proposal.
        pub by_id: BTreeMap<String, (ReviewSessionV1, Option<ProposalKey>)>,
    }

    impl SessionStore for MemorySessions {
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
        fn load(&self, context_id: &str, now_ms: i64) -> Result<Option<FrozenContext>, Error> {
            Ok(self.by_id.get(context_id).filter(|(_, exp)| *exp > now_ms).map(|(c, _)| c.clone()))
        }
        fn freeze(&mut self, context: &FrozenContext, expires_at_ms: i64) -> Result<(), Error> {
            self.by_id.insert(context.context_id.clone(), (context.clone(), expires_at_ms));
            Ok(())
        }
    }

    /// Counting ids: `ctx_1`, `rs.doc.2`, `b_mint00003`.
    #[derive(Default)]
    pub struct CountingIds(pub u32);

    impl IdMinter for CountingIds {
        fn opaque(&mut self, prefix: &str) -> Result<String, Error> {
            self.0 += 1;
            Ok(format!("{prefix}_{}", self.0))
        }
        fn session_id(&mut self, document_id: &str) -> Result<String, Error> {
            self.0 += 1;
            Ok(format!("rs.{document_id}.{}", self.0))
        }
        fn block_id(&mut self) -> String {
            self.0 += 1;
            format!("b_mint{:05}", self.0)
        }
    }

    /// A whole stores in memory; [`MemoryStores::stores`] lends it out.
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
        /// Empty memory under `profile`, at a fixed time.
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

        /// The stores over these memory.
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
                .map(|e| {
                    serde_json::to_value(e.event).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
                })
                .collect()
        }
    }
}
