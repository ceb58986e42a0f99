//! The manifest in the two forms models consume: MCP `tools/list` and OpenAI function calling.
//! Both list only enabled tools, named by `mcpName` (dots are not legal in function names).
//!
//! These are the forms for a caller bound to no document (an MCP client, a model behind any server), so
//! every tool's `documentId` is required in them, whatever the manifest's own schema leaves optional for a
//! call bound to its page. The Worker's `tools/list` and the package's `mcpToolsList()` /
//! `openaiFunctions()` are these very functions. An MCP tool's `outputSchema` admits the answer and the
//! coded refusal (`ok:false`, see [`super::call_result`]), because a refusal is an ordinary result there.

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value, json};

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
                "inputSchema": unbound_input_schema(&t.input_schema),
                "outputSchema": answer_or_refusal(&t.output_schema),
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
                    "parameters": unbound_input_schema(&t.input_schema),
                },
            })
        })
        .collect()
}

/// The `tools` array of an OpenAI request in strict mode (`"strict": true` on each function).
///
/// OpenAI's strict mode accepts a subset of JSON Schema: every object lists all its properties in
/// `required` and sets `additionalProperties: false`; an optional property is instead required and
/// nullable; `oneOf` is written `anyOf`; `default` is not accepted. The executor reads a `null` optional
/// argument as absent, so a strict model's calls mean the same as a plain one's.
pub fn openai_functions_strict(manifest: &ManifestV1) -> Vec<Value> {
    manifest
        .tools
        .iter()
        .filter(|t| t.availability.enabled)
        .map(|t| {
            let mut parameters = unbound_input_schema(&t.input_schema);
            strict_schema(&mut parameters);
            if let Some(root) = parameters.as_object_mut() {
                root.remove("$schema");
            }
            json!({
                "type": "function",
                "function": {
                    "name": t.mcp_name,
                    "description": t.description,
                    "parameters": parameters,
                    "strict": true,
                },
            })
        })
        .collect()
}

/// `schema` with `documentId` required (first in `required`), for a call bound to no document.
fn unbound_input_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    let Some(object) = schema.as_object_mut() else { return schema };
    if object.get("properties").and_then(|p| p.get("documentId")).is_none() {
        return schema;
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties")
        && let Some(Value::Object(document_id)) = properties.get_mut("documentId")
    {
        // "defaults to the one the call is bound to" is not true of an unbound call.
        document_id.insert("description".into(), Value::from("The document (page) the call is about."));
    }
    let required = object.entry("required").or_insert_with(|| json!([]));
    if let Some(list) = required.as_array_mut()
        && !list.iter().any(|v| v == "documentId")
    {
        list.insert(0, json!("documentId"));
    }
    schema
}

/// The MCP `outputSchema` of a tool whose answer is `answer`: that answer or the coded refusal
/// ([`super::refusal_schema`]), with the answer's `$defs` kept at the root so its `$ref`s still resolve.
/// The root stays `type: object`, as MCP requires of an output schema.
fn answer_or_refusal(answer: &Value) -> Value {
    let mut branch = answer.clone();
    let mut defs = Map::new();
    if let Some(object) = branch.as_object_mut() {
        object.remove("$schema");
        if let Some(Value::Object(answer_defs)) = object.remove("$defs") {
            defs = answer_defs;
        }
    }
    let mut refusal = super::refusal_schema();
    if let Some(object) = refusal.as_object_mut() {
        object.remove("$schema");
    }
    let title = answer.get("title").and_then(Value::as_str).unwrap_or("Answer");
    let answer_ref = alloc::format!("#/$defs/{title}");
    defs.insert(title.into(), branch);
    defs.insert(REFUSAL_DEF.into(), refusal);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": alloc::format!("{title}OrRefusal"),
        "description": "The tool's answer, or the coded refusal (`ok:false`) when the call was refused.",
        "type": "object",
        "anyOf": [{"$ref": answer_ref}, {"$ref": alloc::format!("#/$defs/{REFUSAL_DEF}")}],
        "$defs": defs,
    })
}

/// The name of the refusal's schema in an MCP output schema's `$defs`.
const REFUSAL_DEF: &str = "ErrorBody";

/// Rewrites `schema` in place into OpenAI's strict subset (see [`openai_functions_strict`]).
fn strict_schema(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else { return };
    object.remove("default");
    if let Some(one_of) = object.remove("oneOf") {
        object.insert("anyOf".into(), one_of);
    }
    let required: Vec<String> = match object.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(String::from).collect(),
        Some(Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Object(_)) | None => {
            Vec::new()
        }
    };
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        let mut all = Vec::new();
        for (name, property) in properties.iter_mut() {
            if !required.iter().any(|r| r == name) {
                make_nullable(property);
            }
            all.push(Value::String(name.clone()));
        }
        object.insert("required".into(), Value::Array(all));
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
    for (_, child) in object.iter_mut() {
        match child {
            Value::Object(_) => strict_schema(child),
            Value::Array(items) => items.iter_mut().for_each(strict_schema),
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
}

/// Lets `property` also be `null`, the strict form of "may be left out".
fn make_nullable(property: &mut Value) {
    let Some(object) = property.as_object_mut() else { return };
    if object.contains_key("const") {
        wrap_nullable(property);
        return;
    }
    if let Some(Value::Array(values)) = object.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match object.get_mut("type") {
        Some(Value::String(kind)) if kind != "null" => {
            let kind = Value::String(core::mem::take(kind));
            object.insert("type".into(), json!([kind, "null"]));
        }
        Some(Value::Array(kinds)) => {
            if !kinds.iter().any(|k| k == "null") {
                kinds.push(Value::from("null"));
            }
        }
        Some(_) => {}
        None => wrap_nullable(property),
    }
}

/// `{anyOf: [property, {type: null}]}`, keeping the description on the outside.
fn wrap_nullable(property: &mut Value) {
    let description = property.as_object_mut().and_then(|o| o.remove("description"));
    let inner = core::mem::take(property);
    let mut wrapped = json!({ "anyOf": [inner, { "type": "null" }] });
    if let (Some(description), Some(map)) = (description, wrapped.as_object_mut()) {
        map.insert("description".into(), description);
    }
    *property = wrapped;
}
