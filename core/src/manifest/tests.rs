use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::*;

#[test]
fn every_tool_has_a_closed_schema_derived_from_its_args() {
    for tool in Tool::ALL {
        let schema = tool.input_schema().to_value();
        assert_eq!(schema["type"], "object", "{tool:?}");
        assert_eq!(schema["additionalProperties"], false, "{tool:?} must reject unknown fields");
    }
    let apply = Tool::DocApplyBlockOps.input_schema().to_value();
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
