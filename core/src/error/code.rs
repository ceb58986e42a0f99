//! The code table: every stable error code, its string and its HTTP status class, one line each.
//!
//! The table is the one place a code is declared. A line without its status class does not match the macro,
//! so a code cannot be added without deciding how an HTTP client sees it; the Worker turns the class into a
//! number with an exhaustive match.

use core::fmt;

/// The HTTP status class of an error code: what kind of failure an HTTP client is told it is.
///
/// Core names the class; the Worker picks the number (`worker/src/error.rs`). An upstream timeout is the
/// one refinement the code alone cannot say: it is a [`Status::BadGateway`] code whose error says it timed
/// out, answered as a gateway timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// The caller sent something wrong (400).
    BadRequest,
    /// No valid credential (401).
    Unauthorized,
    /// The credential is valid but not enough, or the origin is not allowed (403).
    Forbidden,
    /// The thing asked for does not exist (404).
    NotFound,
    /// The route exists, not for this method (405).
    MethodNotAllowed,
    /// The request is valid but conflicts with the current state (409).
    Conflict,
    /// The body is too large (413).
    PayloadTooLarge,
    /// Too many requests: an upstream is busy, or the caller is over a limit (429).
    TooManyRequests,
    /// Something failed on our side; never the caller's fault (500).
    Internal,
    /// An upstream failed or refused us (502; 504 when it timed out).
    BadGateway,
    /// The service is not set up to answer (503).
    Unavailable,
}

impl Status {
    /// Every class.
    pub const ALL: [Status; 11] = [
        Status::BadRequest,
        Status::Unauthorized,
        Status::Forbidden,
        Status::NotFound,
        Status::MethodNotAllowed,
        Status::Conflict,
        Status::PayloadTooLarge,
        Status::TooManyRequests,
        Status::Internal,
        Status::BadGateway,
        Status::Unavailable,
    ];
}

macro_rules! error_codes {
    ($($variant:ident => $code:literal, $status:ident;)*) => {
        /// A stable error code. The string form (`as_str`) is the public contract.
        #[non_exhaustive]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorCode { $(
            #[doc = concat!("`", $code, "`")]
            $variant,
        )* }

        impl ErrorCode {
            /// Every code, in the order they were added.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The stable snake_case string of this code.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code),* }
            }

            /// The HTTP status class an HTTP client gets for this code.
            pub const fn status(self) -> Status {
                match self { $(ErrorCode::$variant => Status::$status),* }
            }

            /// Parses a code from its string form.
            pub fn parse(code: &str) -> Option<Self> {
                match code { $($code => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

// Append-only: never rename, reorder or remove a line. Each line: variant => code, status class.
error_codes! {
    InvalidArguments => "mnote_invalid_arguments", BadRequest;
    RevisionConflict => "mnote_revision_conflict", Conflict;
    BlockNotFound => "mnote_block_not_found", NotFound;
    // Out-of-scope targets are a fault in what the caller sent (SPEC §5).
    BlockTargetOutOfScope => "mnote_block_target_out_of_scope", BadRequest;
    BlockNotEditable => "mnote_block_not_editable", BadRequest;
    MatchNotFound => "mnote_match_not_found", BadRequest;
    MatchAmbiguous => "mnote_match_ambiguous", BadRequest;
    ToolDisabled => "mnote_tool_disabled", Forbidden;
    ScopeDenied => "mnote_scope_denied", Forbidden;
    ReviewRequired => "mnote_review_required", Conflict;
    IdempotencyConflict => "mnote_idempotency_conflict", Conflict;
    ContextStale => "mnote_context_stale", Conflict;
    DocumentNotFound => "mnote_document_not_found", NotFound;
    DocumentReadOnly => "mnote_document_read_only", Forbidden;
    InvalidPage => "mnote_invalid_page", BadRequest;
    InvalidMarkdown => "mnote_invalid_markdown", BadRequest;
    UnsupportedSchema => "mnote_unsupported_schema", BadRequest;
    PayloadTooLarge => "mnote_payload_too_large", PayloadTooLarge;
    InvalidBody => "mnote_invalid_body", BadRequest;
    Unauthorized => "mnote_unauthorized", Unauthorized;
    ForbiddenOrigin => "mnote_forbidden_origin", Forbidden;
    RouteNotFound => "mnote_route_not_found", NotFound;
    MethodNotAllowed => "mnote_method_not_allowed", MethodNotAllowed;
    StorageFailed => "mnote_storage_failed", Internal;
    UnknownTool => "mnote_unknown_tool", BadRequest;
    ContextNotFound => "mnote_context_not_found", NotFound;
    ReviewInvalidTransition => "mnote_review_invalid_transition", Conflict;
    RevertConflict => "mnote_revert_conflict", Conflict;
    ReviewSessionNotFound => "mnote_review_session_not_found", NotFound;
    // A broken audit chain is stored data gone bad, not a fault in the request.
    AuditChainBroken => "mnote_audit_chain_broken", Internal;
    HermesUnauthorized => "hermes_client_unauthorized", Unauthorized;
    HermesUnconfigured => "hermes_client_unconfigured", Unavailable;
    HermesBadRequest => "hermes_client_bad_request", BadRequest;
    // The upstream failed, not the caller: never a 4xx (STYLE.md).
    HermesUpstreamUnauthorized => "hermes_client_upstream_unauthorized", BadGateway;
    HermesUpstreamRateLimited => "hermes_client_upstream_rate_limited", TooManyRequests;
    HermesUpstreamUnavailable => "hermes_client_upstream_unavailable", BadGateway;
    // The live channel's limits; a socket past one is closed with 4000 + the class's status.
    LiveSocketLimit => "mnote_live_socket_limit", TooManyRequests;
    LiveMessageTooLarge => "mnote_live_message_too_large", PayloadTooLarge;
    // The client's copy of the page cannot follow the channel: it must catch up or reload.
    LiveResync => "mnote_live_resync", Conflict;
    // Too many failed sign-ins from one client: it waits, then tries again.
    TooManyAttempts => "mnote_too_many_attempts", TooManyRequests;
    // The caller may see the document, but their role there does not allow this (a viewer writing).
    RoleForbidden => "mnote_role_forbidden", Forbidden;
    // An AI write that names no frozen context: it could touch any block, so it is refused.
    ContextRequired => "mnote_context_required", BadRequest;
    // A record the document keeps (a review session, an idempotency record) would pass the storage limit.
    StoredTooLarge => "mnote_stored_record_too_large", PayloadTooLarge;
    // A workspace the caller holds no role in: answered as if it did not exist, as its documents are.
    WorkspaceNotFound => "mnote_workspace_not_found", NotFound;
    // A write would make the page larger than a page may be: its GET could no longer be PUT back.
    PageTooLarge => "mnote_page_too_large", PayloadTooLarge;
    // A live socket outlived its sign-in (logout, expiry): closed with 4401, the client signs in again.
    LiveSessionEnded => "mnote_live_session_ended", Unauthorized;
    // One block past the block limit, on any write path: the error names it.
    BlockTooLarge => "mnote_block_too_large", PayloadTooLarge;
    // A live socket's credential predates its workspace's membership: closed with 4403, the client signs in
    // again and reconnects with the role it holds now.
    LiveRoleChanged => "mnote_live_role_changed", Forbidden;
    // Undo of a Hermes run (`review::undo_run`): no session of the document carries the run id.
    RunNotFound => "mnote_run_not_found", NotFound;
    // The run has sessions, but none applied a write that is still on the page (each says why).
    RunNothingToUndo => "mnote_run_nothing_to_undo", Conflict;
    // Every write the run applied is undone already; a repeat with the first key replays its answer.
    RunAlreadyUndone => "mnote_run_already_undone", Conflict;
    // A confirm of an undo preview made against a revision the page has moved on from.
    RunUndoStale => "mnote_run_undo_stale", Conflict;
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
