//! Browser and client auth: who may call a route, and from which origin (SPEC §10).
//!
//! A caller proves itself with either
//! - `Authorization: Bearer <MNOTE_CLIENT_TOKEN>`, for scripts and other servers, or
//! - the `mnote_session` cookie that `POST /api/auth/login {token}` issues: HttpOnly, SameSite=Strict,
//!   Path=/, valid for `MNOTE_SESSION_TTL_SECONDS`, signed with HMAC-SHA256 under `MNOTE_SESSION_SECRET`.
//!
//! Tokens and signatures are compared in constant time. State-changing requests (anything but GET and
//! HEAD) must also come from an allowed `Origin`: the request's own origin or one listed in
//! `MNOTE_ALLOWED_ORIGINS`. A request without an `Origin` header is not a browser's, so it passes only
//! with a Bearer token (a cookie alone is exactly what a forged cross-site request would carry).
//!
//! The signing and parsing here are pure functions of their inputs (secret, clock, header text), so they
//! are unit-tested natively; [`credential`] and [`check_origin`] only read them off a request. Which of
//! them a route needs is the route table's `Access`, checked by `routes::authorize` before the handler runs.

use hmac::{Hmac, Mac};
use pageai_core::Error;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use worker::Request;

use crate::config::{Config, Secret, secret, secrets};
use crate::http::RequestContext;

/// Name of the session cookie.
pub const COOKIE_NAME: &str = "mnote_session";

/// Version tag of the cookie format, so a later format can be told apart and refused.
const COOKIE_VERSION: &str = "v1";

/// A secret shorter than this cannot sign sessions: it would be guessable.
pub const MIN_SESSION_SECRET_LEN: usize = 16;

type HmacSha256 = Hmac<Sha256>;

/// How the caller proved itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// `Authorization: Bearer` with the client token.
    Bearer,
    /// A valid, unexpired session cookie.
    Cookie,
}

/// Constant-time equality of two secrets. Both sides are hashed first, so neither the contents nor the
/// length of the expected value leaks through timing.
pub fn tokens_equal(given: &str, expected: &str) -> bool {
    let a = Sha256::digest(given.as_bytes());
    let b = Sha256::digest(expected.as_bytes());
    bool::from(a.as_slice().ct_eq(b.as_slice()))
}

/// The signed cookie value for a session that expires at `expires_at` (Unix seconds). `nonce` makes
/// two sessions issued in the same second differ.
pub fn sign_session(secret: &Secret, expires_at: u64, nonce: &str) -> Option<String> {
    let payload = format!("{COOKIE_VERSION}.{expires_at}.{nonce}");
    let mac = mac_of(secret, &payload)?;
    Some(format!("{payload}.{}", hex(&mac.finalize().into_bytes())))
}

/// Whether `value` is a session signed with `secret` that is still valid at `now` (Unix seconds).
pub fn verify_session(secret: &Secret, value: &str, now: u64) -> bool {
    let mut parts = value.split('.');
    let (Some(version), Some(expires), Some(nonce), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    if version != COOKIE_VERSION {
        return false;
    }
    let Ok(expires_at) = expires.parse::<u64>() else { return false };
    let Some(signature) = unhex(signature) else { return false };
    let Some(mac) = mac_of(secret, &format!("{version}.{expires}.{nonce}")) else { return false };
    // The signature is checked before the expiry is trusted; verify_slice compares in constant time.
    mac.verify_slice(&signature).is_ok() && now < expires_at
}

fn mac_of(secret: &Secret, payload: &str) -> Option<HmacSha256> {
    if secret.expose().len() < MIN_SESSION_SECRET_LEN {
        return None;
    }
    let mut mac = HmacSha256::new_from_slice(secret.expose().as_bytes()).ok()?;
    mac.update(payload.as_bytes());
    Some(mac)
}

/// The `Set-Cookie` value that stores `value` for `max_age` seconds; `secure` on HTTPS.
pub fn session_cookie(value: &str, max_age: u64, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE_NAME}={value}; Max-Age={max_age}; Path=/; HttpOnly; SameSite=Strict{secure}")
}

/// The `Set-Cookie` value that removes the session.
pub fn cleared_cookie(secure: bool) -> String {
    session_cookie("", 0, secure)
}

/// The value of cookie `name` in a `Cookie` header.
pub fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').filter_map(|pair| pair.trim().split_once('=')).find(|(k, _)| *k == name).map(|(_, v)| v.trim())
}

/// The token of an `Authorization: Bearer …` header.
pub fn bearer(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// Whether `origin` may send state-changing requests: it is the request's own origin, or listed.
pub fn origin_allowed(origin: &str, own_origin: &str, allowed: &[String]) -> bool {
    let origin = origin.trim().trim_end_matches('/');
    origin == own_origin || allowed.iter().any(|a| a == origin)
}

/// The credential the request carries, if any is valid now.
pub fn credential(req: &Request, ctx: &RequestContext) -> Option<Credential> {
    let header = |name: &str| req.headers().get(name).ok().flatten();
    if let Some(token) = header("authorization").as_deref().and_then(bearer)
        && let Some(expected) = secret(&ctx.env, secrets::MNOTE_CLIENT_TOKEN)
        && tokens_equal(token, expected.expose())
    {
        return Some(Credential::Bearer);
    }
    let cookies = header("cookie")?;
    let value = cookie_value(&cookies, COOKIE_NAME)?;
    let key = secret(&ctx.env, secrets::MNOTE_SESSION_SECRET)?;
    verify_session(&key, value, now_seconds()).then_some(Credential::Cookie)
}

/// The request's own origin (`scheme://host[:port]`), as a browser would send it.
pub fn own_origin(req: &Request) -> Option<String> {
    let url = req.url().ok()?;
    Some(url.origin().ascii_serialization())
}

/// Whether the request arrived over HTTPS (then cookies get `Secure`).
pub fn is_https(req: &Request) -> bool {
    req.url().is_ok_and(|url| url.scheme() == "https")
}

/// Refuses a state-changing request from a foreign origin, or (holding only a cookie) from no origin: 403.
pub fn check_origin(req: &Request, config: &Config, credential: Option<Credential>) -> Result<(), Error> {
    match req.headers().get("origin").ok().flatten() {
        Some(origin) => {
            let own = own_origin(req).unwrap_or_default();
            match origin_allowed(&origin, &own, &config.allowed_origins) {
                true => Ok(()),
                false => Err(Error::ForbiddenOrigin { origin: truncate(&origin, 200) }),
            }
        }
        // Not a browser: fine for a token holder, or for signing in (which needs the token anyway).
        None if credential != Some(Credential::Cookie) => Ok(()),
        None => Err(Error::ForbiddenOrigin { origin: String::new() }),
    }
}

/// The secret Hermes presents to `/mcp` and the tool route, checked by [`require_tool_token`].
///
/// It wants `Authorization: Bearer <MNOTE_TOOL_TOKEN>`, compared in constant time, and refuses any request
/// that carries a cookie: a browser attaches cookies on its own, so a cookie means a browser, and browser
/// credentials never open the tool routes. An unset or empty secret refuses every caller.
pub fn require_tool_token(req: &Request, env: &worker::Env) -> Result<(), Error> {
    let headers = req.headers();
    if headers.get("cookie").ok().flatten().is_some() {
        return Err(Error::Unauthorized);
    }
    let expected = env.secret(crate::config::TOOL_TOKEN_SECRET).map(|s| s.to_string()).unwrap_or_default();
    let given = headers.get("authorization").ok().flatten();
    match (expected.is_empty(), given.as_deref().and_then(bearer)) {
        (false, Some(token)) if tokens_equal(token, &expected) => Ok(()),
        _ => Err(Error::Unauthorized),
    }
}

/// For `/mcp` (SPEC: validate `Origin` when present): refuses an `Origin` that is not the request's own or
/// an allowed one.
pub fn check_tool_origin(req: &Request, ctx: &RequestContext) -> Result<(), Error> {
    match req.headers().get("origin").ok().flatten() {
        Some(origin) => {
            let own = own_origin(req).unwrap_or_default();
            match origin != "null" && origin_allowed(&origin, &own, &ctx.config.allowed_origins) {
                true => Ok(()),
                false => Err(Error::ForbiddenOrigin { origin: truncate(&origin, 200) }),
            }
        }
        None => Ok(()),
    }
}

/// Now, in Unix seconds, from the runtime clock.
pub fn now_seconds() -> u64 {
    (js_sys::Date::now() / 1000.0) as u64
}

fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| text.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok())).collect()
}

#[cfg(test)]
#[allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "a failed expectation is the test's report"
)]
mod tests {
    use super::*;

    fn key() -> Secret {
        Secret::new("a-session-secret-of-some-length")
    }

    #[test]
    fn a_signed_session_verifies_until_it_expires() {
        let value = sign_session(&key(), 1_000, "n1").unwrap_or_default();
        assert!(value.starts_with("v1.1000.n1."), "{value}");
        assert!(verify_session(&key(), &value, 999));
        assert!(!verify_session(&key(), &value, 1_000), "expired at its expiry");
        assert!(!verify_session(&Secret::new("another-secret-of-some-length"), &value, 10), "other key");
    }

    #[test]
    fn tampered_or_malformed_sessions_fail() {
        let value = sign_session(&key(), 5_000, "n1").unwrap_or_default();
        let later = value.replace("v1.5000.", "v1.9999.");
        assert!(!verify_session(&key(), &later, 10), "a longer expiry needs a new signature");
        let mut flipped = value.clone();
        let last = flipped.pop().map(|c| if c == '0' { '1' } else { '0' }).unwrap_or('0');
        flipped.push(last);
        assert!(!verify_session(&key(), &flipped, 10));
        for bad in [
            "",
            "v1",
            "v1.5000.n1",
            "v2.5000.n1.00",
            "v1.x.n1.00",
            "v1.5000.n1.zz",
            "v1.5000.n1.0",
            &format!("{value}.x"),
        ] {
            assert!(!verify_session(&key(), bad, 10), "{bad:?}");
        }
    }

    #[test]
    fn short_secrets_cannot_sign() {
        assert_eq!(sign_session(&Secret::new("short"), 5_000, "n"), None);
        assert!(!verify_session(&Secret::new("short"), "v1.5000.n.00", 10));
    }

    #[test]
    fn tokens_compare_exactly() {
        assert!(tokens_equal("client-token-1234", "client-token-1234"));
        assert!(!tokens_equal("client-token-1235", "client-token-1234"));
        assert!(!tokens_equal("client-token-123", "client-token-1234"));
        assert!(!tokens_equal("", "client-token-1234"));
    }

    #[test]
    fn headers_parse() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer  abc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearer "), None);
        assert_eq!(cookie_value("a=1; mnote_session=v1.2.3.4; b=2", COOKIE_NAME), Some("v1.2.3.4"));
        assert_eq!(cookie_value("xmnote_session=1", COOKIE_NAME), None);
    }

    #[test]
    fn cookies_are_http_only_strict_and_expire() {
        let cookie = session_cookie("v", 60, false);
        assert_eq!(cookie, "mnote_session=v; Max-Age=60; Path=/; HttpOnly; SameSite=Strict");
        assert!(session_cookie("v", 60, true).ends_with("; Secure"));
        assert!(cleared_cookie(false).contains("Max-Age=0"));
    }

    #[test]
    fn origins_are_own_or_listed() {
        let allowed = vec!["https://app.example".to_string()];
        assert!(origin_allowed("http://127.0.0.1:8787", "http://127.0.0.1:8787", &allowed));
        assert!(origin_allowed("https://app.example/", "http://127.0.0.1:8787", &allowed));
        assert!(!origin_allowed("https://evil.example", "http://127.0.0.1:8787", &allowed));
        assert!(!origin_allowed("null", "http://127.0.0.1:8787", &allowed));
    }
}
