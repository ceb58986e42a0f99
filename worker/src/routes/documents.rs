//! `GET /api/documents/{id}` and `PUT /api/documents/{id}`: whole pages as JSON or Markdown (a `GET` also
//! names the caller's role in the page's workspace, in [`ROLE_HEADER`], and their user id, in [`USER_HEADER`]);
//! `PATCH /api/documents/{id}/blocks`: a person's block edits; `POST …/runs/{runId}/undo`: the undo of a
//! Hermes run; and what the
//! document's object keeps beside the page: `…/audit` (the hash-chained log, `?after=&limit=`),
//! `…/audit/verify`, `…/events` (tool and review events, `?runId=&after=&limit=`) and `…/review-sessions`.
//!
//! Handlers only extract and check input (path id, content type, body size, encoding, JSON shape) and
//! pick the answer's format; the document's Durable Object does the storage work.

use pageai_core::review::listing::{Cursor, Filter};
use pageai_core::{Error, markdown, wire};
use worker::{Request, Response};

use crate::durable::document::{DocumentClient, DocumentCommand};
use crate::error::{Failure, OrInternal};
use crate::http::{
    RequestContext, json_response, query, query_number, raw_json_response, read_body, read_json, text_response,
};
use crate::services::block_edits::BlockEdits;
use crate::services::documents::{PageDraft, PutPageBody, check_document_id};

/// How a page is written in a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Markdown,
}

impl Format {
    /// `?format=json|markdown` wins; otherwise `Accept: text/markdown` asks for Markdown.
    fn of(req: &Request, trace_id: &str) -> Result<Format, Error> {
        let url = req.url().or_internal("parse request URL", trace_id)?;
        if let Some((_, value)) = url.query_pairs().find(|(name, _)| name == "format") {
            return match value.as_ref() {
                "json" => Ok(Format::Json),
                "markdown" | "md" => Ok(Format::Markdown),
                other => Err(Error::invalid("/format", format!("{other:?} is not json or markdown"))),
            };
        }
        let accept = req.headers().get("accept").ok().flatten().unwrap_or_default();
        Ok(if accept.contains("text/markdown") { Format::Markdown } else { Format::Json })
    }
}

/// The kinds of body a `PUT` takes.
enum BodyKind {
    Json,
    Markdown,
}

impl BodyKind {
    fn of(req: &Request) -> Result<BodyKind, Error> {
        let content_type = req.headers().get("content-type").ok().flatten().unwrap_or_default();
        let media_type = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        match media_type.as_str() {
            "application/json" => Ok(BodyKind::Json),
            "text/markdown" | "text/x-markdown" => Ok(BodyKind::Markdown),
            _ => Err(Error::InvalidBody {
                reason: format!("Content-Type {content_type:?} is neither application/json nor text/markdown"),
            }),
        }
    }
}

/// Answers the page, seeding `welcome` into an empty store.
pub async fn get(req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let format = Format::of(&req, &ctx.trace_id)?;
    let principal = ctx.principal()?;
    let client = DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(principal, &ctx.trace_id)?;
    let answer = client.call::<pageai_core::Page>(&DocumentCommand::Get { document_id }, &ctx.trace_id).await?;
    let page = &answer.value;
    let mut response = answer.pass_live_seq(respond(page, format, &ctx.trace_id)?, &ctx.trace_id)?;
    // The object answered, so the caller holds a role in the page's workspace.
    if let Some(role) = principal.role_in(&page.workspace_id) {
        response.headers_mut().set(ROLE_HEADER, role.as_str()).or_internal("set the role header", &ctx.trace_id)?;
    }
    response.headers_mut().set(USER_HEADER, &principal.user).or_internal("set the user header", &ctx.trace_id)?;
    Ok(response)
}

/// The header of `GET /api/documents/{id}` that names the caller's role in the page's workspace
/// (`viewer`, `editor`, `owner`): what the browser package's `PageSession` previews for, so its preview
/// says what the server will do with that person's writes.
pub const ROLE_HEADER: &str = "x-mnote-role";

/// The header of `GET /api/documents/{id}` that names the caller's user id (the `actor` of their
/// suggestions and audit entries): the demo tells a person's own suggestions, which they may withdraw,
/// from others'.
pub const USER_HEADER: &str = "x-mnote-user";

/// Replaces the page with the body (a page as JSON, or Markdown) and answers the stored page.
pub async fn put(mut req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let format = Format::of(&req, &ctx.trace_id)?;
    let kind = BodyKind::of(&req)?;
    let bytes = read_body(&mut req, ctx.config.max_body_bytes, &ctx.trace_id).await?;
    let draft = match kind {
        BodyKind::Json => {
            let text = std::str::from_utf8(&bytes).map_err(|e| Error::InvalidBody {
                reason: format!("not UTF-8: invalid byte at offset {}", e.valid_up_to()),
            })?;
            wire::from_json_serde::<PutPageBody>(text)?.into_draft(&document_id)?
        }
        BodyKind::Markdown => PageDraft::from_markdown(&bytes)?,
    };
    let mut draft = draft;
    // A Markdown body has no place for it: `?workspace=` names the workspace a new page is made in.
    if draft.workspace_id.is_none() {
        draft.workspace_id = query(&req, "workspace", &ctx.trace_id)?;
    }
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    let stored = client.call::<pageai_core::Page>(&DocumentCommand::Put { document_id, draft }, &ctx.trace_id).await?;
    Ok(stored.pass_rows(respond(&stored.value, format, &ctx.trace_id)?, &ctx.trace_id)?)
}

/// `PATCH …/blocks {baseRevision, operations, idempotencyKey, revisionRefs?}`: a person's edits, applied by
/// the document's object through core's executor as origin `user` (never held for review); answers the
/// `mnote.tool_result.v1`, or the coded error (409 `mnote_revision_conflict` with each changed block).
pub async fn patch_blocks(mut req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let edits: BlockEdits = read_json(&mut req, ctx).await?;
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    let command = DocumentCommand::EditBlocks { document_id: document_id.clone(), edits };
    let answer = client.call_raw(&command, &ctx.trace_id).await?;
    let response = raw_json_response(answer.value.clone(), &ctx.trace_id)?;
    Ok(answer.pass_rows(response, &ctx.trace_id)?)
}

/// `POST …/suggestions {baseRevision, operations, idempotencyKey, revisionRefs?, reason?}`: the body of
/// `PATCH …/blocks` (and an optional reason), held as the person's suggestion instead of written (any role may suggest; core's role
/// table says why). Answers the `mnote.page_ai_review_session.v1` that holds it, `awaiting_user`, or the
/// coded error the same dry-run gives an edit; an editor or owner accepts it through the review session
/// routes, and its author may reject it.
pub async fn suggest(mut req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let body: crate::services::block_edits::SuggestionBody = read_json(&mut req, ctx).await?;
    body.reason()?;
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    let command = DocumentCommand::Suggest { document_id: document_id.clone(), body };
    let answer = client.call_raw(&command, &ctx.trace_id).await?;
    let response = raw_json_response(answer.value.clone(), &ctx.trace_id)?;
    Ok(answer.pass_rows(response, &ctx.trace_id)?)
}

/// `POST …/runs/{runId}/undo {idempotencyKey, confirmRevision?}`: undo every write Hermes run `runId`
/// applied, as one write (core's `review::undo_run`); answers the `mnote.run_undo.v1`: `undone`, or
/// `needs_confirm` with a preview when a later edit touched one of the run's blocks (send it again with
/// `confirmRevision` to write). Editors and owners only; 404 `mnote_run_not_found` for a run the page never
/// saw.
pub async fn undo_run(
    mut req: Request,
    document_id: String,
    run_id: String,
    ctx: &RequestContext,
) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    if !crate::ids::is_sane_trace_id(&run_id) {
        return Err(Error::RunNotFound { run_id: run_id.chars().take(128).collect() }.into());
    }
    let request: pageai_core::review::UndoRunRequest = read_json(&mut req, ctx).await?;
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    let command = DocumentCommand::UndoRun { document_id: document_id.clone(), run_id, request };
    let answer = client.call_raw(&command, &ctx.trace_id).await?;
    let response = raw_json_response(answer.value.clone(), &ctx.trace_id)?;
    Ok(answer.pass_rows(response, &ctx.trace_id)?)
}

/// `GET …/suggestions`: `{documentId, suggestions:[mnote.suggestion.v1]}`, the page's pending changes
/// (people's and AI's) in page order.
pub async fn suggestions(_req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    relay(&document_id, DocumentCommand::ListSuggestions { document_id: document_id.clone() }, ctx).await
}

/// Largest page of audit entries, events or sessions one request returns.
const MAX_LIST: u64 = 5_000;

/// `GET …/audit?after=&limit=`: `{documentId, head, entries}`, oldest first.
pub async fn audit(req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let after = query_number(&req, "after", 0, u64::MAX, &ctx.trace_id)?;
    let limit = list_limit(&req, ctx)?;
    relay(&document_id, DocumentCommand::Audit { document_id: document_id.clone(), after, limit }, ctx).await
}

/// `GET …/audit/verify`: `{ok:true, verified:true, entries, head}`, or 500 `mnote_audit_chain_broken`
/// naming the first entry that does not fit.
pub async fn verify_audit(_req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    relay(&document_id, DocumentCommand::VerifyAudit { document_id: document_id.clone() }, ctx).await
}

/// `GET …/events?runId=&after=&limit=`: `{documentId, events:[{seq, event}]}`, oldest first.
pub async fn events(req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let run_id = query(&req, "runId", &ctx.trace_id)?;
    if let Some(run) = &run_id
        && !crate::ids::is_sane_trace_id(run)
    {
        return Err(
            Error::invalid("/runId", "a run id is 1 to 128 characters from A-Z, a-z, 0-9, '_', '-', '.', ':'").into()
        );
    }
    let after = query_number(&req, "after", 0, u64::MAX, &ctx.trace_id)?;
    let limit = list_limit(&req, ctx)?;
    relay(&document_id, DocumentCommand::Events { document_id: document_id.clone(), run_id, after, limit }, ctx).await
}

/// `GET …/review-sessions?state=&cursor=&limit=`: `{documentId, sessions:[{sessionId, state, updatedAt}],
/// nextCursor?, counts:{open, all}}`, open sessions first, each group newest first (core's
/// [`pageai_core::review::listing`]), so a held change is never paged out behind applied ones.
pub async fn sessions(req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let limit = list_limit(&req, ctx)?;
    let filter = query(&req, "state", &ctx.trace_id)?;
    Filter::parse(filter.as_deref())?;
    let cursor = query(&req, "cursor", &ctx.trace_id)?;
    cursor.as_deref().map(Cursor::parse).transpose()?;
    let command = DocumentCommand::ListSessions { document_id: document_id.clone(), filter, cursor, limit };
    relay(&document_id, command, ctx).await
}

fn list_limit(req: &Request, ctx: &RequestContext) -> Result<u32, Error> {
    let limit = query_number(req, "limit", 1_000, MAX_LIST, &ctx.trace_id)?;
    Ok(u32::try_from(limit).unwrap_or(u32::MAX))
}

async fn relay(document_id: &str, command: DocumentCommand, ctx: &RequestContext) -> Result<Response, Failure> {
    let client =
        DocumentClient::new(&ctx.env, document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    let answer = client.call_raw(&command, &ctx.trace_id).await?;
    let response = raw_json_response(answer.value.clone(), &ctx.trace_id)?;
    Ok(answer.pass_live_seq(response, &ctx.trace_id)?)
}

fn respond(page: &pageai_core::Page, format: Format, trace_id: &str) -> Result<Response, Error> {
    match format {
        Format::Json => json_response(page, trace_id),
        Format::Markdown => text_response(markdown::export(page), "text/markdown; charset=utf-8", trace_id),
    }
}
