//! `mnote.live_event.v1`: one message of a document's live channel (`GET /api/documents/{id}/live`).
//!
//! Every message has the same envelope, `{schema, seq, revision, kind, at, documentId}`, and one payload
//! field named after its kind:
//!
//! | `kind` | payload | what it says |
//! |---|---|---|
//! | `hello` | `hello` ([`HelloV1`]) | sent once per connection, after the catch-up: the channel is live at `seq` and `revision` |
//! | `page.changed` | `change` ([`PageChangeV1`]) | a write committed: the blocks it changed (with their new `revisionRef`s), the ones it deleted, its operations, actor and origin |
//! | `tool.event` | `event` (a `mnote.tool_event.v1`) | a tool call started, completed or failed |
//! | `review.updated` | `session` (a `mnote.page_ai_review_session.v1`) | a review session was made or moved |
//! | `snapshot` | `page` | the whole page, for a client too far behind to catch up message by message |
//! | `refetch` | `refetch` ([`RefetchV1`]) | a message too large to send: read what it would have said over HTTP |
//!
//! `mnote.live_event.v2` ([`super::live_event_v2`]) is the same with one more kind, `profile.changed`; this
//! type reads and writes both (its `schema` says which), and refuses `profile.changed` under the v1 id.
//!
//! The Rust type is an enum ([`LiveBody`]); on the wire the payload sits beside the envelope, so a reader
//! switches on `kind` and reads one field. Decoding refuses unknown fields and a payload that does not
//! match its kind.

use crate::json::Read;
use crate::json::read::{At, Error as ReadError};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::live_event_v2::{LiveVersion, ProfileChangeV2};
use super::{ReviewSessionV1, ToolEventV1};
use crate::ops::Operation;
use crate::page::{Attrs, BlockType, Page, Permission};
use crate::vocab::Origin;

/// Schema id of [`LiveEventV1`].
pub const LIVE_EVENT_V1: &str = "mnote.live_event.v1";

/// Which message, and so which payload field it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub enum LiveKind {
    /// The channel is live (`hello`).
    #[serde(rename = "hello")]
    Hello,
    /// A write changed the page (`change`).
    #[serde(rename = "page.changed")]
    PageChanged,
    /// A tool event (`event`).
    #[serde(rename = "tool.event")]
    ToolEvent,
    /// A review session changed (`session`).
    #[serde(rename = "review.updated")]
    ReviewUpdated,
    /// The whole page (`page`).
    #[serde(rename = "snapshot")]
    Snapshot,
    /// A message that was too large to send (`refetch`).
    #[serde(rename = "refetch")]
    Refetch,
    /// The workspace profile is this (`profile`; v2 only, and never too large to send, so never `skipped`).
    #[serde(rename = "profile.changed")]
    #[cfg_attr(test, schemars(skip))]
    ProfileChanged,
}

impl LiveKind {
    /// Every kind.
    pub const ALL: [LiveKind; 7] = [
        LiveKind::Hello,
        LiveKind::PageChanged,
        LiveKind::ToolEvent,
        LiveKind::ReviewUpdated,
        LiveKind::Snapshot,
        LiveKind::Refetch,
        LiveKind::ProfileChanged,
    ];

    /// The first version of the channel that has this kind.
    pub const fn since(self) -> LiveVersion {
        match self {
            LiveKind::ProfileChanged => LiveVersion::V2,
            LiveKind::Hello
            | LiveKind::PageChanged
            | LiveKind::ToolEvent
            | LiveKind::ReviewUpdated
            | LiveKind::Snapshot
            | LiveKind::Refetch => LiveVersion::V1,
        }
    }

    /// The wire name, e.g. `page.changed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LiveKind::Hello => "hello",
            LiveKind::PageChanged => "page.changed",
            LiveKind::ToolEvent => "tool.event",
            LiveKind::ReviewUpdated => "review.updated",
            LiveKind::Snapshot => "snapshot",
            LiveKind::Refetch => "refetch",
            LiveKind::ProfileChanged => "profile.changed",
        }
    }

    /// The name of the payload field a message of this kind carries.
    pub const fn payload_field(self) -> &'static str {
        match self {
            LiveKind::Hello => "hello",
            LiveKind::PageChanged => "change",
            LiveKind::ToolEvent => "event",
            LiveKind::ReviewUpdated => "session",
            LiveKind::Snapshot => "page",
            LiveKind::Refetch => "refetch",
            LiveKind::ProfileChanged => "profile",
        }
    }
}

/// The limits a channel holds its sockets to, as `hello` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LiveLimitsV1 {
    /// Sockets one document accepts at once; one more is closed with `mnote_live_socket_limit`.
    pub max_sockets: u32,
    /// Largest message a client may send, in bytes; a larger one closes the socket with
    /// `mnote_live_message_too_large`.
    pub max_incoming_bytes: u32,
    /// Largest message the channel sends, in bytes; a larger one becomes a `refetch` notice.
    pub max_message_bytes: u32,
}

/// The payload of `hello`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelloV1 {
    /// How many stored messages were replayed to this socket before `hello`.
    pub replayed: u64,
    /// Whether a `snapshot` was sent before `hello` (the client was too far behind to replay).
    pub snapshot: bool,
    /// The channel's limits.
    pub limits: LiveLimitsV1,
}

/// One block a write inserted, changed or moved, as it is after the write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LiveBlockV1 {
    /// The block.
    pub block_id: String,
    /// The block right before it on the page, or `null` when it is the first block.
    pub after_block_id: Option<String>,
    /// Its `revisionRef` at the new revision.
    pub revision_ref: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: BlockType,
    /// Its text.
    pub text: String,
    /// Its attributes.
    #[serde(default, skip_serializing_if = "Attrs::is_empty")]
    pub attrs: Attrs,
    /// Whether it may be written.
    pub editable: bool,
}

/// The payload of `page.changed`: what one committed command did to the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PageChangeV1 {
    /// The revision the change was applied on; the envelope's `revision` is the one it made.
    pub from_revision: u64,
    /// Who asked: `user`, `shortcut`, `hermes` or `review_accept`.
    pub origin: Origin,
    /// The actor the audit log records.
    pub actor: String,
    /// The Hermes run (or shortcut run) the write belongs to, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The tool call that wrote, when a tool call did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The tool that wrote, when a tool call did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The review session the write went through, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_session_id: Option<String>,
    /// The page title after the change.
    pub title: String,
    /// The page's permission after the change.
    pub permission: Permission,
    /// How many blocks the page has after the change.
    pub block_count: usize,
    /// Every inserted, changed or moved block, in page order.
    pub blocks: Vec<LiveBlockV1>,
    /// Every deleted block.
    pub deleted_block_ids: Vec<String>,
    /// The operations as validated (minted ids filled in); empty for a whole-page store.
    pub operations: Vec<Operation>,
}

/// The payload of `refetch`: a message that was not sent because it was too large.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefetchV1 {
    /// The kind of the message it replaces.
    pub skipped: LiveKind,
    /// Always `mnote_live_message_too_large`.
    pub code: String,
    /// The size of the message it replaces, in bytes.
    pub bytes: usize,
    /// The largest message the channel sends.
    pub limit_bytes: usize,
    /// For a skipped `review.updated`: the session to read (`GET /api/page-ai/review-sessions/{id}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_session_id: Option<String>,
}

/// A message's payload: one variant per [`LiveKind`].
#[derive(Debug, Clone, PartialEq)]
pub enum LiveBody {
    /// `hello`.
    Hello(HelloV1),
    /// `page.changed`.
    PageChanged(PageChangeV1),
    /// `tool.event`.
    ToolEvent(ToolEventV1),
    /// `review.updated`.
    ReviewUpdated(Box<ReviewSessionV1>),
    /// `snapshot`.
    Snapshot(Box<Page>),
    /// `refetch`.
    Refetch(RefetchV1),
    /// `profile.changed` (v2).
    ProfileChanged(ProfileChangeV2),
}

impl LiveBody {
    /// Its kind.
    pub fn kind(&self) -> LiveKind {
        match self {
            LiveBody::Hello(_) => LiveKind::Hello,
            LiveBody::PageChanged(_) => LiveKind::PageChanged,
            LiveBody::ToolEvent(_) => LiveKind::ToolEvent,
            LiveBody::ReviewUpdated(_) => LiveKind::ReviewUpdated,
            LiveBody::Snapshot(_) => LiveKind::Snapshot,
            LiveBody::Refetch(_) => LiveKind::Refetch,
            LiveBody::ProfileChanged(_) => LiveKind::ProfileChanged,
        }
    }
}

/// `mnote.live_event.v1` (or `.v2`): one message.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveEventV1 {
    /// [`LIVE_EVENT_V1`], or [`super::LIVE_EVENT_V2`] for a v2 socket's message.
    pub schema: String,
    /// Position in the document's channel. Stored messages count up by one; `hello` and `snapshot` carry
    /// the position the socket is caught up to. Resume with `?after=<seq>`.
    pub seq: u64,
    /// The page revision once this message is applied.
    pub revision: u64,
    /// When the command ran (or the socket connected), RFC 3339.
    pub at: String,
    /// The document.
    pub document_id: String,
    /// The payload.
    pub body: LiveBody,
}

/// How a message is written: the envelope and one payload field, borrowed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireRef<'a> {
    schema: &'a str,
    seq: u64,
    revision: u64,
    kind: LiveKind,
    at: &'a str,
    document_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hello: Option<&'a HelloV1>,
    #[serde(skip_serializing_if = "Option::is_none")]
    change: Option<&'a PageChangeV1>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<&'a ToolEventV1>,
    #[serde(skip_serializing_if = "Option::is_none")]
    session: Option<&'a ReviewSessionV1>,
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<&'a Page>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refetch: Option<&'a RefetchV1>,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<&'a ProfileChangeV2>,
}

/// How a message is read: every payload field optional, exactly one of them present. A tool event and a
/// review session are read as `E` and `S`: their types for [`LiveEventV1`], skipped unread for
/// [`LiveFollowV1`].
#[derive(Deserialize, Read)]
// Missing payload fields read as `None` (serde's rule for `Option`).
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Wire<E, S> {
    schema: String,
    seq: u64,
    revision: u64,
    kind: LiveKind,
    at: String,
    document_id: String,
    hello: Option<HelloV1>,
    change: Option<PageChangeV1>,
    event: Option<E>,
    session: Option<S>,
    page: Option<Box<Page>>,
    refetch: Option<RefetchV1>,
    profile: Option<ProfileChangeV2>,
}

impl<E, S> Wire<E, S> {
    /// Refuses a message of an unknown version, a kind its version does not have, or whose payload fields
    /// are not exactly its kind's.
    fn check(&self) -> Result<(), String> {
        let version = LiveVersion::parse(&self.schema).map_err(|e| e.message())?;
        if self.kind.since() > version {
            return Err(alloc::format!(
                "a {} message is {}, not {}",
                self.kind.as_str(),
                self.kind.since().schema(),
                self.schema
            ));
        }
        let present = [
            self.hello.is_some(),
            self.change.is_some(),
            self.event.is_some(),
            self.session.is_some(),
            self.page.is_some(),
            self.refetch.is_some(),
            self.profile.is_some(),
        ];
        let own = match self.kind {
            LiveKind::Hello => self.hello.is_some(),
            LiveKind::PageChanged => self.change.is_some(),
            LiveKind::ToolEvent => self.event.is_some(),
            LiveKind::ReviewUpdated => self.session.is_some(),
            LiveKind::Snapshot => self.page.is_some(),
            LiveKind::Refetch => self.refetch.is_some(),
            LiveKind::ProfileChanged => self.profile.is_some(),
        };
        match own && present.iter().filter(|p| **p).count() == 1 {
            true => Ok(()),
            false => Err(alloc::format!(
                "a {} message carries one payload field, `{}`",
                self.kind.as_str(),
                self.kind.payload_field()
            )),
        }
    }
}

/// A message as a client that follows the page reads it ([`crate::live::follow_light`]): the envelope,
/// and the payloads that change the page. A tool event's and a review session's contents are skipped
/// unread, so a browser that only follows the page carries no decoder for them.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveFollowV1 {
    /// [`LIVE_EVENT_V1`] or [`super::LIVE_EVENT_V2`].
    pub schema: String,
    /// Position in the channel.
    pub seq: u64,
    /// The page revision once this message is applied.
    pub revision: u64,
    /// The kind.
    pub kind: LiveKind,
    /// The document.
    pub document_id: String,
    /// What following needs of the payload.
    pub step: FollowStep,
}

/// What following needs of a message's payload.
#[derive(Debug, Clone, PartialEq)]
pub enum FollowStep {
    /// `hello`.
    Hello,
    /// `page.changed`.
    PageChanged(PageChangeV1),
    /// `snapshot`.
    Snapshot(Box<Page>),
    /// `refetch`.
    Refetch(RefetchV1),
    /// `tool.event`, `review.updated` or `profile.changed`: nothing to follow.
    Other,
}

impl<'de> Deserialize<'de> for LiveFollowV1 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::{Error as _, IgnoredAny};
        let wire = Wire::<IgnoredAny, IgnoredAny>::deserialize(deserializer)?;
        wire.check().map_err(D::Error::custom)?;
        Ok(LiveFollowV1::from(wire))
    }
}

impl Read for LiveFollowV1 {
    fn read(at: At<'_>) -> Result<Self, ReadError> {
        use serde::de::{Error as _, IgnoredAny};
        let wire = Wire::<IgnoredAny, IgnoredAny>::read(at)?;
        wire.check().map_err(ReadError::custom)?;
        Ok(LiveFollowV1::from(wire))
    }
}

impl From<Wire<serde::de::IgnoredAny, serde::de::IgnoredAny>> for LiveFollowV1 {
    fn from(wire: Wire<serde::de::IgnoredAny, serde::de::IgnoredAny>) -> Self {
        let kind = wire.kind;
        let step = match (wire.change, wire.page, wire.refetch) {
            (Some(change), _, _) => FollowStep::PageChanged(change),
            (_, Some(page), _) => FollowStep::Snapshot(page),
            (_, _, Some(refetch)) => FollowStep::Refetch(refetch),
            (None, None, None) if kind == LiveKind::Hello => FollowStep::Hello,
            (None, None, None) => FollowStep::Other,
        };
        LiveFollowV1 {
            schema: wire.schema,
            seq: wire.seq,
            revision: wire.revision,
            kind,
            document_id: wire.document_id,
            step,
        }
    }
}

impl Serialize for LiveEventV1 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut wire = WireRef {
            schema: &self.schema,
            seq: self.seq,
            revision: self.revision,
            kind: self.body.kind(),
            at: &self.at,
            document_id: &self.document_id,
            hello: None,
            change: None,
            event: None,
            session: None,
            page: None,
            refetch: None,
            profile: None,
        };
        match &self.body {
            LiveBody::Hello(hello) => wire.hello = Some(hello),
            LiveBody::PageChanged(change) => wire.change = Some(change),
            LiveBody::ToolEvent(event) => wire.event = Some(event),
            LiveBody::ReviewUpdated(session) => wire.session = Some(session),
            LiveBody::Snapshot(page) => wire.page = Some(page),
            LiveBody::Refetch(refetch) => wire.refetch = Some(refetch),
            LiveBody::ProfileChanged(profile) => wire.profile = Some(profile),
        }
        wire.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for LiveEventV1 {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let wire = Wire::<ToolEventV1, Box<ReviewSessionV1>>::deserialize(deserializer)?;
        wire.check().map_err(D::Error::custom)?;
        LiveEventV1::try_from(wire).map_err(D::Error::custom)
    }
}

impl Read for LiveEventV1 {
    fn read(at: At<'_>) -> Result<Self, ReadError> {
        use serde::de::Error as _;
        let wire = Wire::<ToolEventV1, Box<ReviewSessionV1>>::read(at)?;
        wire.check().map_err(ReadError::custom)?;
        LiveEventV1::try_from(wire).map_err(ReadError::custom)
    }
}

impl TryFrom<Wire<ToolEventV1, Box<ReviewSessionV1>>> for LiveEventV1 {
    type Error = &'static str;

    fn try_from(wire: Wire<ToolEventV1, Box<ReviewSessionV1>>) -> Result<Self, Self::Error> {
        let body = match (wire.hello, wire.change, wire.event, wire.session, wire.page, wire.refetch, wire.profile) {
            (Some(hello), ..) => LiveBody::Hello(hello),
            (_, Some(change), ..) => LiveBody::PageChanged(change),
            (_, _, Some(event), ..) => LiveBody::ToolEvent(event),
            (_, _, _, Some(session), ..) => LiveBody::ReviewUpdated(session),
            (_, _, _, _, Some(page), ..) => LiveBody::Snapshot(page),
            (.., Some(refetch), _) => LiveBody::Refetch(refetch),
            (.., Some(profile)) => LiveBody::ProfileChanged(profile),
            (None, None, None, None, None, None, None) => return Err("a message carries a payload"),
        };
        Ok(LiveEventV1 {
            schema: wire.schema,
            seq: wire.seq,
            revision: wire.revision,
            at: wire.at,
            document_id: wire.document_id,
            body,
        })
    }
}

/// The JSON Schema of a message, as a type for `schemars` (only in tests: `manifest`'s checked-in schemas
/// write it to `schemas/wire/live_event.v1.json`). [`LiveEventV1`] (de)serializes by hand, with the payload
/// beside the envelope; this mirror says the same as one shape per `kind`, each with exactly its payload.
#[cfg(test)]
#[derive(schemars::JsonSchema)]
#[serde(tag = "kind", rename_all_fields = "camelCase", deny_unknown_fields)]
#[schemars(
    title = "mnote.live_event.v1",
    description = "One message of a document's live channel (GET /api/documents/{id}/live): the envelope and the one payload field its kind names."
)]
// Never built: only its schema is read.
#[allow(dead_code, clippy::large_enum_variant)]
pub(crate) enum LiveEventSchema {
    /// The channel is live.
    #[serde(rename = "hello")]
    Hello {
        #[schemars(extend("const" = "mnote.live_event.v1"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        hello: HelloV1,
    },
    /// A write changed the page.
    #[serde(rename = "page.changed")]
    PageChanged {
        #[schemars(extend("const" = "mnote.live_event.v1"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        change: PageChangeV1,
    },
    /// A tool call started, completed or failed.
    #[serde(rename = "tool.event")]
    ToolEvent {
        #[schemars(extend("const" = "mnote.live_event.v1"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        event: ToolEventV1,
    },
    /// A review session was made or moved.
    #[serde(rename = "review.updated")]
    ReviewUpdated {
        #[schemars(extend("const" = "mnote.live_event.v1"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        session: ReviewSessionV1,
    },
    /// The whole page.
    #[serde(rename = "snapshot")]
    Snapshot {
        #[schemars(extend("const" = "mnote.live_event.v1"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        page: Page,
    },
    /// A message too large to send.
    #[serde(rename = "refetch")]
    Refetch {
        #[schemars(extend("const" = "mnote.live_event.v1"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        refetch: RefetchV1,
    },
}
