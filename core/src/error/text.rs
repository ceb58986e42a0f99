//! The words of each error: its message, its hint and its machine-readable details, one arm per variant.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{Value, json};

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
                let first = json!({ "pointer": pointer, "reason": reason });
                let mut errors = Vec::with_capacity(1 + more.len());
                errors.push(first);
                errors.extend(more.iter().map(|e| json!({ "pointer": e.pointer, "reason": e.reason })));
                json!({ "pointer": pointer, "reason": reason, "errors": errors })
            }
            Error::InvalidPage { pointer, reason } => json!({ "pointer": pointer, "reason": reason }),
            Error::RevisionConflict { expected, actual, blocks } => json!({
                "baseRevision": expected,
                "currentRevision": actual,
                "blocks": blocks.iter().map(block_conflict).collect::<Vec<_>>(),
            }),
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
            Error::LiveSocketLimit { limit } => json!({ "limit": limit }),
            Error::LiveMessageTooLarge { bytes, limit } => json!({ "bytes": bytes, "limitBytes": limit }),
            Error::LiveResync { revision, message_revision, reason } => {
                json!({ "revision": revision, "messageRevision": message_revision, "reason": reason })
            }
            Error::TooManyAttempts { retry_after_seconds } => json!({ "retryAfterSeconds": retry_after_seconds }),
            Error::RoleForbidden { act, role } => json!({ "act": act, "role": role }),
            Error::ContextRequired { tool } => json!({ "tool": tool }),
            Error::StoredTooLarge { record, bytes, limit, block_id: Some(block) } => {
                json!({ "record": record, "bytes": bytes, "limitBytes": limit, "blockId": block })
            }
            Error::StoredTooLarge { record, bytes, limit, block_id: None } => {
                json!({ "record": record, "bytes": bytes, "limitBytes": limit })
            }
            Error::WorkspaceNotFound { workspace_id } => json!({ "workspaceId": workspace_id }),
            Error::PageTooLarge { bytes, limit } => json!({ "bytes": bytes, "limitBytes": limit }),
            Error::LiveSessionEnded { why } => json!({ "why": why }),
            Error::BlockTooLarge { block_id, bytes, limit } => {
                json!({ "blockId": block_id, "bytes": bytes, "limitBytes": limit })
            }
            Error::LiveRoleChanged { opened_at, epoch } => json!({ "openedAt": opened_at, "epoch": epoch }),
            Error::RunNotFound { run_id } => json!({ "runId": run_id }),
            Error::RunNothingToUndo { run_id, reason } => json!({ "runId": run_id, "reason": reason }),
            Error::RunAlreadyUndone { run_id, session_ids } => json!({ "runId": run_id, "sessionIds": session_ids }),
            Error::RunUndoStale { run_id, confirmed, current } => {
                json!({ "runId": run_id, "confirmedRevision": confirmed, "currentRevision": current })
            }
        }
    }
}

fn block_conflict(b: &super::BlockConflict) -> Value {
    let mut out = json!({ "blockId": b.block_id, "revisionRef": b.revision_ref, "text": b.text });
    if let (Some(revision), Some(map)) = (b.changed_at_revision, out.as_object_mut()) {
        map.insert("changedAtRevision".into(), revision.into());
    }
    out
}
