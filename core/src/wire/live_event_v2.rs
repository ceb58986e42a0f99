//! `mnote.live_event.v2`: the live channel's messages, with one more kind than v1.
//!
//! v2 is v1's envelope and kinds, with `schema: "mnote.live_event.v2"`, plus `profile.changed`:
//!
//! | `kind` | payload | what it says |
//! |---|---|---|
//! | `profile.changed` | `profile` ([`ProfileChangeV2`]) | the page's workspace profile (review mode, disabled tools), sent once after `hello` and again whenever it changes |
//!
//! A client asks for v2 when it connects (`?schema=mnote.live_event.v2`); without it the channel speaks v1,
//! so a client written for v1 keeps receiving every message it knows, each with the schema id it expects,
//! and never a kind it does not. One Rust type reads and writes both versions ([`super::LiveEventV1`], whose
//! `schema` says which); [`upgrade`] turns a stored v1 message into its v2 form for a v2 socket.
//!
//! `profile.changed` is not stored in the channel's log: like `hello`, its `seq` is the position the
//! socket is caught up to, and a client that reconnects is sent the current profile again after `hello`.

use crate::json::Read;
use alloc::borrow::Cow;
use alloc::string::String;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::vocab::{ReviewMode, ToolsPolicy};

/// Schema id of the v2 messages.
pub const LIVE_EVENT_V2: &str = "mnote.live_event.v2";

/// Which version of the channel a socket speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize, Read)]
pub enum LiveVersion {
    /// `mnote.live_event.v1`, what a client that names none gets.
    #[default]
    #[serde(rename = "mnote.live_event.v1")]
    V1,
    /// `mnote.live_event.v2`: v1 plus `profile.changed`.
    #[serde(rename = "mnote.live_event.v2")]
    V2,
}

impl LiveVersion {
    /// Every version, oldest first.
    pub const ALL: [LiveVersion; 2] = [LiveVersion::V1, LiveVersion::V2];

    /// Its schema id.
    pub const fn schema(self) -> &'static str {
        match self {
            LiveVersion::V1 => super::LIVE_EVENT_V1,
            LiveVersion::V2 => LIVE_EVENT_V2,
        }
    }

    /// The version a schema id names; another id is `mnote_unsupported_schema`.
    pub fn parse(schema: &str) -> Result<LiveVersion> {
        LiveVersion::ALL.into_iter().find(|v| v.schema() == schema).ok_or_else(|| Error::UnsupportedSchema {
            found: schema.into(),
            expected: alloc::format!("{} or {}", super::LIVE_EVENT_V1, LIVE_EVENT_V2),
        })
    }
}

/// The payload of `profile.changed` (v2): the page's workspace profile as it is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileChangeV2 {
    /// The workspace whose profile it is (the page's).
    pub workspace_id: String,
    /// The version the profile was stored at; a client keeps the highest it has seen.
    pub version: u64,
    /// How much a person must see before an AI write lands.
    pub review_mode: ReviewMode,
    /// The tool switches.
    pub tools: ToolsPolicy,
}

/// A stored message (written as v1) as `version` sends it: unchanged for v1, with the v2 schema id for v2.
/// Every kind v1 has means the same in v2, so only the id differs, and a message as
/// [`crate::live::encode`] writes it (every stored one) begins with it: the id is swapped in place, without
/// decoding the message again for each socket.
pub fn upgrade(json: &str, version: LiveVersion) -> Cow<'_, str> {
    const V1_HEAD: &str = "{\"schema\":\"mnote.live_event.v1\"";
    match (version, json.strip_prefix(V1_HEAD)) {
        (LiveVersion::V2, Some(rest)) => Cow::Owned(alloc::format!("{{\"schema\":\"{LIVE_EVENT_V2}\"{rest}")),
        _ => Cow::Borrowed(json),
    }
}

#[cfg(test)]
use super::{HelloV1, PageChangeV1, RefetchV1, ReviewSessionV1, ToolEventV1};
#[cfg(test)]
use crate::page::Page;

/// The JSON Schema of a message, as a type for `schemars` (only in tests: `manifest`'s checked-in schemas
/// write it to `schemas/wire/live_event.v1.json`). [`LiveEventV1`] (de)serializes by hand, with the payload
/// beside the envelope; this mirror says the same as one shape per `kind`, each with exactly its payload.
#[cfg(test)]
#[derive(schemars::JsonSchema)]
#[serde(tag = "kind", rename_all_fields = "camelCase", deny_unknown_fields)]
#[schemars(
    title = "mnote.live_event.v2",
    description = "One message of a document's live channel (GET /api/documents/{id}/live?schema=mnote.live_event.v2): the envelope and the one payload field its kind names."
)]
// Never built: only its schema is read.
#[allow(dead_code, clippy::large_enum_variant)]
pub(crate) enum LiveEventSchemaV2 {
    /// The channel is live.
    #[serde(rename = "hello")]
    Hello {
        #[schemars(extend("const" = "mnote.live_event.v2"))]
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
        #[schemars(extend("const" = "mnote.live_event.v2"))]
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
        #[schemars(extend("const" = "mnote.live_event.v2"))]
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
        #[schemars(extend("const" = "mnote.live_event.v2"))]
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
        #[schemars(extend("const" = "mnote.live_event.v2"))]
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
        #[schemars(extend("const" = "mnote.live_event.v2"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        refetch: RefetchV1,
    },
    /// The workspace profile, after `hello` and whenever it changes.
    #[serde(rename = "profile.changed")]
    ProfileChanged {
        #[schemars(extend("const" = "mnote.live_event.v2"))]
        schema: String,
        seq: u64,
        revision: u64,
        at: String,
        document_id: String,
        profile: ProfileChangeV2,
    },
}
