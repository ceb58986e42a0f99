//! `GET /health`: liveness, the one route that will stay open without auth (SPEC §10).

use pageai_core::Error;
use serde::Serialize;
use worker::Response;

use crate::http::{RequestContext, json_response};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Health<'a> {
    ok: bool,
    trace_id: &'a str,
}

/// Answers `{ok:true, traceId}`. It touches no binding, so it stays cheap and says only that the Worker runs.
pub fn get(ctx: &RequestContext) -> Result<Response, Error> {
    json_response(&Health { ok: true, trace_id: &ctx.trace_id }, &ctx.trace_id)
}
