//! The one place a core [`Error`] becomes an HTTP response.
//!
//! Core owns the codes, messages and hints; this module only picks the status for each code and writes
//! the shared body, `{ok:false, code, message, hint, details, traceId}`. Internal failures are logged here
//! with their detail and answered with a generic `mnote_storage_failed`, so no stack trace, binding name
//! or secret ever reaches a client.

use std::fmt::Display;

use pageai_core::Error;
use pageai_core::error::ErrorCode;
use pageai_core::wire::ErrorBody;
use worker::{Headers, Response};

/// Response header that carries the trace id on every answer.
pub const TRACE_HEADER: &str = "x-trace-id";

/// Why a handler did not produce its normal answer.
#[derive(Debug)]
pub enum Failure {
    /// A core error, turned into a coded response by [`failure_response`].
    Core(Error),
    /// A finished error response from a Durable Object, passed through unchanged: the object already
    /// built it with [`error_response`], so re-encoding it would only risk drift.
    Relayed(Response),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Core(error)
    }
}

/// The response for a failed request.
pub fn failure_response(failure: Failure, trace_id: &str) -> worker::Result<Response> {
    match failure {
        Failure::Core(error) => error_response(&error, trace_id),
        Failure::Relayed(response) => Ok(response),
    }
}

/// The HTTP status for an error code.
pub fn status_of(code: ErrorCode) -> u16 {
    use ErrorCode as C;
    match code {
        C::DocumentNotFound | C::RouteNotFound | C::BlockNotFound | C::ContextNotFound | C::ReviewSessionNotFound => {
            404
        }
        C::PayloadTooLarge => 413,
        C::MethodNotAllowed => 405,
        C::Unauthorized => 401,
        C::ForbiddenOrigin | C::ScopeDenied | C::ToolDisabled | C::DocumentReadOnly => 403,
        C::HermesUnauthorized => 401,
        C::HermesUpstreamRateLimited => 429,
        // The upstream failed, not the caller: never a 4xx (STYLE.md).
        C::HermesUpstreamUnauthorized | C::HermesUpstreamUnavailable => 502,
        C::HermesUnconfigured => 503,
        C::RevisionConflict
        | C::ContextStale
        | C::IdempotencyConflict
        | C::ReviewRequired
        | C::ReviewInvalidTransition
        | C::RevertConflict => 409,
        // A broken audit chain is stored data gone bad, not a fault in the request.
        C::StorageFailed | C::AuditChainBroken => 500,
        // Everything else is a fault in what the caller sent (including out-of-scope targets, SPEC §5, and
        // unknown tool names). Codes added to core later land here until they are mapped.
        _ => 400,
    }
}

/// The coded JSON response for `error`, tagged with `trace_id` in the body and the header.
pub fn error_response(error: &Error, trace_id: &str) -> worker::Result<Response> {
    let body = ErrorBody::new(error, trace_id);
    let headers = Headers::new();
    headers.set("content-type", "application/json; charset=utf-8")?;
    headers.set("cache-control", "no-store")?;
    headers.set(TRACE_HEADER, trace_id)?;
    Ok(Response::from_json(&body)?.with_status(status_of(error.code())).with_headers(headers))
}

/// Logs an internal failure with its detail and returns the generic error a client may see.
///
/// `what` names the step that failed ("load page", "call document object"); `detail` is the runtime's
/// own message, which stays in the log.
pub fn internal(what: &str, detail: impl Display, trace_id: &str) -> Error {
    worker::console_error!("[{trace_id}] {what} failed: {detail}");
    Error::StorageFailed
}

/// Maps a runtime failure (`worker::Error`) to the generic client error, logging its detail.
pub trait OrInternal<T> {
    /// See [`internal`].
    fn or_internal(self, what: &str, trace_id: &str) -> Result<T, Error>;
}

impl<T, E: Display> OrInternal<T> for Result<T, E> {
    fn or_internal(self, what: &str, trace_id: &str) -> Result<T, Error> {
        self.map_err(|e| internal(what, e, trace_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_deliberate_status() {
        for &code in ErrorCode::ALL {
            let status = status_of(code);
            assert!(
                matches!(status, 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 500 | 502 | 503),
                "{code}: {status}"
            );
        }
        assert_eq!(status_of(ErrorCode::DocumentNotFound), 404);
        assert_eq!(status_of(ErrorCode::RouteNotFound), 404);
        assert_eq!(status_of(ErrorCode::PayloadTooLarge), 413);
        assert_eq!(status_of(ErrorCode::InvalidArguments), 400);
        assert_eq!(status_of(ErrorCode::InvalidBody), 400);
        assert_eq!(status_of(ErrorCode::BlockTargetOutOfScope), 400);
        assert_eq!(status_of(ErrorCode::MethodNotAllowed), 405);
        assert_eq!(status_of(ErrorCode::StorageFailed), 500);
        assert_eq!(status_of(ErrorCode::ReviewSessionNotFound), 404);
        assert_eq!(status_of(ErrorCode::RevertConflict), 409);
    }
}
