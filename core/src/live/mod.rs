//! The live channel of a document: what every open page is told, as it happens (`mnote.live_event.v1`, and
//! `mnote.live_event.v2` for a client that asks for it).
//!
//! Core owns the whole protocol; the Worker only stores and sends what core builds, and the browser
//! follows it with the same code:
//!
//! - [`messages`] turns what one command committed (the page it left, the blocks it wrote and deleted, the
//!   writes it journaled, its tool events and the review sessions it stored) into the channel's messages,
//!   numbered from the next `seq`: `tool.event`, `review.updated` and one `page.changed`, in the order
//!   they happened.
//! - [`profile_changed`] tells a `mnote.live_event.v2` socket its workspace's profile (after `hello`, and
//!   at every change); [`crate::wire::upgrade`] gives a stored message its v2 schema id for such a socket.
//! - [`encode`] writes one message, or the `refetch` notice that stands for it when it is larger than
//!   [`MAX_MESSAGE_BYTES`].
//! - [`catch_up`] decides what a reconnecting client needs: nothing, a replay of the stored messages after
//!   its `seq` or its `revision`, or a `snapshot` when those are no longer kept ([`KEEP_MESSAGES`]) or add
//!   up to more than [`MAX_REPLAY_BYTES`].
//! - [`follow`] applies a message to a client's copy of the page, or answers `mnote_live_resync` when the
//!   copy cannot follow it (a gap, an old message, a skipped change); [`follow_light`] does the same for a
//!   message read as [`crate::wire::LiveFollowV1`] (the WASM `PageSession.applyRemote`, which carries no
//!   decoder for tool events and review sessions).
//! - [`follow_write`] applies a write the client itself sent, from the server's `mnote.tool_result.v1`
//!   (the WASM `PageSession.applyLocal`), or refuses it when the copy is not the page the server wrote to.
//!
//! The limits a channel holds its sockets to are here too ([`LIMITS`]): a socket past [`MAX_SOCKETS`] or a
//! client message over [`MAX_INCOMING_BYTES`] is closed with a coded reason ([`close_reason`]).

mod build;
mod follow;
mod resume;

use alloc::format;
use alloc::string::String;

use crate::error::{Error, ErrorCode, Result};
use crate::json::to_json;
use crate::profile::Profile;
use crate::wire::{LIVE_EVENT_V2, LiveBody, LiveEventV1, LiveLimitsV1, ProfileChangeV2, RefetchV1};

pub use build::{AppliedWrite, Author, Change, Commit, compared, hello, messages, snapshot, touched};
pub use follow::{Followed, follow, follow_light, follow_write};
pub use resume::{CatchUp, LogWindow, catch_up};

/// Sockets one document's channel accepts at once (the Worker may be configured lower).
pub const MAX_SOCKETS: u32 = 64;

/// Largest message a client may send, in bytes. Clients send nothing but small control messages.
pub const MAX_INCOMING_BYTES: usize = 4 * 1024;

/// Largest message the channel sends, in bytes; a larger one becomes a `refetch` notice.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// How many messages a document keeps for clients that reconnect.
pub const KEEP_MESSAGES: u64 = 1_000;

/// Largest replay sent to one reconnecting socket, in bytes; past it a `snapshot` is cheaper.
pub const MAX_REPLAY_BYTES: usize = 1024 * 1024;

/// The limits, as `hello` reports them (with the Worker's socket cap).
pub const LIMITS: LiveLimitsV1 = LiveLimitsV1 {
    max_sockets: MAX_SOCKETS,
    max_incoming_bytes: MAX_INCOMING_BYTES as u32,
    max_message_bytes: MAX_MESSAGE_BYTES as u32,
};

/// A WebSocket close reason may hold at most this many bytes (RFC 6455 §5.5: 125 bytes of control frame
/// payload, 2 of them the code).
pub const MAX_CLOSE_REASON_BYTES: usize = 123;

/// Writes `message` as JSON, or, when that is longer than [`MAX_MESSAGE_BYTES`], the `refetch` notice with
/// the same envelope that says what was skipped.
pub fn encode(message: &LiveEventV1) -> Result<String> {
    let json = to_json(message)?;
    if json.len() <= MAX_MESSAGE_BYTES {
        return Ok(json);
    }
    let review_session_id = match &message.body {
        LiveBody::ReviewUpdated(session) => Some(session.session_id.clone()),
        _ => None,
    };
    let notice = LiveEventV1 {
        schema: message.schema.clone(),
        seq: message.seq,
        revision: message.revision,
        at: message.at.clone(),
        document_id: message.document_id.clone(),
        body: LiveBody::Refetch(RefetchV1 {
            skipped: message.body.kind(),
            code: ErrorCode::LiveMessageTooLarge.as_str().into(),
            bytes: json.len(),
            limit_bytes: MAX_MESSAGE_BYTES,
            review_session_id,
        }),
    };
    to_json(&notice)
}

/// The `profile.changed` message (`mnote.live_event.v2`) that tells a socket its page's workspace profile:
/// at `seq`, the position the channel is at (it is not stored: a socket that reconnects is sent it again
/// after `hello`), and the page's `revision`.
pub fn profile_changed(
    document_id: &str,
    workspace_id: &str,
    profile: &Profile,
    version: u64,
    seq: u64,
    revision: u64,
    at: &str,
) -> LiveEventV1 {
    LiveEventV1 {
        schema: LIVE_EVENT_V2.into(),
        seq,
        revision,
        at: at.into(),
        document_id: document_id.into(),
        body: LiveBody::ProfileChanged(ProfileChangeV2 {
            workspace_id: workspace_id.into(),
            version,
            review_mode: profile.review_mode,
            tools: profile.tools.clone(),
        }),
    }
}

/// Checks a message a client sent: at most [`MAX_INCOMING_BYTES`].
pub fn check_incoming(bytes: usize) -> Result<()> {
    match bytes <= MAX_INCOMING_BYTES {
        true => Ok(()),
        false => Err(Error::LiveMessageTooLarge { bytes, limit: MAX_INCOMING_BYTES }),
    }
}

/// Checks that a document holding `open` sockets may accept one more under a cap of `limit`.
pub fn check_socket_count(open: usize, limit: u32) -> Result<()> {
    match open < limit as usize {
        true => Ok(()),
        false => Err(Error::LiveSocketLimit { limit }),
    }
}

/// Checks that a socket whose sign-in lasts until `until` (Unix seconds; `None` for a credential with no
/// end, the client token) may still be sent a message at `now`. Past it the socket is closed with
/// `mnote_live_session_ended` (4401): a role is the credential's, so nothing reaches a socket once the
/// credential that showed the role no longer holds.
pub fn check_session(until: Option<u64>, now: u64) -> Result<()> {
    match until {
        Some(until) if now >= until => Err(Error::LiveSessionEnded { why: "the sign-in expired".into() }),
        _ => Ok(()),
    }
}

/// Checks that a socket whose credential showed the membership epoch `opened_at` of its workspace may still
/// be sent content, now that the object has seen `epoch`. An identity provider raises a workspace's epoch
/// (`mnote.epochs` in its tokens) whenever it lowers or removes a member; a socket opened before that cannot
/// tell whether its role still holds, so it is closed with `mnote_live_role_changed` (4403) and signs in
/// again.
pub fn check_membership(opened_at: u64, epoch: u64) -> Result<()> {
    match opened_at < epoch {
        true => Err(Error::LiveRoleChanged { opened_at, epoch }),
        false => Ok(()),
    }
}

/// The reason a socket is closed with for `error`: its code and message, cut to
/// [`MAX_CLOSE_REASON_BYTES`] at a character boundary, so a client can read the coded limit.
pub fn close_reason(error: &Error) -> String {
    let mut reason = format!("{}: {}", error.code(), error.message());
    if reason.len() > MAX_CLOSE_REASON_BYTES {
        let mut end = MAX_CLOSE_REASON_BYTES;
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        reason.truncate(end);
    }
    reason
}

#[cfg(test)]
mod tests;
