//! All conversion between JS values and Rust values.
//!
//! Inputs arrive as JSON text or as plain JS objects. Objects go through `JSON.stringify` and then core's
//! own parsers, so the package accepts exactly what the Worker accepts, with the same coded errors and
//! JSON pointers.
//!
//! Outputs are serialized by `serde_json` (core's canonical form) and handed to JS with `JSON.parse`. The
//! result is a plain object whose `JSON.stringify` is byte-identical to what the Worker sends for the same
//! input: serde_json and `JSON.stringify` escape strings the same way, and every shape here is made of
//! strings, booleans, arrays, objects with non-numeric keys, integers below 2^53 and the router's few
//! short decimals (`0.95`), which both sides print shortest-round-trip.
//!
//! The option bags of the binding (`RouteOptions`, `PreviewOptions`, …) are binding-only shapes, so they
//! live here too; the wire shapes they fill in are core's.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use pageai_core::error::Error;
use pageai_core::executor::Origin;
use pageai_core::json;
use pageai_core::json::Read;
use pageai_core::page::{Page, Permission};
use pageai_core::policy::Role;
use pageai_core::profile::Profile;
use pageai_core::review::{Action, ActionsV1, State};
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// The options of `markdownToPage`: who the page belongs to.
#[derive(Debug, serde::Deserialize, Read)]
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

/// A tool call as the router recommends it and as Hermes sends it: `{toolName, args}`.
#[derive(Debug, serde::Deserialize, Read)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ToolCall {
    /// Dotted or MCP name.
    pub tool_name: String,
    /// The arguments, checked by the executor against the tool's schema.
    pub args: Value,
}

/// The options of `new PageSession(page, options)`: whom the session previews for.
#[derive(Debug, Default, serde::Deserialize, Read)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SessionOptions {
    /// The caller's role in the page's workspace, as the Worker knows it; `owner` when omitted.
    #[serde(default)]
    pub role: Option<Role>,
}

/// The options of `PageSession.route`.
#[derive(Debug, Default, serde::Deserialize, Read)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct RouteOptions {
    /// The user's selected block ids.
    #[serde(default)]
    pub selection: Vec<String>,
    /// Disabled tools and review mode; core's default profile when omitted.
    #[serde(default)]
    pub profile: Profile,
    /// Granted capability scopes; all when omitted or null.
    #[serde(default)]
    pub grants: Option<Vec<String>>,
    /// The key to put in the recommendation; minted when omitted.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// A context the session remembers; the session's own full-page context when omitted.
    #[serde(default)]
    pub context_id: Option<String>,
}

/// Who runs a dry-run, and with which ids: what the caller of core's executor supplies.
#[derive(Debug, Default, serde::Deserialize, Read)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct PreviewOptions {
    /// Who is asking; `shortcut` when omitted.
    #[serde(default)]
    pub origin: Option<Origin>,
    /// The audit's actor; `shortcut` when omitted.
    #[serde(default)]
    pub actor: Option<String>,
    /// The audit's time (RFC 3339); the JS clock when omitted.
    #[serde(default)]
    pub at: Option<String>,
    /// The audit's tool call id; minted when omitted.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// Disabled tools and review mode.
    #[serde(default)]
    pub profile: Profile,
    /// Granted capability scopes; all when omitted or null.
    #[serde(default)]
    pub grants: Option<Vec<String>>,
    /// Ids for inserted blocks that carry none, used in order before fresh ones are minted.
    #[serde(default)]
    pub block_ids: Vec<String>,
    /// The role the dry-run runs for: a session's (its [`SessionOptions`]), never a per-call option;
    /// `owner` when `None`.
    #[serde(skip)]
    pub role: Option<Role>,
}

/// The options of `PageSession.editBlock`.
#[derive(Debug, Default, serde::Deserialize, Read)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct EditOptions {
    /// The key of the edit; minted when omitted.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// Disabled tools, for the local check; core's default profile when omitted.
    #[serde(default)]
    pub profile: Profile,
}

/// The options of `validateOps`: the write's binding fields, and who runs it.
#[derive(Debug, Default, serde::Deserialize, Read)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ValidateOptions {
    /// The revision the operations were written against; the page's when omitted.
    #[serde(default)]
    pub base_revision: Option<u64>,
    /// Narrows the blocks the operations may target.
    #[serde(default)]
    pub allowed_target_block_ids: Option<Vec<String>>,
    /// The key the audit records; `validate` when omitted (a dry-run is never recorded).
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// Who is asking; `shortcut` when omitted.
    #[serde(default)]
    pub origin: Option<Origin>,
    /// The audit's actor.
    #[serde(default)]
    pub actor: Option<String>,
    /// The audit's time.
    #[serde(default)]
    pub at: Option<String>,
    /// The audit's tool call id.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// Disabled tools and review mode.
    #[serde(default)]
    pub profile: Profile,
    /// Granted capability scopes.
    #[serde(default)]
    pub grants: Option<Vec<String>>,
    /// Ids for inserted blocks that carry none.
    #[serde(default)]
    pub block_ids: Vec<String>,
}

impl ValidateOptions {
    /// The caller-side part, as `preview` takes it.
    pub fn preview_options(&mut self) -> PreviewOptions {
        PreviewOptions {
            origin: self.origin,
            actor: self.actor.take(),
            at: self.at.take(),
            tool_call_id: self.tool_call_id.take(),
            profile: core::mem::take(&mut self.profile),
            grants: self.grants.take(),
            block_ids: core::mem::take(&mut self.block_ids),
            // A stateless check has no session: it judges for the owner, as before.
            role: None,
        }
    }
}

/// The arguments of `manifest`, `mcpToolsList` and `openaiFunctions`, all optional.
pub(crate) struct CatalogInput {
    /// Disabled tools and review mode.
    pub profile: Profile,
    /// Granted capability scopes; `None` grants all.
    pub grants: Option<Vec<String>>,
    /// The document's permission.
    pub permission: Permission,
}

impl CatalogInput {
    /// Reads the three optional catalog arguments.
    pub fn from_js(
        profile: Option<&JsValue>,
        grants: Option<&JsValue>,
        permission: Option<&JsValue>,
    ) -> Result<Self, Error> {
        Ok(CatalogInput {
            profile: optional(profile, "/profile")?,
            grants: optional(grants, "/grants")?,
            // A string here is the permission itself, not JSON text.
            permission: match optional_string(permission, "/permission")? {
                Some(name) => json::from_value(Value::String(name)).map_err(|e| match e {
                    Error::InvalidArguments { reason, .. } => Error::invalid("/permission", reason),
                    other => other,
                })?,
                None => Permission::default(),
            },
        })
    }
}

/// What `PageSession.applyRemote` answers: whether the page changed, its revision now, and the kind of the
/// message it followed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RemoteApplied {
    /// Whether the page changed (a `page.changed` or a `snapshot`).
    pub applied: bool,
    /// The page's revision after the message.
    pub revision: u64,
    /// The message's kind.
    pub kind: pageai_core::wire::LiveKind,
}

/// What `reviewVerbs` reads of a review session (`mnote.page_ai_review_session.v1`): its state and its
/// actions. The rest of the session may come along and is ignored.
#[derive(Debug, serde::Deserialize, Read)]
pub(crate) struct ReviewGates {
    /// Where the session is.
    pub state: State,
    /// What its state allows a person to do.
    pub actions: ActionsV1,
}

/// One verb of `reviewVerbs`' answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReviewVerbGate {
    /// The verb, e.g. `retry`.
    pub verb: Action,
    /// Whether the session's actions allow it now.
    pub allowed: bool,
    /// Why not, in core's words (the refusal's message and hint); `null` when allowed.
    pub reason: Option<String>,
}

/// A page, from JSON text, the text's UTF-8 bytes or a plain object, validated by core.
pub(crate) fn page(value: &JsValue) -> Result<Page, Error> {
    Page::from_json(&page_text(value)?)
}

/// A page argument's JSON text. A `Uint8Array` is the text's UTF-8 bytes as `fetch` reads a body
/// (`response.arrayBuffer()`): copied into WASM as they are, where a string is encoded to UTF-8 on its way
/// in (a 10,000-block page: ~20 ms in Chromium, a tenth of opening it).
fn page_text(value: &JsValue) -> Result<String, Error> {
    let Some(bytes) = value.dyn_ref::<js_sys::Uint8Array>() else {
        return json_text(value, "");
    };
    String::from_utf8(bytes.to_vec()).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Error::invalid("", format!("must be UTF-8 text (an invalid byte at offset {at})"))
    })
}

/// Any wire shape, from JSON text or a plain object, parsed by core (errors carry a JSON pointer).
/// `pointer` names the argument when it is missing altogether.
pub(crate) fn from_js<T: Read>(value: &JsValue, pointer: &str) -> Result<T, Error> {
    json::from_json(&json_text(value, pointer)?).map_err(|e| under_argument(e, pointer))
}

/// Names the argument in a refusal, so `route(p, {selection: 1})` reports `/options/selection`, not
/// `/selection`. Not generic, so each shape's [`from_js`] carries a call, not this.
#[cold]
#[inline(never)]
fn under_argument(e: Error, pointer: &str) -> Error {
    match e {
        e @ Error::InvalidArguments { .. } if !pointer.is_empty() => e.under(pointer),
        other => other,
    }
}

/// Like [`from_js`], for an optional argument: omitted, `undefined` and `null` give the default.
pub(crate) fn optional<T: Read + Default>(value: Option<&JsValue>, pointer: &str) -> Result<T, Error> {
    match value {
        Some(value) if !value.is_undefined() && !value.is_null() => from_js(value, pointer),
        _ => Ok(T::default()),
    }
}

/// A string argument. Anything else is an invalid argument at `pointer`, not a wasm-bindgen type error.
pub(crate) fn string(value: &JsValue, pointer: &str) -> Result<String, Error> {
    value.as_string().ok_or_else(|| Error::invalid(pointer, "must be a string"))
}

/// An optional string argument: omitted, `undefined` and `null` give `None`.
pub(crate) fn optional_string(value: Option<&JsValue>, pointer: &str) -> Result<Option<String>, Error> {
    match value {
        Some(value) if !value.is_undefined() && !value.is_null() => string(value, pointer).map(Some),
        _ => Ok(None),
    }
}

/// A Rust value as a plain JS object, through core's canonical JSON.
pub(crate) fn to_js<T: Serialize>(value: &T) -> Result<JsValue, Error> {
    // Serialization cannot fail for core's shapes (string keys only, no custom serializers); the mapping
    // exists so that a future shape that could fail reports a coded error instead of trapping.
    let json = serde_json::to_string(value).map_err(|e| json::serde_error("", &e))?;
    parse(&json)
}

/// JSON text that core already produced (the executor's answers, replayed byte for byte) as a JS value.
pub(crate) fn parse(json: &str) -> Result<JsValue, Error> {
    js_sys::JSON::parse(json).map_err(|_| Error::invalid("", "the result is not representable in JS"))
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
