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
//! - `contexts` holds a session's frozen contexts, and keeps their allowed ids on the JS side once handed
//!   out, so that a long page's recommendation and its preview do not carry them through JSON;
//! - `operations` are the stateless helpers: `validateOps` and `diffChars` (plus `buildContext` here);
//! - `markdown` is the Markdown module's surface: `markdownToPage` and `pageToMarkdown`;
//! - `catalog` is the catalog module's surface: `manifest`, `mcpToolsList` and `openaiFunctions`;
//! - `preview` runs core's executor as a dry-run for `PageSession.preview`, `editBlock` and `validateOps`;
//! - `interop` owns all JS↔Rust conversion (inputs as JSON text or plain objects; outputs as plain
//!   objects whose `JSON.stringify` equals core's `serde_json` output) and the binding's option bags;
//! - `error` turns core's [`pageai_core::Error`] into a thrown JS `Error` with `.code`, `.hint` and
//!   `.details`;
//! - `ids` mints block ids, context ids, tool call ids and idempotency keys from `crypto.getRandomValues`
//!   (exported as `mintBlockId`, `mintContextId`, `mintToolCallId` and `mintIdempotencyKey`, so callers
//!   never spell one);
//! - `src/vocabulary.rs` is the table of core's closed lists of wire names (tool names, schema ids, intents,
//!   reason codes, review modes, states and verbs, audit actions, error codes): build.rs generates their
//!   TypeScript unions from it, and the JSON text `vocabulary()` answers;
//! - `review` is `reviewVerbs`, a review session's buttons as its `actions` gate them.
//!
//! The TypeScript surface is the generated `.d.ts` refined by `src/types.d.ts` and `src/events.d.ts`
//! (`typescript_custom_section`s), never edited by hand.
//!
//! Three features pick the exports, one WASM module each (scripts/build-wasm builds all three): `editor`
//! (the default) is everything above except `markdown` and `catalog`, which are the Markdown module and the
//! catalog module. A build with one of them leaves some of the shared helpers unused; `make lint` checks the
//! crate with each alone and with all three. On wasm32 the crate is `no_std` unless its `std` feature is on
//! (the Markdown module turns it on): a panic then traps at once, and dlmalloc is the allocator, as in std.

#![cfg_attr(all(target_arch = "wasm32", not(feature = "std")), no_std)]
#![cfg_attr(not(all(feature = "editor", feature = "markdown", feature = "catalog")), allow(dead_code))]

extern crate alloc;

// Without std (the editor's and the catalog's modules), a panic traps at once, as std's does in a browser
// (where it has nowhere to print), without the code that formats the message: nothing reads it. A panic is
// a bug here, never an answer (every input error is a thrown `PageAiError`).
#[cfg(all(target_arch = "wasm32", not(feature = "std")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

// The allocator std itself uses on wasm32 (scripts/build-wasm builds it at opt-level 3, as std's comes).
#[cfg(all(target_arch = "wasm32", not(feature = "std")))]
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[cfg(feature = "catalog")]
mod catalog;
#[cfg(feature = "editor")]
mod contexts;
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
mod review;
#[cfg(feature = "editor")]
mod session;

#[cfg(feature = "editor")]
use alloc::string::String;
#[cfg(feature = "editor")]
use pageai_core::context::{ContextRequest, build_context};
use wasm_bindgen::prelude::*;

#[cfg(feature = "catalog")]
pub use catalog::{manifest_js, mcp_tools_list, openai_functions};
#[cfg(feature = "markdown")]
pub use markdown::{markdown_to_page, page_to_markdown};
#[cfg(feature = "editor")]
pub use operations::{diff_chars, validate_ops};
#[cfg(feature = "editor")]
pub use review::review_verbs;
#[cfg(feature = "editor")]
pub use session::PageSession;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = include_str!("types.d.ts");

// Review sessions, tool events and the live channel's messages.
#[wasm_bindgen(typescript_custom_section)]
const EVENT_TYPES: &'static str = include_str!("events.d.ts");

// Generated by build.rs from src/vocabulary.rs (core's lists): the unions `ToolName`, `SchemaId`,
// `RouteIntent`, `ReviewState`, `PageAiErrorCode`, …, so the TypeScript can never drift from core.
#[wasm_bindgen(typescript_custom_section)]
const VOCABULARY: &'static str = include_str!(concat!(env!("OUT_DIR"), "/vocabulary.d.ts"));

#[cfg(feature = "editor")]
/// Freezes `page` into a `mnote.page_ai_context.v1` context. `contextId` names the snapshot.
///
/// To build several contexts of one page, load it once with `new PageSession(page)` instead.
///
/// @throws {PageAiError} `mnote_invalid_page`, `mnote_invalid_arguments`, `mnote_block_not_found`,
/// `mnote_context_stale`.
#[wasm_bindgen(js_name = buildContext, unchecked_return_type = "PageAiContextV1")]
pub fn build_context_js(
    #[wasm_bindgen(unchecked_param_type = "PageInput | string | Uint8Array")] page: JsValue,
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
pub fn error_codes() -> JsValue {
    // The vocabulary's list of them (core's `ErrorCode::ALL`, written out by build.rs).
    js_sys::Reflect::get(&vocabulary(), &JsValue::from_str("errorCodes")).unwrap_or(JsValue::NULL)
}

#[cfg(feature = "editor")]
/// Every list of core's wire names: tool names, schema ids, route intents and reason codes, review modes,
/// states (and the open ones) and verbs, audit actions and error codes, each in core's order. A UI keys its
/// labels by these values, so a value core adds shows up instead of going missing.
#[wasm_bindgen(unchecked_return_type = "PageAiVocabulary")]
pub fn vocabulary() -> JsValue {
    // build.rs writes the table (src/vocabulary.rs, core's lists) as JSON text; it always parses.
    js_sys::JSON::parse(include_str!(concat!(env!("OUT_DIR"), "/vocabulary.json"))).unwrap_or(JsValue::NULL)
}

#[cfg(feature = "editor")]
/// A fresh block id, `b_` and 10 base32 characters, as core spells it (SPEC §2): an editor names a block
/// it inserts itself, so the block is on the page (and takes the caret) before the server has it.
#[wasm_bindgen(js_name = mintBlockId, unchecked_return_type = "MintedBlockId")]
pub fn mint_block_id() -> String {
    ids::mint_block_id()
}

#[cfg(feature = "editor")]
/// A fresh context id, `ctx_` and 16 base32 characters, as core spells it: it names one frozen snapshot.
#[wasm_bindgen(js_name = mintContextId)]
pub fn mint_context_id() -> String {
    ids::mint_context_id()
}

#[cfg(feature = "editor")]
/// A fresh tool call id, `call_` and 16 base32 characters, as core spells it: one per dry-run, and a
/// review retry needs a new one.
#[wasm_bindgen(js_name = mintToolCallId)]
pub fn mint_tool_call_id() -> String {
    ids::mint_tool_call_id()
}

#[cfg(feature = "editor")]
/// A fresh idempotency key, `idem_` and 20 base32 characters, as core spells it: one per intended write.
#[wasm_bindgen(js_name = mintIdempotencyKey)]
pub fn mint_idempotency_key() -> String {
    ids::mint_idempotency_key()
}

#[cfg(feature = "editor")]
/// True when `value` is an error thrown by this package, by either module (an `Error` with a known `.code`).
#[wasm_bindgen(js_name = isPageAiError, unchecked_return_type = "value is PageAiError")]
pub fn is_page_ai_error(#[wasm_bindgen(unchecked_param_type = "unknown")] value: JsValue) -> bool {
    error::has_code_of(&value, &error_codes())
}
