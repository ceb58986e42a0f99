//! `GuardObject`: what signing in must remember between requests, one object per subject.
//!
//! - **A client**, named `client:{CF-Connecting-IP}` (or `client:local` where no such header arrives, as
//!   under `wrangler dev`), counts its failed credential checks: a wrong token at `POST /api/auth/login`, or
//!   a wrong Bearer client token on any route. The first [`SignInLimits::free_failures`] cost nothing; each
//!   one after them locks the client for a wait that doubles from `lock_seconds` up to `max_lock_seconds`.
//!   While a client is locked none of its credentials is checked at all, right or wrong: it gets
//!   `mnote_too_many_attempts` with `Retry-After`, so the lock bounds how fast anyone can guess. A success
//!   resets the count; a client quiet for [`SignInLimits::forget_seconds`] starts again from zero.
//! - **A signed-out session**, named `session:{nonce}`, remembers that logout revoked it, until its cookie
//!   would have expired anyway.
//!
//! The rules are pure functions of the stored [`Attempts`] and the clock, unit-tested natively; the object
//! only stores them. An alarm deletes an object's storage once nothing in it matters any more.

use std::time::Duration;

use pageai_core::{Error, wire};
use serde::{Deserialize, Serialize};
use worker::{DurableObject, Env, ObjectNamespace, Request, Response, SqlStorageValue, State, durable_object};

use crate::config::{GUARDS_BINDING, SignInLimits};
use crate::error::{Failure, OrInternal, TRACE_HEADER, error_response, internal};
use crate::http::json_response;
use crate::ids;

const SCHEMA: [&str; 3] = [
    "CREATE TABLE IF NOT EXISTS attempts (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        failures INTEGER NOT NULL,
        last_failure_at INTEGER NOT NULL,
        locked_until INTEGER NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS revoked (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        expires_at INTEGER NOT NULL
    )",
    // The documents whose live channel a session opened: a logout ends their sockets of that session.
    "CREATE TABLE IF NOT EXISTS live_documents (document_id TEXT PRIMARY KEY)",
];

/// A client's failed credential checks, as stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempts {
    /// Failures since the last success (or since they were forgotten).
    pub failures: u32,
    /// When the last one happened, Unix seconds.
    pub last_failure_at: u64,
    /// Until when no credential of the client is checked, Unix seconds (0: not locked).
    pub locked_until: u64,
}

impl Attempts {
    /// Whole seconds until a credential of this client is checked again; `None` when it is checked now.
    pub fn locked_for(&self, now: u64) -> Option<u64> {
        (now < self.locked_until).then(|| self.locked_until - now)
    }

    /// The record after a failed check at `now` (never called while locked: then nothing is checked).
    pub fn after_failure(self, now: u64, limits: &SignInLimits) -> Attempts {
        let forgotten = now.saturating_sub(self.last_failure_at) >= limits.forget_seconds();
        let failures = if forgotten { 1 } else { self.failures.saturating_add(1) };
        let locked_until = match failures.saturating_sub(limits.free_failures) {
            0 => 0,
            over => now.saturating_add(lock_seconds(over, limits)),
        };
        Attempts { failures, last_failure_at: now, locked_until }
    }
}

/// The lock after the `over`-th failure past the free ones: `lock_seconds`, doubled per failure, capped.
fn lock_seconds(over: u32, limits: &SignInLimits) -> u64 {
    let doublings = over.saturating_sub(1).min(62);
    limits.lock_seconds.saturating_mul(1u64 << doublings).min(limits.max_lock_seconds).max(1)
}

/// What the front Worker asks a guard object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum GuardCommand {
    /// A client's credential was checked at `now` (Unix seconds) and was right or wrong. Answers whether
    /// the check may stand: while the client is locked it may not, and nothing is counted.
    Attempt {
        /// The clock of the request.
        now: u64,
        /// Whether the credential was right.
        succeeded: bool,
        /// The configured backoff.
        limits: SignInLimits,
    },
    /// This session was signed out; its cookie expires at `expires_at` (Unix seconds).
    Revoke {
        /// The clock of the request.
        now: u64,
        /// When the cookie would expire anyway.
        expires_at: u64,
    },
    /// Whether this session was signed out.
    IsRevoked {
        /// The clock of the request.
        now: u64,
    },
    /// This session opened the live channel of `document_id`; its cookie expires at `expires_at`.
    WatchLive {
        /// The clock of the request.
        now: u64,
        /// When the cookie would expire anyway.
        expires_at: u64,
        /// The document.
        document_id: String,
    },
}

/// A guard object's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GuardAnswer {
    /// For an attempt: the client is locked, for this many more seconds.
    pub locked_for: Option<u64>,
    /// For a session: it was signed out.
    pub revoked: bool,
    /// For a revocation: the documents whose live channel the session opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub live_documents: Vec<String>,
}

/// The Durable Object class bound as `GUARDS`.
#[durable_object]
struct GuardObject {
    state: State,
}

impl DurableObject for GuardObject {
    fn new(state: State, _env: Env) -> Self {
        GuardObject { state }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let trace_id = ids::trace_id(req.headers().get(TRACE_HEADER).ok().flatten().as_deref());
        let command = match req.text().await {
            Ok(body) => wire::from_json_serde::<GuardCommand>(&body),
            Err(e) => Err(internal("read guard command", e, &trace_id)),
        };
        let outcome = match command {
            Ok(command) => self.run(command, &trace_id).await,
            Err(error) => Err(error),
        };
        match outcome.and_then(|answer| json_response(&answer, &trace_id)) {
            Ok(response) => Ok(response),
            Err(error) => error_response(&error, &trace_id),
        }
    }

    async fn alarm(&self) -> worker::Result<Response> {
        // Set for when the last failure is forgotten, or the revoked cookie expires: nothing left matters.
        self.state.storage().delete_all().await?;
        Response::ok("")
    }
}

#[derive(Deserialize)]
struct ExpiresRow {
    expires_at: u64,
}

impl GuardObject {
    async fn run(&self, command: GuardCommand, trace_id: &str) -> Result<GuardAnswer, Error> {
        let sql = self.state.storage().sql();
        for statement in SCHEMA {
            sql.exec(statement, None).or_internal("create guard tables", trace_id)?;
        }
        match command {
            GuardCommand::Attempt { now, succeeded, limits } => {
                let locked_for = self.attempt(now, succeeded, &limits, trace_id).await?;
                Ok(GuardAnswer { locked_for, revoked: false, live_documents: Vec::new() })
            }
            GuardCommand::Revoke { now, expires_at } => {
                sql.exec(
                    "INSERT INTO revoked (id, expires_at) VALUES (1, ?)
                     ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at",
                    vec![int(expires_at)],
                )
                .or_internal("store revocation", trace_id)?;
                self.forget_at(expires_at.saturating_sub(now), trace_id).await?;
                #[derive(Deserialize)]
                struct Watched {
                    document_id: String,
                }
                let watched: Vec<Watched> = sql
                    .exec("SELECT document_id FROM live_documents", None)
                    .and_then(|cursor| cursor.to_array())
                    .or_internal("read live documents", trace_id)?;
                let live_documents = watched.into_iter().map(|w| w.document_id).collect();
                Ok(GuardAnswer { locked_for: None, revoked: true, live_documents })
            }
            GuardCommand::WatchLive { now, expires_at, document_id } => {
                sql.exec("INSERT OR IGNORE INTO live_documents (document_id) VALUES (?)", vec![document_id.into()])
                    .or_internal("store live document", trace_id)?;
                self.forget_at(expires_at.saturating_sub(now), trace_id).await?;
                Ok(GuardAnswer::default())
            }
            GuardCommand::IsRevoked { now } => {
                let rows: Vec<ExpiresRow> = sql
                    .exec("SELECT expires_at FROM revoked WHERE id = 1", None)
                    .and_then(|cursor| cursor.to_array())
                    .or_internal("read revocation", trace_id)?;
                let revoked = rows.first().is_some_and(|row| now < row.expires_at);
                Ok(GuardAnswer { locked_for: None, revoked, live_documents: Vec::new() })
            }
        }
    }

    /// Applies one credential check to the stored attempts: `Some(wait)` while locked (nothing counted).
    async fn attempt(
        &self,
        now: u64,
        succeeded: bool,
        limits: &SignInLimits,
        trace_id: &str,
    ) -> Result<Option<u64>, Error> {
        let sql = self.state.storage().sql();
        let rows: Vec<Attempts> = sql
            .exec("SELECT failures, last_failure_at, locked_until FROM attempts WHERE id = 1", None)
            .and_then(|cursor| cursor.to_array())
            .or_internal("read sign-in attempts", trace_id)?;
        let stored = rows.into_iter().next().unwrap_or_default();
        if let Some(wait) = stored.locked_for(now) {
            return Ok(Some(wait));
        }
        if succeeded {
            if stored != Attempts::default() {
                sql.exec("DELETE FROM attempts", None).or_internal("reset sign-in attempts", trace_id)?;
            }
            return Ok(None);
        }
        let next = stored.after_failure(now, limits);
        sql.exec(
            "INSERT INTO attempts (id, failures, last_failure_at, locked_until) VALUES (1, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET failures = excluded.failures,
                 last_failure_at = excluded.last_failure_at, locked_until = excluded.locked_until",
            vec![int(u64::from(next.failures)), int(next.last_failure_at), int(next.locked_until)],
        )
        .or_internal("store sign-in attempts", trace_id)?;
        self.forget_at(limits.forget_seconds(), trace_id).await?;
        Ok(None)
    }

    async fn forget_at(&self, after_seconds: u64, trace_id: &str) -> Result<(), Error> {
        let after = Duration::from_secs(after_seconds.saturating_add(1));
        self.state.storage().set_alarm(after).await.or_internal("schedule guard clean-up", trace_id)
    }
}

/// A count or a time as an SQLite integer (the values here are far below 2^53).
fn int(value: u64) -> SqlStorageValue {
    SqlStorageValue::Integer(i64::try_from(value).unwrap_or(i64::MAX))
}

/// The front Worker's handle on the guard objects.
#[derive(Debug)]
pub struct Guards {
    namespace: ObjectNamespace,
}

impl Guards {
    /// The `GUARDS` namespace.
    pub fn new(env: &Env, trace_id: &str) -> Result<Self, Error> {
        Ok(Guards { namespace: env.durable_object(GUARDS_BINDING).or_internal("bind GUARDS", trace_id)? })
    }

    /// Records a credential check of `client` ([`client_key`]); refuses it with `mnote_too_many_attempts`
    /// while the client is locked.
    pub async fn attempt(
        &self,
        client: &str,
        succeeded: bool,
        limits: SignInLimits,
        now: u64,
        trace_id: &str,
    ) -> Result<(), Error> {
        let command = GuardCommand::Attempt { now, succeeded, limits };
        match self.send(&format!("client:{client}"), &command, trace_id).await?.locked_for {
            Some(retry_after_seconds) => Err(Error::TooManyAttempts { retry_after_seconds }),
            None => Ok(()),
        }
    }

    /// Revokes the session `nonce` until `expires_at`; answers the documents whose live channel it opened.
    pub async fn revoke(&self, nonce: &str, expires_at: u64, now: u64, trace_id: &str) -> Result<Vec<String>, Error> {
        let answer =
            self.send(&format!("session:{nonce}"), &GuardCommand::Revoke { now, expires_at }, trace_id).await?;
        Ok(answer.live_documents)
    }

    /// Notes that the session `nonce` (a cookie expiring at `expires_at`) opened `document_id`'s live channel.
    pub async fn watch_live(
        &self,
        nonce: &str,
        expires_at: u64,
        document_id: &str,
        now: u64,
        trace_id: &str,
    ) -> Result<(), Error> {
        let command = GuardCommand::WatchLive { now, expires_at, document_id: document_id.into() };
        self.send(&format!("session:{nonce}"), &command, trace_id).await.map(|_| ())
    }

    /// Whether the session `nonce` was signed out.
    pub async fn is_revoked(&self, nonce: &str, now: u64, trace_id: &str) -> Result<bool, Error> {
        Ok(self.send(&format!("session:{nonce}"), &GuardCommand::IsRevoked { now }, trace_id).await?.revoked)
    }

    async fn send(&self, name: &str, command: &GuardCommand, trace_id: &str) -> Result<GuardAnswer, Error> {
        let stub = self
            .namespace
            .id_from_name(name)
            .and_then(|id| id.get_stub())
            .or_internal("get guard object stub", trace_id)?;
        match super::call_object(&stub, "guard", command, trace_id).await {
            Ok(answer) => serde_json::from_str(&answer.json).or_internal("decode guard answer", trace_id),
            // The object answers nothing but internal errors, already logged there.
            Err(Failure::Relayed(_)) => Err(Error::StorageFailed),
            Err(Failure::Core(error)) => Err(error),
        }
    }
}

/// Which client a request comes from, for the failed sign-in count: Cloudflare's `CF-Connecting-IP`
/// (which it sets on every request and a client cannot choose), or `local` where it is absent or not an
/// address.
pub fn client_key(connecting_ip: Option<&str>) -> String {
    match connecting_ip.map(str::trim) {
        Some(ip)
            if !ip.is_empty()
                && ip.len() <= 45
                && ip.chars().all(|c| c.is_ascii_hexdigit() || matches!(c, '.' | ':')) =>
        {
            ip.to_ascii_lowercase()
        }
        _ => "local".to_string(),
    }
}

#[cfg(test)]
#[allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "a failed expectation is the test's report"
)]
mod tests {
    use super::*;

    const LIMITS: SignInLimits = SignInLimits { free_failures: 3, lock_seconds: 2, max_lock_seconds: 30 };

    /// Fails `n` times at `now`, as far as the lock lets the failures count.
    fn fail(mut record: Attempts, now: u64, n: usize) -> Attempts {
        for _ in 0..n {
            if record.locked_for(now).is_none() {
                record = record.after_failure(now, &LIMITS);
            }
        }
        record
    }

    #[test]
    fn the_free_failures_cost_nothing_and_the_next_one_locks() {
        let record = fail(Attempts::default(), 1_000, 3);
        assert_eq!(record.failures, 3);
        assert_eq!(record.locked_for(1_000), None);
        let record = fail(record, 1_000, 1);
        assert_eq!(record.locked_for(1_000), Some(2));
        assert_eq!(record.locked_for(1_001), Some(1));
        assert_eq!(record.locked_for(1_002), None);
    }

    #[test]
    fn a_burst_while_locked_counts_once() {
        let record = fail(Attempts::default(), 1_000, 100);
        assert_eq!(record.failures, 4, "only the failures checked before the lock count");
        assert_eq!(record.locked_for(1_000), Some(2));
    }

    #[test]
    fn each_failure_after_a_lock_doubles_it_up_to_the_cap() {
        let mut record = fail(Attempts::default(), 0, 4);
        let mut now = 0;
        let mut locks = Vec::new();
        for _ in 0..6 {
            now += record.locked_for(now).unwrap_or(0);
            record = record.after_failure(now, &LIMITS);
            locks.push(record.locked_for(now).unwrap_or(0));
        }
        assert_eq!(locks, [4, 8, 16, 30, 30, 30]);
    }

    #[test]
    fn a_quiet_client_is_forgotten() {
        let record = fail(Attempts::default(), 1_000, 3);
        let later = 1_000 + LIMITS.forget_seconds();
        assert_eq!(record.after_failure(later, &LIMITS).failures, 1);
        assert_eq!(record.after_failure(later - 1, &LIMITS).failures, 4);
    }

    #[test]
    fn clients_are_keyed_by_their_address_or_local() {
        assert_eq!(client_key(Some("203.0.113.7")), "203.0.113.7");
        assert_eq!(client_key(Some(" 2001:DB8::1 ")), "2001:db8::1");
        assert_eq!(client_key(None), "local");
        assert_eq!(client_key(Some("")), "local");
        assert_eq!(client_key(Some("evil/../x")), "local");
        assert_eq!(client_key(Some(&"1".repeat(46))), "local");
    }

    #[test]
    fn commands_and_answers_have_their_wire_form() {
        let command = GuardCommand::Attempt { now: 5, succeeded: false, limits: LIMITS };
        let json = serde_json::to_value(&command).unwrap();
        assert_eq!(json["op"], "attempt");
        assert_eq!(json["limits"]["freeFailures"], 3);
        let answer =
            serde_json::to_value(GuardAnswer { locked_for: Some(3), revoked: false, live_documents: Vec::new() })
                .unwrap();
        assert_eq!(answer, serde_json::json!({ "lockedFor": 3, "revoked": false }));
    }
}
