//! `mnote.page_ai_review_session.v1` and `mnote.page_ai_review_answer.v1`: a review session and the answer
//! of an accept or a revert.
//!
//! The first fields of a session are seed §5.5's minimal contract. After them come what accept and revert
//! need to be safe on a later request: the stale report, the applied write with its block stamps, the
//! revert, the answers kept for idempotent replays, the toolCallIds already used, and a short transition
//! history.

use crate::json::Read;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{ErrorBody, ToolResultV1};
use crate::ops::Operation;
use crate::vocab::{Action, Origin, ReviewMode, State};

/// Schema id of [`ReviewSessionV1`].
pub const PAGE_AI_REVIEW_SESSION_V1: &str = "mnote.page_ai_review_session.v1";

/// Schema id of [`ReviewAnswerV1`].
pub const PAGE_AI_REVIEW_ANSWER_V1: &str = "mnote.page_ai_review_answer.v1";

/// Who proposed the write and who owns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceV1 {
    /// Always `mnote-web`.
    pub runtime_owner: String,
    /// Always `rust-runtime-kernel`.
    pub write_owner: String,
    /// The tool that proposed the write, e.g. `mnote.doc.plan_update`.
    pub tool_name: String,
    /// Who called it; new previews of this session are made as the same origin.
    pub origin: Origin,
}

/// The page the proposal was previewed against. An accept applies only while the blocks it touches still
/// match it; the rest of the page may have moved on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BaseV1 {
    /// The page revision.
    pub revision: u64,
    /// `body:{revision}:{hash}` of the page then.
    pub conflict_detection_key: String,
    /// The blocks the proposal may target (the frozen context's, narrowed by the call); `null` when the call
    /// was not restricted.
    // Shared, not owned: under a whole-page context it is every block of the page, and a session is cloned
    // wherever it is kept (the store, the live channel's message), which then costs a count, not 10,000
    // strings. The JSON is a plain array (and its schema the one of `Option<Vec<String>>`).
    #[serde(with = "shared_ids")]
    #[read(with = "shared_ids::read")]
    #[cfg_attr(test, schemars(with = "Option<Vec<String>>"))]
    pub allowed_target_block_ids: Option<Arc<[String]>>,
}

/// [`BaseV1::allowed_target_block_ids`] as JSON: an array of strings, or `null`.
mod shared_ids {
    use alloc::string::String;
    use alloc::sync::Arc;
    use alloc::vec::Vec;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::json::Read;
    use crate::json::read::{At, Error};

    pub fn serialize<S: Serializer>(ids: &Option<Arc<[String]>>, serializer: S) -> Result<S::Ok, S::Error> {
        ids.as_deref().serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Arc<[String]>>, D::Error> {
        Ok(Option::<Vec<String>>::deserialize(deserializer)?.map(Arc::from))
    }

    /// [`deserialize`] for core's reader.
    pub fn read(at: At<'_>) -> Result<Option<Arc<[String]>>, Error> {
        Ok(<Option<Vec<String>> as Read>::read(at)?.map(Arc::from))
    }
}

/// What is proposed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProposalV1 {
    /// Always `block_ops`.
    pub format: String,
    /// The batch, as the executor validated it (minted block ids filled in).
    pub operations: Vec<Operation>,
    /// Always `null`: whole-page rewrites are also expressed as block operations.
    pub full_content: Option<String>,
}

/// What an accept needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AcceptActionV1 {
    /// Whether the state allows an accept now.
    pub allowed: bool,
    /// Always `true`: the blocks the accept touches must still be as they were at the base revision.
    pub requires_fresh_revision: bool,
    /// Always `true`: a repeated accept with the key replays the answer.
    pub requires_idempotency_key: bool,
}

/// What a retry needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RetryActionV1 {
    /// Whether the state allows a retry now.
    pub allowed: bool,
    /// Always `true`: a retry never reuses a toolCallId.
    pub requires_new_tool_call_id: bool,
}

/// The user actions the session's state allows, for the UI's buttons.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActionsV1 {
    /// Accept.
    pub accept: AcceptActionV1,
    /// Whether a reject is allowed.
    pub reject: bool,
    /// Retry.
    pub retry: RetryActionV1,
    /// Whether an abort is allowed.
    pub abort: bool,
    /// Whether a revert (undo) is allowed.
    pub revert: bool,
}

/// Who made the session and when it last changed; stamped by the caller's clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionAuditV1 {
    /// When the session was made, RFC 3339.
    pub created_at: String,
    /// The actor who proposed it.
    pub created_by: String,
    /// When it last changed.
    pub updated_at: String,
}

/// What an accept found when a block it touches had changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StaleV1 {
    /// The page revision at the accept.
    pub current_revision: u64,
    /// The page's `conflictDetectionKey` at the accept.
    pub current_conflict_detection_key: String,
    /// A dry-run of the same proposal against the current page, when it still applies.
    pub preview: Option<ToolResultV1>,
    /// Why it no longer applies, when it does not.
    pub error: Option<ErrorBody>,
}

/// The content of one touched block right after the write: what a revert compares against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockStampV1 {
    /// The block.
    pub block_id: String,
    /// Its `revisionRef` after the write; `null` when the write deleted it.
    pub revision_ref: Option<String>,
    /// Its 8-hex content hash after the write; `null` when the write deleted it.
    pub content_hash: Option<String>,
}

/// The write an accept (or a `yolo` proposal) made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppliedV1 {
    /// The key the write was made under.
    pub idempotency_key: String,
    /// The blocks a partial accept chose; `null` when the whole proposal was applied.
    pub block_ids: Option<Vec<String>>,
    /// The executor's answer; its `inverse` holds the operations that undo it.
    pub result: ToolResultV1,
    /// Every block the write touched, as it was right after.
    pub touched: Vec<BlockStampV1>,
}

/// The write that undid an applied session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevertedV1 {
    /// The key the undo was made under.
    pub idempotency_key: String,
    /// The executor's answer.
    pub result: ToolResultV1,
}

/// An answer kept for replays: the same key and request get these exact bytes again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerRecordV1 {
    /// `accept` or `revert`.
    pub action: Action,
    /// The request's key.
    pub idempotency_key: String,
    /// Hash of the action and its canonical request.
    pub fingerprint: String,
    /// The answer's JSON, byte for byte.
    pub answer: String,
}

/// One step of the session's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TransitionV1 {
    /// The state before.
    pub from: State,
    /// What moved it.
    pub action: Action,
    /// The state after.
    pub to: State,
    /// When, by the caller's clock.
    pub at: String,
}

/// `mnote.page_ai_review_session.v1`: a write held (or, in `yolo` mode, recorded) for review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReviewSessionV1 {
    /// Always [`PAGE_AI_REVIEW_SESSION_V1`].
    pub schema: String,
    /// Minted by the caller.
    pub session_id: String,
    /// The page's workspace.
    pub workspace_id: String,
    /// The page's document.
    pub document_id: String,
    /// The Hermes run, or the id the caller gave a direct shortcut.
    pub run_id: String,
    /// The tool call whose preview the session holds now (a retry replaces it).
    pub tool_call_id: String,
    /// Correlates logs, events and error bodies.
    pub trace_id: String,
    /// Where the session is.
    pub state: State,
    /// The profile's review mode when the session was made.
    pub mode: ReviewMode,
    /// Who proposed.
    pub source: SourceV1,
    /// The page the preview was made against.
    pub base: BaseV1,
    /// What is proposed.
    pub proposal: ProposalV1,
    /// The dry-run of the proposal against `base`; `null` before the first preview.
    pub preview: Option<ToolResultV1>,
    /// The user actions allowed now.
    pub actions: ActionsV1,
    /// Created and updated.
    pub audit: SessionAuditV1,
    /// Set when an accept found the page changed.
    pub stale: Option<StaleV1>,
    /// Set when the last preview or write failed.
    pub error: Option<ErrorBody>,
    /// Set once the proposal was written.
    pub applied: Option<AppliedV1>,
    /// Set once the write was undone.
    pub reverted: Option<RevertedV1>,
    /// Answers of accepts and reverts, for replays.
    pub answers: Vec<AnswerRecordV1>,
    /// toolCallIds this session used before the current one; a retry may reuse none of them.
    pub previous_tool_call_ids: Vec<String>,
    /// The latest transitions, oldest first, at most [`crate::review::MAX_TRANSITIONS`].
    pub transitions: Vec<TransitionV1>,
}

/// The answer of an accept or a revert. It is stored in the session so a repeat is byte-identical.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReviewAnswerV1 {
    /// Always [`PAGE_AI_REVIEW_ANSWER_V1`].
    pub schema: String,
    /// Always `true`; failures use the error body.
    pub ok: bool,
    /// `accept` or `revert`.
    pub action: Action,
    /// The session.
    pub session_id: String,
    /// The session's state after the action: `applied`, `stale` or `reverted`.
    pub state: State,
    /// The request's key.
    pub idempotency_key: String,
    /// The write, when one was made.
    pub result: Option<ToolResultV1>,
    /// Why nothing was written, with a fresh preview, when a block the accept touches had changed.
    pub stale: Option<StaleV1>,
}
