//! The tool catalog: one list, in one place, of every tool the page AI may call.
//!
//! Everything that needs to know whether a tool exists, is enabled, reads or writes, derives it from
//! [`Tool`] and its [`ToolSpec`]: the manifest (`mnote.ai_tool_manifest.v1`), its MCP `tools/list` and OpenAI
//! function-calling exports, the executor's guard, and the router. There is no second list anywhere.
//!
//! [`manifest`] filters the catalog for a profile (disabled tools, review mode), the granted capability
//! scopes (a write scope covers the read scope of the same prefix) and the document's permission. Disabled
//! tools stay listed with `enabled:false` and the reason; the exports leave them out, because a model can't
//! use them.
//!
//! The JSON Schemas in `schemas/` are derived from the argument and answer types by `schemars`, in a test
//! (`checked_in_schemas_match_the_types`; `UPDATE_GOLDEN=1` rewrites them), and checked in. At run time they
//! are data: the schema a model sees and the type validation parses into still come from one definition,
//! without shipping a schema generator to every browser.

pub mod args;
pub mod call_result;
mod catalog;
mod export;

use alloc::string::{String, ToString};

use crate::page::Permission;
use crate::policy::{self, Ask, Stage};
use crate::vocab::{Origin, Profile, Risk};
pub use crate::vocab::{SelectionEffect, Tool, ToolRisk, ToolSpec};
pub use crate::wire::{AI_TOOL_MANIFEST_V1, AnnotationsV1, AvailabilityV1, ManifestV1, ToolDescriptorV1};
pub use export::{mcp_tools_list, openai_functions, openai_functions_strict};

/// Why `tool` is unavailable here, or `None` when it may run: the policy's [`Unavailable`] as its human
/// reason (see [`crate::policy`], which decides it).
///
/// [`Unavailable`]: crate::policy::Unavailable
pub fn unavailable_reason(
    tool: Tool,
    profile: &Profile,
    grants: Option<&[String]>,
    permission: Permission,
) -> Option<String> {
    // The manifest lists tools for an AI caller; availability does not depend on the origin.
    // Availability does not depend on the role: a viewer's writes are offered, and held as proposals.
    let ask = Ask { tool, origin: Origin::Hermes, profile, grants, permission, role: policy::Role::Owner };
    policy::decide(&ask, Stage::Run).err().map(|unavailable| unavailable.to_string())
}

/// The JSON Schema of the coded error body ([`crate::wire::ErrorBody`]), a refusal's answer: what an MCP
/// tool's `outputSchema` admits besides the answer.
pub fn refusal_schema() -> serde_json::Value {
    serde_json::from_str(include_str!("schemas/output/error.json")).unwrap_or_default()
}

/// The annotations of `tool` under `profile`.
pub fn annotations(tool: Tool, profile: &Profile) -> AnnotationsV1 {
    let spec = tool.spec();
    // A write needs approval when the review rule holds it even at the lowest risk a plan can have.
    let requires_approval =
        tool.writes() && policy::held(tool, Origin::Hermes, profile.review_mode, Risk::Low).is_some();
    AnnotationsV1 {
        readonly: spec.readonly,
        destructive: spec.destructive,
        idempotent: spec.idempotent,
        requires_approval,
        approval_mode: if spec.readonly { "none".into() } else { profile.review_mode.as_str().into() },
        selection_effect: spec.selection_effect,
        risk: spec.risk,
        runtime_owner: "mnote-web".into(),
        write_owner: "rust-runtime-kernel".into(),
    }
}

/// The manifest for a profile, the granted scopes (`None`: all) and the document's permission.
pub fn manifest(profile: &Profile, grants: Option<&[String]>, permission: Permission) -> ManifestV1 {
    let tools = Tool::ALL
        .into_iter()
        .map(|tool| {
            let spec = tool.spec();
            let reason = unavailable_reason(tool, profile, grants, permission);
            ToolDescriptorV1 {
                name: spec.name.into(),
                mcp_name: spec.mcp_name.into(),
                description: tool.description().into(),
                input_schema: tool.input_schema(),
                output_schema: tool.output_schema(),
                annotations: annotations(tool, profile),
                capability_scope: spec.capability_scope.into(),
                availability: AvailabilityV1 {
                    enabled: reason.is_none(),
                    unsupported_reason: reason.unwrap_or_default(),
                },
            }
        })
        .collect();
    ManifestV1 { schema: AI_TOOL_MANIFEST_V1.into(), review_mode: profile.review_mode, tools }
}

#[cfg(test)]
mod tests;
