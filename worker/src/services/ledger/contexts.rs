//! Frozen contexts with an expiry (SPEC §10 "frozen run contexts (with a TTL)"): what a write's
//! `contextId` is checked against, so a model cannot widen its own scope. Expired rows are ignored on read
//! and purged whenever a context is frozen.
//!
//! Two writers freeze contexts here: core's executor (a `doc_fetch` through the tool route or MCP, via the
//! [`ContextStore`] trait) and the Hermes proxy's run start ([`ContextTable::freeze_run`], which also keeps
//! the request's full scope).

use pageai_core::Error;
use pageai_core::context::Scope;
use pageai_core::executor::FrozenContext;
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue};

use super::storage;
use crate::services::desk::ContextStore;
use crate::services::sqlite::Sql;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS frozen_contexts (
    context_id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_detail TEXT NOT NULL,
    revision INTEGER NOT NULL,
    allowed_ids TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    block_hashes TEXT NOT NULL DEFAULT '{}'
)";

/// The column stores made before block-level preconditions lack; added once when missing.
const ADD_BLOCK_HASHES: &str = "ALTER TABLE frozen_contexts ADD COLUMN block_hashes TEXT NOT NULL DEFAULT '{}'";

/// Block hashes larger than this are not kept: a write bound to such a context is judged by its
/// `baseRevision` and the page's history instead, which is as safe, only coarser for blocks changed and
/// changed back.
const MAX_HASHES_BYTES: usize = 256 * 1024;

/// Adds the `block_hashes` column to a table made before it existed.
pub(super) fn migrate(sql: &dyn Sql) -> Result<(), Error> {
    if sql.rows("SELECT block_hashes FROM frozen_contexts LIMIT 0", Vec::new()).is_ok() {
        return Ok(());
    }
    sql.run(ADD_BLOCK_HASHES, Vec::new()).map_err(|e| storage("add frozen_contexts.block_hashes", e))
}

#[derive(Deserialize)]
struct Row {
    document_id: String,
    scope: String,
    revision: i64,
    allowed_ids: String,
    block_hashes: String,
}

/// The table, with this command's new contexts.
pub struct ContextTable {
    sql: SqlStorage,
    now_ms: i64,
    pending: Vec<Pending>,
}

/// A context frozen by this command: the context, its expiry, and its scope as JSON (`null` when core
/// froze it: the allowed ids are what later checks read).
struct Pending {
    context: FrozenContext,
    expires_at_ms: i64,
    scope_detail: String,
}

impl ContextTable {
    pub(super) fn new(sql: SqlStorage, now_ms: i64) -> Self {
        ContextTable { sql, now_ms, pending: Vec::new() }
    }

    pub(super) fn flush(self, sql: &dyn Sql) -> worker::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        sql.run("DELETE FROM frozen_contexts WHERE expires_at_ms <= ?", vec![self.now_ms.into()])?;
        for Pending { context, expires_at_ms, scope_detail } in self.pending {
            let allowed = serde_json::to_string(&context.allowed_target_block_ids)?;
            let mut hashes = serde_json::to_string(&context.block_hashes)?;
            if hashes.len() > MAX_HASHES_BYTES {
                hashes = "{}".into();
            }
            let revision = i64::try_from(context.revision).map_err(|_| worker::Error::from("revision overflow"))?;
            let row: Vec<SqlStorageValue> = vec![
                context.context_id.into(),
                context.document_id.into(),
                context.scope.into(),
                scope_detail.into(),
                revision.into(),
                allowed.into(),
                expires_at_ms.into(),
                hashes.into(),
            ];
            sql.run(
                "INSERT INTO frozen_contexts
                   (context_id, document_id, scope, scope_detail, revision, allowed_ids, expires_at_ms,
                    block_hashes)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )?;
        }
        Ok(())
    }

    /// Freezes the context a Hermes run starts from, with the request's full scope (e.g. a selection's
    /// ids), until `expires_at_ms`. Written when the ledger commits.
    pub fn freeze_run(&mut self, context: &FrozenContext, scope: &Scope, expires_at_ms: i64) -> Result<(), Error> {
        let scope_detail = serde_json::to_string(scope).map_err(|e| storage("encode scope", e))?;
        self.pending.push(Pending { context: context.clone(), expires_at_ms, scope_detail });
        Ok(())
    }
}

impl ContextStore for ContextTable {
    fn load(&self, context_id: &str, now_ms: i64) -> Result<Option<FrozenContext>, Error> {
        let pending = self.pending.iter().find(|p| p.context.context_id == context_id && p.expires_at_ms > now_ms);
        if let Some(pending) = pending {
            return Ok(Some(pending.context.clone()));
        }
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT document_id, scope, revision, allowed_ids, block_hashes FROM frozen_contexts
                 WHERE context_id = ? AND expires_at_ms > ?",
                vec![context_id.into(), now_ms.into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read frozen_contexts", e))?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        let allowed: Vec<String> =
            serde_json::from_str(&row.allowed_ids).map_err(|e| storage("decode allowed_ids", e))?;
        let block_hashes = serde_json::from_str(&row.block_hashes).map_err(|e| storage("decode block_hashes", e))?;
        Ok(Some(FrozenContext {
            context_id: context_id.to_string(),
            document_id: row.document_id,
            revision: u64::try_from(row.revision).map_err(|e| storage("decode revision", e))?,
            scope: row.scope,
            allowed_target_block_ids: allowed,
            block_hashes,
        }))
    }

    fn freeze(&mut self, context: &FrozenContext, expires_at_ms: i64) -> Result<(), Error> {
        let scope_detail = "null".into();
        self.pending.push(Pending { context: context.clone(), expires_at_ms, scope_detail });
        Ok(())
    }
}
