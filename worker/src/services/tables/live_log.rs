//! The live channel's log (`mnote.live_event.v1`): every message a committed command broadcast, with its
//! `seq` and revision, so a socket that reconnects gets exactly what it missed. Written in the command's
//! own transaction ([`super::Tables::commit`]); the newest [`live::KEEP_MESSAGES`] are kept.

use pageai_core::Error;
use pageai_core::live::{self, LogWindow};

use super::storage;
use crate::services::sqlite::{Sql, SqlValue};

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS live_log (
    seq INTEGER PRIMARY KEY,
    revision INTEGER NOT NULL,
    body TEXT NOT NULL
)";

pub(super) const INDEX: &str = "CREATE INDEX IF NOT EXISTS live_log_by_revision ON live_log (revision, seq)";

/// One message as stored and sent: its position, the revision it carries and its JSON (already
/// [`live::encode`]d, so a message too large to send is stored as its `refetch` notice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveRow {
    /// Its `seq`.
    pub seq: u64,
    /// Its `revision`.
    pub revision: u64,
    /// The text sent.
    pub json: String,
}

/// Writes `rows` and drops what falls out of the window.
pub(super) fn flush(sql: &dyn Sql, rows: &[LiveRow]) -> worker::Result<()> {
    let Some(last) = rows.last() else { return Ok(()) };
    for row in rows {
        sql.run(
            "INSERT INTO live_log (seq, revision, body) VALUES (?, ?, ?)",
            vec![int(row.seq).into(), int(row.revision).into(), row.json.as_str().into()],
        )?;
    }
    let oldest_kept = last.seq.saturating_sub(live::KEEP_MESSAGES);
    sql.run("DELETE FROM live_log WHERE seq <= ?", vec![int(oldest_kept).into()])
}

/// The stored window: the first kept message and the last `seq` (0 before any), at the page's `revision`.
pub fn window(sql: &dyn Sql, revision: u64) -> Result<LogWindow, Error> {
    let rows = sql
        .rows("SELECT seq, revision FROM live_log WHERE seq = (SELECT MIN(seq) FROM live_log)", Vec::new())
        .map_err(|e| storage("read live_log", e))?;
    let first = rows.first().and_then(|r| Some((uint(r.first()?)?, uint(r.get(1)?)?)));
    let last_seq = last_seq(sql)?;
    Ok(LogWindow { first, last_seq, revision })
}

/// The last `seq` stored, 0 before the first message.
pub fn last_seq(sql: &dyn Sql) -> Result<u64, Error> {
    let rows = sql.rows("SELECT MAX(seq) FROM live_log", Vec::new()).map_err(|e| storage("read live_log", e))?;
    Ok(rows.first().and_then(|r| r.first()).and_then(uint).unwrap_or(0))
}

/// The stored messages with a larger `seq` (`by_revision` false) or revision, oldest first; `None` when
/// they add up to more than [`live::MAX_REPLAY_BYTES`] (a snapshot is then cheaper).
pub fn replay(sql: &dyn Sql, after: u64, by_revision: bool) -> Result<Option<Vec<String>>, Error> {
    let query = match by_revision {
        false => "SELECT body FROM live_log WHERE seq > ? ORDER BY seq",
        true => "SELECT body FROM live_log WHERE revision > ? ORDER BY seq",
    };
    let rows = sql.rows(query, vec![int(after).into()]).map_err(|e| storage("read live_log", e))?;
    let mut bytes = 0usize;
    let mut bodies = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(SqlValue::String(body)) = row.into_iter().next() else {
            return Err(storage("read live_log", "a body that is not text"));
        };
        bytes += body.len();
        if bytes > live::MAX_REPLAY_BYTES {
            return Ok(None);
        }
        bodies.push(body);
    }
    Ok(Some(bodies))
}

fn int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn uint(value: &SqlValue) -> Option<u64> {
    match value {
        SqlValue::Integer(n) => u64::try_from(*n).ok(),
        SqlValue::Float(f) if *f >= 0.0 => Some(*f as u64),
        _ => None,
    }
}
