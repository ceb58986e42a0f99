//! Following the channel: a client's copy of the page takes each message in turn.
//!
//! A `page.changed` applies only to the revision it was made on (`fromRevision`): the deleted blocks go,
//! each written block takes its place after `afterBlockId` with its new content, and the page takes the
//! new title, permission and revision. Every written block must hash to the `revisionRef` the server
//! sent, and the page must end with `blockCount` blocks; anything else means the copy is not the page the
//! server changed. A `snapshot` replaces the page. A `refetch` that stands for a page change, a `hello` at
//! another revision, or any message from a revision the copy has not reached means a change is missing.
//! All of those answer `mnote_live_resync` and leave the page as it was: the client catches up (a
//! reconnect with `?revision=`) or reads the page again.
//!
//! Tool events, review updates and profile changes never change the page. A message of either version
//! (`mnote.live_event.v1` or `.v2`) is followed alike.
//!
//! A client that wrote itself follows its own write from the server's answer instead ([`follow_write`]):
//! the `mnote.tool_result.v1` of an applied write, replayed on the revision it was made on. The replay must
//! give the very changes the server reported; anything else means the copy is not the page the server wrote
//! to, and following would fork it.

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use hashbrown::HashSet;

use crate::error::{Error, Result};
use crate::executor::Origin;
use crate::history::BlockHistory;
use crate::ops::{self, Operation, TargetScope};
use crate::page::{Block, Page, revision_ref_at};
use crate::wire::{
    self, FollowStep, LiveBlockV1, LiveBody, LiveEventV1, LiveFollowV1, LiveKind, LiveVersion, PageChangeV1, RefetchV1,
    TOOL_RESULT_V1, ToolResultFollowV1,
};

/// What following one message did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Followed {
    /// Whether the page changed.
    pub applied: bool,
    /// The page's revision now.
    pub revision: u64,
}

/// Applies `message` to `page` (see the module docs). On error the page is unchanged.
pub fn follow(page: &mut Page, message: &LiveEventV1) -> Result<Followed> {
    let step = match &message.body {
        LiveBody::Hello(_) => Step::Hello,
        LiveBody::PageChanged(change) => Step::PageChanged(change),
        LiveBody::Snapshot(snapshot) => Step::Snapshot(snapshot),
        LiveBody::Refetch(refetch) => Step::Refetch(refetch),
        LiveBody::ToolEvent(_) | LiveBody::ReviewUpdated(_) | LiveBody::ProfileChanged(_) => Step::Other,
    };
    follow_step(page, &message.schema, &message.document_id, message.revision, step)
}

/// [`follow`] for a message read as [`LiveFollowV1`], which skips what following does not need (the
/// browser package's path).
pub fn follow_light(page: &mut Page, message: &LiveFollowV1) -> Result<Followed> {
    let step = match &message.step {
        FollowStep::Hello => Step::Hello,
        FollowStep::PageChanged(change) => Step::PageChanged(change),
        FollowStep::Snapshot(snapshot) => Step::Snapshot(snapshot),
        FollowStep::Refetch(refetch) => Step::Refetch(refetch),
        FollowStep::Other => Step::Other,
    };
    follow_step(page, &message.schema, &message.document_id, message.revision, step)
}

/// Applies a write the server applied, from its `mnote.tool_result.v1` (read as [`ToolResultFollowV1`]),
/// to `page`, which must be at the result's `baseRevision`; answers the new revision. On error the page is
/// unchanged.
///
/// It refuses a dry-run (nothing was written), another document's result, a page at another revision
/// (`mnote_revision_conflict`), a `newRevision` other than the next one, an inserted block without its id,
/// and a replay whose changes differ from the result's `changedBlocks` (`mnote_invalid_arguments` at
/// `/changedBlocks/{i}`: load the page again).
pub fn follow_write(page: &mut Page, result: &ToolResultFollowV1) -> Result<u64> {
    wire::check_schema(&result.schema, TOOL_RESULT_V1)?;
    if result.dry_run {
        return Err(Error::invalid("/dryRun", "a dry-run wrote nothing on the server; there is nothing to follow"));
    }
    if result.document_id != page.document_id {
        return Err(Error::invalid("/documentId", format!("this session holds document {:?}", page.document_id)));
    }
    if result.base_revision != page.revision {
        let (expected, actual) = (result.base_revision, page.revision);
        return Err(Error::RevisionConflict { expected, actual, blocks: Vec::new() });
    }
    let next = page.revision + 1;
    if result.new_revision != Some(next) {
        return Err(Error::invalid(
            "/newRevision",
            format!("a write applied on revision {} makes {next}", page.revision),
        ));
    }
    for (i, op) in result.operations.iter().enumerate() {
        if let Operation::InsertAfter { block, .. } | Operation::InsertBefore { block, .. } = op
            && block.block_id.is_none()
        {
            let reason = "an applied result names the id of every block it inserted";
            return Err(Error::invalid(format!("/operations/{i}/block/blockId"), reason));
        }
    }
    // Every inserted block names its id (checked above), so nothing is minted.
    let plan = ops::plan(page, &result.operations, &TargetScope::unrestricted(), &mut String::new)?;
    // The same operations on the same page give the same changes.
    let differs = (0..plan.changed.len().max(result.changed_blocks.len()))
        .find(|&i| plan.changed.get(i) != result.changed_blocks.get(i));
    if let Some(i) = differs {
        let reason = "the local page differs from the page the server changed; load the page again";
        return Err(Error::invalid(format!("/changedBlocks/{i}"), reason));
    }
    plan.commit(page);
    Ok(page.revision)
}

/// What following needs of a message's payload.
enum Step<'a> {
    Hello,
    PageChanged(&'a PageChangeV1),
    Snapshot(&'a Page),
    Refetch(&'a RefetchV1),
    Other,
}

fn follow_step(page: &mut Page, schema: &str, document_id: &str, revision: u64, step: Step<'_>) -> Result<Followed> {
    LiveVersion::parse(schema)?;
    if document_id != page.document_id {
        let reason = format!("this page is document {:?}", page.document_id);
        return Err(Error::invalid("/documentId", reason));
    }
    let resync = |reason: String| Error::LiveResync { revision: page.revision, message_revision: revision, reason };
    let unchanged = Followed { applied: false, revision: page.revision };
    match step {
        Step::PageChanged(change) => apply_change(page, revision, change),
        Step::Snapshot(snapshot) => {
            if snapshot.document_id != page.document_id {
                return Err(Error::invalid(
                    "/page/documentId",
                    format!("this page is document {:?}", page.document_id),
                ));
            }
            snapshot.validate()?;
            *page = snapshot.clone();
            Ok(Followed { applied: true, revision: page.revision })
        }
        Step::Refetch(refetch) if matches!(refetch.skipped, LiveKind::PageChanged | LiveKind::Snapshot) => {
            Err(resync(format!("a change of {} bytes was too large to send; read the page again", refetch.bytes)))
        }
        Step::Hello if revision != page.revision => Err(resync(format!("the channel is at revision {revision}"))),
        _ if revision > page.revision => Err(resync(format!("a change to revision {} is missing", page.revision + 1))),
        Step::Hello | Step::Refetch(_) | Step::Other => Ok(unchanged),
    }
}

fn apply_change(page: &mut Page, revision: u64, change: &PageChangeV1) -> Result<Followed> {
    let resync = |reason: String| Error::LiveResync { revision: page.revision, message_revision: revision, reason };
    if change.from_revision != page.revision {
        return Err(resync(match change.from_revision < page.revision {
            true => format!("this change was made on revision {}, which the page is past", change.from_revision),
            false => {
                format!("this change was made on revision {}; the ones before it are missing", change.from_revision)
            }
        }));
    }
    if revision <= change.from_revision {
        return Err(Error::invalid("/revision", "a change makes a revision after the one it was made on"));
    }
    for (i, live) in change.blocks.iter().enumerate() {
        let block = block_of(live);
        block.validate(&format!("/change/blocks/{i}"))?;
        if revision_ref_at(revision, &block) != live.revision_ref {
            return Err(resync(format!("block {:?} does not hash to the revisionRef sent with it", live.block_id)));
        }
    }
    let blocks = match in_place(page, change) {
        Some(blocks) => blocks,
        None => rebuilt(page, change).map_err(resync)?,
    };
    if blocks.len() != change.block_count {
        let reason = format!("the page would have {} blocks; the server's has {}", blocks.len(), change.block_count);
        return Err(resync(reason));
    }
    page.blocks = blocks;
    // The block history follows the server's: a whole-page store (a person's, with no operations) knows
    // nothing before its revision; a write changed each block it sent at this revision.
    if change.origin == Origin::User && change.operations.is_empty() {
        page.history = BlockHistory::new(revision);
    } else {
        for id in &change.deleted_block_ids {
            page.history.forget(id);
        }
        for live in &change.blocks {
            page.history.record(live.block_id.as_str(), revision);
        }
    }
    page.title.clone_from(&change.title);
    page.permission = change.permission;
    page.revision = revision;
    Ok(Followed { applied: true, revision })
}

/// The blocks after a change that only rewrites blocks where they stand (the common edit), or `None` when
/// it inserts, deletes or moves.
fn in_place(page: &Page, change: &PageChangeV1) -> Option<Vec<Block>> {
    if !change.deleted_block_ids.is_empty() {
        return None;
    }
    let mut places = Vec::with_capacity(change.blocks.len());
    for live in &change.blocks {
        let at = page.position(&live.block_id)?;
        let before = at.checked_sub(1).and_then(|i| page.blocks.get(i)).map(|b| b.block_id.as_str());
        if before != live.after_block_id.as_deref() {
            return None;
        }
        places.push((at, live));
    }
    let mut blocks = page.blocks.clone();
    for (at, live) in places {
        *blocks.get_mut(at)? = block_of(live);
    }
    Some(blocks)
}

/// The blocks after any change: the page without the deleted and written blocks, then each written block
/// after its `afterBlockId`, in page order. The reason when the change does not fit the page.
fn rebuilt(page: &Page, change: &PageChangeV1) -> core::result::Result<Vec<Block>, String> {
    let present: HashSet<&str> = page.blocks.iter().map(|b| b.block_id.as_str()).collect();
    if let Some(gone) = change.deleted_block_ids.iter().find(|id| !present.contains(id.as_str())) {
        return Err(format!("the change deletes block {gone:?}, which the page does not have"));
    }
    let removed: HashSet<&str> =
        change.deleted_block_ids.iter().chain(change.blocks.iter().map(|b| &b.block_id)).map(String::as_str).collect();
    let mut blocks: Vec<Block> =
        page.blocks.iter().filter(|b| !removed.contains(b.block_id.as_str())).cloned().collect();
    for live in &change.blocks {
        let at = match &live.after_block_id {
            None => 0,
            Some(after) => match blocks.iter().position(|b| &b.block_id == after) {
                Some(i) => i + 1,
                None => {
                    return Err(format!(
                        "block {:?} goes after {after:?}, which the page does not have",
                        live.block_id
                    ));
                }
            },
        };
        blocks.insert(at, block_of(live));
    }
    let mut seen = BTreeSet::new();
    if let Some(twice) = blocks.iter().find(|b| !seen.insert(b.block_id.as_str())) {
        return Err(format!("block {:?} would be on the page twice", twice.block_id));
    }
    Ok(blocks)
}

fn block_of(live: &LiveBlockV1) -> Block {
    Block {
        block_id: live.block_id.clone(),
        kind: live.kind,
        text: live.text.clone(),
        attrs: live.attrs.clone(),
        editable: live.editable,
    }
}
