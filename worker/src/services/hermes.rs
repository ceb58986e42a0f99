//! The upstream side of the Hermes client proxy: one authenticated HTTP client for the Hermes Agent
//! API server (SPEC §10), and the mapping of whatever Hermes answers to the proxy's coded errors.
//!
//! - The base URL is `HERMES_UPSTREAM_URL`; unset, every call is `hermes_client_unconfigured`.
//! - Every call carries `Authorization: Bearer <HERMES_API_KEY>` and the request's `x-trace-id`.
//! - The key is held as a [`Secret`] and never formatted into a log line, an error or a response. Hermes'
//!   own error messages are passed on only after the key is scrubbed from them ([`redact`]).
//! - Each call is bounded by `HERMES_TIMEOUT_MS`; for the event stream the bound covers the headers, and
//!   silence after that is bounded by `HERMES_STREAM_IDLE_MS` (see [`sse::pipe`]).
//!
//! Status mapping ([`upstream_error`]): 401/403 → `hermes_client_upstream_unauthorized` (502); 429 →
//! `hermes_client_upstream_rate_limited` (429, with `Retry-After`); 5xx, refused connections, timeouts
//! and unreadable bodies → `hermes_client_upstream_unavailable` (502, 504 for a timeout); any other 4xx
//! with Hermes' `{error:{message,type,code}}` body means the request named something Hermes does not
//! have, → `hermes_client_bad_request` (400). A 4xx without that body means the URL is not a Hermes API
//! server at all, so it counts as unavailable.

pub mod instructions;
pub mod sse;
pub mod wire;

use std::time::Duration;

use futures_util::future::{Either, select};
use futures_util::pin_mut;
use pageai_core::Error;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use worker::web_sys::ReadableStream;
use worker::{AbortController, Delay, Fetch, Headers, Method, Request, RequestInit, Response, ResponseBody};

use crate::config::{Secret, secret, secrets};
use crate::error::TRACE_HEADER;
use crate::http::RequestContext;

/// Longest piece of an upstream message passed on to a client.
const MAX_UPSTREAM_MESSAGE_CHARS: usize = 300;

/// A client for the configured Hermes API server, bound to one request's trace id.
#[derive(Debug)]
pub struct Hermes {
    base: String,
    key: Option<Secret>,
    timeout_ms: u64,
    trace_id: String,
}

/// One upstream answer, read whole.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// `Retry-After`, when present.
    pub retry_after: Option<String>,
    /// The body text.
    pub text: String,
}

impl Hermes {
    /// The client for this request, or `hermes_client_unconfigured` when no upstream is set.
    pub fn new(ctx: &RequestContext) -> Result<Self, Error> {
        let base = ctx.config.hermes_upstream_url.as_deref().ok_or(Error::HermesUnconfigured)?;
        let key = secret(&ctx.env, secrets::HERMES_API_KEY);
        if key.is_none() {
            worker::console_warn!("[{}] HERMES_API_KEY is not set; Hermes will refuse the proxy", ctx.trace_id);
        }
        Ok(Hermes {
            base: base.trim_end_matches('/').to_string(),
            key,
            timeout_ms: ctx.config.hermes_timeout_ms,
            trace_id: ctx.trace_id.clone(),
        })
    }

    /// `GET path` and decode a 2xx JSON answer.
    pub async fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, Error> {
        self.send(Method::Get, path, None::<&()>).await?.json(self)
    }

    /// `POST path` with a JSON body, and decode a 2xx JSON answer.
    pub async fn post_json<T: DeserializeOwned>(&self, path: &str, body: &impl Serialize) -> Result<T, Error> {
        self.send(Method::Post, path, Some(body)).await?.json(self)
    }

    /// Sends one request and reads the whole answer, whatever its status, within the timeout.
    pub async fn send(&self, method: Method, path: &str, body: Option<&impl Serialize>) -> Result<Answer, Error> {
        let body = match body {
            Some(body) => Some(serde_json::to_string(body).map_err(|e| self.unavailable(format!("encode: {e}")))?),
            None => None,
        };
        let request = self.request(method, path, body)?;
        let controller = AbortController::default();
        let signal = controller.signal();
        let call = async {
            let mut response = Fetch::Request(request).send_with_signal(&signal).await?;
            let text = response.text().await?;
            Ok::<_, worker::Error>((response, text))
        };
        let (response, text) = self.within_timeout(call, controller, path).await?;
        Ok(Answer { status: response.status_code(), retry_after: retry_after(&response), text })
    }

    /// Opens `GET path` as an event stream; the timeout covers the answer's headers only.
    pub async fn open_stream(&self, path: &str) -> Result<ReadableStream, Error> {
        let request = self.request(Method::Get, path, None)?;
        request.headers().set("accept", "text/event-stream").map_err(|e| self.unavailable(e))?;
        let controller = AbortController::default();
        let signal = controller.signal();
        let fetch = Fetch::Request(request);
        let call = fetch.send_with_signal(&signal);
        let mut response = self.within_timeout(call, controller, path).await?;
        if response.status_code() != 200 {
            let text = response.text().await.unwrap_or_default();
            let answer = Answer { status: response.status_code(), retry_after: retry_after(&response), text };
            return Err(upstream_error(&answer, self.key.as_ref()));
        }
        match response.body() {
            ResponseBody::Stream(body) => Ok(body.clone()),
            ResponseBody::Empty | ResponseBody::Body(_) => Err(self.unavailable("the event stream has no body")),
        }
    }

    /// The id of this request's trace, as sent upstream.
    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    fn request(&self, method: Method, path: &str, body: Option<String>) -> Result<Request, Error> {
        let headers = Headers::new();
        let set = |name: &str, value: &str| headers.set(name, value).map_err(|e| self.unavailable(e));
        set("accept", "application/json")?;
        set(TRACE_HEADER, &self.trace_id)?;
        if let Some(key) = &self.key {
            set("authorization", &format!("Bearer {}", key.expose()))?;
        }
        if body.is_some() {
            set("content-type", "application/json")?;
        }
        let mut init = RequestInit::new();
        init.with_method(method).with_headers(headers);
        if let Some(body) = body {
            init.with_body(Some(body.into()));
        }
        let url = format!("{}{path}", self.base);
        Request::new_with_init(&url, &init).map_err(|e| self.unavailable(format!("bad upstream URL: {e}")))
    }

    async fn within_timeout<T>(
        &self,
        call: impl Future<Output = worker::Result<T>>,
        controller: AbortController,
        path: &str,
    ) -> Result<T, Error> {
        let timer = Delay::from(Duration::from_millis(self.timeout_ms));
        pin_mut!(call);
        match select(call, timer).await {
            Either::Left((Ok(value), _)) => Ok(value),
            Either::Left((Err(e), _)) => {
                let path = path_only(path);
                worker::console_error!("[{}] Hermes {path}: connection failed: {e}", self.trace_id);
                Err(Error::HermesUpstreamUnavailable {
                    reason: "the connection to Hermes failed".into(),
                    status: None,
                    timed_out: false,
                })
            }
            Either::Right(((), _)) => {
                controller.abort();
                let path = path_only(path);
                worker::console_error!("[{}] Hermes {path}: no answer within {} ms", self.trace_id, self.timeout_ms);
                Err(Error::HermesUpstreamUnavailable {
                    reason: format!("no answer within {} ms", self.timeout_ms),
                    status: None,
                    timed_out: true,
                })
            }
        }
    }

    /// Logs an unexpected local failure and returns the generic upstream error.
    fn unavailable(&self, detail: impl std::fmt::Display) -> Error {
        worker::console_error!("[{}] Hermes request failed: {detail}", self.trace_id);
        Error::HermesUpstreamUnavailable {
            reason: "the request to Hermes failed".into(),
            status: None,
            timed_out: false,
        }
    }
}

impl Answer {
    /// Hermes' `error.code`, when the answer is a Hermes error body.
    pub fn upstream_code(&self) -> Option<String> {
        hermes_error(&self.text).and_then(|e| e.code)
    }

    /// The decoded 2xx body, or the coded error for anything else.
    pub fn json<T: DeserializeOwned>(self, hermes: &Hermes) -> Result<T, Error> {
        if !(200..300).contains(&self.status) {
            let error = upstream_error(&self, hermes.key.as_ref());
            worker::console_error!("[{}] Hermes answered {}: {}", hermes.trace_id, self.status, error.message());
            return Err(error);
        }
        serde_json::from_str(&self.text).map_err(|e| {
            worker::console_error!("[{}] Hermes answered unreadable JSON: {e}", hermes.trace_id);
            Error::HermesUpstreamUnavailable {
                reason: "Hermes answered malformed JSON".into(),
                status: Some(self.status),
                timed_out: false,
            }
        })
    }
}

/// Hermes' error envelope, `{error:{message, type, code}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct HermesError {
    /// `error.message`.
    pub message: String,
    /// `error.code`.
    pub code: Option<String>,
}

/// Parses Hermes' error envelope, if `text` is one.
pub fn hermes_error(text: &str) -> Option<HermesError> {
    let value: Value = serde_json::from_str(text).ok()?;
    let error = value.get("error")?.as_object()?;
    let message = error.get("message")?.as_str()?.to_string();
    let code = error.get("code").and_then(Value::as_str).map(str::to_string);
    Some(HermesError { message, code })
}

/// The coded error for a non-2xx upstream answer (see the module docs for the table).
pub fn upstream_error(answer: &Answer, key: Option<&Secret>) -> Error {
    let status = answer.status;
    match status {
        401 | 403 => Error::HermesUpstreamUnauthorized { status },
        429 => {
            Error::HermesUpstreamRateLimited { retry_after: answer.retry_after.as_deref().and_then(sane_retry_after) }
        }
        400..=499 => match hermes_error(&answer.text) {
            Some(error) => {
                let code = error.code.as_deref().map(|c| format!(" {}", redact(c, key))).unwrap_or_default();
                let message = redact(&error.message, key);
                Error::HermesBadRequest {
                    pointer: String::new(),
                    reason: format!("Hermes answered {status}{code}: {message}"),
                }
            }
            None => Error::HermesUpstreamUnavailable {
                reason: format!(
                    "the upstream answered {status} without a Hermes error body; is HERMES_UPSTREAM_URL a Hermes API server?"
                ),
                status: Some(status),
                timed_out: false,
            },
        },
        _ => Error::HermesUpstreamUnavailable {
            reason: format!("Hermes answered HTTP {status}"),
            status: Some(status),
            timed_out: false,
        },
    }
}

/// `Retry-After` as seconds or an HTTP date, or `None` when it is anything else (it becomes a header).
pub fn sane_retry_after(value: &str) -> Option<String> {
    let value = value.trim();
    let ok = !value.is_empty()
        && value.len() <= 64
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b',' | b':' | b'-'));
    ok.then(|| value.to_string())
}

/// `text` with every occurrence of the key replaced, cut to a readable length.
pub fn redact(text: &str, key: Option<&Secret>) -> String {
    let mut text = match key {
        Some(key) if !key.expose().is_empty() => text.replace(key.expose(), "[redacted]"),
        _ => text.to_string(),
    };
    if text.chars().count() > MAX_UPSTREAM_MESSAGE_CHARS {
        text = text.chars().take(MAX_UPSTREAM_MESSAGE_CHARS).chain(['…']).collect();
    }
    text
}

fn retry_after(response: &Response) -> Option<String> {
    response.headers().get("retry-after").ok().flatten()
}

/// A path without its query, for log lines.
fn path_only(path: &str) -> &str {
    path.split('?').next().unwrap_or(path)
}

/// Percent-encodes one path segment or query value (ids are already plain tokens; this is a guard).
pub fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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

    fn answer(status: u16, text: &str) -> Answer {
        Answer { status, retry_after: None, text: text.to_string() }
    }

    fn code(error: &Error) -> &'static str {
        error.code().as_str()
    }

    const HERMES_404: &str =
        r#"{"error":{"message":"Session not found: s1","type":"invalid_request_error","code":"session_not_found"}}"#;

    #[test]
    fn statuses_map_to_the_contract_codes() {
        assert_eq!(code(&upstream_error(&answer(401, "{}"), None)), "hermes_client_upstream_unauthorized");
        assert_eq!(code(&upstream_error(&answer(403, ""), None)), "hermes_client_upstream_unauthorized");
        assert_eq!(code(&upstream_error(&answer(429, ""), None)), "hermes_client_upstream_rate_limited");
        for status in [500, 502, 503, 504] {
            let error = upstream_error(&answer(status, "oops"), None);
            assert_eq!(code(&error), "hermes_client_upstream_unavailable", "{status}");
            assert_eq!(error.details()["upstreamStatus"], status);
        }
        let missing = upstream_error(&answer(404, HERMES_404), None);
        assert_eq!(code(&missing), "hermes_client_bad_request");
        assert!(missing.message().contains("404 session_not_found: Session not found: s1"), "{}", missing.message());
        // A 404 page from something that is not Hermes is a misconfigured upstream, not a bad request.
        let not_hermes = upstream_error(&answer(404, "<html>Not Found</html>"), None);
        assert_eq!(code(&not_hermes), "hermes_client_upstream_unavailable");
    }

    #[test]
    fn retry_after_passes_when_it_is_a_plain_value() {
        let limited = Answer { status: 429, retry_after: Some(" 3 ".into()), text: String::new() };
        assert_eq!(upstream_error(&limited, None), Error::HermesUpstreamRateLimited { retry_after: Some("3".into()) });
        assert_eq!(sane_retry_after("Wed, 21 Oct 2026 07:28:00 GMT").as_deref(), Some("Wed, 21 Oct 2026 07:28:00 GMT"));
        assert_eq!(sane_retry_after("3\r\nset-cookie: x=1"), None);
        assert_eq!(sane_retry_after(""), None);
    }

    #[test]
    fn the_key_never_survives_into_an_error() {
        let key = Secret::new("sk-hermes-very-secret");
        let echo =
            r#"{"error":{"message":"bad token sk-hermes-very-secret","type":"x","code":"sk-hermes-very-secret"}}"#;
        let error = upstream_error(&answer(400, echo), Some(&key));
        let body = serde_json::to_string(&pageai_core::wire::ErrorBody::new(&error, "t")).unwrap_or_default();
        assert!(!body.contains("sk-hermes-very-secret"), "{body}");
        assert!(body.contains("[redacted]"));
    }

    #[test]
    fn long_messages_are_cut() {
        let long = "x".repeat(1_000);
        assert_eq!(redact(&long, None).chars().count(), MAX_UPSTREAM_MESSAGE_CHARS + 1);
    }

    #[test]
    fn components_are_percent_encoded() {
        assert_eq!(encode_component("mnote_doc-1_x"), "mnote_doc-1_x");
        assert_eq!(encode_component("a/b?c"), "a%2Fb%3Fc");
    }
}
