//! The manifest in the two forms models consume: MCP `tools/list` and OpenAI function calling.
//! Both list only enabled tools, named by `mcpName` (dots are not legal in function names).

use alloc::vec::Vec;
use serde_json::{Value, json};

use super::ManifestV1;

/// The `tools` array of an MCP `tools/list` answer.
pub fn mcp_tools_list(manifest: &ManifestV1) -> Vec<Value> {
    manifest
        .tools
        .iter()
        .filter(|t| t.availability.enabled)
        .map(|t| {
            let a = &t.annotations;
            json!({
                "name": t.mcp_name,
                "title": t.name,
                "description": t.description,
                "inputSchema": t.input_schema,
                "outputSchema": t.output_schema,
                "annotations": {
                    "title": t.name,
                    "readOnlyHint": a.readonly,
                    "destructiveHint": a.destructive,
                    "idempotentHint": a.idempotent,
                    "openWorldHint": false,
                },
                "_meta": {
                    "mnote/name": t.name,
                    "mnote/capabilityScope": t.capability_scope,
                    "mnote/annotations": a,
                },
            })
        })
        .collect()
}

/// The `tools` array of an OpenAI chat-completions request.
pub fn openai_functions(manifest: &ManifestV1) -> Vec<Value> {
    manifest
        .tools
        .iter()
        .filter(|t| t.availability.enabled)
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": t.mcp_name,
                    "description": t.description,
                    "parameters": t.input_schema,
                },
            })
        })
        .collect()
}
