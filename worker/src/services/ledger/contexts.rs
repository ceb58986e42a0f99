//! Frozen contexts with an expiry (SPEC §10 "frozen run contexts (with a TTL)"): what a write's
//! `contextId` is checked against. Expired rows are ignored on read and purged whenever a context is frozen.
//!
//! The table is the one the Hermes proxy's run start writes too (`frozen_contexts`, same columns), so a
//! context frozen by either is visible to both.

use pageai_core::Error;
use pageai_core::executor::FrozenContext;
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue};

use super::storage;
use crate::services::desk::ContextStore;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS frozen_contexts (
    context_id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_detail TEXT NOT NULL,
    revision INTEGER NOT NULL,
    allowed_ids TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL
)";

#[derive(Deserialize)]
struct Row {
    document_id: String,
    scope: String,
    revision: i64,
    allowed_ids: String,
}

/// The table, with this command's new contexts.
pub struct ContextTable {
    sql: SqlStorage,
    now_ms: i64,
    pending: Vec<(FrozenContext, i64)>,
}

impl ContextTable {
    pub(super) fn new(sql: SqlStorage, now_ms: i64) -> Self {
        ContextTable { sql, now_ms, pending: Vec::new() }
    }

    pub(super) fn flush(self, sql: &SqlStorage) -> worker::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        sql.exec("DELETE FROM frozen_contexts WHERE expires_at_ms <= ?", vec![self.now_ms.into()])?;
        for (context, expires) in self.pending {
            let allowed = serde_json::to_string(&context.allowed_target_block_ids)?;
            let revision = i64::try_from(context.revision).map_err(|_| worker::Error::from("revision overflow"))?;
            let row: Vec<SqlStorageValue> = vec![
                context.context_id.into(),
                context.document_id.into(),
                context.scope.into(),
                // The full scope (e.g. a selection's ids) is not part of what core freezes; the allowed ids are.
                "null".into(),
                revision.into(),
                allowed.into(),
                expires.into(),
            ];
            sql.exec(
                "INSERT INTO frozen_contexts
                   (context_id, document_id, scope, scope_detail, revision, allowed_ids, expires_at_ms)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
                row,
            )?;
        }
        Ok(())
    }
}

impl ContextStore for ContextTable {
    fn load(&self, context_id: &str, now_ms: i64) -> Result<Option<FrozenContext>, Error> {
        if let Some((context, _)) = self.pending.iter().find(|(c, exp)| c.context_id == context_id && *exp > now_ms) {
            return Ok(Some(context.clone()));
        }
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT document_id, scope, revision, allowed_ids FROM frozen_contexts
                 WHERE context_id = ? AND expires_at_ms > ?",
                vec![context_id.into(), now_ms.into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read frozen_contexts", e))?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        let allowed: Vec<String> =
            serde_json::from_str(&row.allowed_ids).map_err(|e| storage("decode allowed_ids", e))?;
        Ok(Some(FrozenContext {
            context_id: context_id.to_string(),
            document_id: row.document_id,
            revision: u64::try_from(row.revision).map_err(|e| storage("decode revision", e))?,
            scope: row.scope,
            allowed_target_block_ids: allowed,
        }))
    }

    fn freeze(&mut self, context: &FrozenContext, expires_at_ms: i64) -> Result<(), Error> {
        self.pending.push((context.clone(), expires_at_ms));
        Ok(())
    }
}
