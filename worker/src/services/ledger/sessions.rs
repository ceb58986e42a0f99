//! Review sessions, one JSON row per session id, with the proposal (idempotency key and argument
//! fingerprint) a model made it for.

use pageai_core::Error;
use pageai_core::review::ReviewSessionV1;
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue};

use super::{encode, storage};
use crate::services::desk::{ProposalKey, SessionStore, SessionSummary};
use crate::services::sqlite::Sql;

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS review_sessions (
    session_id TEXT PRIMARY KEY,
    proposal_key TEXT,
    proposal_fingerprint TEXT,
    state TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    body TEXT NOT NULL
)";

pub(super) const INDEX: &str =
    "CREATE INDEX IF NOT EXISTS review_sessions_by_proposal ON review_sessions (proposal_key, proposal_fingerprint)";

#[derive(Deserialize)]
struct BodyRow {
    body: String,
}

#[derive(Deserialize)]
struct SummaryRow {
    session_id: String,
    state: String,
    updated_at: String,
}

struct Pending {
    session: ReviewSessionV1,
    proposal: Option<ProposalKey>,
    body: String,
}

/// The table, with this command's new and changed sessions.
pub struct SessionTable {
    sql: SqlStorage,
    pending: Vec<Pending>,
}

impl SessionTable {
    pub(super) fn new(sql: SqlStorage) -> Self {
        SessionTable { sql, pending: Vec::new() }
    }

    /// The sessions this command stored, in order, as stored.
    pub fn stored(&self) -> Vec<ReviewSessionV1> {
        self.pending.iter().map(|p| p.session.clone()).collect()
    }

    /// Every session of the document, newest first, at most `limit`.
    pub fn list(&self, limit: u32) -> Result<Vec<SessionSummary>, Error> {
        let rows: Vec<SummaryRow> = self
            .sql
            .exec(
                "SELECT session_id, state, updated_at FROM review_sessions ORDER BY rowid DESC LIMIT ?",
                vec![i64::from(limit).into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("list review_sessions", e))?;
        Ok(rows
            .into_iter()
            .map(|r| SessionSummary { session_id: r.session_id, state: r.state, updated_at: r.updated_at })
            .collect())
    }

    /// Upserts the sessions; a stored session keeps the proposal it was made for.
    pub(super) fn flush(self, sql: &dyn Sql) -> worker::Result<()> {
        for Pending { session, proposal, body } in self.pending {
            let (key, fingerprint) = match proposal {
                Some(p) => (SqlStorageValue::from(p.idempotency_key), SqlStorageValue::from(p.fingerprint)),
                None => (SqlStorageValue::Null, SqlStorageValue::Null),
            };
            sql.run(
                "INSERT INTO review_sessions (session_id, proposal_key, proposal_fingerprint, state, updated_at, body)
                 VALUES (?, ?, ?, ?, ?, ?)
                 ON CONFLICT (session_id) DO UPDATE SET state = excluded.state,
                   updated_at = excluded.updated_at, body = excluded.body",
                vec![
                    session.session_id.into(),
                    key,
                    fingerprint,
                    session.state.as_str().into(),
                    session.audit.updated_at.into(),
                    body.into(),
                ],
            )?;
        }
        Ok(())
    }

    fn decode(row: Option<BodyRow>) -> Result<Option<ReviewSessionV1>, Error> {
        row.map(|r| serde_json::from_str(&r.body).map_err(|e| storage("decode review session", e))).transpose()
    }
}

impl SessionStore for SessionTable {
    fn get(&self, session_id: &str) -> Result<Option<ReviewSessionV1>, Error> {
        if let Some(p) = self.pending.iter().rev().find(|p| p.session.session_id == session_id) {
            return Ok(Some(p.session.clone()));
        }
        let rows: Vec<BodyRow> = self
            .sql
            .exec("SELECT body FROM review_sessions WHERE session_id = ?", vec![session_id.into()])
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read review_sessions", e))?;
        Self::decode(rows.into_iter().next())
    }

    fn find_proposal(&self, key: &ProposalKey) -> Result<Option<ReviewSessionV1>, Error> {
        if let Some(p) = self.pending.iter().rev().find(|p| p.proposal.as_ref() == Some(key)) {
            return Ok(Some(p.session.clone()));
        }
        let rows: Vec<BodyRow> = self
            .sql
            .exec(
                "SELECT body FROM review_sessions WHERE proposal_key = ? AND proposal_fingerprint = ?
                 ORDER BY rowid DESC LIMIT 1",
                vec![key.idempotency_key.as_str().into(), key.fingerprint.as_str().into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("find review session", e))?;
        Self::decode(rows.into_iter().next())
    }

    fn put(&mut self, session: &ReviewSessionV1, proposal: Option<&ProposalKey>) -> Result<(), Error> {
        let largest = session.preview.as_ref().and_then(|p| pageai_core::limits::largest_block(&p.changed_blocks));
        let body = encode("encode review session", session, largest)?;
        let kept =
            self.pending.iter().find(|p| p.session.session_id == session.session_id).and_then(|p| p.proposal.clone());
        self.pending.retain(|p| p.session.session_id != session.session_id);
        self.pending.push(Pending { session: session.clone(), proposal: proposal.cloned().or(kept), body });
        Ok(())
    }
}
