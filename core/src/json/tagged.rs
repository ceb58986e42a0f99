//! Internally tagged enums (`{"op": "replace", …}`), read without serde's buffering.
//!
//! serde's derive reads an internally tagged enum by buffering the whole object into its private `Content`
//! type and reading the variant again from that, which puts a second copy of every variant's parsing code
//! (and of every shape inside it) in the browser package. [`internally_tagged!`] declares the enum as
//! written, with serde's derives for everything but `Deserialize`, plus an externally tagged twin that
//! serde derives `Deserialize` and core derives [`super::Read`] for. Reading takes the tag out of the
//! object and reads the twin from `{variant: the rest}`: by its `Read` for the enum's `Read` (what core
//! reads it by, `At::tagged`), by serde through core's serde deserializer for its `Deserialize`.
//!
//! The answers are serde's: the same messages, a bad or missing tag at the tag's pointer (`/op`), and
//! anything wrong inside the variant at the enum's own pointer, as serde's buffered read reports it. A unit
//! variant ignores the other members, as serde's does. `core/tests/decoder_props/` holds both enums to
//! that.

use alloc::borrow::ToOwned;
use alloc::string::String;
use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

/// Declares an internally tagged enum whose `Deserialize` reads an externally tagged twin instead of
/// serde's buffered form (see the module docs).
///
/// ```ignore
/// internally_tagged! {
///     #[derive(Debug, Serialize)]
///     #[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
///     pub enum Operation ("op") read as #[serde(rename_all = "snake_case", deny_unknown_fields)] {
///         Delete { block_id: String },
///     }
/// }
/// ```
///
/// The attribute after `read as` is the twin's: the enum's own serde attributes without `tag`.
macro_rules! internally_tagged {
    (
        $(#[$attr:meta])*
        pub enum $name:ident ($tag:literal) read as #[$twin:meta] {
            $(
                $(#[$vattr:meta])*
                $variant:ident $({ $( $(#[$fattr:meta])* $field:ident : $fty:ty ),* $(,)? })?
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        pub enum $name {
            $( $(#[$vattr])* $variant $({ $( $(#[$fattr])* $field : $fty ),* })? ),*
        }

        const _: () = {
            /// The same enum, externally tagged: what serde derives `Deserialize` for.
            #[derive(serde::Deserialize, $crate::json::Read)]
            #[$twin]
            enum Twin {
                $( $variant $({ $( $(#[$fattr])* $field : $fty ),* })? ),*
            }

            /// The variants' names, which the tag must be one of.
            #[derive(serde::Deserialize, $crate::json::Read)]
            #[$twin]
            enum Kind {
                $( $variant ),*
            }

            impl From<Twin> for $name {
                fn from(twin: Twin) -> Self {
                    match twin {
                        $( Twin::$variant $({ $($field),* })? => $name::$variant $({ $($field),* })? ),*
                    }
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let expecting = concat!("internally tagged enum ", stringify!($name));
                    let (kind, name, rest) = $crate::json::tagged::parts::<Kind, D>(deserializer, $tag, expecting)?;
                    let unit = match kind {
                        $( Kind::$variant => $crate::json::tagged::internally_tagged!(@unit $({ $($field),* })?) ),*
                    };
                    $crate::json::tagged::read::<Twin, D::Error>(name, rest, unit).map(Self::from)
                }
            }

            impl $crate::json::Read for $name {
                fn read(at: $crate::json::read::At<'_>) -> Result<Self, $crate::json::read::Error> {
                    let expecting = concat!("internally tagged enum ", stringify!($name));
                    fn kind(at: $crate::json::read::At<'_>) -> Result<usize, $crate::json::read::Error> {
                        <Kind as $crate::json::Read>::read(at).map(|kind| kind as usize)
                    }
                    let (index, name, rest) = at.tagged($tag, expecting, &kind)?;
                    let units = [$( $crate::json::tagged::internally_tagged!(@unit $({ $($field),* })?) ),*];
                    let unit = units.get(index).copied().unwrap_or_default();
                    $crate::json::read::twin::<Twin>(name, rest, unit).map(Self::from)
                }
            }
        };
    };
    (@unit) => { true };
    (@unit { $($field:ident),* }) => { false };
}

pub(crate) use internally_tagged;

/// Reads the tag's variant, its name, and the other members of an internally tagged enum's object.
pub(crate) fn parts<'de, K: DeserializeOwned, D: Deserializer<'de>>(
    deserializer: D,
    tag: &'static str,
    expecting: &'static str,
) -> Result<(K, String, Map<String, Value>), D::Error> {
    deserializer.deserialize_any(Tagged { tag, expecting, kind: PhantomData })
}

/// Reads the twin from `{name: rest}`, or from `name` alone for a unit variant. A failure keeps serde's
/// message and takes the enum's own pointer.
pub(crate) fn read<T: DeserializeOwned, E: de::Error>(
    name: String,
    rest: Map<String, Value>,
    unit: bool,
) -> Result<T, E> {
    let input = match unit {
        true => Value::String(name),
        false => Value::Object(Map::from_iter([(name, Value::Object(rest))])),
    };
    super::decoder::read(&input).map_err(|failure| E::custom(failure.error))
}

/// The object of an internally tagged enum.
struct Tagged<K> {
    tag: &'static str,
    expecting: &'static str,
    kind: PhantomData<K>,
}

impl<'de, K: DeserializeOwned> Visitor<'de> for Tagged<K> {
    type Value = (K, String, Map<String, Value>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut kind = None;
        let mut rest = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == self.tag {
                if kind.is_some() {
                    return Err(de::Error::duplicate_field(self.tag));
                }
                kind = Some(map.next_value_seed(Tag(PhantomData))?);
            } else {
                let value: Value = map.next_value()?;
                rest.insert(key, value);
            }
        }
        let (kind, name) = kind.ok_or_else(|| de::Error::missing_field(self.tag))?;
        Ok((kind, name, rest))
    }
}

/// The tag's value: a variant's name.
struct Tag<K>(PhantomData<K>);

impl<'de, K: DeserializeOwned> DeserializeSeed<'de> for Tag<K> {
    type Value = (K, String);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de, K: DeserializeOwned> Visitor<'de> for Tag<K> {
    type Value = (K, String);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Self::Value, E> {
        let kind = K::deserialize(name.into_deserializer())?;
        Ok((kind, name.to_owned()))
    }
}
