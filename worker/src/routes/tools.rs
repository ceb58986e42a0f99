//! `POST /api/hermes/tools/mnote/call`: the plain tool-call route, over the same executor as `/mcp`.
//!
//! Body: `{toolName, args, runId?, toolCallId, traceId}`, unknown fields refused. `args.documentId` picks
//! the document's object, which runs the call as origin `hermes` under its copy of the stored profile
//! ([`crate::services::tool_calls`]): one Durable Object round trip. The answer carries the object's
//! `x-mnote-rows-written` header. Authenticated with `MNOTE_TOOL_TOKEN` only; a browser cookie is
//! refused.
//!
//! Answer: `{ok:true, toolName, toolCallId, runId, traceId, result, reviewSession?}`, where `result` is the
//! tool's own JSON (a context, a search result or a `mnote.tool_result.v1`), byte for byte what an
//! idempotent replay returns. A failed call is the coded error with its HTTP status (e.g. 409
//! `mnote_revision_conflict`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use worker::{Request, Response};

use crate::auth;
use crate::durable::document::{Answered, DocumentClient, DocumentCommand, pass_rows};
use crate::error::Failure;
use crate::http::{RequestContext, json_response, read_json};
use crate::ids;
use crate::services::tool_calls::{SessionRef, ToolCallRequest, ToolReply, document_of};
use pageai_core::Error;
use pageai_core::executor::{Origin, SentCall};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ToolCallBody {
    tool_name: String,
    args: Value,
    #[serde(default)]
    run_id: Option<String>,
    tool_call_id: String,
    trace_id: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolCallAnswer {
    ok: bool,
    tool_name: String,
    tool_call_id: String,
    run_id: String,
    trace_id: String,
    result: Box<RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    review_session: Option<SessionRef>,
}

/// Runs one tool call.
pub async fn call(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    auth::require_tool_token(&req, &ctx.env)?;
    // As on /mcp: a page in a browser (a rebound name, a foreign site) that somehow holds the token is
    // refused by its Origin; Hermes and scripts send none.
    auth::check_tool_origin(&req, ctx)?;
    let body: ToolCallBody = read_json(&mut req, ctx).await?;
    for (pointer, id) in [
        ("/toolCallId", Some(&body.tool_call_id)),
        ("/traceId", Some(&body.trace_id)),
        ("/runId", body.run_id.as_ref()),
    ] {
        if let Some(id) = id
            && !ids::is_sane_trace_id(id)
        {
            return Err(Error::invalid(pointer, "1 to 128 characters from A-Z, a-z, 0-9, '_', '-', '.', ':'").into());
        }
    }
    // The call's one parse at this edge; the document's object parses it again at its door, the same way.
    let sent = SentCall::parse(body.tool_name, body.args);
    let document_id = document_of(&sent, "/args")?;
    let run_id = match body.run_id {
        Some(run) => run,
        None => ids::opaque(ids::Kind::Run)?,
    };
    let call = ToolCallRequest {
        call: sent,
        run_id: run_id.clone(),
        tool_call_id: body.tool_call_id.clone(),
        trace_id: body.trace_id.clone(),
        origin: Origin::Hermes,
    };
    let client = DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?;
    // The object runs the call under its own copy of the profile: one round trip.
    let Answered { value: reply, rows_written, .. } =
        client.call::<ToolReply>(&DocumentCommand::CallTool { document_id, call }, &body.trace_id).await?;
    let answer = ToolCallAnswer {
        ok: true,
        tool_name: reply.tool_name,
        tool_call_id: body.tool_call_id,
        run_id,
        trace_id: body.trace_id,
        result: reply.result,
        review_session: reply.review_session,
    };
    Ok(pass_rows(rows_written.as_deref(), json_response(&answer, &answer.trace_id)?, &answer.trace_id)?)
}
