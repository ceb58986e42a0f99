//! The catalog itself: [`Tool`], one variant per tool, and its fixed facts ([`ToolSpec`]): names,
//! description, capability scope, annotations and the checked-in JSON Schemas of its arguments and answer.
//! Every tool name in the workspace comes from here.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
                "Freeze the page into a context: block ids, revision, conflictDetectionKey and the allowedTargetBlockIds a write may touch. Start here. Scopes: full, outline, block, selection, keyword; views: text, page_xml, json; a budget cuts at block boundaries and returns a continuation token. Pass your run's contextId: the read acts for the person the run is for.",
            ),
            Tool::BlockFetch => read(
                "mnote.block.fetch",
                "block_fetch",
                "block.read",
                "Fetch blocks by id, with one context-only neighbour on each side. Use it to re-read the exact text before a replace. Pass your run's contextId.",
            ),
            Tool::DocSearch => read(
                "mnote.doc.search",
                "doc_search",
                "doc.read",
                "Find where a text occurs (case- and width-insensitive): block ids and char offsets. Use it to pick a unique matchText. Pass your run's contextId.",
            ),
            Tool::DocApplyBlockOps => write(
                "mnote.doc.apply_block_ops",
                "doc_apply_block_ops",
                "doc.write",
                true,
                "The precise write path: a batch of block operations (replace, insert_after, insert_before, update, delete, move), validated all-or-nothing. Always call with dryRun:true first and show the diff; pass contextId, baseRevision and a fresh idempotencyKey. A write conflicts (mnote_revision_conflict) only when a block it touches (a target, or the anchor of an insert or move) changed since your read; edits elsewhere on the page do not stop it. A conflict's details.blocks gives each changed block's current text and revisionRef: re-plan from them, no fetch needed.",
            ),
            Tool::DocPlanUpdate => ToolSpec {
                always_dry_run: true,
                destructive: false,
                ..write(
                    "mnote.doc.plan_update",
                    "doc_plan_update",
                    "doc.write",
                    false,
                    "Propose a change for the user to review. It never writes: the proposal is dry-run and becomes a review session the user accepts or rejects. Prefer it for rewrites, polishing and anything spanning several blocks. The user can accept it even after editing other blocks; only a change to a block it touches makes it stale.",
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
                    "Replace the whole page. A coarse, high-risk fallback that always needs review; never the precise path. Use doc_apply_block_ops instead whenever you can name blocks. It needs baseRevision to be the current revision.",
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
