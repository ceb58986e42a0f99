//! The two ids every request carries, and what the answer says of them.
//!
//! - The **trace id** follows one piece of work across calls (the browser, the Worker, its Durable
//!   Objects, Hermes). A caller may choose it: the `x-trace-id` header wins, then a top-level `traceId` in
//!   a JSON body (as the seed's 7-5 examples send it), else the Worker mints `tr_…`. It is echoed in every
//!   body and forwarded to Hermes.
//! - The **request id** (`req_…`) names one HTTP request and is always minted here. Every answer carries
//!   it in `x-request-id`, every error body as `requestId`, and the Worker's one log line per request
//!   names it, so a person quoting an error can be found in the logs.

use pageai_core::wire::ErrorBody;
use serde::Deserialize;
use worker::{Headers, Method, Request, RequestInit, Response};

use crate::error::{OrInternal, TRACE_HEADER};
use crate::http::{RequestContext, read_body};
use crate::ids;
use crate::routes::Route;
use pageai_core::Error;

/// Response header that carries the request id on every answer.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The trace id of a JSON body, when it has one at the top level.
#[derive(Deserialize)]
struct BodyTrace {
    #[serde(rename = "traceId")]
    trace_id: Option<String>,
}

/// Whether a body `traceId` is looked for: a JSON body on a route whose bodies carry one. `/mcp` speaks
/// JSON-RPC, whose envelope has no trace id.
fn may_carry_trace(req: &Request, route: &Route) -> bool {
    let writes = matches!(req.method(), Method::Post | Method::Put | Method::Patch);
    let json = req
        .headers()
        .get("content-type")
        .ok()
        .flatten()
        .is_some_and(|content_type| content_type.to_ascii_lowercase().starts_with("application/json"));
    writes && json && *route != Route::Mcp
}

/// When the caller sent no usable `x-trace-id`, adopts a sane top-level `traceId` from its JSON body.
///
/// The body is read once here, within the Worker's body limit, and handed on to the handler unchanged in a
/// new request, which reads it as it would have read the original. A body that is not JSON, or names no
/// trace, leaves the minted trace id; the handler then reports the body's own faults.
pub async fn adopt_body_trace(
    mut req: Request,
    route: &Route,
    header_trace: bool,
    ctx: &mut RequestContext,
) -> Result<Request, Error> {
    if header_trace || !may_carry_trace(&req, route) {
        return Ok(req);
    }
    let bytes = read_body(&mut req, ctx.config.max_body_bytes, &ctx.trace_id).await?;
    if let Ok(BodyTrace { trace_id: Some(given) }) = serde_json::from_slice::<BodyTrace>(&bytes)
        && let Some(trace_id) = ids::given_trace_id(Some(&given))
    {
        ctx.trace_id = trace_id;
    }
    let headers = Headers::new();
    for (name, value) in req.headers().entries() {
        headers.append(&name, &value).or_internal("copy request header", &ctx.trace_id)?;
    }
    // The handlers and the Durable Objects read the trace from the header, so it travels with the request.
    headers.set(TRACE_HEADER, &ctx.trace_id).or_internal("set trace header", &ctx.trace_id)?;
    let mut init = RequestInit::new();
    init.with_method(req.method()).with_headers(headers);
    if !bytes.is_empty() {
        init.with_body(Some(js_sys::Uint8Array::from(bytes.as_slice()).into()));
    }
    let url = req.url().or_internal("parse request URL", &ctx.trace_id)?;
    Request::new_with_init(url.as_str(), &init).or_internal("rebuild request", &ctx.trace_id)
}

/// `response` with the request id: in the `x-request-id` header always, and in the body of a coded error
/// (whoever built it: the front, a Durable Object, the MCP challenge).
pub async fn stamp(mut response: Response, ctx: &RequestContext) -> worker::Result<Response> {
    let status = response.status_code();
    let headers = Headers::new();
    for (name, value) in response.headers().entries() {
        headers.append(&name, &value)?;
    }
    headers.set(REQUEST_ID_HEADER, &ctx.request_id)?;
    let json = headers.get("content-type")?.is_some_and(|content_type| content_type.contains("application/json"));
    if status < 400 || !json {
        return Ok(response.with_headers(headers));
    }
    let text = response.text().await?;
    let body = match serde_json::from_str::<ErrorBody>(&text) {
        Ok(body) => serde_json::to_string(&body.for_request(ctx.request_id.clone()))?,
        // Not a coded error body (none is built that way); passed on as it came.
        Err(_) => text,
    };
    Ok(Response::ok(body)?.with_status(status).with_headers(headers))
}

/// The Worker's one log line for a request: both ids, the method, the path (never the query, which may
/// hold a document's text) and the status.
pub fn log_line(method: &Method, path: &str, status: u16, ctx: &RequestContext) {
    worker::console_log!("[{}] {} {method} {path} -> {status}", ctx.trace_id, ctx.request_id);
}
