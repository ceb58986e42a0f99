//! The document's live channel (`GET /api/documents/{id}/live`, forwarded here by the front once it checked
//! the browser's credential and origin): the object accepts each socket with the hibernatable API
//! (`state.accept_web_socket`), so it may sleep between messages with its sockets open, and the runtime
//! answers `ping` with `pong` itself without waking it.
//!
//! - A socket that connects is sent what it missed ([`live::catch_up`]: the stored messages after its
//!   `?after=` seq or its `?revision=`, or a `snapshot`), then `hello`, before anything else can run.
//! - Every committed command's messages ([`live::messages`]) are numbered from the object's next `seq`,
//!   stored in `live_log` in the command's own transaction ([`crate::services::ledger::live_log`]), and
//!   sent to every socket once that transaction committed (`broadcast`).
//! - A socket past the cap ([`crate::config::Config::live_max_sockets`]) is accepted only to be closed at
//!   once with 4429 `mnote_live_socket_limit`; a client message over [`live::MAX_INCOMING_BYTES`] closes
//!   its socket with 4413 `mnote_live_message_too_large` ([`crate::error::close_code_for`]).
//!
//! Nothing per socket lives only in memory: what a socket is (its document, when it connected) is its
//! attachment, which survives hibernation; the `seq` counter is read back from `live_log` after a wake.

use pageai_core::Error;
use pageai_core::live::{self, CatchUp, Commit};
use pageai_core::wire::LiveLimitsV1;
use serde::{Deserialize, Serialize};
use worker::{Request, Response, WebSocket, WebSocketIncomingMessage, WebSocketPair};

use super::DocumentObject;
use crate::clock::Now;
use crate::error::{OrInternal, close_code_for, internal};
use crate::services::ledger::LiveRow;
use crate::services::ledger::live_log;

/// What a socket carries through hibernation.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Attachment {
    document_id: String,
    connected_at: String,
    /// Set once the socket is closing (by either side): it no longer counts against the cap and is sent
    /// nothing, though the runtime lists it until the close completes.
    #[serde(default)]
    closing: bool,
    /// When the credential it was opened with ends (Unix seconds): the cookie's expiry or the token's
    /// `exp`; `None` for the client token, which has none.
    #[serde(default)]
    until: Option<u64>,
    /// The cookie session it was opened with (its nonce), so a logout closes it.
    #[serde(default)]
    session: Option<String>,
}

/// Whether `socket` is open for messages (not closing).
fn is_open(socket: &WebSocket) -> bool {
    !matches!(socket.deserialize_attachment::<Attachment>(), Ok(Some(Attachment { closing: true, .. })))
}

/// Marks `socket` closing, then closes it with `code` and `reason`.
pub(super) fn close(socket: &WebSocket, code: u16, reason: &str) -> worker::Result<()> {
    if let Ok(Some(mut attachment)) = socket.deserialize_attachment::<Attachment>() {
        attachment.closing = true;
        socket.serialize_attachment(&attachment)?;
    }
    socket.close(Some(code), Some(reason))
}

/// What the front passes on of the caller's sign-in: `until` (when it ends) and `session` (a cookie's
/// nonce). Internal parameters of the object's own URL, never the client's.
fn signed_in_until(url: &worker::Url) -> (Option<u64>, Option<String>) {
    let pick = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    (pick(UNTIL_PARAM).and_then(|v| v.parse().ok()), pick(SESSION_PARAM))
}

/// The object's live URL parameter: when the caller's sign-in ends (Unix seconds).
pub const UNTIL_PARAM: &str = "signedInUntil";
/// The object's live URL parameter: the caller's cookie session.
pub const SESSION_PARAM: &str = "signedInSession";

/// What the front passes on of `?after=` and `?revision=`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// The `seq` of the last message the client took.
    pub after: Option<u64>,
    /// The revision of the page the client holds.
    pub revision: Option<u64>,
}

impl Resume {
    /// Reads `after` and `revision` from a query string; a value that is not a number is refused.
    pub fn parse(url: &worker::Url) -> Result<Resume, Error> {
        let mut resume = Resume::default();
        for (key, value) in url.query_pairs() {
            let slot = match key.as_ref() {
                "after" => &mut resume.after,
                "revision" => &mut resume.revision,
                _ => continue,
            };
            let number = value.parse().map_err(|_| Error::invalid(format!("/{key}"), "a whole number"))?;
            *slot = Some(number);
        }
        Ok(resume)
    }
}

impl DocumentObject {
    /// Accepts a live socket for `document_id`: the catch-up, then `hello`, then every broadcast.
    pub(super) fn accept_live(&self, document_id: &str, req: &Request, trace_id: &str) -> Result<Response, Error> {
        let url = req.url().or_internal("read live url", trace_id)?;
        let resume = Resume::parse(&url)?;
        let pair = WebSocketPair::new().or_internal("open a socket pair", trace_id)?;
        let open = self.state.get_websockets().iter().filter(|s| is_open(s)).count();
        let limit = self.config.live_max_sockets;
        if let Err(error) = live::check_socket_count(open, limit) {
            // Accepted only to say why: a refused upgrade would tell the browser nothing.
            pair.server.accept().or_internal("accept a refused socket", trace_id)?;
            pair.server
                .close(Some(close_code_for(&error)), Some(live::close_reason(&error)))
                .or_internal("close a refused socket", trace_id)?;
            return Response::from_websocket(pair.client).or_internal("answer the upgrade", trace_id);
        }
        let first = self.catch_up(document_id, &resume, trace_id)?;
        self.state.accept_web_socket(&pair.server);
        let now = Now::read();
        let (until, session) = signed_in_until(&url);
        let attachment =
            Attachment { document_id: document_id.into(), connected_at: now.at, closing: false, until, session };
        pair.server.serialize_attachment(&attachment).or_internal("attach to a socket", trace_id)?;
        for text in first {
            pair.server.send_with_str(&text).or_internal("send the catch-up", trace_id)?;
        }
        Response::from_websocket(pair.client).or_internal("answer the upgrade", trace_id)
    }

    /// What a connecting socket is sent before any broadcast: the replay or snapshot, then `hello`.
    fn catch_up(&self, document_id: &str, resume: &Resume, trace_id: &str) -> Result<Vec<String>, Error> {
        let mut resident = self.resident.borrow_mut();
        let sql = resident.sql().clone();
        let (page, _) = resident.page(document_id, trace_id)?;
        let window = live_log::window(&sql, page.revision)?;
        let at = Now::read().at;
        let replay = match live::catch_up(&window, resume.after, resume.revision) {
            CatchUp::Nothing => Some(Vec::new()),
            CatchUp::AfterSeq(after) => live_log::replay(&sql, after, false)?,
            CatchUp::AfterRevision(revision) => live_log::replay(&sql, revision, true)?,
            CatchUp::Snapshot => None,
        };
        let limits = LiveLimitsV1 { max_sockets: self.config.live_max_sockets, ..live::LIMITS };
        let mut first = Vec::new();
        let (replayed, snapshot) = match replay {
            Some(bodies) => {
                let replayed = bodies.len() as u64;
                first.extend(bodies);
                (replayed, false)
            }
            None => {
                first.push(live::encode(&live::snapshot(page, window.last_seq, &at))?);
                (0, true)
            }
        };
        first.push(live::encode(&live::hello(page, window.last_seq, &at, replayed, snapshot, limits))?);
        self.live_seq.set(Some(window.last_seq));
        Ok(first)
    }

    /// The next `seq` of this document's channel, read from `live_log` once per wake.
    pub(super) fn next_seq(&self, trace_id: &str) -> Result<u64, Error> {
        let last = match self.live_seq.get() {
            Some(last) => last,
            None => {
                let last = live_log::last_seq(&self.sql)?;
                self.live_seq.set(Some(last));
                last
            }
        };
        last.checked_add(1).ok_or_else(|| internal("number a live message", "seq overflow", trace_id))
    }

    /// The stored rows of a command's messages, numbered from [`Self::next_seq`].
    pub(super) fn live_rows(&self, commit: &Commit<'_>, trace_id: &str) -> Result<Vec<LiveRow>, Error> {
        let first_seq = self.next_seq(trace_id)?;
        live::messages(commit, first_seq)
            .iter()
            .map(|m| Ok(LiveRow { seq: m.seq, revision: m.revision, json: live::encode(m)? }))
            .collect()
    }

    /// Sends committed `rows` to every socket, in order, and moves the counter past them. A socket that
    /// cannot be written to is left to its close event.
    pub(super) fn broadcast(&self, rows: &[LiveRow]) {
        let Some(last) = rows.last() else { return };
        self.live_seq.set(Some(last.seq));
        let now = crate::auth::now_seconds();
        for socket in self.state.get_websockets().iter().filter(|s| is_open(s)) {
            // Nothing reaches a socket whose sign-in ended: it is closed instead (the role it was opened
            // with is the credential's, and holds no longer than it).
            let until = socket.deserialize_attachment::<Attachment>().ok().flatten().and_then(|a| a.until);
            if let Err(ended) = live::check_session(until, now) {
                let _ = close(socket, close_code_for(&ended), &live::close_reason(&ended));
                continue;
            }
            for row in rows {
                if socket.send_with_str(&row.json).is_err() {
                    break;
                }
            }
        }
    }

    /// Closes the sockets opened by the cookie session `session` (signed out); answers how many.
    pub(super) fn end_session(&self, session: &str) -> usize {
        let ended = Error::LiveSessionEnded { why: "signed out".into() };
        let mut closed = 0;
        for socket in self.state.get_websockets().iter().filter(|s| is_open(s)) {
            let opened_by = socket.deserialize_attachment::<Attachment>().ok().flatten().and_then(|a| a.session);
            if opened_by.as_deref() == Some(session)
                && close(socket, close_code_for(&ended), &live::close_reason(&ended)).is_ok()
            {
                closed += 1;
            }
        }
        closed
    }

    /// A commit that failed: the counter is read again from storage.
    pub(super) fn forget_seq(&self) {
        self.live_seq.set(None);
    }

    /// A client's message: `ping` is answered `pong` (the runtime does it while the object sleeps);
    /// anything over the size cap closes the socket with its coded reason; the rest is ignored.
    pub(super) fn live_message(&self, socket: &WebSocket, message: &WebSocketIncomingMessage) -> worker::Result<()> {
        let bytes = match message {
            WebSocketIncomingMessage::String(text) => text.len(),
            WebSocketIncomingMessage::Binary(data) => data.len(),
        };
        if let Err(error) = live::check_incoming(bytes) {
            return close(socket, close_code_for(&error), &live::close_reason(&error));
        }
        if matches!(message, WebSocketIncomingMessage::String(text) if text == "ping") {
            socket.send_with_str("pong")?;
        }
        Ok(())
    }
}
