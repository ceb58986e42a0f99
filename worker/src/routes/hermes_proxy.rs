//! The Hermes client proxy routes, `/api/hermes/client/*` (seed 7-5, SPEC §10).
//!
//! The browser talks only to these; the Hermes credential stays in the Worker ([`Hermes`]). Handlers
//! extract and check input, call Hermes (and the document's Durable Object to freeze a run's context),
//! and shape the 7-5 answers. mnote keeps no chat history: sessions, messages and usage are Hermes'.
//!
//! A user's sessions are theirs: the session id carries its owner's tag ([`owner_tag`]), which is all
//! the proxy keeps of whose it is. Lists show only the caller's; reading, running in, following or
//! stopping another's session is refused. Every route that names a document needs the caller to see it.

use pageai_core::context::{ContextRequest, Format, Scope};
use pageai_core::manifest::manifest;
use pageai_core::page::{Permission, validate_block_id};
use pageai_core::policy::Act;
use pageai_core::{Error, wire as core_wire};
use serde::de::DeserializeOwned;
use serde_json::json;
use worker::{Headers, Method, Request, Response, ResponseBody};

use crate::config::{TOOL_TOKEN_SECRET, secret, secrets};
use crate::durable::document::{DocumentClient, DocumentCommand, FrozenRun};
use crate::durable::profile::ProfileClient;
use crate::error::{Failure, OrInternal, TRACE_HEADER};
use crate::http::{RequestContext, json_response, read_body};
use crate::identity::Principal;
use crate::ids;
use crate::services::documents::check_document_id;
use crate::services::hermes::instructions::{RunBrief, instructions};
use crate::services::hermes::sse::SseRelay;
use crate::services::hermes::sse::pipe::relay_body;
use crate::services::hermes::wire::{
    AbortBody, Aborted, CreateSessionBody, CreateSessionRequest, CreatedSession, HermesMessages, HermesModels,
    HermesRunStarted, HermesRunStatus, HermesSessionEnvelope, HermesSessionList, HistoryMessage, MAX_MESSAGE_CHARS,
    Models, RunRequest, RunStarted, SessionDetail, SessionList, StartRunBody, Tools, check_run_id, check_session_id,
    history, owned_by, owned_suffix, owner_tag, session_document, session_id_of, session_prefix,
};
use crate::services::hermes::{Hermes, encode_component};

/// Largest body a Hermes client route reads (a message is at most 32 000 characters).
const MAX_CLIENT_BODY_BYTES: usize = 256 * 1024;

/// The longest model name a run may ask for.
const MAX_MODEL_CHARS: usize = 200;

/// Sessions listed per request by default, and at most.
const DEFAULT_LIST_LIMIT: usize = 20;
const MAX_LIST_LIMIT: usize = 100;

/// Hermes pages through its sessions 200 at a time; the proxy reads at most this many pages per list.
const HERMES_PAGE_SIZE: usize = 200;
const MAX_HERMES_PAGES: usize = 10;

/// `GET /api/hermes/client/sessions?documentId=…&limit=…`: the document's sessions, newest first.
pub async fn list_sessions(req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let query = Query::of(&req, ctx)?;
    let document_id = query.required("documentId")?;
    check_document(&document_id)?;
    let limit = match query.get("limit") {
        None => DEFAULT_LIST_LIMIT,
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_LIST_LIMIT).contains(n))
            .ok_or_else(|| bad("/limit", format!("limit is a whole number from 1 to {MAX_LIST_LIMIT}")))?,
    };
    let hermes = Hermes::new(ctx)?;
    see_document(&document_id, ctx).await?;
    let tag = caller_tag(ctx)?;
    let prefix = session_prefix(&document_id);
    let mut sessions = Vec::new();
    for page in 0..MAX_HERMES_PAGES {
        let path = format!("/api/sessions?limit={HERMES_PAGE_SIZE}&offset={}", page * HERMES_PAGE_SIZE);
        let list: HermesSessionList = hermes.get_json(&path).await?;
        sessions.extend(
            list.data
                .iter()
                .filter(|s| s.id.starts_with(&prefix) && session_document(&s.id) == Some(document_id.as_str()))
                .filter(|s| owned_by(&s.id, tag.as_deref()))
                .map(|s| s.to_summary()),
        );
        if sessions.len() >= limit || !list.has_more {
            break;
        }
    }
    sessions.truncate(limit);
    Ok(json_response(&SessionList { ok: true, trace_id: ctx.trace_id.clone(), sessions }, &ctx.trace_id)?)
}

/// `POST /api/hermes/client/sessions`: creates `mnote_{documentId}_{suffix}` in Hermes.
pub async fn create_session(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let body: CreateSessionBody = parse_body(&mut req, ctx).await?;
    check_document(&body.document_id)?;
    let hermes = Hermes::new(ctx)?;
    see_document(&body.document_id, ctx).await?;
    let suffix = owned_suffix(caller_tag(ctx)?.as_deref(), &ids::hermes_session_suffix()?);
    let session_id = session_id_of(&body.document_id, &suffix);
    let title = body.title.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let created =
        hermes.send(Method::Post, "/api/sessions", Some(&CreateSessionRequest { id: &session_id, title })).await?;
    // Hermes titles are unique; a second "当前页问答" gets the session's suffix rather than failing.
    let created = match (created.status, created.upstream_code().as_deref(), title) {
        (400, Some("invalid_title"), Some(title)) => {
            let unique = format!("{title} ({suffix})");
            let retry = CreateSessionRequest { id: &session_id, title: Some(&unique) };
            hermes.send(Method::Post, "/api/sessions", Some(&retry)).await?
        }
        _ => created,
    };
    let _: serde_json::Value = created.json(&hermes)?;
    let answer =
        CreatedSession { ok: true, session_id, trace_id: ctx.trace_id.clone(), persistence: "hermes_on_first_run" };
    Ok(json_response(&answer, &ctx.trace_id)?)
}

/// `GET /api/hermes/client/sessions/{id}`: Hermes' messages and token usage of one session.
pub async fn get_session(req: Request, session_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    let query = Query::of(&req, ctx)?;
    let document_id = query.get("documentId");
    if let Some(document_id) = &document_id {
        check_document(document_id)?;
    }
    check_session_id("/sessionId", &session_id, document_id.as_deref())?;
    check_owner(&session_id, ctx)?;
    let hermes = Hermes::new(ctx)?;
    see_document(session_document(&session_id).unwrap_or_default(), ctx).await?;
    let id = encode_component(&session_id);
    let envelope: HermesSessionEnvelope = hermes.get_json(&format!("/api/sessions/{id}")).await?;
    let messages: HermesMessages = hermes.get_json(&format!("/api/sessions/{id}/messages")).await?;
    let answer = SessionDetail {
        ok: true,
        session_id,
        trace_id: ctx.trace_id.clone(),
        messages: messages.data.iter().map(|m| m.to_client()).collect(),
        usage: envelope.session.usage(),
    };
    Ok(json_response(&answer, &ctx.trace_id)?)
}

/// `POST /api/hermes/client/runs`: freezes the page, builds the instructions, and starts a Hermes run.
pub async fn start_run(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let body: StartRunBody = parse_body(&mut req, ctx).await?;
    let run_id = launch(
        &RunOrder {
            document_id: &body.document_id,
            session_id: &body.session_id,
            message: &body.message,
            selected_block_id: body.selected_block_id.as_deref(),
            selected_text: body.selected_text.as_deref(),
            model: body.model.as_deref(),
        },
        ctx,
    )
    .await?;
    let answer = RunStarted {
        ok: true,
        session_id: body.session_id,
        run_id,
        message_id: None,
        events: Vec::new(),
        trace_id: ctx.trace_id.clone(),
    };
    Ok(json_response(&answer, &ctx.trace_id)?)
}

/// What a Hermes run is started with: from the run route, or from the page-AI command's hand-off.
pub struct RunOrder<'a> {
    /// The document.
    pub document_id: &'a str,
    /// The Hermes session, `mnote_{documentId}_{suffix}`.
    pub session_id: &'a str,
    /// The user's message.
    pub message: &'a str,
    /// A selected block, which scopes the frozen context.
    pub selected_block_id: Option<&'a str>,
    /// The selected text, passed to the model as is.
    pub selected_text: Option<&'a str>,
    /// The model, when not Hermes' default.
    pub model: Option<&'a str>,
}

/// Freezes the document's context, builds the instructions (page view, contextId, allowed ids, tools,
/// the router's toolHint, review policy) and starts the run in Hermes with the session's history.
/// Answers Hermes' run id.
pub async fn launch(order: &RunOrder<'_>, ctx: &RequestContext) -> Result<String, Failure> {
    let message = check_order(order)?;
    check_owner(order.session_id, ctx)?;
    let hermes = Hermes::new(ctx)?;

    let selection: Vec<String> = order.selected_block_id.iter().map(|s| s.to_string()).collect();
    let scope = match order.selected_block_id {
        Some(_) => Scope::Selection { block_ids: selection.clone() },
        None => Scope::Full,
    };
    let context_id = ids::opaque(ids::Kind::Context)?;
    let command = DocumentCommand::FreezeRun {
        document_id: order.document_id.to_string(),
        context_id: context_id.clone(),
        request: ContextRequest::new(scope).with_formats(&[Format::PageXml]).with_budget(ctx.config.context_max_chars),
        ttl_seconds: ctx.config.context_ttl_seconds,
        message: message.to_string(),
        selection,
        idempotency_key: ids::opaque(ids::Kind::IdempotencyKey)?,
    };
    let client =
        DocumentClient::new(&ctx.env, order.document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    // The object routes the message under its copy of the workspace's profile and answers it, for the
    // tools in the instructions: one round trip, the profile object is not asked.
    let frozen: FrozenRun = client.send(&command, &ctx.trace_id).await?;

    let conversation_history = session_history(&hermes, order.session_id).await?;

    let manifest = manifest(&frozen.profile, None, frozen.permission);
    let text = instructions(&RunBrief {
        context: &frozen.context,
        route: &frozen.route,
        manifest: &manifest,
        selected_text: order.selected_text,
    });
    let run = RunRequest {
        input: message,
        instructions: &text,
        session_id: order.session_id,
        conversation_history: &conversation_history,
        model: order.model.filter(|m| !m.trim().is_empty()),
    };
    let started: HermesRunStarted = hermes.post_json("/v1/runs", &run).await?;
    check_run_id(&started.run_id).map_err(|_| Error::HermesUpstreamUnavailable {
        reason: "Hermes answered a run id that is not a plain token".into(),
        status: None,
        timed_out: false,
    })?;
    // The run's tool calls name its context: tie them to the run for the live channel. The run is started
    // either way; a page then sees its calls under `mcp`.
    let bind = DocumentCommand::BindRun {
        document_id: order.document_id.to_string(),
        context_id,
        run_id: started.run_id.clone(),
        ttl_seconds: ctx.config.context_ttl_seconds,
    };
    if let Err(failure) = client.send::<serde_json::Value>(&bind, &ctx.trace_id).await {
        let status = match failure {
            Failure::Core(error) => error.code().as_str().to_string(),
            Failure::Relayed(response) => response.status_code().to_string(),
        };
        worker::console_error!("[{}] bind run {} to its context: {status}", ctx.trace_id, started.run_id);
    }
    Ok(started.run_id)
}

/// Checks a run order: the document id, that the session is the document's, a message of 1 to
/// [`MAX_MESSAGE_CHARS`] characters and a valid selected block. Answers the trimmed message.
fn check_order<'a>(order: &RunOrder<'a>) -> Result<&'a str, Error> {
    check_document(order.document_id)?;
    check_session_id("/sessionId", order.session_id, Some(order.document_id))?;
    let message = order.message.trim();
    if message.is_empty() || message.chars().count() > MAX_MESSAGE_CHARS {
        return Err(bad("/message", format!("the message has 1 to {MAX_MESSAGE_CHARS} characters")));
    }
    if let Some(block_id) = order.selected_block_id {
        validate_block_id(block_id).map_err(|reason| bad("/selectedBlockId", reason))?;
    }
    // A model name is one line of Hermes' configuration: line breaks and other control characters in it
    // are a mistake (or an attempt to smuggle text), not a model.
    if let Some(model) = order.model
        && (model.chars().count() > MAX_MODEL_CHARS || model.chars().any(char::is_control))
    {
        return Err(bad(
            "/model",
            format!("a model name has at most {MAX_MODEL_CHARS} characters and no control characters"),
        ));
    }
    Ok(message)
}

/// The session's earlier text turns, for `conversation_history`.
///
/// Hermes 0.19 does not load a session's earlier turns for /v1/runs; the proxy passes them. A session
/// Hermes does not know yet (404) simply has no history: the run creates it.
async fn session_history(hermes: &Hermes, session_id: &str) -> Result<Vec<HistoryMessage>, Error> {
    let id = encode_component(session_id);
    let stored = hermes.send(Method::Get, &format!("/api/sessions/{id}/messages"), None::<&()>).await?;
    Ok(match stored.status {
        404 if stored.upstream_code().as_deref() == Some("session_not_found") => Vec::new(),
        _ => history(&stored.json::<HermesMessages>(hermes)?.data),
    })
}

/// `GET /api/hermes/client/events/{runId}?sessionId=…`: the run's events, relayed as they arrive.
pub async fn events(req: Request, run_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_run_id(&run_id)?;
    let query = Query::of(&req, ctx)?;
    let named = query.get("sessionId");
    let hermes = Hermes::new(ctx)?;
    let session_id = owned_run(&hermes, &run_id, named.as_deref(), None, ctx).await?;
    let upstream = hermes.open_stream(&format!("/v1/runs/{}/events", encode_component(&run_id))).await?;
    // Hermes holds both of these and a model or tool can echo either; no event carries them out.
    let secrets = [secrets::HERMES_API_KEY, TOOL_TOKEN_SECRET].iter().filter_map(|name| secret(&ctx.env, name));
    let relay = SseRelay::new(&run_id, &session_id, &ctx.trace_id, secrets.collect());
    let body = relay_body(upstream, relay, ctx.config.hermes_stream_idle_ms, ctx.trace_id.clone())
        .map_err(|e| format!("{e:?}"))
        .or_internal("build event stream", &ctx.trace_id)?;
    let response = Response::from_body(ResponseBody::Stream(body)).or_internal("build event stream", &ctx.trace_id)?;
    let headers = Headers::new();
    let set = |name: &str, value: &str| headers.set(name, value).or_internal("set response header", &ctx.trace_id);
    set("content-type", "text/event-stream; charset=utf-8")?;
    set("cache-control", "no-cache, no-transform")?;
    // Tells buffering proxies (nginx and the like) to pass each event on at once.
    set("x-accel-buffering", "no")?;
    set(TRACE_HEADER, &ctx.trace_id)?;
    Ok(response.with_headers(headers))
}

/// `POST /api/hermes/client/runs/{runId}/abort`: asks Hermes to stop the run; `run.cancelled` follows
/// on the event stream.
pub async fn abort_run(mut req: Request, run_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_run_id(&run_id)?;
    let bytes = read_body(&mut req, MAX_CLIENT_BODY_BYTES, &ctx.trace_id).await?;
    let body: AbortBody = match bytes.iter().all(u8::is_ascii_whitespace) {
        true => AbortBody::default(),
        false => parse_bytes(&bytes)?,
    };
    if let Some(document_id) = &body.document_id {
        check_document(document_id)?;
    }
    let hermes = Hermes::new(ctx)?;
    owned_run(&hermes, &run_id, body.session_id.as_deref(), body.document_id.as_deref(), ctx).await?;
    let path = format!("/v1/runs/{}/stop", encode_component(&run_id));
    let _: serde_json::Value = hermes.send(Method::Post, &path, Some(&json!({}))).await?.json(&hermes)?;
    let answer = Aborted {
        ok: true,
        events: vec![json!({ "event": "abort.started", "run_id": run_id })],
        run_id,
        session_id: body.session_id,
        trace_id: ctx.trace_id.clone(),
    };
    Ok(json_response(&answer, &ctx.trace_id)?)
}

/// `GET /api/hermes/client/models`: Hermes' models and route aliases.
pub async fn models(ctx: &RequestContext) -> Result<Response, Failure> {
    let hermes = Hermes::new(ctx)?;
    let listed: HermesModels = hermes.get_json("/v1/models").await?;
    let models: Vec<_> = listed.data.iter().map(|m| m.to_entry()).collect();
    let answer = Models {
        ok: true,
        trace_id: ctx.trace_id.clone(),
        default_model: models.first().map(|m| m.id.clone()),
        models,
    };
    Ok(json_response(&answer, &ctx.trace_id)?)
}

/// `GET /api/hermes/client/tools[?workspaceId=…]`: the mnote tools the workspace's profile enables (the
/// workspace chosen as for `GET /api/profile`), from core's one catalog. It needs no upstream, so it answers
/// even when Hermes is unconfigured.
pub async fn tools(req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    // The stored profile: the same one the executor guard of the workspace's pages reads.
    let workspace = crate::routes::profile::workspace_of(&req, ctx, Act::Read)?;
    let profile = ProfileClient::new(&ctx.env, &workspace, &ctx.trace_id)?.get(&ctx.trace_id).await?;
    let tools = pageai_core::wire::hermes_tools(&manifest(&profile, None, Permission::Edit));
    Ok(json_response(&Tools { ok: true, trace_id: ctx.trace_id.clone(), tools }, &ctx.trace_id)?)
}

/// The session of a run the caller may follow or stop, or the refusal. A run belongs to whoever started
/// it: Hermes says in which session it runs (so the `session_id` the relay stamps on each event is Hermes'
/// fact, not only the client's claim), that session must be an mnote session of the caller (its owner
/// tag) and of a document the caller still sees (its workspace), whether or not the client named the
/// session or the document. Run ids are shown to the whole workspace (the live channel, `…/events`), so
/// knowing one opens nothing. A run that is not the caller's answers as an unknown one would.
async fn owned_run(
    hermes: &Hermes,
    run_id: &str,
    named_session: Option<&str>,
    named_document: Option<&str>,
    ctx: &RequestContext,
) -> Result<String, Failure> {
    if let Some(session_id) = named_session {
        check_session_id("/sessionId", session_id, named_document)?;
        check_owner(session_id, ctx)?;
    }
    let status: HermesRunStatus = hermes.get_json(&format!("/v1/runs/{}", encode_component(run_id))).await?;
    let not_yours = || bad("/runId", format!("there is no run {run_id:?} of yours"));
    let Some(session_id) = status.session_id else { return Err(not_yours().into()) };
    if let Some(named) = named_session
        && named != session_id
    {
        return Err(bad("/sessionId", format!("run {run_id} does not belong to session {named}")).into());
    }
    let document_id = session_document(&session_id).ok_or_else(not_yours)?;
    if named_document.is_some_and(|named| named != document_id) || !owned_by(&session_id, caller_tag(ctx)?.as_deref()) {
        return Err(not_yours().into());
    }
    see_document(document_id, ctx).await?;
    Ok(session_id)
}

/// The owner tag of the caller's sessions (`None` for the single user).
pub fn caller_tag(ctx: &RequestContext) -> Result<Option<String>, Error> {
    let principal = ctx.principal()?;
    let single = *principal == Principal::single_user();
    Ok(owner_tag((!single).then_some(principal.user.as_str())))
}

/// Refuses a session that is not the caller's, as if it did not exist for them.
fn check_owner(session_id: &str, ctx: &RequestContext) -> Result<(), Error> {
    match owned_by(session_id, caller_tag(ctx)?.as_deref()) {
        true => Ok(()),
        false => Err(bad("/sessionId", format!("there is no session {session_id:?} of yours"))),
    }
}

/// Refuses a document a signed-in user may not see (404, as a missing one). The single user owns every page
/// of its one workspace and sees only its own sessions anyway, so for it nothing is looked up (its sessions
/// may name a page not stored yet).
async fn see_document(document_id: &str, ctx: &RequestContext) -> Result<(), Failure> {
    if caller_tag(ctx)?.is_none() {
        return Ok(());
    }
    let client =
        DocumentClient::new(&ctx.env, document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    let _: serde_json::Value =
        client.send(&DocumentCommand::Get { document_id: document_id.to_string() }, &ctx.trace_id).await?;
    Ok(())
}

/// The query string of a request.
struct Query(Vec<(String, String)>);

impl Query {
    fn of(req: &Request, ctx: &RequestContext) -> Result<Query, Error> {
        let url = req.url().or_internal("parse request URL", &ctx.trace_id)?;
        Ok(Query(url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect()))
    }

    fn get(&self, name: &str) -> Option<String> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.trim().to_string()).filter(|v| !v.is_empty())
    }

    fn required(&self, name: &str) -> Result<String, Error> {
        self.get(name).ok_or_else(|| bad(&format!("/{name}"), format!("the query parameter {name} is required")))
    }
}

fn bad(pointer: &str, reason: impl Into<String>) -> Error {
    Error::HermesBadRequest { pointer: pointer.to_string(), reason: reason.into() }
}

/// A document id from a Hermes client request; a bad one is a `hermes_client_bad_request`.
fn check_document(document_id: &str) -> Result<(), Error> {
    check_document_id(document_id).map_err(as_bad_request)
}

/// Core's argument errors, re-coded for the Hermes client routes.
fn as_bad_request(error: Error) -> Error {
    match error {
        Error::InvalidArguments { pointer, reason, .. } => Error::HermesBadRequest { pointer, reason },
        Error::InvalidBody { reason } => Error::HermesBadRequest { pointer: String::new(), reason },
        other => other,
    }
}

async fn parse_body<T: DeserializeOwned>(req: &mut Request, ctx: &RequestContext) -> Result<T, Error> {
    let bytes = read_body(req, MAX_CLIENT_BODY_BYTES, &ctx.trace_id).await?;
    parse_bytes(&bytes)
}

fn parse_bytes<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| bad("", format!("the body is not UTF-8: invalid byte at offset {}", e.valid_up_to())))?;
    core_wire::from_json_serde(text).map_err(as_bad_request)
}
