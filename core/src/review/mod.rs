//! Review sessions, `mnote.page_ai_review_session.v1`: AI writes held until a person accepts them.
//!
//! Which one should I use?
//!
//! - An AI tool call, from Hermes or the router: [`submit`] says whether it runs straight through the
//!   executor or through a review session, and [`answer`] is what a call that went to a session answers.
//! - A write tool call from Hermes or the router that should wait for the user: [`propose`]. It dry-runs the
//!   call through the executor and returns an `awaiting_user` session (in `yolo` mode an unblocked write is
//!   applied at once, and the session of the same shape is `applied`).
//! - The user's answer: [`accept`] (optionally only some blocks), [`reject`], [`abort`], or [`retry`] for a
//!   new preview under a new toolCallId. An accept applies while the blocks it touches are unchanged since
//!   the preview, even if other blocks changed (it then says it was rebased); a change to one of its
//!   blocks makes the session `stale`, with a fresh preview.
//! - Undo of an applied session: [`revert`], while the blocks it touched are unchanged since.
//! - Undo of a whole Hermes run (every session it applied, as one write): [`undo_run`]; where a later edit
//!   touched one of its blocks, it previews first and writes only when confirmed (`mnote.run_undo.v1`).
//! - The rules alone, e.g. to grey out buttons: [`next`] and [`allowed_actions`].
//! - A person's edit held as a suggestion rather than written: [`suggest`] (the same dry-run as
//!   [`propose`], never applied). The page's pending changes, AI and people's alike, as
//!   `mnote.suggestion.v1`: [`suggestions`]; who may decide one: [`may_act`].
//!
//! Every write goes through [`crate::executor::execute`]; nothing here re-checks scope, revision,
//! editability, idempotency or policy. Sessions are plain serde data: the caller stores them (the Worker in
//! its Durable Object) and passes them back in, together with the current page, the executor's [`Env`](crate::executor::Env) and a
//! [`Stamp`] carrying the actor and the caller's clock.
//!
//! An `Err` from any of these functions means nothing changed, neither the page nor the session. Accept and
//! revert answers are kept in the session, so a repeat with the same `idempotencyKey` gets the same bytes
//! back and writes nothing.
//!
//! ```
//! use pageai_core::executor::{Call, Env, NoContexts, Origin, idempotency::MemoryIdempotencyStore};
//! use pageai_core::page::{Block, Page};
//! use pageai_core::profile::Profile;
//! use pageai_core::review::{self, AcceptRequest, ProposeRequest, Stamp, State};
//!
//! let mut page = Page::new("ws", "doc_1", "Plan", vec![Block::paragraph("p_1", "第一版计划")]).unwrap();
//! let profile = Profile::default(); // reviewMode: review
//! let mut store = MemoryIdempotencyStore::new();
//! let mut mint = || String::from("b_unused");
//! let mut env = Env { profile: &profile, grants: None, role: pageai_core::policy::Role::Owner, contexts: &NoContexts, idempotency: &mut store, mint: &mut mint, suggestions: &[] };
//!
//! let args = serde_json::json!({
//!     "documentId": "doc_1", "baseRevision": 0, "dryRun": false, "idempotencyKey": "k_model",
//!     "operations": [{"op": "replace", "matchText": "第一版", "content": "第二版"}],
//! });
//! let call = Call { tool_name: "mnote.doc.apply_block_ops", args: &args, origin: Origin::Hermes,
//!     actor: "hermes", at: "2026-11-30T08:00:00Z", tool_call_id: "call_1", new_context_id: "" };
//! let call = call.typed().unwrap(); // the one parse
//! let request = ProposeRequest { session_id: "rs_1", run_id: "run_1", trace_id: "trace_1", call: &call };
//! let mut session = review::propose(&mut page, &request, &mut env).unwrap();
//! assert_eq!(session.state, State::AwaitingUser);
//! assert_eq!(page.revision, 0, "held for review, not written");
//!
//! let stamp = Stamp { actor: "user_1", at: "2026-11-30T08:01:00Z" };
//! let accept = AcceptRequest { block_ids: None, idempotency_key: "k_accept".into() };
//! let answer = review::accept(&mut session, &mut page, &accept, &stamp, &mut env).unwrap();
//! assert_eq!(session.state, State::Applied);
//! assert_eq!(page.blocks[0].text, "第二版计划");
//! let again = review::accept(&mut session, &mut page, &accept, &stamp, &mut env).unwrap();
//! assert_eq!(again.json, answer.json);
//! assert_eq!(page.revision, 1, "a replay writes nothing");
//! ```

mod decide;
pub mod listing;
mod partial;
mod propose;
mod revert;
mod session;
mod state;
mod submit;
mod suggestion;
mod undo_run;
mod write;

pub use crate::vocab::{Action, State};
pub use crate::wire::{AuthorKind, AuthorV1, SUGGESTION_V1, SuggestionDiffV1, SuggestionState, SuggestionV1};
pub use decide::{AcceptRequest, abort, accept, reject};
pub use propose::{ProposeRequest, RetryRequest, propose, retry, suggest};
pub use revert::{RevertRequest, revert};
pub use session::{
    AcceptActionV1, ActionsV1, AnswerRecordV1, AppliedV1, BaseV1, BlockStampV1, MAX_TRANSITIONS,
    PAGE_AI_REVIEW_ANSWER_V1, PAGE_AI_REVIEW_SESSION_V1, ProposalV1, RetryActionV1, RevertedV1, ReviewAnswerV1,
    ReviewSessionV1, SessionAuditV1, SourceV1, StaleV1, TransitionV1,
};
pub use state::{allowed_actions, next};
pub use submit::{Proposal, REVIEW_PENDING, Submission, answer, submit};
pub use suggestion::{Noted, author_of, may_act, reason_of, state_of, suggestions, suggestions_of};
pub use undo_run::{RunUndo, UndoRunRequest, may_undo_run, undo_run};

use alloc::string::String;

use crate::wire::ToolResultV1;

/// Who acts on a session, and when: the caller's clock, RFC 3339.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp<'a> {
    /// The user id (or `hermes`, `shortcut`) recorded in the write's audit.
    pub actor: &'a str,
    /// When.
    pub at: &'a str,
}

/// The answer of an accept or a revert.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// A [`ReviewAnswerV1`] as JSON, exactly as returned the first time.
    pub json: String,
    /// True when this is a replay of an earlier answer: nothing changed.
    pub replayed: bool,
    /// The write this call made: persist the page (and the session) with it, in one transaction.
    pub applied: Option<ToolResultV1>,
}

impl Answer {
    fn replay(json: String) -> Self {
        Answer { json, replayed: true, applied: None }
    }
}

#[cfg(test)]
mod tests;
