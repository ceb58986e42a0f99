//! Suggestions, `mnote.suggestion.v1`: the pending changes of a page, one per block, derived from its
//! review sessions, and who may decide them.
//!
//! A held AI proposal and a person's suggestion are the same thing: a review session that waits for a
//! person (`awaiting_user`, or `stale`). [`suggestions`] lists a page's from its sessions; the session stays
//! the unit of accept, reject, retry, abort and revert, so every rule of those stays where it is. A person's
//! suggestion is made by [`super::suggest`], through the same dry-run as an AI proposal.
//!
//! Who decides ([`may_act`]): accept, retry and revert need the `accept` act (editors and owners); reject and
//! abort too, except that the person who made a suggestion may always withdraw it (reject or abort their
//! own), since it is theirs; a Hermes proposal is withdrawn by no one but an editor or owner.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::partial;
use super::session::ReviewSessionV1;
use crate::error::Result;
use crate::executor::{Origin, ToolCall, WriteArgs};
use crate::ops::diff::word_diff;
use crate::ops::{ChangedBlock, Operation};
use crate::page::Page;
use crate::policy::{Act, Role};
use crate::vocab::{Action, State};
use crate::wire::{AuthorKind, AuthorV1, SUGGESTION_V1, SuggestionDiffV1, SuggestionState, SuggestionV1};

/// A session with the reason its author gave, which the caller keeps beside it (the session's shape,
/// `mnote.page_ai_review_session.v1`, has no place for one).
#[derive(Debug, Clone, Copy)]
pub struct Noted<'a> {
    /// The session.
    pub session: &'a ReviewSessionV1,
    /// Why, in the author's words, if they said.
    pub reason: Option<&'a str>,
}

impl<'a> From<&'a ReviewSessionV1> for Noted<'a> {
    fn from(session: &'a ReviewSessionV1) -> Self {
        Noted { session, reason: None }
    }
}

/// The reason a write call carries for its reviewer: `mnote.doc.plan_update`'s `summary`. No other tool
/// takes one.
pub fn reason_of<'c>(call: &'c ToolCall<'_>) -> Option<&'c str> {
    match call.args.write()? {
        WriteArgs::PlanUpdate(args) => args.summary.as_deref().map(str::trim).filter(|s| !s.is_empty()),
        _ => None,
    }
}

/// The state a suggestion of a session in `state` is in; `None` while the session is being previewed or
/// written (there is nothing to show yet, or it is about to land).
pub fn state_of(state: State) -> Option<SuggestionState> {
    match state {
        State::AwaitingUser => Some(SuggestionState::Pending),
        State::Stale => Some(SuggestionState::Stale),
        State::Applied => Some(SuggestionState::Accepted),
        State::Rejected => Some(SuggestionState::Rejected),
        State::Aborted => Some(SuggestionState::Aborted),
        State::Failed => Some(SuggestionState::Failed),
        State::Reverted => Some(SuggestionState::Reverted),
        State::Draft | State::Planning | State::Previewing | State::Accepted | State::Applying => None,
    }
}

/// Who made a session's change.
pub fn author_of(session: &ReviewSessionV1) -> AuthorV1 {
    let kind = match session.source.origin {
        Origin::Hermes => AuthorKind::Hermes,
        Origin::Shortcut => AuthorKind::Command,
        Origin::User | Origin::ReviewAccept => AuthorKind::Person,
    };
    let run_id = (kind != AuthorKind::Person).then(|| session.run_id.clone());
    AuthorV1 { kind, actor: session.audit.created_by.clone(), run_id }
}

/// The pending suggestions of `page`: those of its sessions that wait for a person (`pending`, or `stale`:
/// marked so, or waiting on a block that changed since its preview),
/// one per block each changes, in page order (a new block at its anchor), ties in the order of `sessions`.
/// Sessions of other documents are skipped.
pub fn suggestions(sessions: &[Noted<'_>], page: &Page) -> Vec<SuggestionV1> {
    let mut found: Vec<(usize, usize, SuggestionV1)> = Vec::new();
    let waiting =
        sessions.iter().filter(|n| n.session.document_id == page.document_id && n.session.state.awaits_person());
    for (order, noted) in waiting.enumerate() {
        for (at, suggestion) in of_session(noted, page) {
            found.push((at, order, suggestion));
        }
    }
    found.sort_by_key(|(at, order, _)| (*at, *order));
    found.into_iter().map(|(_, _, s)| s).collect()
}

/// The suggestions of one session, whatever its state (the ended ones too, e.g. for a live update), each
/// with where it sits on `page`. Empty while the session has nothing to show.
fn of_session(noted: &Noted<'_>, page: &Page) -> Vec<(usize, SuggestionV1)> {
    let session = noted.session;
    let Some(state) = state_of(session.state) else { return Vec::new() };
    // A stale session shows its fresh preview against the page as it is now, when it still applies.
    let fresh = match session.state {
        State::Stale => session.stale.as_ref().and_then(|s| s.preview.as_ref()),
        _ => None,
    };
    let Some(preview) = fresh.or(session.preview.as_ref()) else { return Vec::new() };
    // A session still waiting whose blocks changed since its preview (another suggestion on the same
    // block was accepted) no longer applies as shown: it is stale, as its accept would find.
    let outdated = session.state == State::AwaitingUser && !preview.changed_blocks.iter().all(|c| unchanged(page, c));
    let state = if outdated { SuggestionState::Stale } else { state };
    let by_block = operations_by_block(session, page);
    let author = author_of(session);
    preview
        .changed_blocks
        .iter()
        .map(|changed| {
            let id = &changed.block_id;
            let operations = by_block.get(id.as_str()).cloned().unwrap_or_default();
            let at = position(page, id, &operations);
            let (before, after) = (changed.before.clone(), changed.after.clone());
            let segments = word_diff(before.as_deref().unwrap_or(""), after.as_deref().unwrap_or(""));
            let suggestion = SuggestionV1 {
                schema: SUGGESTION_V1.into(),
                suggestion_id: format!("{}:{id}", session.session_id),
                session_id: session.session_id.clone(),
                document_id: session.document_id.clone(),
                block_id: id.clone(),
                change: changed.op.clone(),
                author: author.clone(),
                reason: noted.reason.map(String::from),
                operations,
                diff: SuggestionDiffV1 { before, after, segments },
                state,
                created_at: session.audit.created_at.clone(),
            };
            (at, suggestion)
        })
        .collect()
}

/// The suggestions of one session (see [`suggestions`] for the order), whatever its state: what a live
/// update of the session shows.
pub fn suggestions_of(noted: Noted<'_>, page: &Page) -> Vec<SuggestionV1> {
    let mut found = of_session(&noted, page);
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, s)| s).collect()
}

/// Whether the block a preview changed is as the preview saw it: same content hash (an inserted block,
/// which the preview did not read, always is).
fn unchanged(page: &Page, changed: &ChangedBlock) -> bool {
    if changed.before.is_none() {
        return true;
    }
    let seen = changed.revision_ref.rsplit(':').next();
    page.block(&changed.block_id).is_some_and(|block| seen == Some(block.content_hash8().as_str()))
}

/// The session's operations by the block each changes (see [`partial`]). When they no longer replay on
/// the page (a block they touch changed), each block gets the operations that name it.
fn operations_by_block(session: &ReviewSessionV1, page: &Page) -> BTreeMap<String, Vec<Operation>> {
    let operations = &session.proposal.operations;
    // Operations that each name their block go to that block, which is what a replay attributes them
    // to: no replay on a copy of the page (at 10,000 blocks and 100 suggestions, the copies were most of
    // the cost of listing them). Only a replace by text alone needs the replay, to find its blocks.
    if !operations.iter().any(|op| matches!(op, Operation::Replace { block_id: None, .. })) {
        return by_named_block(operations);
    }
    match partial::attribute(page, operations, session.base.allowed_target_block_ids.as_deref()) {
        Ok(attributed) => {
            let mut by_block: BTreeMap<String, Vec<Operation>> = BTreeMap::new();
            for (id, op) in attributed {
                by_block.entry(id).or_default().push(op);
            }
            by_block
        }
        Err(_) => by_named_block(operations),
    }
}

/// Each operation under the block it names (an insert under the block it inserts; a replace by text
/// alone, which names none, under none).
fn by_named_block(operations: &[Operation]) -> BTreeMap<String, Vec<Operation>> {
    let mut by_block: BTreeMap<String, Vec<Operation>> = BTreeMap::new();
    for op in operations {
        let owner = match op {
            Operation::InsertAfter { block, .. } | Operation::InsertBefore { block, .. } => block.block_id.clone(),
            Operation::Replace { block_id, .. } => block_id.clone(),
            Operation::Update { block_id, .. } | Operation::Delete { block_id } | Operation::Move { block_id, .. } => {
                Some(block_id.clone())
            }
        };
        if let Some(owner) = owner {
            by_block.entry(owner).or_default().push(op.clone());
        }
    }
    by_block
}

/// Where block `id` sits on `page`: its index, or for a block the suggestion inserts, its anchor's.
fn position(page: &Page, id: &str, operations: &[Operation]) -> usize {
    page.position(id)
        .or_else(|| {
            operations.iter().find_map(|op| match op {
                Operation::InsertAfter { after_block_id: anchor, .. } => page.position(anchor),
                Operation::InsertBefore { before_block_id: anchor, .. } => page.position(anchor),
                _ => None,
            })
        })
        .unwrap_or(usize::MAX)
}

/// Whether a person (`actor`, holding `role` in the page's workspace) may send `verb` to `session`:
/// `mnote_role_forbidden` otherwise. See the module docs for the rule and why.
pub fn may_act(session: &ReviewSessionV1, verb: Action, actor: &str, role: Role) -> Result<()> {
    let own = author_of(session).kind == AuthorKind::Person && session.audit.created_by == actor;
    match verb {
        Action::Reject | Action::Abort if own => role.check(Act::Suggest),
        _ => role.check(Act::Accept),
    }
}
