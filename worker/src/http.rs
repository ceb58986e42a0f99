//! What every handler shares, and what services and objects may use without reaching into `routes/`: the
//! per-request context, capped body and query reading, and success responses carrying the trace header.
//! Error responses are built in one place, [`crate::error`].

use futures_util::StreamExt;
use pageai_core::Error;
use serde::Serialize;
use worker::{Env, Headers, Request, Response};

use crate::config::Config;
use crate::error::{OrInternal, TRACE_HEADER};

/// Everything a handler needs besides the request itself.
#[derive(Debug)]
pub struct RequestContext {
    /// The Worker's bindings.
    pub env: Env,
    /// Settings read from the environment.
    pub config: Config,
    /// Echoed in every body and in the `x-trace-id` header; the caller's, or minted ([`crate::correlation`]).
    pub trace_id: String,
    /// This request's own id, on its answer and its log line ([`crate::correlation`]).
    pub request_id: String,
    /// Who is asking, once [`crate::routes::authorize`] has checked the credential (`None` on open routes,
    /// the sign-in routes and the tool routes, which authenticate Hermes, not a person).
    pub caller: Option<crate::identity::Principal>,
}

impl RequestContext {
    /// The signed-in caller; a route that needs one and runs without is a wiring fault, answered 401.
    pub fn principal(&self) -> Result<&crate::identity::Principal, Error> {
        self.caller.as_ref().ok_or(Error::Unauthorized)
    }
}

/// A `200` JSON response carrying the trace header.
pub fn json_response<T: Serialize>(value: &T, trace_id: &str) -> Result<Response, Error> {
    let response = Response::from_json(value).or_internal("encode response", trace_id)?;
    with_headers(response, "application/json; charset=utf-8", trace_id)
}

/// A `200` response whose body is JSON already encoded (a Durable Object's answer, passed through).
pub fn raw_json_response(json: String, trace_id: &str) -> Result<Response, Error> {
    text_response(json, "application/json; charset=utf-8", trace_id)
}

/// Reads a capped UTF-8 JSON body into `T`; a bad field is named by JSON pointer.
pub async fn read_json<T: serde::de::DeserializeOwned>(req: &mut Request, ctx: &RequestContext) -> Result<T, Error> {
    let bytes = read_body(req, ctx.config.max_body_bytes, &ctx.trace_id).await?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| Error::InvalidBody { reason: format!("not UTF-8: invalid byte at offset {}", e.valid_up_to()) })?;
    pageai_core::wire::from_json_serde(text)
}

/// A numeric query parameter, `default` when absent, refused when not a number in `0..=max`.
pub fn query_number(req: &Request, name: &str, default: u64, max: u64, trace_id: &str) -> Result<u64, Error> {
    match query(req, name, trace_id)? {
        None => Ok(default),
        Some(value) => match value.parse::<u64>() {
            Ok(n) if n <= max => Ok(n),
            _ => Err(Error::invalid(format!("/{name}"), format!("a number from 0 to {max}"))),
        },
    }
}

/// A query parameter, if present.
pub fn query(req: &Request, name: &str, trace_id: &str) -> Result<Option<String>, Error> {
    let url = req.url().or_internal("parse request URL", trace_id)?;
    Ok(url.query_pairs().find(|(n, _)| n == name).map(|(_, v)| v.into_owned()))
}

/// A `200` text response of the given content type, carrying the trace header.
pub fn text_response(body: String, content_type: &str, trace_id: &str) -> Result<Response, Error> {
    let response = Response::ok(body).or_internal("encode response", trace_id)?;
    with_headers(response, content_type, trace_id)
}

fn with_headers(response: Response, content_type: &str, trace_id: &str) -> Result<Response, Error> {
    let headers = Headers::new();
    let set = |name: &str, value: &str| headers.set(name, value).or_internal("set response header", trace_id);
    set("content-type", content_type)?;
    // Pages change with every write; a cached copy would hide a newer revision.
    set("cache-control", "no-store")?;
    set(TRACE_HEADER, trace_id)?;
    Ok(response.with_headers(headers))
}

/// How much of an oversized streamed body is read and discarded before answering 413.
///
/// A body left unread stalls the next requests under `wrangler dev` (its proxy keeps piping it; seen with
/// wrangler 4.86, for a 5 MiB chunked upload: the next request waited minutes), and cancelling the stream
/// does not help. Draining does. Cloudflare caps request bodies at 100 MB, so this bound is rarely met;
/// past it the stream is cancelled.
const DRAIN_LIMIT: usize = 100 * 1024 * 1024;

/// Reads the whole body, refusing more than `limit` bytes.
///
/// A declared `Content-Length` over the limit is refused before reading anything (the runtime discards a
/// body of known length itself). The count is checked again while streaming, because a chunked body
/// declares no length and a declared length may lie; an oversized stream is drained, not buffered.
pub async fn read_body(req: &mut Request, limit: usize, trace_id: &str) -> Result<Vec<u8>, Error> {
    let too_large = || Error::PayloadTooLarge { limit };
    let declared = req.headers().get("content-length").ok().flatten();
    if let Some(length) = declared.and_then(|v| v.trim().parse::<u64>().ok())
        && length > limit as u64
    {
        return Err(too_large());
    }
    if req.inner().body().is_none() {
        return Ok(Vec::new());
    }
    let mut stream = req.stream().or_internal("open request body", trace_id)?;
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.or_internal("read request body", trace_id)?;
        if body.len() + chunk.len() > limit {
            let mut unread = DRAIN_LIMIT;
            while let Some(Ok(chunk)) = stream.next().await {
                unread = unread.saturating_sub(chunk.len());
                if unread == 0 {
                    break;
                }
            }
            drop(stream);
            cancel_body(req).await;
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Tells the runtime the rest of a body past [`DRAIN_LIMIT`] is not wanted.
///
/// Dropping the reader only releases its lock.
async fn cancel_body(req: &Request) {
    if let Some(body) = req.inner().body() {
        // Best effort: the 413 is the answer either way.
        let _ = js_sys::futures::JsFuture::from(body.cancel()).await;
    }
}
