//! One mnote tool call by an AI: Hermes (over MCP or the tool route) or the command router's shortcut.
//!
//! Every call runs through core's executor, and every call emits the same events: `tool.started`, then
//! `tool.completed` or `tool.failed`, with `review.updated` between them when the call made a review
//! session. What a write does depends on the profile's review mode:
//!
//! | call | `review` / `required` | `yolo` |
//! |---|---|---|
//! | read (`doc.fetch`, `block.fetch`, `doc.search`) | runs; a fetch freezes its context with a TTL and shows the page's pending suggestions (`mnote.page_ai_context.v2`) | same |
//! | write, `dryRun:true` | held: a review session `awaiting_user` (`review::propose`) | a plain preview |
//! | write, `dryRun:false` | held, never applied | applied through `review::propose`, which keeps an `applied` session of the same shape; a high-risk write is held |
//! | `doc.plan_update` | held | held |
//! | write whose `idempotencyKey` was already applied | replayed byte for byte (or `mnote_idempotency_conflict`) | same |
//!
//! A held write answers its preview (`blocked:true`) with a `review_pending` warning naming the session,
//! so the model knows the page did not change and the user decides. The same key and arguments (whatever
//! their `dryRun`) find the same session again instead of making a second one.
//!
//! Core decides all of this ([`review::submit`], [`review::answer`], over `pageai_core::policy`); this
//! module stores what it decided and emits the events. Applied writes and new sessions are written to the
//! audit log. An `Err` means nothing changed; only its events are kept.

use pageai_core::audit::{self, AuditAction, AuditDraft};
use pageai_core::events::{self, EventIds};
use pageai_core::executor::{self, Effect, Origin, Outcome, SentCall, ToolCall};
use pageai_core::manifest::Tool;
use pageai_core::page::Page;
use pageai_core::review::{self, Noted, Proposal, ProposeRequest, ReviewSessionV1, State, Submission};
use pageai_core::wire::SuggestionV1;
use pageai_core::{Error, wire};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

use super::stores::{BoundContext, ProposalKey, Stores};

/// A tool call as the document's object runs it: the call parsed once ([`SentCall`]), where it entered.
/// On the wire to the object it is `{toolName, args, runId, toolCallId, traceId, origin}`; the object's
/// door deserializes it by the same parse.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRequest {
    /// The call: its name, its arguments as sent, and their one parse.
    pub call: SentCall,
    /// The Hermes run, or the shortcut's id.
    pub run_id: String,
    /// The tool call.
    pub tool_call_id: String,
    /// Correlates logs, events and error bodies.
    pub trace_id: String,
    /// `hermes` or `shortcut`.
    pub origin: Origin,
}

/// [`ToolCallRequest`] on the wire to the document's object.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ToolCallWire<'a> {
    /// Dotted (`mnote.doc.fetch`) or MCP (`doc_fetch`) name.
    tool_name: Cow<'a, str>,
    /// The arguments as the caller sent them.
    args: Cow<'a, Value>,
    run_id: Cow<'a, str>,
    tool_call_id: Cow<'a, str>,
    trace_id: Cow<'a, str>,
    origin: Origin,
}

impl Serialize for ToolCallRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let args = self.call.json().map_err(serde::ser::Error::custom)?;
        ToolCallWire {
            tool_name: Cow::Borrowed(self.call.name()),
            args,
            run_id: Cow::Borrowed(&self.run_id),
            tool_call_id: Cow::Borrowed(&self.tool_call_id),
            trace_id: Cow::Borrowed(&self.trace_id),
            origin: self.origin,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolCallRequest {
    /// The object's door: the call is parsed here, once, by the parse of the route it entered by.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = ToolCallWire::deserialize(deserializer)?;
        Ok(ToolCallRequest {
            call: SentCall::parse(wire.tool_name.into_owned(), wire.args.into_owned()),
            run_id: wire.run_id.into_owned(),
            tool_call_id: wire.tool_call_id.into_owned(),
            trace_id: wire.trace_id.into_owned(),
            origin: wire.origin,
        })
    }
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

/// The ids a call is evented and stored under.
struct Ids<'r> {
    run_id: &'r str,
    tool_call_id: &'r str,
    trace_id: &'r str,
    origin: Origin,
}

/// Runs one AI tool call against `page`; on success `page` holds the result of an applied write.
pub fn call(page: &mut Page, request: ToolCallRequest, stores: &mut Stores<'_>) -> Result<ToolReply, Error> {
    let now = stores.now;
    let ToolCallRequest { call: sent, run_id, tool_call_id, trace_id, origin } = request;
    let tool_name = sent.shown_name().to_owned();
    let ids = EventIds {
        run_id: &run_id,
        tool_call_id: &tool_call_id,
        tool_name: &tool_name,
        review_session_id: None,
        trace_id: &trace_id,
        at: &now.at,
    };
    stores.events.push(events::tool_started(&ids));
    let call_ids = Ids { run_id: &run_id, tool_call_id: &tool_call_id, trace_id: &trace_id, origin };
    match run(page, sent, &call_ids, stores) {
        Ok((reply, outcome)) => {
            let session = reply.review_session.as_ref().map(|s| s.session_id.as_str());
            stores.events.push(events::tool_completed(&EventIds { review_session_id: session, ..ids }, &outcome));
            Ok(reply)
        }
        Err(error) => {
            stores.events.push(events::tool_failed(&ids, &error));
            Err(error)
        }
    }
}

/// The document a call's arguments name (`documentId`), required where a call is bound to no document
/// (MCP and the tool route). `pointer` is where the arguments sit in the request, for the error.
pub fn document_of(sent: &SentCall, pointer: &str) -> Result<String, Error> {
    let at = format!("{pointer}/documentId");
    if !sent.args_are_object() {
        return Err(Error::invalid(pointer, "the arguments are a JSON object"));
    }
    let Some(id) = sent.document_id() else {
        return Err(Error::invalid(at, "every mnote tool call names its page with documentId"));
    };
    pageai_core::page::validate_document_id(id).map_err(|reason| Error::invalid(at, reason))?;
    Ok(id.to_string())
}

fn run(page: &mut Page, sent: SentCall, ids: &Ids<'_>, stores: &mut Stores<'_>) -> Result<(ToolReply, Outcome), Error> {
    // An AI write names its context: refused first, with every bad field of its arguments.
    sent.check_bound(ids.origin)?;
    let contexts = stores.contexts_for(sent.context_id())?;
    let reads = sent.tool().is_some_and(|t| !t.writes());
    let new_context_id = if reads { stores.mint.opaque(pageai_core::ids::Kind::Context)? } else { String::new() };
    let args = sent.into_args(ids.origin)?;
    let now = stores.now;
    let call = ToolCall {
        args,
        origin: ids.origin,
        // A person's own write is theirs in the audit; an AI's is the AI's (its run acts for a person,
        // whose rights bound it).
        actor: match ids.origin.is_ai() {
            true => ids.origin.actor(),
            false => stores.acting.user.as_str(),
        },
        at: &now.at,
        tool_call_id: ids.tool_call_id,
        new_context_id: &new_context_id,
    };
    match stores.with_env(&contexts, |env| review::submit(page, &call, env))? {
        Submission::Execute => plain(page, call, ids.run_id, &contexts, stores),
        Submission::Session(proposal) => session(page, &call, ids, proposal, &contexts, stores),
    }
}

/// The page's pending suggestions (`review::suggestions` over the sessions waiting for a person), for a
/// call that shows them (`doc.fetch`, `block.fetch`); none for any other, which need not read them.
fn shown_suggestions(page: &Page, tool: Tool, stores: &Stores<'_>) -> Result<Vec<SuggestionV1>, Error> {
    if !matches!(tool, Tool::DocFetch | Tool::BlockFetch) {
        return Ok(Vec::new());
    }
    let waiting = stores.sessions.waiting()?;
    let noted: Vec<Noted<'_>> =
        waiting.iter().map(|(session, reason)| Noted { session, reason: reason.as_deref() }).collect();
    Ok(review::suggestions(&noted, page))
}

/// The executor, nothing more: reads (a fetch with the page's suggestions), yolo previews, replays.
fn plain(
    page: &mut Page,
    call: ToolCall<'_>,
    run_id: &str,
    contexts: &BoundContext,
    stores: &mut Stores<'_>,
) -> Result<(ToolReply, Outcome), Error> {
    let (tool, origin) = (call.args.tool(), call.origin);
    let tool_name = tool.spec().name;
    let suggestions = shown_suggestions(page, tool, stores)?;
    let outcome = stores.with_env_showing(contexts, &suggestions, |env| executor::execute_call(page, call, env))?;
    match &outcome.effect {
        Effect::Read { frozen: Some(frozen) } => stores.freeze(frozen)?,
        Effect::Applied(result) => {
            audit::record(&mut *stores.audit, AuditDraft::for_result(AuditAction::ToolApplied, result, None))?;
            stores.applied(origin, run_id, None, result);
        }
        Effect::Read { frozen: None } | Effect::Previewed(_) | Effect::Replayed => {}
    }
    let reply = ToolReply { tool_name: tool_name.into(), result: raw(outcome.json.clone())?, review_session: None };
    Ok((reply, outcome))
}

/// A write that goes through a review session: the one found for its proposal, or a new one, stored with
/// its event and audit entry.
fn session(
    page: &mut Page,
    call: &ToolCall<'_>,
    ids: &Ids<'_>,
    proposal: Proposal,
    contexts: &BoundContext,
    stores: &mut Stores<'_>,
) -> Result<(ToolReply, Outcome), Error> {
    let tool_name = call.args.tool().spec().name;
    let proposal = ProposalKey { idempotency_key: proposal.idempotency_key, fingerprint: proposal.fingerprint };
    if !proposal.idempotency_key.is_empty()
        && let Some(session) = stores.sessions.find_proposal(&proposal)?
    {
        return reply_for(&session, tool_name, true);
    }
    let session_id = stores.mint.session_id(&page.document_id)?;
    let propose = ProposeRequest { session_id: &session_id, run_id: ids.run_id, trace_id: ids.trace_id, call };
    let session = stores.with_env(contexts, |env| review::propose(page, &propose, env))?;
    stores.sessions.put_proposed(&session, &proposal, contexts.context())?;
    // A plan's summary is its reason, which the page's suggestions show.
    if let Some(reason) = review::reason_of(call) {
        stores.sessions.note_reason(&session.session_id, reason)?;
    }
    stores.events.push(events::review_updated(&session, &stores.now.at));
    if let Some(applied) = &session.applied {
        stores.applied(call.origin, ids.run_id, Some(&session.session_id), &applied.result);
    }
    let draft = match &session.applied {
        Some(applied) => AuditDraft::for_result(AuditAction::ToolApplied, &applied.result, Some(&session.session_id)),
        None => AuditDraft::for_session(AuditAction::ReviewPropose, &session, call.actor, call.at, page.revision),
    };
    audit::record(&mut *stores.audit, draft)?;
    reply_for(&session, tool_name, false)
}

/// Core's answer for a session, as the reply that names it.
fn reply_for(session: &ReviewSessionV1, tool_name: &str, found: bool) -> Result<(ToolReply, Outcome), Error> {
    let outcome = review::answer(session, found)?;
    let reply = ToolReply {
        tool_name: tool_name.into(),
        result: raw(outcome.json.clone())?,
        review_session: Some(SessionRef { session_id: session.session_id.clone(), state: session.state }),
    };
    Ok((reply, outcome))
}

fn raw(json: String) -> Result<Box<RawValue>, Error> {
    RawValue::from_string(json).map_err(|e| wire::serde_error("", &e))
}

#[cfg(test)]
#[path = "tool_calls_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "tool_calls_suggestions_tests.rs"]
mod suggestions_tests;
