//! Frozen run contexts of one document, in its Durable Object's SQLite storage (SPEC §10).
//!
//! When a Hermes run starts, the page is frozen into a context: its id, scope, revision and the only
//! blocks a write may target. The row is what later tool calls naming that `contextId` are checked
//! against, so the model cannot widen its own scope. Rows expire after `MNOTE_CONTEXT_TTL_SECONDS`;
//! expired rows are ignored on read and deleted whenever a new context is frozen.

use pageai_core::context::Scope;
use pageai_core::executor::FrozenContext;
use serde::Deserialize;
use worker::{SqlStorage, Storage};

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS frozen_contexts (
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

/// The frozen contexts of one document. Errors are runtime messages meant for the log.
#[derive(Debug)]
pub struct ContextStore {
    sql: SqlStorage,
}

impl ContextStore {
    /// Opens the store, creating its table on first use.
    pub fn open(storage: &Storage) -> Result<Self, String> {
        let sql = storage.sql();
        sql.exec(SCHEMA, None).map_err(|e| format!("create frozen_contexts: {e}"))?;
        Ok(ContextStore { sql })
    }

    /// Stores `context` (frozen with `scope`) until `expires_at_ms`, and drops every expired row.
    pub fn freeze(
        &self,
        context: &FrozenContext,
        scope: &Scope,
        now_ms: i64,
        expires_at_ms: i64,
    ) -> Result<(), String> {
        let allowed = serde_json::to_string(&context.allowed_target_block_ids).map_err(|e| e.to_string())?;
        let detail = serde_json::to_string(scope).map_err(|e| e.to_string())?;
        let revision = i64::try_from(context.revision).map_err(|_| "revision overflow".to_string())?;
        self.sql
            .exec("DELETE FROM frozen_contexts WHERE expires_at_ms <= ?", vec![now_ms.into()])
            .map_err(|e| format!("purge frozen_contexts: {e}"))?;
        self.sql
            .exec(
                "INSERT INTO frozen_contexts
                   (context_id, document_id, scope, scope_detail, revision, allowed_ids, expires_at_ms)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
                vec![
                    context.context_id.as_str().into(),
                    context.document_id.as_str().into(),
                    context.scope.as_str().into(),
                    detail.into(),
                    revision.into(),
                    allowed.into(),
                    expires_at_ms.into(),
                ],
            )
            .map_err(|e| format!("insert frozen context: {e}"))?;
        Ok(())
    }

    /// The context `context_id`, unless it is unknown or expired at `now_ms`.
    pub fn lookup(&self, context_id: &str, now_ms: i64) -> Result<Option<FrozenContext>, String> {
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT document_id, scope, revision, allowed_ids FROM frozen_contexts
                 WHERE context_id = ? AND expires_at_ms > ?",
                vec![context_id.into(), now_ms.into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| format!("read frozen_contexts: {e}"))?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        let allowed: Vec<String> =
            serde_json::from_str(&row.allowed_ids).map_err(|e| format!("decode allowed_ids: {e}"))?;
        Ok(Some(FrozenContext {
            context_id: context_id.to_string(),
            document_id: row.document_id,
            revision: u64::try_from(row.revision).map_err(|_| "negative revision".to_string())?,
            scope: row.scope,
            allowed_target_block_ids: allowed,
        }))
    }
}
