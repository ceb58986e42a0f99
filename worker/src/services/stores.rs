//! What a document command stores and reads besides the page, one small trait per thing stored: review
//! sessions ([`SessionStore`]), frozen contexts ([`ContextStore`]), fresh ids ([`IdMinter`]), and core's own
//! idempotency records and audit chain; [`Stores`] lends them all to one command.
//!
//! The Durable Object backs them with SQLite tables ([`crate::services::tables`]): reads go to storage, writes
//! are held in memory and committed in one transaction after the command succeeded. Tests back them with
//! memory (`services::test_support`). The services (`tool_calls`, `commands`, `reviews`) see only these traits, so the
//! same code runs in both and is unit-tested natively.
//!
//! Core's own traits are used where core calls back into storage: [`IdempotencyStore`] (the executor) and
//! [`AuditStore`] (the audit chain). Frozen contexts are looked up by core through `ContextLookup`, which
//! hands out references; a [`ContextStore`] is therefore read up front ([`Stores::contexts_for`]) into a
//! [`BoundContext`] that core borrows. A context is shared with the object's cache, never copied per call.

use std::rc::Rc;

use pageai_core::Error;
use pageai_core::audit::AuditStore;
use pageai_core::events::ToolEventV1;
use pageai_core::executor::idempotency::IdempotencyStore;
use pageai_core::executor::{self, ContextLookup, FrozenContext, Origin};
use pageai_core::ids::Kind;
use pageai_core::live::AppliedWrite;
use pageai_core::profile::Profile;
use pageai_core::review::ReviewSessionV1;
use pageai_core::wire::{SuggestionV1, ToolResultV1};

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
    /// Stores a session just proposed for `proposal` by a call bound to `context`. A store may keep the
    /// session's scope by reference to that context when it is exactly the context's list (under a
    /// whole-page context, every block of the page), and put it back on every read.
    fn put_proposed(
        &mut self,
        session: &ReviewSessionV1,
        proposal: &ProposalKey,
        context: Option<&FrozenContext>,
    ) -> Result<(), Error> {
        let _ = context;
        self.put(session, Some(proposal))
    }
    /// The sessions that wait for a person (`awaiting_user`, `stale`), oldest first, each with the reason
    /// kept for it: what the page's suggestions are made of.
    fn waiting(&self) -> Result<Vec<(ReviewSessionV1, Option<String>)>, Error>;
    /// The sessions of Hermes run `run_id` (their `runId`), oldest first: what an undo of the run works on.
    fn of_run(&self, run_id: &str) -> Result<Vec<ReviewSessionV1>, Error>;
    /// Keeps the reason the author gave for session `session_id` (a person's note, Hermes' plan summary),
    /// beside the session: its shape, `mnote.page_ai_review_session.v1`, has no place for one.
    fn note_reason(&mut self, session_id: &str, reason: &str) -> Result<(), Error>;
}

/// The frozen contexts of one document, each valid until its expiry.
pub trait ContextStore {
    /// The context, unless it is unknown or expired at `now_ms`: shared with whatever keeps it (a whole-page
    /// context of a large page is tens of thousands of strings, too many to copy per call).
    fn load(&self, context_id: &str, now_ms: i64) -> Result<Option<Rc<FrozenContext>>, Error>;
    /// Stores a context until `expires_at_ms`.
    fn freeze(&mut self, context: &FrozenContext, expires_at_ms: i64) -> Result<(), Error>;
}

/// The context a call names, read up front for core's `ContextLookup` (none when the call names none, or
/// names one unknown or expired: the executor then answers `mnote_context_not_found`).
#[derive(Debug, Clone, Default)]
pub struct BoundContext(Option<Rc<FrozenContext>>);

impl BoundContext {
    /// The context, if the call named one that is known and unexpired.
    pub fn context(&self) -> Option<&FrozenContext> {
        self.0.as_deref()
    }
}

impl ContextLookup for BoundContext {
    fn frozen(&self, context_id: &str) -> Option<&FrozenContext> {
        self.0.as_deref().filter(|context| context.context_id == context_id)
    }
}

/// Fresh ids. Block ids are infallible for core's sake; a minter that cannot mint one reports it when the
/// command is committed.
pub trait IdMinter {
    /// A fresh id of `kind` (core's [`Kind`]: its prefix, then random characters).
    fn opaque(&mut self, kind: Kind) -> Result<String, Error>;
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
    pub fn contexts_for(&self, context_id: Option<&str>) -> Result<BoundContext, Error> {
        match context_id {
            Some(id) => Ok(BoundContext(self.contexts.load(id, self.now.ms)?)),
            None => Ok(BoundContext(None)),
        }
    }

    /// Freezes `context` for [`Stores::context_ttl_seconds`].
    pub fn freeze(&mut self, context: &FrozenContext) -> Result<(), Error> {
        let expires = self.now.plus_seconds_ms(self.context_ttl_seconds);
        self.contexts.freeze(context, expires)
    }

    /// Runs `work` with core's executor environment over these stores and the preloaded `contexts`.
    pub fn with_env<T>(&mut self, contexts: &dyn ContextLookup, work: impl FnOnce(&mut executor::Env<'_>) -> T) -> T {
        self.with_env_showing(contexts, &[], work)
    }

    /// [`Stores::with_env`] with the page's pending suggestions, which the fetches show
    /// (`mnote.page_ai_context.v2`).
    pub fn with_env_showing<T>(
        &mut self,
        contexts: &dyn ContextLookup,
        suggestions: &[SuggestionV1],
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
            suggestions,
        };
        work(&mut env)
    }
}
