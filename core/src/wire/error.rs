//! The coded error body every surface returns.

use crate::json::Read;
use alloc::string::{String, ToString};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// The error body every surface returns: `{ok:false, code, message, hint, details, traceId}`, and, on an
/// HTTP answer, the `requestId` of the request that failed (seed 7-5). A body stored with a review session
/// has no request of its own, so it carries none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorBody {
    /// Always `false`.
    #[cfg_attr(test, schemars(extend("const" = false)))]
    pub ok: bool,
    /// The stable code.
    pub code: String,
    /// A sentence for people.
    pub message: String,
    /// What to do next.
    pub hint: String,
    /// Machine-readable specifics.
    pub details: Value,
    /// Correlates this answer with logs and upstream calls.
    pub trace_id: String,
    /// The one request this answer is for (also its `x-request-id` header and the Worker's log line).
    // A plain string in the schema: absent, never null (strict validators refuse a union type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, schemars(with = "String"))]
    pub request_id: Option<String>,
}

impl ErrorBody {
    /// The body for `error`, tagged with `trace_id`.
    pub fn new(error: &Error, trace_id: impl Into<String>) -> Self {
        ErrorBody {
            ok: false,
            code: error.code().as_str().to_string(),
            message: error.message(),
            hint: error.hint(),
            details: error.details(),
            trace_id: trace_id.into(),
            request_id: None,
        }
    }

    /// The same body, naming the HTTP request it answers.
    pub fn for_request(self, request_id: impl Into<String>) -> Self {
        ErrorBody { request_id: Some(request_id.into()), ..self }
    }
}
