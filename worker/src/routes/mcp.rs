//! `POST /mcp`: the MCP endpoint (Streamable HTTP, JSON-RPC 2.0, answered as `application/json`) over the
//! same executor as the tool route. `GET /mcp` (a server-sent stream) is 405: the server never pushes.
//!
//! Before any JSON-RPC: an `Origin`, when present, must be the endpoint's own (DNS-rebinding defence), and
//! the caller needs the tool token. The protocol itself is [`crate::services::mcp`]; this handler adds the
//! profile (for `tools/list`: the implicit workspace's, the tool token's own, read from its profile object)
//! and the document's object (for `tools/call`, picked by the arguments' `documentId`, which runs the call
//! under its own copy of its workspace's profile). A `tools/call` answer carries the object's
//! `x-mnote-rows-written` header, as the tool route's does.

use pageai_core::Error;
use pageai_core::manifest;
use pageai_core::page::Permission;
use serde_json::Value;
use worker::{Headers, Request, Response};

use crate::auth;
use crate::config::DEFAULT_WORKSPACE_ID;
use crate::durable::ROWS_WRITTEN_HEADER;
use crate::durable::document::{Answered, DocumentClient, DocumentCommand, pass_rows};
use crate::durable::profile::ProfileClient;
use crate::error::{Failure, OrInternal, TRACE_HEADER};
use crate::http::{RequestContext, read_body};
use crate::ids;
use crate::services::mcp::{self, Reply, Step};
use crate::services::tool_calls::{ToolCallRequest, ToolReply, document_of};
use pageai_core::executor::{Origin, SentCall};

/// The header that carries the session id minted at `initialize`.
const SESSION_HEADER: &str = "mcp-session-id";

/// The coded 401 for a missing or wrong tool token, with the `WWW-Authenticate: Bearer` challenge that
/// RFC 6750 (and the MCP authorization section) asks of a protected resource.
fn bearer_challenge(error: &Error, trace_id: &str) -> worker::Result<Response> {
    let mut response = crate::error::error_response(error, trace_id)?;
    response.headers_mut().set("www-authenticate", "Bearer realm=\"mnote-mcp\"")?;
    Ok(response)
}

/// Answers one JSON-RPC message.
pub async fn post(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    auth::check_tool_origin(&req, ctx)?;
    if let Err(error) = auth::require_tool_token(&req, &ctx.env) {
        return Ok(bearer_challenge(&error, &ctx.trace_id).or_internal("answer 401", &ctx.trace_id)?);
    }
    let bytes = read_body(&mut req, ctx.config.max_body_bytes, &ctx.trace_id).await?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(e) => {
            let fault = mcp::parse_error(&format!("not UTF-8: invalid byte at offset {}", e.valid_up_to()))
                .stamped(&ctx.trace_id, &ctx.request_id);
            return Ok(rpc(fault.status, &fault.body, None, &ctx.trace_id)?);
        }
    };
    let header_version = req.headers().get("mcp-protocol-version").ok().flatten();
    let step = match mcp::plan(text, header_version.as_deref()) {
        Ok(step) => step,
        Err(fault) => {
            let fault = fault.stamped(&ctx.trace_id, &ctx.request_id);
            return Ok(rpc(fault.status, &fault.body, None, &ctx.trace_id)?);
        }
    };
    let (body, rows_written) = match step {
        Step::Accepted => return Ok(accepted(&ctx.trace_id)?),
        Step::Answer { body, new_session } => {
            let session = if new_session { Some(ids::opaque(ids::Kind::McpSession)?) } else { None };
            return Ok(rpc(200, &body, session.as_deref(), &ctx.trace_id)?);
        }
        Step::ListTools(reply) => (list_tools(&reply, ctx).await?, None),
        Step::CallTool { reply, name, arguments, run_id } => call_tool(&reply, name, arguments, run_id, ctx).await,
    };
    Ok(pass_rows(rows_written.as_deref(), rpc(200, &body, None, &ctx.trace_id)?, &ctx.trace_id)?)
}

/// `tools/list`: the manifest under the implicit workspace's profile. The tool token names no person, so
/// no other workspace; a call on a page of another workspace is still guarded by that page's own copy.
async fn list_tools(reply: &Reply, ctx: &RequestContext) -> Result<Value, Error> {
    let client = ProfileClient::new(&ctx.env, DEFAULT_WORKSPACE_ID, &ctx.trace_id)?;
    Ok(match client.get(&ctx.trace_id).await {
        Ok(profile) => mcp::tools_list(reply, &manifest::manifest(&profile, None, Permission::Edit)),
        Err(failure) => {
            let error = match failure {
                Failure::Core(error) => error,
                Failure::Relayed(_) => crate::error::internal("read the profile", "a relayed answer", &ctx.trace_id),
            };
            mcp::internal_error(reply, &error, &ctx.trace_id, &ctx.request_id)
        }
    })
}

/// `tools/call` on the document's object: the JSON-RPC answer, and the rows the object reports written.
async fn call_tool(
    reply: &Reply,
    name: String,
    arguments: Value,
    run_id: Option<String>,
    ctx: &RequestContext,
) -> (Value, Option<String>) {
    // The call's one parse at this edge; the document's object parses it again at its door, the same way.
    let sent = SentCall::parse(name, arguments);
    let document_id = match document_of(&sent, "") {
        Ok(id) => id,
        Err(error) => return (mcp::call_error(reply, &error, &ctx.trace_id, &ctx.request_id), None),
    };
    let run_id =
        run_id.filter(|r| ids::is_sane_trace_id(r)).unwrap_or_else(|| crate::durable::document::MCP_RUN.to_string());
    let sent = async {
        let call = ToolCallRequest {
            call: sent,
            run_id,
            tool_call_id: ids::opaque(ids::Kind::McpToolCall)?,
            trace_id: ctx.trace_id.clone(),
            origin: Origin::Hermes,
        };
        let client = DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?;
        // The object runs the call under its own copy of the profile: one round trip.
        client.call::<ToolReply>(&DocumentCommand::CallTool { document_id, call }, &ctx.trace_id).await
    };
    match sent.await {
        Ok(Answered { value: tool, rows_written, .. }) => (mcp::call_answer(reply, tool.result.get()), rows_written),
        Err(failure) => fault_of(reply, failure, ctx).await,
    }
}

/// A failed call as the model should see it, in core's result shape: a refusal as an ordinary result, a
/// server fault as a tool error, both carrying the coded body (with this request's id). With the rows an
/// object's refusal reports written.
async fn fault_of(reply: &Reply, failure: Failure, ctx: &RequestContext) -> (Value, Option<String>) {
    let (trace_id, request_id) = (ctx.trace_id.as_str(), ctx.request_id.as_str());
    match failure {
        Failure::Core(error) => (mcp::call_error(reply, &error, trace_id, request_id), None),
        Failure::Relayed(mut response) => {
            let rows_written = response.headers().get(ROWS_WRITTEN_HEADER).ok().flatten();
            let body = match response.text().await {
                Ok(body) => mcp::call_relayed(reply, &body, request_id).unwrap_or_else(|| {
                    let error = crate::error::internal("read document object answer", "not a coded body", trace_id);
                    mcp::call_error(reply, &error, trace_id, request_id)
                }),
                Err(e) => {
                    let error = crate::error::internal("read document object answer", e, trace_id);
                    mcp::call_error(reply, &error, trace_id, request_id)
                }
            };
            (body, rows_written)
        }
    }
}

fn rpc(status: u16, body: &Value, session: Option<&str>, trace_id: &str) -> Result<Response, Error> {
    let headers = Headers::new();
    let set = |name: &str, value: &str| headers.set(name, value).or_internal("set response header", trace_id);
    set("content-type", "application/json")?;
    set("cache-control", "no-store")?;
    set(TRACE_HEADER, trace_id)?;
    if let Some(session) = session {
        set(SESSION_HEADER, session)?;
    }
    let response = Response::from_json(body).or_internal("encode JSON-RPC response", trace_id)?;
    Ok(response.with_status(status).with_headers(headers))
}

fn accepted(trace_id: &str) -> Result<Response, Error> {
    let headers = Headers::new();
    headers.set(TRACE_HEADER, trace_id).or_internal("set response header", trace_id)?;
    let response = Response::empty().or_internal("build 202", trace_id)?;
    Ok(response.with_status(202).with_headers(headers))
}
