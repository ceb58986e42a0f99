//! The document object's read commands over its tables (review sessions, audit chain, events), and the
//! frozen context a Hermes run starts from.

use crate::identity::Acting;
use pageai_core::Error;
use pageai_core::context::ContextRequest;
use pageai_core::executor::FrozenContext;
use pageai_core::json::to_json;
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::review::listing::{Cursor, Filter};
use pageai_core::review::{self, Noted};
use pageai_core::route::{RouteInput, RouteV1, route};
use serde::Serialize;

use super::{DocumentObject, FrozenRun};
use crate::error::OrInternal;
use crate::services::stores::SessionStore;
use crate::services::tables::{AuditHead, StoredEvent, Tables};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listing<'a, T: Serialize> {
    document_id: &'a str,
    #[serde(flatten)]
    items: T,
}

#[derive(Serialize)]
struct AuditPage {
    head: AuditHead,
    entries: Vec<pageai_core::audit::AuditEntryV1>,
}

#[derive(Serialize)]
struct Verified {
    ok: bool,
    verified: bool,
    entries: usize,
    head: AuditHead,
}

#[derive(Serialize)]
struct EventsPage {
    events: Vec<StoredEvent>,
}

/// What a Hermes run's context is frozen from, and the message the router reads against it.
pub(super) struct RunToFreeze<'a> {
    /// The id to give the context (minted by the caller).
    pub context_id: &'a str,
    /// Scope, views and budget.
    pub request: &'a ContextRequest,
    /// How long it stays valid, in seconds.
    pub ttl_seconds: u64,
    /// The user's message.
    pub message: &'a str,
    /// The user's selection.
    pub selection: &'a [String],
    /// Disabled tools and review mode: the object's copy of the workspace's profile.
    pub profile: &'a Profile,
    /// The key the router puts in a recommended call.
    pub idempotency_key: &'a str,
}

impl DocumentObject {
    /// The document's review sessions, open ones first, each group newest first, with the counts.
    pub(super) fn list_sessions(
        &self,
        document_id: &str,
        filter: Option<&str>,
        cursor: Option<&str>,
        limit: u32,
        trace_id: &str,
    ) -> Result<String, Error> {
        let filter = Filter::parse(filter)?;
        let cursor = cursor.map(Cursor::parse).transpose()?;
        let tables = self.read_tables(document_id, trace_id)?;
        to_json(&Listing { document_id, items: tables.sessions.list(filter, cursor, limit)? })
    }

    /// The page's pending suggestions (`mnote.suggestion.v1`), from its sessions that wait for a person.
    pub(super) fn list_suggestions(&self, document_id: &str, trace_id: &str) -> Result<String, Error> {
        let tables = self.read_tables(document_id, trace_id)?;
        let mut cache = self.cache.borrow_mut();
        let page = cache.page(document_id, trace_id)?.0;
        crate::services::reviews::suggestions(page, &tables.sessions)
    }

    /// Audit entries after `after`, oldest first, with the chain's head.
    pub(super) fn audit_page(
        &self,
        document_id: &str,
        after: u64,
        limit: u32,
        trace_id: &str,
    ) -> Result<String, Error> {
        let tables = self.read_tables(document_id, trace_id)?;
        let entries = tables.audit.page(after, limit)?;
        to_json(&Listing { document_id, items: AuditPage { head: tables.audit.head()?, entries } })
    }

    /// Verifies the whole audit chain against its stored head.
    pub(super) fn verify_audit(&self, document_id: &str, trace_id: &str) -> Result<String, Error> {
        let tables = self.read_tables(document_id, trace_id)?;
        let (head, entries) = tables.audit.verify()?;
        to_json(&Listing { document_id, items: Verified { ok: true, verified: true, entries, head } })
    }

    /// Tool and review events after `after`, oldest first; one run's only when `run_id` is set.
    pub(super) fn events_page(
        &self,
        document_id: &str,
        run_id: Option<&str>,
        after: u64,
        limit: u32,
        trace_id: &str,
    ) -> Result<String, Error> {
        let tables = self.read_tables(document_id, trace_id)?;
        let events = tables.event_table().list(run_id, after, limit)?;
        to_json(&Listing { document_id, items: EventsPage { events } })
    }

    /// Builds the run's context from the page, stores it frozen until `ttl_seconds` from now (committed at
    /// once: the run's writes bind to it from another request) and routes the message against it.
    pub(super) fn freeze_run(
        &self,
        document_id: &str,
        run: &RunToFreeze<'_>,
        acting: &Acting,
        trace_id: &str,
    ) -> Result<FrozenRun, Error> {
        let mut cache = self.cache.borrow_mut();
        let sql = cache.sql().clone();
        let contexts = cache.contexts();
        let page = &*cache.page(document_id, trace_id)?.0;
        let now_ms = js_sys::Date::now() as i64;
        let ttl_ms = i64::try_from(run.ttl_seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
        let mut tables = Tables::new(&sql, &contexts, now_ms);
        // The run reads the page's pending suggestions with it, as its fetches do: it may propose on top.
        let waiting = tables.sessions.waiting()?;
        let noted: Vec<Noted<'_>> =
            waiting.iter().map(|(session, reason)| Noted { session, reason: reason.as_deref() }).collect();
        let suggestions = review::suggestions(&noted, page);
        let (context, frozen) = FrozenContext::freeze_v2(page, run.request, run.context_id, &suggestions)?;
        tables.contexts.act_for(acting);
        tables.contexts.freeze_run(&frozen, &run.request.scope, now_ms.saturating_add(ttl_ms))?;
        tables.commit(None, true).or_internal("freeze run context", trace_id)?;
        let route = route_message(page, &frozen, run);
        Ok(FrozenRun { context, permission: page.permission, route, profile: run.profile.clone() })
    }

    /// The document's tables for reading, once the document is known to exist.
    fn read_tables(&self, document_id: &str, trace_id: &str) -> Result<Tables, Error> {
        let mut cache = self.cache.borrow_mut();
        cache.page(document_id, trace_id)?;
        Ok(Tables::new(cache.sql(), &cache.contexts(), 0))
    }
}

/// The router's answer for the run's message, against the context just frozen.
fn route_message(page: &Page, frozen: &FrozenContext, run: &RunToFreeze<'_>) -> RouteV1 {
    let input = RouteInput {
        page,
        context: frozen,
        selection: run.selection,
        profile: run.profile,
        grants: None,

        idempotency_key: run.idempotency_key,
    };
    route(run.message, &input)
}
