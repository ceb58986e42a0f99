//! Core's serde deserializer: a borrowed [`Value`], read the way serde_json reads it, that also records the
//! JSON pointer of the first field that failed. Shapes are read by their [`super::Read`] (`read.rs`, which
//! shares this file's pointer tracking and error words); this reads what has only serde's `Deserialize`
//! ([`super::from_value_serde`]: the Worker's own records) and is what `read.rs` answers like.
//!
//! It answers what `serde_path_to_error` over serde_json's `&Value` deserializer answers (the same messages,
//! the same pointer), with one exception: a struct is read from an object only, never from an array of its
//! fields in order ("invalid type: sequence, expected struct …"). The `agrees_with_serde_path_to_error`
//! property test (core/tests/decoder_props/) holds it to that. It exists for the size of the browser package: path tracking by wrapping another deserializer puts a wrapper
//! around every visitor, one more copy of every shape's parsing code, while here the tracking is three
//! `map_err`s that do not depend on the shape.
//!
//! Where a failure is put:
//! - a value that does not read (a wrong type, a missing field of an object, a bad variant) at its own
//!   pointer;
//! - a key that does not read (an unknown field) at the pointer of that key's member;
//! - the innermost pointer wins: a failure is given a pointer once, where it happens, and keeps it on its
//!   way out.
//!
//! Its error type is its own [`Error`], which words a failure as serde_json's does; see there for why.

use alloc::boxed::Box;
use alloc::string::{String, ToString};
use core::cell::Cell;
use core::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Error as _, Expected, IntoDeserializer, Unexpected, Visitor};
use serde_json::{Map, Number, Value};

/// A failed read: where, and why.
pub(super) struct Failure {
    /// The JSON pointer of the value (or key) that did not read; empty for the whole input.
    pub pointer: String,
    /// What went wrong, in serde's words.
    pub error: Error,
}

/// Why a read failed: the message serde_json's own error would carry, word for word.
///
/// The decoder's own type rather than `serde_json::Error` for the size of the browser package: serde_json
/// words "invalid type" and "invalid value" through serde's `Unexpected` display, whose floating-point arm
/// brings in core's whole `f64` formatting (Grisu and Dragon with their tables, about 8 KB gzipped), though
/// a JSON float is only ever worded by serde_json's own shortest form. Here every kind of `Unexpected` is
/// spelled out as serde words it and a float as serde_json does ([`Number`]'s display), so nothing reaches
/// core's. `serde_json::Error` displays a message made by `custom` as the message itself (what
/// `json::reason_of` reads), so the two agree byte for byte; the decoder's property test holds them to
/// that against serde_path_to_error.
/// Boxed, so that a `Result` carrying it is as small as one carrying serde_json's (a pointer): a wider
/// error makes every visitor's code larger.
#[allow(clippy::box_collection)] // The box is the point: one pointer, see above.
pub struct Error(Box<String>);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl de::StdError for Error {}

impl de::Error for Error {
    #[cold]
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error(Box::new(message.to_string()))
    }

    #[cold]
    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        Error(Box::new(alloc::format!("invalid type: {}, expected {}", Json(unexpected), expected)))
    }

    #[cold]
    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        Error(Box::new(alloc::format!("invalid value: {}, expected {}", Json(unexpected), expected)))
    }
}

/// What was found, in serde_json's words: serde's, but `null` for the unit value and a float printed
/// shortest-round-trip.
struct Json<'a>(Unexpected<'a>);

impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Unexpected::Bool(b) => write!(f, "boolean `{b}`"),
            Unexpected::Unsigned(i) => write!(f, "integer `{i}`"),
            Unexpected::Signed(i) => write!(f, "integer `{i}`"),
            Unexpected::Float(x) => match Number::from_f64(x) {
                Some(number) => write!(f, "floating point `{number}`"),
                // Not a JSON number; spelled as serde_json spells it.
                None if x.is_nan() => f.write_str("floating point `NaN`"),
                None if x > 0.0 => f.write_str("floating point `inf`"),
                None => f.write_str("floating point `-inf`"),
            },
            Unexpected::Char(c) => write!(f, "character `{c}`"),
            Unexpected::Str(s) => write!(f, "string {s:?}"),
            Unexpected::Bytes(_) => f.write_str("byte array"),
            Unexpected::Unit => f.write_str("null"),
            Unexpected::Option => f.write_str("Option value"),
            Unexpected::NewtypeStruct => f.write_str("newtype struct"),
            Unexpected::Seq => f.write_str("sequence"),
            Unexpected::Map => f.write_str("map"),
            Unexpected::Enum => f.write_str("enum"),
            Unexpected::UnitVariant => f.write_str("unit variant"),
            Unexpected::NewtypeVariant => f.write_str("newtype variant"),
            Unexpected::TupleVariant => f.write_str("tuple variant"),
            Unexpected::StructVariant => f.write_str("struct variant"),
            Unexpected::Other(other) => f.write_str(other),
        }
    }
}

/// Reads `T` from `value`, or says where and why it does not read.
pub(super) fn read<'de, T: de::Deserialize<'de>>(value: &'de Value) -> Result<T, Failure> {
    let track = Track(Cell::new(None));
    T::deserialize(At { value, path: &Path::Root, track: &track }).map_err(|error| track.failure(error))
}

/// Where a value is, as a chain of its parents on the stack; spelled out only when something fails.
pub(super) enum Path<'a> {
    Root,
    Member { parent: &'a Path<'a>, key: &'a str },
    Element { parent: &'a Path<'a>, index: usize },
}

impl Path<'_> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Path::Root => {}
            Path::Member { parent, key } => {
                parent.write(out);
                out.push('/');
                super::push_escaped(out, key);
            }
            Path::Element { parent, index } => {
                parent.write(out);
                out.push('/');
                out.push_str(&index.to_string());
            }
        }
    }
}

/// The pointer of the first failure, once there is one.
pub(super) struct Track(Cell<Option<String>>);

impl Track {
    pub(super) fn new() -> Self {
        Track(Cell::new(None))
    }

    /// Gives `error` the pointer `path` unless a deeper one already took it. Out of line: every reader of a
    /// member or element calls it, and inlined it would be one more copy in each (the browser package).
    #[cold]
    #[inline(never)]
    pub(super) fn fail(&self, path: &Path<'_>, error: Error) -> Error {
        let first = self.0.take().unwrap_or_else(|| path.pointer());
        self.0.set(Some(first));
        error
    }

    /// The failure of the whole read: `error` at the pointer tracked. Out of line, like [`Track::fail`].
    #[cold]
    #[inline(never)]
    pub(super) fn failure(&self, error: Error) -> Failure {
        Failure { pointer: self.0.take().unwrap_or_default(), error }
    }
}

/// A value and where it is.
struct At<'a, 'de> {
    value: &'de Value,
    path: &'a Path<'a>,
    track: &'a Track,
}

impl<'de> At<'_, 'de> {
    fn invalid_type(&self, expected: &dyn Expected) -> Error {
        Error::invalid_type(unexpected(self.value), expected)
    }

    /// An array's elements for `visitor`, all of which it must take.
    fn visit_array<V: Visitor<'de>>(&self, items: &'de [Value], visitor: V) -> Result<V::Value, Error> {
        let mut elements = Elements { items: items.iter(), index: 0, path: self.path, track: self.track };
        let out = visitor.visit_seq(&mut elements)?;
        match elements.items.len() {
            0 => Ok(out),
            _ => Err(Error::invalid_length(items.len(), &"fewer elements in array")),
        }
    }

    /// An object's members for `visitor`, all of which it must take.
    fn visit_object<V: Visitor<'de>>(&self, map: &'de Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
        let mut members = Members { members: map.iter(), value: None, path: self.path, track: self.track };
        let out = visitor.visit_map(&mut members)?;
        match members.members.len() {
            0 => Ok(out),
            _ => Err(Error::invalid_length(map.len(), &"fewer elements in map")),
        }
    }
}

/// What serde calls the value, for "invalid type: …" messages.
pub(super) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            (None, None) => Unexpected::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// An enum's variant name, and its content unless it is a unit variant given by its name. Not generic, so
/// that each enum's reader carries one call, not this.
#[inline(never)]
fn variant_of(value: &Value) -> Result<(&str, Option<&Value>), Error> {
    match value {
        Value::String(name) => Ok((name.as_str(), None)),
        Value::Object(map) => {
            let mut members = map.iter();
            match (members.next(), members.next()) {
                (Some((name, content)), None) => Ok((name.as_str(), Some(content))),
                _ => Err(Error::invalid_value(Unexpected::Map, &"map with a single key")),
            }
        }
        other => Err(Error::invalid_type(unexpected(other), &"string or map")),
    }
}

/// A number for `visitor`: an integer as `u64` or `i64`, anything else as `f64`.
fn visit_number<'de, V: Visitor<'de>>(n: &serde_json::Number, visitor: V) -> Result<V::Value, Error> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => visitor.visit_u64(u),
        (None, Some(i)) => visitor.visit_i64(i),
        (None, None) => visitor.visit_f64(n.as_f64().unwrap_or_default()),
    }
}

macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.value {
                Value::Number(n) => visit_number(n, visitor),
                _ => Err(self.invalid_type(&visitor)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for At<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => self.visit_array(items, visitor),
            Value::Object(map) => self.visit_object(map, visitor),
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Bool(b) => visitor.visit_bool(*b),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => self.visit_array(items, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(map) => self.visit_object(map, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // serde_json would also read a struct from an array, its fields in order. No schema of core's allows
        // that, and refusing it keeps every struct's positional reader out of the browser package.
        match self.value {
            Value::Object(map) => self.visit_object(map, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    /// A unit variant is its name; any other variant an object of one member, its name and its content.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (name, content) = variant_of(self.value)?;
        visitor.visit_enum(Variant { name, content, path: self.path, track: self.track })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// The elements of an array.
struct Elements<'a, 'de> {
    items: core::slice::Iter<'de, Value>,
    index: usize,
    path: &'a Path<'a>,
    track: &'a Track,
}

impl<'de> de::SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let Some(value) = self.items.next() else { return Ok(None) };
        let path = Path::Element { parent: self.path, index: self.index };
        self.index += 1;
        seed.deserialize(At { value, path: &path, track: self.track }).map(Some).map_err(|e| self.track.fail(&path, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The members of an object, in the map's order.
struct Members<'a, 'de> {
    members: serde_json::map::Iter<'de>,
    /// The member whose key was read last, until its value is.
    value: Option<(&'de str, &'de Value)>,
    path: &'a Path<'a>,
    track: &'a Track,
}

impl<'de> de::MapAccess<'de> for Members<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.members.next() else { return Ok(None) };
        self.value = Some((key, value));
        seed.deserialize(Key(key)).map(Some).map_err(|e| self.track.fail(&Path::Member { parent: self.path, key }, e))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, value)) = self.value.take() else { return Err(Error::custom("value is missing")) };
        let path = Path::Member { parent: self.path, key };
        seed.deserialize(At { value, path: &path, track: self.track }).map_err(|e| self.track.fail(&path, e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// An object's key, which serde reads as a field name, a map key or a variant name.
struct Key<'de>(&'de str);

impl<'de> Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.into_deserializer().deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// A variant: its name, and its content unless it is a unit variant.
struct Variant<'a, 'de> {
    name: &'de str,
    content: Option<&'de Value>,
    path: &'a Path<'a>,
    track: &'a Track,
}

impl<'a, 'de> de::EnumAccess<'de> for Variant<'a, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        Ok((seed.deserialize(Key(self.name))?, self))
    }
}

impl<'de> Variant<'_, 'de> {
    /// Reads the content at its own pointer, the variant's name below the enum's. A unit variant, which has
    /// none, fails there too.
    fn content<T>(&self, read: impl FnOnce(At<'_, 'de>) -> Result<T, Error>, expected: &str) -> Result<T, Error> {
        let path = Path::Member { parent: self.path, key: self.name };
        match self.content {
            Some(value) => read(At { value, path: &path, track: self.track }),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &Expecting(expected))),
        }
        .map_err(|e| self.track.fail(&path, e))
    }
}

impl<'de> de::VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.content {
            None => Ok(()),
            Some(_) => self.content(|at| <() as de::Deserialize>::deserialize(at), "unit variant"),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        self.content(|at| seed.deserialize(at), "newtype variant")
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.content(
            |at| match at.value {
                Value::Array(items) if items.is_empty() => visitor.visit_unit(),
                Value::Array(items) => at.visit_array(items, visitor),
                other => Err(Error::invalid_type(unexpected(other), &"tuple variant")),
            },
            "tuple variant",
        )
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        self.content(
            |at| match at.value {
                Value::Object(map) => at.visit_object(map, visitor),
                other => Err(Error::invalid_type(unexpected(other), &"struct variant")),
            },
            "struct variant",
        )
    }
}

/// A fixed "expected …" text.
pub(super) struct Expecting<'a>(pub(super) &'a str);

impl Expected for Expecting<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
