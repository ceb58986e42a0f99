//! Stateless checks of block operations, and the character diff the previews paint.

use pageai_core::executor::{NoContexts, WriteArgs};
use pageai_core::manifest::args::ApplyBlockOpsArgs;
use pageai_core::ops::Operation;
use pageai_core::ops::diff::inline_diff;
use wasm_bindgen::prelude::*;

use crate::interop::{self, ValidateOptions};
use crate::{error, preview};

/// Validates `operations` against `page` as a dry-run of `mnote.doc.apply_block_ops`, with every check of
/// the server's executor, and answers the `mnote.tool_result.v1` it would show (changes, diffs, risk).
/// Nothing is written. To check many batches against one page, load it once with `new PageSession(page)`
/// and use `preview`.
///
/// @throws {PageAiError} `mnote_invalid_page`, and the executor's errors, as `PageSession.preview`.
#[wasm_bindgen(js_name = validateOps, unchecked_return_type = "ToolResultV1")]
pub fn validate_ops(
    #[wasm_bindgen(unchecked_param_type = "PageInput | string")] page: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Operation[] | string")] operations: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ValidateOptions")] options: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let run = || {
        let page = interop::page(&page)?;
        let operations: Vec<Operation> = interop::from_js(&operations, "/operations")?;
        let mut options: ValidateOptions = interop::optional(options.as_ref(), "/options")?;
        let key = options.idempotency_key.take().unwrap_or_else(|| "validate".to_owned());
        let args = ApplyBlockOpsArgs {
            base_revision: options.base_revision.unwrap_or(page.revision),
            allowed_target_block_ids: options.allowed_target_block_ids.take(),
            ..ApplyBlockOpsArgs::dry_run(&page, operations, key)
        };
        preview::run_write(&page, WriteArgs::ApplyBlockOps(args), options.preview_options(), &NoContexts)
    };
    error::throw(run())
}

/// The character-level diff of `before` → `after`, as merged runs: exactly the `diff[].inline` spans of a
/// preview. Characters, not words, so CJK text (which has no spaces) diffs as precisely as English.
///
/// @throws {PageAiError} `mnote_invalid_arguments` (not strings).
#[wasm_bindgen(js_name = diffChars, unchecked_return_type = "InlineSpanV1[]")]
pub fn diff_chars(
    #[wasm_bindgen(unchecked_param_type = "string")] before: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string")] after: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let before = interop::string(&before, "/before")?;
        let after = interop::string(&after, "/after")?;
        interop::to_js(&inline_diff(&before, &after))
    };
    error::throw(run())
}
