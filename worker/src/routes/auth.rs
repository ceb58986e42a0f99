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
//! - `logout` revokes the session (a copy of the cookie stops working too) and clears the cookie.

use pageai_core::{Error, wire};
use serde::{Deserialize, Serialize};
use worker::{Request, Response};

use crate::auth::{
    cleared_cookie, is_https, is_own_loopback_host, now_seconds, record_attempt, session, session_cookie, sign_session,
    tokens_equal,
};
use crate::config::{secret, secrets};
use crate::durable::guard::Guards;
use crate::error::{Failure, OrInternal};
use crate::http::{RequestContext, json_response, read_body};
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
    let body: LoginBody = wire::from_json(text)?;
    let Some(expected) = secret(&ctx.env, secrets::MNOTE_CLIENT_TOKEN) else {
        worker::console_error!("[{}] sign-in refused: MNOTE_CLIENT_TOKEN is not set", ctx.trace_id);
        return Err(Error::Unauthorized.into());
    };
    let right = tokens_equal(&body.token, expected.expose());
    record_attempt(&req, ctx, right).await?;
    if !right {
        return Err(Error::Unauthorized.into());
    }
    Ok(issue(&req, ctx)?)
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
    Ok(issue(req, ctx)?)
}

/// Revokes the request's session, if it has a valid one, and clears the cookie.
pub async fn logout(req: &Request, ctx: &RequestContext) -> Result<Response, Failure> {
    if let Some(session) = session(req, ctx) {
        let guards = Guards::new(&ctx.env, &ctx.trace_id)?;
        guards.revoke(&session.nonce, session.expires_at, now_seconds(), &ctx.trace_id).await?;
    }
    let mut response = json_response(&SignedOut { ok: true, trace_id: &ctx.trace_id }, &ctx.trace_id)?;
    response
        .headers_mut()
        .set("set-cookie", &cleared_cookie(is_https(req)))
        .or_internal("set cookie", &ctx.trace_id)?;
    Ok(response)
}

fn issue(req: &Request, ctx: &RequestContext) -> Result<Response, Error> {
    let key = secret(&ctx.env, secrets::MNOTE_SESSION_SECRET);
    let nonce = ids::mint("", 12)?;
    let ttl = ctx.config.session_ttl_seconds;
    let expires_at = now_seconds().saturating_add(ttl);
    let Some(value) = key.and_then(|key| sign_session(&key, expires_at, &nonce)) else {
        worker::console_error!(
            "[{}] sign-in refused: MNOTE_SESSION_SECRET is unset or shorter than 16 characters",
            ctx.trace_id
        );
        return Err(Error::Unauthorized);
    };
    let mut response = json_response(&SignedIn { ok: true, trace_id: &ctx.trace_id, expires_at }, &ctx.trace_id)?;
    let cookie = session_cookie(&value, ttl, is_https(req));
    response.headers_mut().set("set-cookie", &cookie).or_internal("set cookie", &ctx.trace_id)?;
    Ok(response)
}
