//! Markdown import and export of local-first `.md` pages.

use pageai_core::markdown;
use pageai_core::page::Page;
use wasm_bindgen::prelude::*;

use crate::{error, ids, interop};

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
    error::throw(run())
}

/// Exports a page as Markdown, with a `<!-- mnote:block id=… -->` marker on every block so ids survive
/// the round trip through `markdownToPage`.
///
/// @throws {PageAiError} `mnote_invalid_page`, `mnote_invalid_arguments`.
#[wasm_bindgen(js_name = pageToMarkdown)]
pub fn page_to_markdown(
    #[wasm_bindgen(unchecked_param_type = "PageInput | string | Uint8Array")] page: JsValue,
) -> Result<String, JsValue> {
    let page = error::throw(interop::page(&page))?;
    Ok(markdown::export(&page))
}
