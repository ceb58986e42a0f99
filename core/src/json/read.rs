//! Reading a shape from a borrowed JSON value without serde's visitors: the [`Read`] trait, what every
//! shape's reader shares, and the readers of the primitives and containers.
//!
//! A serde_derive visitor is 1.5 to 5 KB of the browser package per shape. A shape's [`Read`], written by
//! `#[derive(Read)]` (`pageai-core-derive`) from its serde attributes, is a table of its member names and a
//! match from a member's index to that member's type's [`Read`]; the rest is here once, out of line and not
//! generic: the object check ([`At::members`]), an unknown member, a missing field, an enum's name
//! ([`At::unit_variant`], [`At::variant`]) and the pointer of the first failure.
//!
//! The answers are serde's, word for word and pointer for pointer (what `serde_path_to_error` over serde
//! derive's `Deserialize` answers, but for a struct given as an array, which core refuses): members are
//! read in the object's order (sorted keys) and the first that fails wins; fields that are missing are
//! named after all members, in declaration order; a missing `Option` reads as `None`.
//! `core/tests/decoder_props/` holds every wire shape to that.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write as _;

use serde::de::{Error as _, Unexpected};
use serde_json::{Map, Value};

pub use super::decoder::Error;
use super::decoder::{Expecting, Failure, Path, Track, unexpected};

/// A shape core reads from JSON ([`super::from_value_ref`]). Derive it with `#[derive(Read)]` beside
/// serde's `Deserialize`; the two read the same (serde's stays the oracle of the tests).
pub trait Read: Sized {
    /// Reads the value at `at`, or says why it does not read (the pointer is tracked by the caller).
    fn read(at: At<'_>) -> Result<Self, Error>;

    /// The value of a field of this type that is missing from its object: serde's "missing field" but for
    /// `Option`, which reads as `None`.
    fn missing(field: &'static str) -> Result<Self, Error> {
        Err(missing(field))
    }
}

/// Reads `T` from `value`, or says where and why it does not read.
pub(super) fn read<T: Read>(value: &Value) -> Result<T, Failure> {
    let track = Track::new();
    T::read(At { value, path: &Path::Root, track: &track }).map_err(|error| track.failure(error))
}

/// A value being read, and where it is (spelled out only when something fails).
#[derive(Clone, Copy)]
pub struct At<'a> {
    value: &'a Value,
    path: &'a Path<'a>,
    track: &'a Track,
}

/// serde's "missing field `x`".
#[cold]
#[inline(never)]
pub fn missing(field: &'static str) -> Error {
    Error::missing_field(field)
}

/// serde's "invalid type: …, expected …".
#[cold]
#[inline(never)]
fn invalid_type(value: &Value, expected: &str) -> Error {
    Error::invalid_type(unexpected(value), &Expecting(expected))
}

/// serde's list of names: "`a`", "`a` or `b`", "one of `a`, `b`, `c`".
fn one_of(names: &[&str]) -> String {
    let mut out = String::new();
    match names {
        [one] => _ = write!(out, "`{one}`"),
        [a, b] => _ = write!(out, "`{a}` or `{b}`"),
        _ => {
            out.push_str("one of ");
            for (i, name) in names.iter().enumerate() {
                let comma = if i > 0 { ", " } else { "" };
                _ = write!(out, "{comma}`{name}`");
            }
        }
    }
    out
}

/// serde's refusal of an unknown `what` (`field`, `variant`) named `name`, given the names it takes.
#[cold]
#[inline(never)]
fn unknown(what: &str, name: &str, names: &[&str]) -> Error {
    match names {
        [] => Error::custom(alloc::format!("unknown {what} `{name}`, there are no {what}s")),
        _ => Error::custom(alloc::format!("unknown {what} `{name}`, expected {}", one_of(names))),
    }
}

impl<'a> At<'a> {
    /// The value itself.
    pub fn value(&self) -> &'a Value {
        self.value
    }

    /// Reads every member of an object: `each(index, value)` for a member named `fields[index]`; an unknown
    /// member is refused when `deny`, else skipped. A failure takes the member's pointer. `expecting`
    /// words what was expected of anything but an object (`struct X`).
    #[inline(never)]
    pub fn members(
        self,
        fields: &'static [&'static str],
        deny: bool,
        expecting: &'static str,
        each: &mut dyn FnMut(usize, At<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let Value::Object(map) = self.value else { return Err(invalid_type(self.value, expecting)) };
        for (key, value) in map {
            let path = Path::Member { parent: self.path, key };
            let read = match fields.iter().position(|field| field == key) {
                Some(index) => each(index, At { value, path: &path, track: self.track }),
                None if deny => Err(unknown("field", key, fields)),
                None => Ok(()),
            };
            read.map_err(|e| self.track.fail(&path, e))?;
        }
        Ok(())
    }

    /// Reads an enum of unit variants: the index of its name in `variants`. A variant may also be given as
    /// `{name: null}`, as serde reads it.
    #[inline(never)]
    pub fn unit_variant(self, variants: &'static [&'static str]) -> Result<usize, Error> {
        let (index, content) = self.variant_of(variants)?;
        content.unit()?;
        Ok(index)
    }

    /// Reads an enum with struct variants: `read(index, content)` for a variant named `variants[index]`.
    pub fn variant<T>(
        self,
        variants: &'static [&'static str],
        read: &mut dyn FnMut(usize, Content<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let (index, content) = self.variant_of(variants)?;
        read(index, content)
    }

    /// A unit variant is its name; any other variant an object of one member, its name and its content.
    #[inline(never)]
    fn variant_of(self, variants: &'static [&'static str]) -> Result<(usize, Content<'a>), Error> {
        let (name, value) = match self.value {
            Value::String(name) => (name, None),
            Value::Object(map) => {
                let mut members = map.iter();
                match (members.next(), members.next()) {
                    (Some((name, content)), None) => (name, Some(content)),
                    _ => return Err(Error::invalid_value(Unexpected::Map, &"map with a single key")),
                }
            }
            other => return Err(invalid_type(other, "string or map")),
        };
        match variants.iter().position(|variant| variant == name) {
            Some(index) => Ok((index, Content { name, value, parent: self.path, track: self.track })),
            None => Err(unknown("variant", name, variants)),
        }
    }

    /// Reads an array's elements, each at its own pointer.
    #[inline(never)]
    fn elements(self, each: &mut dyn FnMut(At<'_>) -> Result<(), Error>) -> Result<(), Error> {
        let Value::Array(items) = self.value else { return Err(invalid_type(self.value, "a sequence")) };
        for (index, value) in items.iter().enumerate() {
            let path = Path::Element { parent: self.path, index };
            each(At { value, path: &path, track: self.track }).map_err(|e| self.track.fail(&path, e))?;
        }
        Ok(())
    }

    /// Reads a map's values, each at its member's pointer.
    #[inline(never)]
    fn entries(self, each: &mut dyn FnMut(&'a str, At<'_>) -> Result<(), Error>) -> Result<(), Error> {
        let Value::Object(map) = self.value else { return Err(invalid_type(self.value, "a map")) };
        for (key, value) in map {
            let path = Path::Member { parent: self.path, key };
            each(key, At { value, path: &path, track: self.track }).map_err(|e| self.track.fail(&path, e))?;
        }
        Ok(())
    }

    /// Reads an internally tagged enum's object (`json::tagged`): the index of the tag's variant (its name
    /// read by `kind`), its name, and the other members. A bad tag fails at the tag's pointer, a missing one
    /// at the enum's.
    #[inline(never)]
    pub(crate) fn tagged(
        self,
        tag: &'static str,
        expecting: &'static str,
        kind: &dyn Fn(At<'_>) -> Result<usize, Error>,
    ) -> Result<(usize, &'a str, Map<String, Value>), Error> {
        let Value::Object(map) = self.value else { return Err(invalid_type(self.value, expecting)) };
        let mut found = None;
        let mut rest = Map::new();
        for (key, value) in map {
            if key != tag {
                rest.insert(key.clone(), value.clone());
                continue;
            }
            let path = Path::Member { parent: self.path, key };
            let read = match value {
                Value::String(name) => kind(At { value, path: &path, track: self.track }).map(|index| (index, name)),
                other => Err(invalid_type(other, "variant identifier")),
            };
            found = Some(read.map_err(|e| self.track.fail(&path, e))?);
        }
        let (index, name) = found.ok_or_else(|| missing(tag))?;
        Ok((index, name.as_str(), rest))
    }
}

/// Reads an internally tagged enum's externally tagged twin (`json::tagged`) from `{name: rest}`, or from
/// `name` alone for a unit variant. A failure keeps serde's message and takes the enum's own pointer.
pub(crate) fn twin<T: Read>(name: &str, rest: Map<String, Value>, unit: bool) -> Result<T, Error> {
    read_detached(&twin_input(name, rest, unit))
}

#[inline(never)]
fn twin_input(name: &str, rest: Map<String, Value>, unit: bool) -> Value {
    match unit {
        true => Value::String(String::from(name)),
        false => {
            let mut outer = Map::new();
            outer.insert(String::from(name), Value::Object(rest));
            Value::Object(outer)
        }
    }
}

/// Reads `T` from a value made up for the purpose (an internally tagged enum's twin): only the message of a
/// failure, which takes the pointer of the value it stands for.
pub(crate) fn read_detached<T: Read>(value: &Value) -> Result<T, Error> {
    read(value).map_err(|failure| failure.error)
}

/// An enum's variant: its name, and its content unless it was given by its name alone.
pub struct Content<'a> {
    name: &'a str,
    value: Option<&'a Value>,
    parent: &'a Path<'a>,
    track: &'a Track,
}

impl Content<'_> {
    /// A unit variant: no content, or `null`; anything else fails at the variant's pointer.
    #[inline(never)]
    pub fn unit(&self) -> Result<(), Error> {
        match self.value {
            None | Some(Value::Null) => Ok(()),
            Some(other) => {
                let path = Path::Member { parent: self.parent, key: self.name };
                Err(self.track.fail(&path, invalid_type(other, "unit")))
            }
        }
    }

    /// A struct variant: its content must be an object, which `read` reads, at the variant's pointer.
    pub fn struct_variant<T>(&self, read: &mut dyn FnMut(At<'_>) -> Result<T, Error>) -> Result<T, Error> {
        let path = Path::Member { parent: self.parent, key: self.name };
        let result = match self.value {
            Some(value @ Value::Object(_)) => read(At { value, path: &path, track: self.track }),
            Some(other) => Err(invalid_type(other, "struct variant")),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"struct variant")),
        };
        result.map_err(|e| self.track.fail(&path, e))
    }
}

impl Read for String {
    #[inline(never)]
    fn read(at: At<'_>) -> Result<Self, Error> {
        match at.value {
            Value::String(s) => Ok(s.clone()),
            other => Err(invalid_type(other, "a string")),
        }
    }
}

impl Read for bool {
    #[inline(never)]
    fn read(at: At<'_>) -> Result<Self, Error> {
        match at.value {
            Value::Bool(b) => Ok(*b),
            other => Err(invalid_type(other, "a boolean")),
        }
    }
}

/// A JSON number as serde reads it into an integer type named `expected`: in range, or "invalid value"
/// (a whole number out of range) or "invalid type" (anything else). Not generic: one copy for all widths.
#[inline(never)]
fn integer(value: &Value, min: i64, max: u64, expected: &'static str) -> Result<i128, Error> {
    let Value::Number(n) = value else { return Err(invalid_type(value, expected)) };
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) if u <= max => Ok(i128::from(u)),
        (Some(u), _) => Err(Error::invalid_value(Unexpected::Unsigned(u), &Expecting(expected))),
        (None, Some(i)) if i >= min => Ok(i128::from(i)),
        (None, Some(i)) => Err(Error::invalid_value(Unexpected::Signed(i), &Expecting(expected))),
        (None, None) => Err(invalid_type(value, expected)),
    }
}

macro_rules! integers {
    ($($t:ty => $name:literal),*) => {$(
        impl Read for $t {
            #[inline(never)]
            fn read(at: At<'_>) -> Result<Self, Error> {
                let n = integer(at.value, <$t>::MIN as i64, <$t>::MAX as u64, $name)?;
                <$t>::try_from(n).map_err(|_| Error::custom($name))
            }
        }
    )*};
}

integers!(u8 => "u8", u16 => "u16", u32 => "u32", u64 => "u64", usize => "usize", i32 => "i32", i64 => "i64");

impl Read for f64 {
    #[inline(never)]
    fn read(at: At<'_>) -> Result<Self, Error> {
        match at.value {
            Value::Number(n) => Ok(n.as_f64().unwrap_or_default()),
            other => Err(invalid_type(other, "f64")),
        }
    }
}

impl Read for Value {
    #[inline(never)]
    fn read(at: At<'_>) -> Result<Self, Error> {
        Ok(at.value.clone())
    }
}

impl<T: Read> Read for Option<T> {
    fn read(at: At<'_>) -> Result<Self, Error> {
        match at.value {
            Value::Null => Ok(None),
            _ => T::read(at).map(Some),
        }
    }

    fn missing(_: &'static str) -> Result<Self, Error> {
        Ok(None)
    }
}

impl<T: Read> Read for Box<T> {
    fn read(at: At<'_>) -> Result<Self, Error> {
        T::read(at).map(Box::new)
    }
}

impl<T: Read> Read for Vec<T> {
    fn read(at: At<'_>) -> Result<Self, Error> {
        let mut out = Vec::new();
        at.elements(&mut |at| {
            out.push(T::read(at)?);
            Ok(())
        })?;
        Ok(out)
    }
}

impl<T: Read> Read for Arc<[T]> {
    fn read(at: At<'_>) -> Result<Self, Error> {
        Vec::<T>::read(at).map(Arc::from)
    }
}

impl<T: Read> Read for BTreeMap<String, T> {
    fn read(at: At<'_>) -> Result<Self, Error> {
        let mut out = BTreeMap::new();
        at.entries(&mut |key, at| {
            out.insert(String::from(key), T::read(at)?);
            Ok(())
        })?;
        Ok(out)
    }
}

/// Anything, unread: core's decoder skips such a value without looking at it.
impl Read for serde::de::IgnoredAny {
    fn read(_: At<'_>) -> Result<Self, Error> {
        Ok(serde::de::IgnoredAny)
    }
}
