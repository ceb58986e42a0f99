//! # pageai-wasm: the npm package `@mnote/pageai`
//!
//! WASM bindings of [`pageai_core`], so a browser (or any JS runtime) computes exactly what the Worker
//! computes: the same context, byte for byte, with no request.
//!
//! The crate is a thin shell. Every rule lives in core; this crate only converts values at the boundary:
//!
//! - [`interop`] owns all JS↔Rust conversion (inputs as JSON text or plain objects; outputs as plain
//!   objects whose `JSON.stringify` equals core's `serde_json` output);
//! - [`error`] turns core's [`pageai_core::Error`] into a thrown JS `Error` with `.code`, `.hint` and
//!   `.details`;
//! - [`session`] holds [`PageSession`], a page loaded once so a keystroke crosses the boundary with its
//!   request only, never the page;
//! - [`ids`] mints block ids for Markdown imports.
//!
//! The TypeScript surface is the generated `.d.ts` refined by `src/types.d.ts` (a
//! `typescript_custom_section`), never edited by hand.

mod error;
mod ids;
mod interop;
mod session;

use pageai_core::context::{ContextRequest, build_context};
use pageai_core::error::ErrorCode;
use pageai_core::markdown;
use pageai_core::page::Page;
use wasm_bindgen::prelude::*;

pub use session::PageSession;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = include_str!("types.d.ts");

// Generated from `ErrorCode::ALL` by build.rs, so the TypeScript union can never drift from core.
#[wasm_bindgen(typescript_custom_section)]
const ERROR_CODES: &'static str = include_str!(concat!(env!("OUT_DIR"), "/error_codes.d.ts"));

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
    run().map_err(|e| error::to_js(&e))
}

/// Imports Markdown (CommonMark + GFM) as a page at revision 0. Blocks keep the ids of their
/// `<!-- mnote:block id=… -->` markers; the others get fresh `b_…` ids.
///
/// @throws {PageAiError} `mnote_invalid_arguments` (options), `mnote_invalid_markdown`, `mnote_invalid_page`.
#[wasm_bindgen(js_name = markdownToPage, unchecked_return_type = "Page")]
pub fn markdown_to_page(
    #[wasm_bindgen(unchecked_param_type = "string")] markdown: JsValue,
    #[wasm_bindgen(unchecked_param_type = "MarkdownPageOptions | string")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let text = interop::string(&markdown, "/markdown")?;
        let options: interop::MarkdownPageOptions = interop::from_js(&options, "")?;
        let blocks = markdown::import(&text, &mut ids::mint_block_id)?;
        let page = Page::new(options.workspace_id, options.document_id, options.title, blocks)?;
        interop::to_js(&page)
    };
    run().map_err(|e| error::to_js(&e))
}

/// Exports a page as Markdown, with a `<!-- mnote:block id=… -->` marker on every block so ids survive
/// the round trip through `markdownToPage`.
///
/// @throws {PageAiError} `mnote_invalid_page`, `mnote_invalid_arguments`.
#[wasm_bindgen(js_name = pageToMarkdown)]
pub fn page_to_markdown(
    #[wasm_bindgen(unchecked_param_type = "PageInput | string")] page: JsValue,
) -> Result<String, JsValue> {
    let page = interop::page(&page).map_err(|e| error::to_js(&e))?;
    Ok(markdown::export(&page))
}

/// Every error code this build can throw, in the order they were added.
#[wasm_bindgen(js_name = errorCodes, unchecked_return_type = "PageAiErrorCode[]")]
pub fn error_codes() -> Vec<String> {
    ErrorCode::ALL.iter().map(|code| code.as_str().to_owned()).collect()
}

/// True when `value` is an error thrown by this package (an `Error` with a known `.code`).
#[wasm_bindgen(js_name = isPageAiError, unchecked_return_type = "value is PageAiError")]
pub fn is_page_ai_error(#[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue) -> bool {
    error::is_page_ai_error(&value)
}
