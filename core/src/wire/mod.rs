//! Versioned wire DTOs: the JSON shapes other programs rely on.
//!
//! Each shape carries a `schema` id such as `mnote.page_ai_context.v1`. A shape never changes in place: a
//! breaking change adds a `…v2` type beside the old one. Golden fixtures under `tests/fixtures/wire/v1/`
//! pin every shape, and the Rust, WASM and Worker tests all read them.
//!
//! Every `*V1` shape and its schema id live here, one file per schema; the modules that fill them in
//! (`context`, `manifest`, `route`, `review`, `events`, `audit`) re-export them, and add their behaviour.
//! The shapes name core's vocabulary ([`crate::vocab`]: tools, origins, risks, states, intents, review
//! modes), the page's words ([`crate::page`]) and the operations ([`crate::ops`]), and nothing else (besides
//! the error and JSON plumbing beneath them), so this module imports no code that builds them, and the
//! modules that fill them in never import each other through it.
//!
//! | schema id | shape |
//! |---|---|
//! | `mnote.page_ai_context.v1` | [`PageAiContextV1`] |
//! | `mnote.tool_result.v1` | [`ToolResultV1`] |
//! | `mnote.doc_search.v1` | [`SearchResultV1`] |
//! | `mnote.ai_tool_manifest.v1` | [`ManifestV1`] |
//! | `mnote.page_ai_command_route.v1` | [`RouteV1`] |
//! | `mnote.page_ai_review_session.v1` | [`ReviewSessionV1`] |
//! | `mnote.page_ai_review_answer.v1` | [`ReviewAnswerV1`] |
//! | `mnote.tool_event.v1` | [`ToolEventV1`] |
//! | `mnote.live_event.v1` | [`LiveEventV1`] |
//! | `mnote.hermes_tool.v1` | the Worker's Hermes client tool entry ([`HermesToolV1`]) |
//! | `mnote.suggestion.v1` | [`SuggestionV1`] |
//! | `mnote.run_undo.v1` | [`RunUndoV1`] |
//! | `mnote.live_event.v2` | [`LiveEventV1`] with `schema` v2 and one more kind, `profile.changed` ([`ProfileChangeV2`]) |
//! | `mnote.page_ai_context.v2` | [`PageAiContextV2`]: v1 plus the page's pending suggestions ([`ContextSuggestionV2`]), marked in every view; what `mnote.doc.fetch` and `mnote.block.fetch` answer |
//! | (audit log entries) | [`AuditEntryV1`] |
//! | (every error) | [`ErrorBody`] |
//!
//! Decoding lives in [`crate::json`]; its functions are re-exported here for the adapters that call them
//! by this path.

mod audit;
mod context;
mod context_v2;
mod doc_search;
mod error;
mod hermes_tool;
mod live_event;
mod live_event_v2;
mod manifest;
mod review;
mod route;
mod run_undo;
mod suggestion;
mod tool_event;
mod tool_result;
mod warning;

use alloc::string::ToString;

use crate::error::Error;

pub use crate::json::{from_json, from_json_serde, from_value, from_value_ref, from_value_serde, serde_error};
pub use audit::AuditEntryV1;
pub use context::{ContextBlockV1, ContextHeldV1, HeldBlockV1, PAGE_AI_CONTEXT_V1, PageAiContextV1};
pub use context_v2::{ContextSuggestionV2, PAGE_AI_CONTEXT_V2, PageAiContextV2};
pub use doc_search::{DOC_SEARCH_V1, SearchHitV1, SearchResultV1};
pub use error::ErrorBody;
pub use hermes_tool::{HERMES_TOOL_V1, HermesToolV1, hermes_tools};
#[cfg(test)]
pub(crate) use live_event::LiveEventSchema;
pub use live_event::{
    FollowStep, HelloV1, LIVE_EVENT_V1, LiveBlockV1, LiveBody, LiveEventV1, LiveFollowV1, LiveKind, LiveLimitsV1,
    PageChangeV1, RefetchV1,
};
#[cfg(test)]
pub(crate) use live_event_v2::LiveEventSchemaV2;
pub use live_event_v2::{LIVE_EVENT_V2, LiveVersion, ProfileChangeV2, upgrade};
pub use manifest::{AI_TOOL_MANIFEST_V1, AnnotationsV1, AvailabilityV1, ManifestV1, ToolDescriptorV1};
pub use review::{
    AcceptActionV1, ActionsV1, AnswerRecordV1, AppliedV1, BaseV1, BlockStampV1, PAGE_AI_REVIEW_ANSWER_V1,
    PAGE_AI_REVIEW_SESSION_V1, ProposalV1, RetryActionV1, RevertedV1, ReviewAnswerV1, ReviewSessionV1, SessionAuditV1,
    SourceV1, StaleV1, TransitionV1,
};
pub use route::{PAGE_AI_COMMAND_ROUTE_V1, RecommendedCallV1, RouteV1, ToolHintV1};
pub use run_undo::{RUN_UNDO_V1, RunUndoOutcome, RunUndoV1};
pub use suggestion::{AuthorKind, AuthorV1, SUGGESTION_V1, SuggestionDiffV1, SuggestionState, SuggestionV1};
pub use tool_event::{EventKind, EventSummaryV1, TOOL_EVENT_V1, ToolEventV1};
pub use tool_result::{AuditV1, TOOL_RESULT_V1, ToolResultFollowV1, ToolResultV1};
pub use warning::WarningV1;

/// Every schema id above, in the table's order: what the adapters generate their lists and types from.
pub const SCHEMA_IDS: [&str; 14] = [
    PAGE_AI_CONTEXT_V1,
    TOOL_RESULT_V1,
    DOC_SEARCH_V1,
    AI_TOOL_MANIFEST_V1,
    PAGE_AI_COMMAND_ROUTE_V1,
    PAGE_AI_REVIEW_SESSION_V1,
    PAGE_AI_REVIEW_ANSWER_V1,
    TOOL_EVENT_V1,
    LIVE_EVENT_V1,
    HERMES_TOOL_V1,
    SUGGESTION_V1,
    RUN_UNDO_V1,
    LIVE_EVENT_V2,
    PAGE_AI_CONTEXT_V2,
];

/// Rejects a payload whose `schema` is not `expected`.
pub fn check_schema(found: &str, expected: &str) -> Result<(), Error> {
    if found == expected {
        return Ok(());
    }
    Err(Error::UnsupportedSchema { found: found.to_string(), expected: expected.to_string() })
}

#[cfg(test)]
mod tests {
    use super::SCHEMA_IDS;

    #[test]
    fn schema_ids_are_distinct_and_versioned() {
        for (i, id) in SCHEMA_IDS.iter().enumerate() {
            assert!(id.starts_with("mnote.") && (id.ends_with(".v1") || id.ends_with(".v2")), "{id}");
            assert!(!SCHEMA_IDS[..i].contains(id), "{id} is listed twice");
        }
    }
}
