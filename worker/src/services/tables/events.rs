//! Tool and review events (`mnote.tool_event.v1`) of the document, in emission order, so the UI and the
//! Hermes proxy can read what a run's tool calls did. The newest [`KEEP_EVENTS`] are kept.

use pageai_core::Error;
use pageai_core::events::ToolEventV1;
use serde::{Deserialize, Serialize};
use worker::SqlStorage;

use super::storage;
use crate::services::sqlite::Sql;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS tool_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    body TEXT NOT NULL
)";

pub(super) const INDEX: &str = "CREATE INDEX IF NOT EXISTS tool_events_by_run ON tool_events (run_id, seq)";

/// How many events a document keeps.
pub const KEEP_EVENTS: i64 = 10_000;

#[derive(Deserialize)]
struct Row {
    seq: i64,
    body: String,
}

/// One stored event with its position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredEvent {
    /// Position in the document's event log; pass it as `after` to read on.
    pub seq: u64,
    /// The event.
    pub event: ToolEventV1,
}

/// Reads of the event log.
pub struct EventTable {
    sql: SqlStorage,
}

impl EventTable {
    pub(super) fn new(sql: SqlStorage) -> Self {
        EventTable { sql }
    }

    /// Events after `after`, oldest first, at most `limit`; only `run_id`'s when given.
    pub fn list(&self, run_id: Option<&str>, after: u64, limit: u32) -> Result<Vec<StoredEvent>, Error> {
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let limit = i64::from(limit);
        let cursor = match run_id {
            Some(run) => self.sql.exec(
                "SELECT seq, body FROM tool_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                vec![run.into(), after.into(), limit.into()],
            ),
            None => self.sql.exec(
                "SELECT seq, body FROM tool_events WHERE seq > ? ORDER BY seq LIMIT ?",
                vec![after.into(), limit.into()],
            ),
        };
        let rows: Vec<Row> = cursor.and_then(|c| c.to_array()).map_err(|e| storage("read tool_events", e))?;
        rows.into_iter()
            .map(|r| {
                let event = serde_json::from_str(&r.body).map_err(|e| storage("decode tool event", e))?;
                Ok(StoredEvent { seq: u64::try_from(r.seq).unwrap_or(0), event })
            })
            .collect()
    }

    /// Events as `(run_id, body)` rows, encoded before the transaction starts.
    pub(super) fn encode(events: &[ToolEventV1]) -> Result<Vec<(String, String)>, Error> {
        events
            .iter()
            .map(|e| Ok((e.run_id.clone(), serde_json::to_string(e).map_err(|err| storage("encode tool event", err))?)))
            .collect()
    }

    pub(super) fn flush(sql: &dyn Sql, rows: Vec<(String, String)>) -> worker::Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        for (run_id, body) in rows {
            sql.run("INSERT INTO tool_events (run_id, body) VALUES (?, ?)", vec![run_id.into(), body.into()])?;
        }
        sql.run("DELETE FROM tool_events WHERE seq <= (SELECT MAX(seq) FROM tool_events) - ?", vec![KEEP_EVENTS.into()])
    }
}
