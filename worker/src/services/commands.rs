//! `POST /api/page-ai/command`, inside the document's object: freeze a context, route the prompt, and act
//! on the route.
//!
//! - A direct route (a low-ambiguity command the router has dry-run itself) becomes the router's
//!   recommended `mnote.doc.apply_block_ops` call with `dryRun:false` (the very write the router dry-ran,
//!   taken typed from [`route::Routed::write`], never parsed back from the route's JSON), run as an AI
//!   tool call of origin `shortcut` ([`tool_calls::call`]): the same guards, events and audit entries as a
//!   Hermes call. Under a `yolo` mode a low- or medium-risk shortcut is applied at once (`applied`, with
//!   the page read back); otherwise it is held in a review session (`review`).
//! - The write is planned once. The router dry-runs it with this object's minter, and the typed write
//!   carries that plan: the session's preview and the apply are answered from it (core's
//!   `executor::Planned`), so the blocks the preview showed are the blocks that land, ids included.
//! - Any other route needs a Hermes run (`hermes`): the answer carries the route, its `toolHint` and the
//!   frozen `contextId` the run's writes bind to. Starting the run is the front Worker's job
//!   (`start_hermes_run` in `routes/page_ai.rs`).
//!
//! `mode` replaces the profile's review mode for this one command, except that a `required` profile
//! cannot be relaxed: nothing may opt out of it.

use pageai_core::context::{ContextRequest, Format, Scope};
use pageai_core::executor::{FrozenContext, Origin, SentCall, ToolArgs};
use pageai_core::page::Page;
use pageai_core::profile::{Profile, ReviewMode};
use pageai_core::review::{ReviewSessionV1, State};
use pageai_core::route::{self, RouteInput, RouteV1};
use pageai_core::{Error, wire};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::stores::Stores;
use super::tool_calls::{self, ToolCallRequest};

/// The body of `POST /api/page-ai/command`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CommandRequest {
    /// The document.
    pub document_id: String,
    /// What the user typed.
    pub prompt: String,
    /// The context to freeze: `{type:"full"}` (the default), `{type:"selection", blockIds}`, … A selection
    /// bounds the command without a selection scope: `selection` alone routes as the browser's
    /// `PageSession.route(prompt, {selection})` does.
    #[serde(default = "full_scope")]
    pub scope: Scope,
    /// The user's selection; defaults to a selection scope's blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<Vec<String>>,
    /// Review mode for this command; see the module docs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ReviewMode>,
    /// The trace, when no `x-trace-id` header names one (adopted by [`crate::correlation`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// `false`: when the command goes to Hermes, answer so and start no run (an Apply that expected a direct
    /// write). Default `true`: the run starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_hermes: Option<bool>,
}

fn full_scope() -> Scope {
    Scope::Full
}

/// What the command did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandOutcome {
    /// The shortcut was applied; `result` and `page` are set.
    Applied,
    /// The shortcut waits in a review session; `reviewSession` is set.
    Review,
    /// The prompt needs a Hermes run; `route.toolHint` says where it should start.
    Hermes,
}

/// The object's answer to a command.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandAnswer {
    /// Always `true`; failures use the error body.
    pub ok: bool,
    /// What happened.
    pub outcome: CommandOutcome,
    /// The router's decision (`mnote.page_ai_command_route.v1`).
    pub route: RouteV1,
    /// The frozen context the route (and a Hermes run's writes) bind to.
    pub context_id: String,
    /// The review mode the command ran under.
    pub mode: ReviewMode,
    /// The shortcut's run id (also in its events), for direct routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The shortcut's tool result, when applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Box<RawValue>>,
    /// The review session of a direct route (held, or the `applied` record of a yolo write).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_session: Option<ReviewSessionV1>,
    /// The page after the write, when applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<Page>,
}

/// Runs the command against `page`. `trace_id` tags the shortcut's events and session.
pub fn run(
    page: &mut Page,
    request: &CommandRequest,
    trace_id: &str,
    stores: &mut Stores<'_>,
) -> Result<CommandAnswer, Error> {
    let selection = selection_of(request);
    let (context_id, frozen) = freeze(page, &request.scope, stores)?;
    let mode = stores.profile.review_mode.overridden_by(request.mode);
    let profile = Profile { review_mode: mode, ..stores.profile.clone() };
    let key = stores.mint.opaque(pageai_core::ids::Kind::IdempotencyKey)?;
    let input = RouteInput {
        page,
        context: &frozen,
        selection: &selection,
        profile: &profile,
        grants: None,
        idempotency_key: &key,
    };
    let mint = &mut *stores.mint;
    let route::Routed { wire: route, write } = route::routed(&request.prompt, &input, &mut || mint.block_id());
    let answer = CommandAnswer {
        ok: true,
        outcome: CommandOutcome::Hermes,
        route,
        context_id,
        mode,
        run_id: None,
        result: None,
        review_session: None,
        page: None,
    };
    let direct = !answer.route.requires_hermes_run;
    // A route that asks for review (a literal matched ignoring case) is held even under yolo.
    let profile = Profile { review_mode: route::shortcut_review_mode(&answer.route, mode), ..profile };
    match write.filter(|_| direct) {
        Some(write) => run_shortcut(answer, write, page, &profile, trace_id, stores),
        None => Ok(answer),
    }
}

/// The user's selection: as given, else a selection scope's blocks, else none.
fn selection_of(request: &CommandRequest) -> Vec<String> {
    match (&request.selection, &request.scope) {
        (Some(selection), _) => selection.clone(),
        (None, Scope::Selection { block_ids }) => block_ids.clone(),
        (None, _) => Vec::new(),
    }
}

/// Builds the command's context over `scope` and freezes it; answers its id and frozen form.
fn freeze(page: &Page, scope: &Scope, stores: &mut Stores<'_>) -> Result<(String, FrozenContext), Error> {
    let context_id = stores.mint.opaque(pageai_core::ids::Kind::Context)?;
    let request = ContextRequest::new(scope.clone()).with_formats(&[Format::Text]);
    let (_, frozen) = FrozenContext::freeze(page, &request, &context_id)?;
    stores.freeze(&frozen)?;
    Ok((context_id, frozen))
}

/// Runs a direct route's recommended call (typed and planned) as a `shortcut` tool call under `profile`
/// (the command's review mode), and says whether it was applied or is held for review.
fn run_shortcut(
    mut answer: CommandAnswer,
    recommended: ToolArgs,
    page: &mut Page,
    profile: &Profile,
    trace_id: &str,
    stores: &mut Stores<'_>,
) -> Result<CommandAnswer, Error> {
    let call = shortcut_call(recommended, trace_id, stores)?;
    let run_id = call.run_id.clone();
    let mut stores = stores.with_profile(profile);
    let reply = tool_calls::call(page, call, &mut stores)?;
    let session = match &reply.review_session {
        Some(found) => stores.sessions.get(&found.session_id)?,
        None => None,
    };
    answer.run_id = Some(run_id);
    if session.as_ref().is_some_and(|s| s.state == State::Applied) {
        answer.outcome = CommandOutcome::Applied;
        answer.result = Some(reply.result);
        answer.page = Some(page.clone());
    } else {
        answer.outcome = CommandOutcome::Review;
    }
    answer.review_session = session;
    Ok(answer)
}

/// The recommended call with `dryRun:false`, under a new run and tool-call id.
fn shortcut_call(mut args: ToolArgs, trace_id: &str, stores: &mut Stores<'_>) -> Result<ToolCallRequest, Error> {
    args.set_dry_run(false);
    Ok(ToolCallRequest {
        call: SentCall::typed(args),
        run_id: stores.mint.opaque(pageai_core::ids::Kind::Run)?,
        tool_call_id: stores.mint.opaque(pageai_core::ids::Kind::ToolCall)?,
        trace_id: trace_id.into(),
        origin: Origin::Shortcut,
    })
}

/// Parses a command body, naming the bad field by JSON pointer.
pub fn parse(body: &str) -> Result<CommandRequest, Error> {
    wire::from_json_serde(body)
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
