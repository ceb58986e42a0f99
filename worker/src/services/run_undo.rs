//! Undo of one Hermes run, inside the document's object: core's `review::undo_run` over the run's stored
//! sessions and the page (`POST /api/documents/{id}/runs/{runId}/undo`).
//!
//! An undo that writes stores every session it reverted, emits `review.updated` for each (the live
//! channel carries them, with the page change, to every open tab) and appends ONE audit entry,
//! `review.undo_run`, naming the run's sessions. A `needs_confirm` answer (a later edit touched a block of
//! the run) and a replay record nothing. Who may: core's rule (`review::may_undo_run`, the accept rule).

use pageai_core::Error;
use pageai_core::audit::{self, AuditDraft};
use pageai_core::events;
use pageai_core::executor::Origin;
use pageai_core::page::Page;
use pageai_core::review::{self, Stamp, UndoRunRequest};

use super::stores::Stores;

/// Undoes run `run_id` on `page`; answers the `mnote.run_undo.v1` as JSON, byte for byte the same on a
/// replay. An `Err` means nothing changed.
pub fn undo(page: &mut Page, run_id: &str, request: &UndoRunRequest, stores: &mut Stores<'_>) -> Result<String, Error> {
    review::may_undo_run(stores.acting.role)?;
    let mut sessions = stores.sessions.of_run(run_id)?;
    let now = stores.now;
    let stamp = Stamp { actor: &stores.acting.user, at: &now.at };
    // Review writes carry no contextId: an undo writes back only what the run's own sessions wrote.
    let contexts = pageai_core::executor::NoContexts;
    let undo = stores.with_env(&contexts, |env| review::undo_run(run_id, &mut sessions, page, request, &stamp, env))?;
    let Some(result) = &undo.applied else {
        return Ok(undo.json);
    };
    // The undo is the person's own write, as a revert of one session is.
    stores.applied(Origin::User, run_id, None, result);
    let mut undone = Vec::with_capacity(undo.undone.len());
    for at in &undo.undone {
        if let Some(session) = sessions.get(*at) {
            stores.sessions.put(session, None)?;
            stores.events.push(events::review_updated(session, &now.at));
            undone.push(session.session_id.clone());
        }
    }
    audit::record(&mut *stores.audit, AuditDraft::for_run_undo(run_id, &undone, result))?;
    Ok(undo.json)
}

#[cfg(test)]
#[path = "run_undo_tests.rs"]
mod tests;
