//! Making a preview: [`propose`] turns a write tool call into a session, and [`retry`] gives a session a new
//! preview under a new toolCallId.

use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::Stamp;
use super::session::{
    ActionsV1, AppliedV1, BaseV1, PAGE_AI_REVIEW_SESSION_V1, ProposalV1, ReviewSessionV1, SessionAuditV1, SourceV1,
};
use super::write::{self, Batch, Read};
use crate::error::{Error, Result};
use crate::executor::{Env, Planned, ToolCall, execute_call, preview_planned};
use crate::ops::{Operation, TargetScope};
use crate::page::Page;
use crate::vocab::ReviewMode;
use crate::vocab::{Action, State};
use crate::wire::{ErrorBody, ToolResultV1};

/// A write tool call to hold for review, with the ids the caller minted for its session.
#[derive(Debug, Clone)]
pub struct ProposeRequest<'a> {
    /// The new session's id.
    pub session_id: &'a str,
    /// The Hermes run, or an id the caller gives a direct shortcut.
    pub run_id: &'a str,
    /// Correlates logs, events and error bodies.
    pub trace_id: &'a str,
    /// The write call as the model or the router made it, typed. Its `dryRun` is ignored: the proposal is
    /// always previewed first.
    pub call: &'a ToolCall<'a>,
}

/// Dry-runs a write tool call through the executor and holds it in a new session.
///
/// The session is `awaiting_user`, unless the profile is `yolo` and the preview is not `blocked`: then the
/// write is applied at once (as the call's origin) and the session, of the same shape, is `applied` (or
/// `failed` with the error, should the write fail after its preview passed). A call that does not validate
/// makes no session: its coded error is returned, for the model to fix its call.
///
/// The write is planned once: the apply of a `yolo` session commits the plan its preview showed (with the
/// same minted ids), and a call that arrives with a plan (the command route's shortcut, which the router
/// planned) is not planned again.
pub fn propose(page: &mut Page, request: &ProposeRequest<'_>, env: &mut Env<'_>) -> Result<ReviewSessionV1> {
    if !request.call.origin.is_ai() {
        return Err(Error::invalid("/origin", "a person's edit is held with review::suggest, or written"));
    }
    hold(page, request, env, Held::ByPolicy)
}

/// Holds a person's edit (`request.call`, origin `user`) as a suggestion: a session `awaiting_user` made
/// exactly as [`propose`] makes an AI's, through the same executor dry-run (so the same errors refuse a bad
/// edit), but never applied, whatever the profile's mode (`yolo` is about AI writes). The session's
/// `source.origin` is `user` and its `audit.createdBy` the person.
///
/// Fails with `mnote_role_forbidden` unless the person's role (`env.role`) allows `suggest`, and with
/// `mnote_invalid_arguments` for a call that is not a person's.
pub fn suggest(page: &mut Page, request: &ProposeRequest<'_>, env: &mut Env<'_>) -> Result<ReviewSessionV1> {
    if request.call.origin != crate::executor::Origin::User {
        return Err(Error::invalid("/origin", "a suggestion is a person's edit; an AI write goes through propose"));
    }
    env.role.check(crate::policy::Act::Suggest)?;
    hold(page, request, env, Held::Always)
}

/// Whether a preview that passed is held for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// As the policy said in the preview (`blocked`).
    ByPolicy,
    /// Always: a person's suggestion.
    Always,
}

/// The one path of [`propose`] and [`suggest`]: preview, then hold or apply.
fn hold(page: &mut Page, request: &ProposeRequest<'_>, env: &mut Env<'_>, held: Held) -> Result<ReviewSessionV1> {
    let call = request.call;
    if call.args.write().is_none() {
        return Err(Error::invalid("/toolName", "a review session holds writes; this tool only reads"));
    }
    let preview_call = ToolCall { args: call.args.with_dry_run(true), ..call.clone() };
    let (outcome, planned) = preview_planned(page, preview_call, env)?;
    let preview = write::result_of(outcome)?;
    let mut session = draft(page, request, &preview, base_scope(call, env), env.profile.review_mode);
    let at = call.at;
    session.step(Action::Preview, at)?;
    // Held or applied is the one review rule's answer (`policy::held`, which the executor asked for this
    // very preview): `blocked`. An AI write is held in every mode but `yolo`, and there when high-risk.
    let blocked = preview.blocked || held == Held::Always;
    let key = preview.audit.idempotency_key.clone();
    session.preview = Some(preview);
    if blocked {
        session.step(Action::Present, at)?;
        return Ok(session);
    }
    apply_now(&mut session, page, request, (key, planned), env)?;
    Ok(session)
}

/// The new session, in `draft`, for the call whose dry-run is `preview`.
fn draft(
    page: &Page,
    request: &ProposeRequest<'_>,
    preview: &ToolResultV1,
    allowed: Option<Arc<[String]>>,
    mode: ReviewMode,
) -> ReviewSessionV1 {
    let call = request.call;
    ReviewSessionV1 {
        schema: PAGE_AI_REVIEW_SESSION_V1.into(),
        session_id: request.session_id.into(),
        workspace_id: page.workspace_id.clone(),
        document_id: page.document_id.clone(),
        run_id: request.run_id.into(),
        tool_call_id: call.tool_call_id.into(),
        trace_id: request.trace_id.into(),
        state: State::Draft,
        mode,
        source: SourceV1 {
            runtime_owner: "mnote-web".into(),
            write_owner: "rust-runtime-kernel".into(),
            tool_name: preview.tool_name.clone(),
            origin: call.origin,
        },
        base: BaseV1 {
            revision: page.revision,
            conflict_detection_key: page.conflict_detection_key(),
            allowed_target_block_ids: allowed,
        },
        proposal: ProposalV1 { format: "block_ops".into(), operations: preview.operations.clone(), full_content: None },
        preview: None,
        actions: ActionsV1::of(State::Draft),
        audit: SessionAuditV1 { created_at: call.at.into(), created_by: call.actor.into(), updated_at: call.at.into() },
        stale: None,
        error: None,
        applied: None,
        reverted: None,
        answers: Vec::new(),
        previous_tool_call_ids: Vec::new(),
        transitions: Vec::new(),
    }
}

/// `yolo`, preview not held: the write applies at once, as the call's origin, under the preview's `key`,
/// from the preview's plan. A write that fails after its preview passed leaves the session `failed` with
/// the error.
fn apply_now(
    session: &mut ReviewSessionV1,
    page: &mut Page,
    request: &ProposeRequest<'_>,
    (key, planned): (String, Option<Arc<Planned>>),
    env: &mut Env<'_>,
) -> Result<()> {
    let call = request.call;
    session.step(Action::Apply, call.at)?;
    let apply_call = ToolCall { args: call.args.with_dry_run(false).with_plan(planned), ..call.clone() };
    match execute_call(page, apply_call, env).and_then(write::result_of) {
        Ok(result) => {
            let touched = write::stamps(page, &result);
            session.applied = Some(AppliedV1 { idempotency_key: key, block_ids: None, touched, result });
            session.step(Action::ApplySucceeded, call.at)
        }
        Err(e) => {
            session.error = Some(ErrorBody::new(&e, request.trace_id));
            session.step(Action::ApplyFailed, call.at)
        }
    }
}

/// The blocks the call may target: its frozen context's, narrowed by its own list; `None` when unrestricted.
/// The executor has already validated both; this only records them so later previews keep the same scope.
///
/// A call bound to a context that lists nothing narrower (or repeats the context's own list, as the
/// router's recommendations do) records the context's list as it is: in page order, once each, copied
/// once and then shared by every clone of the session. Under a whole-page context that is every block of
/// the page, and sorting or hashing it cost a write more than the write. A narrowed scope, or a list
/// without a context, is recorded sorted, once each.
fn base_scope(call: &ToolCall<'_>, env: &Env<'_>) -> Option<Arc<[String]>> {
    let frozen = call.args.context_id().and_then(|id| env.contexts.frozen(id));
    let frozen = frozen.map(|f| f.allowed_target_block_ids.as_slice());
    let listed = call.args.write().and_then(|w| w.allowed_target_block_ids());
    let mut ids = match (frozen, listed) {
        (None, None) => return None,
        (Some(frozen), None) => return Some(Arc::from(frozen)),
        (Some(frozen), Some(listed)) if frozen == listed => return Some(Arc::from(frozen)),
        (None, Some(only)) => only.to_vec(),
        (Some(frozen), Some(listed)) => {
            return TargetScope::only(frozen.iter().map(String::as_str)).narrowed_by(Some(listed)).ids().map(Arc::from);
        }
    };
    ids.sort_unstable();
    ids.dedup();
    Some(Arc::from(ids))
}

/// A retry: a new toolCallId and, optionally, a new batch (without one, the same proposal is previewed
/// again against the current page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryRequest {
    /// Must differ from every toolCallId the session used.
    pub tool_call_id: String,
    /// The new batch, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<Operation>>,
}

/// Previews the proposal (or `request.operations`) again against the current page, under a new toolCallId.
///
/// Allowed from `awaiting_user`, `stale` and `failed`. On success the session is `awaiting_user` with a new
/// `base` and `preview`; when the new preview fails it is `failed` and keeps the coded error. Nothing is
/// written either way. An `Err` (wrong state, reused toolCallId, another document) leaves the session as it
/// was.
pub fn retry(
    session: &mut ReviewSessionV1,
    page: &mut Page,
    request: &RetryRequest,
    stamp: &Stamp<'_>,
    env: &mut Env<'_>,
) -> Result<()> {
    session.check_page(page)?;
    session.require(Action::Retry)?;
    let id = request.tool_call_id.as_str();
    if id.trim().is_empty() {
        return Err(Error::invalid("/toolCallId", "send a new, non-empty toolCallId"));
    }
    if session.used_tool_call_id(id) {
        return Err(Error::invalid(
            "/toolCallId",
            alloc::format!("toolCallId {id:?} was already used by this session; a retry needs a new one"),
        ));
    }
    let operations = request.operations.clone().unwrap_or_else(|| session.proposal.operations.clone());
    let preview = write::run(
        page,
        &Batch {
            operations: &operations,
            read: Read::NOW,
            allowed: session.base.allowed_target_block_ids.as_deref(),
            dry_run: true,
            idempotency_key: id,
            origin: session.source.origin,
            tool_call_id: id,
        },
        stamp,
        env,
    );
    session.step(Action::Retry, stamp.at)?;
    let previous = core::mem::replace(&mut session.tool_call_id, id.to_string());
    session.previous_tool_call_ids.push(previous);
    match preview {
        Ok(preview) => {
            session.base.revision = page.revision;
            session.base.conflict_detection_key = page.conflict_detection_key();
            session.proposal.operations = preview.operations.clone();
            session.preview = Some(preview);
            session.stale = None;
            session.error = None;
            session.step(Action::Present, stamp.at)
        }
        Err(e) => {
            session.error = Some(ErrorBody::new(&e, session.trace_id.clone()));
            session.step(Action::PreviewFailed, stamp.at)
        }
    }
}
