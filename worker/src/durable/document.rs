//! `DocumentObject`: one Durable Object per document, the only writer of that document's storage.
//!
//! Every read and write of a document goes through its object, so writes are serialized and none is
//! lost (SPEC §10). The front Worker talks to it with a [`DocumentCommand`], a small typed enum sent as
//! the JSON body of one internal `POST`; the object answers `200` with the command's JSON, or a coded error
//! response built by [`crate::error`], which the front relays unchanged.
//!
//! Storage calls are synchronous and the object handles one request at a time, so a command's reads and
//! writes happen in a single turn with no other request between. A command that writes runs in
//! [`DocumentObject::transact`]: the services work on the page in memory and on a [`Desk`] over the
//! [`Ledger`], and everything they recorded (page, idempotency record, review session, frozen context,
//! audit entries, events) is committed in one SQLite transaction at the end, or nothing but the events
//! when the command failed.

use pageai_core::audit::{self, AuditAction, AuditDraft};
use pageai_core::context::ContextRequest;
use pageai_core::executor::FrozenContext;
use pageai_core::json::to_json;
use pageai_core::page::{Page, Permission};
use pageai_core::profile::Profile;
use pageai_core::route::{RouteInput, RouteV1, route};
use pageai_core::wire::PageAiContextV1;
use pageai_core::{Error, wire};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use worker::{DurableObject, Env, Request, Response, State, durable_object};

use crate::clock::Now;
use crate::config::{Config, DOCUMENTS_BINDING};
use crate::error::{Failure, OrInternal, TRACE_HEADER, error_response, internal};
use crate::http::text_response;
use crate::ids::{self, RandomMint};
use crate::services::block_edits::{self, BlockEdits};
use crate::services::commands::{self, CommandRequest};
use crate::services::desk::Desk;
use crate::services::documents::{PageDraft, seed};
use crate::services::ledger::Ledger;
use crate::services::page_store::{EncodedPage, PageStore};
use crate::services::reviews::{self, REVIEWER, ReviewAction};
use crate::services::tool_calls::{self, ToolCallRequest};

/// What the front Worker asks a document's object to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum DocumentCommand {
    /// Return the page; seed it first when it is a known sample and the store is empty.
    Get {
        /// The document the object serves (objects are addressed by this id).
        document_id: String,
    },
    /// Replace the page's blocks (and any metadata the draft names) at the next revision.
    Put {
        /// The document the object serves.
        document_id: String,
        /// The new content.
        draft: PageDraft,
    },
    /// Run one AI tool call ([`tool_calls`]); answers a [`tool_calls::ToolReply`].
    CallTool {
        /// The document the object serves.
        document_id: String,
        /// The profile the guards read.
        profile: Profile,
        /// The call.
        call: ToolCallRequest,
    },
    /// Route and act on a page-AI command ([`commands`]); answers a [`commands::CommandAnswer`].
    Command {
        /// The document the object serves.
        document_id: String,
        /// The profile the router and the guards read.
        profile: Profile,
        /// The command.
        request: CommandRequest,
        /// Tags the shortcut's events and session.
        trace_id: String,
    },
    /// Act on a review session ([`reviews`]).
    Review {
        /// The document the object serves.
        document_id: String,
        /// The profile the guards read.
        profile: Profile,
        /// The session.
        session_id: String,
        /// What to do.
        action: ReviewAction,
    },
    /// Apply a person's block edits ([`block_edits`]); answers the `mnote.tool_result.v1`.
    EditBlocks {
        /// The document the object serves.
        document_id: String,
        /// The profile the guards read.
        profile: Profile,
        /// The edits.
        edits: BlockEdits,
    },
    /// The document's review sessions, newest first.
    ListSessions {
        /// The document the object serves.
        document_id: String,
        /// At most this many.
        limit: u32,
    },
    /// Audit entries after `after`, oldest first.
    Audit {
        /// The document the object serves.
        document_id: String,
        /// Entries with a larger `seq`.
        after: u64,
        /// At most this many.
        limit: u32,
    },
    /// Verify the whole audit chain against its stored head.
    VerifyAudit {
        /// The document the object serves.
        document_id: String,
    },
    /// Tool and review events after `after`, oldest first; one run's only when `run_id` is set.
    Events {
        /// The document the object serves.
        document_id: String,
        /// Only this run's events.
        run_id: Option<String>,
        /// Events with a larger `seq`.
        after: u64,
        /// At most this many.
        limit: u32,
    },
    /// Freeze the page into a context for a Hermes run, store it with an expiry, and route the message
    /// against it. All in one turn, so the context, the route and the stored row see the same revision.
    FreezeRun {
        /// The document the object serves.
        document_id: String,
        /// The id to give the context (minted by the caller).
        context_id: String,
        /// Scope, views and budget of the context.
        request: ContextRequest,
        /// How long the context stays valid, in seconds.
        ttl_seconds: u64,
        /// The user's message, for the router.
        message: String,
        /// The user's selection, for the router.
        selection: Vec<String>,
        /// Disabled tools and review mode.
        profile: Profile,
        /// The key the router puts in a recommended call.
        idempotency_key: String,
    },
}

/// The answer of [`DocumentCommand::FreezeRun`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrozenRun {
    /// The frozen context (with the views the request asked for).
    pub context: PageAiContextV1,
    /// The page's permission, for the manifest.
    pub permission: Permission,
    /// The router's answer for the message.
    pub route: RouteV1,
}

/// The Durable Object class bound as `DOCUMENTS`. Private: only the runtime constructs it, through the
/// glue `#[durable_object]` generates.
#[durable_object]
struct DocumentObject {
    state: State,
    config: Config,
}

impl DurableObject for DocumentObject {
    fn new(state: State, env: Env) -> Self {
        DocumentObject { state, config: Config::from_env(&env) }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let trace_id = ids::trace_id(req.headers().get(TRACE_HEADER).ok().flatten().as_deref());
        let outcome = match req.text().await {
            Ok(body) => wire::from_json::<DocumentCommand>(&body).and_then(|command| self.run(command, &trace_id)),
            Err(e) => Err(internal("read document command", e, &trace_id)),
        };
        match outcome.and_then(|json| text_response(json, "application/json; charset=utf-8", &trace_id)) {
            Ok(response) => Ok(response),
            Err(error) => error_response(&error, &trace_id),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listing<'a, T: Serialize> {
    document_id: &'a str,
    #[serde(flatten)]
    items: T,
}

impl DocumentObject {
    /// Runs one command: one step per command below, or a service inside [`Self::transact`].
    fn run(&self, command: DocumentCommand, trace_id: &str) -> Result<String, Error> {
        match command {
            DocumentCommand::Get { document_id } => self.get(&document_id, trace_id),
            DocumentCommand::Put { document_id, draft } => self.put(&document_id, draft, trace_id),
            DocumentCommand::CallTool { document_id, profile, call } => {
                self.transact(&document_id, &profile, trace_id, |page, desk| {
                    to_json(&tool_calls::call(page, &call, desk)?)
                })
            }
            DocumentCommand::Command { document_id, profile, request, trace_id: command_trace } => {
                self.transact(&document_id, &profile, trace_id, |page, desk| {
                    to_json(&commands::run(page, &request, &command_trace, desk)?)
                })
            }
            DocumentCommand::Review { document_id, profile, session_id, action } => {
                self.transact(&document_id, &profile, trace_id, |page, desk| {
                    reviews::act(page, &session_id, &action, desk)
                })
            }
            DocumentCommand::EditBlocks { document_id, profile, edits } => {
                self.transact(&document_id, &profile, trace_id, |page, desk| {
                    block_edits::apply(page, &edits, trace_id, desk)
                })
            }
            DocumentCommand::ListSessions { document_id, limit } => self.list_sessions(&document_id, limit, trace_id),
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
                profile,
                idempotency_key,
            } => {
                let (page, context, frozen) =
                    self.freeze_context(&document_id, &context_id, &request, ttl_seconds, trace_id)?;
                let route = route_message(&message, &page, &frozen, &selection, &profile, &idempotency_key);
                to_json(&FrozenRun { context, permission: page.permission, route })
            }
        }
    }

    /// The stored page, seeded first when it is a known sample.
    fn get(&self, document_id: &str, trace_id: &str) -> Result<String, Error> {
        let store = PageStore::open(self.state.storage()).or_internal("open page store", trace_id)?;
        to_json(&load_or_seed(&store, document_id, trace_id)?)
    }

    /// The document's review sessions, newest first.
    fn list_sessions(&self, document_id: &str, limit: u32, trace_id: &str) -> Result<String, Error> {
        let ledger = self.read_ledger(document_id, trace_id)?;
        to_json(&Listing { document_id, items: Sessions { sessions: ledger.sessions.list(limit)? } })
    }

    /// Audit entries after `after`, oldest first, with the chain's head.
    fn audit_page(&self, document_id: &str, after: u64, limit: u32, trace_id: &str) -> Result<String, Error> {
        let ledger = self.read_ledger(document_id, trace_id)?;
        let entries = ledger.audit.page(after, limit)?;
        to_json(&Listing { document_id, items: AuditPage { head: ledger.audit.head()?, entries } })
    }

    /// Verifies the whole audit chain against its stored head.
    fn verify_audit(&self, document_id: &str, trace_id: &str) -> Result<String, Error> {
        let ledger = self.read_ledger(document_id, trace_id)?;
        let (head, entries) = ledger.audit.verify()?;
        to_json(&Listing { document_id, items: Verified { ok: true, verified: true, entries, head } })
    }

    /// Tool and review events after `after`, oldest first; one run's only when `run_id` is set.
    fn events_page(
        &self,
        document_id: &str,
        run_id: Option<&str>,
        after: u64,
        limit: u32,
        trace_id: &str,
    ) -> Result<String, Error> {
        let ledger = self.read_ledger(document_id, trace_id)?;
        let events = ledger.event_table().list(run_id, after, limit)?;
        to_json(&Listing { document_id, items: EventsPage { events } })
    }

    /// Builds the run's context from the page and stores it frozen until `ttl_seconds` from now, committed
    /// at once (the run's writes bind to it from another request).
    fn freeze_context(
        &self,
        document_id: &str,
        context_id: &str,
        request: &ContextRequest,
        ttl_seconds: u64,
        trace_id: &str,
    ) -> Result<(Page, PageAiContextV1, FrozenContext), Error> {
        let store = PageStore::open(self.state.storage()).or_internal("open page store", trace_id)?;
        let page = load_or_seed(&store, document_id, trace_id)?;
        let (context, frozen) = FrozenContext::freeze(&page, request, context_id)?;
        let now_ms = js_sys::Date::now() as i64;
        let ttl_ms = i64::try_from(ttl_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
        let mut ledger = Ledger::open(self.state.storage(), now_ms)?;
        ledger.contexts.freeze_run(&frozen, &request.scope, now_ms.saturating_add(ttl_ms))?;
        ledger.commit(None, true).or_internal("freeze run context", trace_id)?;
        Ok((page, context, frozen))
    }

    /// The document's books for reading, once the document is known to exist.
    fn read_ledger(&self, document_id: &str, trace_id: &str) -> Result<Ledger, Error> {
        self.require_page(document_id, trace_id)?;
        Ledger::open(self.state.storage(), 0)
    }

    /// Fails with `mnote_document_not_found` unless the document exists (or is a sample, seeded now).
    fn require_page(&self, document_id: &str, trace_id: &str) -> Result<(), Error> {
        let store = PageStore::open(self.state.storage()).or_internal("open page store", trace_id)?;
        load_or_seed(&store, document_id, trace_id).map(drop)
    }

    /// Stores a new page (or the first one) with its `document.put` audit entry, in one transaction.
    fn put(&self, document_id: &str, draft: PageDraft, trace_id: &str) -> Result<String, Error> {
        let store = PageStore::open(self.state.storage()).or_internal("open page store", trace_id)?;
        let stored = store.load().or_internal("load page", trace_id)?;
        let page = draft.resolve(document_id, stored.as_ref())?;
        let encoded = EncodedPage::encode(&page)?;
        let now = Now::read();
        let mut ledger = Ledger::open(self.state.storage(), now.ms)?;
        let entry = AuditDraft {
            at: now.at.clone(),
            actor: REVIEWER.into(),
            document_id: document_id.into(),
            action: AuditAction::DocumentPut,
            tool_name: None,
            tool_call_id: None,
            review_session_id: None,
            revision: page.revision,
            summary: format!("stored the page: {} block(s)", page.blocks.len()),
        };
        audit::record(&mut ledger.audit, entry)?;
        if let Some(failure) = ledger.read_failure() {
            return Err(internal("read document storage", failure, trace_id));
        }
        ledger.commit(Some(encoded), true).or_internal("commit page", trace_id)?;
        to_json(&page)
    }

    /// Runs `work` on the page and a desk over the document's books, then commits what it recorded in one
    /// transaction (see the module docs). A failed `work` keeps only its events.
    fn transact<T>(
        &self,
        document_id: &str,
        profile: &Profile,
        trace_id: &str,
        work: impl FnOnce(&mut Page, &mut Desk<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let store = PageStore::open(self.state.storage()).or_internal("open page store", trace_id)?;
        let mut page = load_or_seed(&store, document_id, trace_id)?;
        let revision = page.revision;
        let now = Now::read();
        let mut ledger = Ledger::open(self.state.storage(), now.ms)?;
        let mut mint = RandomMint::default();
        let outcome = {
            let Ledger { idempotency, audit, sessions, contexts, events, .. } = &mut ledger;
            let mut desk = Desk {
                profile,
                now: &now,
                context_ttl_seconds: self.config.context_ttl_seconds,
                idempotency,
                audit,
                sessions,
                contexts,
                events,
                mint: &mut mint,
            };
            work(&mut page, &mut desk)
        };
        if let Some(failure) = ledger.read_failure() {
            return Err(internal("read document storage", failure, trace_id));
        }
        mint.finish()?;
        let page = match (&outcome, page.revision != revision) {
            (Ok(_), true) => Some(EncodedPage::encode(&page)?),
            _ => None,
        };
        ledger.commit(page, outcome.is_ok()).or_internal("commit document command", trace_id)?;
        outcome
    }
}

#[derive(Serialize)]
struct Sessions {
    sessions: Vec<crate::services::desk::SessionSummary>,
}

#[derive(Serialize)]
struct AuditPage {
    head: crate::services::ledger::AuditHead,
    entries: Vec<pageai_core::audit::AuditEntryV1>,
}

#[derive(Serialize)]
struct Verified {
    ok: bool,
    verified: bool,
    entries: usize,
    head: crate::services::ledger::AuditHead,
}

#[derive(Serialize)]
struct EventsPage {
    events: Vec<crate::services::ledger::StoredEvent>,
}

/// The router's answer for the run's message, against the context just frozen.
fn route_message(
    message: &str,
    page: &Page,
    frozen: &FrozenContext,
    selection: &[String],
    profile: &Profile,
    idempotency_key: &str,
) -> RouteV1 {
    let input = RouteInput { page, context: frozen, selection, profile, grants: None, idempotency_key };
    route(message, &input)
}

/// The stored page, seeding it first when it is a known sample and the store is empty.
fn load_or_seed(store: &PageStore, document_id: &str, trace_id: &str) -> Result<Page, Error> {
    if let Some(page) = store.load().or_internal("load page", trace_id)? {
        return Ok(page);
    }
    let Some(page) = seed(document_id)? else {
        return Err(Error::DocumentNotFound { document_id: document_id.into() });
    };
    store.save(EncodedPage::encode(&page)?).or_internal("seed page", trace_id)?;
    Ok(page)
}

/// The front Worker's handle on one document's object.
#[derive(Debug)]
pub struct DocumentClient {
    stub: worker::Stub,
}

impl DocumentClient {
    /// The object of `document_id` (created by the runtime on first use).
    pub fn new(env: &Env, document_id: &str, trace_id: &str) -> Result<Self, Error> {
        let namespace = env.durable_object(DOCUMENTS_BINDING).or_internal("bind DOCUMENTS", trace_id)?;
        let id = namespace.id_from_name(document_id).or_internal("derive object id", trace_id)?;
        let stub = id.get_stub().or_internal("get object stub", trace_id)?;
        Ok(DocumentClient { stub })
    }

    /// Sends `command` and returns the object's JSON answer as text. A coded error from the object comes
    /// back as [`Failure::Relayed`], ready to return to the client.
    pub async fn send_raw(&self, command: &DocumentCommand, trace_id: &str) -> Result<String, Failure> {
        super::call_object(&self.stub, "document", command, trace_id).await
    }

    /// Sends `command` and decodes the answer as `T`.
    pub async fn send<T: DeserializeOwned>(&self, command: &DocumentCommand, trace_id: &str) -> Result<T, Failure> {
        let text = self.send_raw(command, trace_id).await?;
        Ok(serde_json::from_str(&text).or_internal("decode document object answer", trace_id)?)
    }
}
