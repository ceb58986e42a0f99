//! Who may call a route.
//!
//! Two kinds of caller, kept strictly apart:
//!
//! - **Browsers** (the web demo, the editor): [`require_browser`]. For now it checks only that a
//!   state-changing request (anything but `GET`, `HEAD`, `OPTIONS`) that carries an `Origin` comes from the
//!   request's own origin, which stops a cross-site page from writing. The signed session cookie / Bearer
//!   client token check and `MNOTE_ALLOWED_ORIGINS` land with the Hermes proxy branch, inside this same
//!   function, so every browser route already calls the one place that will enforce them.
//! - **Hermes** (the MCP endpoint and the plain tool route): [`require_tool_token`]. It wants
//!   `Authorization: Bearer <MNOTE_TOOL_TOKEN>`, compared in constant time, and refuses any request that
//!   carries a cookie: a browser attaches cookies on its own, so a cookie means a browser, and browser
//!   credentials never open the tool routes.
//!
//! The checks are pure functions of header text ([`same_origin`], [`bearer_token`], [`tokens_equal`]), unit
//! tested natively; the `require_*` functions only read them off a request. Neither the token nor the
//! header that carried it is ever logged or echoed.

use pageai_core::Error;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use worker::{Env, Method, Request};

use crate::config::TOOL_TOKEN_SECRET;
use crate::error::OrInternal;
use crate::routes::RequestContext;

/// Checks a browser-facing request. See the module docs for what it covers today.
pub fn require_browser(req: &Request, ctx: &RequestContext) -> Result<(), Error> {
    if matches!(req.method(), Method::Get | Method::Head | Method::Options) {
        return Ok(());
    }
    check_origin(req, &ctx.trace_id)
}

/// Refuses a request whose `Origin` header, when present, is not the request's own origin.
pub fn check_origin(req: &Request, trace_id: &str) -> Result<(), Error> {
    let Some(origin) = req.headers().get("origin").ok().flatten() else {
        return Ok(());
    };
    let url = req.url().or_internal("parse request URL", trace_id)?;
    match same_origin(&origin, &url) {
        true => Ok(()),
        false => Err(Error::ForbiddenOrigin { origin: printable(&origin) }),
    }
}

/// Checks the tool credential: no cookie, and `Authorization: Bearer` equal to `MNOTE_TOOL_TOKEN`.
///
/// An unset or empty secret refuses every caller: the tool routes never run open.
pub fn require_tool_token(req: &Request, env: &Env) -> Result<(), Error> {
    let headers = req.headers();
    if headers.get("cookie").ok().flatten().is_some() {
        return Err(Error::Unauthorized);
    }
    let expected = env.secret(TOOL_TOKEN_SECRET).map(|s| s.to_string()).unwrap_or_default();
    let given = headers.get("authorization").ok().flatten();
    match (expected.is_empty(), given.as_deref().and_then(bearer_token)) {
        (false, Some(token)) if tokens_equal(token, &expected) => Ok(()),
        _ => Err(Error::Unauthorized),
    }
}

/// The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if that is its form.
pub fn bearer_token(header: &str) -> Option<&str> {
    let (scheme, token) = header.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Constant-time equality of two secrets. Both sides are hashed first, so neither the contents nor the
/// length of the expected value leaks through timing.
pub fn tokens_equal(given: &str, expected: &str) -> bool {
    let a = Sha256::digest(given.as_bytes());
    let b = Sha256::digest(expected.as_bytes());
    bool::from(a.as_slice().ct_eq(b.as_slice()))
}

/// Whether an `Origin` header names the origin (scheme, host, port) of `url`.
pub fn same_origin(origin: &str, url: &worker::Url) -> bool {
    let origin = origin.trim();
    // `Origin: null` (sandboxed frames, file pages) never matches.
    origin != "null" && origin.eq_ignore_ascii_case(&url.origin().ascii_serialization())
}

/// An origin as it may appear in an error body: bounded, printable ASCII only.
fn printable(origin: &str) -> String {
    origin.chars().filter(|c| c.is_ascii_graphic()).take(200).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> worker::Url {
        worker::Url::parse(s).unwrap_or_else(|e| unreachable!("{s}: {e}"))
    }

    #[test]
    fn same_origin_compares_scheme_host_and_port() {
        let here = url("http://127.0.0.1:8787/api/profile");
        assert!(same_origin("http://127.0.0.1:8787", &here));
        assert!(same_origin("HTTP://127.0.0.1:8787", &here));
        for other in ["http://127.0.0.1:8788", "https://127.0.0.1:8787", "http://evil.example", "null", ""] {
            assert!(!same_origin(other, &here), "{other}");
        }
        assert!(same_origin("https://notes.example", &url("https://notes.example/mcp")));
    }

    #[test]
    fn bearer_tokens_are_read_strictly() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer  abc "), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
        assert_eq!(bearer_token("Bearer "), None);
    }

    #[test]
    fn tokens_compare_by_value() {
        assert!(tokens_equal("s3cret-token-0123", "s3cret-token-0123"));
        assert!(!tokens_equal("s3cret-token-0124", "s3cret-token-0123"));
        assert!(!tokens_equal("s3cret", "s3cret-token-0123"));
        assert!(!tokens_equal("", "x"));
    }

    #[test]
    fn printed_origins_are_bounded() {
        assert_eq!(printable("http://a\r\nb"), "http://ab");
        assert_eq!(printable(&"x".repeat(500)).len(), 200);
    }
}
