//! The security headers of every answer the Worker gives (the API, `/health`, `/mcp`, coded 404s), added in
//! one place, [`harden`]. Static assets get theirs from `web-demo/_headers`, which Workers static assets
//! apply before the Worker runs.
//!
//! An API answer is JSON, SSE or Markdown text, never a page: its policy lets it load nothing and be framed
//! by nothing, and the browser must not guess another content type.

use worker::{Headers, Response};

/// The Content-Security-Policy of an API answer.
pub const API_CONTENT_SECURITY_POLICY: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/// Every header [`harden`] sets, with its value.
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("content-security-policy", API_CONTENT_SECURITY_POLICY),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
];

/// `response` with the security headers added (the body, a stream included, is untouched). A response
/// that came from elsewhere (a Durable Object's, relayed) has immutable headers, so they are copied.
pub fn harden(response: Response) -> worker::Result<Response> {
    let headers = Headers::new();
    for (name, value) in response.headers().entries() {
        headers.append(&name, &value)?;
    }
    for (name, value) in SECURITY_HEADERS {
        headers.set(name, value)?;
    }
    Ok(response.with_headers(headers))
}
