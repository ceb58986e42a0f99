//! The audit chain (core's [`AuditStore`]): one row per entry, plus a head row (`seq`, `hash`) written in
//! the same transaction, so a log cut at its end is caught by [`AuditTable::verify`] too.

use pageai_core::audit::{self, AuditEntryV1, AuditStore, GENESIS_HASH};
use pageai_core::{Error, Result};
use serde::{Deserialize, Serialize};
use worker::SqlStorage;

use super::{FailedRead, storage};
use crate::services::sqlite::Sql;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS audit_log (
    seq INTEGER PRIMARY KEY,
    hash TEXT NOT NULL,
    body TEXT NOT NULL
)";

pub(super) const HEAD_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    hash TEXT NOT NULL
)";

#[derive(Deserialize)]
struct BodyRow {
    body: String,
}

#[derive(Deserialize)]
struct HeadRow {
    seq: i64,
    hash: String,
}

/// The head of the chain: its last entry's `seq` and `hash` (`0` and the genesis hash when empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditHead {
    /// The last entry's sequence number.
    pub seq: u64,
    /// The last entry's hash.
    pub hash: String,
}

/// The table, with this command's new entries.
pub struct AuditTable {
    sql: SqlStorage,
    failed_read: FailedRead,
    pending: Vec<AuditEntryV1>,
}

impl AuditTable {
    pub(super) fn new(sql: SqlStorage, failed_read: FailedRead) -> Self {
        AuditTable { sql, failed_read, pending: Vec::new() }
    }

    /// Stored entries with `seq > after`, oldest first, at most `limit`.
    pub fn page(&self, after: u64, limit: u32) -> Result<Vec<AuditEntryV1>> {
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let rows: Vec<BodyRow> = self
            .sql
            .exec(
                "SELECT body FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?",
                vec![after.into(), i64::from(limit).into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read audit_log", e))?;
        rows.iter().map(|r| serde_json::from_str(&r.body).map_err(|e| storage("decode audit entry", e))).collect()
    }

    /// The stored head.
    pub fn head(&self) -> Result<AuditHead> {
        let rows: Vec<HeadRow> = self
            .sql
            .exec("SELECT seq, hash FROM audit_head WHERE id = 1", None)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read audit_head", e))?;
        Ok(match rows.into_iter().next() {
            Some(row) => AuditHead { seq: u64::try_from(row.seq).unwrap_or(0), hash: row.hash },
            None => AuditHead { seq: 0, hash: GENESIS_HASH.into() },
        })
    }

    /// Verifies the whole stored chain against the stored head. `Ok` carries the head that verified.
    pub fn verify(&self) -> Result<(AuditHead, usize)> {
        let entries = self.stored()?;
        let head = self.head()?;
        audit::verify_head(&entries, head.seq, &head.hash)?;
        Ok((head, entries.len()))
    }

    fn stored(&self) -> Result<Vec<AuditEntryV1>> {
        self.page(0, u32::MAX)
    }

    fn stored_last(&self) -> Result<Option<AuditEntryV1>> {
        let rows: Vec<BodyRow> = self
            .sql
            .exec("SELECT body FROM audit_log ORDER BY seq DESC LIMIT 1", None)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read audit_log", e))?;
        rows.into_iter()
            .next()
            .map(|r| serde_json::from_str(&r.body).map_err(|e| storage("decode audit entry", e)))
            .transpose()
    }

    pub(super) fn flush(self, sql: &dyn Sql) -> worker::Result<()> {
        let Some(last) = self.pending.last() else { return Ok(()) };
        let head_seq = i64::try_from(last.seq).map_err(|_| worker::Error::from("audit seq overflow"))?;
        let head_hash = last.hash.clone();
        for entry in &self.pending {
            let seq = i64::try_from(entry.seq).map_err(|_| worker::Error::from("audit seq overflow"))?;
            let body = serde_json::to_string(entry)?;
            sql.run(
                "INSERT INTO audit_log (seq, hash, body) VALUES (?, ?, ?)",
                vec![seq.into(), entry.hash.as_str().into(), body.into()],
            )?;
        }
        sql.run(
            "INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)
             ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
            vec![head_seq.into(), head_hash.into()],
        )
    }
}

impl AuditStore for AuditTable {
    fn append(&mut self, entry: AuditEntryV1) -> Result<()> {
        audit::check_link(self.last().as_ref(), &entry)?;
        self.pending.push(entry);
        Ok(())
    }

    fn entries(&self) -> Vec<AuditEntryV1> {
        let mut entries = self.stored().unwrap_or_else(|e| {
            self.failed_read.record("read audit_log", e.message());
            Vec::new()
        });
        entries.extend(self.pending.iter().cloned());
        entries
    }

    fn last(&self) -> Option<AuditEntryV1> {
        if let Some(entry) = self.pending.last() {
            return Some(entry.clone());
        }
        self.stored_last().unwrap_or_else(|e: Error| {
            self.failed_read.record("read audit_log", e.message());
            None
        })
    }
}
