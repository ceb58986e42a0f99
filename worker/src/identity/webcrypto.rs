//! The signature check of a signed token ([`super::jwt::SignatureCheck`]) by the runtime's WebCrypto
//! (`crypto.subtle`): RSASSA-PKCS1-v1_5 with SHA-256 for RS256, ECDSA P-256 with SHA-256 for ES256, Ed25519
//! for EdDSA. The Workers runtime does this in native code; compiling RSA and elliptic-curve code to WASM
//! instead made up most of the Worker's size.
//!
//! Only an adapter: which key and algorithm is decided in [`super::jwt`]. It needs the runtime, so it is
//! exercised by the end-to-end tests (tests/e2e/identity.test.mjs), not natively.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use js_sys::futures::JsFuture;
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use jsonwebtoken::Algorithm;
use wasm_bindgen::{JsCast, JsValue};

use super::jwt::{PublicKey, SignatureCheck};

/// Whether the signature is valid. `Err` when the key cannot be imported (a malformed key) or WebCrypto is
/// unavailable; the caller refuses the token then too.
pub async fn verify(check: &SignatureCheck) -> Result<bool, String> {
    let subtle = subtle().map_err(|e| format!("crypto.subtle: {e:?}"))?;
    let (import, verify) = algorithms(check.algorithm)?;
    let (format, key_data) = key_data(&check.key).map_err(|e| format!("key: {e:?}"))?;
    let usages = Array::of1(&"verify".into());
    let imported = call(&subtle, "importKey", &[format.into(), key_data, import, JsValue::FALSE, usages.into()])
        .await
        .map_err(|e| format!("key: {e:?}"))?;
    let signature = Uint8Array::from(check.signature.as_slice());
    let message = Uint8Array::from(check.message.as_bytes());
    let valid = call(&subtle, "verify", &[verify, imported, signature.into(), message.into()])
        .await
        .map_err(|e| format!("verify: {e:?}"))?;
    Ok(valid.as_bool() == Some(true))
}

fn subtle() -> Result<Object, JsValue> {
    let crypto = Reflect::get(&js_sys::global(), &"crypto".into())?;
    Reflect::get(&crypto, &"subtle".into())?.dyn_into::<Object>()
}

/// `subtle[name](...args)`, awaited.
async fn call(subtle: &Object, name: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let function: Function = Reflect::get(subtle, &name.into())?.dyn_into()?;
    let promise: Promise = function.apply(subtle, &args.iter().collect::<Array>())?.dyn_into()?;
    JsFuture::from(promise).await
}

fn object(entries: &[(&str, &str)]) -> Result<JsValue, String> {
    let object = Object::new();
    for (name, value) in entries {
        Reflect::set(&object, &(*name).into(), &(*value).into()).map_err(|e| format!("{e:?}"))?;
    }
    Ok(object.into())
}

/// The WebCrypto algorithms to import the key with and to verify with.
fn algorithms(algorithm: Algorithm) -> Result<(JsValue, JsValue), String> {
    match algorithm {
        Algorithm::RS256 => Ok((
            object(&[("name", "RSASSA-PKCS1-v1_5"), ("hash", "SHA-256")])?,
            object(&[("name", "RSASSA-PKCS1-v1_5")])?,
        )),
        Algorithm::ES256 => Ok((
            object(&[("name", "ECDSA"), ("namedCurve", "P-256")])?,
            object(&[("name", "ECDSA"), ("hash", "SHA-256")])?,
        )),
        Algorithm::EdDSA => Ok((object(&[("name", "Ed25519")])?, object(&[("name", "Ed25519")])?)),
        // `jwt::algorithm_of` gives no other algorithm.
        other => Err(format!("{other:?} is not verified here")),
    }
}

/// The key in an import format: a JWK of the decoded (so canonically re-encoded) RSA numbers, the raw
/// elliptic-curve point, the raw Ed25519 key.
fn key_data(key: &PublicKey) -> Result<(&'static str, JsValue), JsValue> {
    Ok(match key {
        PublicKey::Rsa { n, e } => {
            let jwk = Object::new();
            Reflect::set(&jwk, &"kty".into(), &"RSA".into())?;
            Reflect::set(&jwk, &"n".into(), &URL_SAFE_NO_PAD.encode(n).into())?;
            Reflect::set(&jwk, &"e".into(), &URL_SAFE_NO_PAD.encode(e).into())?;
            ("jwk", jwk.into())
        }
        PublicKey::P256(point) => ("raw", Uint8Array::from(point.as_slice()).into()),
        PublicKey::Ed25519(x) => ("raw", Uint8Array::from(x.as_slice()).into()),
    })
}
