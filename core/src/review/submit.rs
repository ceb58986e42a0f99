//! How an AI tool call is submitted: [`submit`] says whether it runs straight through the executor or
//! through a review session, and [`answer`] is what a write held in (or applied through) a session answers.
//!
//! The caller stores: it looks the [`Proposal`] up among its sessions, mints a session id and calls
//! [`super::propose`] when there is none, keeps the session, and emits events and audit entries. The rules
//! (the policy's [`Stage::Submitted`] decision, the proposal fingerprint, the `review_pending` warning) are
//! here and nowhere else.

use alloc::format;
use alloc::string::String;

use super::session::ReviewSessionV1;
use crate::error::{Error, Result};
use crate::executor::{Effect, Env, Outcome, ToolCall};
use crate::json::to_json;
use crate::page::Page;
use crate::policy::{self, Ask, Decision, Stage};
use crate::vocab::State;
use crate::wire::{ToolResultV1, WarningV1};

/// Code of the warning a held write answers with.
pub const REVIEW_PENDING: &str = "review_pending";

/// What a review session is made for. The same key and arguments, whatever their `dryRun`, find the same
/// session again instead of making a second one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// The call's `idempotencyKey` (empty when it has none: such a call is never found again).
    pub idempotency_key: String,
    /// The fingerprint of the tool name and the arguments without `dryRun`.
    pub fingerprint: String,
}

/// Where a submitted call goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// Straight through [`crate::executor::execute_call`]: a read, a person's own write (never held), an
    /// idempotent replay (or its conflict), a `yolo` preview, or an AI write that names no context (the
    /// parse refuses it: [`crate::executor::SentCall::into_args`]).
    Execute,
    /// Through a review session: the one made for this proposal (see [`Proposal`]), else a new one from
    /// [`super::propose`]. Answer either with [`answer`].
    Session(Proposal),
}

/// Where the AI tool call `call` against `page` goes, under `env`'s profile and idempotency records.
/// `Err` only when the proposal's fingerprint cannot be taken (arguments that do not serialize).
pub fn submit(page: &Page, call: &ToolCall<'_>, env: &Env<'_>) -> Result<Submission> {
    let Some(write) = call.args.write() else {
        return Ok(Submission::Execute);
    };
    // People are not held to the review mode: their writes need no session.
    if !call.origin.is_ai() {
        return Ok(Submission::Execute);
    }
    let tool = write.tool();
    let dry_run = tool.spec().always_dry_run || write.dry_run();
    let key = write.idempotency_key();
    let stored = !dry_run && !key.is_empty() && env.idempotency.lookup(&page.document_id, key).is_some();
    let ask = Ask {
        tool,
        origin: call.origin,
        profile: env.profile,
        grants: env.grants,
        permission: page.permission,
        role: env.role,
    };
    Ok(match policy::decide(&ask, Stage::Submitted { dry_run, stored }) {
        Ok(Decision::Propose) => Submission::Session(Proposal {
            idempotency_key: key.into(),
            fingerprint: call.args.proposal_fingerprint()?,
        }),
        Ok(Decision::Replay | Decision::Preview | Decision::Run | Decision::Apply | Decision::Hold(_)) | Err(_) => {
            Submission::Execute
        }
    })
}

/// The answer to a call that went to `session`: the applied result, or else the preview with a
/// `review_pending` warning naming the session. `found` says the session was found again rather than made
/// by this call: its answer is then a replay, and nothing changed.
pub fn answer(session: &ReviewSessionV1, found: bool) -> Result<Outcome> {
    if let Some(applied) = &session.applied {
        let json = to_json(&applied.result)?;
        let effect = if found { Effect::Replayed } else { Effect::Applied(applied.result.clone()) };
        return Ok(Outcome { json, effect });
    }
    let Some(preview) = &session.preview else {
        // Only a session whose first preview failed has none, and propose never makes one like that.
        return Err(Error::invalid("", format!("review session {} holds no preview", session.session_id)));
    };
    let mut held: ToolResultV1 = preview.clone();
    held.warnings.push(WarningV1 { code: REVIEW_PENDING.into(), message: pending_message(session) });
    let json = to_json(&held)?;
    let effect = if found { Effect::Replayed } else { Effect::Previewed(held) };
    Ok(Outcome { json, effect })
}

fn pending_message(session: &ReviewSessionV1) -> String {
    let id = &session.session_id;
    match session.state {
        State::AwaitingUser => format!(
            "held for review: session {id} is awaiting_user. The page is unchanged; the user accepts or rejects \
             this preview. Do not repeat the write: tell the user what you proposed."
        ),
        State::Failed => {
            let code = session.error.as_ref().map_or("an error", |e| e.code.as_str());
            format!("review session {id} is failed ({code}); nothing was written")
        }
        state @ (State::Draft
        | State::Planning
        | State::Previewing
        | State::Accepted
        | State::Applying
        | State::Applied
        | State::Rejected
        | State::Aborted
        | State::Stale
        | State::Reverted) => {
            format!("review session {id} is {}; nothing was written by this call", state.as_str())
        }
    }
}
