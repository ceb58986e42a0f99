//! JSON in and out of core's types: the one decoder (with a JSON pointer to the field that failed) and the
//! one encoder.
//!
//! Every shape is read through [`from_value_ref`], so a failure anywhere names its field the same way
//! (`mnote_invalid_arguments` with `details.pointer`), and the browser package carries one copy of the
//! parsing code.

use alloc::string::{String, ToString};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Error;

/// Parses JSON into `T`. Failures become [`Error::InvalidArguments`] whose pointer names the bad field.
///
/// The text is parsed into a [`Value`] first and `T` is read from that. Every shape is then read by one
/// deserializer, which matters for the browser package: each deserializer a type is read from adds a copy of
/// its parsing code to the WASM module.
pub fn from_json<T: DeserializeOwned>(json: &str) -> Result<T, Error> {
    let value: Value = serde_json::from_str(json).map_err(|e| Error::invalid("", e.to_string()))?;
    from_value_ref(&value)
}

/// Converts a JSON value into `T`, with the same error mapping as [`from_json`].
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    from_value_ref(&value)
}

/// Deserializes `T` from a borrowed JSON value, without copying it first. The one place shapes are read.
pub fn from_value_ref<T: DeserializeOwned>(value: &Value) -> Result<T, Error> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let pointer = pointer_of(e.path());
        serde_error(&pointer, e.inner())
    })
}

/// Maps a serde_json error at `pointer` to [`Error::InvalidArguments`].
pub fn serde_error(pointer: &str, e: &serde_json::Error) -> Error {
    // serde_json appends " at line L column C"; the pointer already says where.
    let mut reason = e.to_string();
    if let Some(cut) = reason.find(" at line ") {
        reason.truncate(cut);
    }
    Error::invalid(pointer, reason)
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        out.push('/');
        match segment {
            Segment::Seq { index } => out.push_str(&index.to_string()),
            Segment::Map { key } => push_escaped(&mut out, key),
            Segment::Enum { variant } => push_escaped(&mut out, variant),
            Segment::Unknown => out.push('?'),
        }
    }
    out
}

// RFC 6901: '~' becomes "~0" and '/' becomes "~1".
fn push_escaped(out: &mut String, key: &str) {
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Encodes `value` as compact JSON, the bytes core answers with (and replays).
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|e| Error::invalid("", e.to_string()))
}

/// Encodes `value` as a JSON value, e.g. to fingerprint typed arguments as if they had been sent as JSON.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(|e| Error::invalid("", e.to_string()))
}
