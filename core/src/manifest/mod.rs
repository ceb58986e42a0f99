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
mod export;

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::executor::Origin;
use crate::page::Permission;
use crate::policy::{self, Ask, Stage};
use crate::profile::{Profile, ReviewMode};
pub use export::{mcp_tools_list, openai_functions, openai_functions_strict};

/// Schema id of [`ManifestV1`].
pub const AI_TOOL_MANIFEST_V1: &str = "mnote.ai_tool_manifest.v1";

/// What running a tool does to the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub enum ToolRisk {
    /// Reads only.
    #[serde(rename = "read")]
    Read,
    /// Writes precisely: blocks named by id.
    #[serde(rename = "write")]
    Write,
    /// Writes coarsely: the whole page.
    #[serde(rename = "high-risk-write")]
    HighRiskWrite,
}

/// What a tool does to the user's selection in the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SelectionEffect {
    /// Needs a selection.
    Require,
    /// Leaves it alone.
    Preserve,
    /// May invalidate it.
    Destroy,
    /// Has nothing to do with it.
    None,
}

/// Every tool. The order is the manifest's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tool {
    /// `mnote.doc.fetch`
    DocFetch,
    /// `mnote.block.fetch`
    BlockFetch,
    /// `mnote.doc.search`
    DocSearch,
    /// `mnote.doc.apply_block_ops`
    DocApplyBlockOps,
    /// `mnote.doc.plan_update`
    DocPlanUpdate,
    /// `mnote.block.insert`
    BlockInsert,
    /// `mnote.block.update`
    BlockUpdate,
    /// `mnote.block.delete`
    BlockDelete,
    /// `mnote.block.move`
    BlockMove,
    /// `mnote.page.save`
    PageSave,
}

/// The fixed facts about a tool.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// Dotted name, e.g. `mnote.doc.fetch`.
    pub name: &'static str,
    /// Name for MCP and function calling (no dots), e.g. `doc_fetch`.
    pub mcp_name: &'static str,
    /// What the tool is for and when to use it.
    pub description: &'static str,
    /// The capability scope it needs.
    pub capability_scope: &'static str,
    /// Whether it changes nothing.
    pub readonly: bool,
    /// Whether it can remove content.
    pub destructive: bool,
    /// Whether calling it twice equals calling it once (writes are, through their idempotencyKey).
    pub idempotent: bool,
    /// What it does to the selection.
    pub selection_effect: SelectionEffect,
    /// Read, write or high-risk write.
    pub risk: ToolRisk,
    /// True for tools that only ever preview (`plan_update`).
    pub always_dry_run: bool,
}

impl Tool {
    /// Every tool, in manifest order.
    pub const ALL: [Tool; 10] = [
        Tool::DocFetch,
        Tool::BlockFetch,
        Tool::DocSearch,
        Tool::DocApplyBlockOps,
        Tool::DocPlanUpdate,
        Tool::BlockInsert,
        Tool::BlockUpdate,
        Tool::BlockDelete,
        Tool::BlockMove,
        Tool::PageSave,
    ];

    /// The tool's fixed facts.
    pub const fn spec(self) -> ToolSpec {
        const fn read(
            name: &'static str,
            mcp_name: &'static str,
            scope: &'static str,
            description: &'static str,
        ) -> ToolSpec {
            ToolSpec {
                name,
                mcp_name,
                description,
                capability_scope: scope,
                readonly: true,
                destructive: false,
                idempotent: true,
                selection_effect: SelectionEffect::Preserve,
                risk: ToolRisk::Read,
                always_dry_run: false,
            }
        }
        const fn write(
            name: &'static str,
            mcp_name: &'static str,
            scope: &'static str,
            destructive: bool,
            description: &'static str,
        ) -> ToolSpec {
            ToolSpec {
                name,
                mcp_name,
                description,
                capability_scope: scope,
                readonly: false,
                destructive,
                idempotent: true,
                selection_effect: SelectionEffect::Destroy,
                risk: ToolRisk::Write,
                always_dry_run: false,
            }
        }
        match self {
            Tool::DocFetch => read(
                "mnote.doc.fetch",
                "doc_fetch",
                "doc.read",
                "Freeze the page into a context: block ids, revision, conflictDetectionKey and the allowedTargetBlockIds a write may touch. Start here. Scopes: full, outline, block, selection, keyword; views: text, page_xml, json; a budget cuts at block boundaries and returns a continuation token.",
            ),
            Tool::BlockFetch => read(
                "mnote.block.fetch",
                "block_fetch",
                "block.read",
                "Fetch blocks by id, with one context-only neighbour on each side. Use it to re-read the exact text before a replace.",
            ),
            Tool::DocSearch => read(
                "mnote.doc.search",
                "doc_search",
                "doc.read",
                "Find where a text occurs (case- and width-insensitive): block ids and char offsets. Use it to pick a unique matchText.",
            ),
            Tool::DocApplyBlockOps => write(
                "mnote.doc.apply_block_ops",
                "doc_apply_block_ops",
                "doc.write",
                true,
                "The precise write path: a batch of block operations (replace, insert_after, insert_before, update, delete, move), validated all-or-nothing. Always call with dryRun:true first and show the diff; pass contextId, baseRevision and a fresh idempotencyKey.",
            ),
            Tool::DocPlanUpdate => ToolSpec {
                always_dry_run: true,
                destructive: false,
                ..write(
                    "mnote.doc.plan_update",
                    "doc_plan_update",
                    "doc.write",
                    false,
                    "Propose a change for the user to review. It never writes: the proposal is dry-run and becomes a review session the user accepts or rejects. Prefer it for rewrites, polishing and anything spanning several blocks.",
                )
            },
            Tool::BlockInsert => ToolSpec {
                destructive: false,
                ..write(
                    "mnote.block.insert",
                    "block_insert",
                    "block.write",
                    false,
                    "Insert one block after or before an existing block.",
                )
            },
            Tool::BlockUpdate => write(
                "mnote.block.update",
                "block_update",
                "block.write",
                true,
                "Change one block's text, type or attrs (e.g. make a paragraph a heading).",
            ),
            Tool::BlockDelete => write("mnote.block.delete", "block_delete", "block.write", true, "Delete one block."),
            Tool::BlockMove => ToolSpec {
                destructive: false,
                ..write(
                    "mnote.block.move",
                    "block_move",
                    "block.write",
                    false,
                    "Move one block after another block, or to the top with afterBlockId null.",
                )
            },
            Tool::PageSave => ToolSpec {
                risk: ToolRisk::HighRiskWrite,
                ..write(
                    "mnote.page.save",
                    "page_save",
                    "page.write",
                    true,
                    "Replace the whole page. A coarse, high-risk fallback that always needs review; never the precise path. Use doc_apply_block_ops instead whenever you can name blocks.",
                )
            },
        }
    }

    /// Looks a tool up by its dotted name or its MCP name.
    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| {
            let spec = t.spec();
            spec.name == name || spec.mcp_name == name
        })
    }

    /// Whether the tool writes (derived from its annotations, never from a list).
    pub fn writes(self) -> bool {
        !self.spec().readonly
    }

    /// The JSON Schema of the tool's arguments, derived from the type validation parses into.
    pub fn input_schema(self) -> Value {
        parse_schema(self.input_schema_json())
    }

    /// The JSON Schema of the tool's answer.
    pub fn output_schema(self) -> Value {
        parse_schema(self.output_schema_json())
    }

    /// The checked-in text of [`Tool::input_schema`].
    pub fn input_schema_json(self) -> &'static str {
        match self {
            Tool::DocFetch => include_str!("schemas/input/doc_fetch.json"),
            Tool::BlockFetch => include_str!("schemas/input/block_fetch.json"),
            Tool::DocSearch => include_str!("schemas/input/doc_search.json"),
            Tool::DocApplyBlockOps => include_str!("schemas/input/doc_apply_block_ops.json"),
            Tool::DocPlanUpdate => include_str!("schemas/input/doc_plan_update.json"),
            Tool::BlockInsert => include_str!("schemas/input/block_insert.json"),
            Tool::BlockUpdate => include_str!("schemas/input/block_update.json"),
            Tool::BlockDelete => include_str!("schemas/input/block_delete.json"),
            Tool::BlockMove => include_str!("schemas/input/block_move.json"),
            Tool::PageSave => include_str!("schemas/input/page_save.json"),
        }
    }

    /// The checked-in text of [`Tool::output_schema`].
    pub fn output_schema_json(self) -> &'static str {
        match self {
            Tool::DocFetch | Tool::BlockFetch => include_str!("schemas/output/page_ai_context.json"),
            Tool::DocSearch => include_str!("schemas/output/doc_search.json"),
            Tool::DocApplyBlockOps
            | Tool::DocPlanUpdate
            | Tool::BlockInsert
            | Tool::BlockUpdate
            | Tool::BlockDelete
            | Tool::BlockMove
            | Tool::PageSave => include_str!("schemas/output/tool_result.json"),
        }
    }
}

// The files are generated and a test parses every one, so `Null` never shows.
fn parse_schema(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or_default()
}

/// Whether `granted` covers `required`. A write scope covers the read scope of the same prefix.
pub fn scope_granted(granted: Option<&[String]>, required: &str) -> bool {
    let Some(granted) = granted else { return true };
    granted.iter().any(|g| {
        g == required || required.strip_suffix(".read").is_some_and(|prefix| g.strip_suffix(".write") == Some(prefix))
    })
}

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
    let ask = Ask { tool, origin: Origin::Hermes, profile, grants, permission };
    policy::decide(&ask, Stage::Run).err().map(|unavailable| unavailable.to_string())
}

/// Approval facts of a tool under a profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AvailabilityV1 {
    /// May run.
    pub enabled: bool,
    /// Why not; empty when enabled.
    pub unsupported_reason: String,
}

/// One tool in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// The annotations of `tool` under `profile`.
pub fn annotations(tool: Tool, profile: &Profile) -> AnnotationsV1 {
    let spec = tool.spec();
    let requires_approval = match (spec.readonly, spec.risk) {
        (true, _) => false,
        (false, ToolRisk::HighRiskWrite) => true,
        (false, _) => spec.always_dry_run || profile.review_mode != ReviewMode::Yolo,
    };
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
                description: spec.description.into(),
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
