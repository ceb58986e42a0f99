//! JSON in and out of core's types: the one reader (with a JSON pointer to the field that failed) and the
//! one encoder.
//!
//! Every shape is read through [`from_value_ref`], so a failure anywhere names its field the same way
//! (`mnote_invalid_arguments` with `details.pointer`), and the browser package carries one copy of the
//! parsing code. The one exception is a good page, which [`crate::page::Page::from_json`] reads straight from
//! its text first (`page/text.rs`: all or nothing, accepting only what the reader accepts); anything that
//! does not read there is read here, for the same answer.
//!
//! How a shape is read: by its [`Read`] ([`read`]), which `#[derive(Read)]` writes from the type's own
//! `#[serde(...)]` attributes beside serde's `Deserialize`. The two answer the same, byte for byte;
//! serde's stays as the oracle of the tests (`core/tests/decoder_props/`) and for the Worker's own
//! records ([`from_json_serde`], through core's serde deserializer, `decoder.rs`). `Read` is there for the
//! size of the browser package: a derived reader is a table of names and a match, where each serde visitor
//! is kilobytes, and nothing on the editor's path calls `Deserialize`, so the module carries none.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, FieldError};

mod decoder;
pub mod read;
pub(crate) mod tagged;

/// Derives [`Read`] from a type's `#[serde(...)]` attributes (`pageai-core-derive`).
pub use pageai_core_derive::Read;
pub use read::Read;

/// Parses JSON into `T`. Failures become [`Error::InvalidArguments`] whose pointer names the bad field.
///
/// The text is parsed into a [`Value`] first and `T` is read from that, by its [`Read`]: each way a type is
/// read from adds a copy of its parsing code to the WASM module, so there is one.
pub fn from_json<T: Read>(json: &str) -> Result<T, Error> {
    from_value_ref(&parse(json)?)
}

/// The text as a JSON value. Not generic, and kept out of line, so the browser package carries one copy of
/// it, not one inside each shape's [`from_json`].
#[inline(never)]
fn parse(json: &str) -> Result<Value, Error> {
    serde_json::from_str(json).map_err(|e| Error::invalid("", e.to_string()))
}

/// Converts a JSON value into `T`, with the same error mapping as [`from_json`].
pub fn from_value<T: Read>(value: Value) -> Result<T, Error> {
    from_value_ref(&value)
}

/// Deserializes `T` from a borrowed JSON value, without copying it first. The one place shapes are read.
///
/// A failure names every bad field it can find (`every_bad_field`), the first in `pointer`.
pub fn from_value_ref<T: Read>(value: &Value) -> Result<T, Error> {
    read::read(value).map_err(|failure| refused(value, failure, &|probe| read::read::<T>(probe).map(drop)))
}

/// [`from_value_ref`] through serde's `Deserialize` (core's one deserializer), for a shape that has no
/// [`Read`]: the Worker's own records. Same answers; the browser package never calls it.
pub fn from_value_serde<T: DeserializeOwned>(value: &Value) -> Result<T, Error> {
    decoder::read(value).map_err(|failure| refused(value, failure, &|probe| decoder::read::<T>(probe).map(drop)))
}

/// [`from_json`] through serde's `Deserialize`; see [`from_value_serde`].
pub fn from_json_serde<T: DeserializeOwned>(json: &str) -> Result<T, Error> {
    from_value_serde(&parse(json)?)
}

/// The error of a failed read of `value`: the first bad field, then every other one `read` finds. Not generic
/// (the shape comes in as `read`), so the browser package carries one copy of it, not one per shape.
#[cold]
#[inline(never)]
fn refused(value: &Value, failure: decoder::Failure, read: &dyn Fn(&Value) -> Result<(), decoder::Failure>) -> Error {
    let reason = reason_of(&failure.error);
    let mut more = every_bad_field(value, &failure.pointer, &reason, read);
    for field in &mut more {
        field.reason = plain_words(&field.reason);
    }
    Error::InvalidArguments { pointer: failure.pointer, reason: plain_words(&reason), more }
}

/// At most this many bad fields are listed for one input.
const MAX_FIELD_ERRORS: usize = 32;

/// The bad fields of `value` after the first (at `first`), as a model needs them to fix a call in one go.
///
/// serde stops at the first error, so the input is read again with each bad field taken out, until it
/// reads, or the next error is only the absence of a field this took out (or the bad part is the whole
/// input). A field that is genuinely missing is listed; one this removed is not listed twice. A bad element
/// of an array is taken out too, and the pointers after it are counted as in the caller's input. Runs only
/// on a failed read, so a good input pays nothing.
///
/// `read` reads the type in question; the function itself is not generic, so the browser package carries
/// one copy of it, not one per shape.
fn every_bad_field(
    value: &Value,
    first: &str,
    first_reason: &str,
    read: &dyn Fn(&Value) -> Result<(), decoder::Failure>,
) -> Vec<FieldError> {
    let mut probe = Probe { value: value.clone(), removed: Vec::new(), gone: Vec::new() };
    let mut more = Vec::new();
    let (mut at, mut why) = (String::from(first), String::from(first_reason));
    while more.len() + 1 < MAX_FIELD_ERRORS && probe.take_out(&at, &why) {
        let Err(failure) = read(&probe.value) else { break };
        let here = failure.pointer;
        let reason = reason_of(&failure.error);
        // "missing field `x`" is reported at the object; the field is named in the reason.
        let missing = missing_field(&reason).map(|name| child(&here, name));
        if probe.gone.contains(&probe.original(missing.as_deref().unwrap_or(&here))) {
            // What this took out is now missing, or what it put in its place does not read either: take
            // out the object around it instead (an element of an array, usually), without listing it.
            (at, why) = (here, reason);
            continue;
        }
        more.push(FieldError { pointer: probe.original(&here), reason: reason.clone() });
        if missing.is_some() {
            // Nothing can stand in for a missing field, so every read stops there.
            break;
        }
        (at, why) = (here, reason);
    }
    more
}

/// A value of the type a serde message says was expected, to stand in for a bad scalar, so the fields
/// declared after it are still checked for being present.
fn stand_in(reason: &str) -> Option<Value> {
    let expected = reason.rsplit_once("expected ")?.1;
    match expected {
        "a boolean" => Some(Value::Bool(false)),
        "a string" => Some(Value::String(String::new())),
        "a sequence" => Some(Value::Array(Vec::new())),
        e if e.starts_with('u') || e.starts_with('i') || e.starts_with("a number") => Some(Value::from(0u8)),
        _ => None,
    }
}

/// The input being read again, with what was taken out of it.
struct Probe {
    value: Value,
    /// Elements taken out of arrays: (the array's pointer, the element's index in the caller's input).
    removed: Vec<(String, usize)>,
    /// What was taken out, as pointers into the caller's input.
    gone: Vec<String>,
}

impl Probe {
    /// Takes out the member or element at `pointer` (in the probe's own terms), or puts a good scalar in
    /// place of a bad one; false when there is nothing to take out, it is the whole input, or it was taken
    /// out before.
    fn take_out(&mut self, pointer: &str, reason: &str) -> bool {
        let Some((parent, last)) = pointer.rsplit_once('/') else { return false };
        let original = self.original(pointer);
        if self.gone.contains(&original) {
            return false;
        }
        // A bad scalar is replaced by one of the expected type, the first time.
        if let (Some(slot), Some(good)) = (self.value.pointer_mut(pointer), stand_in(reason)) {
            *slot = good;
            self.gone.push(original);
            return true;
        }
        let key = last.replace("~1", "/").replace("~0", "~");
        let was = key.parse::<usize>().ok().map(|index| self.original_index(parent, index));
        let taken = match (self.value.pointer_mut(parent), was) {
            (Some(Value::Object(map)), _) => map.remove(&key).is_some(),
            (Some(Value::Array(items)), Some(was)) => match key.parse::<usize>() {
                Ok(index) if index < items.len() => {
                    items.remove(index);
                    self.removed.push((String::from(parent), was));
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if taken {
            self.gone.push(original);
        }
        taken
    }

    /// The index in the caller's input of element `index` of the array at `array` now.
    fn original_index(&self, array: &str, index: usize) -> usize {
        // The least `i` with `i = index + (taken at or below i)`, found by counting again from the last guess
        // until the count stops growing: what shifting `index` past the taken ones in ascending order gives,
        // with no sort of them (issue 29: the browser package carried a quicksort of `usize` for this alone).
        let taken = self.removed.iter().filter(|(a, _)| a == array).map(|(_, i)| *i);
        let mut i = index;
        loop {
            let shifted = index + taken.clone().filter(|gone| *gone <= i).count();
            if shifted == i {
                return i;
            }
            i = shifted;
        }
    }

    /// `pointer` (in the probe's terms) as a pointer into the caller's input.
    fn original(&self, pointer: &str) -> String {
        let mut out = String::new();
        for segment in pointer.split('/').skip(1) {
            let shifted = match segment.parse::<usize>() {
                Ok(index) if self.removed.iter().any(|(array, _)| *array == out) => {
                    Some(self.original_index(&out, index).to_string())
                }
                _ => None,
            };
            out.push('/');
            out.push_str(shifted.as_deref().unwrap_or(segment));
        }
        out
    }
}

/// The field a "missing field `x`" reason names.
fn missing_field(reason: &str) -> Option<&str> {
    reason.strip_prefix("missing field `")?.strip_suffix('`')
}

/// The pointer of member `name` of the object at `pointer`.
fn child(pointer: &str, name: &str) -> String {
    let mut out = String::from(pointer);
    out.push('/');
    push_escaped(&mut out, name);
    out
}

/// A serde_json message without its " at line L column C" (the pointer already says where).
fn reason_of(e: &dyn core::fmt::Display) -> String {
    let mut reason = e.to_string();
    if let Some(cut) = reason.find(" at line ") {
        reason.truncate(cut);
    }
    reason
}

/// Maps a serde_json error at `pointer` to [`Error::InvalidArguments`].
pub fn serde_error(pointer: &str, e: &serde_json::Error) -> Error {
    Error::invalid(pointer, plain_words(&reason_of(e)))
}

/// A serde message in the words of a JSON API's user: JSON's names for what was sent (`array`, `object`,
/// `null`, not `sequence`, `map`, `unit value`) and for what was expected (`a whole number from 0`, not
/// `u64`; `an object`, not `struct Scope`), so no Rust type reaches a caller. The reading of the
/// fields (`every_bad_field`) works on serde's own words; only what is answered is rewritten.
pub fn plain_words(reason: &str) -> String {
    let (head, expected) = match reason.rsplit_once(", expected ") {
        Some((head, expected)) => (head, Some(expected)),
        None => (reason, None),
    };
    let mut out = String::from(head);
    for (rust, json) in [("sequence", "array"), ("map", "object"), ("unit value", "null")] {
        if let Some(sent) = out.strip_prefix("invalid type: ")
            && sent == rust
        {
            out = alloc::format!("invalid type: {json}");
        }
    }
    if let Some(expected) = expected {
        out.push_str(", expected ");
        out.push_str(&expected_in_words(expected));
    }
    out
}

/// serde's "expected …" in JSON words.
fn expected_in_words(expected: &str) -> String {
    let range = |max: u64| alloc::format!("a whole number from 0 to {max}");
    match expected {
        "u8" => range(u64::from(u8::MAX)),
        "u16" => range(u64::from(u16::MAX)),
        "u32" => range(u64::from(u32::MAX)),
        "u64" | "usize" => String::from("a whole number from 0"),
        "i8" | "i16" | "i32" | "i64" | "isize" => String::from("a whole number"),
        "f32" | "f64" => String::from("a number"),
        "a sequence" => String::from("an array"),
        "a map" => String::from("an object"),
        "a borrowed string" | "a character" | "char" => String::from("a string"),
        e if e.starts_with("struct ") || e.contains("tagged enum ") => String::from("an object"),
        e if e.starts_with("enum ") => String::from("one of the names the tool's inputSchema lists"),
        e if e.starts_with("a tuple of size ") => alloc::format!("an array of {}", &e["a tuple of size ".len()..]),
        other => String::from(other),
    }
}

// RFC 6901: '~' becomes "~0" and '/' becomes "~1".
pub(crate) fn push_escaped(out: &mut String, key: &str) {
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
///
/// Through the text ([`to_json`], then the text read back): the same value serde_json's `to_value` makes
/// (every float prints shortest-round-trip and reads back to itself; keys are strings either way), but each
/// type is written by the one serializer every answer is written by, so the browser package carries one
/// copy of its `Serialize`, not two. Only small shapes (a tool call's arguments) come here.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    let text = to_json(value)?;
    serde_json::from_str(&text).map_err(|e| Error::invalid("", e.to_string()))
}

#[cfg(test)]
mod tests;
