//! Which Hermes run a frozen context was made for: the proxy binds a run's context to the run id Hermes
//! answered (`DocumentCommand::BindRun`), so an MCP tool call that names that `contextId` (Hermes 0.19 sends
//! no run id over MCP) is evented with the run's id, and a page watching the live channel sees the run's
//! tool calls as they happen. A binding lives as long as its context.

use pageai_core::Error;

use super::storage;
use crate::services::sqlite::{Sql, SqlValue};

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS run_contexts (
    context_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL
)";

/// Binds `context_id` to `run_id` until `expires_at_ms` (and drops the bindings that expired).
pub fn bind(sql: &dyn Sql, context_id: &str, run_id: &str, now_ms: i64, expires_at_ms: i64) -> Result<(), Error> {
    sql.run("DELETE FROM run_contexts WHERE expires_at_ms <= ?", vec![now_ms.into()])
        .and_then(|()| {
            sql.run(
                "INSERT OR REPLACE INTO run_contexts (context_id, run_id, expires_at_ms) VALUES (?, ?, ?)",
                vec![context_id.into(), run_id.into(), expires_at_ms.into()],
            )
        })
        .map_err(|e| storage("bind run context", e))
}

/// The run `context_id` was bound to, unless the binding expired at `now_ms`.
pub fn run_of(sql: &dyn Sql, context_id: &str, now_ms: i64) -> Result<Option<String>, Error> {
    let rows = sql
        .rows(
            "SELECT run_id FROM run_contexts WHERE context_id = ? AND expires_at_ms > ?",
            vec![context_id.into(), now_ms.into()],
        )
        .map_err(|e| storage("read run_contexts", e))?;
    Ok(rows.into_iter().next().and_then(|row| match row.into_iter().next() {
        Some(SqlValue::String(run_id)) => Some(run_id),
        _ => None,
    }))
}
