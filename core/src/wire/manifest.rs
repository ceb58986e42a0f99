//! `mnote.ai_tool_manifest.v1`: the tool catalog filtered for one profile, grant set and document.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::vocab::{ReviewMode, SelectionEffect, ToolRisk};

/// Schema id of [`ManifestV1`].
pub const AI_TOOL_MANIFEST_V1: &str = "mnote.ai_tool_manifest.v1";

/// Approval facts of a tool under a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnnotationsV1 {
    /// Changes nothing.
    pub readonly: bool,
    /// Can remove content.
    pub destructive: bool,
    /// Safe to repeat (writes: with the same idempotencyKey).
    pub idempotent: bool,
    /// A person must accept its writes before they land.
    pub requires_approval: bool,
    /// `none` for reads; the profile's review mode for writes.
    pub approval_mode: String,
    /// What it does to the selection.
    pub selection_effect: SelectionEffect,
    /// `read`, `write` or `high-risk-write`.
    pub risk: ToolRisk,
    /// Always `mnote-web`.
    pub runtime_owner: String,
    /// Always `rust-runtime-kernel`.
    pub write_owner: String,
}

/// Whether the tool can run here, and why not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AvailabilityV1 {
    /// May run.
    pub enabled: bool,
    /// Why not; empty when enabled.
    pub unsupported_reason: String,
}

/// One tool in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolDescriptorV1 {
    /// Dotted name.
    pub name: String,
    /// Name for MCP and function calling.
    pub mcp_name: String,
    /// What it is for.
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: serde_json::Value,
    /// JSON Schema of the answer.
    pub output_schema: serde_json::Value,
    /// Risk and approval facts.
    pub annotations: AnnotationsV1,
    /// The capability scope it needs.
    pub capability_scope: String,
    /// Whether it can run here.
    pub availability: AvailabilityV1,
}

/// `mnote.ai_tool_manifest.v1`: the catalog filtered for one profile, grant set and document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ManifestV1 {
    /// Always [`AI_TOOL_MANIFEST_V1`].
    pub schema: String,
    /// The profile's review mode.
    pub review_mode: ReviewMode,
    /// Every tool, enabled or not.
    pub tools: Vec<ToolDescriptorV1>,
}
