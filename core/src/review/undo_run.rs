//! Undo of one Hermes run: [`undo_run`] reverts every write the run applied (each an `applied` review
//! session carrying its `runId`) as one write, and leaves every other change on the page in place.
//!
//! Where a later edit (a person's, another run's) changed a block the run wrote, the undo writes nothing
//! at first: its `mnote.run_undo.v1` answer is `needs_confirm`, names those blocks and carries a dry-run of
//! the undo against the page as it is now, as an accept that finds its blocks changed answers a fresh
//! preview. Sent again with `confirmRevision` (the preview's `revision`), it writes exactly what the preview
//! showed: the run's blocks go back to what they were before the run, the later edit to those blocks
//! included. That is what a person who asked to undo the run and read the preview expects: the run's text
//! gone. The alternative (undo only the untouched blocks) would leave the run half on the page with no
//! way to tell which half. A page that moved again since the preview fails with `mnote_run_undo_stale`,
//! so nobody confirms what they did not see.
//!
//! Who may: an editor or owner, the rule of a revert (`accept` in [`crate::policy`]'s role table).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::decide::{check_key, request_fingerprint};
use super::revert::changed_since;
use super::session::{AnswerRecordV1, RevertedV1, ReviewSessionV1};
use super::write::{self, Batch, Read};
use super::{Stamp, State};
use crate::error::{Error, Result};
use crate::executor::{Env, Origin};
use crate::json;
use crate::ops::Operation;
use crate::page::Page;
use crate::policy::{Act, Role};
use crate::vocab::Action;
use crate::wire::{ErrorBody, RUN_UNDO_V1, RunUndoOutcome, RunUndoV1, ToolResultV1};

/// The body of an undo of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UndoRunRequest {
    /// Required. The same key and body replay the first `undone` answer byte for byte and write nothing.
    pub idempotency_key: String,
    /// The `revision` of a `needs_confirm` answer: write the undo it previewed, later edits to the run's
    /// blocks included. Only read when a later edit changed a block of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm_revision: Option<u64>,
}

/// What [`undo_run`] answers.
#[derive(Debug, Clone, PartialEq)]
pub struct RunUndo {
    /// A [`RunUndoV1`] as JSON; for a replay, exactly the bytes of the first time.
    pub json: String,
    /// True when this is a replay: nothing changed.
    pub replayed: bool,
    /// The write this call made: persist the page and every session in [`RunUndo::undone`] with it.
    pub applied: Option<ToolResultV1>,
    /// The indexes (into the `sessions` passed in) of the sessions this call moved to `reverted`.
    pub undone: Vec<usize>,
}

/// Whether a person holding `role` may undo a run: an editor or owner (`mnote_role_forbidden` otherwise),
/// as for a revert of one session, since the undo writes the page.
pub fn may_undo_run(role: Role) -> Result<()> {
    role.check(Act::Accept)
}

/// Undoes Hermes run `run_id` on `page`: every `applied` session of it among `sessions` (the document's
/// sessions that carry the run id; others are ignored), last applied first, as one write (revision + 1)
/// through the executor as [`Origin::ReviewAccept`]; each of them becomes `reverted`.
///
/// Errors: `mnote_role_forbidden` (a viewer), `mnote_run_not_found` (no session of the run),
/// `mnote_run_nothing_to_undo` (none applied; the message says what they are), `mnote_run_already_undone`
/// (all undone, under another key), `mnote_run_undo_stale` (a confirm of an older preview),
/// `mnote_idempotency_conflict` (the key was used for another request), or the executor's coded error
/// when the undo no longer applies. An `Err`, and a `needs_confirm` answer, change nothing.
pub fn undo_run(
    run_id: &str,
    sessions: &mut [ReviewSessionV1],
    page: &mut Page,
    request: &UndoRunRequest,
    stamp: &Stamp<'_>,
    env: &mut Env<'_>,
) -> Result<RunUndo> {
    may_undo_run(env.role)?;
    let key = request.idempotency_key.as_str();
    check_key(key)?;
    let print = request_fingerprint(&format!("review.undo_run:{run_id}"), request)?;
    let document_id = page.document_id.clone();
    let mut ours: Vec<(usize, &mut ReviewSessionV1)> = sessions
        .iter_mut()
        .enumerate()
        .filter(|(_, s)| !run_id.is_empty() && s.run_id == run_id && s.document_id == document_id)
        .collect();
    if ours.is_empty() {
        return Err(Error::RunNotFound { run_id: run_id.into() });
    }
    for (_, session) in &ours {
        if let Some(json) = session.replay(Action::Revert, key, &print)? {
            return Ok(RunUndo { json, replayed: true, applied: None, undone: Vec::new() });
        }
    }
    if !ours.iter().any(|(_, s)| s.state == State::Applied) {
        return Err(nothing_to_undo(run_id, &ours));
    }
    ours.retain(|(_, s)| s.state == State::Applied);
    // The last applied first: its inverse reads the page the earlier ones left.
    ours.sort_by_key(|(_, s)| core::cmp::Reverse(applied_revision(s)));
    let inverse: Vec<Operation> = ours.iter().flat_map(|(_, s)| inverse_of(s)).collect();
    // The last applied first: a block's first stamp is the run's last write to it.
    let stamps = ours.iter().filter_map(|(_, s)| s.applied.as_ref()).flat_map(|a| &a.touched);
    let changed = changed_since(page, stamps, &inverse);
    let session_ids: Vec<String> = ours.iter().map(|(_, s)| s.session_id.clone()).collect();
    let trace_id = ours.first().map(|(_, s)| s.trace_id.clone()).unwrap_or_default();
    let tool_call_id = format!("undo_run:{run_id}");
    let batch = |dry_run| Batch {
        operations: &inverse,
        read: Read::NOW,
        allowed: None,
        dry_run,
        idempotency_key: key,
        origin: Origin::ReviewAccept,
        tool_call_id: &tool_call_id,
    };
    let answer = |outcome, result, preview, preview_error, revision| RunUndoV1 {
        schema: RUN_UNDO_V1.into(),
        ok: true,
        run_id: run_id.into(),
        document_id: document_id.clone(),
        outcome,
        idempotency_key: key.into(),
        session_ids: session_ids.clone(),
        changed_block_ids: changed.clone(),
        revision,
        preview,
        preview_error,
        result,
    };
    if !changed.is_empty() {
        match request.confirm_revision {
            None => {
                let (preview, error) = match write::run(page, &batch(true), stamp, env) {
                    Ok(p) => (Some(p), None),
                    Err(e) => (None, Some(ErrorBody::new(&e, trace_id))),
                };
                let shown = answer(RunUndoOutcome::NeedsConfirm, None, preview, error, page.revision);
                return Ok(RunUndo {
                    json: json::to_json(&shown)?,
                    replayed: false,
                    applied: None,
                    undone: Vec::new(),
                });
            }
            Some(confirmed) if confirmed != page.revision => {
                return Err(Error::RunUndoStale { run_id: run_id.into(), confirmed, current: page.revision });
            }
            Some(_) => {}
        }
    }
    let result = write::run(page, &batch(false), stamp, env)?;
    let done = answer(RunUndoOutcome::Undone, Some(result.clone()), None, None, page.revision);
    let json = json::to_json(&done)?;
    let mut undone = Vec::with_capacity(ours.len());
    for (at, session) in ours {
        session.step(Action::Revert, stamp.at)?;
        session.reverted = Some(RevertedV1 { idempotency_key: key.into(), result: result.clone() });
        session.answers.push(AnswerRecordV1 {
            action: Action::Revert,
            idempotency_key: key.into(),
            fingerprint: print.clone(),
            answer: json.clone(),
        });
        undone.push(at);
    }
    Ok(RunUndo { json, replayed: false, applied: Some(result), undone })
}

/// The revision a session's write made (0 when it carries none).
fn applied_revision(session: &ReviewSessionV1) -> u64 {
    session.applied.as_ref().and_then(|a| a.result.new_revision).unwrap_or(0)
}

fn inverse_of(session: &ReviewSessionV1) -> Vec<Operation> {
    session.applied.as_ref().and_then(|a| a.result.inverse.clone()).unwrap_or_default()
}

/// Why a run with sessions has nothing to undo: all undone already, or none ever applied.
fn nothing_to_undo(run_id: &str, ours: &[(usize, &mut ReviewSessionV1)]) -> Error {
    let reverted: Vec<String> =
        ours.iter().filter(|(_, s)| s.state == State::Reverted).map(|(_, s)| s.session_id.clone()).collect();
    if !reverted.is_empty() {
        return Error::RunAlreadyUndone { run_id: run_id.into(), session_ids: reverted };
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, session) in ours {
        *counts.entry(session.state.as_str()).or_default() += 1;
    }
    let states: Vec<String> = counts.iter().map(|(state, n)| format!("{n} {state}")).collect();
    Error::RunNothingToUndo {
        run_id: run_id.into(),
        reason: format!("none of its review sessions applied a write ({})", states.join(", ")),
    }
}
