//! The one error enum of the project.
//!
//! Every failure that can reach a user, a model or an HTTP client is a variant here, with a stable
//! snake_case [`ErrorCode`], a human message, a hint that says what to do next, and machine-readable
//! `details`. Codes are append-only: a code, once shipped, keeps its meaning forever. Messages may change.
//! The adapters (WASM, Worker) only translate these; they never invent codes of their own.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde_json::{Value, json};

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

macro_rules! error_codes {
    ($($variant:ident => $code:literal),* $(,)?) => {
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

            /// Parses a code from its string form.
            pub fn parse(code: &str) -> Option<Self> {
                match code { $($code => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

// Append-only: never rename, reorder or remove a line.
error_codes! {
    InvalidArguments => "mnote_invalid_arguments",
    RevisionConflict => "mnote_revision_conflict",
    BlockNotFound => "mnote_block_not_found",
    BlockTargetOutOfScope => "mnote_block_target_out_of_scope",
    BlockNotEditable => "mnote_block_not_editable",
    MatchNotFound => "mnote_match_not_found",
    MatchAmbiguous => "mnote_match_ambiguous",
    ToolDisabled => "mnote_tool_disabled",
    ScopeDenied => "mnote_scope_denied",
    ReviewRequired => "mnote_review_required",
    IdempotencyConflict => "mnote_idempotency_conflict",
    ContextStale => "mnote_context_stale",
    DocumentNotFound => "mnote_document_not_found",
    DocumentReadOnly => "mnote_document_read_only",
    InvalidPage => "mnote_invalid_page",
    InvalidMarkdown => "mnote_invalid_markdown",
    UnsupportedSchema => "mnote_unsupported_schema",
    PayloadTooLarge => "mnote_payload_too_large",
    InvalidBody => "mnote_invalid_body",
    Unauthorized => "mnote_unauthorized",
    ForbiddenOrigin => "mnote_forbidden_origin",
    RouteNotFound => "mnote_route_not_found",
    MethodNotAllowed => "mnote_method_not_allowed",
    StorageFailed => "mnote_storage_failed",
    UnknownTool => "mnote_unknown_tool",
    ContextNotFound => "mnote_context_not_found",
    ReviewInvalidTransition => "mnote_review_invalid_transition",
    RevertConflict => "mnote_revert_conflict",
    ReviewSessionNotFound => "mnote_review_session_not_found",
    AuditChainBroken => "mnote_audit_chain_broken",
    HermesUnauthorized => "hermes_client_unauthorized",
    HermesUnconfigured => "hermes_client_unconfigured",
    HermesBadRequest => "hermes_client_bad_request",
    HermesUpstreamUnauthorized => "hermes_client_upstream_unauthorized",
    HermesUpstreamRateLimited => "hermes_client_upstream_rate_limited",
    HermesUpstreamUnavailable => "hermes_client_upstream_unavailable",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything that can go wrong, with the data needed to explain it.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// An argument failed schema validation. `pointer` is a JSON pointer (RFC 6901) to the bad field.
    InvalidArguments {
        /// JSON pointer to the offending field, `""` for the whole input.
        pointer: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The caller's base revision is not the page's current revision.
    RevisionConflict {
        /// The revision the caller based its change on.
        expected: u64,
        /// The page's revision now.
        actual: u64,
    },
    /// A block id does not exist on the page.
    BlockNotFound {
        /// The id that was asked for.
        block_id: String,
        /// Existing ids closest to it, best first.
        nearest: Vec<String>,
    },
    /// A write targets a block outside the frozen scope.
    BlockTargetOutOfScope {
        /// The block that was targeted.
        block_id: String,
        /// The blocks the scope allows.
        allowed: Vec<String>,
    },
    /// A write targets a locked block.
    BlockNotEditable {
        /// The locked block.
        block_id: String,
    },
    /// `matchText` occurs nowhere in the target.
    MatchNotFound {
        /// The text that was searched for.
        match_text: String,
        /// The closest text that does exist, and its block.
        did_you_mean: Option<(String, String)>,
    },
    /// `matchText` occurs more than once where exactly one match was required.
    MatchAmbiguous {
        /// The text that was searched for.
        match_text: String,
        /// Every match as `(blockId, charOffset)`.
        matches: Vec<(String, usize)>,
    },
    /// The tool is disabled by the profile or the document's permission.
    ToolDisabled {
        /// The tool's name.
        tool: String,
        /// Why it is disabled.
        reason: String,
    },
    /// The caller lacks the capability scope the tool needs.
    ScopeDenied {
        /// The tool's name.
        tool: String,
        /// The scope it needs.
        required: String,
    },
    /// The profile requires review before this write may be applied.
    ReviewRequired {
        /// The tool's name.
        tool: String,
    },
    /// An idempotency key was reused with different arguments.
    IdempotencyConflict {
        /// The reused key.
        key: String,
    },
    /// A continuation token or frozen context belongs to an older revision.
    ContextStale {
        /// The revision the token was minted at.
        token_revision: u64,
        /// The page's revision now.
        current_revision: u64,
    },
    /// No document has this id.
    DocumentNotFound {
        /// The id that was asked for.
        document_id: String,
    },
    /// The document may be read but not written.
    DocumentReadOnly {
        /// The document.
        document_id: String,
    },
    /// A page failed a model invariant (id format, duplicate id, attrs that do not fit the type).
    InvalidPage {
        /// JSON pointer into the page.
        pointer: String,
        /// What is wrong.
        reason: String,
    },
    /// Markdown could not be imported.
    InvalidMarkdown {
        /// What is wrong.
        reason: String,
    },
    /// A payload carries a `schema` id this build does not understand.
    UnsupportedSchema {
        /// The schema id that was sent.
        found: String,
        /// The schema id that is understood.
        expected: String,
    },
    /// A request body is larger than allowed.
    PayloadTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// A request body is not valid UTF-8 or not valid JSON.
    InvalidBody {
        /// What is wrong.
        reason: String,
    },
    /// The caller presented no valid credential.
    Unauthorized,
    /// A state-changing request came from an origin that is not allowed.
    ForbiddenOrigin {
        /// The origin that was presented.
        origin: String,
    },
    /// No route has this path.
    RouteNotFound {
        /// The path asked for.
        path: String,
    },
    /// The route exists but not for this method.
    MethodNotAllowed {
        /// The method used.
        method: String,
    },
    /// Durable storage failed; the write was rolled back.
    StorageFailed,
    /// No tool has this name.
    UnknownTool {
        /// The name that was called.
        name: String,
        /// Tool names closest to it.
        nearest: Vec<String>,
    },
    /// A `contextId` that was never issued, belongs elsewhere, or has expired.
    ContextNotFound {
        /// The id that was sent.
        context_id: String,
    },
    /// A review action that the session's state does not allow.
    ReviewInvalidTransition {
        /// The session's state now.
        state: String,
        /// The action that was asked for.
        action: String,
        /// The actions the state allows.
        allowed: Vec<String>,
    },
    /// A revert whose blocks changed since the session applied.
    RevertConflict {
        /// The blocks that changed since.
        changed: Vec<String>,
    },
    /// No review session has this id.
    ReviewSessionNotFound {
        /// The id that was asked for.
        session_id: String,
    },
    /// The audit chain does not verify.
    AuditChainBroken {
        /// The sequence number of the first bad entry.
        seq: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// A Hermes client route was called without a valid mnote session or client token.
    HermesUnauthorized,
    /// The Hermes client proxy has no upstream URL configured.
    HermesUnconfigured,
    /// A request to a Hermes client route is malformed, or names something Hermes does not have.
    HermesBadRequest {
        /// JSON pointer to the offending field, `""` when it is not one field.
        pointer: String,
        /// What is wrong.
        reason: String,
    },
    /// Hermes refused the proxy's server-held credential.
    HermesUpstreamUnauthorized {
        /// The status Hermes answered (401 or 403).
        status: u16,
    },
    /// Hermes is busy (too many runs).
    HermesUpstreamRateLimited {
        /// Hermes' `Retry-After`, passed through, when it sent a usable one.
        retry_after: Option<String>,
    },
    /// Hermes could not be reached, failed, timed out, or answered something unreadable.
    HermesUpstreamUnavailable {
        /// What went wrong, without any credential.
        reason: String,
        /// The upstream status, when it answered one.
        status: Option<u16>,
        /// No answer came within the configured timeout.
        timed_out: bool,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidArguments`].
    pub fn invalid(pointer: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidArguments { pointer: pointer.into(), reason: reason.into() }
    }

    /// Shorthand for [`Error::InvalidPage`].
    pub fn invalid_page(pointer: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidPage { pointer: pointer.into(), reason: reason.into() }
    }

    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        use ErrorCode as C;
        match self {
            Error::InvalidArguments { .. } => C::InvalidArguments,
            Error::RevisionConflict { .. } => C::RevisionConflict,
            Error::BlockNotFound { .. } => C::BlockNotFound,
            Error::BlockTargetOutOfScope { .. } => C::BlockTargetOutOfScope,
            Error::BlockNotEditable { .. } => C::BlockNotEditable,
            Error::MatchNotFound { .. } => C::MatchNotFound,
            Error::MatchAmbiguous { .. } => C::MatchAmbiguous,
            Error::ToolDisabled { .. } => C::ToolDisabled,
            Error::ScopeDenied { .. } => C::ScopeDenied,
            Error::ReviewRequired { .. } => C::ReviewRequired,
            Error::IdempotencyConflict { .. } => C::IdempotencyConflict,
            Error::ContextStale { .. } => C::ContextStale,
            Error::DocumentNotFound { .. } => C::DocumentNotFound,
            Error::DocumentReadOnly { .. } => C::DocumentReadOnly,
            Error::InvalidPage { .. } => C::InvalidPage,
            Error::InvalidMarkdown { .. } => C::InvalidMarkdown,
            Error::UnsupportedSchema { .. } => C::UnsupportedSchema,
            Error::PayloadTooLarge { .. } => C::PayloadTooLarge,
            Error::InvalidBody { .. } => C::InvalidBody,
            Error::Unauthorized => C::Unauthorized,
            Error::ForbiddenOrigin { .. } => C::ForbiddenOrigin,
            Error::RouteNotFound { .. } => C::RouteNotFound,
            Error::MethodNotAllowed { .. } => C::MethodNotAllowed,
            Error::StorageFailed => C::StorageFailed,
            Error::UnknownTool { .. } => C::UnknownTool,
            Error::ContextNotFound { .. } => C::ContextNotFound,
            Error::ReviewInvalidTransition { .. } => C::ReviewInvalidTransition,
            Error::RevertConflict { .. } => C::RevertConflict,
            Error::ReviewSessionNotFound { .. } => C::ReviewSessionNotFound,
            Error::AuditChainBroken { .. } => C::AuditChainBroken,
            Error::HermesUnauthorized => C::HermesUnauthorized,
            Error::HermesUnconfigured => C::HermesUnconfigured,
            Error::HermesBadRequest { .. } => C::HermesBadRequest,
            Error::HermesUpstreamUnauthorized { .. } => C::HermesUpstreamUnauthorized,
            Error::HermesUpstreamRateLimited { .. } => C::HermesUpstreamRateLimited,
            Error::HermesUpstreamUnavailable { .. } => C::HermesUpstreamUnavailable,
        }
    }

    /// A one-line description for people. Never contains secrets.
    pub fn message(&self) -> String {
        match self {
            Error::InvalidArguments { pointer, reason } => match pointer.is_empty() {
                true => format!("invalid arguments: {reason}"),
                false => format!("invalid argument at {pointer}: {reason}"),
            },
            Error::RevisionConflict { expected, actual } => {
                format!("baseRevision {expected} is not the current revision {actual}")
            }
            Error::BlockNotFound { block_id, .. } => format!("block {block_id:?} does not exist"),
            Error::BlockTargetOutOfScope { block_id, .. } => {
                format!("block {block_id:?} is outside the allowed target blocks")
            }
            Error::BlockNotEditable { block_id } => format!("block {block_id:?} is locked"),
            Error::MatchNotFound { match_text, .. } => {
                format!("matchText {match_text:?} was not found")
            }
            Error::MatchAmbiguous { match_text, matches } => {
                let mut blocks: Vec<&str> = matches.iter().map(|(b, _)| b.as_str()).collect();
                blocks.dedup();
                format!("matchText {match_text:?} found {} times in {}", matches.len(), blocks.join(", "))
            }
            Error::ToolDisabled { tool, reason } => format!("tool {tool} is disabled: {reason}"),
            Error::ScopeDenied { tool, required } => format!("tool {tool} needs scope {required}"),
            Error::ReviewRequired { tool } => {
                format!("writes by {tool} need review before they apply")
            }
            Error::IdempotencyConflict { key } => {
                format!("idempotencyKey {key:?} was already used with different arguments")
            }
            Error::ContextStale { token_revision, current_revision } => {
                format!("the context was frozen at revision {token_revision}, the page is now at {current_revision}")
            }
            Error::DocumentNotFound { document_id } => {
                format!("document {document_id:?} does not exist")
            }
            Error::DocumentReadOnly { document_id } => {
                format!("document {document_id:?} is read-only")
            }
            Error::InvalidPage { pointer, reason } => {
                format!("invalid page at {pointer}: {reason}")
            }
            Error::InvalidMarkdown { reason } => {
                format!("markdown could not be imported: {reason}")
            }
            Error::UnsupportedSchema { found, expected } => {
                format!("schema {found:?} is not supported; expected {expected:?}")
            }
            Error::PayloadTooLarge { limit } => format!("the request body exceeds {limit} bytes"),
            Error::InvalidBody { reason } => format!("the request body is invalid: {reason}"),
            Error::Unauthorized => "a valid credential is required".to_string(),
            Error::ForbiddenOrigin { origin } => format!("origin {origin:?} is not allowed"),
            Error::RouteNotFound { path } => format!("no route for {path:?}"),
            Error::MethodNotAllowed { method } => format!("method {method} is not allowed here"),
            Error::StorageFailed => "storage failed; nothing was written".to_string(),
            Error::UnknownTool { name, .. } => format!("no tool is named {name:?}"),
            Error::ContextNotFound { context_id } => {
                format!("context {context_id:?} is unknown or expired")
            }
            Error::ReviewInvalidTransition { state, action, .. } => {
                format!("a review session in state {state} cannot {action}")
            }
            Error::RevertConflict { changed } => {
                format!("blocks changed since the change was applied: {}", changed.join(", "))
            }
            Error::ReviewSessionNotFound { session_id } => {
                format!("review session {session_id:?} does not exist")
            }
            Error::AuditChainBroken { seq, reason } => {
                format!("audit entry {seq} does not verify: {reason}")
            }
            Error::HermesUnauthorized => "the Hermes client routes need a signed-in mnote session".to_string(),
            Error::HermesUnconfigured => "the Hermes client proxy has no upstream configured".to_string(),
            Error::HermesBadRequest { pointer, reason } => match pointer.is_empty() {
                true => format!("bad Hermes client request: {reason}"),
                false => format!("bad Hermes client request at {pointer}: {reason}"),
            },
            Error::HermesUpstreamUnauthorized { status } => {
                format!("Hermes refused the server's credential (HTTP {status})")
            }
            Error::HermesUpstreamRateLimited { .. } => "Hermes is busy: too many runs at once".to_string(),
            Error::HermesUpstreamUnavailable { reason, timed_out: true, .. } => {
                format!("Hermes did not answer in time: {reason}")
            }
            Error::HermesUpstreamUnavailable { reason, .. } => format!("Hermes is unavailable: {reason}"),
        }
    }

    /// What the caller should do next.
    pub fn hint(&self) -> String {
        match self {
            Error::InvalidArguments { .. } => {
                "fix the field named in details.pointer; the tool's inputSchema describes every field".into()
            }
            Error::RevisionConflict { actual, .. } => {
                format!("fetch the page again (revision {actual}) and rebuild the change against it")
            }
            Error::BlockNotFound { nearest, .. } => match nearest.first() {
                Some(id) => format!("did you mean {id:?}? use blockIds from the frozen context"),
                None => "use blockIds from the frozen context (mnote.doc.fetch)".into(),
            },
            Error::BlockTargetOutOfScope { allowed, .. } => {
                format!("write only to allowedTargetBlockIds: [{}]", allowed.join(", "))
            }
            Error::BlockNotEditable { .. } => "locked blocks cannot be written; pick another block".into(),
            Error::MatchNotFound { did_you_mean, .. } => match did_you_mean {
                Some((block, text)) => format!("did you mean {text:?} (in {block})?"),
                None => "matchText must be copied exactly from the block text".into(),
            },
            Error::MatchAmbiguous { .. } => {
                "add surrounding text to matchText, pass blockId, or set occurrence:\"all\"".into()
            }
            Error::ToolDisabled { .. } => "enable the tool in the profile, or use another tool".into(),
            Error::ScopeDenied { required, .. } => format!("grant the capability scope {required}"),
            Error::ReviewRequired { .. } => "call with dryRun:true and let the user accept the review".into(),
            Error::IdempotencyConflict { .. } => "use a fresh idempotencyKey for a different request".into(),
            Error::ContextStale { .. } => "fetch the context again from the start".into(),
            Error::DocumentNotFound { .. } => "create the document with PUT first".into(),
            Error::DocumentReadOnly { .. } => "the document's permission is read; ask its owner".into(),
            Error::InvalidPage { .. } => {
                "block ids match ^[A-Za-z0-9_-]{1,64}$, are unique, and attrs fit the block type".into()
            }
            Error::InvalidMarkdown { .. } => "send UTF-8 CommonMark/GFM text".into(),
            Error::UnsupportedSchema { expected, .. } => format!("send {expected}"),
            Error::PayloadTooLarge { .. } => "split the content or send a smaller body".into(),
            Error::InvalidBody { .. } => "send a UTF-8 JSON body".into(),
            Error::Unauthorized => "sign in, or send a valid Bearer token".into(),
            Error::ForbiddenOrigin { .. } => "send state-changing requests from the app's own origin".into(),
            Error::RouteNotFound { .. } => "see the README for the list of routes".into(),
            Error::MethodNotAllowed { .. } => "see the README for the methods each route takes".into(),
            Error::StorageFailed => "retry the request; it is safe, nothing was written".into(),
            Error::UnknownTool { nearest, .. } => match nearest.first() {
                Some(name) => format!("did you mean {name:?}? the manifest lists every tool"),
                None => "the manifest lists every tool".into(),
            },
            Error::ContextNotFound { .. } => "fetch the page again with mnote.doc.fetch and use its contextId".into(),
            Error::ReviewInvalidTransition { allowed, .. } => match allowed.is_empty() {
                true => "the session is finished; start a new one".into(),
                false => format!("allowed now: {}", allowed.join(", ")),
            },
            Error::RevertConflict { .. } => "undo those blocks by hand, or revert the later changes first".into(),
            Error::ReviewSessionNotFound { .. } => "list the document's review sessions for valid ids".into(),
            Error::AuditChainBroken { .. } => "the log was altered outside mnote; restore it from a backup".into(),
            Error::HermesUnauthorized => "sign in with POST /api/auth/login, or send the client Bearer token".into(),
            Error::HermesUnconfigured => "set HERMES_UPSTREAM_URL (and the HERMES_API_KEY secret) on the Worker".into(),
            Error::HermesBadRequest { .. } => "fix the request; the README lists each route's fields".into(),
            Error::HermesUpstreamUnauthorized { .. } => {
                "the operator must set HERMES_API_KEY to Hermes' API_SERVER_KEY".into()
            }
            Error::HermesUpstreamRateLimited { retry_after } => match retry_after {
                Some(after) => format!("retry after {after} seconds"),
                None => "retry in a moment".into(),
            },
            Error::HermesUpstreamUnavailable { .. } => {
                "retry later; if it persists, check that Hermes is running".into()
            }
        }
    }

    /// Machine-readable details: the JSON pointer, ids, counts and candidates behind the message.
    pub fn details(&self) -> Value {
        match self {
            Error::InvalidArguments { pointer, reason } | Error::InvalidPage { pointer, reason } => {
                json!({ "pointer": pointer, "reason": reason })
            }
            Error::RevisionConflict { expected, actual } => {
                json!({ "baseRevision": expected, "currentRevision": actual })
            }
            Error::BlockNotFound { block_id, nearest } => {
                json!({ "blockId": block_id, "nearestBlockIds": nearest })
            }
            Error::BlockTargetOutOfScope { block_id, allowed } => {
                json!({ "blockId": block_id, "allowedTargetBlockIds": allowed })
            }
            Error::BlockNotEditable { block_id } => json!({ "blockId": block_id }),
            Error::MatchNotFound { match_text, did_you_mean } => json!({
                "matchText": match_text,
                "didYouMean": did_you_mean.as_ref().map(|(b, t)| json!({ "blockId": b, "text": t })),
            }),
            Error::MatchAmbiguous { match_text, matches } => json!({
                "matchText": match_text,
                "count": matches.len(),
                "matches": matches.iter()
                    .map(|(b, offset)| json!({ "blockId": b, "offset": offset }))
                    .collect::<Vec<_>>(),
            }),
            Error::ToolDisabled { tool, reason } => json!({ "toolName": tool, "reason": reason }),
            Error::ScopeDenied { tool, required } => {
                json!({ "toolName": tool, "requiredScope": required })
            }
            Error::ReviewRequired { tool } => json!({ "toolName": tool }),
            Error::IdempotencyConflict { key } => json!({ "idempotencyKey": key }),
            Error::ContextStale { token_revision, current_revision } => {
                json!({ "contextRevision": token_revision, "currentRevision": current_revision })
            }
            Error::DocumentNotFound { document_id } | Error::DocumentReadOnly { document_id } => {
                json!({ "documentId": document_id })
            }
            Error::InvalidMarkdown { reason } | Error::InvalidBody { reason } => {
                json!({ "reason": reason })
            }
            Error::UnsupportedSchema { found, expected } => {
                json!({ "found": found, "expected": expected })
            }
            Error::PayloadTooLarge { limit } => json!({ "limitBytes": limit }),
            Error::ForbiddenOrigin { origin } => json!({ "origin": origin }),
            Error::RouteNotFound { path } => json!({ "path": path }),
            Error::MethodNotAllowed { method } => json!({ "method": method }),
            Error::Unauthorized | Error::StorageFailed => json!({}),
            Error::UnknownTool { name, nearest } => json!({ "toolName": name, "nearest": nearest }),
            Error::ContextNotFound { context_id } => json!({ "contextId": context_id }),
            Error::ReviewInvalidTransition { state, action, allowed } => {
                json!({ "state": state, "action": action, "allowedActions": allowed })
            }
            Error::RevertConflict { changed } => json!({ "changedBlockIds": changed }),
            Error::ReviewSessionNotFound { session_id } => json!({ "sessionId": session_id }),
            Error::AuditChainBroken { seq, reason } => json!({ "seq": seq, "reason": reason }),
            Error::HermesUnauthorized | Error::HermesUnconfigured => json!({}),
            Error::HermesBadRequest { pointer, reason } => json!({ "pointer": pointer, "reason": reason }),
            Error::HermesUpstreamUnauthorized { status } => json!({ "upstreamStatus": status }),
            Error::HermesUpstreamRateLimited { retry_after } => json!({ "retryAfter": retry_after }),
            Error::HermesUpstreamUnavailable { reason, status, timed_out } => {
                json!({ "reason": reason, "upstreamStatus": status, "timedOut": timed_out })
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl core::error::Error for Error {}

/// Ids from `candidates` closest to `wanted`, best first, at most three: used for "did you mean" hints.
pub fn nearest_ids<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|c| {
            let (a, b): (Vec<char>, Vec<char>) = (wanted.chars().collect(), c.chars().collect());
            (crate::normalize::edit_distance(&a, &b), c)
        })
        .filter(|(d, c)| *d <= wanted.chars().count().max(c.chars().count()) / 2 + 1)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, c)| c.to_string()).collect()
}
