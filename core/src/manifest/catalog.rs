//! The catalog itself: what a model reads about each [`Tool`], its description and the checked-in JSON
//! Schemas of its arguments and answer. The tools and their fixed facts ([`ToolSpec`](crate::vocab::ToolSpec): names, capability
//! scope, annotations) are core's vocabulary ([`crate::vocab`]); every tool name in the workspace comes
//! from there.

use serde_json::Value;

use crate::vocab::Tool;

impl Tool {
    /// What the tool is for and when to use it: the description a model reads.
    pub const fn description(self) -> &'static str {
        match self {
            Tool::DocFetch => {
                "Freeze the page into a context: block ids, revision, conflictDetectionKey and the allowedTargetBlockIds a write may touch. Start here. Scopes: full, outline, block, selection, keyword; views: text, page_xml, json; a budget cuts at block boundaries and returns a continuation token. Pass your run's contextId: the read acts for the person the run is for."
            }
            Tool::BlockFetch => {
                "Fetch blocks by id, with one context-only neighbour on each side. Use it to re-read the exact text before a replace. Pass your run's contextId."
            }
            Tool::DocSearch => {
                "Find where a text occurs (case- and width-insensitive): block ids and char offsets. Use it to pick a unique matchText. Pass your run's contextId."
            }
            Tool::DocApplyBlockOps => {
                "The precise write path: a batch of block operations (replace, insert_after, insert_before, update, delete, move), validated all-or-nothing. Always call with dryRun:true first and show the diff; pass contextId, baseRevision and a fresh idempotencyKey. A write conflicts (mnote_revision_conflict) only when a block it touches (a target, or the anchor of an insert or move) changed since your read; edits elsewhere on the page do not stop it. A conflict's details.blocks gives each changed block's current text and revisionRef: re-plan from them, no fetch needed."
            }
            Tool::DocPlanUpdate => {
                "Propose a change for the user to review. It never writes: the proposal is dry-run and becomes a review session the user accepts or rejects. Prefer it for rewrites, polishing and anything spanning several blocks. The user can accept it even after editing other blocks; only a change to a block it touches makes it stale."
            }
            Tool::BlockInsert => "Insert one block after or before an existing block.",
            Tool::BlockUpdate => "Change one block's text, type or attrs (e.g. make a paragraph a heading).",
            Tool::BlockDelete => "Delete one block.",
            Tool::BlockMove => "Move one block after another block, or to the top with afterBlockId null.",
            Tool::PageSave => {
                "Replace the whole page. A coarse, high-risk fallback that always needs review; never the precise path. Use doc_apply_block_ops instead whenever you can name blocks. It needs baseRevision to be the current revision."
            }
        }
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
            Tool::DocFetch | Tool::BlockFetch => include_str!("schemas/output/page_ai_context.v2.json"),
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
