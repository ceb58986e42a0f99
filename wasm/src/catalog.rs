//! The tool manifest (`mnote.ai_tool_manifest.v1`) and its MCP and OpenAI exports, from core's one catalog.
//! All three take the same optional arguments: a profile (disabled tools, review mode), the granted
//! capability scopes (all when omitted or null; a write scope covers the read scope of the same prefix)
//! and the document's permission (`"edit"` when omitted).

use pageai_core::Error;
use pageai_core::manifest::{self, ManifestV1};
use wasm_bindgen::prelude::*;

use crate::error;
use crate::interop::{self, CatalogInput};

fn filtered(
    profile: Option<JsValue>,
    grants: Option<JsValue>,
    permission: Option<JsValue>,
) -> Result<ManifestV1, Error> {
    let input = CatalogInput::from_js(profile.as_ref(), grants.as_ref(), permission.as_ref())?;
    Ok(manifest::manifest(&input.profile, input.grants.as_deref(), input.permission))
}

/// The tool manifest. Disabled tools stay listed, with `enabled: false` and the reason.
///
/// @throws {PageAiError} `mnote_invalid_arguments`.
#[wasm_bindgen(js_name = manifest, unchecked_return_type = "ManifestV1")]
pub fn manifest_js(
    #[wasm_bindgen(unchecked_optional_param_type = "Profile | string | null")] profile: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "CapabilityScope[] | null")] grants: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "Permission")] permission: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    error::throw(filtered(profile, grants, permission).and_then(|m| interop::to_js(&m)))
}

/// The `tools` of an MCP `tools/list` answer: the enabled tools of the manifest, named by `mcpName`, with
/// mnote's annotations under `_meta["mnote/annotations"]`.
///
/// @throws {PageAiError} `mnote_invalid_arguments`.
#[wasm_bindgen(js_name = mcpToolsList, unchecked_return_type = "McpToolV1[]")]
pub fn mcp_tools_list(
    #[wasm_bindgen(unchecked_optional_param_type = "Profile | string | null")] profile: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "CapabilityScope[] | null")] grants: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "Permission")] permission: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    error::throw(filtered(profile, grants, permission).and_then(|m| interop::to_js(&manifest::mcp_tools_list(&m))))
}

/// The `tools` of an OpenAI function-calling request: the enabled tools, named by `mcpName`.
///
/// The first argument may instead be the options object `{strict, profile, grants, permission}` (it is one
/// when it has a `strict` key; a profile never does). With `strict: true` each function is marked
/// `"strict": true` and its parameters follow OpenAI's strict rules: every property required, the optional
/// ones nullable (the tools read `null` as absent), no `oneOf` or `default`.
///
/// @throws {PageAiError} `mnote_invalid_arguments`.
#[wasm_bindgen(js_name = openaiFunctions, unchecked_return_type = "OpenAiFunctionV1[]")]
pub fn openai_functions(
    #[wasm_bindgen(unchecked_optional_param_type = "Profile | OpenAiFunctionsOptions | string | null")] profile: Option<
        JsValue,
    >,
    #[wasm_bindgen(unchecked_optional_param_type = "CapabilityScope[] | null")] grants: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "Permission")] permission: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let (strict, manifest) = error::throw(match OpenAiOptions::from_first(profile.as_ref()) {
        Ok(Some(options)) => filtered(options.get("profile"), options.get("grants"), options.get("permission"))
            .and_then(|m| Ok((options.strict()?, m))),
        Ok(None) => filtered(profile, grants, permission).map(|m| (false, m)),
        Err(e) => Err(e),
    })?;
    let functions =
        if strict { manifest::openai_functions_strict(&manifest) } else { manifest::openai_functions(&manifest) };
    error::throw(interop::to_js(&functions))
}

/// The options object `openaiFunctions` takes in place of a profile: it has a `strict` key.
struct OpenAiOptions(JsValue);

impl OpenAiOptions {
    fn from_first(first: Option<&JsValue>) -> Result<Option<Self>, Error> {
        let Some(first) = first.filter(|v| v.is_object()) else { return Ok(None) };
        let has_strict = js_sys::Reflect::has(first, &JsValue::from_str("strict"))
            .map_err(|_| Error::invalid("/profile", "must be a profile or an options object"))?;
        Ok(has_strict.then(|| OpenAiOptions(first.clone())))
    }

    fn get(&self, key: &str) -> Option<JsValue> {
        js_sys::Reflect::get(&self.0, &JsValue::from_str(key)).ok()
    }

    fn strict(&self) -> Result<bool, Error> {
        match self.get("strict") {
            Some(value) if !value.is_undefined() && !value.is_null() => {
                value.as_bool().ok_or_else(|| Error::invalid("/strict", "must be a boolean"))
            }
            _ => Ok(false),
        }
    }
}
