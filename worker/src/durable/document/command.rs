//! What the front Worker (and the profile object) asks a document's object: [`DocumentCommand`], a small
//! typed enum sent as the JSON body of one internal `POST`, and the answers that are not a service's own.

use pageai_core::context::ContextRequest;
use pageai_core::page::Permission;
use pageai_core::profile::Profile;
use pageai_core::route::RouteV1;
use pageai_core::wire::PageAiContextV2;
use serde::{Deserialize, Serialize};

use crate::services::block_edits::BlockEdits;
use crate::services::commands::CommandRequest;
use crate::services::documents::PageDraft;
use crate::services::reviews::ReviewAction;
use crate::services::tool_calls::ToolCallRequest;

/// What the front Worker asks a document's object to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum DocumentCommand {
    /// Return the page; seed it first when it is a known sample and the store is empty.
    Get {
        /// The document the object serves (objects are addressed by this id).
        document_id: String,
    },
    /// Replace the page's blocks (and any metadata the draft names) at the next revision.
    Put {
        /// The document the object serves.
        document_id: String,
        /// The new content.
        draft: PageDraft,
    },
    /// Run one AI tool call ([`crate::services::tool_calls`]) under the object's copy of the profile; answers a
    /// [`crate::services::tool_calls::ToolReply`].
    CallTool {
        /// The document the object serves.
        document_id: String,
        /// The call.
        call: ToolCallRequest,
    },
    /// Route and act on a page-AI command ([`crate::services::commands`]) under the object's copy of the profile; answers
    /// a [`crate::services::commands::CommandAnswer`].
    Command {
        /// The document the object serves.
        document_id: String,
        /// The command.
        request: CommandRequest,
        /// Tags the shortcut's events and session.
        trace_id: String,
    },
    /// Act on a review session ([`crate::services::reviews`]) under the object's copy of the profile.
    Review {
        /// The document the object serves.
        document_id: String,
        /// The session.
        session_id: String,
        /// What to do.
        action: ReviewAction,
    },
    /// Undo every write Hermes run `run_id` applied ([`crate::services::run_undo`]) under the object's copy
    /// of the profile; answers the `mnote.run_undo.v1`.
    UndoRun {
        /// The document the object serves.
        document_id: String,
        /// The run.
        run_id: String,
        /// The key, and the confirm of a preview.
        request: pageai_core::review::UndoRunRequest,
    },
    /// Apply a person's block edits ([`crate::services::block_edits`]) under the object's copy of the
    /// profile; answers the `mnote.tool_result.v1`.
    EditBlocks {
        /// The document the object serves.
        document_id: String,
        /// The edits.
        edits: BlockEdits,
    },
    /// Hold a person's block edits as their suggestion ([`crate::services::block_edits::suggest`]) under the
    /// object's copy of the profile; answers the review session.
    Suggest {
        /// The document the object serves.
        document_id: String,
        /// The edits, and why.
        body: crate::services::block_edits::SuggestionBody,
    },
    /// The page's pending suggestions ([`crate::services::reviews::suggestions`]).
    ListSuggestions {
        /// The document the object serves.
        document_id: String,
    },
    /// The document's review sessions: open ones first, each group newest first (core's
    /// [`pageai_core::review::listing`]).
    ListSessions {
        /// The document the object serves.
        document_id: String,
        /// `?state=`: `all` (or none), `open`, or a state's wire name; checked by the front.
        filter: Option<String>,
        /// `?cursor=`: where the previous page ended.
        cursor: Option<String>,
        /// At most this many.
        limit: u32,
    },
    /// A sign-in session ended (logout): close its live sockets with `mnote_live_session_ended`.
    EndSession {
        /// The document the object serves.
        document_id: String,
        /// The session's id (the cookie's nonce), as its sockets were opened with.
        session: String,
    },
    /// Audit entries after `after`, oldest first.
    Audit {
        /// The document the object serves.
        document_id: String,
        /// Entries with a larger `seq`.
        after: u64,
        /// At most this many.
        limit: u32,
    },
    /// Verify the whole audit chain against its stored head.
    VerifyAudit {
        /// The document the object serves.
        document_id: String,
    },
    /// Tool and review events after `after`, oldest first; one run's only when `run_id` is set.
    Events {
        /// The document the object serves.
        document_id: String,
        /// Only this run's events.
        run_id: Option<String>,
        /// Events with a larger `seq`.
        after: u64,
        /// At most this many.
        limit: u32,
    },
    /// Freeze the page into a context for a Hermes run, store it with an expiry, and route the message
    /// against it under the object's copy of the profile (which the answer carries, for the run's tools).
    /// All in one turn, so the context, the route and the stored row see the same revision.
    FreezeRun {
        /// The document the object serves.
        document_id: String,
        /// The id to give the context (minted by the caller).
        context_id: String,
        /// Scope, views and budget of the context.
        request: ContextRequest,
        /// How long the context stays valid, in seconds.
        ttl_seconds: u64,
        /// The user's message, for the router.
        message: String,
        /// The user's selection, for the router.
        selection: Vec<String>,
        /// The key the router puts in a recommended call.
        idempotency_key: String,
    },
    /// A Hermes run started with the context frozen for it: bind the context to the run id, so MCP tool
    /// calls naming the context are evented with the run's id. Answers `{"bound": true}`.
    BindRun {
        /// The document the object serves.
        document_id: String,
        /// The run's frozen context.
        context_id: String,
        /// The run id Hermes answered.
        run_id: String,
        /// How long the binding lasts (the context's validity), in seconds.
        ttl_seconds: u64,
    },
    /// A workspace's profile changed (`PUT /api/profile`): its profile object sends the new one to every
    /// document object that holds a copy, before it answers the `PUT`. Answers [`ProfileHeld`].
    PutProfile {
        /// The document the object serves.
        document_id: String,
        /// The workspace whose profile it is; the page of another workspace does not take it.
        workspace_id: String,
        /// The new profile.
        profile: Profile,
        /// Its version; a copy keeps the highest it has seen.
        version: u64,
    },
}

impl DocumentCommand {
    /// The document the command is for.
    pub fn document_id(&self) -> &str {
        match self {
            DocumentCommand::Get { document_id }
            | DocumentCommand::Put { document_id, .. }
            | DocumentCommand::CallTool { document_id, .. }
            | DocumentCommand::Command { document_id, .. }
            | DocumentCommand::Review { document_id, .. }
            | DocumentCommand::UndoRun { document_id, .. }
            | DocumentCommand::EditBlocks { document_id, .. }
            | DocumentCommand::Suggest { document_id, .. }
            | DocumentCommand::ListSuggestions { document_id }
            | DocumentCommand::ListSessions { document_id, .. }
            | DocumentCommand::EndSession { document_id, .. }
            | DocumentCommand::Audit { document_id, .. }
            | DocumentCommand::VerifyAudit { document_id }
            | DocumentCommand::Events { document_id, .. }
            | DocumentCommand::FreezeRun { document_id, .. }
            | DocumentCommand::BindRun { document_id, .. }
            | DocumentCommand::PutProfile { document_id, .. } => document_id,
        }
    }

    /// Whether the command reads the object's copy of the profile.
    pub fn reads_profile(&self) -> bool {
        match self {
            DocumentCommand::CallTool { .. }
            | DocumentCommand::Command { .. }
            | DocumentCommand::Review { .. }
            | DocumentCommand::UndoRun { .. }
            | DocumentCommand::EditBlocks { .. }
            | DocumentCommand::Suggest { .. }
            | DocumentCommand::FreezeRun { .. } => true,
            DocumentCommand::Get { .. }
            | DocumentCommand::Put { .. }
            | DocumentCommand::ListSessions { .. }
            | DocumentCommand::ListSuggestions { .. }
            | DocumentCommand::EndSession { .. }
            | DocumentCommand::Audit { .. }
            | DocumentCommand::VerifyAudit { .. }
            | DocumentCommand::Events { .. }
            | DocumentCommand::BindRun { .. }
            | DocumentCommand::PutProfile { .. } => false,
        }
    }
}

/// The answer of [`DocumentCommand::PutProfile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileHeld {
    /// Whether the object holds a copy (or is fetching one). `false` when it woke only for this push: it
    /// fetches the profile again when it needs it, so the profile object may forget it.
    pub holding: bool,
}

/// The answer of [`DocumentCommand::FreezeRun`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrozenRun {
    /// The frozen context (with the views the request asked for), showing the page's pending suggestions.
    pub context: PageAiContextV2,
    /// The page's permission, for the manifest.
    pub permission: Permission,
    /// The router's answer for the message.
    pub route: RouteV1,
    /// The profile the route was made under (the object's copy of the workspace's): the run's manifest
    /// and review policy, so the run start asks no other object.
    pub profile: Profile,
}
