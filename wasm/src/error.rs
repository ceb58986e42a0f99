//! Core errors as thrown JS errors.
//!
//! Every failure reaches JS as a real `Error` (so `instanceof Error` holds and a stack is captured) named
//! `PageAiError`, carrying core's stable `.code`, its `.hint` and its machine-readable `.details`. The
//! codes come from core only; this adapter never invents one.

use alloc::borrow::ToOwned;
use pageai_core::error::Error;
use wasm_bindgen::prelude::*;

/// The JS error to throw for `error`.
pub(crate) fn to_js(error: &Error) -> JsValue {
    // Core's details are JSON objects of strings, numbers and lists; they always serialize.
    let details = serde_json::to_string(&error.details()).unwrap_or_else(|_| "{}".to_owned());
    page_ai_error(&error.message(), error.code().as_str(), &error.hint(), &details)
}

#[wasm_bindgen(module = "/js/error.js")]
extern "C" {
    /// `new Error(message)` named `PageAiError`, with `.code`, `.hint` and `.details` (parsed from `details`).
    #[wasm_bindgen(js_name = pageAiError)]
    fn page_ai_error(message: &str, code: &str, hint: &str, details: &str) -> JsValue;

    /// `value instanceof Error` with a `.code` that `codes` (an array of strings) includes: with core's codes
    /// (`errorCodes()`), whether `value` is a `PageAiError` of this package.
    #[wasm_bindgen(js_name = hasCodeOf)]
    pub(crate) fn has_code_of(value: &JsValue, codes: &JsValue) -> bool;
}

/// `result` with its error converted for throwing.
pub(crate) fn throw<T>(result: Result<T, Error>) -> Result<T, JsValue> {
    result.map_err(|e| to_js(&e))
}
