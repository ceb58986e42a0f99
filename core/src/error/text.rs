//! The words of each error: its message, its hint and its machine-readable details, one arm per variant.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::Error;

impl Error {
    /// A one-line description for people. Never contains secrets.
    pub fn message(&self) -> String {
        match self {
            Error::InvalidArguments { pointer, reason, more } => match (pointer.is_empty(), more.len()) {
                (true, 0) => format!("invalid arguments: {reason}"),
                (false, 0) => format!("invalid argument at {pointer}: {reason}"),
                (true, n) => format!("invalid arguments: {reason} (and {n} more, listed in details.errors)"),
                (false, n) => {
                    format!("invalid argument at {pointer}: {reason} (and {n} more, listed in details.errors)")
                }
            },
            Error::RevisionConflict { expected, actual, blocks } => match blocks.as_slice() {
                [] => format!("baseRevision {expected} is not the current revision {actual}"),
                blocks => {
                    let ids: Vec<&str> = blocks.iter().map(|b| b.block_id.as_str()).collect();
                    let noun = if ids.len() == 1 { "block" } else { "blocks" };
                    format!(
                        "{noun} {} changed since revision {expected} (the page is at revision {actual})",
                        ids.join(", ")
                    )
                }
            },
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
            Error::LiveSocketLimit { limit } => {
                format!("the document's live channel already holds its limit of {limit} sockets")
            }
            Error::LiveMessageTooLarge { bytes, limit } => {
                format!("a live message of {bytes} bytes exceeds the channel's limit of {limit} bytes")
            }
            Error::LiveResync { revision, message_revision, reason } => {
                format!("resync: {reason} (the page is at revision {revision}, the message at {message_revision})")
            }
            Error::TooManyAttempts { .. } => "too many failed sign-in attempts from this client".to_string(),
            Error::RoleForbidden { act, role } => format!("a {role} of this workspace may not {act}"),
            Error::ContextRequired { tool } => format!("{tool} writes, and names no contextId"),
            Error::StoredTooLarge { record, bytes, limit, block_id } => match block_id {
                Some(block) => format!(
                    "the {record} would take {bytes} bytes (block {block:?} is the largest it changes); a stored \
                     record holds at most {limit}"
                ),
                None => format!("the {record} would take {bytes} bytes; a stored record holds at most {limit}"),
            },
            Error::WorkspaceNotFound { workspace_id } => format!("workspace {workspace_id:?} does not exist"),
            Error::PageTooLarge { bytes, limit } => {
                format!("the page would take {bytes} bytes; a page holds at most {limit}")
            }
            Error::LiveSessionEnded { why } => format!("the live channel's sign-in ended: {why}"),
            Error::BlockTooLarge { block_id, bytes, limit } => {
                format!("block {block_id:?} would take {bytes} bytes; one block holds at most {limit}")
            }
            Error::LiveRoleChanged { opened_at, epoch } => {
                format!("the workspace's members changed (epoch {epoch}) since this sign-in (epoch {opened_at})")
            }
            Error::RunNotFound { run_id } => format!("no review session of this document belongs to run {run_id:?}"),
            Error::RunNothingToUndo { run_id, reason } => format!("run {run_id:?} has nothing to undo: {reason}"),
            Error::RunAlreadyUndone { run_id, session_ids } => {
                format!("run {run_id:?} is undone already ({})", session_ids.join(", "))
            }
            Error::RunUndoStale { run_id, confirmed, current } => format!(
                "the undo preview of run {run_id:?} was made at revision {confirmed}; the page is at revision {current}"
            ),
        }
    }

    /// What the caller should do next.
    pub fn hint(&self) -> String {
        match self {
            Error::InvalidArguments { .. } => {
                "fix every field listed in details.errors (the first is details.pointer); the tool's inputSchema describes every field".into()
            }
            Error::RevisionConflict { actual, blocks, .. } => match blocks.is_empty() {
                true => format!("fetch the page again (revision {actual}) and rebuild the change against it"),
                false => format!(
                    "re-plan from the blocks' current text in details.blocks (no fetch needed) and send \
                     baseRevision {actual} with their revisionRefs"
                ),
            },
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
            Error::DocumentNotFound { .. } => {
                "check the id (a page in a workspace you have no role in answers the same); PUT makes a new page".into()
            }
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
                // Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3).
                Some(after) if after.bytes().all(|b| b.is_ascii_digit()) => format!("retry after {after} seconds"),
                Some(after) => format!("retry after {after}"),
                None => "retry in a moment".into(),
            },
            Error::HermesUpstreamUnavailable { .. } => {
                "retry later; if it persists, check that Hermes is running".into()
            }
            Error::LiveSocketLimit { .. } => "close another tab of this document, or retry later".into(),
            Error::LiveMessageTooLarge { .. } => "send the channel nothing but small control messages".into(),
            Error::LiveResync { revision, .. } => format!(
                "catch up: reconnect with ?revision={revision} (connectLive does), or read the page again \
                 (GET /api/documents/{{id}}) and apply it as a snapshot"
            ),
            Error::TooManyAttempts { retry_after_seconds } => {
                format!("wait {retry_after_seconds} s (the Retry-After header), then sign in with the right token")
            }
            Error::RoleForbidden { .. } => "ask an owner of the workspace for the editor role".into(),
            Error::StoredTooLarge { .. } => "change a smaller block, or split this one into several".into(),
            Error::ContextRequired { .. } => {
                "fetch the page first (doc_fetch) and pass the contextId it returns, or the run's own".into()
            }
            Error::WorkspaceNotFound { .. } => "name a workspace you hold a role in (workspaceId)".into(),
            Error::PageTooLarge { .. } => "move some of the page to another page, or write less at once".into(),
            Error::LiveSessionEnded { .. } => "sign in again, then reconnect".into(),
            Error::BlockTooLarge { .. } => "split the block into several smaller ones".into(),
            Error::LiveRoleChanged { .. } => "sign in again, then reconnect with the role you hold now".into(),
            Error::RunNotFound { .. } => "list the document's review sessions (their runId) for the runs it has".into(),
            Error::RunNothingToUndo { .. } => "a change that waits for review is rejected or aborted, not undone".into(),
            Error::RunAlreadyUndone { .. } => "nothing more to do; send the first undo's key to read its answer".into(),
            Error::RunUndoStale { .. } => "ask for the undo again without confirmRevision, read the new preview, then confirm that".into(),
        }
    }

    /// Machine-readable details: the JSON pointer, ids, counts and candidates behind the message.
    pub fn details(&self) -> Value {
        match self {
            Error::InvalidArguments { pointer, reason, more } => {
                let field =
                    |pointer: &str, reason: &str| object(&[("pointer", Text(pointer)), ("reason", Text(reason))]);
                let mut errors = Vec::with_capacity(1 + more.len());
                errors.push(field(pointer, reason));
                errors.extend(more.iter().map(|e| field(&e.pointer, &e.reason)));
                object(&[("pointer", Text(pointer)), ("reason", Text(reason)), ("errors", Json(Value::Array(errors)))])
            }
            Error::InvalidPage { pointer, reason } | Error::HermesBadRequest { pointer, reason } => {
                object(&[("pointer", Text(pointer)), ("reason", Text(reason))])
            }
            Error::RevisionConflict { expected, actual, blocks } => object(&[
                ("baseRevision", Number(*expected)),
                ("currentRevision", Number(*actual)),
                ("blocks", Json(Value::Array(blocks.iter().map(block_conflict).collect()))),
            ]),
            Error::BlockNotFound { block_id, nearest } => {
                object(&[("blockId", Text(block_id)), ("nearestBlockIds", Texts(nearest))])
            }
            Error::BlockTargetOutOfScope { block_id, allowed } => {
                object(&[("blockId", Text(block_id)), ("allowedTargetBlockIds", Texts(allowed))])
            }
            Error::BlockNotEditable { block_id } => object(&[("blockId", Text(block_id))]),
            Error::MatchNotFound { match_text, did_you_mean } => object(&[
                ("matchText", Text(match_text)),
                (
                    "didYouMean",
                    Json(match did_you_mean {
                        Some((block, text)) => object(&[("blockId", Text(block)), ("text", Text(text))]),
                        None => Value::Null,
                    }),
                ),
            ]),
            Error::MatchAmbiguous { match_text, matches } => object(&[
                ("matchText", Text(match_text)),
                ("count", Number(matches.len() as u64)),
                (
                    "matches",
                    Json(Value::Array(
                        matches
                            .iter()
                            .map(|(block, offset)| {
                                object(&[("blockId", Text(block)), ("offset", Number(*offset as u64))])
                            })
                            .collect(),
                    )),
                ),
            ]),
            Error::ToolDisabled { tool, reason } => object(&[("toolName", Text(tool)), ("reason", Text(reason))]),
            Error::ScopeDenied { tool, required } => {
                object(&[("toolName", Text(tool)), ("requiredScope", Text(required))])
            }
            Error::ReviewRequired { tool } => object(&[("toolName", Text(tool))]),
            Error::IdempotencyConflict { key } => object(&[("idempotencyKey", Text(key))]),
            Error::ContextStale { token_revision, current_revision } => {
                object(&[("contextRevision", Number(*token_revision)), ("currentRevision", Number(*current_revision))])
            }
            Error::DocumentNotFound { document_id } | Error::DocumentReadOnly { document_id } => {
                object(&[("documentId", Text(document_id))])
            }
            Error::InvalidMarkdown { reason } | Error::InvalidBody { reason } => object(&[("reason", Text(reason))]),
            Error::UnsupportedSchema { found, expected } => {
                object(&[("found", Text(found)), ("expected", Text(expected))])
            }
            Error::PayloadTooLarge { limit } => object(&[("limitBytes", Number(*limit as u64))]),
            Error::ForbiddenOrigin { origin } => object(&[("origin", Text(origin))]),
            Error::RouteNotFound { path } => object(&[("path", Text(path))]),
            Error::MethodNotAllowed { method } => object(&[("method", Text(method))]),
            Error::Unauthorized | Error::StorageFailed | Error::HermesUnauthorized | Error::HermesUnconfigured => {
                object(&[])
            }
            Error::UnknownTool { name, nearest } => object(&[("toolName", Text(name)), ("nearest", Texts(nearest))]),
            Error::ContextNotFound { context_id } => object(&[("contextId", Text(context_id))]),
            Error::ReviewInvalidTransition { state, action, allowed } => {
                object(&[("state", Text(state)), ("action", Text(action)), ("allowedActions", Texts(allowed))])
            }
            Error::RevertConflict { changed } => object(&[("changedBlockIds", Texts(changed))]),
            Error::ReviewSessionNotFound { session_id } => object(&[("sessionId", Text(session_id))]),
            Error::AuditChainBroken { seq, reason } => object(&[("seq", Number(*seq)), ("reason", Text(reason))]),
            Error::HermesUpstreamUnauthorized { status } => object(&[("upstreamStatus", Number(u64::from(*status)))]),
            Error::HermesUpstreamRateLimited { retry_after } => {
                object(&[("retryAfter", retry_after.as_deref().map_or(Null, Text))])
            }
            Error::HermesUpstreamUnavailable { reason, status, timed_out } => object(&[
                ("reason", Text(reason)),
                ("upstreamStatus", status.map_or(Null, |status| Number(u64::from(status)))),
                ("timedOut", Flag(*timed_out)),
            ]),
            Error::LiveSocketLimit { limit } => object(&[("limit", Number(u64::from(*limit)))]),
            Error::LiveMessageTooLarge { bytes, limit } | Error::PageTooLarge { bytes, limit } => {
                object(&[("bytes", Number(*bytes as u64)), ("limitBytes", Number(*limit as u64))])
            }
            Error::LiveResync { revision, message_revision, reason } => object(&[
                ("revision", Number(*revision)),
                ("messageRevision", Number(*message_revision)),
                ("reason", Text(reason)),
            ]),
            Error::TooManyAttempts { retry_after_seconds } => {
                object(&[("retryAfterSeconds", Number(*retry_after_seconds))])
            }
            Error::RoleForbidden { act, role } => object(&[("act", Text(act)), ("role", Text(role))]),
            Error::ContextRequired { tool } => object(&[("tool", Text(tool))]),
            Error::StoredTooLarge { record, bytes, limit, block_id } => {
                let mut details = object(&[
                    ("record", Text(record)),
                    ("bytes", Number(*bytes as u64)),
                    ("limitBytes", Number(*limit as u64)),
                ]);
                if let (Some(block), Value::Object(map)) = (block_id, &mut details) {
                    map.insert("blockId".into(), Value::String(block.clone()));
                }
                details
            }
            Error::WorkspaceNotFound { workspace_id } => object(&[("workspaceId", Text(workspace_id))]),
            Error::LiveSessionEnded { why } => object(&[("why", Text(why))]),
            Error::BlockTooLarge { block_id, bytes, limit } => object(&[
                ("blockId", Text(block_id)),
                ("bytes", Number(*bytes as u64)),
                ("limitBytes", Number(*limit as u64)),
            ]),
            Error::LiveRoleChanged { opened_at, epoch } => {
                object(&[("openedAt", Number(*opened_at)), ("epoch", Number(*epoch))])
            }
            Error::RunNotFound { run_id } => object(&[("runId", Text(run_id))]),
            Error::RunNothingToUndo { run_id, reason } => object(&[("runId", Text(run_id)), ("reason", Text(reason))]),
            Error::RunAlreadyUndone { run_id, session_ids } => {
                object(&[("runId", Text(run_id)), ("sessionIds", Texts(session_ids))])
            }
            Error::RunUndoStale { run_id, confirmed, current } => object(&[
                ("runId", Text(run_id)),
                ("confirmedRevision", Number(*confirmed)),
                ("currentRevision", Number(*current)),
            ]),
        }
    }
}

/// One member of a details object. The details are built from these by one non-generic function
/// ([`object`]) rather than by `json!`, which serializes each value through serde by its type: in the browser
/// package that was a copy of serde's value serializer per member type, inlined at each of the ~50 arms
/// (about 4 KB of the gzipped module).
enum Member<'a> {
    Text(&'a str),
    Number(u64),
    Flag(bool),
    Texts(&'a [String]),
    Null,
    Json(Value),
}

use Member::{Flag, Json, Null, Number, Text, Texts};

/// The object of `members` (keys sorted, as every `serde_json` map without `preserve_order`).
#[inline(never)]
fn object(members: &[(&str, Member<'_>)]) -> Value {
    let mut map = Map::new();
    for (key, member) in members {
        let value = match member {
            Text(text) => Value::String(String::from(*text)),
            Number(n) => Value::from(*n),
            Flag(flag) => Value::Bool(*flag),
            Texts(texts) => Value::Array(texts.iter().map(|t| Value::String(t.clone())).collect()),
            Null => Value::Null,
            Json(value) => value.clone(),
        };
        map.insert(String::from(*key), value);
    }
    Value::Object(map)
}

fn block_conflict(b: &super::BlockConflict) -> Value {
    let mut out = object(&[
        ("blockId", Text(&b.block_id)),
        ("revisionRef", b.revision_ref.as_deref().map_or(Null, Text)),
        ("text", b.text.as_deref().map_or(Null, Text)),
    ]);
    if let (Some(revision), Value::Object(map)) = (b.changed_at_revision, &mut out) {
        map.insert("changedAtRevision".into(), revision.into());
    }
    out
}
