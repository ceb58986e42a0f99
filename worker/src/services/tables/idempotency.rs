//! Idempotency records of applied writes (core's [`IdempotencyStore`]), keyed by `idempotencyKey`. The
//! object serves one document, so the key alone is unique.

use pageai_core::executor::idempotency::{IdempotencyRecord, IdempotencyStore};
use serde::Deserialize;
use worker::SqlStorage;

use super::FailedRead;
use crate::services::sqlite::Sql;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    response TEXT NOT NULL
)";

#[derive(Deserialize)]
struct Row {
    fingerprint: String,
    response: String,
}

/// The table, with this command's new records.
pub struct IdempotencyTable {
    sql: SqlStorage,
    failed_read: FailedRead,
    pending: Vec<(String, IdempotencyRecord)>,
}

impl IdempotencyTable {
    pub(super) fn new(sql: SqlStorage, failed_read: FailedRead) -> Self {
        IdempotencyTable { sql, failed_read, pending: Vec::new() }
    }

    /// Inserts the new records. A key stored twice is a bug upstream (the executor replays known keys),
    /// so the primary key's conflict aborts the transaction rather than overwriting the first answer.
    pub(super) fn flush(self, sql: &dyn Sql) -> worker::Result<()> {
        for (key, record) in self.pending {
            sql.run(
                "INSERT INTO idempotency (key, fingerprint, response) VALUES (?, ?, ?)",
                vec![key.into(), record.fingerprint.into(), record.response.into()],
            )?;
        }
        Ok(())
    }
}

impl IdempotencyStore for IdempotencyTable {
    fn lookup(&self, _document_id: &str, key: &str) -> Option<IdempotencyRecord> {
        if let Some((_, record)) = self.pending.iter().rev().find(|(k, _)| k == key) {
            return Some(record.clone());
        }
        let rows: Result<Vec<Row>, _> = self
            .sql
            .exec("SELECT fingerprint, response FROM idempotency WHERE key = ?", vec![key.into()])
            .and_then(|cursor| cursor.to_array());
        match rows {
            Ok(rows) => {
                rows.into_iter().next().map(|r| IdempotencyRecord { fingerprint: r.fingerprint, response: r.response })
            }
            Err(e) => {
                self.failed_read.record("read idempotency", e);
                None
            }
        }
    }

    fn record(&mut self, _document_id: &str, key: &str, record: IdempotencyRecord) {
        self.pending.push((key.to_string(), record));
    }
}
