//! A fast read of a typed value straight from JSON text, for the one hot path that has it: loading a page
//! ([`crate::page::Page::from_json`]). Core's decoder first builds a JSON value of the whole input, which
//! on a 10,000-block page costs about as much again as reading the page itself.
//!
//! The read is all or nothing: it answers the value, or `None`, never an error. A caller reads text that
//! does not read here through the decoder, which answers the error every shape answers. So this reader
//! must accept only what the decoder accepts, with the same value, and it refuses everything else it is
//! not sure of:
//! - a struct from an object only (as the decoder; serde_json's own text reader would take an array of its
//!   fields too);
//! - whole numbers only, from 0 to `u64::MAX`, in JSON's form (no sign, no leading zero, no fraction or
//!   exponent): a float or a negative number goes to the decoder, which says why it is wrong;
//! - strings as JSON escapes them, a lone surrogate refused (serde_json refuses it too);
//! - a unit variant from its name only; a repeated key refused (the decoder's value keeps the last one);
//! - nothing read through `deserialize_any`.
//!
//! Its error type carries nothing, so the browser package gets no message formatting from it, only the
//! shapes' visitors for this reader.

use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Visitor};

/// `T` read from `json`, or `None` when the text is not one that this reader is sure of.
pub(crate) fn read<'de, T: Deserialize<'de>>(json: &'de str) -> Option<T> {
    let mut text = Text { json, at: 0 };
    let value = T::deserialize(&mut text).ok()?;
    (text.peek().is_none()).then_some(value)
}

/// The text did not read here; why does not matter (the decoder says).
#[derive(Debug)]
pub(crate) struct Refused;

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("refused")
    }
}

impl de::StdError for Refused {}

impl de::Error for Refused {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Refused
    }

    fn invalid_type(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        Refused
    }

    fn invalid_value(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Self {
        Refused
    }

    fn invalid_length(_: usize, _: &dyn de::Expected) -> Self {
        Refused
    }

    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Self {
        Refused
    }

    fn unknown_field(_: &str, _: &'static [&'static str]) -> Self {
        Refused
    }

    fn missing_field(_: &'static str) -> Self {
        Refused
    }

    fn duplicate_field(_: &'static str) -> Self {
        Refused
    }
}

/// The text and the position read up to.
struct Text<'de> {
    json: &'de str,
    at: usize,
}

impl<'de> Text<'de> {
    /// The next byte after JSON whitespace, not taken.
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.json.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.at) {
            self.at += 1;
        }
        bytes.get(self.at).copied()
    }

    /// Takes `byte`, after whitespace.
    fn eat(&mut self, byte: u8) -> Result<(), Refused> {
        match self.peek() == Some(byte) {
            true => {
                self.at += 1;
                Ok(())
            }
            false => Err(Refused),
        }
    }

    /// Takes `word` (`null`, `true`, `false`) when it comes next.
    fn literal(&mut self, word: &str) -> bool {
        self.peek();
        let found = self.json.get(self.at..).is_some_and(|rest| rest.starts_with(word));
        if found {
            self.at += word.len();
        }
        found
    }

    /// A string, borrowed from the text when it has no escapes.
    fn string(&mut self) -> Result<Cow<'de, str>, Refused> {
        self.eat(b'"')?;
        let start = self.at;
        let end = self.plain_run();
        match self.json.as_bytes().get(end) {
            Some(b'"') => {
                self.at = end + 1;
                self.json.get(start..end).map(Cow::Borrowed).ok_or(Refused)
            }
            Some(b'\\') => self.escaped(start).map(Cow::Owned),
            _ => Err(Refused),
        }
    }

    /// Where the run of plain characters from the position ends: at a quote, a backslash, a control
    /// character (which JSON does not allow in a string) or the end of the text.
    ///
    /// Eight bytes at a time (a page's text is most of its JSON), by the usual word trick:
    /// `(x - 0x01…01 * n) & !x & 0x80…80` marks the bytes of `x` below `n` (a quote or a backslash is a zero
    /// byte of `x` xor that byte repeated). Bytes above a marked one may be marked wrongly (a borrow runs
    /// upwards), the lowest never, and the lowest is the one wanted. The last bytes of the text, fewer than
    /// eight, are read one by one. A byte at a time, this loop was about a quarter of `new PageSession` on
    /// a 10,000-block page.
    fn plain_run(&self) -> usize {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGHS;
        let bytes = self.json.as_bytes();
        let mut end = self.at;
        while let Some(Ok(word)) = bytes.get(end..end + 8).map(<[u8; 8]>::try_from) {
            let x = u64::from_le_bytes(word);
            let found =
                below(x ^ (ONES * u64::from(b'"')), 1) | below(x ^ (ONES * u64::from(b'\\')), 1) | below(x, 0x20);
            if found != 0 {
                return end + (found.trailing_zeros() / 8) as usize;
            }
            end += 8;
        }
        while let Some(&b) = bytes.get(end) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                break;
            }
            end += 1;
        }
        end
    }

    /// The rest of a string from `start`, which has an escape.
    #[inline(never)]
    fn escaped(&mut self, start: usize) -> Result<String, Refused> {
        let mut out = String::new();
        self.at = start;
        loop {
            let end = self.plain_run();
            out.push_str(self.json.get(self.at..end).ok_or(Refused)?);
            self.at = end + 1;
            match self.json.as_bytes().get(end) {
                Some(b'"') => return Ok(out),
                Some(b'\\') => {}
                _ => return Err(Refused),
            }
            let escape = self.json.as_bytes().get(self.at).copied().ok_or(Refused)?;
            self.at += 1;
            out.push(match escape {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.unicode_escape()?,
                _ => return Err(Refused),
            });
        }
    }

    /// The character of a `\u` escape (its `\u` taken), with the low half of a surrogate pair.
    fn unicode_escape(&mut self) -> Result<char, Refused> {
        let high = self.hex4()?;
        let code = match high {
            0xD800..=0xDBFF => {
                if self.json.as_bytes().get(self.at..self.at + 2) != Some(b"\\u") {
                    return Err(Refused);
                }
                self.at += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(Refused);
                }
                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(Refused),
            code => code,
        };
        char::from_u32(code).ok_or(Refused)
    }

    /// Four hex digits.
    fn hex4(&mut self) -> Result<u32, Refused> {
        let digits = self.json.get(self.at..self.at + 4).ok_or(Refused)?;
        self.at += 4;
        digits.chars().try_fold(0, |n, c| Ok(n * 16 + c.to_digit(16).ok_or(Refused)?))
    }

    /// A whole number from 0 to `u64::MAX`, in JSON's form.
    fn whole_number(&mut self) -> Result<u64, Refused> {
        self.peek();
        let bytes = self.json.as_bytes();
        let start = self.at;
        let mut n: u64 = 0;
        while let Some(&b) = bytes.get(self.at).filter(|b| b.is_ascii_digit()) {
            n = n.checked_mul(10).and_then(|n| n.checked_add(u64::from(b - b'0'))).ok_or(Refused)?;
            self.at += 1;
        }
        let digits = self.at - start;
        let leading_zero = digits > 1 && bytes.get(start) == Some(&b'0');
        let fraction = matches!(bytes.get(self.at), Some(b'.' | b'e' | b'E'));
        match digits == 0 || leading_zero || fraction {
            true => Err(Refused),
            false => Ok(n),
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Text<'de> {
    type Error = Refused;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Refused> {
        Err(Refused)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        match (self.literal("true"), self.literal("false")) {
            (true, _) => visitor.visit_bool(true),
            (_, true) => visitor.visit_bool(false),
            _ => Err(Refused),
        }
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        visitor.visit_u64(self.whole_number()?)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        match self.string()? {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_string(s),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        match self.literal("null") {
            true => visitor.visit_none(),
            false => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Refused> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.eat(b'[')?;
        let mut list = List { text: self, close: b']', first: true, closed: false };
        let value = visitor.visit_seq(&mut list)?;
        list.closed.then_some(value).ok_or(Refused)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Refused> {
        self.eat(b'{')?;
        let mut list = List { text: self, close: b'}', first: true, closed: false };
        let value = visitor.visit_map(&mut list)?;
        list.closed.then_some(value).ok_or(Refused)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Refused> {
        match self.peek() {
            Some(b'"') => visitor.visit_enum(self),
            _ => Err(Refused),
        }
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u128 f32 f64 char bytes byte_buf unit unit_struct tuple tuple_struct ignored_any
    }
}

/// The members of an object or the elements of an array, up to its closing bracket.
struct List<'a, 'de> {
    text: &'a mut Text<'de>,
    close: u8,
    first: bool,
    /// Whether the closing bracket was read: the visitor took every member.
    closed: bool,
}

impl List<'_, '_> {
    /// Whether another member or element follows (its comma taken).
    fn more(&mut self) -> Result<bool, Refused> {
        if self.text.peek() == Some(self.close) {
            self.text.at += 1;
            self.closed = true;
            return Ok(false);
        }
        if !self.first {
            self.text.eat(b',')?;
        }
        self.first = false;
        Ok(true)
    }
}

impl<'de> de::SeqAccess<'de> for List<'_, 'de> {
    type Error = Refused;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Refused> {
        match self.more()? {
            true => seed.deserialize(&mut *self.text).map(Some),
            false => Ok(None),
        }
    }
}

impl<'de> de::MapAccess<'de> for List<'_, 'de> {
    type Error = Refused;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Refused> {
        match self.more()? {
            // A key is a string; `deserialize_identifier` and `deserialize_str` read nothing else.
            true => seed.deserialize(&mut *self.text).map(Some),
            false => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Refused> {
        self.text.eat(b':')?;
        seed.deserialize(&mut *self.text)
    }
}

impl<'de> de::EnumAccess<'de> for &mut Text<'de> {
    type Error = Refused;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Refused> {
        Ok((seed.deserialize(&mut *self)?, self))
    }
}

/// A variant read from its name alone is a unit variant; any other kind goes to the decoder.
impl<'de> de::VariantAccess<'de> for &mut Text<'de> {
    type Error = Refused;

    fn unit_variant(self) -> Result<(), Refused> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value, Refused> {
        Err(Refused)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value, Refused> {
        Err(Refused)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Refused> {
        Err(Refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time scan stops where a byte-at-a-time one does: at every position of every kind of
    /// stop byte, among plain ASCII and multi-byte UTF-8, and at the end of the text.
    #[test]
    fn a_plain_run_ends_at_the_first_quote_backslash_or_control_character() {
        let byte_at_a_time = |json: &str, at: usize| {
            json.as_bytes()
                .iter()
                .skip(at)
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .map_or(json.len(), |n| at + n)
        };
        for filler in ["abcdefghijklmnopqrstuvwxyz", "标记号。标记号。", "\u{7f}\u{80}ÿ!#[]~ "] {
            for stop in ["\"", "\\", "\n", "\u{0}", "\u{1f}", ""] {
                for len in 0..40 {
                    let plain: String = filler.chars().cycle().take(len).collect();
                    let json = alloc::format!("{plain}{stop}{filler}\"");
                    for at in 0..=plain.len() {
                        let text = Text { json: &json, at };
                        assert_eq!(text.plain_run(), byte_at_a_time(&json, at), "{json:?} from {at}");
                    }
                }
            }
        }
        let text = Text { json: "0123456789abcdef", at: 3 };
        assert_eq!(text.plain_run(), 16);
    }
}
