//! One mnote tool call by an AI: Hermes (over MCP or the tool route) or the command router's shortcut.
//!
//! Every call runs through core's executor, and every call emits the same events: `tool.started`, then
//! `tool.completed` or `tool.failed`, with `review.updated` between them when the call made a review
//! session. What a write does depends on the profile's review mode:
//!
//! | call | `review` / `required` | `yolo` |
//! |---|---|---|
//! | read (`doc.fetch`, `block.fetch`, `doc.search`) | runs; a fetch freezes its context with a TTL | same |
//! | write, `dryRun:true` | held: a review session `awaiting_user` (`review::propose`) | a plain preview |
//! | write, `dryRun:false` | held, never applied | applied through `review::propose`, which keeps an `applied` session of the same shape; a high-risk write is held |
//! | `doc.plan_update` | held | held |
//! | write whose `idempotencyKey` was already applied | replayed byte for byte (or `mnote_idempotency_conflict`) | same |
//!
//! A held write answers its preview (`blocked:true`) with a `review_pending` warning naming the session,
//! so the model knows the page did not change and the user decides. The same key and arguments (whatever
//! their `dryRun`) find the same session again instead of making a second one.
//!
//! Applied writes and new sessions are written to the audit log. An `Err` means nothing changed; only its
//! events are kept.

use pageai_core::audit::{self, AuditDraft};
use pageai_core::events::{self, EventIds};
use pageai_core::executor::idempotency::fingerprint;
use pageai_core::executor::{self, Call, Effect, Origin, Outcome};
use pageai_core::manifest::Tool;
use pageai_core::page::Page;
use pageai_core::profile::ReviewMode;
use pageai_core::review::{self, ProposeRequest, ReviewSessionV1, State};
use pageai_core::wire::{ToolResultV1, WarningV1};
use pageai_core::{Error, wire};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

use super::desk::{Desk, ProposalKey};
use pageai_core::executor::FrozenContext;

/// Code of the warning a held write answers with.
pub const REVIEW_PENDING: &str = "review_pending";

/// A tool call as the document's object runs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolCallRequest {
    /// Dotted (`mnote.doc.fetch`) or MCP (`doc_fetch`) name.
    pub tool_name: String,
    /// The arguments as the caller sent them.
    pub args: Value,
    /// The Hermes run, or the shortcut's id.
    pub run_id: String,
    /// The tool call.
    pub tool_call_id: String,
    /// Correlates logs, events and error bodies.
    pub trace_id: String,
    /// `hermes` or `shortcut`.
    pub origin: Origin,
}

/// The review session a call made or found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    /// The session.
    pub session_id: String,
    /// Its state after the call.
    pub state: State,
}

/// What a tool call answered.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolReply {
    /// The tool's dotted name.
    pub tool_name: String,
    /// The tool's answer, exactly as the executor wrote it (an idempotent replay is these same bytes): a
    /// context, a search result, or a `mnote.tool_result.v1`.
    pub result: Box<RawValue>,
    /// The review session, for writes that made or found one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_session: Option<SessionRef>,
}

/// Runs one AI tool call against `page`; on success `page` holds the result of an applied write.
pub fn call(page: &mut Page, request: &ToolCallRequest, desk: &mut Desk<'_>) -> Result<ToolReply, Error> {
    let now = desk.now;
    let tool_name = Tool::from_name(&request.tool_name).map_or(request.tool_name.as_str(), |t| t.spec().name);
    let ids = EventIds {
        run_id: &request.run_id,
        tool_call_id: &request.tool_call_id,
        tool_name,
        review_session_id: None,
        trace_id: &request.trace_id,
        at: &now.at,
    };
    desk.events.push(events::tool_started(&ids));
    match run(page, request, desk) {
        Ok((reply, outcome)) => {
            let session = reply.review_session.as_ref().map(|s| s.session_id.as_str());
            desk.events.push(events::tool_completed(&EventIds { review_session_id: session, ..ids }, &outcome));
            Ok(reply)
        }
        Err(error) => {
            desk.events.push(events::tool_failed(&ids, &error));
            Err(error)
        }
    }
}

/// The document a call's arguments name (`documentId`), required where a call is bound to no document
/// (MCP and the tool route). `pointer` is where `args` sits in the request, for the error.
pub fn document_of(args: &Value, pointer: &str) -> Result<String, Error> {
    let at = format!("{pointer}/documentId");
    if !args.is_object() {
        return Err(Error::invalid(pointer, "the arguments are a JSON object"));
    }
    let Some(id) = args.get("documentId").and_then(Value::as_str) else {
        return Err(Error::invalid(at, "every mnote tool call names its page with documentId"));
    };
    crate::services::documents::check_document_id(id)
        .map_err(|_| Error::invalid(at, "a document id has 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-'"))?;
    Ok(id.to_string())
}

/// The actor recorded for an origin.
pub fn actor_of(origin: Origin) -> &'static str {
    match origin {
        Origin::Hermes => "hermes",
        Origin::Shortcut => "shortcut",
        Origin::User => "user",
        Origin::ReviewAccept => "user",
    }
}

fn run(page: &mut Page, request: &ToolCallRequest, desk: &mut Desk<'_>) -> Result<(ToolReply, Outcome), Error> {
    let tool = Tool::from_name(&request.tool_name);
    let contexts = desk.contexts_for(&request.args)?;
    let reads = tool.is_some_and(|t| !t.writes());
    let new_context_id = if reads { desk.mint.opaque("ctx")? } else { String::new() };
    let now = desk.now;
    let call = Call {
        tool_name: &request.tool_name,
        args: &request.args,
        origin: request.origin,
        actor: actor_of(request.origin),
        at: &now.at,
        tool_call_id: &request.tool_call_id,
        new_context_id: &new_context_id,
    };
    match tool {
        Some(tool) if tool.writes() => write(tool, page, &call, request, &contexts, desk),
        // Reads, and unknown names (the executor answers those with the nearest tool names).
        _ => plain(page, &call, &contexts, desk),
    }
}

/// The executor, nothing more: reads, yolo previews, replays.
fn plain(
    page: &mut Page,
    call: &Call<'_>,
    contexts: &BTreeMap<String, FrozenContext>,
    desk: &mut Desk<'_>,
) -> Result<(ToolReply, Outcome), Error> {
    let outcome = desk.with_env(contexts, |env| executor::execute(page, call, env))?;
    match &outcome.effect {
        Effect::Read { frozen: Some(frozen) } => desk.freeze(frozen)?,
        Effect::Applied(result) => {
            audit::record(&mut *desk.audit, AuditDraft::for_result("tool.applied", result, None))?;
        }
        Effect::Read { frozen: None } | Effect::Previewed(_) | Effect::Replayed => {}
    }
    let tool_name = Tool::from_name(call.tool_name).map_or(call.tool_name, |t| t.spec().name);
    let reply = ToolReply { tool_name: tool_name.into(), result: raw(outcome.json.clone())?, review_session: None };
    Ok((reply, outcome))
}

fn write(
    tool: Tool,
    page: &mut Page,
    call: &Call<'_>,
    request: &ToolCallRequest,
    contexts: &BTreeMap<String, FrozenContext>,
    desk: &mut Desk<'_>,
) -> Result<(ToolReply, Outcome), Error> {
    let spec = tool.spec();
    let args = &request.args;
    // A missing dryRun is left for the executor to report; it is never defaulted. A mistyped one is
    // reported by the executor right here, because `review::propose` overwrites the field with a bool.
    if args.get("dryRun").is_some_and(|v| !v.is_boolean()) {
        return plain(page, call, contexts, desk);
    }
    let dry_run = spec.always_dry_run || args.get("dryRun").and_then(Value::as_bool).unwrap_or(false);
    let key = args.get("idempotencyKey").and_then(Value::as_str).unwrap_or_default();
    if !dry_run && !key.is_empty() && desk.idempotency.lookup(&page.document_id, key).is_some() {
        return plain(page, call, contexts, desk);
    }
    if desk.profile.review_mode == ReviewMode::Yolo && dry_run && !spec.always_dry_run {
        return plain(page, call, contexts, desk);
    }

    let proposal =
        ProposalKey { idempotency_key: key.into(), fingerprint: fingerprint(spec.name, &without_dry_run(args)) };
    if !key.is_empty()
        && let Some(session) = desk.sessions.find_proposal(&proposal)?
    {
        return reply_for(&session, spec.name, true);
    }
    let session_id = desk.mint.session_id(&page.document_id)?;
    let propose =
        ProposeRequest { session_id: &session_id, run_id: &request.run_id, trace_id: &request.trace_id, call: *call };
    let session = desk.with_env(contexts, |env| review::propose(page, &propose, env))?;
    desk.sessions.put(&session, Some(&proposal))?;
    desk.events.push(events::review_updated(&session, &desk.now.at));
    let draft = match &session.applied {
        Some(applied) => AuditDraft::for_result("tool.applied", &applied.result, Some(&session.session_id)),
        None => AuditDraft::for_session("review.propose", &session, call.actor, call.at, page.revision),
    };
    audit::record(&mut *desk.audit, draft)?;
    reply_for(&session, spec.name, false)
}

/// The answer for a session: the applied result, or else the preview with a `review_pending` warning.
fn reply_for(session: &ReviewSessionV1, tool_name: &str, found: bool) -> Result<(ToolReply, Outcome), Error> {
    let session_ref = Some(SessionRef { session_id: session.session_id.clone(), state: session.state });
    if let Some(applied) = &session.applied {
        let json = to_json(&applied.result)?;
        let effect = if found { Effect::Replayed } else { Effect::Applied(applied.result.clone()) };
        let reply = ToolReply { tool_name: tool_name.into(), result: raw(json.clone())?, review_session: session_ref };
        return Ok((reply, Outcome { json, effect }));
    }
    let Some(preview) = &session.preview else {
        // Only a session whose first preview failed has none, and propose never stores one like that.
        return Err(Error::invalid("", format!("review session {} holds no preview", session.session_id)));
    };
    let mut held: ToolResultV1 = preview.clone();
    held.warnings.push(WarningV1 { code: REVIEW_PENDING.into(), message: pending_message(session) });
    let json = to_json(&held)?;
    let effect = if found { Effect::Replayed } else { Effect::Previewed(held) };
    let reply = ToolReply { tool_name: tool_name.into(), result: raw(json.clone())?, review_session: session_ref };
    Ok((reply, Outcome { json, effect }))
}

fn pending_message(session: &ReviewSessionV1) -> String {
    let id = &session.session_id;
    match session.state {
        State::AwaitingUser => format!(
            "held for review: session {id} is awaiting_user. The page is unchanged; the user accepts or rejects \
             this preview. Do not repeat the write: tell the user what you proposed."
        ),
        State::Failed => {
            let code = session.error.as_ref().map_or("an error", |e| e.code.as_str());
            format!("review session {id} is failed ({code}); nothing was written")
        }
        state => format!("review session {id} is {}; nothing was written by this call", state.as_str()),
    }
}

/// The arguments without `dryRun`, so a preview and its apply have the same proposal fingerprint.
fn without_dry_run(args: &Value) -> Value {
    let mut args = args.clone();
    if let Some(map) = args.as_object_mut() {
        map.remove("dryRun");
    }
    args
}

fn to_json<T: Serialize>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| Error::invalid("", e.to_string()))
}

fn raw(json: String) -> Result<Box<RawValue>, Error> {
    RawValue::from_string(json).map_err(|e| wire::serde_error("", &e))
}

#[cfg(test)]
#[path = "tool_calls_tests.rs"]
mod tests;
