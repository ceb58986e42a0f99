//! `GET /api/documents/{id}/live`: the document's live channel, a WebSocket (`mnote.live_event.v1`).
//!
//! The front has checked the browser's credential (session cookie or Bearer client token; the tool token
//! opens nothing here) and, since a browser sends cookies with a cross-site WebSocket as with any GET, the
//! `Origin` as for a state-changing request ([`super::authorize`]). It checks the document id and the
//! resume position (`?after=<seq>`, `?revision=<rev>`), then hands the upgrade to the document's object,
//! which accepts the socket ([`crate::durable::document::live`]).

use pageai_core::Error;
use worker::{Request, Response};

use crate::durable::document::DocumentClient;
use crate::durable::document::live::Resume;
use crate::error::{Failure, OrInternal};
use crate::http::RequestContext;
use crate::services::documents::check_document_id;

/// Opens the live channel of `document_id`.
pub async fn open(req: Request, document_id: String, ctx: &RequestContext) -> Result<Response, Failure> {
    check_document_id(&document_id)?;
    let upgrade = req.headers().get("upgrade").ok().flatten().unwrap_or_default();
    if !upgrade.eq_ignore_ascii_case("websocket") {
        return Err(Failure::Core(Error::invalid(
            "/headers/upgrade",
            "the live channel is a WebSocket: send Upgrade: websocket",
        )));
    }
    let url = req.url().or_internal("parse request URL", &ctx.trace_id)?;
    let resume = Resume::parse(&url)?;
    // The object lets the channel open only for a role in the page's workspace ([`crate::durable::document`]'s gate).
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    client.live(&document_id, &resume, &ctx.trace_id).await
}
