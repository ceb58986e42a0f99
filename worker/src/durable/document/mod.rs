//! `DocumentObject`: one Durable Object per document, the only writer of that document's storage.
//!
//! Every read and write of a document goes through its object, so writes are serialized and none is
//! lost (SPEC §10). The front Worker talks to it with a [`DocumentCommand`], a small typed enum sent as
//! the JSON body of one internal `POST`; the object answers `200` with the command's JSON, or a coded error
//! response built by [`crate::error`], which the front relays unchanged. Every answer carries
//! [`crate::durable::ROWS_WRITTEN_HEADER`]: the rows the command wrote, as the SQL layer counted them; and
//! an answered one [`crate::durable::LIVE_SEQ_HEADER`]: the live channel's last `seq` before the command ran.
//!
//! The object keeps the page in memory between requests ([`page_cache`]): it reads SQLite once per wake
//! and then writes only the rows a command changed. It also keeps a copy of its workspace's page-AI
//! profile ([`profile_copy`]), fetched from that workspace's profile object once per wake and pushed to it
//! on every change, so a tool call, a command or a run start is one Durable Object round trip.
//!
//! Storage calls are synchronous, so once a command has its profile, its reads and writes happen in a
//! single turn with no other request between. A command that writes runs in [`DocumentObject::transact`]:
//! the services work on the page in memory and on a [`crate::services::stores::Stores`] over the
//! [`crate::services::tables::Tables`], and everything they recorded (changed block rows, idempotency
//! record, review session, frozen context, audit entries, events) is committed in one SQLite transaction
//! at the end, or nothing but the events when the command failed.

pub mod access;
pub mod client;
pub mod command;
pub mod live;
mod membership;
mod page_cache;
mod profile_copy;
mod reads;
mod transact;

use std::cell::{Cell, RefCell};

use pageai_core::json::to_json;
use pageai_core::profile::Profile;
use pageai_core::{Error, wire};
use worker::{DurableObject, Env, Request, Response, State, WebSocket, WebSocketIncomingMessage, durable_object};

pub use client::{Answered, DocumentClient, SignedIn, pass_rows};
pub use command::{DocumentCommand, FrozenRun, ProfileHeld};

use crate::clock::Now;
use crate::config::Config;
use crate::durable::profile::{ProfileClient, VersionedProfile};
use crate::durable::{LIVE_SEQ_HEADER, ROWS_WRITTEN_HEADER};
use crate::error::{Failure, TRACE_HEADER, error_response, internal};
use crate::http::text_response;
use crate::identity::{Acting, Principal};
use crate::ids;
use crate::services::sqlite::ObjectSql;
use crate::services::tables::run_contexts;
use crate::services::{block_edits, commands, reviews, run_undo, tool_calls};
use page_cache::PageCache;
use profile_copy::ProfileCopy;

/// The Durable Object class bound as `DOCUMENTS`. Private: only the runtime constructs it, through the
/// glue `#[durable_object]` generates.
#[durable_object]
struct DocumentObject {
    state: State,
    /// The live channel's last `seq`, read from `live_log` once per wake ([`live`]).
    live_seq: Cell<Option<u64>>,
    /// The highest membership epoch of the page's workspace seen, read once per wake ([`membership`]).
    membership: Cell<Option<u64>>,
    env: Env,
    config: Config,
    sql: ObjectSql,
    cache: RefCell<PageCache>,
    profile: RefCell<ProfileCopy>,
}

impl DurableObject for DocumentObject {
    fn new(state: State, env: Env) -> Self {
        let sql = ObjectSql::new(state.storage());
        // The runtime answers a live socket's `ping` itself, without waking the object.
        match worker::worker_sys::WebSocketRequestResponsePair::new("ping", "pong") {
            Ok(pair) => state.set_websocket_auto_response(&pair),
            Err(e) => worker::console_error!("live channel: no ping auto-response: {e:?}"),
        }
        DocumentObject {
            state,
            live_seq: Cell::new(None),
            membership: Cell::new(None),
            config: Config::from_env(&env),
            env,
            cache: RefCell::new(PageCache::new(sql.clone())),
            sql,
            profile: RefCell::new(ProfileCopy::default()),
        }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let trace_id = ids::trace_id(req.headers().get(TRACE_HEADER).ok().flatten().as_deref());
        let caller = req.headers().get(access::CALLER_HEADER).ok().flatten();
        let caller = caller.and_then(|json| serde_json::from_str::<Principal>(&json).ok());
        if let Some(document_id) = live_upgrade(&req) {
            // The channel reads the page: the caller's role in its workspace must allow reading.
            return match self.open_live(&document_id, &req, caller.as_ref(), &trace_id).await {
                Ok(response) => Ok(response),
                Err(error) => error_response(&error, &trace_id),
            };
        }
        let body = req.text().await;
        // Taken before the command runs: its answer shows everything up to this message, maybe more.
        let position = self.live_position();
        let outcome = match body {
            Ok(body) => match wire::from_json_serde::<DocumentCommand>(&body) {
                Ok(command) => self.handle(command, caller.as_ref(), &trace_id).await,
                Err(e) => Err(e),
            },
            Err(e) => Err(internal("read document command", e, &trace_id)),
        };
        let rows = self.sql.take_rows_written();
        let mut response =
            match outcome.and_then(|json| text_response(json, "application/json; charset=utf-8", &trace_id)) {
                Ok(mut response) => {
                    if let Some(seq) = position {
                        response.headers_mut().set(LIVE_SEQ_HEADER, &seq.to_string())?;
                    }
                    response
                }
                Err(error) => error_response(&error, &trace_id)?,
            };
        response.headers_mut().set(ROWS_WRITTEN_HEADER, &rows.to_string())?;
        Ok(response)
    }

    async fn websocket_message(&self, ws: WebSocket, message: WebSocketIncomingMessage) -> worker::Result<()> {
        self.live_message(&ws, &message)
    }

    async fn websocket_close(&self, ws: WebSocket, code: usize, _reason: String, _clean: bool) -> worker::Result<()> {
        // Finish the closing handshake; a socket already gone has nothing to answer.
        let code = u16::try_from(code).ok().filter(|c| *c == 1000 || (3000..5000).contains(c)).unwrap_or(1000);
        let _ = live::close(&ws, code, "closed");
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> worker::Result<()> {
        let _ = live::close(&ws, 1011, "socket error");
        Ok(())
    }
}

impl DocumentObject {
    /// Admits a live socket, fetches the workspace profile a v2 socket is told after `hello` (which also
    /// has the profile object push every change here), then accepts it.
    async fn open_live(
        &self,
        document_id: &str,
        req: &Request,
        caller: Option<&Principal>,
        trace_id: &str,
    ) -> Result<Response, Error> {
        let (workspace, epoch) = self.admit_live(document_id, caller, trace_id)?;
        let url = req.url().map_err(|e| internal("read live url", e, trace_id))?;
        let mut opened = live::Opened { profile: None, epoch };
        if live::Resume::parse(&url)?.version == wire::LiveVersion::V2 {
            let profile = self.profile(document_id, &workspace, trace_id).await?;
            let version = self.profile.borrow().version(&workspace).unwrap_or(0);
            opened.profile = Some((workspace, profile, version));
        }
        self.accept_live(document_id, req, opened, trace_id)
    }

    /// An MCP call names no run (`mcp`): when its `contextId` was bound to a Hermes run, it is that run's.
    fn bound_run(&self, run_id: &mut String, context_id: Option<&str>) -> Result<(), Error> {
        if run_id != MCP_RUN {
            return Ok(());
        }
        if let Some(context_id) = context_id
            && let Some(bound) = run_contexts::run_of(&self.sql, context_id, Now::read().ms)?
        {
            *run_id = bound;
        }
        Ok(())
    }
}

/// The run id of an MCP call that names no run.
pub const MCP_RUN: &str = "mcp";

/// The document of a live upgrade the front forwarded (`/live?documentId=…` with `Upgrade: websocket`).
fn live_upgrade(req: &Request) -> Option<String> {
    let upgrade = req.headers().get("upgrade").ok().flatten()?;
    if !upgrade.eq_ignore_ascii_case("websocket") {
        return None;
    }
    let url = req.url().ok()?;
    let document_id = url.query_pairs().find(|(k, _)| k == "documentId").map(|(_, v)| v.into_owned())?;
    Some(document_id)
}

impl DocumentObject {
    /// Lets the command in ([`access`]), gets the profile it needs (the only await), then runs it in one
    /// turn.
    async fn handle(
        &self,
        mut command: DocumentCommand,
        caller: Option<&Principal>,
        trace_id: &str,
    ) -> Result<String, Error> {
        let acting = self.admit(&mut command, caller, trace_id)?;
        let profile = if command.reads_profile() {
            // A command for a document that does not exist fails here, before the profile object hears
            // of it.
            let workspace = self.cache.borrow_mut().page(command.document_id(), trace_id)?.0.workspace_id.clone();
            Some(self.profile(command.document_id(), &workspace, trace_id).await?)
        } else {
            None
        };
        // What ran while this command waited for its profile is not this command's cost.
        self.sql.take_rows_written();
        self.run(command, profile.as_ref(), &acting, trace_id)
    }

    /// The object's copy of `workspace`'s profile, fetched (and subscribed to) when it holds none.
    async fn profile(&self, document_id: &str, workspace: &str, trace_id: &str) -> Result<Profile, Error> {
        if let Some(profile) = self.profile.borrow().current(workspace) {
            return Ok(profile.clone());
        }
        self.profile.borrow_mut().fetch_started(workspace);
        let fetched = match ProfileClient::new(&self.env, workspace, trace_id) {
            Ok(client) => client.subscribe(document_id, trace_id).await.map_err(|failure| match failure {
                Failure::Core(error) => error,
                Failure::Relayed(response) => {
                    internal("fetch the profile", format!("status {}", response.status_code()), trace_id)
                }
            }),
            Err(error) => Err(error),
        };
        let mut copy = self.profile.borrow_mut();
        match fetched {
            Ok(fetched) => copy.fetch_ended(Some(fetched)).cloned().ok_or(Error::StorageFailed),
            Err(error) => {
                copy.fetch_ended(None);
                Err(error)
            }
        }
    }

    /// Runs one command: one step per command below, or a service inside [`Self::transact`]. `profile`
    /// is set for the commands that read it ([`DocumentCommand::reads_profile`]).
    fn run(
        &self,
        command: DocumentCommand,
        profile: Option<&Profile>,
        acting: &Acting,
        trace_id: &str,
    ) -> Result<String, Error> {
        let profile = || profile.ok_or_else(|| internal("run document command", "no profile", trace_id));
        match command {
            DocumentCommand::Get { document_id } => {
                let mut cache = self.cache.borrow_mut();
                to_json(&*cache.page(&document_id, trace_id)?.0)
            }
            DocumentCommand::Put { document_id, draft } => self.put(&document_id, draft, acting, trace_id),
            DocumentCommand::CallTool { document_id, mut call } => {
                self.bound_run(&mut call.run_id, call.call.context_id())?;
                self.transact(&document_id, profile()?, acting, trace_id, |page, stores| {
                    to_json(&tool_calls::call(page, call, stores)?)
                })
            }
            DocumentCommand::Command { document_id, request, trace_id: command_trace } => {
                self.transact(&document_id, profile()?, acting, trace_id, |page, stores| {
                    to_json(&commands::run(page, &request, &command_trace, stores)?)
                })
            }
            DocumentCommand::Review { document_id, session_id, action } => {
                self.transact(&document_id, profile()?, acting, trace_id, |page, stores| {
                    reviews::act(page, &session_id, &action, stores)
                })
            }
            DocumentCommand::UndoRun { document_id, run_id, request } => {
                self.transact(&document_id, profile()?, acting, trace_id, |page, stores| {
                    run_undo::undo(page, &run_id, &request, stores)
                })
            }
            DocumentCommand::EditBlocks { document_id, edits } => {
                self.transact(&document_id, profile()?, acting, trace_id, |page, stores| {
                    block_edits::apply(page, &edits, trace_id, stores)
                })
            }
            DocumentCommand::Suggest { document_id, body } => {
                self.transact(&document_id, profile()?, acting, trace_id, |page, stores| {
                    block_edits::suggest(page, &body, trace_id, stores)
                })
            }
            DocumentCommand::ListSuggestions { document_id } => self.list_suggestions(&document_id, trace_id),
            DocumentCommand::ListSessions { document_id, filter, cursor, limit } => {
                self.list_sessions(&document_id, filter.as_deref(), cursor.as_deref(), limit, trace_id)
            }
            DocumentCommand::EndSession { session, .. } => {
                to_json(&serde_json::json!({ "closed": self.end_session(&session) }))
            }
            DocumentCommand::Audit { document_id, after, limit } => {
                self.audit_page(&document_id, after, limit, trace_id)
            }
            DocumentCommand::VerifyAudit { document_id } => self.verify_audit(&document_id, trace_id),
            DocumentCommand::Events { document_id, run_id, after, limit } => {
                self.events_page(&document_id, run_id.as_deref(), after, limit, trace_id)
            }
            DocumentCommand::FreezeRun {
                document_id,
                context_id,
                request,
                ttl_seconds,
                message,
                selection,
                idempotency_key,
            } => {
                let run = reads::RunToFreeze {
                    context_id: &context_id,
                    request: &request,
                    ttl_seconds,
                    message: &message,
                    selection: &selection,
                    profile: profile()?,
                    idempotency_key: &idempotency_key,
                };
                to_json(&self.freeze_run(&document_id, &run, acting, trace_id)?)
            }
            DocumentCommand::BindRun { context_id, run_id, ttl_seconds, document_id } => {
                self.cache.borrow_mut().page(&document_id, trace_id)?;
                let now_ms = Now::read().ms;
                let ttl_ms = i64::try_from(ttl_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
                run_contexts::bind(&self.sql, &context_id, &run_id, now_ms, now_ms.saturating_add(ttl_ms))?;
                to_json(&serde_json::json!({ "bound": true }))
            }
            DocumentCommand::PutProfile { document_id, workspace_id, profile, version } => {
                // Sockets that follow the profile (v2) are told, whether or not the object held a copy;
                // while any listens, the profile object keeps pushing here.
                let listening = self.tell_profile(&document_id, &workspace_id, &profile, version, trace_id);
                let holding = self.profile.borrow_mut().pushed(&workspace_id, VersionedProfile { profile, version });
                to_json(&ProfileHeld { holding: holding || listening })
            }
        }
    }
}
