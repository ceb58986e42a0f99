//! The tools and what a write risks: [`Tool`], one variant per tool, with its fixed facts ([`ToolSpec`]:
//! names, capability scope, annotations), [`ToolRisk`], [`SelectionEffect`] and a plan's [`Risk`].
//! Every tool name in the workspace comes from here; what a model reads about a tool (its description and
//! the JSON Schemas of its arguments and answer) is the catalog's (`crate::manifest`).

use crate::json::Read;
use serde::{Deserialize, Serialize};

/// What running a tool does to the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
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

/// How risky a write is (SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    /// One unique change inside one block.
    Low,
    /// Several blocks, any delete, or `occurrence: all`.
    Medium,
    /// A whole-page save, or more than three deletes.
    High,
}

/// What a tool does to the user's selection in the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
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

/// The fixed facts about a tool: what the policy, the router and the exports read. (Its description is
/// the catalog's: `Tool::description`.)
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// Dotted name, e.g. `mnote.doc.fetch`.
    pub name: &'static str,
    /// Name for MCP and function calling (no dots), e.g. `doc_fetch`.
    pub mcp_name: &'static str,
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
        const fn read(name: &'static str, mcp_name: &'static str, scope: &'static str) -> ToolSpec {
            ToolSpec {
                name,
                mcp_name,
                capability_scope: scope,
                readonly: true,
                destructive: false,
                idempotent: true,
                selection_effect: SelectionEffect::Preserve,
                risk: ToolRisk::Read,
                always_dry_run: false,
            }
        }
        const fn write(name: &'static str, mcp_name: &'static str, scope: &'static str, destructive: bool) -> ToolSpec {
            ToolSpec {
                name,
                mcp_name,
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
            Tool::DocFetch => read("mnote.doc.fetch", "doc_fetch", "doc.read"),
            Tool::BlockFetch => read("mnote.block.fetch", "block_fetch", "block.read"),
            Tool::DocSearch => read("mnote.doc.search", "doc_search", "doc.read"),
            Tool::DocApplyBlockOps => write("mnote.doc.apply_block_ops", "doc_apply_block_ops", "doc.write", true),
            Tool::DocPlanUpdate => ToolSpec {
                always_dry_run: true,
                destructive: false,
                ..write("mnote.doc.plan_update", "doc_plan_update", "doc.write", false)
            },
            Tool::BlockInsert => {
                ToolSpec { destructive: false, ..write("mnote.block.insert", "block_insert", "block.write", false) }
            }
            Tool::BlockUpdate => write("mnote.block.update", "block_update", "block.write", true),
            Tool::BlockDelete => write("mnote.block.delete", "block_delete", "block.write", true),
            Tool::BlockMove => {
                ToolSpec { destructive: false, ..write("mnote.block.move", "block_move", "block.write", false) }
            }
            Tool::PageSave => {
                ToolSpec { risk: ToolRisk::HighRiskWrite, ..write("mnote.page.save", "page_save", "page.write", true) }
            }
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
}
