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
/// @throws {PageAiError} `mnote_invalid_arguments`.
#[wasm_bindgen(js_name = openaiFunctions, unchecked_return_type = "OpenAiFunctionV1[]")]
pub fn openai_functions(
    #[wasm_bindgen(unchecked_optional_param_type = "Profile | string | null")] profile: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "CapabilityScope[] | null")] grants: Option<JsValue>,
    #[wasm_bindgen(unchecked_optional_param_type = "Permission")] permission: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    error::throw(filtered(profile, grants, permission).and_then(|m| interop::to_js(&manifest::openai_functions(&m))))
}
