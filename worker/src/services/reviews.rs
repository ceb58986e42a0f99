//! The user's actions on a review session, inside the document's object: core's `review::{accept, reject,
//! retry, abort, revert}` over the stored session and page.
//!
//! Every action that moves a session stores it, emits `review.updated` and appends an audit entry
//! (`review.accept` / `review.revert` with the write, `review.stale`, `review.reject`, `review.abort`,
//! `review.retry`). An idempotent replay of an accept or revert answers the stored bytes and records
//! nothing. An `Err` means nothing changed.
//!
//! Who may act is core's rule (`review::may_act`): an editor or owner; the author of a person's
//! suggestion may also withdraw it (reject or abort). [`suggestions`] lists the page's pending ones.
//!
//! The undo of a whole Hermes run (every session it applied, as one write) is [`super::run_undo`].
//!
//! Accept and revert answer core's `mnote.page_ai_review_answer.v1`, byte for byte the same on a replay;
//! the other actions (and `Get`) answer the session itself.

use pageai_core::Error;
use pageai_core::audit::{self, AuditAction, AuditDraft};
use pageai_core::events;
use pageai_core::executor::Origin;
use pageai_core::json::to_json;
use pageai_core::page::Page;
use pageai_core::review::{
    self, AcceptRequest, Answer, Noted, RetryRequest, RevertRequest, ReviewSessionV1, Stamp, SuggestionV1,
};
use serde::{Deserialize, Serialize};

use super::stores::{SessionStore, Stores};

/// Who acts on review sessions until browser sign-in names the user.
pub const REVIEWER: &str = "user";

/// What to do with a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "body", rename_all = "snake_case")]
pub enum ReviewAction {
    /// Read it.
    Get,
    /// Apply the preview, or the part of it that touches `blockIds`.
    Accept(AcceptRequest),
    /// Say no; never writes.
    Reject,
    /// Preview again (or preview new operations) under a new toolCallId.
    Retry(RetryRequest),
    /// Stop it; never writes.
    Abort,
    /// Undo an applied session as one write.
    Revert(RevertRequest),
}

impl ReviewAction {
    /// The review verb this is (core's one verb enum); `None` for a read.
    pub fn verb(&self) -> Option<review::Action> {
        match self {
            ReviewAction::Get => None,
            ReviewAction::Accept(_) => Some(review::Action::Accept),
            ReviewAction::Reject => Some(review::Action::Reject),
            ReviewAction::Retry(_) => Some(review::Action::Retry),
            ReviewAction::Abort => Some(review::Action::Abort),
            ReviewAction::Revert(_) => Some(review::Action::Revert),
        }
    }
}

/// Runs `action` on session `session_id` of `page`'s document; answers JSON.
pub fn act(page: &mut Page, session_id: &str, action: &ReviewAction, stores: &mut Stores<'_>) -> Result<String, Error> {
    let mut session = stores
        .sessions
        .get(session_id)?
        .ok_or_else(|| Error::ReviewSessionNotFound { session_id: session_id.into() })?;
    // Who may decide it: core's rule (an editor or owner; the author may withdraw their own suggestion).
    if let Some(verb) = action.verb() {
        review::may_act(&session, verb, &stores.acting.user, stores.acting.role)?;
    }
    let now = stores.now;
    let stamp = Stamp { actor: &stores.acting.user, at: &now.at };
    // Review writes carry no contextId: their scope is the session's own `base.allowedTargetBlockIds`.
    let contexts = pageai_core::executor::NoContexts;
    match action {
        ReviewAction::Get => to_json(&session),
        ReviewAction::Accept(request) => {
            let answer = stores.with_env(&contexts, |env| review::accept(&mut session, page, request, &stamp, env))?;
            let stale = || {
                AuditDraft::for_session(AuditAction::ReviewStale, &session, &stores.acting.user, &now.at, page.revision)
            };
            written(answer, AuditAction::ReviewAccept, stale, &session, stores)
        }
        ReviewAction::Revert(request) => {
            let answer = stores.with_env(&contexts, |env| review::revert(&mut session, page, request, &stamp, env))?;
            let none = || {
                AuditDraft::for_session(
                    AuditAction::ReviewRevert,
                    &session,
                    &stores.acting.user,
                    &now.at,
                    page.revision,
                )
            };
            written(answer, AuditAction::ReviewRevert, none, &session, stores)
        }
        ReviewAction::Reject => {
            review::reject(&mut session, &stamp)?;
            moved(&session, AuditAction::ReviewReject, page.revision, stores)
        }
        ReviewAction::Abort => {
            review::abort(&mut session, &stamp)?;
            moved(&session, AuditAction::ReviewAbort, page.revision, stores)
        }
        ReviewAction::Retry(request) => {
            stores.with_env(&contexts, |env| review::retry(&mut session, page, request, &stamp, env))?;
            moved(&session, AuditAction::ReviewRetry, page.revision, stores)
        }
    }
}

/// Records an accept or revert: the session, its event and the audit entry of the write (or, when nothing
/// was written, `otherwise`). A replay records nothing.
fn written(
    answer: Answer,
    action: AuditAction,
    otherwise: impl FnOnce() -> AuditDraft,
    session: &ReviewSessionV1,
    stores: &mut Stores<'_>,
) -> Result<String, Error> {
    if answer.replayed {
        return Ok(answer.json);
    }
    let draft = match &answer.applied {
        Some(result) => AuditDraft::for_result(action, result, Some(&session.session_id)),
        None => otherwise(),
    };
    if let Some(result) = &answer.applied {
        // An accept writes as `review_accept`; a revert is the person's own undo.
        let origin = match action {
            AuditAction::ReviewAccept => Origin::ReviewAccept,
            _ => Origin::User,
        };
        stores.applied(origin, &session.run_id, Some(&session.session_id), result);
    }
    stores.sessions.put(session, None)?;
    stores.events.push(events::review_updated(session, &stores.now.at));
    audit::record(&mut *stores.audit, draft)?;
    Ok(answer.json)
}

/// Records a state change that wrote nothing to the page.
fn moved(
    session: &ReviewSessionV1,
    action: AuditAction,
    revision: u64,
    stores: &mut Stores<'_>,
) -> Result<String, Error> {
    stores.sessions.put(session, None)?;
    stores.events.push(events::review_updated(session, &stores.now.at));
    audit::record(
        &mut *stores.audit,
        AuditDraft::for_session(action, session, &stores.acting.user, &stores.now.at, revision),
    )?;
    to_json(session)
}

/// `GET /api/documents/{id}/suggestions`: the page's pending changes, people's and AI's alike.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionList<'a> {
    /// The page's document.
    pub document_id: &'a str,
    /// `mnote.suggestion.v1`, in page order (core's `review::suggestions`).
    pub suggestions: Vec<SuggestionV1>,
}

/// The pending suggestions of `page`, from the sessions that wait for a person; answers a
/// [`SuggestionList`] as JSON.
pub fn suggestions(page: &Page, sessions: &dyn SessionStore) -> Result<String, Error> {
    let waiting = sessions.waiting()?;
    let noted: Vec<Noted<'_>> =
        waiting.iter().map(|(session, reason)| Noted { session, reason: reason.as_deref() }).collect();
    to_json(&SuggestionList { document_id: &page.document_id, suggestions: review::suggestions(&noted, page) })
}

#[cfg(test)]
#[path = "reviews_tests.rs"]
mod tests;
