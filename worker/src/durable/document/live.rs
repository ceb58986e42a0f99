//! The document's live channel (`GET /api/documents/{id}/live`, forwarded here by the front once it checked
//! the browser's credential and origin): the object accepts each socket with the hibernatable API
//! (`state.accept_web_socket`), so it may sleep between messages with its sockets open, and the runtime
//! answers `ping` with `pong` itself without waking it.
//!
//! - A socket that connects is sent what it missed ([`live::catch_up`]: the stored messages after its
//!   `?after=` seq or its `?revision=`, or a `snapshot`), then `hello`, before anything else can run.
//! - Every committed command's messages ([`live::messages`]) are numbered from the object's next `seq`,
//!   stored in `live_log` in the command's own transaction ([`crate::services::tables::live_log`]), and
//!   sent to every socket once that transaction committed (`broadcast`).
//! - A socket past the cap ([`crate::config::Config::live_max_sockets`]) is accepted only to be closed at
//!   once with 4429 `mnote_live_socket_limit`; a client message over [`live::MAX_INCOMING_BYTES`] closes
//!   its socket with 4413 `mnote_live_message_too_large` ([`crate::error::close_code_for`]).
//!
//! Nothing per socket lives only in memory: what a socket is (its document, when it connected) is its
//! attachment, which survives hibernation; the `seq` counter is read back from `live_log` after a wake.

use pageai_core::Error;
use pageai_core::live::{self, CatchUp, Commit};
use pageai_core::profile::Profile;
use pageai_core::wire::{LiveLimitsV1, LiveVersion, upgrade};
use serde::{Deserialize, Serialize};
use worker::{Request, Response, WebSocket, WebSocketIncomingMessage, WebSocketPair};

use super::DocumentObject;
use crate::clock::Now;
use crate::error::{OrInternal, close_code_for, internal};
use crate::services::tables::LiveRow;
use crate::services::tables::live_log;

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
    /// The version of the channel it asked for (`?schema=`); v1 when it named none.
    #[serde(default)]
    version: LiveVersion,
    /// The membership epoch of the page's workspace its credential showed (`mnote.epochs`, 0 when none):
    /// once the object has seen a later one, the socket is closed before it is sent anything more.
    #[serde(default)]
    epoch: u64,
}

/// What admitting a live socket found: the workspace profile (for a v2 socket) and the membership epoch
/// of the caller's credential in the page's workspace.
#[derive(Debug, Default)]
pub(super) struct Opened {
    /// `(workspace, profile, version)`, fetched for a v2 socket.
    pub profile: Option<(String, Profile, u64)>,
    /// The caller's epoch in the page's workspace.
    pub epoch: u64,
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

/// The live URL parameter naming the channel's version (`mnote.live_event.v1` or `.v2`).
pub const SCHEMA_PARAM: &str = "schema";

/// What the front passes on of `?after=`, `?revision=` and `?schema=`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Resume {
    /// The `seq` of the last message the client took.
    pub after: Option<u64>,
    /// The revision of the page the client holds.
    pub revision: Option<u64>,
    /// The version of the channel asked for (`?schema=mnote.live_event.v2`); v1 when none is named, so a
    /// client written for v1 is sent v1.
    pub version: LiveVersion,
}

impl Resume {
    /// Reads `after`, `revision` and `schema` from a query string; a value that is not a number, or a
    /// schema id the channel does not speak (`mnote_unsupported_schema`), is refused.
    pub fn parse(url: &worker::Url) -> Result<Resume, Error> {
        let mut resume = Resume::default();
        for (key, value) in url.query_pairs() {
            let slot = match key.as_ref() {
                "after" => &mut resume.after,
                "revision" => &mut resume.revision,
                SCHEMA_PARAM => {
                    resume.version = LiveVersion::parse(&value)?;
                    continue;
                }
                _ => continue,
            };
            let number = value.parse().map_err(|_| Error::invalid(format!("/{key}"), "a whole number"))?;
            *slot = Some(number);
        }
        Ok(resume)
    }
}

impl DocumentObject {
    /// Accepts a live socket for `document_id`: the catch-up, then `hello`, then every broadcast. `opened`
    /// is what [`Self::admit_live`] found: the workspace's profile for a v2 socket (sent right after
    /// `hello`) and the membership epoch its credential showed.
    pub(super) fn accept_live(
        &self,
        document_id: &str,
        req: &Request,
        opened: Opened,
        trace_id: &str,
    ) -> Result<Response, Error> {
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
        let mut first = self.catch_up(document_id, &resume, trace_id)?;
        if let (LiveVersion::V2, Some((workspace, profile, version))) = (resume.version, &opened.profile) {
            first.push(self.profile_message(document_id, workspace, profile, *version, trace_id)?);
        }
        self.state.accept_web_socket(&pair.server);
        let now = Now::read();
        let (until, session) = signed_in_until(&url);
        let attachment = Attachment {
            document_id: document_id.into(),
            connected_at: now.at,
            closing: false,
            until,
            session,
            version: resume.version,
            epoch: opened.epoch,
        };
        pair.server.serialize_attachment(&attachment).or_internal("attach to a socket", trace_id)?;
        for text in first {
            pair.server.send_with_str(&text).or_internal("send the catch-up", trace_id)?;
        }
        Response::from_websocket(pair.client).or_internal("answer the upgrade", trace_id)
    }

    /// What a connecting socket is sent before any broadcast: the replay or snapshot, then `hello`.
    fn catch_up(&self, document_id: &str, resume: &Resume, trace_id: &str) -> Result<Vec<String>, Error> {
        let mut cache = self.cache.borrow_mut();
        let sql = cache.sql().clone();
        let (page, _) = cache.page(document_id, trace_id)?;
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
                first.extend(bodies.iter().map(|body| upgrade(body, resume.version).into_owned()));
                (replayed, false)
            }
            None => {
                let snapshot = live::encode(&live::snapshot(page, window.last_seq, &at))?;
                first.push(upgrade(&snapshot, resume.version).into_owned());
                (0, true)
            }
        };
        let hello = live::encode(&live::hello(page, window.last_seq, &at, replayed, snapshot, limits))?;
        first.push(upgrade(&hello, resume.version).into_owned());
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
        for (socket, version) in self.listeners(LiveVersion::V1) {
            for row in rows {
                if socket.send_with_str(upgrade(&row.json, version)).is_err() {
                    break;
                }
            }
        }
    }

    /// The open sockets that may be sent content now, with their version (at least `least`). Each message
    /// that carries content re-checks who a socket was opened by, so one that may no longer read is
    /// closed instead of sent it: its sign-in ended (`mnote_live_session_ended`, 4401), or the workspace's
    /// membership moved past the epoch its credential showed (`mnote_live_role_changed`, 4403).
    fn listeners(&self, least: LiveVersion) -> Vec<(WebSocket, LiveVersion)> {
        let now = crate::auth::now_seconds();
        let epoch = self.membership_epoch();
        let mut open = Vec::new();
        for socket in self.state.get_websockets().into_iter().filter(is_open) {
            let attachment = socket.deserialize_attachment::<Attachment>().ok().flatten();
            let (until, opened_at, version) =
                attachment.map_or((None, 0, LiveVersion::V1), |a| (a.until, a.epoch, a.version));
            let checked = live::check_session(until, now).and_then(|()| live::check_membership(opened_at, epoch));
            match checked {
                Err(ended) => {
                    let _ = close(&socket, close_code_for(&ended), &live::close_reason(&ended));
                }
                Ok(()) if version >= least => open.push((socket, version)),
                Ok(()) => {}
            }
        }
        open
    }

    /// The channel's last `seq` ([`crate::durable::LIVE_SEQ_HEADER`]), read from `live_log` once per wake;
    /// `None` when it cannot be read (the table is made by the first command that loads the page).
    pub(super) fn live_position(&self) -> Option<u64> {
        if let Some(last) = self.live_seq.get() {
            return Some(last);
        }
        let last = live_log::last_seq(&self.sql).ok()?;
        self.live_seq.set(Some(last));
        Some(last)
    }

    /// The `profile.changed` message for a v2 socket: `workspace`'s `profile` at `version`, at the
    /// position the channel is at.
    pub(super) fn profile_message(
        &self,
        document_id: &str,
        workspace: &str,
        profile: &Profile,
        version: u64,
        trace_id: &str,
    ) -> Result<String, Error> {
        let seq = self.next_seq(trace_id)?.saturating_sub(1);
        let revision = self.cache.borrow_mut().page(document_id, trace_id)?.0.revision;
        live::encode(&live::profile_changed(document_id, workspace, profile, version, seq, revision, &Now::read().at))
    }

    /// Tells every v2 socket that `workspace` (the page's) has a new profile; answers whether any listens
    /// (the profile object then keeps pushing here). A failure is logged, never the push's: the profile is
    /// stored either way, and the sockets read it again after their next `hello`.
    pub(super) fn tell_profile(
        &self,
        document_id: &str,
        workspace: &str,
        profile: &Profile,
        version: u64,
        trace_id: &str,
    ) -> bool {
        let own = match self.cache.borrow_mut().page(document_id, trace_id) {
            Ok((page, _)) => page.workspace_id == workspace,
            Err(_) => false,
        };
        match own {
            true => self.broadcast_profile(document_id, workspace, profile, version, trace_id).unwrap_or_else(|e| {
                worker::console_error!("[{trace_id}] live channel: profile.changed not sent: {e}");
                false
            }),
            false => false,
        }
    }

    /// Sends `profile.changed` to every v2 socket; answers whether there was one.
    fn broadcast_profile(
        &self,
        document_id: &str,
        workspace: &str,
        profile: &Profile,
        version: u64,
        trace_id: &str,
    ) -> Result<bool, Error> {
        let listeners = self.listeners(LiveVersion::V2);
        if listeners.is_empty() {
            return Ok(false);
        }
        let text = self.profile_message(document_id, workspace, profile, version, trace_id)?;
        for (socket, _) in &listeners {
            let _ = socket.send_with_str(&text);
        }
        Ok(true)
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
