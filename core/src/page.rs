//! The page model: a page is an ordered list of typed blocks with stable ids.
//!
//! This module owns the model's invariants (id format, uniqueness, attrs that fit the block type) and the
//! content hashes that detect conflicting writes: [`Page::conflict_detection_key`] for the whole page and
//! [`Page::revision_ref`] for one block. Hashes are XXH3-64 over a length-prefixed canonical encoding, so
//! they are identical on every platform, native and WASM.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use hashbrown::HashSet;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, Result};
pub use crate::history::BlockHistory;

/// A good page read straight from its JSON text, by hand (the hot path of `new PageSession`).
mod text;

/// The longest block id allowed.
pub const MAX_BLOCK_ID_LEN: usize = 64;

/// The longest document id allowed.
pub const MAX_DOCUMENT_ID_LEN: usize = 64;

/// What a page's reader may do with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    /// Reads and writes are allowed.
    #[default]
    Edit,
    /// Only reads are allowed; every write tool is disabled.
    Read,
}

/// The kind of a block. The snake_case name is the wire form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlockType {
    /// `attrs.level` 1..=6.
    Heading,
    /// Plain prose.
    Paragraph,
    /// `attrs.depth` is the nesting level.
    BulletedListItem,
    /// `attrs.depth` is the nesting level.
    NumberedListItem,
    /// `attrs.checked`, `attrs.depth`.
    Todo,
    /// A block quote; text may span several lines.
    Quote,
    /// Literal code; `attrs.language` is the fence's info string.
    Code,
    /// A thematic break; no text.
    Divider,
    /// `attrs.src` and `attrs.alt`; no text.
    Image,
    /// `text` is the GFM table source.
    Table,
}

impl BlockType {
    /// Every type, in the order of the spec.
    pub const ALL: [BlockType; 10] = [
        BlockType::Heading,
        BlockType::Paragraph,
        BlockType::BulletedListItem,
        BlockType::NumberedListItem,
        BlockType::Todo,
        BlockType::Quote,
        BlockType::Code,
        BlockType::Divider,
        BlockType::Image,
        BlockType::Table,
    ];

    /// The wire name, e.g. `bulleted_list_item`.
    pub const fn as_str(self) -> &'static str {
        match self {
            BlockType::Heading => "heading",
            BlockType::Paragraph => "paragraph",
            BlockType::BulletedListItem => "bulleted_list_item",
            BlockType::NumberedListItem => "numbered_list_item",
            BlockType::Todo => "todo",
            BlockType::Quote => "quote",
            BlockType::Code => "code",
            BlockType::Divider => "divider",
            BlockType::Image => "image",
            BlockType::Table => "table",
        }
    }

    /// List-like blocks carry `attrs.depth`.
    pub const fn is_list(self) -> bool {
        match self {
            BlockType::BulletedListItem | BlockType::NumberedListItem | BlockType::Todo => true,
            BlockType::Heading
            | BlockType::Paragraph
            | BlockType::Quote
            | BlockType::Code
            | BlockType::Divider
            | BlockType::Image
            | BlockType::Table => false,
        }
    }
}

/// Type-specific attributes. Which fields are allowed depends on the block's type; see [`Block::validate`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Attrs {
    /// Heading level, 1..=6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// Whether a todo is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checked: Option<bool>,
    /// A code block's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// An image's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    /// An image's alternative text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alt: Option<String>,
    /// Nesting depth of a list item, 0-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
}

impl Attrs {
    /// True when no attribute is set.
    pub fn is_empty(&self) -> bool {
        self == &Attrs::default()
    }
}

/// One block of a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Block {
    /// Unique within the page; matches `^[A-Za-z0-9_-]{1,64}$`.
    pub block_id: String,
    /// The block's kind.
    #[serde(rename = "type")]
    pub kind: BlockType,
    /// Inline Markdown (literal text for `code`, table source for `table`).
    #[serde(default, deserialize_with = "null_as_default")]
    pub text: String,
    /// Type-specific attributes.
    #[serde(default, skip_serializing_if = "Attrs::is_empty", deserialize_with = "null_as_default")]
    pub attrs: Attrs,
    /// `false` locks the block: no write may touch it.
    #[serde(default = "editable_default", deserialize_with = "null_as_editable")]
    #[read(null_as_default)]
    pub editable: bool,
}

const fn editable_default() -> bool {
    true
}

/// Reads `null` as the field's default, the same as leaving it out: OpenAI's strict function calling
/// sends every optional argument, as `null` when unset (`manifest::openai_functions_strict`).
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> core::result::Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

fn null_as_editable<'de, D: serde::Deserializer<'de>>(deserializer: D) -> core::result::Result<bool, D::Error> {
    Ok(Option::<bool>::deserialize(deserializer)?.unwrap_or(editable_default()))
}

impl Block {
    /// A block of any type with empty attrs, editable.
    pub fn new(block_id: impl Into<String>, kind: BlockType, text: impl Into<String>) -> Self {
        Block { block_id: block_id.into(), kind, text: text.into(), attrs: Attrs::default(), editable: true }
    }

    /// A paragraph.
    pub fn paragraph(block_id: impl Into<String>, text: impl Into<String>) -> Self {
        Block::new(block_id, BlockType::Paragraph, text)
    }

    /// A heading of the given level.
    pub fn heading(block_id: impl Into<String>, level: u8, text: impl Into<String>) -> Self {
        let mut block = Block::new(block_id, BlockType::Heading, text);
        block.attrs.level = Some(level);
        block
    }

    /// The same block, locked.
    pub fn locked(mut self) -> Self {
        self.editable = false;
        self
    }

    /// Checks the id and that the attrs fit the type. `pointer` prefixes error pointers.
    pub fn validate(&self, pointer: &str) -> Result<()> {
        self.validate_at(&|| pointer.to_owned())
    }

    /// [`Block::validate`], with the pointer made only for an error: a 10,000-block page checks every block
    /// on load, and formatting each one's pointer cost more than the checks.
    fn validate_at(&self, pointer: &dyn Fn() -> String) -> Result<()> {
        validate_block_id(&self.block_id)
            .map_err(|reason| Error::invalid_page(format!("{}/blockId", pointer()), reason))?;
        let a = &self.attrs;
        let bad = |field: &str, reason: &str| Error::invalid_page(format!("{}/attrs/{field}", pointer()), reason);
        let kind = self.kind;
        match a.level {
            Some(_) if kind != BlockType::Heading => {
                return Err(bad("level", &format!("not allowed on {}", kind.as_str())));
            }
            Some(level) if !(1..=6).contains(&level) => return Err(bad("level", "must be 1..6")),
            None if kind == BlockType::Heading => {
                return Err(bad("level", "a heading needs a level 1..6"));
            }
            _ => {}
        }
        if a.checked.is_some() && kind != BlockType::Todo {
            return Err(bad("checked", "only todo blocks have checked"));
        }
        if a.language.is_some() && kind != BlockType::Code {
            return Err(bad("language", "only code blocks have a language"));
        }
        if (a.src.is_some() || a.alt.is_some()) && kind != BlockType::Image {
            return Err(bad("src", "only image blocks have src and alt"));
        }
        if a.depth.is_some() && !kind.is_list() {
            return Err(bad("depth", "only list items and todos have a depth"));
        }
        if matches!(kind, BlockType::Divider | BlockType::Image) && !self.text.is_empty() {
            return Err(Error::invalid_page(format!("{}/text", pointer()), "dividers and images have no text"));
        }
        Ok(())
    }

    /// 8 hex digits of this block's content hash, the `h8` of its `revisionRef`.
    pub fn content_hash8(&self) -> String {
        let mut sink = HashSink::new();
        encode_block(&mut sink, self);
        format!("{:08x}", (sink.finish() >> 32) as u32)
    }
}

/// `pageRev:{revision}:block:{blockId}:{h8}` of `block` at `revision`.
pub fn revision_ref_at(revision: u64, block: &Block) -> String {
    format!("pageRev:{}:block:{}:{}", revision, block.block_id, block.content_hash8())
}

/// Checks `^[A-Za-z0-9_-]{1,64}$`.
pub fn validate_block_id(id: &str) -> core::result::Result<(), &'static str> {
    if id.is_empty() || id.len() > MAX_BLOCK_ID_LEN {
        return Err("a block id has 1 to 64 characters");
    }
    if !is_plain_token(id) {
        return Err("a block id uses only A-Z, a-z, 0-9, '_' and '-'");
    }
    Ok(())
}

/// Checks a document id: the block-id alphabet, 1 to 64 characters (`^[A-Za-z0-9_-]{1,64}$`).
///
/// A document id names the Worker's Durable Object and appears in logs, URLs and review session ids
/// (`rs.{documentId}.{random}`, split at its dots), so anything outside a plain token (percent-escapes,
/// dots, slashes) is refused rather than normalized.
pub fn validate_document_id(id: &str) -> core::result::Result<(), &'static str> {
    match (1..=MAX_DOCUMENT_ID_LEN).contains(&id.len()) && is_plain_token(id) {
        true => Ok(()),
        false => Err("a document id has 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-'"),
    }
}

/// Only A-Z, a-z, 0-9, `_` and `-`.
fn is_plain_token(id: &str) -> bool {
    id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A page: title, revision, permission and blocks, and the history of its blocks.
///
/// The JSON form has no history: a page read from JSON starts with an empty one that knows nothing before
/// its revision ([`BlockHistory::new`]), so writes based on an older revision conflict until the page has
/// history of its own. [`crate::ops::Plan::commit`] keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields, from = "PageFields")]
pub struct Page {
    /// The workspace the document belongs to.
    pub workspace_id: String,
    /// The document's id.
    pub document_id: String,
    /// The page title.
    #[serde(default)]
    pub title: String,
    /// Increases by exactly 1 per applied write batch.
    #[serde(default)]
    pub revision: u64,
    /// Whether the page may be written.
    #[serde(default)]
    pub permission: Permission,
    /// The blocks, in order.
    pub blocks: Vec<Block>,
    /// The revision at which each block last changed; never serialized.
    #[serde(skip)]
    pub history: BlockHistory,
}

/// The JSON fields of a [`Page`]: everything but its history.
#[derive(Deserialize, crate::json::Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PageFields {
    workspace_id: String,
    document_id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    revision: u64,
    #[serde(default)]
    permission: Permission,
    blocks: Vec<Block>,
}

impl From<PageFields> for Page {
    fn from(f: PageFields) -> Self {
        Page {
            workspace_id: f.workspace_id,
            document_id: f.document_id,
            title: f.title,
            revision: f.revision,
            permission: f.permission,
            blocks: f.blocks,
            history: BlockHistory::new(f.revision),
        }
    }
}

impl Page {
    /// A validated editable page at revision 0.
    pub fn new(
        workspace_id: impl Into<String>,
        document_id: impl Into<String>,
        title: impl Into<String>,
        blocks: Vec<Block>,
    ) -> Result<Self> {
        let page = Page {
            workspace_id: workspace_id.into(),
            document_id: document_id.into(),
            title: title.into(),
            revision: 0,
            permission: Permission::Edit,
            blocks,
            history: BlockHistory::new(0),
        };
        page.validate()?;
        Ok(page)
    }

    /// The same page at `revision`, knowing nothing of its blocks' past: what a page read from JSON at that
    /// revision is.
    pub fn at_revision(mut self, revision: u64) -> Self {
        self.revision = revision;
        self.history = BlockHistory::new(revision);
        self
    }

    /// Parses and validates a page from JSON, with a JSON pointer in any error.
    ///
    /// A good page is read straight from the text into the typed page (`page::text`); only text
    /// that does not read there goes through core's one decoder ([`crate::json::from_json`]), which answers
    /// its error as for every other shape. On a 10,000-block page that halves `new PageSession`
    /// (`benches/wasm.mjs`): the decoder first builds a JSON value of the whole page. The fast read accepts
    /// only what the decoder accepts, with the same page, and refuses the rest (a block given as an array of
    /// its fields, a repeated key, a float, …), which the decoder then reads. The
    /// `the_fast_read_answers_what_the_decoder_answers` test pins it.
    pub fn from_json(json: &str) -> Result<Self> {
        let page = match Self::from_text(json) {
            Some(page) => page,
            None => crate::json::from_json(json)?,
        };
        page.validate()?;
        Ok(page)
    }

    /// The page read straight from its text, or `None` when it does not read that way.
    fn from_text(json: &str) -> Option<Self> {
        text::page(json)
    }

    /// Checks every block and that ids are unique.
    pub fn validate(&self) -> Result<()> {
        if self.document_id.is_empty() {
            return Err(Error::invalid_page("/documentId", "must not be empty"));
        }
        let mut seen = HashSet::with_capacity(self.blocks.len());
        for (i, block) in self.blocks.iter().enumerate() {
            block.validate_at(&|| format!("/blocks/{i}"))?;
            if !seen.insert(block.block_id.as_str()) {
                return Err(Error::invalid_page(
                    format!("/blocks/{i}/blockId"),
                    format!("duplicate block id {:?}", block.block_id),
                ));
            }
        }
        Ok(())
    }

    /// The index of a block by id.
    pub fn position(&self, block_id: &str) -> Option<usize> {
        self.blocks.iter().position(|b| b.block_id == block_id)
    }

    /// A block by id.
    pub fn block(&self, block_id: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.block_id == block_id)
    }

    /// A block by id, or [`Error::BlockNotFound`] with the nearest ids as a hint.
    pub fn require_block(&self, block_id: &str) -> Result<&Block> {
        self.block(block_id).ok_or_else(|| Error::BlockNotFound {
            block_id: block_id.to_owned(),
            nearest: crate::error::nearest_ids(block_id, self.blocks.iter().map(|b| b.block_id.as_str())),
        })
    }

    /// 16 hex digits of the hash over the canonical serialization of title and blocks.
    pub fn content_hash(&self) -> String {
        let mut sink = HashSink::new();
        encode_str(&mut sink, &self.title);
        sink.write(&(self.blocks.len() as u64).to_le_bytes());
        for block in &self.blocks {
            encode_block(&mut sink, block);
        }
        format!("{:016x}", sink.finish())
    }

    /// `body:{revision}:{h}`: changes whenever the revision or the content does.
    pub fn conflict_detection_key(&self) -> String {
        format!("body:{}:{}", self.revision, self.content_hash())
    }

    /// `pageRev:{revision}:block:{blockId}:{h8}` for a block of this page.
    pub fn revision_ref(&self, block: &Block) -> String {
        format!("pageRev:{}:block:{}:{}", self.revision, block.block_id, block.content_hash8())
    }

    /// Whether the page may be written.
    pub fn is_editable(&self) -> bool {
        self.permission == Permission::Edit
    }
}

// The canonical encoding: lengths first, then bytes, so ("ab","c") and ("a","bc") differ.
/// Feeds the canonical encoding to XXH3 through a small buffer: many tiny writes become few hasher calls,
/// and no page-sized buffer is allocated (a fresh megabyte costs more in page faults than the hashing).
struct HashSink {
    hasher: Xxh3,
    buf: Vec<u8>,
}

impl HashSink {
    const CAPACITY: usize = 16 * 1024;

    fn new() -> Self {
        HashSink { hasher: Xxh3::new(), buf: Vec::with_capacity(Self::CAPACITY) }
    }

    fn write(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > Self::CAPACITY {
            self.hasher.update(&self.buf);
            self.buf.clear();
        }
        if bytes.len() >= Self::CAPACITY {
            self.hasher.update(bytes);
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }

    fn finish(mut self) -> u64 {
        self.hasher.update(&self.buf);
        self.hasher.digest()
    }
}

fn encode_str(buf: &mut HashSink, s: &str) {
    buf.write(&(s.len() as u64).to_le_bytes());
    buf.write(s.as_bytes());
}

fn encode_block(buf: &mut HashSink, b: &Block) {
    // The fixed-size part goes in as one write: on a 10,000-block page, per-field writes cost more than
    // hashing the megabyte of text itself.
    let a = &b.attrs;
    let flags = |s: &Option<String>| s.as_ref().map_or(0u64, |s| s.len() as u64 + 1);
    let mut header = [0u8; 8 * 7 + 4];
    let fields = [
        b.block_id.len() as u64,
        b.text.len() as u64,
        a.depth.map_or(0u64, |d| u64::from(d) + 1),
        flags(&a.language),
        flags(&a.src),
        flags(&a.alt),
        b.kind as u64,
    ];
    for (chunk, value) in header.chunks_exact_mut(8).zip(fields) {
        chunk.copy_from_slice(&value.to_le_bytes());
    }
    if let Some(tail) = header.get_mut(56..60) {
        tail.copy_from_slice(&[
            a.level.map_or(0, |l| l.saturating_add(1)),
            a.checked.map_or(0, |c| 1 + u8::from(c)),
            u8::from(b.editable),
            0,
        ]);
    }
    buf.write(&header);
    buf.write(b.block_id.as_bytes());
    buf.write(b.text.as_bytes());
    for s in [&a.language, &a.src, &a.alt].into_iter().flatten() {
        buf.write(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_ids_are_plain_tokens_of_1_to_64_characters() {
        for good in ["welcome", "doc_1-A", &"a".repeat(64)] {
            assert_eq!(validate_document_id(good), Ok(()), "{good:?}");
        }
        for bad in ["", "a.b", "a/b", "d%2F", "doc 1", "文档", &"a".repeat(65)] {
            assert!(validate_document_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_fast_read_answers_what_the_decoder_answers() {
        let head = r#""workspaceId":"ws","documentId":"doc""#;
        let pages = [
            format!(
                r#"{{{head},"title":"T","revision":4,"permission":"read","blocks":[{{"blockId":"p_1","type":"paragraph","text":"a\u00e9"}}]}}"#
            ),
            format!(
                r#"{{{head},"blocks":[{{"blockId":"h","type":"heading","attrs":{{"level":2}},"editable":null,"text":null}}]}}"#
            ),
            format!(r#"{{{head},"blocks":[{{"blockId":"h","type":"heading","attrs":null}}]}}"#),
            format!(
                "{{ {head} ,\n\t\"blocks\" : [ {{\"blockId\":\"p\",\"type\":\"todo\",\"attrs\":{{\"checked\":true}}}} ] }}\r\n"
            ),
            // Read by serde_json's text reader alone, refused by the decoder: each falls back to it.
            format!(r#"{{{head},"blocks":[["p_1","paragraph","a"]]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"h","type":"heading","attrs":[2]}}]}}"#),
            String::from(r#"["ws","doc","T",1,"edit",[]]"#),
            // Read by the decoder alone (the last of a repeated key), or by neither.
            format!(r#"{{{head},"blocks":[{{"blockId":"p","blockId":"q","type":"paragraph"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":{{"paragraph":null,"x":1}}}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"h","type":{{"heading":null}},"attrs":{{"level":2}}}}]}}"#),
            format!(r#"{{{head},"revision":-0,"blocks":[]}}"#),
            format!(r#"{{{head},"revision":07,"blocks":[]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"h","type":"heading","attrs":{{"level":256}}}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph","text":"a\ud83d\ude00\n\"\/"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph","text":"tab	in"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph",}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph"}},]}}"#),
            format!(r#"{{{head},"revision":1e2,"blocks":[]}}"#),
            format!(r#"{{{head},"blocks":[]}}  "#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph","text":"\ud800"}}]}}"#),
        ];
        for json in &pages {
            let decoded = crate::json::from_json::<Page>(json).and_then(|page| page.validate().map(|()| page));
            assert_eq!(Page::from_json(json), decoded, "{json}");
        }
        // The good ones take the fast read; the ones only serde_json's text reader would read do not.
        assert!((0..4).all(|i| Page::from_text(&pages[i]).is_some()));
        let emoji = pages.iter().find(|p| p.contains("ude00")).map(|p| Page::from_text(p));
        assert_eq!(emoji.flatten().map(|p| p.blocks[0].text.clone()), Some("a\u{1F600}\n\"/".into()));
        assert!((4..7).all(|i| Page::from_text(&pages[i]).is_none()));
        assert!(Page::from_json(&pages[4]).is_err());
    }

    #[test]
    fn a_bad_page_is_refused_at_the_field_that_is_wrong() {
        let head = r#""workspaceId":"ws","documentId":"doc""#;
        let pages = [
            format!(
                r#"{{{head},"title":"T","revision":4,"blocks":[{{"blockId":"p_1","type":"paragraph","text":"a"}}]}}"#
            ),
            format!(
                r#"{{{head},"blocks":[{{"blockId":"h","type":"heading","text":"x","attrs":{{"level":2}},"editable":null}}]}}"#
            ),
            // A repeated key: the decoder's JSON value keeps the last one, so such a page still reads.
            format!(r#"{{{head},"title":"a","title":"b","blocks":[]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph","text":null,"attrs":null}}]}}"#),
            // Bad ones, each with its pointer.
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraf"}}]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph","text":1,"extra":true}}]}}"#),
            format!(r#"{{{head},"revision":-1,"blocks":[]}}"#),
            format!(r#"{{{head},"revision":1.5,"blocks":[]}}"#),
            format!(r#"{{{head},"blocks":[{{"blockId":"p","type":"heading","attrs":{{"level":300}}}}]}}"#),
            format!(
                r#"{{{head},"blocks":[{{"blockId":"p","type":"paragraph"}},{{"blockId":"p","type":"paragraph"}}]}}"#
            ),
            format!(r#"{{{head},"blocks":[{{"blockId":"p q","type":"paragraph"}}]}}"#),
            String::from(r#"{"workspaceId":"ws","documentId":"","blocks":[]}"#),
            format!(r#"{{{head}}}"#),
            format!(r#"{{{head},"blocks":[]}} trailing"#),
            String::from(r#"[1,2]"#),
            String::from(r#"{"workspaceId":"#),
            // A block as an array of its fields, which serde_json alone would read.
            format!(r#"{{{head},"blocks":[["p_1","paragraph","a"]]}}"#),
        ];
        let pointers: Vec<Option<String>> = pages
            .iter()
            .map(|json| match Page::from_json(json) {
                Ok(_) => None,
                Err(e) => Some(e.details()["pointer"].as_str().unwrap_or("?").to_string()),
            })
            .collect();
        let expected = [
            None,
            None,
            None,
            None,
            Some("/blocks/0/type"),
            // The decoder reads members in key order: `extra` before `text`.
            Some("/blocks/0/extra"),
            Some("/revision"),
            Some("/revision"),
            Some("/blocks/0/attrs/level"),
            Some("/blocks/1/blockId"),
            Some("/blocks/0/blockId"),
            Some("/documentId"),
            Some(""),
            Some(""),
            Some(""),
            Some(""),
            Some("/blocks/0"),
        ];
        assert_eq!(pointers, expected.map(|p| p.map(String::from)));
        assert_eq!(Page::from_json(&pages[2]).map(|p| p.title), Ok("b".into()));
    }
}
