//! Browser and client auth: who may call a route, and from which origin (SPEC §10).
//!
//! A caller proves itself with one of
//! - `Authorization: Bearer <MNOTE_CLIENT_TOKEN>`, for scripts and other servers (single-user mode);
//! - `Authorization: Bearer <JWT>`, a signed token of a configured identity provider ([`crate::identity::jwt`]);
//! - the `mnote_session` cookie that `POST /api/auth/login {token}` (client token), `POST /api/auth/session
//!   {token}` (a JWT) or dev-login issues: HttpOnly, SameSite=Strict, Path=/, valid for
//!   `MNOTE_SESSION_TTL_SECONDS`, signed with HMAC-SHA256 under `MNOTE_SESSION_SECRET`. It carries the
//!   signed-in [`Principal`] (user id and roles by workspace), so a request needs no second look-up.
//!
//! Tokens and signatures are compared in constant time. State-changing requests (anything but GET and
//! HEAD) must also come from an allowed `Origin`: one of the Worker's own (`MNOTE_PUBLIC_ORIGIN`) or one
//! listed in `MNOTE_ALLOWED_ORIGINS`. The Worker's own origin is configured, never read off the request's
//! `Host`: a page on `evil.example` whose name was rebound to 127.0.0.1 sends `Host: evil.example` and the
//! matching `Origin`. A request without an `Origin` header is not a browser's, so it passes only with a
//! Bearer token (a cookie alone is exactly what a forged cross-site request would carry).
//!
//! Failed credential checks are counted per client and slow it down (`durable::guard`): a wrong client
//! token, at sign-in or as a Bearer token, past the free ones locks the client out for a doubling wait.
//! Logout revokes the session's cookie there too, so a copy of it stops working at once.
//!
//! The signing and parsing here are pure functions of their inputs (secret, clock, header text), so they
//! are unit-tested natively; [`credential`] and [`check_origin`] only read them off a request. Which of
//! them a route needs is the route table's `Access`, checked by `routes::authorize` before the handler runs.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use pageai_core::Error;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use worker::Request;

use crate::config::{Config, JwtConfig, JwtKeys, Secret, secret, secrets};
use crate::durable::guard::{Guards, client_key};
use crate::http::RequestContext;
use crate::identity::{Principal, jwks, jwt, webcrypto};

/// Name of the session cookie.
pub const COOKIE_NAME: &str = "mnote_session";

/// Version tag of the cookie format, so a later format can be told apart and refused.
const COOKIE_VERSION: &str = "v2";

/// A secret shorter than this cannot sign sessions: it would be guessable.
pub const MIN_SESSION_SECRET_LEN: usize = crate::config::MIN_SECRET_LEN;

type HmacSha256 = Hmac<Sha256>;

/// How the caller proved itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// `Authorization: Bearer` with the client token or a signed token.
    Bearer,
    /// A valid, unexpired session cookie.
    Cookie,
}

/// A caller whose credential checked out: how, and who.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// How the caller proved itself.
    pub credential: Credential,
    /// Who it is.
    pub principal: Principal,
}

/// Constant-time equality of two secrets. Both sides are hashed first, so neither the contents nor the
/// length of the expected value leaks through timing.
pub fn tokens_equal(given: &str, expected: &str) -> bool {
    let a = Sha256::digest(given.as_bytes());
    let b = Sha256::digest(expected.as_bytes());
    bool::from(a.as_slice().ct_eq(b.as_slice()))
}

/// The signed cookie value for `principal`'s session that expires at `expires_at` (Unix seconds). `nonce`
/// makes two sessions issued in the same second differ.
pub fn sign_session(secret: &Secret, expires_at: u64, nonce: &str, principal: &Principal) -> Option<String> {
    let who = URL_SAFE_NO_PAD.encode(serde_json::to_vec(principal).ok()?);
    let payload = format!("{COOKIE_VERSION}.{expires_at}.{nonce}.{who}");
    let mac = mac_of(secret, &payload)?;
    Some(format!("{payload}.{}", hex(&mac.finalize().into_bytes())))
}

/// A session cookie whose signature checked out and which had not expired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// Names the session: what logout revokes.
    pub nonce: String,
    /// When the cookie stops working anyway, Unix seconds.
    pub expires_at: u64,
    /// Who signed in.
    pub principal: Principal,
}

/// The session of `value`, if it is signed with `secret` and still valid at `now` (Unix seconds). It may
/// still have been revoked by logout: [`credential`] asks.
pub fn session_of(secret: &Secret, value: &str, now: u64) -> Option<Session> {
    let mut parts = value.split('.');
    let (Some(version), Some(expires), Some(nonce), Some(who), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    if version != COOKIE_VERSION {
        return None;
    }
    let expires_at = expires.parse::<u64>().ok()?;
    let signature = unhex(signature)?;
    let mac = mac_of(secret, &format!("{version}.{expires}.{nonce}.{who}"))?;
    // The signature is checked before anything in the cookie is trusted; verify_slice compares in
    // constant time.
    if mac.verify_slice(&signature).is_err() || now >= expires_at {
        return None;
    }
    let principal = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(who).ok()?).ok()?;
    Some(Session { nonce: nonce.to_string(), expires_at, principal })
}

/// Whether `value` is a session signed with `secret` that is still valid at `now` (Unix seconds).
pub fn verify_session(secret: &Secret, value: &str, now: u64) -> bool {
    session_of(secret, value, now).is_some()
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

/// Whether `origin` may send state-changing requests: it is one of the Worker's own, or listed.
pub fn origin_allowed(origin: &str, config: &Config) -> bool {
    let origin = origin.trim().trim_end_matches('/');
    config.public_origins.iter().chain(&config.allowed_origins).any(|a| a == origin)
}

/// Whether a Bearer token has a JWT's shape (three dot-separated parts); the client token is then not
/// compared against it.
pub fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3
}

/// The caller the request's credential proves, if any is valid now. A Bearer token (the client token, or a
/// signed token when those are configured) is checked through the client's guard: a wrong one counts as
/// a failed sign-in, and while the client is locked out none is checked (`mnote_too_many_attempts`). A
/// cookie must be signed, unexpired, and not signed out.
pub async fn credential(req: &Request, ctx: &RequestContext) -> Result<Option<Caller>, Error> {
    let header = |name: &str| req.headers().get(name).ok().flatten();
    if let Some(token) = header("authorization").as_deref().and_then(bearer) {
        let principal = match (&ctx.config.jwt, looks_like_jwt(token)) {
            (Some(config), true) => Some(signed_token(token, config, ctx).await.map(|v| v.principal)),
            _ => secret(&ctx.env, secrets::MNOTE_CLIENT_TOKEN)
                .map(|expected| tokens_equal(token, expected.expose()).then(Principal::single_user)),
        };
        if let Some(principal) = principal {
            record_attempt(req, ctx, principal.is_some()).await?;
            if let Some(principal) = principal {
                return Ok(Some(Caller { credential: Credential::Bearer, principal }));
            }
        }
        // A refused Bearer token is the answer, even next to a valid cookie: a client that sends a token
        // means that one, and must learn that it no longer works rather than act as someone else.
        return Ok(None);
    }
    let Some(session) = session(req, ctx) else { return Ok(None) };
    let revoked =
        Guards::new(&ctx.env, &ctx.trace_id)?.is_revoked(&session.nonce, now_seconds(), &ctx.trace_id).await?;
    Ok((!revoked).then_some(Caller { credential: Credential::Cookie, principal: session.principal }))
}

/// The principal a signed token names and its expiry, if it checks out against the configured keys; why
/// not is logged (never answered: the caller only learns that it was refused).
pub async fn signed_token(token: &str, config: &JwtConfig, ctx: &RequestContext) -> Option<jwt::Verified> {
    let expected = jwt::Expected { issuer: config.issuer.clone(), audience: config.audience.clone() };
    let keys = match &config.keys {
        JwtKeys::Fixed(json) => match serde_json::from_str(json) {
            Ok(keys) => keys,
            Err(e) => {
                worker::console_error!("[{}] MNOTE_JWT_KEYS is not a JWK set: {e}", ctx.trace_id);
                return None;
            }
        },
        JwtKeys::Url(url) => {
            let kid = jwt::key_id(token).ok().flatten();
            let now = now_seconds();
            jwks::keys_for(url, kid.as_deref(), now, config.min_refresh_seconds, &ctx.trace_id).await.ok()?
        }
    };
    let verified = match jwt::check(token, &keys, &expected, now_seconds()) {
        Ok(unverified) => match webcrypto::verify(&unverified.signature).await {
            Ok(valid) => unverified.finish(valid),
            Err(e) => Err(jwt::Refusal::Rejected(e)),
        },
        Err(refusal) => Err(refusal),
    };
    match verified {
        Ok(verified) => Some(verified),
        Err(refusal) => {
            worker::console_warn!("[{}] signed token refused: {refusal:?}", ctx.trace_id);
            None
        }
    }
}

/// The valid session of the request's cookie, revoked or not.
pub fn session(req: &Request, ctx: &RequestContext) -> Option<Session> {
    let cookies = req.headers().get("cookie").ok().flatten()?;
    let value = cookie_value(&cookies, COOKIE_NAME)?;
    let key = secret(&ctx.env, secrets::MNOTE_SESSION_SECRET)?;
    session_of(&key, value, now_seconds())
}

/// Counts one check of the client token of this request's client; refuses it while the client is locked.
/// In local development no Cloudflare edge sets `CF-Connecting-IP`, so a client could pick its own: there
/// every request is the one local client.
pub async fn record_attempt(req: &Request, ctx: &RequestContext, succeeded: bool) -> Result<(), Error> {
    let ip = match ctx.config.dev_auto_login {
        true => None,
        false => req.headers().get("cf-connecting-ip").ok().flatten(),
    };
    let client = client_key(ip.as_deref());
    let guards = Guards::new(&ctx.env, &ctx.trace_id)?;
    guards.attempt(&client, succeeded, ctx.config.sign_in, now_seconds(), &ctx.trace_id).await
}

/// Whether `host` (a `Host` header: a name or address, with an optional port) names this machine:
/// `localhost`, `127.0.0.1` or `[::1]`.
pub fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map(|(address, _)| address),
        None => host.split(':').next(),
    };
    matches!(name.map(str::to_ascii_lowercase).as_deref(), Some("localhost" | "127.0.0.1" | "::1"))
}

/// For dev-login: the request names this machine in its `Host`, and that host is one of the Worker's
/// configured origins (so a rebound name, which sends its own `Host`, never passes).
pub fn is_own_loopback_host(host: &str, https: bool, config: &Config) -> bool {
    let scheme = if https { "https" } else { "http" };
    let origin = format!("{scheme}://{}", host.trim().to_ascii_lowercase());
    is_loopback_host(host.trim()) && config.public_origins.iter().any(|o| o.eq_ignore_ascii_case(&origin))
}

/// Whether the request arrived over HTTPS (then cookies get `Secure`).
pub fn is_https(req: &Request) -> bool {
    req.url().is_ok_and(|url| url.scheme() == "https")
}

/// Refuses a state-changing request from a foreign origin, or (holding only a cookie) from no origin: 403.
pub fn check_origin(req: &Request, config: &Config, credential: Option<Credential>) -> Result<(), Error> {
    match req.headers().get("origin").ok().flatten() {
        Some(origin) => match origin_allowed(&origin, config) {
            true => Ok(()),
            false => Err(Error::ForbiddenOrigin { origin: truncate(&origin, 200) }),
        },
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
    let expected = secret(env, secrets::MNOTE_TOOL_TOKEN);
    let given = headers.get("authorization").ok().flatten();
    match (expected, given.as_deref().and_then(bearer)) {
        (Some(expected), Some(token)) if tokens_equal(token, expected.expose()) => Ok(()),
        _ => Err(Error::Unauthorized),
    }
}

/// For `/mcp` (SPEC: validate `Origin` when present): refuses an `Origin` that is not one of the Worker's
/// own or an allowed one.
pub fn check_tool_origin(req: &Request, ctx: &RequestContext) -> Result<(), Error> {
    match req.headers().get("origin").ok().flatten() {
        Some(origin) => match origin != "null" && origin_allowed(&origin, &ctx.config) {
            true => Ok(()),
            false => Err(Error::ForbiddenOrigin { origin: truncate(&origin, 200) }),
        },
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

    fn who() -> Principal {
        Principal::single_user()
    }

    #[test]
    fn another_principal_needs_a_new_signature() {
        let value = sign_session(&key(), 5_000, "n1", &who()).unwrap_or_default();
        let other = Principal { user: "mallory".into(), ..who() };
        let forged_who = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&other).unwrap());
        let mut parts: Vec<&str> = value.split('.').collect();
        parts[3] = &forged_who;
        assert!(!verify_session(&key(), &parts.join("."), 10));
        assert!(looks_like_jwt("a.b.c") && !looks_like_jwt("client-token-1234"));
    }

    fn key() -> Secret {
        Secret::new("a-session-secret-of-some-length")
    }

    #[test]
    fn a_signed_session_verifies_until_it_expires() {
        let value = sign_session(&key(), 1_000, "n1", &who()).unwrap_or_default();
        assert!(value.starts_with("v2.1000.n1."), "{value}");
        assert_eq!(session_of(&key(), &value, 999).map(|s| s.principal), Some(who()), "it carries who signed in");
        assert!(verify_session(&key(), &value, 999));
        assert!(!verify_session(&key(), &value, 1_000), "expired at its expiry");
        assert!(!verify_session(&Secret::new("another-secret-of-some-length"), &value, 10), "other key");
    }

    #[test]
    fn tampered_or_malformed_sessions_fail() {
        let value = sign_session(&key(), 5_000, "n1", &who()).unwrap_or_default();
        let later = value.replace("v2.5000.", "v2.9999.");
        assert!(!verify_session(&key(), &later, 10), "a longer expiry needs a new signature");
        let mut flipped = value.clone();
        let last = flipped.pop().map(|c| if c == '0' { '1' } else { '0' }).unwrap_or('0');
        flipped.push(last);
        assert!(!verify_session(&key(), &flipped, 10));
        for bad in [
            "",
            "v2",
            "v2.5000.n1",
            "v2.5000.n1.e30.00",
            "v1.5000.n1.00",
            "v2.x.n1.e30.00",
            "v2.5000.n1.e30.zz",
            "v2.5000.n1.e30.0",
            &format!("{value}.x"),
        ] {
            assert!(!verify_session(&key(), bad, 10), "{bad:?}");
        }
    }

    #[test]
    fn short_secrets_cannot_sign() {
        assert_eq!(sign_session(&Secret::new("short"), 5_000, "n", &who()), None);
        assert!(!verify_session(&Secret::new("short"), "v2.5000.n.e30.00", 10));
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

    fn config(public: &[&str], allowed: &[&str]) -> Config {
        let strings = |list: &[&str]| list.iter().map(|o| o.to_string()).collect();
        Config {
            max_body_bytes: 1,
            hermes_upstream_url: None,
            hermes_timeout_ms: 1,
            hermes_stream_idle_ms: 1,
            public_origins: strings(public),
            allowed_origins: strings(allowed),
            default_profile: pageai_core::profile::Profile::default(),
            context_ttl_seconds: 1,
            context_max_chars: 1,
            session_ttl_seconds: 1,
            dev_auto_login: true,
            sign_in: crate::config::SignInLimits { free_failures: 1, lock_seconds: 1, max_lock_seconds: 1 },
            jwt: None,
            live_max_sockets: 1,
        }
    }

    #[test]
    fn origins_are_configured_own_or_listed() {
        let config = config(&["http://127.0.0.1:8787"], &["https://app.example"]);
        assert!(origin_allowed("http://127.0.0.1:8787", &config));
        assert!(origin_allowed("https://app.example/", &config));
        assert!(!origin_allowed("https://evil.example", &config));
        assert!(!origin_allowed("http://evil.example:8787", &config), "a rebound name is not the Worker's own");
        assert!(!origin_allowed("null", &config));
        assert!(!origin_allowed("http://127.0.0.1:8787", &self::config(&[], &[])), "nothing configured, nothing own");
    }

    #[test]
    fn dev_login_hosts_are_loopback_and_configured() {
        for host in ["127.0.0.1:8787", "localhost:8787", "LOCALHOST", "[::1]:8787", "[::1]"] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in
            ["evil.example:8787", "127.0.0.1.evil.example", "localhost.evil.example:8787", "[::2]:1", "", "0.0.0.0"]
        {
            assert!(!is_loopback_host(host), "{host}");
        }
        let config = config(&["http://127.0.0.1:8787", "http://localhost:8787"], &["https://app.example"]);
        assert!(is_own_loopback_host("127.0.0.1:8787", false, &config));
        assert!(is_own_loopback_host("localhost:8787", false, &config));
        assert!(!is_own_loopback_host("127.0.0.1:8788", false, &config), "another port is not this Worker");
        assert!(!is_own_loopback_host("127.0.0.1:8787", true, &config), "nor another scheme");
        assert!(!is_own_loopback_host("evil.example:8787", false, &config));
        let rebound = self::config(&["http://evil.example:8787"], &[]);
        assert!(!is_own_loopback_host("evil.example:8787", false, &rebound), "configured, but not loopback");
    }

    #[test]
    fn a_session_names_its_nonce_and_expiry() {
        let value = sign_session(&key(), 5_000, "n1", &who()).unwrap_or_default();
        assert_eq!(
            session_of(&key(), &value, 10),
            Some(Session { nonce: "n1".into(), expires_at: 5_000, principal: who() })
        );
        assert_eq!(session_of(&key(), &value, 5_000), None);
    }
}
