//! Core's reader (`json::from_value_ref`: each shape's `json::Read`, derived from its serde attributes)
//! answers what `serde_path_to_error` over serde_derive's `Deserialize` and serde_json's `Value` answers, the
//! decoder it replaced: the same result for a good input, and for a bad one the same first pointer and
//! reason. The one difference is meant: core reads a struct from an object only, where serde_json also takes
//! an array of the fields in order. Core's serde deserializer (`json::from_value_serde`, for shapes without a
//! `Read`) is held to the same on the shapes `Read` does not take (tuples, newtype and tuple variants).
//!
//! The inputs are the golden fixtures' inputs and outputs (pages, context requests, profiles, every tool's
//! arguments, contexts, tool results, review sessions, tool events), each bent by a few random mutations:
//! a value swapped for another type, a member or element taken out, an unknown member added, a string
//! changed, an element repeated.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use std::path::Path;
use std::sync::OnceLock;

use pageai_core::context::{ContextRequest, Scope};
use pageai_core::error::Error;
use pageai_core::json::{Read, from_value_ref, from_value_serde};
use pageai_core::manifest::args::{
    ApplyBlockOpsArgs, BlockDeleteArgs, BlockFetchArgs, BlockInsertArgs, BlockMoveArgs, BlockUpdateArgs, DocFetchArgs,
    DocSearchArgs, PageSaveArgs, PlanUpdateArgs,
};
use pageai_core::ops::{NewBlock, Occurrence, Operation};
use pageai_core::page::{Attrs, BlockType, Page};
use pageai_core::profile::Profile;
use pageai_core::wire::{ManifestV1, PageAiContextV1, ReviewSessionV1, ToolEventV1, ToolResultV1};
use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// What a decoder answers: the value read (as JSON), or the first bad field's pointer and reason.
type Answer = Result<Value, (String, String)>;

fn core_answer<T: Read + Serialize>(value: &Value) -> Answer {
    answer(from_value_ref::<T>(value))
}

/// Core's answer through serde's `Deserialize` (`from_value_serde`, for shapes without a `Read`).
fn core_serde_answer<T: DeserializeOwned + Serialize>(value: &Value) -> Answer {
    answer(from_value_serde::<T>(value))
}

fn answer<T: Serialize>(read: Result<T, Error>) -> Answer {
    match read {
        Ok(t) => Ok(serde_json::to_value(&t).unwrap()),
        Err(Error::InvalidArguments { pointer, reason, .. }) => Err((pointer, reason)),
        Err(other) => panic!("not an invalid-arguments error: {other:?}"),
    }
}

fn oracle_answer<T: DeserializeOwned + Serialize>(value: &Value) -> Answer {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(t) => Ok(serde_json::to_value(&t).unwrap()),
        Err(e) => {
            let mut reason = e.inner().to_string();
            if let Some(cut) = reason.find(" at line ") {
                reason.truncate(cut);
            }
            // Core answers serde's message in JSON words (`pageai_core::json::plain_words`).
            Err((pointer_of(e.path()), pageai_core::json::plain_words(&reason)))
        }
    }
}

/// serde_path_to_error's path as a JSON pointer, as core spelled it before its own decoder.
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        let key = match segment {
            Segment::Seq { index } => index.to_string(),
            Segment::Map { key } => key.clone(),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => "?".into(),
        };
        out.push_str(&key.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// Core's refusal of a struct (or an internally tagged enum) given as an array of its fields.
fn refuses_positional_struct(reason: &str) -> bool {
    // In the words core answers with (`plain_words`): serde's "sequence, expected struct …" or "… internally
    // tagged enum …".
    reason == "invalid type: array, expected an object"
}

/// Whether `value` is or holds an array: an internally tagged enum reports what is wrong inside it at its
/// own pointer, as serde's buffered read does.
fn holds_array(value: &Value) -> bool {
    match value {
        Value::Array(_) => true,
        Value::Object(map) => map.values().any(holds_array),
        _ => false,
    }
}

mod derived;

/// Core's two internally tagged enums as serde derives them (buffered through serde's `Content`), the
/// oracle of core's own reading of them (`json::tagged`); same attributes, same fields.
mod reference {
    use super::*;

    fn null_as_default<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de> + Default>(
        d: D,
    ) -> Result<T, D::Error> {
        Ok(<Option<T> as serde::Deserialize>::deserialize(d)?.unwrap_or_default())
    }

    fn is_unique(o: &Occurrence) -> bool {
        *o == Occurrence::Unique
    }

    #[derive(serde::Deserialize, Serialize)]
    #[serde(tag = "op", rename_all = "snake_case", rename_all_fields = "camelCase", deny_unknown_fields)]
    pub enum Operation {
        Replace {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            block_id: Option<String>,
            match_text: String,
            content: String,
            #[serde(default, skip_serializing_if = "is_unique", deserialize_with = "null_as_default")]
            occurrence: Occurrence,
        },
        InsertAfter {
            after_block_id: String,
            block: NewBlock,
        },
        InsertBefore {
            before_block_id: String,
            block: NewBlock,
        },
        Update {
            block_id: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            text: Option<String>,
            #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
            kind: Option<BlockType>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            attrs: Option<Attrs>,
        },
        Delete {
            block_id: String,
        },
        Move {
            block_id: String,
            after_block_id: Option<String>,
        },
    }

    #[derive(serde::Deserialize, Serialize)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    pub enum Scope {
        Full,
        Outline,
        Block {
            #[serde(rename = "blockId")]
            block_id: String,
        },
        Selection {
            #[serde(rename = "blockIds")]
            block_ids: Vec<String>,
        },
        Keyword {
            query: String,
        },
    }
}

/// One shape: its name and the two decoders' answers for a value.
struct Shape {
    name: &'static str,
    core: fn(&Value) -> Answer,
    oracle: fn(&Value) -> Answer,
}

macro_rules! shapes {
    ($($name:literal => $t:ty $(, read by serde as $oracle:ty)?);* $(;)?) => {
        &[$(Shape { name: $name, core: core_answer::<$t>, oracle: shapes!(@oracle $t $(, $oracle)?) }),*]
    };
    (@oracle $t:ty) => { oracle_answer::<$t> };
    (@oracle $t:ty, $oracle:ty) => { oracle_answer::<$oracle> };
}

const SHAPES: &[Shape] = shapes! {
    "page" => Page;
    "request" => ContextRequest;
    "profile" => Profile;
    "doc_fetch" => DocFetchArgs;
    "block_fetch" => BlockFetchArgs;
    "doc_search" => DocSearchArgs;
    "doc_apply_block_ops" => ApplyBlockOpsArgs;
    "doc_plan_update" => PlanUpdateArgs;
    "block_insert" => BlockInsertArgs;
    "block_update" => BlockUpdateArgs;
    "block_delete" => BlockDeleteArgs;
    "block_move" => BlockMoveArgs;
    "page_save" => PageSaveArgs;
    "context" => PageAiContextV1;
    "tool_result" => ToolResultV1;
    "review_session" => ReviewSessionV1;
    "tool_event" => ToolEventV1;
    "manifest" => ManifestV1;
    // The internally tagged enums against serde's own (buffered) reading of them; above, inside the
    // shapes that hold them, both decoders use core's.
    "operation" => Operation, read by serde as reference::Operation;
    "scope" => Scope, read by serde as reference::Scope;
};

fn shape(name: &str) -> &'static Shape {
    SHAPES.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no shape {name}"))
}

/// Every (shape, good value) the fixtures hold.
fn samples() -> &'static [(&'static Shape, Value)] {
    static SAMPLES: OnceLock<Vec<(&'static Shape, Value)>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wire/v1");
        let mut out = Vec::new();
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let fixture: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
            let input = &fixture["input"];
            for (key, shape_name) in [("page", "page"), ("request", "request"), ("profile", "profile")] {
                if input[key].is_object() {
                    out.push((shape(shape_name), input[key].clone()));
                }
            }
            let call = if input["call"].is_object() { &input["call"] } else { &input["command"]["call"] };
            if let Some(tool) = call["toolName"].as_str() {
                let tool = tool.trim_start_matches("mnote.").replace('.', "_");
                if let Some(shape) = SHAPES.iter().find(|s| s.name == tool) {
                    out.push((shape, call["args"].clone()));
                }
            }
            let output = &fixture["output"];
            let produced = match name.split('.').next().unwrap() {
                "page_ai_context" => Some(("context", output.clone())),
                "tool_result" => Some(("tool_result", output.clone())),
                "tool_event" => Some(("tool_event", output.clone())),
                "ai_tool_manifest" => Some(("manifest", output.clone())),
                "page_ai_review_session" => Some(("review_session", output["session"].clone())),
                _ => None,
            };
            if let Some((shape_name, value)) = produced.filter(|(_, v)| v.is_object()) {
                out.push((shape(shape_name), value));
            }
        }
        // Every operation and scope the samples hold, on their own.
        let mut parts = Vec::new();
        for (_, value) in &out {
            collect_tagged(value, &mut parts);
        }
        for (name, value) in [("scope", json!({"type": "full"})), ("scope", json!({"type": "outline"}))] {
            parts.push((name, value));
        }
        out.extend(parts.into_iter().map(|(name, value)| (shape(name), value)));
        // The tools no fixture calls.
        let write = json!({
            "contextId": "ctx_1", "documentId": "doc", "baseRevision": 3, "dryRun": true, "idempotencyKey": "k",
            "allowedTargetBlockIds": ["p_1"], "revisionRefs": ["p_1@2"], "requireExactRevision": false,
        });
        let with = |extra: Value| {
            let mut args = write.clone();
            args.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            args
        };
        let block = json!({"type": "todo", "text": "t", "attrs": {"checked": true}});
        for (name, args) in [
            ("block_fetch", json!({"contextId": "ctx_1", "blockIds": ["p_1", "p_2"], "formats": ["page_xml", "json"]})),
            ("doc_search", json!({"documentId": "doc", "query": "q", "limit": 5})),
            ("block_insert", with(json!({"afterBlockId": "p_1", "block": block}))),
            ("block_update", with(json!({"blockId": "p_1", "text": "t", "type": "heading", "attrs": {"level": 2}}))),
            ("block_delete", with(json!({"blockId": "p_1"}))),
            ("block_move", with(json!({"blockId": "p_1", "afterBlockId": null}))),
            (
                "page_save",
                json!({"documentId": "doc", "baseRevision": 1, "dryRun": false, "idempotencyKey": "k",
                    "blocks": [{"blockId": "p_1", "type": "paragraph", "text": "a"}, {"blockId": "c_1",
                    "type": "code", "text": "x", "attrs": {"language": "rust"}, "editable": false}]}),
            ),
            (
                "doc_plan_update",
                json!({"documentId": "doc", "baseRevision": 1, "idempotencyKey": "k", "summary": "s",
                    "operations": [{"op": "insert_after", "afterBlockId": "p_1", "block": block},
                    {"op": "move", "blockId": "p_1", "afterBlockId": null},
                    {"op": "update", "blockId": "p_1", "type": "quote"}, {"op": "delete", "blockId": "p_2"},
                    {"op": "replace", "matchText": "a", "content": "b", "occurrence": "all"}]}),
            ),
        ] {
            out.push((shape(name), args));
        }
        out
    })
}

/// The operations (elements of an `operations` array) and scopes (`scope` members) anywhere in `value`.
fn collect_tagged(value: &Value, out: &mut Vec<(&'static str, Value)>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(operations)) = map.get("operations") {
                out.extend(operations.iter().map(|op| ("operation", op.clone())));
            }
            if let Some(scope) = map.get("scope").filter(|s| s.is_object()) {
                out.push(("scope", scope.clone()));
            }
            map.values().for_each(|v| collect_tagged(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_tagged(v, out)),
        _ => {}
    }
}

/// Every node of `value`, as JSON pointers, the root first.
fn nodes(value: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                nodes(v, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                nodes(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// What a mutation puts in place of a value.
fn stand_in(kind: u8) -> Value {
    match kind % 12 {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(0),
        3 => json!(-7),
        4 => json!(1.5),
        5 => json!(18_446_744_073_709_551_615_u64),
        6 => json!(""),
        7 => json!("rename"),
        8 => json!([]),
        9 => json!([1, "a"]),
        10 => json!({}),
        _ => json!({"zz": 1}),
    }
}

/// Applies one mutation, picked by `(node, kind)`, to `value`.
fn mutate(value: &mut Value, node: usize, kind: u8) {
    let mut all = Vec::new();
    nodes(value, String::new(), &mut all);
    let at = all[node % all.len()].clone();
    let (parent, last) = at.rsplit_once('/').unwrap_or(("", ""));
    match kind % 5 {
        // Swap the value for one of another type (or the same type, another value).
        0 | 1 => *value.pointer_mut(&at).unwrap() = stand_in(kind / 5),
        // Take the member or element out.
        2 if !at.is_empty() => match value.pointer_mut(parent).unwrap() {
            Value::Object(map) => {
                map.remove(&last.replace("~1", "/").replace("~0", "~"));
            }
            Value::Array(items) => {
                items.remove(last.parse::<usize>().unwrap());
            }
            _ => unreachable!("a parent is an object or an array"),
        },
        // Add an unknown member, or repeat an element.
        3 => match value.pointer_mut(&at).unwrap() {
            Value::Object(map) => {
                map.insert("zzUnknown".into(), stand_in(kind / 5));
            }
            Value::Array(items) if !items.is_empty() => {
                let first = items[0].clone();
                items.push(first);
            }
            other => *other = stand_in(kind / 5),
        },
        // Change a string (an enum's name, an id, a time).
        _ => {
            if let Some(slot) = value.pointer_mut(&at) {
                *slot = match slot {
                    Value::String(s) => Value::String(format!("{s}x")),
                    _ => stand_in(kind / 5),
                };
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn agrees_with_serde_path_to_error(
        sample in any::<usize>(),
        mutations in prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
    ) {
        let all = samples();
        let (shape, good) = &all[sample % all.len()];
        let mut value = good.clone();
        for (node, kind) in mutations {
            mutate(&mut value, node, kind);
        }
        let core = (shape.core)(&value);
        match &core {
            Err((pointer, reason)) if refuses_positional_struct(reason) => {
                prop_assert!(value.pointer(pointer).is_some_and(holds_array), "{} {} {:?}", shape.name, value, core);
            }
            _ => prop_assert_eq!(core, (shape.oracle)(&value), "{} {}", shape.name, value),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// `Page::from_json` reads a good page straight from its text (`page/text.rs`) and anything else through
    /// the decoder: the answer, a page or an error, is the decoder's either way. The fixtures' pages, bent as
    /// above, as JSON text.
    #[test]
    fn the_page_read_from_text_answers_what_the_decoder_answers(
        sample in any::<usize>(),
        mutations in prop::collection::vec((any::<usize>(), any::<u8>()), 0..3),
    ) {
        let pages: Vec<&Value> = samples().iter().filter(|(s, _)| s.name == "page").map(|(_, v)| v).collect();
        let mut value = pages[sample % pages.len()].clone();
        for (node, kind) in mutations {
            mutate(&mut value, node, kind);
        }
        let text = value.to_string();
        let decoded = pageai_core::json::from_json::<Page>(&text).and_then(|page| page.validate().map(|()| page));
        prop_assert_eq!(Page::from_json(&text), decoded, "{}", text);
    }
}

#[test]
fn every_shape_has_a_sample_that_reads() {
    // Some fixtures hold bad arguments on purpose (`tool_result.unknown_field`); each shape needs one good one.
    for shape in SHAPES {
        let answers: Vec<_> =
            samples().iter().filter(|(s, _)| s.name == shape.name).map(|(_, v)| (shape.core)(v)).collect();
        assert!(answers.iter().any(Result::is_ok), "no fixture holds a good {}: {answers:?}", shape.name);
    }
}

#[test]
fn internally_tagged_enums_read_as_serde_reads_them() {
    let cases = [
        json!({"op": "rename", "blockId": "p"}),
        json!({"op": 5, "blockId": "p"}),
        json!({"op": null, "blockId": "p"}),
        json!({"op": ["delete"], "blockId": "p"}),
        json!({"blockId": "p"}),
        json!({}),
        json!({"op": "delete"}),
        json!({"op": "delete", "blockId": 1}),
        json!({"op": "delete", "blockId": "p", "zz": 1}),
        json!({"op": "move", "blockId": "p"}),
        json!({"op": "move", "blockId": "p", "afterBlockId": null}),
        json!({"op": "replace", "matchText": "a", "content": "b", "occurrence": null}),
        json!({"op": "replace", "matchText": "a", "content": "b", "occurrence": "most"}),
        json!({"op": "insert_after", "afterBlockId": "p", "block": {"type": "todo", "attrs": {"checked": "yes"}}}),
        json!({"op": "update", "blockId": "p", "type": "headline"}),
        json!("delete"),
        json!(7),
        json!(null),
    ];
    for case in &cases {
        assert_eq!(core_answer::<Operation>(case), oracle_answer::<reference::Operation>(case), "{case}");
    }
    let scopes = [
        json!({"type": "full"}),
        json!({"type": "full", "extra": 1}),
        json!({"type": "outline", "blockId": "p"}),
        json!({"type": "block"}),
        json!({"type": "block", "blockId": "p", "extra": 1}),
        json!({"type": "selection", "blockIds": "p"}),
        json!({"type": "keyword", "query": "q"}),
        json!({"type": "whole"}),
        json!({"type": true}),
        json!({"blockId": "p"}),
        json!("full"),
    ];
    for case in &scopes {
        assert_eq!(core_answer::<Scope>(case), oracle_answer::<reference::Scope>(case), "{case}");
    }
    // Arrays in an operation: core refuses them where serde would read the fields in order.
    let positional = json!(["delete", "p"]);
    assert!(oracle_answer::<reference::Operation>(&positional).is_ok());
    assert_eq!(
        core_answer::<Operation>(&positional),
        Err((String::new(), "invalid type: array, expected an object".into()))
    );
}

#[test]
fn externally_tagged_enums_and_odd_containers_agree_too() {
    // Core's wire enums are names or internally tagged; these cover the decoder's other paths.
    #[derive(Debug, serde::Deserialize, Serialize)]
    enum E {
        Unit,
        New(u8),
        Tuple(u8, String),
        Struct { a: u8 },
    }
    #[derive(Debug, serde::Deserialize, Serialize)]
    struct Holder {
        e: Vec<E>,
        t: (u8, bool),
        m: std::collections::BTreeMap<String, Option<u16>>,
        c: char,
    }
    let cases = [
        json!({"e": ["Unit", {"New": 1}, {"Tuple": [1, "x"]}, {"Struct": {"a": 2}}], "t": [1, true], "m": {"k": null}, "c": "x"}),
        json!({"e": [{"New": 300}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"Tuple": [1]}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"Tuple": 1}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"Struct": {"a": "b"}}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"Struct": 1}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": ["New"], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": ["Struct"], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"Unit": 3}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"Unit": null}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"Nope": 1}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [{"New": 1, "Unit": null}], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [3], "t": [1, true], "m": {}, "c": "x"}),
        json!({"e": [], "t": [1, true, 3], "m": {}, "c": "x"}),
        json!({"e": [], "t": [1], "m": {}, "c": "x"}),
        json!({"e": [], "t": [1, true], "m": {"a/b~c": 70000}, "c": "x"}),
        json!({"e": [], "t": [1, true], "m": {}, "c": "xy"}),
        json!(null),
    ];
    for case in cases {
        assert_eq!(core_serde_answer::<Holder>(&case), oracle_answer::<Holder>(&case), "{case}");
    }
    // serde_json reads these as a Holder, its fields in order, or fails on the length; core refuses them.
    for case in [json!([[], [1, true], {}, "x"]), json!([[], [1, true], {}, "x", 5]), json!([[]])] {
        assert!(oracle_answer::<Holder>(&case) != core_serde_answer::<Holder>(&case));
        assert_eq!(
            core_serde_answer::<Holder>(&case),
            Err((String::new(), "invalid type: array, expected an object".into())),
            "{case}"
        );
    }
}
