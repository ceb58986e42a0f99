//! The one error enum of the project.
//!
//! Every failure that can reach a user, a model or an HTTP client is a variant here, with a stable
//! snake_case [`ErrorCode`], a human message, a hint that says what to do next, and machine-readable
//! `details`. Codes are append-only: a code, once shipped, keeps its meaning forever. Messages may change.
//! The adapters (WASM, Worker) only translate these; they never invent codes of their own.

mod code;
mod text;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

pub use code::{ErrorCode, Status};

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

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
        /// The other bad fields found in the same input, in the order they were found (empty when the
        /// first was the only one, or when the input could be read no further).
        more: Vec<FieldError>,
    },
    /// A block the write touches changed since the caller read it, or the caller asked for the exact
    /// revision (or wrote the whole page) and the page moved on.
    RevisionConflict {
        /// The revision the caller based its change on.
        expected: u64,
        /// The page's revision now.
        actual: u64,
        /// Each touched block that changed, as it is now, so the caller can re-plan without a fetch.
        blocks: Vec<BlockConflict>,
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
    /// A document's live channel already holds as many sockets as it accepts.
    LiveSocketLimit {
        /// Sockets per document.
        limit: u32,
    },
    /// A message on the live channel is larger than the channel accepts (from a client) or sends.
    LiveMessageTooLarge {
        /// The message's size, in bytes.
        bytes: usize,
        /// The largest accepted, in bytes.
        limit: usize,
    },
    /// A live message does not follow from the page a client holds (a gap, an old or a skipped message):
    /// the client must catch up from the channel or load the page again.
    LiveResync {
        /// The revision the client's page is at.
        revision: u64,
        /// The revision the message is at.
        message_revision: u64,
        /// What does not fit.
        reason: String,
    },
    /// Too many failed sign-ins (a wrong login token or Bearer client token) came from this client; no
    /// credential of it is checked until the wait is over.
    TooManyAttempts {
        /// Whole seconds until the next attempt is checked.
        retry_after_seconds: u64,
    },
    /// The caller's role in the document's workspace does not allow the action.
    RoleForbidden {
        /// What was asked, e.g. `write` (see [`crate::policy::Act`]).
        act: String,
        /// The caller's role there, e.g. `viewer`.
        role: String,
    },
    /// An AI write named no `contextId`: every AI write is bound to the frozen context of its run.
    ContextRequired {
        /// The tool called.
        tool: String,
    },
    /// A record the document would keep (e.g. `review session`) is larger than one stored value may be.
    StoredTooLarge {
        /// Which record.
        record: String,
        /// Its size, in bytes.
        bytes: usize,
        /// The most a stored record may take.
        limit: usize,
        /// The block that makes it large, when one does.
        block_id: Option<String>,
    },
    /// A workspace the caller holds no role in (or that does not exist): the same answer either way.
    WorkspaceNotFound {
        /// The workspace named.
        workspace_id: String,
    },
    /// A live socket's sign-in ended (signed out, or the cookie or token expired): the socket is closed.
    LiveSessionEnded {
        /// Why: `signed out` or `the sign-in expired`.
        why: String,
    },
    /// A write would make the page's JSON larger than a page may be (and than a `PUT` could send back).
    PageTooLarge {
        /// The page's size after the write, in bytes.
        bytes: usize,
        /// The most a page may take.
        limit: usize,
    },
    /// One block's JSON is larger than a block may be ([`crate::limits::MAX_BLOCK_BYTES`]): refused on every
    /// write path before anything is stored.
    BlockTooLarge {
        /// The block.
        block_id: String,
        /// Its JSON's size, in bytes.
        bytes: usize,
        /// The most a block may take.
        limit: usize,
    },
    /// A live socket was opened under a credential older than its workspace's membership (a member was
    /// lowered or removed since): it is closed before it is sent anything more.
    LiveRoleChanged {
        /// The membership epoch the socket's credential showed.
        opened_at: u64,
        /// The workspace's epoch now.
        epoch: u64,
    },
    /// No review session of the document belongs to this Hermes run.
    RunNotFound {
        /// The run id asked for.
        run_id: String,
    },
    /// The run wrote nothing that is still on the page to undo.
    RunNothingToUndo {
        /// The run.
        run_id: String,
        /// Why, in words: what its sessions are (waiting for review, rejected, …).
        reason: String,
    },
    /// Every write the run applied has been undone already.
    RunAlreadyUndone {
        /// The run.
        run_id: String,
        /// The sessions that were undone.
        session_ids: Vec<String>,
    },
    /// An undo's confirm names a preview made at a revision the page has since left.
    RunUndoStale {
        /// The run.
        run_id: String,
        /// The revision the confirmed preview was made at.
        confirmed: u64,
        /// The page's revision now.
        current: u64,
    },
}

/// One bad field of an input: where, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// JSON pointer (RFC 6901) to the field, `""` for the whole input.
    pub pointer: String,
    /// What is wrong with it.
    pub reason: String,
}

/// One block that changed since the caller read it: how it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockConflict {
    /// The block.
    pub block_id: String,
    /// Its current `revisionRef`; `None` when the block is gone.
    pub revision_ref: Option<String>,
    /// Its current text; `None` when the block is gone.
    pub text: Option<String>,
    /// The revision that last changed it, when the page's history knows.
    pub changed_at_revision: Option<u64>,
}

impl Error {
    /// Shorthand for [`Error::InvalidArguments`].
    pub fn invalid(pointer: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::InvalidArguments { pointer: pointer.into(), reason: reason.into(), more: Vec::new() }
    }

    /// The same error with each of its JSON pointers under `prefix` (an argument's own name, e.g.
    /// `/options`); any other error is returned as it is.
    pub fn under(self, prefix: &str) -> Self {
        match self {
            Error::InvalidArguments { pointer, reason, more } => Error::InvalidArguments {
                pointer: format!("{prefix}{pointer}"),
                reason,
                more: more
                    .into_iter()
                    .map(|e| FieldError { pointer: format!("{prefix}{}", e.pointer), reason: e.reason })
                    .collect(),
            },
            other => other,
        }
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
            Error::LiveSocketLimit { .. } => C::LiveSocketLimit,
            Error::LiveMessageTooLarge { .. } => C::LiveMessageTooLarge,
            Error::LiveResync { .. } => C::LiveResync,
            Error::TooManyAttempts { .. } => C::TooManyAttempts,
            Error::RoleForbidden { .. } => C::RoleForbidden,
            Error::ContextRequired { .. } => C::ContextRequired,
            Error::StoredTooLarge { .. } => C::StoredTooLarge,
            Error::WorkspaceNotFound { .. } => C::WorkspaceNotFound,
            Error::PageTooLarge { .. } => C::PageTooLarge,
            Error::LiveSessionEnded { .. } => C::LiveSessionEnded,
            Error::BlockTooLarge { .. } => C::BlockTooLarge,
            Error::LiveRoleChanged { .. } => C::LiveRoleChanged,
            Error::RunNotFound { .. } => C::RunNotFound,
            Error::RunNothingToUndo { .. } => C::RunNothingToUndo,
            Error::RunAlreadyUndone { .. } => C::RunAlreadyUndone,
            Error::RunUndoStale { .. } => C::RunUndoStale,
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
    let scored = candidates
        .into_iter()
        .map(|c| {
            let (a, b): (Vec<char>, Vec<char>) = (wanted.chars().collect(), c.chars().collect());
            (crate::normalize::edit_distance(&a, &b), c)
        })
        .filter(|(d, c)| *d <= wanted.chars().count().max(c.chars().count()) / 2 + 1);
    // The three least pairs (by distance, then id), kept in order as they come: what sorting every pair and
    // taking three gives (equal pairs are the same pair), in one pass and with no sort in the browser package
    // (issue 29).
    let mut best: Vec<(usize, &str)> = Vec::with_capacity(4);
    for pair in scored {
        let at = best.iter().position(|kept| pair < *kept).unwrap_or(best.len());
        if at < 3 {
            best.insert(at, pair);
            best.truncate(3);
        }
    }
    best.into_iter().map(|(_, c)| c.to_string()).collect()
}
