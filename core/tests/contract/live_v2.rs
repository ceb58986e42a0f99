//! The live channel's second version, `tests/fixtures/wire/v2/live_event.*.json`,
//! shared with the package tests (`wasm/tests/live.test.mjs` checks every message against
//! `schemas/live_event.v2.json` and follows it with `PageSession.applyRemote`).
//!
//! Input `{page, command}`, where `command` is one of:
//! - `{kind: "profile", workspaceId, version, profile, seq, at}`: the `profile.changed` a socket is sent;
//! - `{kind: "upgrade", fixture}`: the messages of a v1 fixture as a v2 socket is sent them;
//! - `{kind: "decode", message}`: a message as a client receives it (the output is the decoding error).
//!
//! The output is `{messages, page}` (the page once they are followed from the input's), or `error`.

use pageai_core::json::{from_json, from_value};
use pageai_core::live;
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::wire::{ErrorBody, LiveEventV1, LiveFollowV1, LiveVersion, upgrade};
use serde_json::{Value, json};

use crate::support::{self, Case, Layout};

const AT: &str = "2027-01-15T08:00:00.000Z";

fn v1_fixture(name: &str) -> Value {
    support::read("v1", name)
}

/// The messages and page (or the error) `input` gives.
fn run(input: &Value) -> (&'static str, Value) {
    let command = &input["command"];
    let messages: Vec<Value> = match command["kind"].as_str().unwrap() {
        "profile" => {
            let page: Page = from_value(input["page"].clone()).unwrap();
            let profile: Profile = from_value(command["profile"].clone()).unwrap();
            let message = live::profile_changed(
                &page.document_id,
                command["workspaceId"].as_str().unwrap(),
                &profile,
                command["version"].as_u64().unwrap(),
                command["seq"].as_u64().unwrap(),
                page.revision,
                command["at"].as_str().unwrap(),
            );
            vec![serde_json::from_str(&live::encode(&message).unwrap()).unwrap()]
        }
        "upgrade" => {
            let v1 = v1_fixture(command["fixture"].as_str().unwrap());
            v1["output"]["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    // As the channel stores it: written by `live::encode`, the schema id first.
                    let stored = live::encode(&from_value::<LiveEventV1>(m.clone()).unwrap()).unwrap();
                    serde_json::from_str(&upgrade(&stored, LiveVersion::V2)).unwrap()
                })
                .collect()
        }
        "decode" => {
            let error = from_json::<LiveEventV1>(&command["message"].to_string()).unwrap_err();
            return ("error", serde_json::to_value(ErrorBody::new(&error, support::TRACE)).unwrap());
        }
        other => panic!("unknown command {other}"),
    };
    let mut page: Page = from_value(input["page"].clone()).unwrap();
    for message in &messages {
        live::follow(&mut page, &from_value::<LiveEventV1>(message.clone()).unwrap()).unwrap();
    }
    ("output", json!({ "messages": messages, "page": page }))
}

fn cases() -> Vec<(&'static str, Value)> {
    let changed = v1_fixture("live_event.page_changed.json");
    vec![
        (
            "profile_changed",
            json!({"page": changed["input"]["page"], "command": {"kind": "profile", "workspaceId": "ws_golden",
                   "version": 7, "profile": {"reviewMode": "review", "tools": {"disabled": ["mnote.block.delete"]}},
                   "seq": 40, "at": AT}}),
        ),
        (
            "page_changed",
            json!({"page": changed["input"]["page"], "command": {"kind": "upgrade", "fixture": "live_event.page_changed.json"}}),
        ),
        (
            "profile_under_v1",
            json!({"page": changed["input"]["page"], "command": {"kind": "decode", "message": {
                "schema": "mnote.live_event.v1", "seq": 40, "revision": 12, "kind": "profile.changed", "at": AT,
                "documentId": "doc_golden", "profile": {"workspaceId": "ws_golden", "version": 7,
                "reviewMode": "review", "tools": {"disabled": []}}}}}),
        ),
        (
            "unknown_version",
            json!({"page": changed["input"]["page"], "command": {"kind": "decode", "message": {
                "schema": "mnote.live_event.v3", "seq": 40, "revision": 12, "kind": "hello", "at": AT,
                "documentId": "doc_golden", "hello": {"replayed": 0, "snapshot": false,
                "limits": {"maxSockets": 64, "maxIncomingBytes": 4096, "maxMessageBytes": 262144}}}}}),
        ),
    ]
}

#[test]
fn fixtures_match() {
    let cases: Vec<Case> = cases()
        .into_iter()
        .map(|(name, input)| {
            Case::new(format!("live_event.{name}.json"), input, |i: &Value| {
                let (key, output) = run(i);
                (key, output.to_string())
            })
        })
        .collect();
    support::check("v2", &cases, Layout::Sorted);
}

#[test]
fn a_v2_message_is_its_v1_message_with_the_v2_id_and_follows_alike() {
    let v1 = v1_fixture("live_event.page_changed.json");
    let (_, output) = run(&cases()[1].1);
    let mut page: Page = from_value(v1["input"]["page"].clone()).unwrap();
    for (old, new) in v1["output"]["messages"].as_array().unwrap().iter().zip(output["messages"].as_array().unwrap()) {
        let mut expected = old.clone();
        expected["schema"] = json!("mnote.live_event.v2");
        assert_eq!(new, &expected);
        // The follower reads both versions.
        let light: LiveFollowV1 = from_value(new.clone()).unwrap();
        live::follow_light(&mut page, &light).unwrap();
    }
    assert_eq!(output["page"], v1["output"]["page"]);
    assert_eq!(serde_json::to_value(&page).unwrap(), v1["output"]["page"]);
    // A v1 socket is sent the stored text unchanged.
    let text = live::encode(&from_value::<LiveEventV1>(v1["output"]["messages"][0].clone()).unwrap()).unwrap();
    assert_eq!(upgrade(&text, LiveVersion::V1), text);
}

#[test]
fn a_profile_change_is_v2_only_and_changes_no_page() {
    let (key, output) = run(&cases()[0].1);
    assert_eq!(key, "output");
    let message = &output["messages"][0];
    assert_eq!(message["schema"], "mnote.live_event.v2");
    assert_eq!(message["kind"], "profile.changed");
    assert_eq!(message["profile"]["reviewMode"], "review");
    let (key, error) = run(&cases()[2].1);
    assert_eq!(key, "error");
    assert_eq!(error["code"], "mnote_invalid_arguments", "{error}");
    let (_, error) = run(&cases()[3].1);
    assert!(error.to_string().contains("mnote.live_event.v3"), "{error}");
}
