//! A document's books in its Durable Object's SQLite storage: idempotency records, frozen contexts, review
//! sessions, the audit chain and tool events, beside the page ([`super::page_store`]).
//!
//! Each table implements the [`super::stores`] trait (or core's) it backs. Reads go straight to storage;
//! writes are held in memory and reach storage only in [`Tables::commit`], one `transactionSync` together
//! with the page's changed rows, through the [`Sql`] layer that counts the rows written. So a command either lands whole (page, session, idempotency record, audit entry, events)
//! or not at all, even if the object is evicted halfway.
//!
//! Core's store traits read infallibly (`IdempotencyStore::lookup`, `AuditStore::last`). A failed read there
//! is caught by the table's [`FailedRead`] and turns the whole command into `mnote_storage_failed` before
//! anything is committed, so a storage fault can never pass for "no record".

mod audit;
mod context_cache;
mod contexts;
mod events;
mod idempotency;
pub mod live_log;
pub mod run_contexts;
mod sessions;

use std::cell::RefCell;
use std::rc::Rc;

use pageai_core::Error;
use pageai_core::events::ToolEventV1;

pub use audit::{AuditHead, AuditTable};
pub use context_cache::ContextCache;
pub use contexts::ContextTable;
pub use events::{EventTable, StoredEvent};
pub use idempotency::IdempotencyTable;
pub use live_log::LiveRow;
pub use sessions::SessionTable;

use super::page_store::PageRows;
use super::sqlite::{ObjectSql, Sql, atomically};

/// Remembers the first read that failed inside an infallible trait method.
#[derive(Debug, Clone, Default)]
pub struct FailedRead(Rc<RefCell<Option<String>>>);

impl FailedRead {
    /// Records a failure (the first one wins; it is the cause).
    pub fn record(&self, what: &str, detail: impl std::fmt::Display) {
        let mut slot = self.0.borrow_mut();
        if slot.is_none() {
            *slot = Some(format!("{what}: {detail}"));
        }
    }

    /// The failure, if any.
    pub fn failure(&self) -> Option<String> {
        self.0.borrow().clone()
    }
}

/// Maps a storage error to the generic client error, with the detail in the log.
pub(crate) fn storage(what: &str, detail: impl std::fmt::Display) -> Error {
    worker::console_error!("document storage: {what} failed: {detail}");
    Error::StorageFailed
}

/// Encodes a value for one cell; past core's [`pageai_core::limits::MAX_STORED_RECORD_BYTES`] it is
/// `mnote_stored_record_too_large`, naming the record (`what` is e.g. `encode review session`) and
/// `block_id`, the block that makes it large, when the caller knows it.
pub(crate) fn encode<T: serde::Serialize>(what: &str, value: &T, block_id: Option<&str>) -> Result<String, Error> {
    let json = serde_json::to_string(value).map_err(|e| storage(what, e))?;
    pageai_core::limits::check_record(what.trim_start_matches("encode "), json.len(), block_id)?;
    Ok(json)
}

/// The tables' `CREATE … IF NOT EXISTS` statements, run once per wake of the object.
pub fn create_schema(sql: &dyn Sql) -> Result<(), Error> {
    for statement in [
        idempotency::SCHEMA,
        contexts::SCHEMA,
        sessions::SCHEMA,
        sessions::INDEX,
        audit::SCHEMA,
        audit::HEAD_SCHEMA,
        events::SCHEMA,
        events::INDEX,
        live_log::SCHEMA,
        live_log::INDEX,
        run_contexts::SCHEMA,
    ] {
        sql.run(statement, Vec::new()).map_err(|e| self::storage("create table", e))?;
    }
    contexts::migrate(sql)
}

/// The books of one document, open for one command.
pub struct Tables {
    sql: ObjectSql,
    failed_read: FailedRead,
    /// Idempotency records.
    pub idempotency: IdempotencyTable,
    /// The audit chain.
    pub audit: AuditTable,
    /// Review sessions.
    pub sessions: SessionTable,
    /// Frozen contexts.
    pub contexts: ContextTable,
    /// Events emitted by this command.
    pub events: Vec<ToolEventV1>,
    /// The live channel's messages of this command, written with its events (a failed command's too).
    pub live: Vec<LiveRow>,
}

impl Tables {
    /// Opens the tables (made by [`create_schema`]). `now_ms` is the command's clock, for expiries;
    /// `contexts` the object's frozen contexts in memory.
    pub fn new(sql: &ObjectSql, contexts: &ContextCache, now_ms: i64) -> Tables {
        let failed_read = FailedRead::default();
        let raw = sql.raw();
        Tables {
            idempotency: IdempotencyTable::new(raw.clone(), failed_read.clone()),
            audit: AuditTable::new(raw.clone(), failed_read.clone()),
            sessions: SessionTable::new(raw.clone()),
            contexts: ContextTable::new(raw.clone(), now_ms, contexts.clone()),
            events: Vec::new(),
            live: Vec::new(),
            sql: sql.clone(),
            failed_read,
        }
    }

    /// A read that failed inside one of core's infallible trait methods, if any.
    pub fn read_failure(&self) -> Option<String> {
        self.failed_read.failure()
    }

    /// The event table, for reads.
    pub fn event_table(&self) -> EventTable {
        EventTable::new(self.sql.raw().clone())
    }

    /// Writes everything this command recorded, with `page` when it changed, in one transaction. When
    /// `succeeded` is false only the events are written: a failed command changes nothing else.
    pub fn commit(self, page: Option<PageRows>, succeeded: bool) -> Result<(), String> {
        let Tables { sql, idempotency, audit, sessions, contexts, events, live, .. } = self;
        let events = EventTable::encode(&events).map_err(|e| e.message())?;
        let frozen = &contexts;
        atomically(&sql, move |sql: &dyn Sql| {
            if succeeded {
                if let Some(page) = page {
                    page.write(sql)?;
                }
                idempotency.flush(sql)?;
                frozen.flush(sql)?;
                sessions.flush(sql)?;
                audit.flush(sql)?;
            }
            EventTable::flush(sql, events)?;
            live_log::flush(sql, &live)
        })?;
        if succeeded {
            contexts.committed();
        }
        Ok(())
    }
}
