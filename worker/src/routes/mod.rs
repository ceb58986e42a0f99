//! HTTP routes: the typed route table, and what every handler shares (the per-request context, capped
//! body reading, success responses).
//!
//! [`Route::resolve`] is a pure function of method and path, so the whole route table is unit-tested
//! without a runtime. Handlers live in one file per route group.

pub mod auth;
pub mod documents;
pub mod health;
pub mod hermes_proxy;

use futures_util::StreamExt;
use pageai_core::Error;
use serde::Serialize;
use worker::{Env, Headers, Method, Request, Response};

use crate::config::Config;
use crate::error::{OrInternal, TRACE_HEADER};

/// Everything a handler needs besides the request itself.
#[derive(Debug)]
pub struct RequestContext {
    /// The Worker's bindings.
    pub env: Env,
    /// Settings read from the environment.
    pub config: Config,
    /// Echoed in every body and in the `x-trace-id` header.
    pub trace_id: String,
}

/// A resolved route: which handler runs, with its path parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `GET /health`
    Health,
    /// `GET /api/documents/{id}`
    GetDocument {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `PUT /api/documents/{id}`
    PutDocument {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `POST /api/auth/login`: a client token in, a session cookie out.
    Login,
    /// `POST /api/auth/dev-login`: a session cookie for a same-origin page, only with `MNOTE_DEV_AUTO_LOGIN`.
    DevLogin,
    /// `POST /api/auth/logout`: clears the session cookie.
    Logout,
    /// `GET /api/hermes/client/sessions`
    HermesListSessions,
    /// `POST /api/hermes/client/sessions`
    HermesCreateSession,
    /// `GET /api/hermes/client/sessions/{id}`
    HermesGetSession {
        /// The path's session id, not yet validated.
        session_id: String,
    },
    /// `POST /api/hermes/client/runs`
    HermesStartRun,
    /// `GET /api/hermes/client/events/{runId}` (SSE)
    HermesEvents {
        /// The path's run id, not yet validated.
        run_id: String,
    },
    /// `POST /api/hermes/client/runs/{runId}/abort`
    HermesAbortRun {
        /// The path's run id, not yet validated.
        run_id: String,
    },
    /// `GET /api/hermes/client/models`
    HermesModels,
    /// `GET /api/hermes/client/tools`
    HermesTools,
}

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone: `/health` only.
    Open,
    /// Anyone, but a state-changing request still needs an allowed origin: the sign-in routes.
    SignIn,
    /// Signed in; refusals use the Hermes client codes.
    Hermes,
    /// Signed in; refusals use core's `mnote_*` codes.
    Mnote,
}

impl Route {
    /// Resolves a request line. Unknown paths give `mnote_route_not_found`; a known path with the wrong
    /// method gives `mnote_method_not_allowed`.
    pub fn resolve(method: &Method, path: &str) -> Result<Route, Error> {
        let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        let wrong_method = || Error::MethodNotAllowed { method: method.to_string() };
        match segments.as_slice() {
            ["health"] => match method {
                Method::Get => Ok(Route::Health),
                _ => Err(wrong_method()),
            },
            ["api", "documents", id] if !id.is_empty() => {
                let document_id = (*id).to_string();
                match method {
                    Method::Get => Ok(Route::GetDocument { document_id }),
                    Method::Put => Ok(Route::PutDocument { document_id }),
                    _ => Err(wrong_method()),
                }
            }
            ["api", "auth", action] => {
                let route = match *action {
                    "login" => Route::Login,
                    "dev-login" => Route::DevLogin,
                    "logout" => Route::Logout,
                    _ => return Err(Error::RouteNotFound { path: path.to_string() }),
                };
                match method {
                    Method::Post => Ok(route),
                    _ => Err(wrong_method()),
                }
            }
            ["api", "hermes", "client", rest @ ..] => Self::resolve_hermes(method, rest)
                .unwrap_or_else(|| Err(Error::RouteNotFound { path: path.to_string() })),
            _ => Err(Error::RouteNotFound { path: path.to_string() }),
        }
    }

    /// The Hermes client routes, below `/api/hermes/client/`; `None` for an unknown path.
    fn resolve_hermes(method: &Method, rest: &[&str]) -> Option<Result<Route, Error>> {
        let (get, post) = (*method == Method::Get, *method == Method::Post);
        let pick = |ok: bool, route: Route| match ok {
            true => Ok(route),
            false => Err(Error::MethodNotAllowed { method: method.to_string() }),
        };
        let id = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Some(match rest {
            ["sessions"] => match method {
                Method::Get => Ok(Route::HermesListSessions),
                Method::Post => Ok(Route::HermesCreateSession),
                _ => Err(Error::MethodNotAllowed { method: method.to_string() }),
            },
            ["sessions", session_id] => pick(get, Route::HermesGetSession { session_id: id(session_id)? }),
            ["runs"] => pick(post, Route::HermesStartRun),
            ["events", run_id] => pick(get, Route::HermesEvents { run_id: id(run_id)? }),
            ["runs", run_id, "abort"] => pick(post, Route::HermesAbortRun { run_id: id(run_id)? }),
            ["models"] => pick(get, Route::HermesModels),
            ["tools"] => pick(get, Route::HermesTools),
            _ => return None,
        })
    }

    /// Who may call this route.
    pub fn access(&self) -> Access {
        match self {
            Route::Health => Access::Open,
            Route::Login | Route::DevLogin | Route::Logout => Access::SignIn,
            Route::GetDocument { .. } | Route::PutDocument { .. } => Access::Mnote,
            Route::HermesListSessions
            | Route::HermesCreateSession
            | Route::HermesGetSession { .. }
            | Route::HermesStartRun
            | Route::HermesEvents { .. }
            | Route::HermesAbortRun { .. }
            | Route::HermesModels
            | Route::HermesTools => Access::Hermes,
        }
    }
}

/// A `200` JSON response carrying the trace header.
pub fn json_response<T: Serialize>(value: &T, trace_id: &str) -> Result<Response, Error> {
    let response = Response::from_json(value).or_internal("encode response", trace_id)?;
    with_headers(response, "application/json; charset=utf-8", trace_id)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn code(result: Result<Route, Error>) -> &'static str {
        match result {
            Ok(_) => "ok",
            Err(e) => e.code().as_str(),
        }
    }

    #[test]
    fn resolves_known_routes() {
        assert_eq!(Route::resolve(&Method::Get, "/health"), Ok(Route::Health));
        assert_eq!(
            Route::resolve(&Method::Get, "/api/documents/welcome"),
            Ok(Route::GetDocument { document_id: "welcome".into() })
        );
        assert_eq!(
            Route::resolve(&Method::Put, "/api/documents/doc_1"),
            Ok(Route::PutDocument { document_id: "doc_1".into() })
        );
    }

    #[test]
    fn unknown_paths_and_methods_are_coded() {
        assert_eq!(code(Route::resolve(&Method::Get, "/api/nope")), "mnote_route_not_found");
        assert_eq!(code(Route::resolve(&Method::Get, "/api/documents/")), "mnote_route_not_found");
        assert_eq!(code(Route::resolve(&Method::Get, "/api/documents/a/b")), "mnote_route_not_found");
        assert_eq!(code(Route::resolve(&Method::Get, "/health/")), "mnote_route_not_found");
        assert_eq!(code(Route::resolve(&Method::Delete, "/api/documents/a")), "mnote_method_not_allowed");
        assert_eq!(code(Route::resolve(&Method::Post, "/health")), "mnote_method_not_allowed");
        assert_eq!(code(Route::resolve(&Method::Get, "/api/auth/login")), "mnote_method_not_allowed");
        assert_eq!(code(Route::resolve(&Method::Post, "/api/auth/nope")), "mnote_route_not_found");
        assert_eq!(code(Route::resolve(&Method::Get, "/api/hermes/client/runs")), "mnote_method_not_allowed");
        assert_eq!(code(Route::resolve(&Method::Get, "/api/hermes/client/events/")), "mnote_route_not_found");
        assert_eq!(code(Route::resolve(&Method::Get, "/api/hermes/client/nope")), "mnote_route_not_found");
        assert_eq!(code(Route::resolve(&Method::Delete, "/api/hermes/client/sessions")), "mnote_method_not_allowed");
    }

    #[test]
    fn resolves_hermes_client_routes() {
        let hermes = |m: Method, p: &str| Route::resolve(&m, &format!("/api/hermes/client/{p}"));
        assert_eq!(hermes(Method::Get, "sessions"), Ok(Route::HermesListSessions));
        assert_eq!(hermes(Method::Post, "sessions"), Ok(Route::HermesCreateSession));
        assert_eq!(
            hermes(Method::Get, "sessions/mnote_doc_1_x"),
            Ok(Route::HermesGetSession { session_id: "mnote_doc_1_x".into() })
        );
        assert_eq!(hermes(Method::Post, "runs"), Ok(Route::HermesStartRun));
        assert_eq!(hermes(Method::Get, "events/run_1"), Ok(Route::HermesEvents { run_id: "run_1".into() }));
        assert_eq!(hermes(Method::Post, "runs/run_1/abort"), Ok(Route::HermesAbortRun { run_id: "run_1".into() }));
        assert_eq!(hermes(Method::Get, "models"), Ok(Route::HermesModels));
        assert_eq!(hermes(Method::Get, "tools"), Ok(Route::HermesTools));
    }

    #[test]
    fn only_health_is_open() {
        assert_eq!(Route::Health.access(), Access::Open);
        assert_eq!(Route::Login.access(), Access::SignIn);
        assert_eq!(Route::GetDocument { document_id: "d".into() }.access(), Access::Mnote);
        assert_eq!(Route::HermesTools.access(), Access::Hermes);
        assert_eq!(Route::HermesEvents { run_id: "r".into() }.access(), Access::Hermes);
    }
}
