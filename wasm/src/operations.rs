//! Stateless checks of block operations, and the character diff the previews paint.

use alloc::borrow::ToOwned;
use alloc::vec::Vec;
use pageai_core::executor::{NoContexts, WriteArgs};
use pageai_core::manifest::args::ApplyBlockOpsArgs;
use pageai_core::ops::Operation;
use pageai_core::ops::diff::{SpanTag, inline_runs};
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
    #[wasm_bindgen(unchecked_param_type = "PageInput | string | Uint8Array")] page: JsValue,
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
        let old = interop::string(&before, "/before")?;
        let new = interop::string(&after, "/after")?;
        Ok(decode_spans(&before, &after, &utf16_runs(&old, &new)))
    };
    error::throw(run())
}

#[wasm_bindgen(module = "/js/spans.js")]
extern "C" {
    /// Builds the `{tag, text}` spans from [`utf16_runs`] by slicing `before` and `after` as Rust read them
    /// (a lone surrogate as U+FFFD).
    #[wasm_bindgen(js_name = decodeSpans)]
    fn decode_spans(before: &JsValue, after: &JsValue, runs: &[u32]) -> JsValue;
}

/// Core's runs as `[tag, length, …]` with lengths in UTF-16 code units, the unit JS strings are sliced in.
fn utf16_runs(old: &str, new: &str) -> Vec<u32> {
    let runs = inline_runs(old, new);
    let mut out = Vec::with_capacity(runs.len() * 2);
    // Without 4-byte UTF-8 sequences every char is one UTF-16 unit, and a run's length in chars is the answer.
    let bmp = |text: &str| !text.bytes().any(|b| b >= 0xF0);
    let units = |chars: &mut core::str::Chars<'_>, n: usize| chars.take(n).map(char::len_utf16).sum::<usize>();
    let (single, mut old_chars, mut new_chars) = (bmp(old) && bmp(new), old.chars(), new.chars());
    for (tag, chars) in runs {
        let (code, length) = match tag {
            SpanTag::Equal if single => (0, chars),
            SpanTag::Insert if single => (1, chars),
            SpanTag::Delete if single => (2, chars),
            SpanTag::Equal => {
                new_chars.by_ref().take(chars).for_each(drop);
                (0, units(old_chars.by_ref(), chars))
            }
            SpanTag::Insert => (1, units(new_chars.by_ref(), chars)),
            SpanTag::Delete => (2, units(old_chars.by_ref(), chars)),
        };
        // A JS string is shorter than 2^32 code units.
        out.extend([code, u32::try_from(length).unwrap_or(u32::MAX)]);
    }
    out
}
