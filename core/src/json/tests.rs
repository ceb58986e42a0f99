use alloc::string::String;
use alloc::vec::Vec;

use serde_json::{Value, json};

use super::*;
use crate::manifest::args::ApplyBlockOpsArgs;

/// Every bad field `value` has as an `ApplyBlockOpsArgs`: `(pointer, reason)`, the first one first.
fn bad_fields(value: Value) -> Vec<(String, String)> {
    match from_value::<ApplyBlockOpsArgs>(value) {
        Err(Error::InvalidArguments { pointer, reason, more }) => {
            let mut all = alloc::vec![(pointer, reason)];
            all.extend(more.into_iter().map(|e| (e.pointer, e.reason)));
            all
        }
        other => panic!("not invalid arguments: {other:?}"),
    }
}

fn pointers(value: Value) -> Vec<String> {
    bad_fields(value).into_iter().map(|(p, _)| p).collect()
}

fn good() -> Value {
    json!({
        "documentId": "doc", "baseRevision": 3, "dryRun": true, "idempotencyKey": "k",
        "operations": [{"op": "replace", "blockId": "p_1", "matchText": "a", "content": "b"}],
    })
}

#[test]
fn a_good_input_reads() {
    assert!(from_value::<ApplyBlockOpsArgs>(good()).is_ok());
}

#[test]
fn every_bad_field_is_listed_in_one_answer() {
    let mut args = good();
    args["baseRevision"] = json!("three");
    args["dryRun"] = json!("yes");
    args["operations"][0]["op"] = json!("rewrite");
    args["allowedTargetBlockIds"] = json!("p_1");
    let found = pointers(args);
    for pointer in ["/baseRevision", "/dryRun", "/operations/0", "/allowedTargetBlockIds"] {
        assert!(found.iter().any(|p| p.starts_with(pointer)), "{pointer} in {found:?}");
    }
    assert_eq!(found.len(), 4, "{found:?}");
}

#[test]
fn elements_after_a_bad_one_keep_their_index() {
    let mut args = good();
    let op = args["operations"][0].clone();
    args["operations"] = json!([{"op": "nope"}, op, {"op": "replace", "blockId": 7}, op]);
    let found = pointers(args);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("/operations/0"), "{found:?}");
    assert!(found[1].starts_with("/operations/2"), "the third element, as the caller counts: {found:?}");
}

#[test]
fn a_missing_field_is_listed_once_and_last() {
    let mut args = good();
    args.as_object_mut().map(|o| o.remove("idempotencyKey"));
    args["dryRun"] = json!(1);
    let found = bad_fields(args);
    assert_eq!(found.first().map(|(p, _)| p.as_str()), Some("/dryRun"), "{found:?}");
    assert!(found.iter().any(|(_, r)| r.contains("missing field `idempotencyKey`")), "{found:?}");
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn an_unknown_field_is_listed_with_the_others() {
    let mut args = good();
    args["dryrun"] = json!(true);
    args["baseRevision"] = json!(-1);
    let found = bad_fields(args);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found.iter().any(|(_, r)| r.contains("unknown field `dryrun`")), "{found:?}");
}

#[test]
fn the_details_keep_the_first_in_pointer_and_list_all_in_errors() {
    let mut args = good();
    args["baseRevision"] = json!("x");
    args["dryRun"] = json!("x");
    let error = from_value::<ApplyBlockOpsArgs>(args).err().map(|e| e.details());
    let details = error.unwrap_or_default();
    assert_eq!(details["pointer"], "/baseRevision");
    assert_eq!(details["errors"][0]["pointer"], "/baseRevision");
    assert_eq!(details["errors"][1]["pointer"], "/dryRun");
    assert_eq!(details["errors"].as_array().map(Vec::len), Some(2));
}

#[test]
fn the_list_is_bounded() {
    let mut args = good();
    args["operations"] = Value::Array((0..100).map(|_| json!({"op": "nope"})).collect());
    assert_eq!(pointers(args).len(), MAX_FIELD_ERRORS);
}

#[test]
fn elements_after_several_bad_ones_keep_their_index() {
    let mut args = good();
    let op = args["operations"][0].clone();
    let bad = json!({"op": "nope"});
    args["operations"] = json!([bad, op, bad, bad, op, bad, op, bad]);
    let found: Vec<String> =
        pointers(args).into_iter().map(|p| p.split('/').take(3).collect::<Vec<_>>().join("/")).collect();
    assert_eq!(found, ["/operations/0", "/operations/2", "/operations/3", "/operations/5", "/operations/7"]);
}
