//! Core errors as thrown JS errors.
//!
//! Every failure reaches JS as a real `Error` (so `instanceof Error` holds and a stack is captured) named
//! `PageAiError`, carrying core's stable `.code`, its `.hint` and its machine-readable `.details`. The
//! codes come from core only; this adapter never invents one.

use alloc::borrow::ToOwned;
use pageai_core::error::{Error, ErrorCode};
use wasm_bindgen::{JsCast, JsValue};

const NAME: &str = "PageAiError";

/// The JS error to throw for `error`.
pub(crate) fn to_js(error: &Error) -> JsValue {
    let js = js_sys::Error::new(&error.message());
    // `name` stays non-enumerable, as on built-in errors, so that logging shows only the useful fields.
    define_hidden(&js, "name", &JsValue::from_str(NAME));
    set(&js, "code", &JsValue::from_str(error.code().as_str()));
    set(&js, "hint", &JsValue::from_str(&error.hint()));
    set(&js, "details", &details(error));
    js.into()
}

/// `result` with its error converted for throwing.
pub(crate) fn throw<T>(result: Result<T, Error>) -> Result<T, JsValue> {
    result.map_err(|e| to_js(&e))
}

/// True for an `Error` whose `.code` is one of core's codes.
pub(crate) fn is_page_ai_error(value: &JsValue) -> bool {
    let Some(error) = value.dyn_ref::<js_sys::Error>() else {
        return false;
    };
    js_sys::Reflect::get(error, &JsValue::from_str("code"))
        .ok()
        .and_then(|code| code.as_string())
        .is_some_and(|code| ErrorCode::parse(&code).is_some())
}

fn details(error: &Error) -> JsValue {
    let json = serde_json::to_string(&error.details()).unwrap_or_else(|_| "{}".to_owned());
    js_sys::JSON::parse(&json).unwrap_or_else(|_| js_sys::Object::new().into())
}

// Setting a property on a fresh, extensible `Error` cannot fail, so the results are not inspected.
fn set(target: &js_sys::Error, key: &str, value: &JsValue) {
    let _ = js_sys::Reflect::set(target, &JsValue::from_str(key), value);
}

fn define_hidden(target: &js_sys::Error, key: &str, value: &JsValue) {
    let descriptor = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&descriptor, &JsValue::from_str("value"), value);
    let _ = js_sys::Reflect::set(&descriptor, &JsValue::from_str("writable"), &JsValue::TRUE);
    let _ = js_sys::Reflect::set(&descriptor, &JsValue::from_str("configurable"), &JsValue::TRUE);
    js_sys::Object::define_property(target, &JsValue::from_str(key), &descriptor);
}
