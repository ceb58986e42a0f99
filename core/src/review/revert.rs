//! Undo: [`revert`] applies an applied session's inverse operations as one batch, but only while every
//! block the session touched is still as the session left it.

use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::decide::{answer, check_key, record, request_fingerprint};
use super::session::{BlockStampV1, RevertedV1, ReviewSessionV1};
use super::write::{self, Batch, Read};
use super::{Answer, Stamp};
use crate::error::{Error, Result};
use crate::executor::{Env, Origin};
use crate::ops::Operation;
use crate::page::Page;
use crate::vocab::Action;

/// The body of a revert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevertRequest {
    /// Required. The same key replays the first answer byte for byte and writes nothing.
    pub idempotency_key: String,
}

/// Undoes an `applied` session as one write (revision + 1), through the executor as
/// [`Origin::ReviewAccept`].
///
/// Every block the session touched must be unchanged since (same content hash; still absent if the session
/// deleted it), and every block the undo anchors on must still exist. Otherwise it fails with
/// `mnote_revert_conflict`, naming those blocks, and nothing is written. An `Err` leaves the session as it
/// was; on `Ok` it is `reverted`.
pub fn revert(
    session: &mut ReviewSessionV1,
    page: &mut Page,
    request: &RevertRequest,
    stamp: &Stamp<'_>,
    env: &mut Env<'_>,
) -> Result<Answer> {
    session.check_page(page)?;
    let key = request.idempotency_key.as_str();
    check_key(key)?;
    let print = request_fingerprint("review.revert", request)?;
    if let Some(json) = session.replay(Action::Revert, key, &print)? {
        return Ok(Answer::replay(json));
    }
    session.require(Action::Revert)?;
    let Some(applied) = &session.applied else {
        return Err(Error::invalid("", "the session holds no applied write"));
    };
    let inverse = applied.result.inverse.clone().unwrap_or_default();
    let changed = changed_since(page, &applied.touched, &inverse);
    if !changed.is_empty() {
        return Err(Error::RevertConflict { changed });
    }
    let result = write::run(
        page,
        &Batch {
            operations: &inverse,
            read: Read::NOW,
            allowed: None,
            dry_run: false,
            idempotency_key: key,
            origin: Origin::ReviewAccept,
            tool_call_id: &session.tool_call_id,
        },
        stamp,
        env,
    )?;
    session.step(Action::Revert, stamp.at)?;
    session.reverted = Some(RevertedV1 { idempotency_key: key.into(), result: result.clone() });
    let answer = answer(session, Action::Revert, key, Some(result.clone()), None);
    record(session, Action::Revert, key, print, &answer, Some(result))
}

/// The blocks that keep an undo from being written: touched blocks whose content changed since their
/// stamp (or that came or went), then anchors of the undo (`inverse`) that no longer exist. In that order,
/// without repeats. A block with several stamps is judged by its first (an undo of several writes passes
/// the last write's stamps first: an earlier write of the same undo is not a later edit).
pub(super) fn changed_since<'a>(
    page: &Page,
    stamps: impl IntoIterator<Item = &'a BlockStampV1>,
    inverse: &[Operation],
) -> Vec<String> {
    let mut changed: Vec<String> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for stamp in stamps {
        if !seen.insert(stamp.block_id.as_str()) {
            continue;
        }
        let now = page.block(&stamp.block_id).map(|b| b.content_hash8());
        if now != stamp.content_hash {
            changed.push(stamp.block_id.clone());
        }
    }
    // Blocks the undo itself re-inserts may anchor later undo steps; every other anchor must exist.
    let mut restored: BTreeSet<&str> = BTreeSet::new();
    for op in inverse {
        for id in op.referenced_ids() {
            if !restored.contains(id) && page.block(id).is_none() && !changed.iter().any(|c| c == id) {
                changed.push(id.into());
            }
        }
        if let Operation::InsertAfter { block, .. } | Operation::InsertBefore { block, .. } = op
            && let Some(id) = &block.block_id
        {
            restored.insert(id);
        }
    }
    changed
}
