//! One entry of a document's audit log, as stored and as served.

use crate::json::Read;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// One entry of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditEntryV1 {
    /// 1 for the first entry, then one more per entry.
    pub seq: u64,
    /// The previous entry's `hash`, or [`crate::audit::GENESIS_HASH`].
    pub prev_hash: String,
    /// SHA-256 (64 lowercase hex digits) over the canonical encoding of every other field.
    pub hash: String,
    /// When, by the caller's clock, RFC 3339.
    pub at: String,
    /// Who.
    pub actor: String,
    /// The document.
    pub document_id: String,
    /// What happened: an [`crate::audit::AuditAction`]'s name, e.g. `tool.applied`, `review.accept`, `document.put`.
    pub action: String,
    /// The tool, when a tool call did it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The tool call, when a tool call did it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The review session, when one is involved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_session_id: Option<String>,
    /// The page revision after the event.
    pub revision: u64,
    /// One line for people.
    pub summary: String,
}
