//! `mnote.page_ai_context.v2`: v1's frozen context, plus the page's pending suggestions.
//!
//! v2 has every field of [`super::PageAiContextV1`], meaning the same, and one more: `suggestions`, the
//! pending changes (people's and AI proposals held for review) to the blocks the chunk shows. Its views
//! show them too, each marked as not the page's text:
//!
//! - `pageText`: one line after the block it applies to, `⟦suggestion {id} · NOT page text · {state}
//!   {change} by {author}⟧ "before" → "after"`, its texts JSON-quoted (so a suggestion is always one line,
//!   and cannot close its marker or forge a block line). A line of a block's own text that begins with `⟦`
//!   is written `\⟦…`, so no block line reads as a marker.
//! - `pageXml`: a `<suggestion>` element after its `<block>`, with `<del>` (the text now) and `<ins>` (the
//!   text if accepted), escaped like the rest.
//! - `suggestions`: the list, whatever views were asked for.
//!
//! What a write binds to is unchanged: a v2 context freezes the same blocks, revision and allowed targets
//! as v1 for the same request, and its budget cuts the same chunks (suggestion lines are outside
//! `maxChars`), so continuation tokens are the same too.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{AuthorV1, ContextBlockV1, SuggestionState, WarningV1};

/// Schema id of [`PageAiContextV2`].
pub const PAGE_AI_CONTEXT_V2: &str = "mnote.page_ai_context.v2";

/// A pending suggestion as a context shows it: who, what, where, and the session that decides it. The
/// full `mnote.suggestion.v1` (operations, word diff) is `GET /api/documents/{id}/suggestions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextSuggestionV2 {
    /// `{sessionId}:{blockId}`, as in `mnote.suggestion.v1`.
    pub suggestion_id: String,
    /// The review session that holds it; only a person accepts or rejects it there.
    pub session_id: String,
    /// The block it changes (a new block's id, for an insert: not on the page yet).
    pub block_id: String,
    /// The block of the page it is shown after: `blockId` itself, or for a new block the block it is
    /// inserted next to.
    pub anchor_block_id: String,
    /// `replace`, `insert`, `update`, `delete` or `move`.
    pub change: String,
    /// Who made it.
    pub author: AuthorV1,
    /// Why, in the author's words, when they gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `pending` (applies as shown) or `stale` (a block it touches changed since).
    pub state: SuggestionState,
    /// The block's text now; `null` for an insert.
    pub before: Option<String>,
    /// Its text if accepted; `null` for a delete.
    pub after: Option<String>,
}

/// `mnote.page_ai_context.v2`: a page frozen into an addressable context, with its pending suggestions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PageAiContextV2 {
    /// Always [`PAGE_AI_CONTEXT_V2`].
    pub schema: String,
    /// The page's workspace.
    pub workspace_id: String,
    /// The page's document.
    pub document_id: String,
    /// The page's title.
    pub title: String,
    /// `full`, `outline`, `block`, `selection` or `keyword`.
    pub scope: String,
    /// The revision this context was frozen at.
    pub revision: u64,
    /// `body:{revision}:{hash}` of the page at that revision.
    pub conflict_detection_key: String,
    /// Names this frozen snapshot; minted by the caller.
    pub context_id: String,
    /// The only blocks a write based on this context may target.
    pub allowed_target_block_ids: Vec<String>,
    /// The blocks the user selected (for `block` and `selection`).
    pub selected_block_ids: Vec<String>,
    /// The `text` view, when requested, with a marked line per suggestion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_text: Option<String>,
    /// The `page_xml` view, when requested, with a `<suggestion>` element per suggestion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_xml: Option<String>,
    /// The `json` view, when requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<ContextBlockV1>>,
    /// The pending suggestions on this chunk's blocks (context-only neighbours excepted), in the order the
    /// views show them. Not the page's text: a person accepts or rejects each.
    pub suggestions: Vec<ContextSuggestionV2>,
    /// True when the budget cut the context; fetch `continuation` for the rest.
    pub truncated: bool,
    /// Things the reader should know, e.g. that the context was cut.
    pub warnings: Vec<WarningV1>,
    /// Opaque token for the next chunk, when `truncated`.
    pub continuation: Option<String>,
}
