//! # pageai-worker
//!
//! The Cloudflare Worker of mnote's page AI. It serves the web demo as static assets, stores each
//! document in its own Durable Object (SQLite storage), and answers the HTTP API. Every rule comes from
//! `pageai-core`; this crate only adapts it to HTTP and storage.
//!
//! A tour:
//!
//! - [`router`]: resolves a request to a [`routes::Route`] and runs its handler; the `fetch` event only
//!   calls it.
//! - [`routes`]: the route table, who may call each route ([`routes::authorize`]), and one file per route
//!   group (`health`, `documents`, `live`, `auth`, `hermes_proxy`, `profile`, `page_ai`, `tools`, `mcp`).
//! - [`http`]: what handlers, services and objects share: the request context, capped body reading and
//!   success responses.
//! - [`durable`]: one file per Durable Object class (`DocumentObject`, `ProfileObject`, `GuardObject`: the
//!   failed sign-ins of each client and the signed-out sessions). The document object also serves the
//!   document's live channel (`GET /api/documents/{id}/live`, a hibernatable WebSocket fed by every command
//!   it commits: [`durable::document::live`]).
//! - [`services`]: what runs inside a document's object (tool calls, page-AI commands, review actions), its
//!   SQLite tables, the MCP protocol, and the Hermes upstream client.
//! - [`auth`]: who may call a route (session cookie or Bearer client token, allowed origins), and the tool
//!   token of `/mcp` and the tool route.
//! - [`hardening`]: the security headers every answer carries.
//! - [`correlation`]: the trace id (header, body, minted) and request id of a request, on its answer and
//!   its log line.
//! - [`error`]: the one place a core error becomes an HTTP response.
//! - [`config`]: binding names, limits and vars.
//! - [`clock`]: the one clock reading a request passes down.
//! - [`ids`]: block, trace, context, session and call ids, minted from `getrandom`.
//!
//! Static assets are matched before the Worker runs, except for `/api/*`, `/health` and `/mcp`
//! (`run_worker_first` in `wrangler.toml`); a path that matches no asset reaches [`router`] and gets a
//! coded 404.

pub mod auth;
pub mod clock;
pub mod config;
pub mod correlation;
pub mod durable;
pub mod error;
pub mod hardening;
pub mod http;
pub mod identity;
pub mod ids;
pub mod routes;
pub mod services;

use worker::{Context, Env, Request, Response, event};

use crate::config::Config;
use crate::error::{Failure, TRACE_HEADER, failure_response};
use crate::http::RequestContext;
use crate::routes::{Route, auth as auth_routes, documents, health, hermes_proxy, live, mcp, page_ai, profile, tools};

#[event(start)]
fn start() {
    // Panics then reach the log with a message instead of an opaque "unreachable".
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    router(req, env).await
}

/// Answers one request: resolves its route, checks who is asking ([`routes::authorize`]), settles its
/// trace id ([`correlation`]), runs the handler, and turns any failure into the coded error response.
/// Every answer carries the request's trace id and request id ([`correlation::stamp`]) and the security
/// headers ([`hardening::harden`]), and the request gets one log line.
pub async fn router(req: Request, env: Env) -> worker::Result<Response> {
    let header_trace = ids::given_trace_id(req.headers().get(TRACE_HEADER).ok().flatten().as_deref());
    config::warn_weak_secrets(&env);
    let mut ctx = RequestContext {
        config: Config::from_env(&env),
        env,
        trace_id: header_trace.clone().unwrap_or_else(ids::fresh_trace_id),
        request_id: ids::request_id(),
        caller: None,
    };
    let (method, path) = (req.method(), req.path());
    let outcome = answer(req, header_trace.is_some(), &mut ctx).await;
    let response = match outcome {
        Ok(response) => response,
        Err(failure) => failure_response(failure, &ctx.trace_id)?,
    };
    let response = hardening::harden(correlation::stamp(response, &ctx).await?)?;
    correlation::log_line(&method, &path, response.status_code(), &ctx);
    Ok(response)
}

async fn answer(req: Request, header_trace: bool, ctx: &mut RequestContext) -> Result<Response, Failure> {
    let route = Route::resolve(&req.method(), &req.path())?;
    ctx.caller = routes::authorize(&req, &route, ctx).await?;
    let req = correlation::adopt_body_trace(req, &route, header_trace, ctx).await?;
    dispatch(route, req, ctx).await
}

async fn dispatch(route: Route, req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    match route {
        Route::Health => Ok(health::get(ctx)?),
        Route::GetDocument { document_id } => documents::get(req, document_id, ctx).await,
        Route::PutDocument { document_id } => documents::put(req, document_id, ctx).await,
        Route::Login => auth_routes::login(req, ctx).await,
        Route::DevLogin => auth_routes::dev_login(&req, ctx),
        Route::SignedSession => auth_routes::signed_session(req, ctx).await,
        Route::Logout => auth_routes::logout(&req, ctx).await,
        Route::HermesListSessions => hermes_proxy::list_sessions(req, ctx).await,
        Route::HermesCreateSession => hermes_proxy::create_session(req, ctx).await,
        Route::HermesGetSession { session_id } => hermes_proxy::get_session(req, session_id, ctx).await,
        Route::HermesStartRun => hermes_proxy::start_run(req, ctx).await,
        Route::HermesEvents { run_id } => hermes_proxy::events(req, run_id, ctx).await,
        Route::HermesAbortRun { run_id } => hermes_proxy::abort_run(req, run_id, ctx).await,
        Route::HermesModels => hermes_proxy::models(ctx).await,
        Route::HermesTools => hermes_proxy::tools(req, ctx).await,
        Route::PatchBlocks { document_id } => documents::patch_blocks(req, document_id, ctx).await,
        Route::Suggest { document_id } => documents::suggest(req, document_id, ctx).await,
        Route::UndoRun { document_id, run_id } => documents::undo_run(req, document_id, run_id, ctx).await,
        Route::DocumentSuggestions { document_id } => documents::suggestions(req, document_id, ctx).await,
        Route::DocumentLive { document_id } => live::open(req, document_id, ctx).await,
        Route::DocumentAudit { document_id } => documents::audit(req, document_id, ctx).await,
        Route::VerifyAudit { document_id } => documents::verify_audit(req, document_id, ctx).await,
        Route::DocumentEvents { document_id } => documents::events(req, document_id, ctx).await,
        Route::DocumentSessions { document_id } => documents::sessions(req, document_id, ctx).await,
        Route::GetProfile => profile::get(req, ctx).await,
        Route::PutProfile => profile::put(req, ctx).await,
        Route::PageAiCommand => page_ai::command(req, ctx).await,
        Route::GetReviewSession { session_id } => page_ai::get_session(req, session_id, ctx).await,
        Route::ReviewAction { session_id, verb } => page_ai::review(req, session_id, verb, ctx).await,
        Route::ToolCall => tools::call(req, ctx).await,
        Route::Mcp => mcp::post(req, ctx).await,
    }
}
