//! HTTP routes: the typed route table, who may call each route, and one file per route group.
//!
//! [`Route::resolve`] is a pure function of method and path, so the whole route table is unit-tested
//! without a runtime. Handlers live in one file per route group: `health`, `documents`, `profile`,
//! `page_ai` (commands and review sessions), `tools` (the plain tool-call route) and `mcp`. What the
//! handlers share (the request context, body reading, responses) is [`crate::http`], where services and
//! Durable Objects reach it too without importing from `routes/`.

pub mod auth;
pub mod documents;
pub mod health;
pub mod hermes_proxy;
pub mod live;
pub mod mcp;
pub mod page_ai;
pub mod profile;
pub mod tools;

use pageai_core::Error;
use pageai_core::review;
use worker::{Method, Request};

use crate::auth::{check_origin, credential};
use crate::http::RequestContext;
use crate::identity::Principal;

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
    /// `POST /api/auth/session`: a signed token (JWT) in, a session cookie out.
    SignedSession,
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
    /// `PATCH /api/documents/{id}/blocks`: a person's block edits.
    PatchBlocks {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `POST /api/documents/{id}/suggestions`: a person's block edits held as their suggestion.
    Suggest {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `GET /api/documents/{id}/suggestions`: the page's pending suggestions.
    DocumentSuggestions {
        /// The path's document id, not yet validated.
        document_id: String,
    },
    /// `POST /api/documents/{id}/runs/{runId}/undo` `{idempotencyKey, confirmRevision?}`: undo every write
    /// Hermes run `runId` applied, as one write; answers `mnote.run_undo.v1` (`undone`, or `needs_confirm`
    /// with a preview when a later edit touched a block of the run). Editors and owners only.
    UndoRun {
        /// The path's document id, not yet validated.
        document_id: String,
        /// The path's run id, not yet validated.
        run_id: String,
    },
    /// `GET /api/documents/{id}/live`: the live channel (WebSocket upgrade).
    DocumentLive {
        /// The path's document id, not yet validated.
        document_id: String,
    },
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
            ["api", "documents", doc, "blocks"] if !doc.is_empty() => {
                only(Method::Patch, Route::PatchBlocks { document_id: id(doc) })
            }
            ["api", "documents", doc, "suggestions"] if !doc.is_empty() => match method {
                Method::Get => Ok(Route::DocumentSuggestions { document_id: id(doc) }),
                Method::Post => Ok(Route::Suggest { document_id: id(doc) }),
                _ => Err(Error::MethodNotAllowed { method: method.to_string() }),
            },
            ["api", "documents", doc, "runs", run, "undo"] if !doc.is_empty() && !run.is_empty() => {
                only(Method::Post, Route::UndoRun { document_id: id(doc), run_id: id(run) })
            }
            ["api", "documents", doc, "live"] if !doc.is_empty() => {
                only(Method::Get, Route::DocumentLive { document_id: id(doc) })
            }
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
                    "session" => Route::SignedSession,
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
            Route::Login | Route::DevLogin | Route::Logout | Route::SignedSession => Access::SignIn,
            Route::GetDocument { .. } | Route::PutDocument { .. } => Access::Mnote,
            Route::HermesListSessions
            | Route::HermesCreateSession
            | Route::HermesGetSession { .. }
            | Route::HermesStartRun
            | Route::HermesEvents { .. }
            | Route::HermesAbortRun { .. }
            | Route::HermesModels
            | Route::HermesTools => Access::Hermes,
            Route::PatchBlocks { .. }
            | Route::Suggest { .. }
            | Route::DocumentSuggestions { .. }
            | Route::UndoRun { .. }
            | Route::DocumentLive { .. }
            | Route::DocumentAudit { .. }
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

/// Lets the request through with the caller it proved, or answers why not: 401 without a valid credential
/// (the Hermes client code on Hermes routes), 429 while the client is locked out after failed sign-ins,
/// 403 for a state-changing request, or a live channel upgrade (a browser sends cookies with a cross-site
/// WebSocket), from a foreign or missing origin.
pub async fn authorize(req: &Request, route: &Route, ctx: &RequestContext) -> Result<Option<Principal>, Error> {
    let caller = match route.access() {
        Access::Open => return Ok(None),
        // `/mcp` and the tool route check the tool token themselves ([`crate::auth::require_tool_token`]);
        // browser credentials never open them.
        Access::Tool => return Ok(None),
        Access::SignIn => None,
        Access::Hermes => Some(credential(req, ctx).await?.ok_or(Error::HermesUnauthorized)?),
        Access::Mnote => Some(credential(req, ctx).await?.ok_or(Error::Unauthorized)?),
    };
    let live = matches!(route, Route::DocumentLive { .. });
    if live || !matches!(req.method(), Method::Get | Method::Head | Method::Options) {
        check_origin(req, &ctx.config, caller.as_ref().map(|c| c.credential))?;
    }
    Ok(caller.map(|c| c.principal))
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
        assert_eq!(
            Route::resolve(&Method::Patch, "/api/documents/d/blocks"),
            Ok(Route::PatchBlocks { document_id: "d".into() })
        );
        assert_eq!(code(post("/api/documents/d/blocks")), "mnote_method_not_allowed");
        assert_eq!(Route::PatchBlocks { document_id: "d".into() }.access(), Access::Mnote);
        assert_eq!(get("/api/documents/d/audit"), Ok(Route::DocumentAudit { document_id: "d".into() }));
        assert_eq!(get("/api/documents/d/audit/verify"), Ok(Route::VerifyAudit { document_id: "d".into() }));
        assert_eq!(get("/api/documents/d/events"), Ok(Route::DocumentEvents { document_id: "d".into() }));
        assert_eq!(get("/api/documents/d/live"), Ok(Route::DocumentLive { document_id: "d".into() }));
        assert_eq!(code(post("/api/documents/d/live")), "mnote_method_not_allowed");
        assert_eq!(Route::DocumentLive { document_id: "d".into() }.access(), Access::Mnote);
        assert_eq!(get("/api/documents/d/review-sessions"), Ok(Route::DocumentSessions { document_id: "d".into() }));
        assert_eq!(post("/api/documents/d/suggestions"), Ok(Route::Suggest { document_id: "d".into() }));
        assert_eq!(get("/api/documents/d/suggestions"), Ok(Route::DocumentSuggestions { document_id: "d".into() }));
        assert_eq!(code(Route::resolve(&Method::Patch, "/api/documents/d/suggestions")), "mnote_method_not_allowed");
        assert_eq!(Route::Suggest { document_id: "d".into() }.access(), Access::Mnote);
        assert_eq!(
            post("/api/documents/d/runs/run_1/undo"),
            Ok(Route::UndoRun { document_id: "d".into(), run_id: "run_1".into() })
        );
        assert_eq!(code(get("/api/documents/d/runs/run_1/undo")), "mnote_method_not_allowed");
        assert_eq!(code(post("/api/documents/d/runs//undo")), "mnote_route_not_found");
        assert_eq!(Route::UndoRun { document_id: "d".into(), run_id: "r".into() }.access(), Access::Mnote);
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
