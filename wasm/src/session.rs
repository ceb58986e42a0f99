//! `PageSession`: one page loaded into WASM once.
//!
//! Building a context from a session passes only the request across the boundary, so per-keystroke work
//! does not pay for copying and re-validating the whole page. Later slices add `route`, `preview` and
//! `applyLocal` here (SPEC §9).

use pageai_core::context::{ContextRequest, build_context};
use pageai_core::page::Page;
use wasm_bindgen::prelude::*;

use crate::{error, interop};

/// A page held in WASM memory. Call `free()` when done (or use `using` where supported).
#[wasm_bindgen]
pub struct PageSession {
    page: Page,
}

#[wasm_bindgen]
impl PageSession {
    /// Loads and validates `page` (a `Page` object or its JSON text).
    ///
    /// @throws {PageAiError} `mnote_invalid_page`, `mnote_invalid_arguments`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PageInput | string")] page: JsValue,
    ) -> Result<PageSession, JsValue> {
        let page = interop::page(&page).map_err(|e| error::to_js(&e))?;
        Ok(PageSession { page })
    }

    /// The loaded page's revision.
    #[wasm_bindgen(getter)]
    pub fn revision(&self) -> f64 {
        // Revisions grow by one per write; they stay far below 2^53, where f64 is exact.
        self.page.revision as f64
    }

    /// The loaded page's document id.
    #[wasm_bindgen(getter, js_name = documentId)]
    pub fn document_id(&self) -> String {
        self.page.document_id.clone()
    }

    /// The loaded page, as a plain object.
    #[wasm_bindgen(unchecked_return_type = "Page")]
    pub fn page(&self) -> Result<JsValue, JsValue> {
        interop::to_js(&self.page).map_err(|e| error::to_js(&e))
    }

    /// Freezes the loaded page into a `mnote.page_ai_context.v1` context; the same answer as
    /// `buildContext(page, request, contextId)`.
    ///
    /// @throws {PageAiError} `mnote_invalid_arguments`, `mnote_block_not_found`, `mnote_context_stale`.
    #[wasm_bindgen(unchecked_return_type = "PageAiContextV1")]
    pub fn context(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ContextRequest | string")] request: JsValue,
        #[wasm_bindgen(js_name = contextId, unchecked_param_type = "string")] context_id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let run = || {
            let request: ContextRequest = interop::from_js(&request, "")?;
            let context_id = interop::string(&context_id, "/contextId")?;
            interop::to_js(&build_context(&self.page, &request, &context_id)?)
        };
        run().map_err(|e| error::to_js(&e))
    }
}
