//! A fast read of a page straight from its JSON text, for the one hot path that has it: loading a page
//! ([`crate::page::Page::from_json`]). Core's decoder first builds a JSON value of the whole input, which
//! on a 10,000-block page costs about as much again as reading the page itself.
//!
//! The read is all or nothing: it answers the page, or `None`, never an error. A caller reads text that
//! does not read here through the decoder, which answers the error every shape answers. So this reader
//! must accept only what the decoder accepts, with the same page, and it refuses everything else it is
//! not sure of:
//! - a page, a block and its attrs from an object only, with only their own fields (each is
//!   `deny_unknown_fields`), the required ones present (as the decoder; serde_json's own text reader would
//!   take an array of the fields too);
//! - `null` where the decoder reads it as the default (a block's `text`, `attrs` and `editable`, and each
//!   attr), nowhere else;
//! - whole numbers only, in the range of their field, in JSON's form (no sign, no leading zero, no fraction
//!   or exponent): a float or a negative number goes to the decoder, which says why it is wrong;
//! - strings as JSON escapes them, a lone surrogate refused (serde_json refuses it too);
//! - a block type or a permission by its name only; a repeated key refused (the decoder's value keeps the
//!   last one).
//!
//! It is written by hand for the page's three shapes, not through serde: serde's visitors cost the browser
//! package a copy of each shape's reader for this reader alone, and a read through them spent most of its
//! time in their layers (options of options, one call per token), not in the text. A field added to one of
//! the shapes needs adding here too: a page or a block is built with every field named, so it does not
//! compile without; a new attr's key is refused until then, and such pages take the decoder's slower path.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Attrs, Block, BlockHistory, BlockType, Page, Permission};

/// The page `json` is, or `None` when the text is not one that this reader is sure of.
pub(crate) fn page(json: &str) -> Option<Page> {
    let mut text = Text { json, at: 0 };
    let page = text.page().ok()?;
    (text.peek().is_none()).then_some(page)
}

/// The text did not read here; why does not matter (the decoder says).
struct Refused;

/// Marks field `bit` of a shape as read; a field read twice is refused (see the module docs).
fn once(seen: &mut u8, bit: u8) -> Result<(), Refused> {
    match *seen & bit {
        0 => {
            *seen |= bit;
            Ok(())
        }
        _ => Err(Refused),
    }
}

/// The text and the position read up to.
struct Text<'de> {
    json: &'de str,
    at: usize,
}

impl<'de> Text<'de> {
    /// The next byte after JSON whitespace, not taken.
    // This and `eat` run once or more per token. The browser package is built at opt-level z, where they
    // stay calls; inlined, `new PageSession` at 10,000 blocks is about 9% faster, for 333 B gzipped.
    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.json.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.at) {
            self.at += 1;
        }
        bytes.get(self.at).copied()
    }

    /// Takes `byte`, after whitespace.
    #[inline(always)]
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

impl<'de> Text<'de> {
    /// Takes an object's `{`.
    fn open(&mut self) -> Result<(), Refused> {
        self.eat(b'{')
    }

    /// The next member's key, its colon taken, or `None` at the object's end (its `}` taken). `first` is
    /// true until the first member has been read.
    fn key(&mut self, first: &mut bool) -> Result<Option<Cow<'de, str>>, Refused> {
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(None);
        }
        if !core::mem::take(first) {
            self.eat(b',')?;
        }
        let key = self.key_string()?;
        self.eat(b':')?;
        Ok(Some(key))
    }

    /// A member's key. Keys are short: read byte by byte when the quote comes next and the key is plain (the
    /// word scan of [`Text::string`] costs more than it saves on seven bytes; keys are a third of a page's
    /// tokens), else as any string.
    fn key_string(&mut self) -> Result<Cow<'de, str>, Refused> {
        let bytes = self.json.as_bytes();
        if bytes.get(self.at) == Some(&b'"') {
            let start = self.at + 1;
            let mut end = start;
            while let Some(&b) = bytes.get(end) {
                match b {
                    b'"' => {
                        self.at = end + 1;
                        return self.json.get(start..end).map(Cow::Borrowed).ok_or(Refused);
                    }
                    b'\\' => break,
                    b if b < 0x20 => return Err(Refused),
                    _ => end += 1,
                }
            }
        }
        self.string()
    }

    /// `None` for `null`, else what `read` reads.
    fn nullable<T>(&mut self, read: fn(&mut Self) -> Result<T, Refused>) -> Result<Option<T>, Refused> {
        match self.literal("null") {
            true => Ok(None),
            false => read(self).map(Some),
        }
    }

    /// An owned string.
    fn owned(&mut self) -> Result<String, Refused> {
        self.string().map(Cow::into_owned)
    }

    /// `true` or `false`.
    fn boolean(&mut self) -> Result<bool, Refused> {
        match (self.literal("true"), self.literal("false")) {
            (true, _) => Ok(true),
            (_, true) => Ok(false),
            _ => Err(Refused),
        }
    }

    /// A whole number that fits `T`.
    fn number<T: TryFrom<u64>>(&mut self) -> Result<T, Refused> {
        T::try_from(self.whole_number()?).map_err(|_| Refused)
    }

    /// The page: `workspaceId`, `documentId` and `blocks`, and optionally `title`, `revision` and
    /// `permission` (none of them `null`).
    fn page(&mut self) -> Result<Page, Refused> {
        let (mut workspace_id, mut document_id, mut blocks) = (None, None, None);
        let (mut title, mut revision, mut permission) = (String::new(), 0, Permission::default());
        let (mut seen, mut first) = (0, true);
        self.open()?;
        while let Some(key) = self.key(&mut first)? {
            match &*key {
                "workspaceId" => {
                    once(&mut seen, 1)?;
                    workspace_id = Some(self.owned()?);
                }
                "documentId" => {
                    once(&mut seen, 2)?;
                    document_id = Some(self.owned()?);
                }
                "title" => {
                    once(&mut seen, 4)?;
                    title = self.owned()?;
                }
                "revision" => {
                    once(&mut seen, 8)?;
                    revision = self.number()?;
                }
                "permission" => {
                    once(&mut seen, 16)?;
                    permission = self.permission()?;
                }
                "blocks" => {
                    once(&mut seen, 32)?;
                    blocks = Some(self.blocks()?);
                }
                _ => return Err(Refused),
            }
        }
        Ok(Page {
            workspace_id: workspace_id.ok_or(Refused)?,
            document_id: document_id.ok_or(Refused)?,
            title,
            revision,
            permission,
            blocks: blocks.ok_or(Refused)?,
            history: BlockHistory::new(revision),
        })
    }

    /// A permission by its name.
    fn permission(&mut self) -> Result<Permission, Refused> {
        match &*self.string()? {
            "edit" => Ok(Permission::Edit),
            "read" => Ok(Permission::Read),
            _ => Err(Refused),
        }
    }

    /// The array of blocks.
    fn blocks(&mut self) -> Result<Vec<Block>, Refused> {
        self.eat(b'[')?;
        let mut blocks = Vec::new();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(blocks);
        }
        loop {
            blocks.push(self.block()?);
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(blocks);
                }
                _ => return Err(Refused),
            }
        }
    }

    /// A block: `blockId` and `type`, and optionally `text` and `attrs` (`null` for their defaults) and
    /// `editable` (`null` for `true`).
    fn block(&mut self) -> Result<Block, Refused> {
        let (mut block_id, mut kind) = (None, None);
        let (mut text, mut attrs, mut editable) = (String::new(), Attrs::default(), true);
        let (mut seen, mut first) = (0, true);
        self.open()?;
        while let Some(key) = self.key(&mut first)? {
            match &*key {
                "blockId" => {
                    once(&mut seen, 1)?;
                    block_id = Some(self.owned()?);
                }
                "type" => {
                    once(&mut seen, 2)?;
                    kind = Some(self.block_type()?);
                }
                "text" => {
                    once(&mut seen, 4)?;
                    text = self.nullable(Self::owned)?.unwrap_or_default();
                }
                "attrs" => {
                    once(&mut seen, 8)?;
                    attrs = self.nullable(Self::attrs)?.unwrap_or_default();
                }
                "editable" => {
                    once(&mut seen, 16)?;
                    editable = self.nullable(Self::boolean)?.unwrap_or(true);
                }
                _ => return Err(Refused),
            }
        }
        Ok(Block { block_id: block_id.ok_or(Refused)?, kind: kind.ok_or(Refused)?, text, attrs, editable })
    }

    /// A block type by its name.
    fn block_type(&mut self) -> Result<BlockType, Refused> {
        let name = self.string()?;
        BlockType::ALL.into_iter().find(|kind| kind.as_str() == name).ok_or(Refused)
    }

    /// A block's attrs, each optional and `null` for none.
    fn attrs(&mut self) -> Result<Attrs, Refused> {
        let mut attrs = Attrs::default();
        let (mut seen, mut first) = (0, true);
        self.open()?;
        while let Some(key) = self.key(&mut first)? {
            match &*key {
                "level" => {
                    once(&mut seen, 1)?;
                    attrs.level = self.nullable(Self::number)?;
                }
                "checked" => {
                    once(&mut seen, 2)?;
                    attrs.checked = self.nullable(Self::boolean)?;
                }
                "language" => {
                    once(&mut seen, 4)?;
                    attrs.language = self.nullable(Self::owned)?;
                }
                "src" => {
                    once(&mut seen, 8)?;
                    attrs.src = self.nullable(Self::owned)?;
                }
                "alt" => {
                    once(&mut seen, 16)?;
                    attrs.alt = self.nullable(Self::owned)?;
                }
                "depth" => {
                    once(&mut seen, 32)?;
                    attrs.depth = self.nullable(Self::number)?;
                }
                _ => return Err(Refused),
            }
        }
        Ok(attrs)
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;

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

    /// Every field the fast read takes, with `null` where the decoder allows it, an escaped key and the
    /// edges of each number's range: read fast, the same page as the decoder's. Then what it must refuse,
    /// each of which the decoder answers (a page or an error) instead.
    #[test]
    fn the_fast_read_takes_each_field_as_the_decoder_does() {
        let head = r#""workspaceId":"ws","documentId":"doc""#;
        let block = |rest: &str| format!(r#"{{{head},"blocks":[{{"blockId":"b","type":"code"{rest}}}]}}"#);
        let fast = [
            format!(r#"{{"blocks":[],"permission":"edit","revision":18446744073709551615,"title":"",{head}}}"#),
            block(r#","text":"x","editable":false,"attrs":{}"#),
            block(r#","attrs":{"level":null,"checked":null,"language":null,"src":null,"alt":null,"depth":null}"#),
            block(r#","attrs":{"language":"rust","src":"s","alt":"a","checked":false,"depth":4294967295,"level":255}"#),
            block(r#","editable":true,"t\u0065xt":"e","\u0061ttrs":{"l\u0065vel":1}"#),
            format!(
                r#"{{{head},"blocks":[{{"type":"heading","blockId":"b","attrs":{{"level":6}}}},{{"blockId":"c","type":"divider"}}]}}"#
            ),
        ];
        let refused = [
            format!(r#"{{{head},"title":null,"blocks":[]}}"#),
            format!(r#"{{{head},"revision":null,"blocks":[]}}"#),
            format!(r#"{{{head},"permission":null,"blocks":[]}}"#),
            format!(r#"{{{head},"permission":"write","blocks":[]}}"#),
            format!(r#"{{{head},"revision":18446744073709551616,"blocks":[]}}"#),
            format!(r#"{{{head},"title":"a","title":"b","blocks":[]}}"#),
            format!(r#"{{{head},"blocks":null}}"#),
            format!(r#"{{{head},"blocks":[],"extra":1}}"#),
            String::from(r#"{"workspaceId":"ws","blocks":[]}"#),
            String::from(r#"{"workspaceId":null,"documentId":"doc","blocks":[]}"#),
            block(r#","attrs":{"depth":4294967296}"#),
            block(r#","attrs":{"level":256}"#),
            block(r#","attrs":{"level":1.0}"#),
            block(r#","attrs":{"depth":1,"depth":2}"#),
            block(r#","attrs":{"colour":"red"}"#),
            block(r#","attrs":[]"#),
            block(r#","editable":"yes""#),
            block(r#","text":1"#),
            block(r#","blockId":"c""#),
            format!(r#"{{{head},"blocks":[{{"blockId":null,"type":"code"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"b","type":"Code"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"b"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"type":"code"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"b","type":"code"}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"b","type":"code"}}]"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"b","type":"code"}} {{"blockId":"c","type":"code"}}]}}"#),
            format!(r#"{{{head} "blocks":[]}}"#),
            format!(r#"{{,{head},"blocks":[]}}"#),
            String::new(),
        ];
        for json in fast.iter().chain(&refused) {
            let decoded = crate::json::from_json::<Page>(json).and_then(|page| page.validate().map(|()| page));
            assert_eq!(Page::from_json(json), decoded, "{json}");
        }
        for json in &fast {
            assert!(page(json).is_some(), "{json}");
        }
        for json in &refused {
            assert!(page(json).is_none(), "{json}");
        }
        let escaped = page(&fast[4]).map(|page| page.blocks[0].clone());
        assert_eq!(escaped.map(|b| (b.text, b.attrs.level)), Some(("e".into(), Some(1))));
    }
}
