//! OpenAI's strict function calling: the exported schemas follow its rules, and a call made the strict
//! way (every optional argument sent, as `null`) means exactly what the same call without them means.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Env, NoContexts, Origin, preview};
use pageai_core::manifest::{manifest, openai_functions, openai_functions_strict};
use pageai_core::page::{Block, Page, Permission};
use pageai_core::profile::Profile;
use serde_json::{Value, json};

/// Keywords OpenAI's strict mode does not accept.
const UNSUPPORTED: &[&str] = &[
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "default",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "unevaluatedItems",
    "contains",
    "minContains",
    "maxContains",
    "uniqueItems",
    "minLength",
    "maxLength",
];

/// Checks one schema node and everything below it against the strict rules; returns the violations.
fn violations(schema: &Value, at: &str, out: &mut Vec<String>) {
    match schema {
        Value::Object(object) => {
            for keyword in UNSUPPORTED {
                if object.contains_key(*keyword) {
                    out.push(format!("{at}: `{keyword}` is not supported"));
                }
            }
            if let Some(format) = object.get("format").and_then(Value::as_str) {
                let allowed = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
                if !allowed.contains(&format) {
                    out.push(format!("{at}: format {format:?} is not supported"));
                }
            }
            let is_object = object
                .get("type")
                .is_some_and(|t| t == "object" || t.as_array().is_some_and(|a| a.contains(&json!("object"))));
            if is_object || object.contains_key("properties") {
                let names: Vec<&String> =
                    object.get("properties").and_then(Value::as_object).map(|p| p.keys().collect()).unwrap_or_default();
                let required: Vec<&str> = object
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for name in &names {
                    if !required.contains(&name.as_str()) {
                        out.push(format!("{at}: property {name:?} is not required"));
                    }
                }
                if object.get("additionalProperties") != Some(&Value::Bool(false)) {
                    out.push(format!("{at}: additionalProperties is not false"));
                }
            }
            for (key, child) in object {
                violations(child, &format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                violations(item, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn strict_export_follows_openai_strict_rules() {
    let m = manifest(&Profile::default(), None, Permission::Edit);
    let strict = openai_functions_strict(&m);
    assert_eq!(strict.len(), openai_functions(&m).len());
    let mut out = Vec::new();
    for function in &strict {
        let f = &function["function"];
        assert_eq!(f["strict"], true);
        assert_eq!(f["parameters"]["type"], "object", "the root is an object, never anyOf");
        assert!(f["parameters"].get("$schema").is_none());
        violations(&f["parameters"], f["name"].as_str().unwrap(), &mut out);
    }
    assert!(out.is_empty(), "strict-mode violations:\n{}", out.join("\n"));
    // The plain export is unchanged by the strict one: no `strict` flag, optional fields stay optional.
    let plain = openai_functions(&m);
    assert!(plain[0]["function"].get("strict").is_none());
}

#[test]
fn the_checker_catches_what_strict_mode_refuses() {
    let mut out = Vec::new();
    let loose = json!({"type": "object", "properties": {"a": {"type": "string", "default": ""}}, "oneOf": []});
    violations(&loose, "", &mut out);
    assert_eq!(out.len(), 4, "{out:?}");
}

fn page() -> Page {
    let mut page = Page::new(
        "ws",
        "doc",
        "Plan",
        vec![Block::paragraph("p_1", "first 第一段"), Block::paragraph("p_2", "second")],
    )
    .unwrap();
    page = page.at_revision(3);
    page
}

fn dry_run(args: &Value) -> String {
    let page = page();
    let profile = Profile::default();
    let mut store = MemoryIdempotencyStore::default();
    let mut n = 0;
    let mut mint = || {
        n += 1;
        format!("b_new{n}")
    };
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: pageai_core::policy::Role::Owner,
        contexts: &NoContexts,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    let call = Call {
        tool_name: "doc_apply_block_ops",
        args,
        origin: Origin::Hermes,
        actor: "hermes",
        at: "2026-12-01T00:00:00Z",
        tool_call_id: "call_1",
        new_context_id: "",
    };
    preview(&page, &call, &mut env).unwrap().json
}

#[test]
fn null_optional_arguments_mean_absent() {
    let plain = json!({
        "documentId": "doc", "baseRevision": 3, "dryRun": true, "idempotencyKey": "k1",
        "operations": [
            {"op": "replace", "matchText": "first", "content": "1st"},
            {"op": "insert_after", "afterBlockId": "p_2", "block": {"type": "paragraph"}},
        ],
    });
    let strict = json!({
        "documentId": "doc", "baseRevision": 3, "dryRun": true, "idempotencyKey": "k1",
        "contextId": null, "allowedTargetBlockIds": null,
        "operations": [
            {"op": "replace", "blockId": null, "matchText": "first", "content": "1st", "occurrence": null},
            {"op": "insert_after", "afterBlockId": "p_2",
             "block": {"type": "paragraph", "blockId": null, "text": null, "attrs": null}},
        ],
    });
    assert_eq!(dry_run(&strict), dry_run(&plain));
}
