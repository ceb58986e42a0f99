//! `GET /api/documents/{id}/live`: the document's live channel, a WebSocket (`mnote.live_event.v1`, or
//! `mnote.live_event.v2` with `?schema=mnote.live_event.v2`).
//!
//! The front has checked the browser's credential (session cookie or Bearer client token; the tool token
//! opens nothing here) and, since a browser sends cookies with a cross-site WebSocket as with any GET, the
//! `Origin` as for a state-changing request ([`super::authorize`]). It checks the document id and the
//! resume position (`?after=<seq>`, `?revision=<rev>`) and version (`?schema=`), then hands the upgrade to the document's object,
//! which accepts the socket ([`crate::durable::document::live`]).

use pageai_core::Error;
use worker::{Request, Response};

use crate::auth::{bearer, looks_like_jwt, now_seconds, session, signed_token};
use crate::durable::document::live::Resume;
use crate::durable::document::{DocumentClient, SignedIn};
use crate::durable::guard::Guards;
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
    let signed_in = signed_in(&req, ctx).await;
    if let (Some(session), Some(until)) = (&signed_in.session, signed_in.until) {
        // So that a logout finds this document and ends the session's sockets on it.
        Guards::new(&ctx.env, &ctx.trace_id)?
            .watch_live(session, until, &document_id, now_seconds(), &ctx.trace_id)
            .await?;
    }
    // The object lets the channel open only for a role in the page's workspace ([`crate::durable::document`]'s gate).
    let client =
        DocumentClient::new(&ctx.env, &document_id, &ctx.trace_id)?.acting_for(ctx.principal()?, &ctx.trace_id)?;
    client.live(&document_id, &resume, &signed_in, &ctx.trace_id).await
}

/// The sign-in the request was let in with ([`crate::auth::credential`]'s order: a Bearer token first, else
/// the cookie): a signed token ends at its `exp`, a cookie at its expiry (and at its logout), the client
/// token never.
async fn signed_in(req: &Request, ctx: &RequestContext) -> SignedIn {
    let header = req.headers().get("authorization").ok().flatten();
    if let Some(token) = header.as_deref().and_then(bearer) {
        return match (&ctx.config.jwt, looks_like_jwt(token)) {
            (Some(config), true) => {
                SignedIn { until: signed_token(token, config, ctx).await.map(|v| v.expires_at), session: None }
            }
            _ => SignedIn::default(),
        };
    }
    match session(req, ctx) {
        Some(session) => SignedIn { until: Some(session.expires_at), session: Some(session.nonce) },
        None => SignedIn::default(),
    }
}
