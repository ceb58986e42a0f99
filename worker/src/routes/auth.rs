//! `POST /api/auth/login`, `POST /api/auth/dev-login` and `POST /api/auth/logout`: signing a browser in
//! and out. The rules (token comparison, cookie signing, origins) live in [`crate::auth`].
//!
//! - `login {token}` checks the token against `MNOTE_CLIENT_TOKEN` in constant time and answers
//!   `{ok, traceId, expiresAt}` with the session cookie. A wrong token counts against the client; past the
//!   free failures it is locked out for a doubling wait (`mnote_too_many_attempts`, 429 with
//!   `Retry-After`), during which not even the right token is checked. A success resets the count.
//! - `dev-login` issues the same cookie without a token, but only when `MNOTE_DEV_AUTO_LOGIN=true` (set
//!   by `make dev` for local runs, never in production), only to a browser page of an allowed origin, and
//!   only when the request's `Host` names this machine (`127.0.0.1`, `localhost`, `[::1]`) as one of the
//!   Worker's configured origins (`MNOTE_PUBLIC_ORIGIN`): a DNS-rebound name sends its own `Host` and gets
//!   nothing. It lets the demo sign itself in on a developer's machine without a token in the page's code.
//! - `session {token}` (or `Authorization: Bearer <JWT>` and no body) checks a signed token against the
//!   configured keys ([`crate::identity::jwt`]) and answers the same cookie, for the user and workspaces
//!   the token names, ending at the token's `exp` if that comes before the session life: the roles a
//!   token grants end with it. A refused token counts against the client like a wrong client token.
//! - `logout` revokes the session (a copy of the cookie stops working too) and clears the cookie.
//!
//! `login` and `dev-login` sign in the one person of single-user mode ([`Principal::single_user`]).

use pageai_core::{Error, wire};
use serde::{Deserialize, Serialize};
use worker::{Request, Response};

use crate::auth::{
    bearer, cleared_cookie, is_https, is_own_loopback_host, now_seconds, record_attempt, session, session_cookie,
    sign_session, signed_token, tokens_equal,
};
use crate::config::{secret, secrets};
use crate::durable::document::{DocumentClient, DocumentCommand};
use crate::durable::guard::Guards;
use crate::error::{Failure, OrInternal};
use crate::http::{RequestContext, json_response, read_body};
use crate::identity::Principal;
use crate::ids;

/// A sign-in body is a token and nothing else.
const MAX_LOGIN_BODY_BYTES: usize = 16 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoginBody {
    token: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SignedIn<'a> {
    ok: bool,
    trace_id: &'a str,
    /// When the cookie stops working, Unix seconds.
    expires_at: u64,
    /// Who signed in.
    user: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SignedOut<'a> {
    ok: bool,
    trace_id: &'a str,
}

/// Signs in with the client token.
pub async fn login(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let bytes = read_body(&mut req, MAX_LOGIN_BODY_BYTES, &ctx.trace_id).await?;
    let text = std::str::from_utf8(&bytes).map_err(|_| Error::InvalidBody { reason: "not UTF-8".into() })?;
    let body: LoginBody = wire::from_json_serde(text)?;
    let Some(expected) = secret(&ctx.env, secrets::MNOTE_CLIENT_TOKEN) else {
        worker::console_error!("[{}] sign-in refused: MNOTE_CLIENT_TOKEN is not set", ctx.trace_id);
        return Err(Error::Unauthorized.into());
    };
    let right = tokens_equal(&body.token, expected.expose());
    record_attempt(&req, ctx, right).await?;
    if !right {
        return Err(Error::Unauthorized.into());
    }
    Ok(issue(&req, ctx, &Principal::single_user(), None)?)
}

/// Signs in with a signed token: in the body (`{token}`), or as the Bearer token of a body-less request.
pub async fn signed_session(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let Some(config) = ctx.config.jwt.as_ref() else {
        worker::console_warn!("[{}] signed sign-in refused: no MNOTE_JWT_* keys are configured", ctx.trace_id);
        return Err(Error::Unauthorized.into());
    };
    let bytes = read_body(&mut req, MAX_LOGIN_BODY_BYTES, &ctx.trace_id).await?;
    let token = match bytes.is_empty() {
        true => req.headers().get("authorization").ok().flatten().as_deref().and_then(bearer).map(str::to_string),
        false => {
            let text = std::str::from_utf8(&bytes).map_err(|_| Error::InvalidBody { reason: "not UTF-8".into() })?;
            Some(wire::from_json_serde::<LoginBody>(text)?.token)
        }
    };
    let Some(token) = token else { return Err(Error::Unauthorized.into()) };
    let verified = signed_token(&token, config, ctx).await;
    record_attempt(&req, ctx, verified.is_some()).await?;
    match verified {
        Some(verified) => Ok(issue(&req, ctx, &verified.principal, Some(verified.expires_at))?),
        None => Err(Error::Unauthorized.into()),
    }
}

/// Signs a same-origin page in without a token, in local development only.
pub fn dev_login(req: &Request, ctx: &RequestContext) -> Result<Response, Failure> {
    if !ctx.config.dev_auto_login {
        return Err(Error::Unauthorized.into());
    }
    // `authorize` already refused a foreign origin; a missing one means the caller is not a page.
    if req.headers().get("origin").ok().flatten().is_none() {
        return Err(Error::ForbiddenOrigin { origin: String::new() }.into());
    }
    let host = req.headers().get("host").ok().flatten().unwrap_or_default();
    if !is_own_loopback_host(&host, is_https(req), &ctx.config) {
        worker::console_warn!(
            "[{}] dev-login refused: Host {:?} is not a loopback origin of MNOTE_PUBLIC_ORIGIN",
            ctx.trace_id,
            host.chars().take(200).collect::<String>()
        );
        return Err(Error::Unauthorized.into());
    }
    Ok(issue(req, ctx, &Principal::single_user(), None)?)
}

/// Revokes the request's session, if it has a valid one, and clears the cookie.
pub async fn logout(req: &Request, ctx: &RequestContext) -> Result<Response, Failure> {
    if let Some(session) = session(req, ctx) {
        let guards = Guards::new(&ctx.env, &ctx.trace_id)?;
        let live = guards.revoke(&session.nonce, session.expires_at, now_seconds(), &ctx.trace_id).await?;
        end_live_sockets(&session, &live, ctx).await;
    }
    let mut response = json_response(&SignedOut { ok: true, trace_id: &ctx.trace_id }, &ctx.trace_id)?;
    response
        .headers_mut()
        .set("set-cookie", &cleared_cookie(is_https(req)))
        .or_internal("set cookie", &ctx.trace_id)?;
    Ok(response)
}

/// Closes the session's live sockets on each document it opened one on (4401 `mnote_live_session_ended`).
/// The session is revoked already, so one that cannot be reached is logged and left: it gets nothing more
/// once its cookie expires, and the logout still succeeds.
async fn end_live_sockets(session: &crate::auth::Session, documents: &[String], ctx: &RequestContext) {
    for document_id in documents {
        let command = DocumentCommand::EndSession { document_id: document_id.clone(), session: session.nonce.clone() };
        let ended = async {
            let client = DocumentClient::new(&ctx.env, document_id, &ctx.trace_id)?
                .acting_for(&session.principal, &ctx.trace_id)?;
            client.send_raw(&command, &ctx.trace_id).await.map(|_| ())
        };
        if let Err(e) = ended.await {
            worker::console_warn!("[{}] logout: end live sockets on {document_id}: {e:?}", ctx.trace_id);
        }
    }
}

/// Answers a new session cookie for `principal`. It lasts the configured session life, and never past
/// `ends_by` (the signed token's expiry it was made from): the roles a token grants end with the token.
fn issue(req: &Request, ctx: &RequestContext, principal: &Principal, ends_by: Option<u64>) -> Result<Response, Error> {
    let key = secret(&ctx.env, secrets::MNOTE_SESSION_SECRET);
    let nonce = ids::opaque(ids::Kind::SignInNonce)?;
    let now = now_seconds();
    let expires_at = session_end(now, ctx.config.session_ttl_seconds, ends_by);
    let ttl = expires_at.saturating_sub(now);
    if ttl == 0 {
        // A token inside the clock-skew leeway of its expiry: nothing left to sign in for.
        return Err(Error::Unauthorized);
    }
    let Some(value) = key.and_then(|key| sign_session(&key, expires_at, &nonce, principal)) else {
        worker::console_error!(
            "[{}] sign-in refused: MNOTE_SESSION_SECRET is unset or shorter than 16 characters",
            ctx.trace_id
        );
        return Err(Error::Unauthorized);
    };
    let signed_in = SignedIn { ok: true, trace_id: &ctx.trace_id, expires_at, user: &principal.user };
    let mut response = json_response(&signed_in, &ctx.trace_id)?;
    let cookie = session_cookie(&value, ttl, is_https(req));
    response.headers_mut().set("set-cookie", &cookie).or_internal("set cookie", &ctx.trace_id)?;
    Ok(response)
}

/// When a session made at `now` ends: after `ttl` seconds, or at `ends_by` if that is sooner.
fn session_end(now: u64, ttl: u64, ends_by: Option<u64>) -> u64 {
    let full = now.saturating_add(ttl);
    ends_by.map_or(full, |end| full.min(end))
}

#[cfg(test)]
mod tests {
    use super::session_end;

    #[test]
    fn a_session_never_outlives_the_token_it_was_made_from() {
        assert_eq!(session_end(1_000, 43_200, None), 44_200, "the client token: the configured life");
        assert_eq!(session_end(1_000, 43_200, Some(1_090)), 1_090, "a token ending sooner caps it");
        assert_eq!(session_end(1_000, 43_200, Some(90_000)), 44_200, "a long token gets the configured life");
        assert_eq!(session_end(1_000, 43_200, Some(990)), 990, "an expired token (inside the leeway) ends it");
    }
}
