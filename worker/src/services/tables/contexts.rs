//! Frozen contexts with an expiry (SPEC §10 "frozen run contexts (with a TTL)"): what a write's
//! `contextId` is checked against, so a model cannot widen its own scope. Expired rows are ignored on read
//! and purged whenever a context is frozen, except the rows a review session names as its scope (its
//! `base.allowedTargetBlockIds`, stored by reference: [`super::sessions`]), which keep their allowed ids.
//!
//! Each context records whom it was made for (`user_id`, `role`): the person whose run it is. A tool
//! call that names it acts for that person ([`ContextTable::acting_of`]), never above their role. Rows
//! made before identities act for the single user, as owner.
//!
//! Committed contexts are also kept in the object's memory ([`ContextCache`]), with whom they act for: a
//! write borrows its context there (shared, not copied), and reads it (or its `user_id` and `role`, which
//! the row stores after its ids and hashes) from SQLite only after an eviction or a restart.
//!
//! Two writers freeze contexts here: core's executor (a `doc_fetch` through the tool route or MCP, via the
//! [`ContextStore`] trait) and the Hermes proxy's run start ([`ContextTable::freeze_run`], which also keeps
//! the request's full scope).

use std::rc::Rc;

use pageai_core::Error;
use pageai_core::context::Scope;
use pageai_core::executor::FrozenContext;
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue};

use super::context_cache::ContextCache;
use crate::identity::Acting;
use crate::services::sqlite::{Sql, storage};
use crate::services::stores::ContextStore;
use pageai_core::policy::Role;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS frozen_contexts (
    context_id TEXT PRIMARY KEY,
    document_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    scope_detail TEXT NOT NULL,
    revision INTEGER NOT NULL,
    allowed_ids TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    block_hashes TEXT NOT NULL DEFAULT '{}',
    user_id TEXT NOT NULL DEFAULT 'user',
    role TEXT NOT NULL DEFAULT 'owner'
)";

/// The columns stores made before identities lack; added once when missing.
const ADD_ACTING: [&str; 2] = [
    "ALTER TABLE frozen_contexts ADD COLUMN user_id TEXT NOT NULL DEFAULT 'user'",
    "ALTER TABLE frozen_contexts ADD COLUMN role TEXT NOT NULL DEFAULT 'owner'",
];

/// The column stores made before block-level preconditions lack; added once when missing.
const ADD_BLOCK_HASHES: &str = "ALTER TABLE frozen_contexts ADD COLUMN block_hashes TEXT NOT NULL DEFAULT '{}'";

/// Block hashes larger than this are not kept: a write bound to such a context is judged by its
/// `baseRevision` and the page's history instead, which is as safe, only coarser for blocks changed and
/// changed back.
const MAX_HASHES_BYTES: usize = 256 * 1024;

/// Adds the `block_hashes`, `user_id` and `role` columns to a table made before they existed.
pub(super) fn migrate(sql: &dyn Sql) -> Result<(), Error> {
    if sql.rows("SELECT block_hashes FROM frozen_contexts LIMIT 0", Vec::new()).is_err() {
        sql.run(ADD_BLOCK_HASHES, Vec::new()).map_err(|e| storage("add frozen_contexts.block_hashes", e))?;
    }
    if sql.rows("SELECT user_id FROM frozen_contexts LIMIT 0", Vec::new()).is_err() {
        for statement in ADD_ACTING {
            sql.run(statement, Vec::new()).map_err(|e| storage("add frozen_contexts.user_id, role", e))?;
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct Row {
    document_id: String,
    scope: String,
    revision: i64,
    allowed_ids: String,
    block_hashes: String,
    expires_at_ms: i64,
    user_id: String,
    role: String,
}

/// The table, with this command's new contexts.
pub struct ContextTable {
    sql: SqlStorage,
    now_ms: i64,
    pending: Vec<Pending>,
    /// Whom this command's new contexts are made for.
    acting: Acting,
    cache: ContextCache,
}

#[derive(Deserialize)]
struct ActingRow {
    user_id: String,
    role: String,
}

/// A context frozen by this command: the context, its expiry, its scope as JSON (`null` when core froze
/// it: the allowed ids are what later checks read), and its columns as JSON.
struct Pending {
    context: Rc<FrozenContext>,
    expires_at_ms: i64,
    scope_detail: String,
    allowed: String,
    /// `{}` when the hashes were too large to keep.
    hashes: String,
}

impl Pending {
    fn new(context: &FrozenContext, expires_at_ms: i64, scope_detail: String) -> Result<Pending, Error> {
        let allowed =
            serde_json::to_string(&context.allowed_target_block_ids).map_err(|e| storage("encode allowed_ids", e))?;
        let mut hashes = serde_json::to_string(&context.block_hashes).map_err(|e| storage("encode block_hashes", e))?;
        if hashes.len() > MAX_HASHES_BYTES {
            hashes = "{}".into();
        }
        Ok(Pending { context: Rc::new(context.clone()), expires_at_ms, scope_detail, allowed, hashes })
    }

    /// The context as a later command reads it back from its row: shared, unless its hashes were too
    /// large to keep.
    fn stored(self) -> Rc<FrozenContext> {
        if self.hashes != "{}" || self.context.block_hashes.is_empty() {
            return self.context;
        }
        Rc::new(FrozenContext { block_hashes: Default::default(), ..(*self.context).clone() })
    }
}

impl ContextTable {
    pub(super) fn new(sql: SqlStorage, now_ms: i64, cache: ContextCache) -> Self {
        ContextTable { sql, now_ms, pending: Vec::new(), acting: Acting::single_user(), cache }
    }

    /// The contexts this command freezes are made for `acting`.
    pub fn act_for(&mut self, acting: &Acting) {
        self.acting = acting.clone();
    }

    /// Whom the unexpired context `context_id` was made for, if it exists.
    pub fn acting_of(&self, context_id: &str) -> Result<Option<Acting>, Error> {
        // Kept in memory with the context: its row's `user_id` and `role` come after its ids and hashes,
        // which SQLite would walk through to reach them (0.35 MB under a 10,000-block context).
        if let Some(acting) = self.cache.acting(context_id, self.now_ms) {
            return Ok(Some(acting));
        }
        let rows: Vec<ActingRow> = self
            .sql
            .exec(
                "SELECT user_id, role FROM frozen_contexts WHERE context_id = ? AND expires_at_ms > ?",
                vec![context_id.into(), self.now_ms.into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read frozen_contexts", e))?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        let role = Role::parse(&row.role).ok_or_else(|| storage("decode frozen_contexts.role", &row.role))?;
        Ok(Some(Acting { user: row.user_id, role }))
    }

    pub(super) fn flush(&self, sql: &dyn Sql) -> worker::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        // An expired context is dropped unless a review session stores its scope by reference to it
        // (`review_sessions.scope_context_id`): then only its block hashes go, which no write reads again.
        sql.run(
            "DELETE FROM frozen_contexts WHERE expires_at_ms <= ? AND context_id NOT IN
               (SELECT scope_context_id FROM review_sessions WHERE scope_context_id IS NOT NULL)",
            vec![self.now_ms.into()],
        )?;
        sql.run(
            "UPDATE frozen_contexts SET block_hashes = '{}' WHERE expires_at_ms <= ? AND block_hashes <> '{}'",
            vec![self.now_ms.into()],
        )?;
        for Pending { context, expires_at_ms, scope_detail, allowed, hashes } in &self.pending {
            let revision = i64::try_from(context.revision).map_err(|_| worker::Error::from("revision overflow"))?;
            let row: Vec<SqlStorageValue> = vec![
                context.context_id.as_str().into(),
                context.document_id.as_str().into(),
                context.scope.as_str().into(),
                scope_detail.as_str().into(),
                revision.into(),
                allowed.as_str().into(),
                (*expires_at_ms).into(),
                hashes.as_str().into(),
                self.acting.user.as_str().into(),
                self.acting.role.as_str().into(),
            ];
            sql.run(
                "INSERT INTO frozen_contexts
                   (context_id, document_id, scope, scope_detail, revision, allowed_ids, expires_at_ms,
                    block_hashes, user_id, role)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )?;
        }
        Ok(())
    }

    /// Keeps this command's contexts in the object's memory, as stored; call it once [`Self::flush`] was
    /// committed.
    pub(super) fn committed(self) {
        for pending in self.pending {
            let expires_at_ms = pending.expires_at_ms;
            self.cache.committed(pending.stored(), self.acting.clone(), expires_at_ms, self.now_ms);
        }
    }

    /// Freezes the context a Hermes run starts from, with the request's full scope (e.g. a selection's
    /// ids), until `expires_at_ms`. Written when the tables commit.
    pub fn freeze_run(&mut self, context: &FrozenContext, scope: &Scope, expires_at_ms: i64) -> Result<(), Error> {
        let scope_detail = serde_json::to_string(scope).map_err(|e| storage("encode scope", e))?;
        self.pending.push(Pending::new(context, expires_at_ms, scope_detail)?);
        Ok(())
    }
}

impl ContextStore for ContextTable {
    fn load(&self, context_id: &str, now_ms: i64) -> Result<Option<Rc<FrozenContext>>, Error> {
        let pending = self.pending.iter().find(|p| p.context.context_id == context_id && p.expires_at_ms > now_ms);
        if let Some(pending) = pending {
            return Ok(Some(Rc::clone(&pending.context)));
        }
        if let Some(kept) = self.cache.get(context_id, now_ms) {
            return Ok(Some(kept));
        }
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT document_id, scope, revision, allowed_ids, block_hashes, expires_at_ms, user_id, role
                 FROM frozen_contexts
                 WHERE context_id = ? AND expires_at_ms > ?",
                vec![context_id.into(), now_ms.into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read frozen_contexts", e))?;
        let Some(row) = rows.into_iter().next() else { return Ok(None) };
        let allowed: Vec<String> =
            serde_json::from_str(&row.allowed_ids).map_err(|e| storage("decode allowed_ids", e))?;
        let block_hashes = serde_json::from_str(&row.block_hashes).map_err(|e| storage("decode block_hashes", e))?;
        let context = Rc::new(FrozenContext {
            context_id: context_id.to_string(),
            document_id: row.document_id,
            revision: u64::try_from(row.revision).map_err(|e| storage("decode revision", e))?,
            scope: row.scope,
            allowed_target_block_ids: allowed,
            block_hashes,
        });
        // Read back after an eviction or a restart: kept again (the row is the truth).
        let role = Role::parse(&row.role).ok_or_else(|| storage("decode frozen_contexts.role", &row.role))?;
        let acting = Acting { user: row.user_id, role };
        self.cache.committed(Rc::clone(&context), acting, row.expires_at_ms, now_ms);
        Ok(Some(context))
    }

    fn freeze(&mut self, context: &FrozenContext, expires_at_ms: i64) -> Result<(), Error> {
        self.pending.push(Pending::new(context, expires_at_ms, "null".into())?);
        Ok(())
    }
}
