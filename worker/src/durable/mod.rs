//! Durable Object classes, one module per class, and the one way a route (or an object) calls an object.
//!
//! Each class's module has its object, its typed command enum and its client: `document` (one object per
//! document: the page and its tables) and `profile` (one object: the page-AI profile, pushed to every
//! document object that holds a copy).

pub mod document;
pub mod guard;
pub mod profile;

use serde::Serialize;
use worker::{Headers, Method, Request, RequestInit, Stub};

use crate::error::{Failure, OrInternal, TRACE_HEADER};

/// The header a document object reports a command's storage cost in: the rows its SQL layer saw written
/// (`cursor.rowsWritten`, index entries included). The front passes it on with the command's answer.
pub const ROWS_WRITTEN_HEADER: &str = "x-mnote-rows-written";

/// The header a document object names its live channel's position in: the last `seq` stored before the
/// command ran, so everything its answer shows is at or after that message. A client that reads a page and
/// its panels resumes the channel from the oldest of their positions (`?after=`) and misses nothing committed
/// between the reads, in whatever order they were answered. The front passes it on with a read's answer.
pub const LIVE_SEQ_HEADER: &str = "x-mnote-live-seq";

/// An object's answer: its JSON text, and the rows it reports written and its live position, when it
/// reports them.
#[derive(Debug)]
pub struct ObjectAnswer {
    /// The JSON text.
    pub json: String,
    /// The [`ROWS_WRITTEN_HEADER`] value, as sent.
    pub rows_written: Option<String>,
    /// The [`LIVE_SEQ_HEADER`] value, as sent (document objects only).
    pub live_seq: Option<String>,
}

/// Sends `command` to the object behind `stub` as JSON (with the request's trace id) and answers the
/// object's JSON text. A coded error from the object comes back as [`Failure::Relayed`], ready to return to
/// the client. `object` names it in internal errors ("document", "profile").
pub(crate) async fn call_object(
    stub: &Stub,
    object: &str,
    command: &impl Serialize,
    trace_id: &str,
) -> Result<ObjectAnswer, Failure> {
    call_object_as(stub, object, command, None, trace_id).await
}

/// [`call_object`], with who is asking in [`document::access::CALLER_HEADER`] (a person's command to a
/// document object).
pub(crate) async fn call_object_as(
    stub: &Stub,
    object: &str,
    command: &impl Serialize,
    caller: Option<&str>,
    trace_id: &str,
) -> Result<ObjectAnswer, Failure> {
    let body = serde_json::to_string(command).or_internal(&format!("encode {object} command"), trace_id)?;
    let headers = Headers::new();
    headers.set(TRACE_HEADER, trace_id).or_internal("set trace header", trace_id)?;
    if let Some(caller) = caller {
        headers.set(document::access::CALLER_HEADER, caller).or_internal("set caller header", trace_id)?;
    }
    headers.set("content-type", "application/json").or_internal("set content type", trace_id)?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post).with_headers(headers).with_body(Some(body.into()));
    // The host is never resolved: a stub delivers the request straight to the object.
    let request =
        Request::new_with_init(&format!("https://{object}.internal/"), &init).or_internal("build request", trace_id)?;
    let mut response =
        stub.fetch_with_request(request).await.or_internal(&format!("call {object} object"), trace_id)?;
    if response.status_code() != 200 {
        return Err(Failure::Relayed(response));
    }
    let rows_written = response.headers().get(ROWS_WRITTEN_HEADER).ok().flatten();
    let live_seq = response.headers().get(LIVE_SEQ_HEADER).ok().flatten();
    let json = response.text().await.or_internal(&format!("read {object} object answer"), trace_id)?;
    Ok(ObjectAnswer { json, rows_written, live_seq })
}
