//! The MCP protocol of `POST /mcp` (Streamable HTTP, JSON-RPC 2.0), as pure functions of the request: which
//! method, which answer. The route (`routes/mcp.rs`) only adds auth, the profile and the document's
//! object.
//!
//! Two protocol eras are served on the same endpoint:
//!
//! - **Sessions** (2024-11-05 … 2025-11-25, what python `mcp` 1.26 and so Hermes 0.19 speak): `initialize`
//!   negotiates the version and answers an `Mcp-Session-Id`; `notifications/initialized` is acknowledged
//!   with 202. The server keeps no session state, so later requests are accepted with or without the id.
//! - **Stateless** (2026-07-28): no handshake; every request names its version in
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` (and in the `MCP-Protocol-Version` header,
//!   which must agree), `server/discover` describes the server, and every result carries
//!   `resultType:"complete"`. An unknown version is error -32022 with the supported ones.
//!
//! Methods: `initialize`, `server/discover`, `ping`, `tools/list` (core's manifest filtered by the profile,
//! named by `mcpName`), `tools/call`. A tool call's result has core's one shape
//! ([`pageai_core::manifest::call_result`]): a refusal is an ordinary result whose text and
//! `structuredContent` are the coded error body, so the model reads the code and fixes its call; only a
//! server fault is `isError:true`. JSON-RPC errors are kept for protocol faults. MCP calls are not bound to
//! a document, so every tool's `documentId` is required (core's export says so).

use pageai_core::Error;
use pageai_core::error::ErrorCode;
use pageai_core::manifest::call_result::{self, Outcome};
use pageai_core::manifest::{self, ManifestV1};
use pageai_core::wire::ErrorBody;
use serde_json::{Map, Value, json};

/// The server's name in `serverInfo`.
pub const SERVER_NAME: &str = "mnote";

/// The session-era versions, newest first.
pub const SESSION_VERSIONS: &[&str] = &[NEWEST_SESSION_VERSION, "2025-06-18", "2025-03-26", "2024-11-05"];

/// Offered to a client that asks `initialize` for a version we lack.
pub const NEWEST_SESSION_VERSION: &str = "2025-11-25";

/// The stateless version.
pub const STATELESS_VERSION: &str = "2026-07-28";

/// Where a stateless request names its version.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// What the server tells the model about using it.
pub const INSTRUCTIONS: &str = "mnote page tools. Every call names its page with documentId. Start with \
doc_fetch (it freezes a context: contextId, revision, allowedTargetBlockIds), then preview writes with \
dryRun:true and the contextId. Writes wait for the user's review unless the profile allows them; a held write \
answers a review_pending warning with the review session id.";

/// JSON-RPC error codes.
pub mod codes {
    /// The body is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a JSON-RPC 2.0 request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad params.
    pub const INVALID_PARAMS: i64 = -32602;
    /// The server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The requested protocol version is not supported (2026-07-28).
    pub const UNSUPPORTED_VERSION: i64 = -32022;
}

/// A protocol fault: the HTTP status and the JSON-RPC error response to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    /// HTTP status.
    pub status: u16,
    /// The JSON-RPC response.
    pub body: Value,
}

/// What to do with one incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Answer this JSON-RPC response (200).
    Answer {
        /// The response.
        body: Value,
        /// Mint and send an `Mcp-Session-Id` (after `initialize`).
        new_session: bool,
    },
    /// A notification or a client response: 202, no body.
    Accepted,
    /// `tools/list`: answer [`tools_list`] under the profile.
    ListTools(Reply),
    /// `tools/call`: run the tool, answer [`call_result`].
    CallTool {
        /// How to wrap the answer.
        reply: Reply,
        /// The tool's name (MCP or dotted).
        name: String,
        /// Its arguments.
        arguments: Value,
        /// The Hermes run, when the client names it in `_meta["mnote/runId"]`.
        run_id: Option<String>,
    },
}

/// How to wrap a result: the request id, and whether the request was stateless (`resultType`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The request's id.
    pub id: Value,
    /// Whether the request used the stateless protocol.
    pub stateless: bool,
}

impl Reply {
    /// The JSON-RPC response carrying `result`.
    pub fn result(&self, mut result: Value) -> Value {
        if self.stateless
            && let Some(map) = result.as_object_mut()
        {
            map.insert("resultType".into(), json!("complete"));
        }
        json!({"jsonrpc": "2.0", "id": self.id, "result": result})
    }

    /// The JSON-RPC error response.
    pub fn error(&self, code: i64, message: &str, data: Option<Value>) -> Value {
        error_body(self.id.clone(), code, message, data)
    }
}

impl Fault {
    /// The fault with its coded body (`error.data`, when it is one) naming the trace and the request, as
    /// every error body does.
    pub fn stamped(mut self, trace_id: &str, request_id: &str) -> Self {
        if let Some(data) = self.body.pointer_mut("/error/data").and_then(Value::as_object_mut)
            && data.get("ok") == Some(&Value::Bool(false))
        {
            data.insert("traceId".into(), json!(trace_id));
            data.insert("requestId".into(), json!(request_id));
        }
        self
    }
}

fn error_body(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let (Some(data), Some(map)) = (data, error.as_object_mut()) {
        map.insert("data".into(), data);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn fault(status: u16, id: Value, code: i64, message: &str, data: Option<Value>) -> Fault {
    Fault { status, body: error_body(id, code, message, data) }
}

/// The fault for a body that is not JSON (or not UTF-8): -32700, with the coded `mnote_invalid_body`.
pub fn parse_error(reason: &str) -> Fault {
    let coded = ErrorBody::new(&Error::InvalidBody { reason: reason.into() }, "");
    fault(400, Value::Null, codes::PARSE_ERROR, "Parse error", Some(json!(coded)))
}

/// Reads one message and decides what to do. `header_version` is the `MCP-Protocol-Version` header.
pub fn plan(body: &str, header_version: Option<&str>) -> Result<Step, Fault> {
    let value: Value = serde_json::from_str(body).map_err(|e| parse_error(&format!("not JSON: {e}")))?;
    let message = json_rpc_message(&value)?;
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return without_method(message);
    };
    let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
    let Some(id) = message.get("id").cloned() else {
        return Ok(Step::Accepted);
    };
    if !(id.is_string() || id.is_i64() || id.is_u64()) {
        return Err(fault(400, Value::Null, codes::INVALID_REQUEST, "id must be a string or an integer", None));
    }
    if !params.is_object() {
        return Err(fault(400, id, codes::INVALID_PARAMS, "params must be an object", None));
    }
    let stateless = stateless_version(&id, &params, header_version)?;
    dispatch(method, &params, Reply { id, stateless })
}

/// The message as a JSON-RPC 2.0 object; a batch, a non-object or another `jsonrpc` is an invalid request.
fn json_rpc_message(value: &Value) -> Result<&Map<String, Value>, Fault> {
    let Some(message) = value.as_object() else {
        let reason = if value.is_array() { "batches are not supported" } else { "a message is a JSON object" };
        return Err(fault(400, Value::Null, codes::INVALID_REQUEST, reason, None));
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        return Err(fault(400, id, codes::INVALID_REQUEST, "jsonrpc must be \"2.0\"", None));
    }
    Ok(message)
}

/// A message without a method: a response to a request we never send (accepted, nothing to answer), or
/// garbage.
fn without_method(message: &Map<String, Value>) -> Result<Step, Fault> {
    match message.contains_key("result") || message.contains_key("error") {
        true => Ok(Step::Accepted),
        false => Err(fault(
            400,
            message.get("id").cloned().unwrap_or(Value::Null),
            codes::INVALID_REQUEST,
            "no method",
            None,
        )),
    }
}

/// What a request's method asks for.
fn dispatch(method: &str, params: &Value, reply: Reply) -> Result<Step, Fault> {
    Ok(match method {
        "initialize" => Step::Answer { body: reply.result(initialize(params)), new_session: true },
        "server/discover" => {
            Step::Answer { body: Reply { stateless: true, ..reply }.result(discover()), new_session: false }
        }
        "ping" => Step::Answer { body: reply.result(json!({})), new_session: false },
        "tools/list" => Step::ListTools(reply),
        "tools/call" => return tool_call(params, reply),
        other => {
            return Err(fault(
                200,
                reply.id,
                codes::METHOD_NOT_FOUND,
                &format!("method {other:?} is not supported"),
                None,
            ));
        }
    })
}

/// `tools/call`: the tool's name, its arguments (an object, `{}` when absent) and the run it belongs to.
fn tool_call(params: &Value, reply: Reply) -> Result<Step, Fault> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(fault(200, reply.id, codes::INVALID_PARAMS, "tools/call needs params.name", None));
    };
    let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
    if !arguments.is_object() {
        return Err(fault(200, reply.id, codes::INVALID_PARAMS, "params.arguments must be an object", None));
    }
    let run_id = params.get("_meta").and_then(|m| m.get("mnote/runId")).and_then(Value::as_str).map(String::from);
    Ok(Step::CallTool { reply, name: name.to_string(), arguments, run_id })
}

/// Whether the request is stateless (it names a version in `_meta`), after checking that version.
fn stateless_version(id: &Value, params: &Value, header: Option<&str>) -> Result<bool, Fault> {
    let supported = || json!({"supported": supported_versions()});
    let in_meta = params.get("_meta").and_then(|m| m.get(META_VERSION)).and_then(Value::as_str);
    match (in_meta, header) {
        (Some(meta), Some(header)) if meta != header => Err(fault(
            400,
            id.clone(),
            codes::INVALID_REQUEST,
            "the MCP-Protocol-Version header and _meta disagree",
            Some(json!({"header": header, "meta": meta})),
        )),
        (Some(STATELESS_VERSION), _) => Ok(true),
        (Some(other), _) => Err(fault(
            400,
            id.clone(),
            codes::UNSUPPORTED_VERSION,
            "unsupported protocol version",
            Some(json!({"requested": other, "supported": [STATELESS_VERSION]})),
        )),
        (None, Some(STATELESS_VERSION)) => Ok(true),
        (None, Some(header)) if !SESSION_VERSIONS.contains(&header) => Err(fault(
            400,
            id.clone(),
            codes::INVALID_REQUEST,
            &format!("unsupported MCP-Protocol-Version {header:?}"),
            Some(supported()),
        )),
        (None, _) => Ok(false),
    }
}

fn supported_versions() -> Vec<&'static str> {
    let mut all = vec![STATELESS_VERSION];
    all.extend_from_slice(SESSION_VERSIONS);
    all
}

fn capabilities() -> Value {
    json!({"tools": {"listChanged": false}})
}

fn server_info() -> Value {
    json!({"name": SERVER_NAME, "title": "mnote page tools", "version": env!("CARGO_PKG_VERSION")})
}

/// The `initialize` result: the client's version when we speak it, else our newest session version.
fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
    let version = SESSION_VERSIONS.iter().find(|v| **v == asked).copied().unwrap_or(NEWEST_SESSION_VERSION);
    json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    })
}

/// The `server/discover` result (2026-07-28).
fn discover() -> Value {
    json!({
        "supportedVersions": supported_versions(),
        "capabilities": capabilities(),
        "instructions": INSTRUCTIONS,
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
    })
}

/// The `tools/list` result: core's MCP export of `manifest` (enabled tools only, `documentId` required in
/// every input schema: an MCP call is bound to no document), the very list the package's `mcpToolsList()`
/// gives for the same profile.
pub fn tools_list(reply: &Reply, manifest: &ManifestV1) -> Value {
    let mut result = json!({"tools": manifest::mcp_tools_list(manifest)});
    if reply.stateless
        && let Some(map) = result.as_object_mut()
    {
        // The list follows the profile, which may change at any time.
        map.insert("ttlMs".into(), json!(0));
        map.insert("cacheScope".into(), json!("private"));
    }
    reply.result(result)
}

/// The `tools/call` result for a tool's answer, in core's one shape ([`call_result`]).
pub fn call_answer(reply: &Reply, answer_json: &str) -> Value {
    reply.result(call_result::call_result(answer_json, Outcome::Answered, call_result::TEXT_CAP_DEFAULT))
}

/// The `tools/call` result for a call refused or failed with `error`: its coded body, naming the request.
/// A refusal is an ordinary result, a server fault a tool error (core's [`call_result::is_tool_error`]).
pub fn call_error(reply: &Reply, error: &Error, trace_id: &str, request_id: &str) -> Value {
    call_body(reply, ErrorBody::new(error, trace_id), request_id)
}

/// The `tools/call` result for a coded body another part built (the document's object), stamped with the
/// request; `None` when `body` is not a coded error body.
pub fn call_relayed(reply: &Reply, body: &str, request_id: &str) -> Option<Value> {
    let body: ErrorBody = serde_json::from_str(body).ok()?;
    Some(call_body(reply, body, request_id))
}

fn call_body(reply: &Reply, body: ErrorBody, request_id: &str) -> Value {
    let code = ErrorCode::parse(&body.code).unwrap_or(ErrorCode::StorageFailed);
    let text = serde_json::to_string(&body.for_request(request_id)).unwrap_or_default();
    reply.result(call_result::call_result(&text, Outcome::Failed(code), call_result::TEXT_CAP_DEFAULT))
}

/// The JSON-RPC error for a server fault outside a tool call (`tools/list`), with the coded body as data.
pub fn internal_error(reply: &Reply, error: &Error, trace_id: &str, request_id: &str) -> Value {
    let body = ErrorBody::new(error, trace_id).for_request(request_id);
    reply.error(codes::INTERNAL_ERROR, "Internal error", Some(json!(body)))
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
