use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::Value;

use super::*;
use crate::policy::scope_granted;
use crate::vocab::ReviewMode;

#[test]
fn every_tool_has_a_closed_schema_derived_from_its_args() {
    for tool in Tool::ALL {
        let schema = tool.input_schema();
        assert_eq!(schema["type"], "object", "{tool:?}");
        assert_eq!(schema["additionalProperties"], false, "{tool:?} must reject unknown fields");
    }
    let apply = Tool::DocApplyBlockOps.input_schema();
    let required: Vec<&str> = apply["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for field in ["documentId", "baseRevision", "operations", "dryRun", "idempotencyKey"] {
        assert!(required.contains(&field), "{field} is required, never defaulted");
    }
}

#[test]
fn names_resolve_both_ways_and_reads_come_from_annotations() {
    for tool in Tool::ALL {
        let spec = tool.spec();
        assert_eq!(Tool::from_name(spec.name), Some(tool));
        assert_eq!(Tool::from_name(spec.mcp_name), Some(tool));
        assert!(!spec.mcp_name.contains('.'));
    }
    let reads: Vec<&str> = Tool::ALL.iter().filter(|t| !t.writes()).map(|t| t.spec().name).collect();
    assert_eq!(reads, ["mnote.doc.fetch", "mnote.block.fetch", "mnote.doc.search"]);
}

#[test]
fn write_scopes_cover_reads_of_the_same_prefix() {
    let grants: Vec<String> = vec!["doc.write".into()];
    assert!(scope_granted(Some(&grants), "doc.read"));
    assert!(scope_granted(Some(&grants), "doc.write"));
    assert!(!scope_granted(Some(&grants), "block.read"));
    assert!(!scope_granted(Some(&["doc.read".to_string()]), "doc.write"));
    let m = manifest(&Profile::default(), Some(&grants), Permission::Edit);
    let enabled: Vec<&str> = m.tools.iter().filter(|t| t.availability.enabled).map(|t| t.name.as_str()).collect();
    assert_eq!(enabled, ["mnote.doc.fetch", "mnote.doc.search", "mnote.doc.apply_block_ops", "mnote.doc.plan_update"]);
}

#[test]
fn read_only_pages_disable_every_write() {
    let m = manifest(&Profile::default(), None, Permission::Read);
    for t in &m.tools {
        assert_eq!(t.availability.enabled, t.annotations.readonly, "{}", t.name);
        if !t.annotations.readonly {
            assert_eq!(t.availability.unsupported_reason, "document is read-only");
        }
    }
}

#[test]
fn approval_follows_the_review_mode() {
    let yolo = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
    assert!(!annotations(Tool::DocApplyBlockOps, &yolo).requires_approval);
    assert!(annotations(Tool::PageSave, &yolo).requires_approval, "page.save always needs approval");
    assert!(annotations(Tool::DocPlanUpdate, &yolo).requires_approval);
    assert!(annotations(Tool::DocApplyBlockOps, &Profile::default()).requires_approval);
    assert_eq!(annotations(Tool::DocFetch, &Profile::default()).approval_mode, "none");
}

#[test]
fn exports_list_enabled_tools_by_mcp_name() {
    let profile = Profile {
        tools: crate::profile::ToolsPolicy { disabled: vec!["mnote.block.fetch".into()] },
        ..Profile::default()
    };
    let m = manifest(&profile, None, Permission::Edit);
    let mcp = mcp_tools_list(&m);
    assert_eq!(mcp.len(), 9);
    assert!(mcp.iter().all(|t| t["name"] != "block_fetch"));
    let fetch = &mcp[0];
    assert_eq!(fetch["name"], "doc_fetch");
    assert_eq!(fetch["annotations"]["readOnlyHint"], true);
    assert_eq!(fetch["annotations"]["openWorldHint"], false);
    assert_eq!(fetch["_meta"]["mnote/annotations"]["writeOwner"], "rust-runtime-kernel");
    let openai = openai_functions(&m);
    assert_eq!(openai[0]["function"]["name"], "doc_fetch");
    assert_eq!(openai[0]["function"]["parameters"]["additionalProperties"], false);
}

/// Integer and float `format`s that schemars emits (`uint8`, `uint32`, `int64`, `double`, …) are not JSON Schema
/// formats: strict validators (ajv's default mode) refuse to compile a schema that names them. This drops them
/// and states the range with `minimum` / `maximum` instead, where a JSON number can hold the bound exactly.
#[derive(Clone)]
struct StandardFormats;

impl schemars::transform::Transform for StandardFormats {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        if let Some(object) = schema.as_object_mut()
            && let Some(format) = object.get("format").and_then(Value::as_str)
        {
            let bounds: Option<(i64, Option<i64>)> = match format {
                "uint8" => Some((0, Some(i64::from(u8::MAX)))),
                "uint16" => Some((0, Some(i64::from(u16::MAX)))),
                "uint32" => Some((0, Some(i64::from(u32::MAX)))),
                "uint" | "uint64" | "uint128" => Some((0, None)),
                "int8" => Some((i64::from(i8::MIN), Some(i64::from(i8::MAX)))),
                "int16" => Some((i64::from(i16::MIN), Some(i64::from(i16::MAX)))),
                "int32" => Some((i64::from(i32::MIN), Some(i64::from(i32::MAX)))),
                _ => None,
            };
            let numeric = matches!(format, "int" | "int64" | "int128" | "float" | "double");
            if bounds.is_some() || numeric {
                object.remove("format");
            }
            if let Some((minimum, maximum)) = bounds {
                // A field's own tighter bound (e.g. `#[schemars(range(min = 1))]`) wins.
                let min = object.get("minimum").and_then(Value::as_i64).map_or(minimum, |m| m.max(minimum));
                object.insert("minimum".into(), Value::from(min));
                if let Some(maximum) = maximum {
                    let max = object.get("maximum").and_then(Value::as_i64).map_or(maximum, |m| m.min(maximum));
                    object.insert("maximum".into(), Value::from(max));
                }
            }
        }
        schemars::transform::transform_subschemas(self, schema);
    }
}

/// The JSON Schema of `T`, draft 2020-12, with only standard keywords (see [`StandardFormats`]).
fn derive<T: schemars::JsonSchema>() -> Value {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with_transform(StandardFormats);
    settings.into_generator().into_root_schema_for::<T>().to_value()
}

/// The schemas `schemars` derives from the argument and answer types, by file name under `schemas/`.
fn derived_schemas() -> Vec<(String, Value)> {
    let input = |tool: Tool| {
        let schema = match tool {
            Tool::DocFetch => derive::<args::DocFetchArgs>(),
            Tool::BlockFetch => derive::<args::BlockFetchArgs>(),
            Tool::DocSearch => derive::<args::DocSearchArgs>(),
            Tool::DocApplyBlockOps => derive::<args::ApplyBlockOpsArgs>(),
            Tool::DocPlanUpdate => derive::<args::PlanUpdateArgs>(),
            Tool::BlockInsert => derive::<args::BlockInsertArgs>(),
            Tool::BlockUpdate => derive::<args::BlockUpdateArgs>(),
            Tool::BlockDelete => derive::<args::BlockDeleteArgs>(),
            Tool::BlockMove => derive::<args::BlockMoveArgs>(),
            Tool::PageSave => derive::<args::PageSaveArgs>(),
        };
        (alloc::format!("input/{}.json", tool.spec().mcp_name), schema)
    };
    let mut all: Vec<(String, Value)> = Tool::ALL.into_iter().map(input).collect();
    // v1 stays for readers of v1 contexts (`buildContext`); the fetch tools answer v2.
    all.push(("output/page_ai_context.json".into(), derive::<crate::wire::PageAiContextV1>()));
    all.push(("output/page_ai_context.v2.json".into(), derive::<crate::wire::PageAiContextV2>()));
    all.push(("output/doc_search.json".into(), derive::<crate::wire::SearchResultV1>()));
    all.push(("output/tool_result.json".into(), derive::<crate::wire::ToolResultV1>()));
    all.push(("output/error.json".into(), derive::<crate::wire::ErrorBody>()));
    // Not a tool's: the live channel's messages, for clients outside the browser package.
    all.push(("wire/live_event.v1.json".into(), derive::<crate::wire::LiveEventSchema>()));
    all.push(("wire/live_event.v2.json".into(), derive::<crate::wire::LiveEventSchemaV2>()));
    all.push(("wire/suggestion.v1.json".into(), derive::<crate::wire::SuggestionV1>()));
    all.push(("wire/run_undo.v1.json".into(), derive::<crate::wire::RunUndoV1>()));
    all
}

#[test]
fn checked_in_schemas_match_the_types() {
    extern crate std;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/manifest/schemas");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, schema) in derived_schemas() {
        let path = dir.join(&name);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, serde_json::to_string_pretty(&schema).unwrap() + "\n").unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let checked_in: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(checked_in, schema, "{name} is stale; run with UPDATE_GOLDEN=1 and review the diff");
    }
    // And every tool reads its own files.
    for tool in Tool::ALL {
        let input = alloc::format!("input/{}.json", tool.spec().mcp_name);
        let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(input)).unwrap()).unwrap();
        assert_eq!(tool.input_schema(), on_disk, "{tool:?}");
        assert_eq!(tool.output_schema()["type"], "object", "{tool:?}");
    }
    assert_eq!(refusal_schema()["title"], "ErrorBody", "the refusal's schema parses");
}
