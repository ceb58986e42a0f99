//! `DocumentObject`: one Durable Object per document, the only writer of that document's storage.
//!
//! Every read and write of a document goes through its object, so writes are serialized and none is
//! lost (SPEC §10). The front Worker talks to it with a [`DocumentCommand`], a small typed enum sent as
//! the JSON body of one internal `POST`; the object answers `200` with the command's [`Answer`], or a
//! coded error response built by [`crate::error`], which the front relays unchanged.
//!
//! Storage calls are synchronous and the object handles one request at a time, so a command's read of
//! the stored page and its write of the next one happen in a single turn with no other request between.

use pageai_core::context::{ContextRequest, build_context};
use pageai_core::executor::FrozenContext;
use pageai_core::page::{Page, Permission};
use pageai_core::profile::Profile;
use pageai_core::route::{RouteInput, RouteV1, route};
use pageai_core::wire::PageAiContextV1;
use pageai_core::{Error, wire};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use worker::{DurableObject, Env, Headers, Method, Request, RequestInit, Response, State, durable_object};

use crate::config::DOCUMENTS_BINDING;
use crate::error::{Failure, OrInternal, TRACE_HEADER, error_response, internal};
use crate::ids;
use crate::routes::json_response;
use crate::services::context_store::ContextStore;
use crate::services::documents::{PageDraft, seed};
use crate::services::page_store::{EncodedPage, PageStore};

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

/// What a command answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Answer {
    /// `Get` and `Put`: the page.
    Page(Page),
    /// `FreezeRun`: the frozen context and the route.
    FrozenRun(Box<FrozenRun>),
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
}

impl DurableObject for DocumentObject {
    fn new(state: State, _env: Env) -> Self {
        DocumentObject { state }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let trace_id = ids::trace_id(req.headers().get(TRACE_HEADER).ok().flatten().as_deref());
        let outcome = match req.text().await {
            Ok(body) => wire::from_json::<DocumentCommand>(&body).and_then(|command| self.run(command, &trace_id)),
            Err(e) => Err(internal("read document command", e, &trace_id)),
        };
        match outcome.and_then(|answer| json_response(&answer, &trace_id)) {
            Ok(response) => Ok(response),
            Err(error) => error_response(&error, &trace_id),
        }
    }
}

impl DocumentObject {
    fn run(&self, command: DocumentCommand, trace_id: &str) -> Result<Answer, Error> {
        let store = PageStore::open(self.state.storage()).or_internal("open page store", trace_id)?;
        match command {
            DocumentCommand::Get { document_id } => Ok(Answer::Page(load_or_seed(&store, document_id, trace_id)?)),
            DocumentCommand::Put { document_id, draft } => {
                let stored = store.load().or_internal("load page", trace_id)?;
                let page = draft.resolve(&document_id, stored.as_ref())?;
                store.save(EncodedPage::encode(&page)?).or_internal("save page", trace_id)?;
                Ok(Answer::Page(page))
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
                let page = load_or_seed(&store, document_id, trace_id)?;
                let context = build_context(&page, &request, &context_id)?;
                let frozen = FrozenContext::of(&context);
                let now_ms = js_sys::Date::now() as i64;
                let ttl_ms = i64::try_from(ttl_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
                let contexts = ContextStore::open(&self.state.storage()).or_internal("open context store", trace_id)?;
                contexts
                    .freeze(&frozen, &request.scope, now_ms, now_ms.saturating_add(ttl_ms))
                    .or_internal("freeze run context", trace_id)?;
                let input = RouteInput {
                    page: &page,
                    context: &frozen,
                    selection: &selection,
                    profile: &profile,
                    grants: None,
                    idempotency_key: &idempotency_key,
                };
                let route = route(&message, &input);
                Ok(Answer::FrozenRun(Box::new(FrozenRun { context, permission: page.permission, route })))
            }
        }
    }
}

/// The stored page, seeding it first when it is a known sample and the store is empty.
fn load_or_seed(store: &PageStore, document_id: String, trace_id: &str) -> Result<Page, Error> {
    if let Some(page) = store.load().or_internal("load page", trace_id)? {
        return Ok(page);
    }
    let Some(page) = seed(&document_id)? else {
        return Err(Error::DocumentNotFound { document_id });
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

    /// Sends `command` and decodes the object's answer as `T` (a [`Page`] for `Get` and `Put`, a
    /// [`FrozenRun`] for `FreezeRun`). A coded error from the object comes back as [`Failure::Relayed`],
    /// ready to return to the client.
    pub async fn send<T: DeserializeOwned>(&self, command: &DocumentCommand, trace_id: &str) -> Result<T, Failure> {
        let body = serde_json::to_string(command).or_internal("encode document command", trace_id)?;
        let headers = Headers::new();
        headers.set(TRACE_HEADER, trace_id).or_internal("set trace header", trace_id)?;
        headers.set("content-type", "application/json").or_internal("set content type", trace_id)?;
        let mut init = RequestInit::new();
        init.with_method(Method::Post).with_headers(headers).with_body(Some(body.into()));
        // The host is never resolved: a stub delivers the request straight to the object.
        let request =
            Request::new_with_init("https://document.internal/", &init).or_internal("build request", trace_id)?;
        let mut response = self.stub.fetch_with_request(request).await.or_internal("call document object", trace_id)?;
        if response.status_code() != 200 {
            return Err(Failure::Relayed(response));
        }
        let text = response.text().await.or_internal("read document object answer", trace_id)?;
        let answer = serde_json::from_str(&text).or_internal("decode document object answer", trace_id)?;
        Ok(answer)
    }
}
