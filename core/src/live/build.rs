//! The channel's messages, built from what a command committed.
//!
//! A command's caller hands over a [`Commit`]: the page as the command left it, the [`Change`] it made to
//! the page (the blocks whose stored rows it wrote or deleted, and who wrote), the tool events it emitted
//! and the review sessions it stored. [`messages`] answers, in the order things happened:
//!
//! - each `tool.started`, `tool.completed` and `tool.failed` event as a `tool.event`;
//! - each `review.updated` event as a `review.updated` carrying the stored session (an event whose session
//!   was not stored, because the command failed, is dropped with it);
//! - one `page.changed`, placed right before the first event that reports the new revision (so a client
//!   sees the page change, then the tool call that made it complete), or last.
//!
//! Messages before the `page.changed` carry the revision the command started on; it and every later one
//! the new revision. A page that changed with no journaled write (which no command does) is sent as a
//! `snapshot`, so a client never misses a change it cannot explain.

use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use crate::events::EventKind;
use crate::executor::Origin;
use crate::ops::Operation;
use crate::page::Page;
use crate::review::ReviewSessionV1;
use crate::wire::{
    HelloV1, LIVE_EVENT_V1, LiveBlockV1, LiveBody, LiveEventV1, LiveLimitsV1, PageChangeV1, ToolEventV1, ToolResultV1,
};

/// One write a command applied: the executor's result and who asked.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedWrite {
    /// Who asked: `hermes`, `shortcut`, `user` or `review_accept`.
    pub origin: Origin,
    /// The run the write belongs to (a Hermes run, a shortcut's run), when there is one.
    pub run_id: Option<String>,
    /// The review session it went through, when it did.
    pub review_session_id: Option<String>,
    /// The applied `mnote.tool_result.v1`.
    pub result: ToolResultV1,
}

/// Who made a change to the page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Author<'a> {
    /// The writes a command journaled, in order (a tool call, a shortcut, a review accept or revert, a
    /// person's block edits).
    Writes(&'a [AppliedWrite]),
    /// A person who stored the whole page, with the actor the audit log records.
    Person(&'a str),
}

/// What a command did to the page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change<'a> {
    /// The revision the command started on.
    pub from_revision: u64,
    /// Blocks whose stored rows it wrote: inserted, changed or moved.
    pub written: &'a [String],
    /// Blocks it deleted.
    pub deleted: &'a [String],
    /// Who made it.
    pub author: Author<'a>,
}

/// Everything one command committed that the channel reports.
#[derive(Debug, Clone, Copy)]
pub struct Commit<'a> {
    /// The page as the command left it (the new revision when it changed).
    pub page: &'a Page,
    /// When the command ran, RFC 3339.
    pub at: &'a str,
    /// What it did to the page, when it changed it.
    pub change: Option<Change<'a>>,
    /// Its tool and review events, in order.
    pub events: &'a [ToolEventV1],
    /// The review sessions it stored, as stored.
    pub sessions: &'a [ReviewSessionV1],
}

/// The messages of `commit`, numbered from `first_seq`.
pub fn messages(commit: &Commit<'_>, first_seq: u64) -> Vec<LiveEventV1> {
    let page = commit.page;
    let mut change = commit.change.map(|change| (change.from_revision, page_message(page, &change)));
    let report = change.as_ref().and_then(|_| commit.events.iter().position(|e| reports(e, page.revision)));
    let mut bodies: Vec<(u64, LiveBody)> = Vec::with_capacity(commit.events.len() + 1);
    let mut revision = change.as_ref().map_or(page.revision, |(from, _)| *from);
    for (i, event) in commit.events.iter().enumerate() {
        if report == Some(i)
            && let Some((_, body)) = change.take()
        {
            revision = page.revision;
            bodies.push((revision, body));
        }
        match event.event {
            EventKind::ToolStarted | EventKind::ToolCompleted | EventKind::ToolFailed => {
                bodies.push((revision, LiveBody::ToolEvent(event.clone())));
            }
            EventKind::ReviewUpdated => {
                let stored = event.review_session_id.as_deref().and_then(|id| stored(commit.sessions, id));
                if let Some(session) = stored {
                    bodies.push((revision, LiveBody::ReviewUpdated(Box::new(session.clone()))));
                }
            }
        }
    }
    if let Some((_, body)) = change {
        bodies.push((page.revision, body));
    }
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, (revision, body))| LiveEventV1 {
            schema: LIVE_EVENT_V1.into(),
            seq: first_seq + i as u64,
            revision,
            at: commit.at.into(),
            document_id: page.document_id.clone(),
            body,
        })
        .collect()
}

/// The blocks `writes` left written (inserted, changed or moved) and the ones they deleted, from each
/// result's changed blocks: exactly the blocks whose history the executor recorded or forgot. A block
/// inserted and deleted by the same command is in neither.
pub fn touched(writes: &[AppliedWrite]) -> (Vec<String>, Vec<String>) {
    let mut written: BTreeSet<&str> = BTreeSet::new();
    let mut born: BTreeSet<&str> = BTreeSet::new();
    let mut deleted: Vec<String> = Vec::new();
    for changed in writes.iter().flat_map(|w| &w.result.changed_blocks) {
        let id = changed.block_id.as_str();
        match (&changed.before, &changed.after) {
            (_, Some(_)) => {
                if changed.before.is_none() && !deleted.iter().any(|d| d == id) {
                    born.insert(id);
                }
                written.insert(id);
            }
            (_, None) => {
                written.remove(id);
                if !born.contains(id) && !deleted.iter().any(|d| d == id) {
                    deleted.push(id.into());
                }
            }
        }
    }
    (written.into_iter().map(String::from).collect(), deleted)
}

/// The blocks of `after` that are new or differ from `before` (text, type, attrs or the block before
/// them), and the blocks of `before` that are gone: what a person's store of the whole page changed.
pub fn compared(before: Option<&Page>, after: &Page) -> (Vec<String>, Vec<String>) {
    let mut written = Vec::new();
    for (i, block) in after.blocks.iter().enumerate() {
        let same = before.is_some_and(|before| {
            before
                .position(&block.block_id)
                .is_some_and(|o| before.blocks.get(o) == Some(block) && predecessor(before, o) == predecessor(after, i))
        });
        if !same {
            written.push(block.block_id.clone());
        }
    }
    let deleted = before.map_or_else(Vec::new, |before| {
        before.blocks.iter().filter(|b| after.block(&b.block_id).is_none()).map(|b| b.block_id.clone()).collect()
    });
    (written, deleted)
}

fn predecessor(page: &Page, i: usize) -> Option<&str> {
    i.checked_sub(1).and_then(|j| page.blocks.get(j)).map(|b| b.block_id.as_str())
}

/// `hello`: the channel is live at `seq` and the page's revision, after `replayed` stored messages (or a
/// snapshot).
pub fn hello(page: &Page, seq: u64, at: &str, replayed: u64, snapshot: bool, limits: LiveLimitsV1) -> LiveEventV1 {
    envelope(page, seq, at, LiveBody::Hello(HelloV1 { replayed, snapshot, limits }))
}

/// `snapshot`: the whole page, for a socket caught up to `seq`.
pub fn snapshot(page: &Page, seq: u64, at: &str) -> LiveEventV1 {
    envelope(page, seq, at, LiveBody::Snapshot(Box::new(page.clone())))
}

fn envelope(page: &Page, seq: u64, at: &str, body: LiveBody) -> LiveEventV1 {
    LiveEventV1 {
        schema: LIVE_EVENT_V1.into(),
        seq,
        revision: page.revision,
        at: at.into(),
        document_id: page.document_id.clone(),
        body,
    }
}

/// Whether `event` is the one that tells of the write that made `revision`.
fn reports(event: &ToolEventV1, revision: u64) -> bool {
    let summary = &event.summary;
    summary.new_revision == Some(revision) && summary.dry_run != Some(true) && summary.replayed != Some(true)
}

fn stored<'s>(sessions: &'s [ReviewSessionV1], session_id: &str) -> Option<&'s ReviewSessionV1> {
    sessions.iter().rev().find(|s| s.session_id == session_id)
}

/// The `page.changed` of a change, or a `snapshot` when no write explains it.
fn page_message(page: &Page, change: &Change<'_>) -> LiveBody {
    let (origin, actor, last, operations) = match change.author {
        Author::Person(actor) => (Origin::User, String::from(actor), None, Vec::new()),
        Author::Writes(writes) => {
            let Some(last) = writes.last() else {
                return LiveBody::Snapshot(Box::new(page.clone()));
            };
            let operations: Vec<Operation> = writes.iter().flat_map(|w| w.result.operations.iter().cloned()).collect();
            (last.origin, last.result.audit.actor.clone(), Some(last), operations)
        }
    };
    LiveBody::PageChanged(PageChangeV1 {
        from_revision: change.from_revision,
        origin,
        actor,
        run_id: last.and_then(|w| w.run_id.clone()),
        tool_call_id: last.map(|w| w.result.audit.tool_call_id.clone()),
        tool_name: last.map(|w| w.result.tool_name.clone()),
        review_session_id: last.and_then(|w| w.review_session_id.clone()),
        title: page.title.clone(),
        permission: page.permission,
        block_count: page.blocks.len(),
        blocks: written_blocks(page, change.written),
        deleted_block_ids: change.deleted.to_vec(),
        operations,
    })
}

/// The written blocks as they are now, in page order, each with the block before it.
fn written_blocks(page: &Page, written: &[String]) -> Vec<LiveBlockV1> {
    let wanted: hashbrown::HashSet<&str> = written.iter().map(String::as_str).collect();
    let mut blocks = Vec::with_capacity(wanted.len());
    let mut before: Option<&str> = None;
    for block in &page.blocks {
        if wanted.contains(block.block_id.as_str()) {
            blocks.push(LiveBlockV1 {
                block_id: block.block_id.clone(),
                after_block_id: before.map(String::from),
                revision_ref: page.revision_ref(block),
                kind: block.kind,
                text: block.text.clone(),
                attrs: block.attrs.clone(),
                editable: block.editable,
            });
            if blocks.len() == wanted.len() {
                break;
            }
        }
        before = Some(&block.block_id);
    }
    blocks
}
