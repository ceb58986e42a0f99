//! The session record, `mnote.page_ai_review_session.v1` (its shape is in [`crate::wire`]): how it moves
//! and what it allows. It is plain serde data, so the Worker's Durable Object can store it as JSON and hand
//! it back on the next request.

use alloc::string::String;

use super::state::{allowed_actions, next};
use crate::error::{Error, Result};
use crate::page::Page;
use crate::vocab::{Action, State};

pub use crate::wire::{
    AcceptActionV1, ActionsV1, AnswerRecordV1, AppliedV1, BaseV1, BlockStampV1, PAGE_AI_REVIEW_ANSWER_V1,
    PAGE_AI_REVIEW_SESSION_V1, ProposalV1, RetryActionV1, RevertedV1, ReviewAnswerV1, ReviewSessionV1, SessionAuditV1,
    SourceV1, StaleV1, TransitionV1,
};

/// How many transitions a session keeps; older ones are dropped first.
pub const MAX_TRANSITIONS: usize = 32;

impl ActionsV1 {
    /// The actions of `state`.
    pub fn of(state: State) -> Self {
        let allowed = allowed_actions(state);
        let has = |a: Action| allowed.contains(&a);
        ActionsV1 {
            accept: AcceptActionV1 {
                allowed: has(Action::Accept),
                requires_fresh_revision: true,
                requires_idempotency_key: true,
            },
            reject: has(Action::Reject),
            retry: RetryActionV1 { allowed: has(Action::Retry), requires_new_tool_call_id: true },
            abort: has(Action::Abort),
            revert: has(Action::Revert),
        }
    }

    /// Whether these actions allow a person's `verb` now. Only [`Action::VERBS`] are a person's to send;
    /// every other action is never allowed here.
    pub fn allows(&self, verb: Action) -> bool {
        match verb {
            Action::Accept => self.accept.allowed,
            Action::Reject => self.reject,
            Action::Retry => self.retry.allowed,
            Action::Abort => self.abort,
            Action::Revert => self.revert,
            Action::Plan
            | Action::Preview
            | Action::Present
            | Action::PreviewFailed
            | Action::Apply
            | Action::ApplySucceeded
            | Action::ApplyFailed
            | Action::MarkStale => false,
        }
    }

    /// Why these actions, of a session in `state`, refuse `verb`: the `mnote_review_invalid_transition`
    /// that sending it would answer. `None` when they allow it.
    pub fn refusal(&self, state: State, verb: Action) -> Option<Error> {
        if self.allows(verb) {
            return None;
        }
        // The state allows it but these actions do not (they were not made by `of`): name what they allow.
        Some(next(state, verb).err().unwrap_or_else(|| Error::ReviewInvalidTransition {
            state: state.as_str().into(),
            action: verb.as_str().into(),
            allowed: Action::VERBS.into_iter().filter(|v| self.allows(*v)).map(|v| v.as_str().into()).collect(),
        }))
    }
}

impl ReviewSessionV1 {
    /// Moves the session by `action`, or fails without changing it.
    pub(crate) fn step(&mut self, action: Action, at: &str) -> Result<()> {
        let to = next(self.state, action)?;
        self.transitions.push(TransitionV1 { from: self.state, action, to, at: at.into() });
        if self.transitions.len() > MAX_TRANSITIONS {
            let excess = self.transitions.len() - MAX_TRANSITIONS;
            self.transitions.drain(..excess);
        }
        self.state = to;
        self.actions = ActionsV1::of(to);
        self.audit.updated_at = at.into();
        Ok(())
    }

    /// Fails with `mnote_review_invalid_transition` unless the state allows `action`.
    pub(crate) fn require(&self, action: Action) -> Result<()> {
        next(self.state, action).map(|_| ())
    }

    /// Fails unless `page` is this session's document.
    pub(crate) fn check_page(&self, page: &Page) -> Result<()> {
        if page.document_id != self.document_id {
            return Err(Error::invalid(
                "/documentId",
                alloc::format!("review session {:?} belongs to document {:?}", self.session_id, self.document_id),
            ));
        }
        Ok(())
    }

    /// The stored answer for `key`: `Some(json)` to replay, an error when the key was used for another
    /// request, `None` when it is new.
    pub(crate) fn replay(&self, action: Action, key: &str, fingerprint: &str) -> Result<Option<String>> {
        match self.answers.iter().find(|a| a.idempotency_key == key) {
            Some(a) if a.action == action && a.fingerprint == fingerprint => Ok(Some(a.answer.clone())),
            Some(_) => Err(Error::IdempotencyConflict { key: key.into() }),
            None => Ok(None),
        }
    }

    /// Whether the session has used `tool_call_id` already.
    pub fn used_tool_call_id(&self, tool_call_id: &str) -> bool {
        self.tool_call_id == tool_call_id || self.previous_tool_call_ids.iter().any(|t| t == tool_call_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::State;

    #[test]
    fn the_actions_of_a_state_allow_exactly_its_verbs() {
        for state in State::ALL {
            let actions = ActionsV1::of(state);
            for verb in Action::ALL {
                let legal = Action::VERBS.contains(&verb) && next(state, verb).is_ok();
                assert_eq!(actions.allows(verb), legal, "{state:?} {verb:?}");
                assert_eq!(actions.refusal(state, verb).is_none(), legal, "{state:?} {verb:?}");
            }
        }
    }

    #[test]
    fn a_refusal_is_the_error_the_verb_would_answer() {
        let applied = ActionsV1::of(State::Applied);
        let refusal = applied.refusal(State::Applied, Action::Retry).unwrap();
        assert_eq!(Some(refusal.clone()), next(State::Applied, Action::Retry).err());
        assert_eq!(refusal.message(), "a review session in state applied cannot retry");
        assert_eq!(refusal.hint(), "allowed now: revert");
    }

    #[test]
    fn actions_that_disagree_with_the_state_still_refuse_in_core_words() {
        let mut actions = ActionsV1::of(State::AwaitingUser);
        actions.retry.allowed = false;
        let refusal = actions.refusal(State::AwaitingUser, Action::Retry).unwrap();
        assert_eq!(refusal.message(), "a review session in state awaiting_user cannot retry");
        assert_eq!(refusal.hint(), "allowed now: accept, reject, abort");
    }
}
