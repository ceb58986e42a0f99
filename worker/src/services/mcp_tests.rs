//! The MCP protocol decisions: both eras, notifications, faults, tools/list and tools/call shapes.
#![allow(
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "a failed expectation is the test's report"
)]

use pageai_core::manifest::manifest;
use pageai_core::page::Permission;
use pageai_core::profile::{Profile, ToolsPolicy};

use super::*;

fn answer(step: Step) -> Value {
    match step {
        Step::Answer { body, .. } => body,
        other => panic!("not an answer: {other:?}"),
    }
}

fn request(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()
}

#[test]
fn initialize_negotiates_the_version_and_opens_a_session() {
    let step = plan(&request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}})), None)
        .expect("planned");
    let Step::Answer { body, new_session } = step else { panic!("an answer") };
    assert!(new_session);
    assert_eq!(body["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(body["result"]["capabilities"]["tools"], json!({"listChanged": false}));
    assert_eq!(body["result"]["serverInfo"]["name"], "mnote");
    let newer = answer(plan(&request("initialize", json!({"protocolVersion": "2099-01-01"})), None).expect("planned"));
    assert_eq!(newer["result"]["protocolVersion"], NEWEST_SESSION_VERSION);
}

#[test]
fn notifications_and_client_responses_are_accepted_without_an_answer() {
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    assert_eq!(plan(&initialized, None), Ok(Step::Accepted));
    let response = json!({"jsonrpc": "2.0", "id": 9, "result": {}}).to_string();
    assert_eq!(plan(&response, None), Ok(Step::Accepted));
}

#[test]
fn protocol_faults_are_json_rpc_errors() {
    let cases: [(&str, u16, i64); 5] = [
        ("{", 400, codes::PARSE_ERROR),
        ("[]", 400, codes::INVALID_REQUEST),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, 400, codes::INVALID_REQUEST),
        (r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#, 200, codes::METHOD_NOT_FOUND),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#, 200, codes::INVALID_PARAMS),
    ];
    for (body, status, code) in cases {
        let fault = plan(body, None).expect_err(body);
        assert_eq!((fault.status, fault.body["error"]["code"].as_i64()), (status, Some(code)), "{body}");
        assert_eq!(fault.body["jsonrpc"], "2.0");
    }
    let parse = plan("{", None).expect_err("not JSON");
    assert_eq!(parse.body["error"]["data"]["code"], "mnote_invalid_body");
}

#[test]
fn the_stateless_form_needs_no_handshake() {
    let meta = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
    let Step::ListTools(reply) = plan(&request("tools/list", meta.clone()), Some("2026-07-28")).expect("planned")
    else {
        panic!("tools/list");
    };
    assert!(reply.stateless);
    let list = tools_list(&reply, &manifest(&Profile::default(), None, Permission::Edit));
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["ttlMs"], 0);

    let discover = answer(plan(&request("server/discover", meta.clone()), None).expect("planned"));
    assert!(discover["result"]["supportedVersions"].as_array().expect("list").contains(&json!("2026-07-28")));
    assert_eq!(discover["result"]["resultType"], "complete");

    let mismatch = plan(&request("ping", meta.clone()), Some("2025-06-18")).expect_err("disagree");
    assert_eq!(mismatch.status, 400);
    let unknown = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2030-01-01"}});
    let fault = plan(&request("ping", unknown), None).expect_err("unsupported");
    assert_eq!(fault.body["error"]["code"], codes::UNSUPPORTED_VERSION);
    assert_eq!(fault.body["error"]["data"]["supported"], json!(["2026-07-28"]));
    let header = plan(&request("ping", json!({})), Some("1999-01-01")).expect_err("unsupported header");
    assert_eq!(header.status, 400);
    // A session-era request stays session-era.
    let ping = answer(plan(&request("ping", json!({})), Some("2025-06-18")).expect("planned"));
    assert_eq!(ping["result"], json!({}));
}

#[test]
fn tools_list_follows_the_profile_and_requires_a_document() {
    let profile = Profile { tools: ToolsPolicy { disabled: vec!["mnote.doc.search".into()] }, ..Profile::default() };
    let reply = Reply { id: json!(3), stateless: false };
    let list = tools_list(&reply, &manifest(&profile, None, Permission::Edit));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"doc_fetch") && names.contains(&"doc_apply_block_ops"));
    assert!(!names.contains(&"doc_search"), "a disabled tool is not listed");
    for tool in tools {
        let required = tool["inputSchema"]["required"].as_array().expect("required");
        assert!(required.contains(&json!("documentId")), "{}", tool["name"]);
    }
    assert_eq!(list["id"], 3);
    assert!(list["result"].get("resultType").is_none());
}

#[test]
fn tool_results_carry_text_and_structured_content() {
    let reply = Reply { id: json!("a"), stateless: false };
    let ok = call_answer(&reply, r#"{"schema":"mnote.tool_result.v1","ok":true}"#);
    assert_eq!(ok["result"]["isError"], false);
    assert_eq!(ok["result"]["structuredContent"]["ok"], true);
    assert_eq!(ok["result"]["content"][0]["type"], "text");
    // A refusal is an ordinary result (Hermes' breaker counts isError), with the request named.
    let refused = call_error(&reply, &Error::invalid("/documentId", "missing"), "tr_1", "rq_1");
    assert_eq!(refused["result"]["isError"], false);
    let structured = &refused["result"]["structuredContent"];
    assert_eq!(
        (structured["ok"].as_bool(), structured["code"].as_str(), structured["requestId"].as_str()),
        (Some(false), Some("mnote_invalid_arguments"), Some("rq_1"))
    );
    let text: Value =
        serde_json::from_str(refused["result"]["content"][0]["text"].as_str().expect("text")).expect("json");
    assert_eq!((text["code"].as_str(), text["traceId"].as_str()), (Some("mnote_invalid_arguments"), Some("tr_1")));
    // A server fault is a tool error; a relayed body keeps its code.
    let failed = call_error(&reply, &Error::StorageFailed, "tr_2", "rq_2");
    assert_eq!(failed["result"]["isError"], true);
    let relayed = call_relayed(&reply, failed["result"]["content"][0]["text"].as_str().expect("text"), "rq_3");
    assert_eq!(relayed.as_ref().map(|r| r["result"]["structuredContent"]["requestId"].clone()), Some(json!("rq_3")));
    assert_eq!(call_relayed(&reply, "not json", "rq_4"), None);
}

#[test]
fn a_protocol_fault_names_the_trace_and_the_request() {
    let fault = parse_error("not JSON").stamped("tr_9", "rq_9");
    assert_eq!(fault.body["error"]["data"]["requestId"], "rq_9");
    assert_eq!(fault.body["error"]["data"]["traceId"], "tr_9");
}

#[test]
fn tools_call_reads_name_arguments_and_run() {
    let body = request(
        "tools/call",
        json!({"name": "doc_fetch", "arguments": {"documentId": "d"}, "_meta": {"mnote/runId": "run_7"}}),
    );
    let Step::CallTool { name, arguments, run_id, reply } = plan(&body, None).expect("planned") else {
        panic!("a call");
    };
    assert_eq!(
        (name.as_str(), arguments["documentId"].as_str(), run_id.as_deref()),
        ("doc_fetch", Some("d"), Some("run_7"))
    );
    assert_eq!(reply.id, 1);
}
