//! The package's vocabularies: core's closed lists of wire names (tool names, schema ids, intents, reason
//! codes, review modes, states and verbs, audit actions, error codes), each with the TypeScript union that
//! types it.
//!
//! One table, written out twice. Only build.rs compiles this file (with `#[path]`, so it uses nothing but
//! core): it generates the unions and the `PageAiVocabulary` interface from it, and the same lists as JSON
//! text, which `vocabulary()` answers. The types and the values therefore cannot drift apart, and neither
//! can drift from core (a build-dependency of the package, at the same version).

use pageai_core::audit::AuditAction;
use pageai_core::error::ErrorCode;
use pageai_core::manifest::Tool;
use pageai_core::policy::{Act, Role};
use pageai_core::profile::ReviewMode;
use pageai_core::review::{Action, State};
use pageai_core::route::{Intent, ReasonCode};
use pageai_core::wire::{LiveKind, SCHEMA_IDS};

/// One list of wire names.
pub(crate) struct List {
    /// Its key in `vocabulary()`'s answer, e.g. `intents`.
    pub key: &'static str,
    /// The TypeScript union of its values, e.g. `RouteIntent`. Two lists may share one (a list of some of
    /// the states is still typed `ReviewState`): the first list of a union defines it.
    pub union: &'static str,
    /// What the list holds, for the generated doc comments.
    pub doc: &'static str,
    /// The values, in core's order.
    pub values: Vec<&'static str>,
}

/// Every list, in the order `PageAiVocabulary` shows them.
pub(crate) fn lists() -> Vec<List> {
    let list = |key, union, doc, values| List { key, union, doc, values };
    vec![
        list(
            "toolNames",
            "ToolName",
            "Every tool of the catalog, by its dotted name, in manifest order.",
            Tool::ALL.iter().map(|t| t.spec().name).collect(),
        ),
        list(
            "mcpToolNames",
            "McpToolName",
            "Every tool of the catalog, by its MCP and function-calling name, in manifest order.",
            Tool::ALL.iter().map(|t| t.spec().mcp_name).collect(),
        ),
        list(
            "schemaIds",
            "SchemaId",
            "Every wire schema id (`mnote.{name}.v1`, and `mnote.live_event.v2`).",
            SCHEMA_IDS.to_vec(),
        ),
        list(
            "liveKinds",
            "LiveEventKind",
            "Every kind of `mnote.live_event.v2` message a document's live channel sends (v1 has all but `profile.changed`).",
            LiveKind::ALL.iter().map(|k| k.as_str()).collect(),
        ),
        list(
            "intents",
            "RouteIntent",
            "What the router understood a prompt to be.",
            Intent::ALL.iter().map(|i| i.as_str()).collect(),
        ),
        list(
            "reasonCodes",
            "RouteReasonCode",
            "Why a prompt goes to Hermes instead of running directly.",
            ReasonCode::ALL.iter().map(|c| c.as_str()).collect(),
        ),
        list(
            "reviewModes",
            "ReviewMode",
            "How much a person must see before an AI write lands, from the least to the most review.",
            ReviewMode::ALL.iter().map(|m| m.as_str()).collect(),
        ),
        list(
            "reviewStates",
            "ReviewState",
            "Where a review session is, in lifecycle order.",
            State::ALL.iter().map(|s| s.as_str()).collect(),
        ),
        list(
            "openReviewStates",
            "ReviewState",
            "The states in which a review session is open: it holds a change that waits for a person's accept or \
             reject (a failed one holds none).",
            State::ALL.iter().filter(|s| s.awaits_person()).map(|s| s.as_str()).collect(),
        ),
        list(
            "reviewVerbs",
            "ReviewVerb",
            "What a person may send a review session: `POST /api/page-ai/review-sessions/{id}/{verb}`.",
            Action::VERBS.iter().map(|a| a.as_str()).collect(),
        ),
        list(
            "roles",
            "Role",
            "A person's role in a workspace, least rights first: a viewer reads and lets an AI propose, an editor \
             also writes and accepts, an owner also changes the workspace's profile.",
            Role::ALL.iter().map(|r| r.as_str()).collect(),
        ),
        list(
            "acts",
            "RoleAct",
            "What a route or a tool asks of a person's role (`PageSession.may`).",
            Act::ALL.iter().map(|a| a.as_str()).collect(),
        ),
        list(
            "auditActions",
            "AuditAction",
            "What an audit entry records, one name per kind of event.",
            AuditAction::ALL.iter().map(|a| a.as_str()).collect(),
        ),
        list(
            "errorCodes",
            "PageAiErrorCode",
            "Every stable error code, in the order they were added. Codes are append-only.",
            ErrorCode::ALL.iter().map(|c| c.as_str()).collect(),
        ),
    ]
}
