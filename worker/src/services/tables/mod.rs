//! A document's tables in its Durable Object's SQLite storage: idempotency records, frozen contexts, review
//! sessions, the audit chain and tool events, beside the page ([`super::page_store`]).
//!
//! Each table implements the [`super::stores`] trait (or core's) it backs. Reads go straight to storage;
//! writes are held in memory and reach storage only in [`Tables::commit`], one `transactionSync` together
//! with the page's changed rows, through the [`Sql`] layer that counts the rows written. So a command
//! either lands whole (page, session, idempotency record, audit entry, events) or not at all, even if the
//! object is evicted halfway.
//!
//! Core's store traits read infallibly (`IdempotencyStore::lookup`, `AuditStore::last`). A failed read there
//! is caught by the table's [`FailedRead`] and turns the whole command into `mnote_storage_failed` before
//! anything is committed, so a storage fault can never pass for "no record".
//!
//! The dependencies point one way: this module uses [`super::page_store`] (the page's rows it commits) and
//! both use [`super::sqlite`] (the SQL layer, and the storage-error helpers every table shares).

mod audit;
mod context_cache;
mod contexts;
mod events;
mod idempotency;
pub mod live_log;
pub mod run_contexts;
mod sessions;

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
use super::sqlite::{FailedRead, ObjectSql, Sql, atomically, storage};

/// The tables' `CREATE … IF NOT EXISTS` statements, run once per wake of the object.
pub fn create_schema(sql: &dyn Sql) -> Result<(), Error> {
    for statement in [
        idempotency::SCHEMA,
        contexts::SCHEMA,
        sessions::SCHEMA,
        sessions::INDEX,
        sessions::REASONS,
        audit::SCHEMA,
        audit::HEAD_SCHEMA,
        events::SCHEMA,
        events::INDEX,
        live_log::SCHEMA,
        live_log::INDEX,
        run_contexts::SCHEMA,
    ] {
        sql.run(statement, Vec::new()).map_err(|e| storage("create table", e))?;
    }
    contexts::migrate(sql)?;
    sessions::migrate(sql)
}

/// The tables of one document, open for one command.
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
            sessions: SessionTable::new(raw.clone(), contexts.clone()),
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
