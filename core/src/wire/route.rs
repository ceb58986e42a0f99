//! `mnote.page_ai_command_route.v1`: what the command router answers.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::vocab::{Intent, ReasonCode, ReviewMode, Risk};

/// Schema id of [`RouteV1`].
pub const PAGE_AI_COMMAND_ROUTE_V1: &str = "mnote.page_ai_command_route.v1";

/// A tool call the router recommends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecommendedCallV1 {
    /// Always `mnote.doc.apply_block_ops`.
    pub tool_name: String,
    /// Ready-to-send arguments, with `dryRun: true`.
    pub args: Value,
}

/// Where a Hermes run should start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolHintV1 {
    /// The enabled read tools, from the manifest's annotations.
    pub read_tools: Vec<String>,
    /// The first call to make.
    pub start_with: Option<RecommendedCallV1>,
    /// The write tool to propose changes with, if any is enabled.
    pub write_tool: Option<String>,
    /// Blocks the prompt seems to be about.
    pub candidate_block_ids: Vec<String>,
    /// The quoted text of the prompt, if any.
    pub match_text: Option<String>,
    /// The review policy writes will meet.
    pub review_mode: ReviewMode,
}

/// `mnote.page_ai_command_route.v1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RouteV1 {
    /// Always [`PAGE_AI_COMMAND_ROUTE_V1`].
    pub schema: String,
    /// What the router understood the prompt to be.
    pub intent: Intent,
    /// How sure the router is of its reading; see the module docs for the levels.
    pub confidence: f64,
    /// The call to preview and apply, for direct routes.
    pub recommended_tool_call: Option<RecommendedCallV1>,
    /// `low`, `medium` or `high`.
    pub risk: Risk,
    /// The prompt goes to Hermes.
    pub requires_hermes_run: bool,
    /// A person must accept the write before it lands.
    pub requires_review: bool,
    /// Why, in words.
    pub reason: String,
    /// Why, as a stable code, for Hermes routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_code: Option<ReasonCode>,
    /// Where a Hermes run should start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_hint: Option<ToolHintV1>,
}
