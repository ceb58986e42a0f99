//! All conversion between JS values and Rust values.
//!
//! Inputs arrive as JSON text or as plain JS objects. Objects go through `JSON.stringify` and then core's
//! own parsers, so the package accepts exactly what the Worker accepts, with the same coded errors and
//! JSON pointers.
//!
//! Outputs are serialized by `serde_json` (core's canonical form) and handed to JS with `JSON.parse`. The
//! result is a plain object whose `JSON.stringify` is byte-identical to what the Worker sends for the same
//! input: serde_json and `JSON.stringify` escape strings the same way, and every shape here is made of
//! strings, booleans, arrays, objects with non-numeric keys and integers below 2^53.

use pageai_core::error::Error;
use pageai_core::page::Page;
use pageai_core::wire;
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::JsValue;

/// The options of `markdownToPage`: who the page belongs to. A binding-only shape.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct MarkdownPageOptions {
    /// The workspace of the new page.
    pub workspace_id: String,
    /// The document id of the new page.
    pub document_id: String,
    /// The title; empty when omitted.
    #[serde(default)]
    pub title: String,
}

/// A page, from JSON text or a plain object, validated by core.
pub(crate) fn page(value: &JsValue) -> Result<Page, Error> {
    Page::from_json(&json_text(value, "")?)
}

/// Any wire shape, from JSON text or a plain object, parsed by core (errors carry a JSON pointer).
/// `pointer` names the argument when it is missing altogether.
pub(crate) fn from_js<T: DeserializeOwned>(value: &JsValue, pointer: &str) -> Result<T, Error> {
    wire::from_json(&json_text(value, pointer)?)
}

/// A string argument. Anything else is an invalid argument at `pointer`, not a wasm-bindgen type error.
pub(crate) fn string(value: &JsValue, pointer: &str) -> Result<String, Error> {
    value.as_string().ok_or_else(|| Error::invalid(pointer, "must be a string"))
}

/// A Rust value as a plain JS object, through core's canonical JSON.
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, Error> {
    // Neither step can fail for core's shapes (string keys only, no custom serializers); the mapping
    // exists so that a future shape that could fail reports a coded error instead of trapping.
    let json = serde_json::to_string(value).map_err(|e| wire::serde_error("", &e))?;
    js_sys::JSON::parse(&json).map_err(|_| Error::invalid("", "the result is not representable in JS"))
}

/// The JSON text of an argument: a string is taken as JSON already, anything else is stringified.
fn json_text(value: &JsValue, pointer: &str) -> Result<String, Error> {
    if let Some(text) = value.as_string() {
        return Ok(text);
    }
    if value.is_undefined() || value.is_null() {
        return Err(Error::invalid(pointer, "is required"));
    }
    let text = js_sys::JSON::stringify(value)
        .map_err(|_| Error::invalid(pointer, "cannot be converted to JSON (a cycle or a BigInt?)"))?;
    // `JSON.stringify` answers `undefined` for functions and symbols.
    text.as_string().ok_or_else(|| Error::invalid(pointer, "must be a JSON object or JSON text"))
}
