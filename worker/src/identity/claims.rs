//! The claim checks of a signed token, as `jsonwebtoken`'s `Validation` made them for [`super::jwt`]
//! (required `exp`, `sub`, `iss` and `aud`; `exp` and `nbf` with [`LEEWAY_SECONDS`] of skew; the configured
//! issuer and audience), plus `iat`: a pure function of the payload, the expectation and `now`.
//!
//! A claim the checks need must be of its type: a numeric date is a non-negative number (a fraction is
//! rounded), `iss` and `aud` a string or an array of strings (one of which must match). A claim named twice
//! is refused, as a payload that is not a JSON object is.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Clock skew allowed on `exp` and `nbf`.
pub const LEEWAY_SECONDS: u64 = 30;

/// What a token must say besides its signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The issuer (`iss`).
    pub issuer: String,
    /// The audience (`aud`).
    pub audience: String,
}

/// The claims a valid token yields.
#[derive(Deserialize)]
pub(super) struct Claims {
    pub(super) sub: String,
    pub(super) exp: u64,
    #[serde(default)]
    pub(super) iat: Option<u64>,
    #[serde(default)]
    pub(super) mnote: MnoteClaim,
}

/// `mnote.workspaces`: a role name by workspace id.
#[derive(Default, Deserialize)]
pub(super) struct MnoteClaim {
    #[serde(default)]
    pub(super) workspaces: BTreeMap<String, String>,
    /// `mnote.epochs`: the membership epoch the token was issued at, by workspace id.
    #[serde(default)]
    pub(super) epochs: BTreeMap<String, u64>,
}

/// The registered claims as sent (`None` when absent; JSON `null` is present), for the checks.
#[derive(Deserialize)]
struct Registered {
    #[serde(default, deserialize_with = "present")]
    exp: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    nbf: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    sub: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    iss: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    aud: Option<Value>,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A numeric date (RFC 7519 §2), or `None` when it is not one.
fn numeric_date(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    if let Some(whole) = number.as_u64() {
        return Some(whole);
    }
    let float = number.as_f64()?;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "range checked just before")]
    (float.is_finite() && float >= 0.0 && float < u64::MAX as f64).then(|| float.round() as u64)
}

/// Whether a string-or-strings claim names `wanted`; `None` when it is neither.
fn names(value: &Value, wanted: &str) -> Option<bool> {
    match value {
        Value::String(one) => Some(one == wanted),
        Value::Array(many) => {
            let strings: Option<Vec<&str>> = many.iter().map(Value::as_str).collect();
            strings.map(|strings| strings.contains(&wanted))
        }
        _ => None,
    }
}

/// Checks the claims of the payload `json` at `now` (Unix seconds), and reads them.
pub(super) fn check(json: &[u8], expected: &Expected, now: u64) -> Result<Claims, String> {
    let claims: Claims = serde_json::from_slice(json).map_err(|e| format!("Json({e})"))?;
    let registered: Registered = serde_json::from_slice(json).map_err(|e| format!("Json({e})"))?;
    let exp = registered.exp.as_ref().and_then(numeric_date);
    let sub = registered.sub.as_ref().filter(|v| v.is_string());
    let iss = registered.iss.as_ref().and_then(|v| names(v, &expected.issuer));
    let aud = registered.aud.as_ref().and_then(|v| names(v, &expected.audience));
    for (claim, parsed) in
        [("exp", exp.is_some()), ("sub", sub.is_some()), ("iss", iss.is_some()), ("aud", aud.is_some())]
    {
        if !parsed {
            return Err(format!("MissingRequiredClaim({claim:?})"));
        }
    }
    let nbf = match &registered.nbf {
        Some(value) => Some(numeric_date(value).ok_or("InvalidClaimFormat(\"nbf\")")?),
        None => None,
    };
    if exp.is_some_and(|exp| exp < now.saturating_sub(LEEWAY_SECONDS)) {
        return Err("ExpiredSignature".into());
    }
    if nbf.is_some_and(|nbf| nbf > now.saturating_add(LEEWAY_SECONDS)) {
        return Err("ImmatureSignature".into());
    }
    if iss == Some(false) {
        return Err("InvalidIssuer".into());
    }
    if aud == Some(false) {
        return Err("InvalidAudience".into());
    }
    // A token issued later than now (past the skew) comes from a wrong clock or a forger's: refused, as
    // `nbf` in the future is.
    if claims.iat.is_some_and(|iat| iat > now.saturating_add(LEEWAY_SECONDS)) {
        return Err("iat is in the future".into());
    }
    Ok(claims)
}
