//! # pageai-wasm: the npm package `@mnote/pageai`
//!
//! WASM bindings of [`pageai_core`], so a browser (or any JS runtime) computes exactly what the Worker
//! computes, byte for byte, with no request: contexts, routes, dry-run previews, manifests.
//!
//! The crate is a thin shell. Every rule lives in core; this crate converts values at the boundary and
//! plays core's caller (it owns the clock and mints ids and keys):
//!
//! - [`session`] holds [`PageSession`], a page loaded once, so a keystroke crosses the boundary with its
//!   prompt only: `route`, `preview`, `context`, `editBlock` (a person's text change, as the edit to
//!   `PATCH`), and `applyLocal` to follow the server's writes;
//! - `catalog` and `operations` are the stateless helpers: `manifest`, `mcpToolsList`, `openaiFunctions`,
//!   `validateOps` and `diffChars` (plus `buildContext` here);
//! - `markdown` is the Markdown module's surface: `markdownToPage` and `pageToMarkdown`;
//! - `preview` runs core's executor as a dry-run for `PageSession.preview`, `editBlock` and `validateOps`;
//! - `interop` owns all JS↔Rust conversion (inputs as JSON text or plain objects; outputs as plain
//!   objects whose `JSON.stringify` equals core's `serde_json` output) and the binding's option bags;
//! - `error` turns core's [`pageai_core::Error`] into a thrown JS `Error` with `.code`, `.hint` and
//!   `.details`;
//! - `ids` mints block ids, context ids, tool call ids and idempotency keys from `crypto.getRandomValues`.
//!
//! The TypeScript surface is the generated `.d.ts` refined by `src/types.d.ts` (a
//! `typescript_custom_section`), never edited by hand.
//!
//! Two features pick the exports, one WASM module each (scripts/build-wasm builds both): `editor` (the
//! default) is everything above except `markdown`, and `markdown` is the Markdown module. A build with one of
//! them leaves some of the shared helpers unused; `make lint` checks the crate with both.

#![cfg_attr(not(all(feature = "editor", feature = "markdown")), allow(dead_code))]

#[cfg(feature = "editor")]
mod catalog;
mod error;
mod ids;
mod interop;
#[cfg(feature = "markdown")]
mod markdown;
#[cfg(feature = "editor")]
mod operations;
#[cfg(feature = "editor")]
mod preview;
#[cfg(feature = "editor")]
mod session;

#[cfg(feature = "editor")]
use pageai_core::context::{ContextRequest, build_context};
#[cfg(feature = "editor")]
use pageai_core::error::ErrorCode;
use wasm_bindgen::prelude::*;

#[cfg(feature = "editor")]
pub use catalog::{manifest_js, mcp_tools_list, openai_functions};
#[cfg(feature = "markdown")]
pub use markdown::{markdown_to_page, page_to_markdown};
#[cfg(feature = "editor")]
pub use operations::{diff_chars, validate_ops};
#[cfg(feature = "editor")]
pub use session::PageSession;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = include_str!("types.d.ts");

// Generated from `ErrorCode::ALL` by build.rs, so the TypeScript union can never drift from core.
#[wasm_bindgen(typescript_custom_section)]
const ERROR_CODES: &'static str = include_str!(concat!(env!("OUT_DIR"), "/error_codes.d.ts"));

#[cfg(feature = "editor")]
/// Freezes `page` into a `mnote.page_ai_context.v1` context. `contextId` names the snapshot.
///
/// To build several contexts of one page, load it once with `new PageSession(page)` instead.
///
/// @throws {PageAiError} `mnote_invalid_page`, `mnote_invalid_arguments`, `mnote_block_not_found`,
/// `mnote_context_stale`.
#[wasm_bindgen(js_name = buildContext, unchecked_return_type = "PageAiContextV1")]
pub fn build_context_js(
    #[wasm_bindgen(unchecked_param_type = "PageInput | string")] page: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ContextRequest | string")] request: JsValue,
    #[wasm_bindgen(js_name = contextId, unchecked_param_type = "string")] context_id: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let page = interop::page(&page)?;
        let request: ContextRequest = interop::from_js(&request, "")?;
        let context_id = interop::string(&context_id, "/contextId")?;
        interop::to_js(&build_context(&page, &request, &context_id)?)
    };
    error::throw(run())
}

#[cfg(feature = "editor")]
/// Every error code this build can throw, in the order they were added.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "PageAiErrorCode[]")]
pub fn error_codes() -> Vec<String> {
    ErrorCode::ALL.iter().map(|code| code.as_str().to_owned()).collect()
}

#[cfg(feature = "editor")]
/// True when `value` is an error thrown by this package, by either module (an `Error` with a known `.code`).
#[wasm_bindgen(js_name = isPageAiError, unchecked_return_type = "value is PageAiError")]
pub fn is_page_ai_error(#[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue) -> bool {
    error::is_page_ai_error(&value)
}
