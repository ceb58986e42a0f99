//! The page-AI routes of the browser: `POST /api/page-ai/command` and the review sessions.
//!
//! - `POST /api/page-ai/command {documentId, prompt, scope?, selection?, mode?, runHermes?, traceId?}`: the
//!   document's object freezes a context (the whole page by default), routes the prompt and acts
//!   ([`crate::services::commands`]). The answer is
//!   `{ok, outcome, route, contextId, mode, runId?, result?, reviewSession?, page?, hermesRun?}`: `applied`
//!   carries the tool result and the page read back, `review` the held session, and `hermes` the route
//!   (with `requiresHermesRun:true` and its `toolHint`) plus `hermesRun`, what [`start_hermes_run`] said;
//!   with `runHermes:false` no run starts and `hermesRun` is absent.
//! - `GET /api/page-ai/review-sessions/{id}` answers the session; `POST …/{id}/accept {idempotencyKey,
//!   blockIds?}` and `…/revert {idempotencyKey}` answer `mnote.page_ai_review_answer.v1` (byte for byte the
//!   same on a replay); `…/reject`, `…/abort` (no body) and `…/retry {toolCallId, operations?}` answer the
//!   session. Accept, retry and revert take an editor or owner; so do reject and abort, except that the
//!   author of a person's suggestion (`POST /api/documents/{id}/suggestions`) may reject or abort their
//!   own (core's `review::may_act`).
//!
//! A session id names its document (`rs.{documentId}.{random}`, see [`crate::ids::session_document`]), so
//! these routes need nothing besides the path to find the document's object.

use pageai_core::Error;
use pageai_core::review::{AcceptRequest, Action, RetryRequest, RevertRequest};
use pageai_core::wire::ErrorBody;
use serde::{Deserialize, Serialize};
use worker::{Request, Response};

use super::hermes_proxy;
use crate::durable::document::{Answered, DocumentClient, DocumentCommand, pass_rows};
use crate::error::Failure;
use crate::http::{RequestContext, json_response, raw_json_response, read_body, read_json};
use crate::ids;
use crate::services::commands::{CommandAnswer, CommandOutcome, CommandRequest};
use crate::services::documents::check_document_id;
use crate::services::hermes::wire::{owned_suffix, session_id_of};
use crate::services::reviews::ReviewAction;

/// The command answer as the browser gets it: the object's answer plus the Hermes hand-off.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CommandResponse {
    #[serde(flatten)]
    answer: CommandAnswer,
    #[serde(skip_serializing_if = "Option::is_none")]
    hermes_run: Option<HermesRun>,
}

/// What became of the Hermes run a `hermes` outcome asks for.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HermesRun {
    /// Whether a run was started.
    pub started: bool,
    /// Hermes' run id, when started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The Hermes session the run belongs to (read its events with `?sessionId=`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Why not, when not started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// `POST /api/page-ai/command`.
pub async fn command(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let request: CommandRequest = read_json(&mut req, ctx).await?;
    check_document_id(&request.document_id)?;
    let (prompt, selection) = (request.prompt.clone(), request.selection.clone().unwrap_or_default());
    let run_document = request.document_id.clone();
    let run_hermes = request.run_hermes != Some(false);
    let document_id = request.document_id.clone();
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    // The object routes and acts under its own copy of the profile: one round trip.
    let command = DocumentCommand::Command { document_id, request, trace_id: ctx.trace_id.clone() };
    let Answered { value: answer, rows_written, .. } = client.call::<CommandAnswer>(&command, &ctx.trace_id).await?;
    let hermes_run = match answer.outcome {
        CommandOutcome::Hermes if !run_hermes => None,
        CommandOutcome::Hermes => Some(match start_hermes_run(&run_document, &prompt, &selection, ctx).await {
            Ok((run_id, session_id)) => {
                HermesRun { started: true, run_id: Some(run_id), session_id: Some(session_id), error: None }
            }
            Err(failure) => HermesRun {
                started: false,
                run_id: None,
                session_id: None,
                error: Some(ErrorBody::new(
                    &match failure {
                        Failure::Core(error) => error,
                        // The document's object already answered the command, so it is there; a
                        // relayed failure here is a storage fault.
                        Failure::Relayed(_) => Error::StorageFailed,
                    },
                    &ctx.trace_id,
                )),
            },
        }),
        CommandOutcome::Applied | CommandOutcome::Review => None,
    };
    let response = json_response(&CommandResponse { answer, hermes_run }, &ctx.trace_id)?;
    Ok(pass_rows(rows_written.as_deref(), response, &ctx.trace_id)?)
}

/// Starts the Hermes run a `hermes` route asks for, in a new Hermes session of the document, through the
/// proxy's run start ([`hermes_proxy::launch`]): the context frozen for the run, the router's tool hint and
/// the review policy go into the instructions. Unconfigured (`HERMES_UPSTREAM_URL` unset), it answers
/// `hermes_client_unconfigured` and the command's answer says the run did not start.
pub async fn start_hermes_run(
    document_id: &str,
    prompt: &str,
    selection: &[String],
    ctx: &RequestContext,
) -> Result<(String, String), Failure> {
    let tag = hermes_proxy::caller_tag(ctx)?;
    let session_id = session_id_of(document_id, &owned_suffix(tag.as_deref(), &ids::hermes_session_suffix()?));
    let order = hermes_proxy::RunOrder {
        document_id,
        session_id: &session_id,
        message: prompt,
        selected_block_id: selection.first().map(String::as_str),
        selected_text: None,
        model: None,
    };
    let run_id = hermes_proxy::launch(&order, ctx).await?;
    Ok((run_id, session_id))
}

/// `GET /api/page-ai/review-sessions/{id}`.
pub async fn get_session(_req: Request, session_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    act(&session_id, ReviewAction::Get, ctx).await
}

/// `POST /api/page-ai/review-sessions/{id}/{verb}`.
pub async fn review(
    mut req: Request,
    session_id: String,
    verb: Action,
    ctx: &RequestContext,
) -> Result<Response, Failure> {
    ids::session_document(&session_id)?;
    let action = match verb {
        Action::Accept => ReviewAction::Accept(read_json::<AcceptRequest>(&mut req, ctx).await?),
        Action::Retry => ReviewAction::Retry(read_json::<RetryRequest>(&mut req, ctx).await?),
        Action::Revert => ReviewAction::Revert(read_json::<RevertRequest>(&mut req, ctx).await?),
        Action::Reject => {
            no_body(&mut req, ctx).await?;
            ReviewAction::Reject
        }
        Action::Abort => {
            no_body(&mut req, ctx).await?;
            ReviewAction::Abort
        }
        // Steps the services take, never a path segment (`Action::parse_verb` does not resolve them).
        Action::Plan
        | Action::Preview
        | Action::Present
        | Action::PreviewFailed
        | Action::Apply
        | Action::ApplySucceeded
        | Action::ApplyFailed
        | Action::MarkStale => return Err(Error::RouteNotFound { path: verb.as_str().into() }.into()),
    };
    act(&session_id, action, ctx).await
}

/// Reject and abort take no body; one that is sent must be empty or `{}`, so a misplaced field is not
/// silently ignored.
async fn no_body(req: &mut Request, ctx: &RequestContext) -> Result<(), Error> {
    let bytes = read_body(req, ctx.config.max_body_bytes, &ctx.trace_id).await?;
    let text = std::str::from_utf8(&bytes).map_err(|_| Error::InvalidBody { reason: "not UTF-8".into() })?;
    if !text.trim().is_empty() {
        pageai_core::wire::from_json_serde::<Empty>(text)?;
    }
    Ok(())
}

/// An empty JSON object, nothing else.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

async fn act(session_id: &str, action: ReviewAction, ctx: &RequestContext) -> Result<Response, Failure> {
    let document_id = ids::session_document(session_id)?.to_string();
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    let command = DocumentCommand::Review { document_id, session_id: session_id.into(), action };
    let answered = client.call_raw(&command, &ctx.trace_id).await?;
    let rows_written = answered.rows_written.clone();
    Ok(pass_rows(rows_written.as_deref(), raw_json_response(answered.value, &ctx.trace_id)?, &ctx.trace_id)?)
}
