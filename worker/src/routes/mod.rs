//! HTTP routes: the typed route table, and what every handler shares (the per-request context, capped
//! body reading, success responses).
//!
//! [`Route::resolve`] is a pure function of method and path, so the whole route table is unit-tested
//! without a runtime. Handlers live in one file per route group: `health`, `documents`, `profile`,
//! `page_ai` (commands and review sessions), `tools` (the plain tool-call route) and `mcp`.

pub mod auth;
pub mod documents;
pub mod health;
pub mod hermes_proxy;
pub mod mcp;
pub mod page_ai;
pub mod profile;
pub mod tools;

use futures_util::StreamExt;
use pageai_core::Error;
use pageai_core::review;
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
    /// `GET /api/documents/{id}/audit`
    DocumentAudit {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `GET /api/documents/{id}/audit/verify`
    VerifyAudit {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `GET /api/documents/{id}/events`
    DocumentEvents {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `GET /api/documents/{id}/review-sessions`
    DocumentSessions {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `GET /api/profile`
    GetProfile,
    /// `PUT /api/profile`
    PutProfile,
    /// `POST /api/page-ai/command`
    PageAiCommand,
    /// `GET /api/page-ai/review-sessions/{id}`
    GetReviewSession {
        /// The path's session id, not yet validated.
        session_id: String,
    },
    /// `POST /api/page-ai/review-sessions/{id}/{accept|reject|retry|abort|revert}`
    ReviewAction {
        /// The path's session id, not yet validated.
        session_id: String,
        /// Which action, one of core's [`review::Action::VERBS`]; its body is read by the handler.
        verb: review::Action,
    },
    /// `POST /api/hermes/tools/mnote/call`
    ToolCall,
    /// `POST /mcp`
    Mcp,
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
    /// Hermes' own credential (`MNOTE_TOOL_TOKEN`), checked by the handler: `/mcp` and the tool route.
    Tool,
}

impl Route {
    /// Resolves a request line. Unknown paths give `mnote_route_not_found`; a known path with the wrong
    /// method gives `mnote_method_not_allowed`.
    pub fn resolve(method: &Method, path: &str) -> Result<Route, Error> {
        let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
        let only = |allowed: Method, route: Route| match *method == allowed {
            true => Ok(route),
            false => Err(Error::MethodNotAllowed { method: method.to_string() }),
        };
        let id = |s: &str| s.to_string();
        match segments.as_slice() {
            ["health"] => only(Method::Get, Route::Health),
            ["mcp"] => only(Method::Post, Route::Mcp),
            ["api", "documents", doc] if !doc.is_empty() => match method {
                Method::Get => Ok(Route::GetDocument { document_id: id(doc) }),
                Method::Put => Ok(Route::PutDocument { document_id: id(doc) }),
                _ => Err(Error::MethodNotAllowed { method: method.to_string() }),
            },
            ["api", "documents", doc, "audit"] if !doc.is_empty() => {
                only(Method::Get, Route::DocumentAudit { document_id: id(doc) })
            }
            ["api", "documents", doc, "audit", "verify"] if !doc.is_empty() => {
                only(Method::Get, Route::VerifyAudit { document_id: id(doc) })
            }
            ["api", "documents", doc, "events"] if !doc.is_empty() => {
                only(Method::Get, Route::DocumentEvents { document_id: id(doc) })
            }
            ["api", "documents", doc, "review-sessions"] if !doc.is_empty() => {
                only(Method::Get, Route::DocumentSessions { document_id: id(doc) })
            }
            ["api", "profile"] => match method {
                Method::Get => Ok(Route::GetProfile),
                Method::Put => Ok(Route::PutProfile),
                _ => Err(Error::MethodNotAllowed { method: method.to_string() }),
            },
            ["api", "page-ai", "command"] => only(Method::Post, Route::PageAiCommand),
            ["api", "page-ai", "review-sessions", session] if !session.is_empty() => {
                only(Method::Get, Route::GetReviewSession { session_id: id(session) })
            }
            ["api", "page-ai", "review-sessions", session, verb] if !session.is_empty() => {
                match review::Action::parse_verb(verb) {
                    Some(verb) => only(Method::Post, Route::ReviewAction { session_id: id(session), verb }),
                    None => Err(Error::RouteNotFound { path: path.to_string() }),
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
                    _ => Err(Error::MethodNotAllowed { method: method.to_string() }),
                }
            }
            ["api", "hermes", "client", rest @ ..] => Self::resolve_hermes(method, rest)
                .unwrap_or_else(|| Err(Error::RouteNotFound { path: path.to_string() })),
            ["api", "hermes", "tools", "mnote", "call"] => only(Method::Post, Route::ToolCall),
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
            Route::DocumentAudit { .. }
            | Route::VerifyAudit { .. }
            | Route::DocumentEvents { .. }
            | Route::DocumentSessions { .. }
            | Route::GetProfile
            | Route::PutProfile
            | Route::PageAiCommand
            | Route::GetReviewSession { .. }
            | Route::ReviewAction { .. } => Access::Mnote,
            Route::ToolCall | Route::Mcp => Access::Tool,
        }
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
    pageai_core::wire::from_json(text)
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
    fn resolves_the_page_ai_tool_and_profile_routes() {
        let post = |p: &str| Route::resolve(&Method::Post, p);
        let get = |p: &str| Route::resolve(&Method::Get, p);
        assert_eq!(post("/mcp"), Ok(Route::Mcp));
        assert_eq!(post("/api/hermes/tools/mnote/call"), Ok(Route::ToolCall));
        assert_eq!(post("/api/page-ai/command"), Ok(Route::PageAiCommand));
        assert_eq!(get("/api/profile"), Ok(Route::GetProfile));
        assert_eq!(Route::resolve(&Method::Put, "/api/profile"), Ok(Route::PutProfile));
        assert_eq!(
            get("/api/page-ai/review-sessions/rs.d.x"),
            Ok(Route::GetReviewSession { session_id: "rs.d.x".into() })
        );
        for (verb, parsed) in [
            ("accept", review::Action::Accept),
            ("reject", review::Action::Reject),
            ("retry", review::Action::Retry),
            ("abort", review::Action::Abort),
            ("revert", review::Action::Revert),
        ] {
            assert_eq!(
                post(&format!("/api/page-ai/review-sessions/rs.d.x/{verb}")),
                Ok(Route::ReviewAction { session_id: "rs.d.x".into(), verb: parsed })
            );
        }
        assert_eq!(get("/api/documents/d/audit"), Ok(Route::DocumentAudit { document_id: "d".into() }));
        assert_eq!(get("/api/documents/d/audit/verify"), Ok(Route::VerifyAudit { document_id: "d".into() }));
        assert_eq!(get("/api/documents/d/events"), Ok(Route::DocumentEvents { document_id: "d".into() }));
        assert_eq!(get("/api/documents/d/review-sessions"), Ok(Route::DocumentSessions { document_id: "d".into() }));
    }

    #[test]
    fn tool_routes_answer_only_post() {
        assert_eq!(code(Route::resolve(&Method::Get, "/mcp")), "mnote_method_not_allowed");
        assert_eq!(code(Route::resolve(&Method::Delete, "/mcp")), "mnote_method_not_allowed");
        assert_eq!(code(Route::resolve(&Method::Get, "/api/hermes/tools/mnote/call")), "mnote_method_not_allowed");
        assert_eq!(
            code(Route::resolve(&Method::Get, "/api/page-ai/review-sessions/x/accept")),
            "mnote_method_not_allowed"
        );
        assert_eq!(
            code(Route::resolve(&Method::Post, "/api/page-ai/review-sessions/x/apply")),
            "mnote_route_not_found"
        );
        assert_eq!(code(Route::resolve(&Method::Post, "/api/documents/d/audit")), "mnote_method_not_allowed");
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
