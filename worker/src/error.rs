//! The one place a core [`Error`] becomes an HTTP response.
//!
//! Core owns the codes, messages and hints; this module only picks the status for each code and writes
//! the shared body, `{ok:false, code, message, hint, details, traceId}`. Internal failures are logged here
//! with their detail and answered with a generic `mnote_storage_failed`, so no stack trace, binding name
//! or secret ever reaches a client.

use std::fmt::Display;

use pageai_core::Error;
use pageai_core::error::{ErrorCode, Status};
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

/// The HTTP status for an error code: the number of its status class (core's code table gives every code
/// one, on the code's own line).
pub fn status_of(code: ErrorCode) -> u16 {
    match code.status() {
        Status::BadRequest => 400,
        Status::Unauthorized => 401,
        Status::Forbidden => 403,
        Status::NotFound => 404,
        Status::MethodNotAllowed => 405,
        Status::Conflict => 409,
        Status::PayloadTooLarge => 413,
        Status::TooManyRequests => 429,
        Status::Internal => 500,
        // The upstream failed, not the caller: never a 4xx (STYLE.md). Timeouts get 504 in `status_for`.
        Status::BadGateway => 502,
        Status::Unavailable => 503,
    }
}

/// The HTTP status for one error: its code's status, except that an upstream timeout is a 504.
pub fn status_for(error: &Error) -> u16 {
    match error {
        Error::HermesUpstreamUnavailable { timed_out: true, .. } => 504,
        other => status_of(other.code()),
    }
}

/// The WebSocket close code a live socket is closed with for `error`: 4000 plus its HTTP status (4429 for
/// `mnote_live_socket_limit`, 4413 for `mnote_live_message_too_large`), in the range RFC 6455 leaves to
/// applications, so a client reads the same class it would from an HTTP answer.
pub fn close_code_for(error: &Error) -> u16 {
    4000 + status_for(error)
}

/// Headers an error adds besides the body: Hermes' `Retry-After`, passed through, and the wait of a
/// client with too many failed sign-ins.
pub fn extra_headers(error: &Error) -> Vec<(&'static str, String)> {
    match error {
        Error::HermesUpstreamRateLimited { retry_after: Some(after) } => vec![("retry-after", after.clone())],
        Error::TooManyAttempts { retry_after_seconds } => vec![("retry-after", retry_after_seconds.to_string())],
        _ => Vec::new(),
    }
}

/// The coded JSON response for `error`, tagged with `trace_id` in the body and the header.
pub fn error_response(error: &Error, trace_id: &str) -> worker::Result<Response> {
    let body = ErrorBody::new(error, trace_id);
    let headers = Headers::new();
    headers.set("content-type", "application/json; charset=utf-8")?;
    headers.set("cache-control", "no-store")?;
    headers.set(TRACE_HEADER, trace_id)?;
    for (name, value) in extra_headers(error) {
        headers.set(name, &value)?;
    }
    Ok(Response::from_json(&body)?.with_status(status_for(error)).with_headers(headers))
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

    /// Every code with the status an HTTP client relies on, written out by hand: a code added to core
    /// without a line here fails, and so does a class that changes a code's number.
    #[test]
    fn every_code_has_its_status() {
        use ErrorCode as C;
        let table = [
            (C::InvalidArguments, 400),
            (C::RevisionConflict, 409),
            (C::BlockNotFound, 404),
            (C::BlockTargetOutOfScope, 400),
            (C::BlockNotEditable, 400),
            (C::MatchNotFound, 400),
            (C::MatchAmbiguous, 400),
            (C::ToolDisabled, 403),
            (C::ScopeDenied, 403),
            (C::ReviewRequired, 409),
            (C::IdempotencyConflict, 409),
            (C::ContextStale, 409),
            (C::DocumentNotFound, 404),
            (C::DocumentReadOnly, 403),
            (C::InvalidPage, 400),
            (C::InvalidMarkdown, 400),
            (C::UnsupportedSchema, 400),
            (C::PayloadTooLarge, 413),
            (C::InvalidBody, 400),
            (C::Unauthorized, 401),
            (C::ForbiddenOrigin, 403),
            (C::RouteNotFound, 404),
            (C::MethodNotAllowed, 405),
            (C::StorageFailed, 500),
            (C::UnknownTool, 400),
            (C::ContextNotFound, 404),
            (C::ReviewInvalidTransition, 409),
            (C::RevertConflict, 409),
            (C::ReviewSessionNotFound, 404),
            (C::AuditChainBroken, 500),
            (C::HermesUnauthorized, 401),
            (C::HermesUnconfigured, 503),
            (C::HermesBadRequest, 400),
            (C::HermesUpstreamUnauthorized, 502),
            (C::HermesUpstreamRateLimited, 429),
            (C::HermesUpstreamUnavailable, 502),
            (C::LiveSocketLimit, 429),
            (C::LiveMessageTooLarge, 413),
            (C::LiveResync, 409),
            (C::TooManyAttempts, 429),
            (C::RoleForbidden, 403),
            (C::ContextRequired, 400),
            (C::StoredTooLarge, 413),
            (C::WorkspaceNotFound, 404),
            (C::PageTooLarge, 413),
            (C::LiveSessionEnded, 401),
            (C::BlockTooLarge, 413),
            (C::LiveRoleChanged, 403),
            (C::RunNotFound, 404),
            (C::RunNothingToUndo, 409),
            (C::RunAlreadyUndone, 409),
            (C::RunUndoStale, 409),
        ];
        let codes: Vec<ErrorCode> = table.iter().map(|(code, _)| *code).collect();
        assert_eq!(codes, ErrorCode::ALL, "one line per code, in the table's order");
        for (code, status) in table {
            assert_eq!(status_of(code), status, "{code}");
        }
    }

    #[test]
    fn hermes_codes_map_as_the_contract_says() {
        let unavailable = |timed_out| Error::HermesUpstreamUnavailable { reason: "x".into(), status: None, timed_out };
        let cases = [
            (Error::HermesUnauthorized, 401),
            (Error::Unauthorized, 401),
            (Error::HermesUnconfigured, 503),
            (Error::HermesBadRequest { pointer: "/message".into(), reason: "empty".into() }, 400),
            (Error::HermesUpstreamUnauthorized { status: 403 }, 502),
            (Error::HermesUpstreamRateLimited { retry_after: None }, 429),
            (unavailable(false), 502),
            (unavailable(true), 504),
            (Error::ForbiddenOrigin { origin: "https://evil.example".into() }, 403),
        ];
        for (error, status) in cases {
            assert_eq!(status_for(&error), status, "{error}");
        }
    }

    #[test]
    fn retry_after_is_passed_through() {
        let limited = Error::HermesUpstreamRateLimited { retry_after: Some("7".into()) };
        assert_eq!(extra_headers(&limited), [("retry-after", "7".to_string())]);
        assert!(extra_headers(&Error::HermesUpstreamRateLimited { retry_after: None }).is_empty());
        assert!(extra_headers(&Error::HermesUnconfigured).is_empty());
        let locked = Error::TooManyAttempts { retry_after_seconds: 4 };
        assert_eq!(extra_headers(&locked), [("retry-after", "4".to_string())]);
        assert_eq!(status_for(&locked), 429);
    }
}
