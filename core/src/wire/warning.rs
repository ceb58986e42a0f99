//! A warning that does not stop the request, as every answer that has warnings carries it.

use crate::json::Read;
use alloc::string::String;
use serde::{Deserialize, Serialize};

/// A warning that does not stop the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WarningV1 {
    /// Stable snake_case code, e.g. `context_truncated`.
    pub code: String,
    /// A sentence for people.
    pub message: String,
}
