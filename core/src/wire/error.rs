//! The coded error body every surface returns.

use alloc::string::{String, ToString};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// The error body every surface returns: `{ok:false, code, message, hint, details, traceId}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ErrorBody {
    /// Always `false`.
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
        }
    }
}
