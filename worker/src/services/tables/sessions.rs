//! Review sessions, one JSON row per session id, with the proposal (idempotency key and argument
//! fingerprint) a model made it for.
//!
//! A session's scope (`base.allowedTargetBlockIds`) is stored by reference when it is exactly the list of
//! the frozen context its call named (a write bound to a whole-page context: every block of the page). The
//! row then holds `null` there and names the context in `scope_context_id`; the `frozen_contexts` row, which
//! already holds that list, is kept past its expiry for as long as a session names it (see
//! [`super::contexts`]), and every read of the session puts the list back, shared, before core or a caller
//! sees it. So a write under a whole-page context neither encodes nor writes 10,000 ids a second time.

use std::cell::RefCell;
use std::sync::Arc;

use pageai_core::Error;
use pageai_core::executor::FrozenContext;
use pageai_core::review::ReviewSessionV1;
use pageai_core::review::State;
use pageai_core::review::listing::{Cursor, Filter, open_states};
use serde::{Deserialize, Serialize};
use worker::{SqlStorage, SqlStorageValue};

use super::context_cache::ContextCache;
use crate::services::sqlite::{Sql, encode, storage};
use crate::services::stores::{ProposalKey, SessionStore, SessionSummary};

pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS review_sessions (
    session_id TEXT PRIMARY KEY,
    proposal_key TEXT,
    proposal_fingerprint TEXT,
    state TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    body TEXT NOT NULL,
    scope_context_id TEXT
)";

/// The column stores made before scopes by reference lack; added once when missing.
const ADD_SCOPE: &str = "ALTER TABLE review_sessions ADD COLUMN scope_context_id TEXT";

/// Adds the `scope_context_id` column to a table made before it existed (its rows keep their lists).
pub(super) fn migrate(sql: &dyn Sql) -> Result<(), Error> {
    if sql.rows("SELECT scope_context_id FROM review_sessions LIMIT 0", Vec::new()).is_err() {
        sql.run(ADD_SCOPE, Vec::new()).map_err(|e| storage("add review_sessions.scope_context_id", e))?;
    }
    Ok(())
}

/// The reason an author gave for a session (a person's note, Hermes' plan summary), beside it.
pub(super) const REASONS: &str = "CREATE TABLE IF NOT EXISTS session_reasons (
    session_id TEXT PRIMARY KEY,
    reason TEXT NOT NULL
)";

pub(super) const INDEX: &str =
    "CREATE INDEX IF NOT EXISTS review_sessions_by_proposal ON review_sessions (proposal_key, proposal_fingerprint)";

#[derive(Deserialize)]
struct BodyRow {
    body: String,
    scope_context_id: Option<String>,
}

#[derive(Deserialize)]
struct NotedRow {
    body: String,
    scope_context_id: Option<String>,
    reason: Option<String>,
}

#[derive(Deserialize)]
struct AllowedRow {
    allowed_ids: String,
}

#[derive(Deserialize)]
struct SummaryRow {
    seq: i64,
    session_id: String,
    state: String,
    updated_at: String,
}

#[derive(Deserialize)]
struct CountRow {
    total: i64,
    open: i64,
}

/// One page of a document's session list (`GET …/review-sessions`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionPage {
    /// The sessions, open ones first, each group newest first.
    pub sessions: Vec<SessionSummary>,
    /// Pass it as `?cursor=` for the next page; absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How many sessions the document has, and how many of them are open, whatever the page shows.
    pub counts: SessionCounts,
}

/// The document's session counts.
#[derive(Debug, Serialize)]
pub struct SessionCounts {
    /// Sessions that wait for a person's accept or reject.
    pub open: u64,
    /// Every session.
    pub all: u64,
}

/// What a session this command stores is written with: the proposal it was made for, its body, and the
/// context its scope is stored by reference to.
struct Pending {
    proposal: Option<ProposalKey>,
    body: String,
    scope_context_id: Option<String>,
}

/// A session whose scope is its context's list: the session, the context, and the list as shared.
struct ByReference {
    session_id: String,
    context_id: String,
    ids: Arc<[String]>,
}

/// The table, with this command's new and changed sessions.
pub struct SessionTable {
    sql: SqlStorage,
    /// The sessions this command stored, in order; `pending` holds what each is written with, at the same
    /// index. Kept apart so the live channel borrows them rather than copying them (a session bound to a
    /// whole-page context lists every block of the page).
    sessions: Vec<ReviewSessionV1>,
    pending: Vec<Pending>,
    /// Reasons this command kept, by session id.
    reasons: Vec<(String, String)>,
    /// The object's frozen contexts in memory, where a scope stored by reference is read first.
    contexts: ContextCache,
    /// The sessions this command read or proposed whose scope is stored by reference.
    by_reference: RefCell<Vec<ByReference>>,
}

impl SessionTable {
    pub(super) fn new(sql: SqlStorage, contexts: ContextCache) -> Self {
        SessionTable {
            sql,
            sessions: Vec::new(),
            pending: Vec::new(),
            reasons: Vec::new(),
            contexts,
            by_reference: RefCell::new(Vec::new()),
        }
    }

    /// The sessions this command stored, in order, as stored.
    pub fn stored(&self) -> &[ReviewSessionV1] {
        &self.sessions
    }

    /// At most `limit` sessions that `filter` lets through, after `cursor`, in core's list order: the open
    /// ones first, then the rest, each group newest first (by storage order). A session keeps its row, and
    /// so its place in its group, when its state changes.
    pub fn list(&self, filter: Filter, cursor: Option<Cursor>, limit: u32) -> Result<SessionPage, Error> {
        let open: Vec<SqlStorageValue> = open_states().iter().map(|s| s.as_str().into()).collect();
        let marks = vec!["?"; open.len()].join(", ");
        // 0 for an open session, 1 for the rest: the list's first sort key.
        let group = format!("(CASE WHEN state IN ({marks}) THEN 0 ELSE 1 END)");
        let mut query =
            String::from("SELECT rowid AS seq, session_id, state, updated_at FROM review_sessions WHERE 1 = 1");
        let mut args: Vec<SqlStorageValue> = Vec::new();
        let states = filter.states();
        if states.len() < State::ALL.len() {
            query.push_str(&format!(" AND state IN ({})", vec!["?"; states.len()].join(", ")));
            args.extend(states.iter().map(|s| SqlStorageValue::from(s.as_str())));
        }
        if let Some(Cursor { open: was_open, seq }) = cursor {
            let seq = i64::try_from(seq).unwrap_or(i64::MAX);
            match was_open {
                true => query.push_str(&format!(" AND (({group} = 0 AND rowid < ?) OR {group} = 1)")),
                false => query.push_str(&format!(" AND {group} = 1 AND rowid < ?")),
            }
            args.extend(open.iter().cloned());
            args.push(seq.into());
            if was_open {
                args.extend(open.iter().cloned());
            }
        }
        query.push_str(&format!(" ORDER BY {group}, rowid DESC LIMIT ?"));
        args.extend(open.iter().cloned());
        args.push((i64::from(limit) + 1).into());
        let mut rows: Vec<SummaryRow> = self
            .sql
            .exec(&query, args)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("list review_sessions", e))?;
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next_cursor = match (more, rows.last()) {
            (true, Some(last)) => {
                let state = State::ALL.into_iter().find(|s| s.as_str() == last.state).unwrap_or(State::Failed);
                Some(Cursor::after(state, u64::try_from(last.seq).unwrap_or(0)).to_wire())
            }
            _ => None,
        };
        let sessions = rows
            .into_iter()
            .map(|r| SessionSummary { session_id: r.session_id, state: r.state, updated_at: r.updated_at })
            .collect();
        Ok(SessionPage { sessions, next_cursor, counts: self.counts(&open, &marks)? })
    }

    fn counts(&self, open: &[SqlStorageValue], marks: &str) -> Result<SessionCounts, Error> {
        let query = format!(
            "SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN state IN ({marks}) THEN 1 ELSE 0 END), 0) AS open
             FROM review_sessions"
        );
        let rows: Vec<CountRow> = self
            .sql
            .exec(&query, open.to_vec())
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("count review_sessions", e))?;
        let row = rows.into_iter().next().unwrap_or(CountRow { total: 0, open: 0 });
        Ok(SessionCounts { open: u64::try_from(row.open).unwrap_or(0), all: u64::try_from(row.total).unwrap_or(0) })
    }

    /// Upserts the sessions; a stored session keeps the proposal it was made for.
    pub(super) fn flush(self, sql: &dyn Sql) -> worker::Result<()> {
        for (session_id, reason) in self.reasons {
            sql.run(
                "INSERT INTO session_reasons (session_id, reason) VALUES (?, ?)
                 ON CONFLICT (session_id) DO UPDATE SET reason = excluded.reason",
                vec![session_id.into(), reason.into()],
            )?;
        }
        for (session, Pending { proposal, body, scope_context_id }) in self.sessions.into_iter().zip(self.pending) {
            let (key, fingerprint) = match proposal {
                Some(p) => (SqlStorageValue::from(p.idempotency_key), SqlStorageValue::from(p.fingerprint)),
                None => (SqlStorageValue::Null, SqlStorageValue::Null),
            };
            sql.run(
                "INSERT INTO review_sessions
                   (session_id, proposal_key, proposal_fingerprint, state, updated_at, body, scope_context_id)
                 VALUES (?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT (session_id) DO UPDATE SET state = excluded.state,
                   updated_at = excluded.updated_at, body = excluded.body,
                   scope_context_id = excluded.scope_context_id",
                vec![
                    session.session_id.into(),
                    key,
                    fingerprint,
                    session.state.as_str().into(),
                    session.audit.updated_at.into(),
                    body.into(),
                    scope_context_id.map_or(SqlStorageValue::Null, SqlStorageValue::from),
                ],
            )?;
        }
        Ok(())
    }

    /// The session of a stored row, with its scope put back when the row stores it by reference.
    fn decode(&self, row: Option<BodyRow>) -> Result<Option<ReviewSessionV1>, Error> {
        let Some(BodyRow { body, scope_context_id }) = row else { return Ok(None) };
        let mut session: ReviewSessionV1 =
            serde_json::from_str(&body).map_err(|e| storage("decode review session", e))?;
        if let Some(context_id) = scope_context_id {
            let ids = self.scope_of(&context_id)?;
            session.base.allowed_target_block_ids = Some(Arc::clone(&ids));
            let session_id = session.session_id.clone();
            self.by_reference.borrow_mut().push(ByReference { session_id, context_id, ids });
        }
        Ok(Some(session))
    }

    /// The allowed ids of context `context_id`, whatever its expiry (a session that names it keeps its row):
    /// shared with a session read before, else from memory, else from its row.
    fn scope_of(&self, context_id: &str) -> Result<Arc<[String]>, Error> {
        if let Some(known) = self.by_reference.borrow().iter().find(|r| r.context_id == context_id) {
            return Ok(Arc::clone(&known.ids));
        }
        if let Some(context) = self.contexts.any(context_id) {
            return Ok(Arc::from(context.allowed_target_block_ids.as_slice()));
        }
        let rows: Vec<AllowedRow> = self
            .sql
            .exec("SELECT allowed_ids FROM frozen_contexts WHERE context_id = ?", vec![context_id.into()])
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read a session's frozen context", e))?;
        let Some(row) = rows.into_iter().next() else {
            return Err(storage("read a session's frozen context", format!("context {context_id} is gone")));
        };
        let ids: Vec<String> = serde_json::from_str(&row.allowed_ids).map_err(|e| storage("decode allowed_ids", e))?;
        Ok(Arc::from(ids))
    }

    /// The context `session`'s scope is stored by reference to, when it is still that context's list.
    fn reference_of(&self, session: &ReviewSessionV1) -> Option<String> {
        let ids = session.base.allowed_target_block_ids.as_ref()?;
        let known = self.by_reference.borrow();
        let found = known.iter().find(|r| r.session_id == session.session_id)?;
        (Arc::ptr_eq(&found.ids, ids) || found.ids == *ids).then(|| found.context_id.clone())
    }
}

impl SessionStore for SessionTable {
    fn waiting(&self) -> Result<Vec<(ReviewSessionV1, Option<String>)>, Error> {
        let open: Vec<SqlStorageValue> = open_states().iter().map(|s| s.as_str().into()).collect();
        let marks = vec!["?"; open.len()].join(", ");
        let query = format!(
            "SELECT s.body AS body, s.scope_context_id AS scope_context_id, r.reason AS reason FROM review_sessions s
             LEFT JOIN session_reasons r ON r.session_id = s.session_id
             WHERE s.state IN ({marks}) ORDER BY s.rowid"
        );
        let rows: Vec<NotedRow> = self
            .sql
            .exec(&query, open)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("list waiting review_sessions", e))?;
        let mut waiting = Vec::with_capacity(rows.len());
        for NotedRow { body, scope_context_id, reason } in rows {
            waiting.extend(self.decode(Some(BodyRow { body, scope_context_id }))?.map(|s| (s, reason)));
        }
        // What this command stored and has not committed yet wins.
        for session in &self.sessions {
            let kept =
                waiting.iter().position(|(s, _)| s.session_id == session.session_id).map(|at| waiting.remove(at));
            let reason = self.reasons.iter().rev().find(|(id, _)| *id == session.session_id).map(|(_, r)| r.clone());
            if session.state.awaits_person() {
                waiting.push((session.clone(), reason.or(kept.and_then(|(_, r)| r))));
            }
        }
        Ok(waiting)
    }

    fn of_run(&self, run_id: &str) -> Result<Vec<ReviewSessionV1>, Error> {
        // The run id sits in the stored body; a run has a handful of sessions, so a scan is cheap enough.
        let rows: Vec<BodyRow> = self
            .sql
            .exec(
                "SELECT body, scope_context_id FROM review_sessions WHERE json_extract(body, '$.runId') = ? ORDER BY rowid",
                vec![run_id.into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("list a run's review_sessions", e))?;
        let mut sessions = Vec::with_capacity(rows.len());
        for row in rows {
            sessions.extend(self.decode(Some(row))?);
        }
        // What this command stored and has not committed yet wins.
        for session in self.sessions.iter().filter(|s| s.run_id == run_id) {
            match sessions.iter_mut().find(|s| s.session_id == session.session_id) {
                Some(stored) => *stored = session.clone(),
                None => sessions.push(session.clone()),
            }
        }
        Ok(sessions)
    }

    fn note_reason(&mut self, session_id: &str, reason: &str) -> Result<(), Error> {
        self.reasons.push((session_id.into(), reason.into()));
        Ok(())
    }

    fn get(&self, session_id: &str) -> Result<Option<ReviewSessionV1>, Error> {
        if let Some(session) = self.sessions.iter().rev().find(|s| s.session_id == session_id) {
            return Ok(Some(session.clone()));
        }
        let rows: Vec<BodyRow> = self
            .sql
            .exec("SELECT body, scope_context_id FROM review_sessions WHERE session_id = ?", vec![session_id.into()])
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("read review_sessions", e))?;
        self.decode(rows.into_iter().next())
    }

    fn find_proposal(&self, key: &ProposalKey) -> Result<Option<ReviewSessionV1>, Error> {
        let mut pending = self.sessions.iter().zip(&self.pending).rev();
        if let Some((session, _)) = pending.find(|(_, p)| p.proposal.as_ref() == Some(key)) {
            return Ok(Some(session.clone()));
        }
        let rows: Vec<BodyRow> = self
            .sql
            .exec(
                "SELECT body, scope_context_id FROM review_sessions WHERE proposal_key = ? AND proposal_fingerprint = ?
                 ORDER BY rowid DESC LIMIT 1",
                vec![key.idempotency_key.as_str().into(), key.fingerprint.as_str().into()],
            )
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| storage("find review session", e))?;
        self.decode(rows.into_iter().next())
    }

    fn put(&mut self, session: &ReviewSessionV1, proposal: Option<&ProposalKey>) -> Result<(), Error> {
        let largest = session.preview.as_ref().and_then(|p| pageai_core::limits::largest_block(&p.changed_blocks));
        let scope_context_id = self.reference_of(session);
        let body = match scope_context_id {
            // The list is the context's: the row names the context instead (a clone shares the list).
            Some(_) => {
                let mut elided = session.clone();
                elided.base.allowed_target_block_ids = None;
                encode("encode review session", &elided, largest)?
            }
            None => encode("encode review session", session, largest)?,
        };
        let mut kept = None;
        if let Some(at) = self.sessions.iter().position(|s| s.session_id == session.session_id) {
            self.sessions.remove(at);
            if at < self.pending.len() {
                kept = self.pending.remove(at).proposal;
            }
        }
        self.sessions.push(session.clone());
        self.pending.push(Pending { proposal: proposal.cloned().or(kept), body, scope_context_id });
        Ok(())
    }

    fn put_proposed(
        &mut self,
        session: &ReviewSessionV1,
        proposal: &ProposalKey,
        context: Option<&FrozenContext>,
    ) -> Result<(), Error> {
        let scope = session.base.allowed_target_block_ids.as_ref();
        if let (Some(ids), Some(context)) = (scope, context)
            && **ids == *context.allowed_target_block_ids
        {
            self.by_reference.borrow_mut().push(ByReference {
                session_id: session.session_id.clone(),
                context_id: context.context_id.clone(),
                ids: Arc::clone(ids),
            });
        }
        self.put(session, Some(proposal))
    }
}
