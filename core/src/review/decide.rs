//! The user's decisions on a preview: [`accept`] (all of it, or some blocks), [`reject`] and [`abort`].

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::session::{AnswerRecordV1, AppliedV1, PAGE_AI_REVIEW_ANSWER_V1, ReviewAnswerV1, ReviewSessionV1, StaleV1};
use super::write::{self, Batch, Read};
use super::{Answer, Stamp, partial};
use crate::error::{Error, Result};
use crate::executor::idempotency::fingerprint;
use crate::executor::{Env, Origin};
use crate::json;
use crate::page::Page;
use crate::vocab::Action;
use crate::wire::{ErrorBody, ToolResultV1};

/// The body of an accept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcceptRequest {
    /// Apply only the changes to these blocks (ids from the preview's `changedBlocks`); all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_ids: Option<Vec<String>>,
    /// Required. The same key and body replay the first answer byte for byte and write nothing.
    pub idempotency_key: String,
}

/// Accepts the session's preview, or the part of it that touches `request.block_ids`.
///
/// The blocks the accepted operations touch must be unchanged since `base` (each changed block's
/// `revisionRef` in the preview, and the page's history for anchors). The rest of the page may have moved
/// on: the batch is then applied onto the current page (a rebase), and its result says so with a `rebased`
/// warning, from the session's base revision to the revision it applied on; the session keeps its base.
/// When a touched block changed, nothing is written: the session becomes `stale` and the answer carries a
/// fresh dry-run of the same proposal against the current page, or the coded error why it no longer
/// applies. Otherwise the batch is applied through the executor as [`Origin::ReviewAccept`] and the session
/// is `applied`. A partial batch is validated again as a whole; an invalid choice of blocks fails with its
/// coded error.
///
/// An `Err` means nothing changed, neither the page nor the session. On `Ok`, persist the session, and the
/// page when [`Answer::applied`] is set.
pub fn accept(
    session: &mut ReviewSessionV1,
    page: &mut Page,
    request: &AcceptRequest,
    stamp: &Stamp<'_>,
    env: &mut Env<'_>,
) -> Result<Answer> {
    session.check_page(page)?;
    let key = request.idempotency_key.as_str();
    check_key(key)?;
    let print = request_fingerprint("review.accept", request)?;
    if let Some(json) = session.replay(Action::Accept, key, &print)? {
        return Ok(Answer::replay(json));
    }
    session.require(Action::Accept)?;
    if let Some(ids) = &request.block_ids {
        partial::check_choice(session, ids)?;
    }
    let moved =
        page.revision != session.base.revision || page.conflict_detection_key() != session.base.conflict_detection_key;
    let result = match apply(session, page, request, stamp, env) {
        Ok(result) => result,
        // On the base page an error is the request's; on a page that moved on, it is what moved.
        Err(_) if moved => return mark_stale(session, page, key, print, stamp, env),
        Err(e) => return Err(e),
    };
    for action in [Action::Accept, Action::Apply, Action::ApplySucceeded] {
        session.step(action, stamp.at)?;
    }
    session.applied = Some(AppliedV1 {
        idempotency_key: key.into(),
        block_ids: request.block_ids.clone(),
        touched: write::stamps(page, &result),
        result: result.clone(),
    });
    session.error = None;
    let answer = answer(session, Action::Accept, key, Some(result.clone()), None);
    record(session, Action::Accept, key, print, &answer, Some(result))
}

/// Applies the accepted operations onto the current page, as made against the session's base.
fn apply(
    session: &ReviewSessionV1,
    page: &mut Page,
    request: &AcceptRequest,
    stamp: &Stamp<'_>,
    env: &mut Env<'_>,
) -> Result<ToolResultV1> {
    let operations = match &request.block_ids {
        None => session.proposal.operations.clone(),
        Some(ids) => partial::select(session, page, ids)?,
    };
    let refs = base_refs(session);
    let batch = Batch {
        operations: &operations,
        read: Read { revision: Some(session.base.revision), revision_refs: &refs },
        allowed: session.base.allowed_target_block_ids.as_deref(),
        dry_run: false,
        idempotency_key: &request.idempotency_key,
        origin: Origin::ReviewAccept,
        tool_call_id: &session.tool_call_id,
    };
    write::run(page, &batch, stamp, env)
}

/// The `revisionRef`s, at the base, of the blocks the preview changes that existed then.
fn base_refs(session: &ReviewSessionV1) -> Vec<String> {
    let changed = session.preview.iter().flat_map(|p| p.changed_blocks.iter());
    changed.filter(|c| c.before.is_some()).map(|c| c.revision_ref.clone()).collect()
}

/// Nothing is written: the session is `stale`, with a fresh preview against the current page.
fn mark_stale(
    session: &mut ReviewSessionV1,
    page: &mut Page,
    key: &str,
    print: String,
    stamp: &Stamp<'_>,
    env: &mut Env<'_>,
) -> Result<Answer> {
    let stale = fresh_preview(session, page, key, stamp, env);
    session.step(Action::MarkStale, stamp.at)?;
    session.stale = Some(stale.clone());
    let answer = answer(session, Action::Accept, key, None, Some(stale));
    record(session, Action::Accept, key, print, &answer, None)
}

/// A dry-run of the session's proposal against the page as it is now.
fn fresh_preview(
    session: &ReviewSessionV1,
    page: &mut Page,
    key: &str,
    stamp: &Stamp<'_>,
    env: &mut Env<'_>,
) -> StaleV1 {
    let preview = write::run(
        page,
        &Batch {
            operations: &session.proposal.operations,
            read: Read::NOW,
            allowed: session.base.allowed_target_block_ids.as_deref(),
            dry_run: true,
            idempotency_key: key,
            origin: session.source.origin,
            tool_call_id: &session.tool_call_id,
        },
        stamp,
        env,
    );
    let (preview, error) = match preview {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(ErrorBody::new(&e, session.trace_id.clone()))),
    };
    StaleV1 {
        current_revision: page.revision,
        current_conflict_detection_key: page.conflict_detection_key(),
        preview,
        error,
    }
}

/// Rejects the preview. Never writes: it does not even see the page.
pub fn reject(session: &mut ReviewSessionV1, stamp: &Stamp<'_>) -> Result<()> {
    session.step(Action::Reject, stamp.at)
}

/// Stops the session. Never writes: it does not even see the page.
pub fn abort(session: &mut ReviewSessionV1, stamp: &Stamp<'_>) -> Result<()> {
    session.step(Action::Abort, stamp.at)
}

pub(super) fn check_key(key: &str) -> Result<()> {
    if key.trim().is_empty() || key.len() > 255 {
        return Err(Error::invalid("/idempotencyKey", "use a non-empty key of at most 255 bytes"));
    }
    Ok(())
}

pub(super) fn request_fingerprint<T: Serialize>(kind: &str, request: &T) -> Result<String> {
    let value = json::to_value(request)?;
    Ok(fingerprint(kind, &value))
}

pub(super) fn answer(
    session: &ReviewSessionV1,
    action: Action,
    key: &str,
    result: Option<ToolResultV1>,
    stale: Option<StaleV1>,
) -> ReviewAnswerV1 {
    ReviewAnswerV1 {
        schema: PAGE_AI_REVIEW_ANSWER_V1.into(),
        ok: true,
        action,
        session_id: session.session_id.clone(),
        state: session.state,
        idempotency_key: key.into(),
        result,
        stale,
    }
}

/// Serializes `answer`, keeps it for replays, and hands it back.
pub(super) fn record(
    session: &mut ReviewSessionV1,
    action: Action,
    key: &str,
    fingerprint: String,
    answer: &ReviewAnswerV1,
    applied: Option<ToolResultV1>,
) -> Result<Answer> {
    let json = json::to_json(answer)?;
    session.answers.push(AnswerRecordV1 { action, idempotency_key: key.into(), fingerprint, answer: json.clone() });
    Ok(Answer { json, replayed: false, applied })
}
