//! `mnote.suggestion.v1`: a pending change to one block, as people and agents read it.
//!
//! A suggestion is a view of a review session (the unit that is accepted, rejected, retried, aborted or
//! reverted): one suggestion per block the session's preview changes. Who made it (a person, a Hermes run,
//! the command router) is its `author`; its `diff` marks what it inserts and deletes, word by word in
//! spaced scripts and character by character in Chinese.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::ops::Operation;
use crate::ops::diff::InlineSpan;

/// Schema id of [`SuggestionV1`].
pub const SUGGESTION_V1: &str = "mnote.suggestion.v1";

/// Who made a suggestion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AuthorKind {
    /// A person suggested it in the editor.
    Person,
    /// A Hermes run proposed it.
    Hermes,
    /// The command router's shortcut proposed it.
    Command,
}

/// A suggestion's author.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthorV1 {
    /// A person, Hermes or a command.
    pub kind: AuthorKind,
    /// The user id of the person, or the actor the AI run recorded (`hermes`, `shortcut`).
    pub actor: String,
    /// The Hermes run or the command's id; absent for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

/// Where a suggestion is. Only `pending` and `stale` ones wait for a person; the rest have ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SuggestionState {
    /// Waits for an accept or a reject, and applies as shown.
    Pending,
    /// A block it touches changed since; it can be rejected or previewed again (retry), not accepted.
    Stale,
    /// Accepted and written.
    Accepted,
    /// Rejected (or withdrawn by its author).
    Rejected,
    /// Stopped before anyone decided.
    Aborted,
    /// Its preview or write failed.
    Failed,
    /// Accepted, then undone.
    Reverted,
}

/// The block's text before and after the suggestion, and what it inserts and deletes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuggestionDiffV1 {
    /// The block's text now; `null` when the suggestion inserts the block.
    pub before: Option<String>,
    /// Its text if accepted; `null` when the suggestion deletes the block.
    pub after: Option<String>,
    /// `equal`, `insert` and `delete` runs that rebuild `before` (without inserts) and `after` (without
    /// deletes): words in spaced scripts, characters in CJK.
    pub segments: Vec<InlineSpan>,
}

/// `mnote.suggestion.v1`: a pending change to one block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuggestionV1 {
    /// Always [`SUGGESTION_V1`].
    pub schema: String,
    /// `{sessionId}:{blockId}`: stable while the session lives.
    pub suggestion_id: String,
    /// The review session that holds it: accept, reject, retry or abort it there (an accept of only this
    /// block is the session's partial accept with `blockIds: [blockId]`).
    pub session_id: String,
    /// The page's document.
    pub document_id: String,
    /// The block it changes (a new block's id, for an insert).
    pub block_id: String,
    /// `replace`, `insert`, `update`, `delete` or `move`: the strongest thing it does to the block.
    pub change: String,
    /// Who made it.
    pub author: AuthorV1,
    /// Why, in the author's words, when they gave one.
    pub reason: Option<String>,
    /// The session's operations that change this block.
    pub operations: Vec<Operation>,
    /// What it does to the block's text.
    pub diff: SuggestionDiffV1,
    /// Where it is.
    pub state: SuggestionState,
    /// When it was made, RFC 3339.
    pub created_at: String,
}
