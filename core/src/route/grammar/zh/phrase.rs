//! The words around a command's target (选中的, 第二段里的, 表格里的, 所有的, 这几个字 …), read by one phrase
//! parser, [`phrase`], that either understands every word or gives up.

use alloc::string::String;
use alloc::vec::Vec;

use crate::route::grammar::{BlockRef, Within, strip_any};
use crate::route::prompt::quote_index;
use crate::route::target::{Kind, Ordinal, zh_ordinal};

/// What the words naming a target said.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Phrase {
    pub(super) selection: bool,
    pub(super) ordinals: Vec<Ordinal>,
    pub(super) kind: Option<Kind>,
    pub(super) all: bool,
    pub(super) literal: Option<String>,
    /// The literal names the block containing it (「A」那段, 「A」这个标题), not the text itself.
    pub(super) containing: bool,
}

const SELECTION_WORDS: &[&str] = &[
    "选中的",
    "选中",
    "所选的",
    "所选",
    "选定的",
    "选定",
    "选区",
    "selected的",
    "selected",
    "这几条",
    "这两条",
    "这三条",
    "这几段",
    "这两段",
    "这三段",
    "这几个",
    "这两个",
    "这些",
    "这段",
    "这一段",
    "这条",
    "这一条",
    "这个块",
    "这个待办",
    "这条待办",
    "这个todo",
    "这个任务",
    "这项",
    "这几块",
    "当前段落",
    "两条",
    "两段",
    "三条",
    "三段",
    "几条",
    "几段",
];

const KIND_WORDS: &[(&str, Kind)] = &[
    ("表格", Kind::Table),
    ("代码块", Kind::Code),
    ("代码", Kind::Code),
    ("code", Kind::Code),
    ("引用块", Kind::Quote),
    ("引用", Kind::Quote),
    ("quote", Kind::Quote),
    ("标题", Kind::Heading),
    ("heading", Kind::Heading),
    ("待办事项", Kind::Todo),
    ("待办", Kind::Todo),
    ("todo", Kind::Todo),
    ("无序列表项", Kind::Bulleted),
    ("无序列表", Kind::Bulleted),
    ("bullet", Kind::Bulleted),
    ("编号列表", Kind::Numbered),
    ("有序列表", Kind::Numbered),
    ("列表项", Kind::ListItem),
    ("列表", Kind::ListItem),
    ("分割线", Kind::Divider),
    ("分隔线", Kind::Divider),
    ("divider", Kind::Divider),
    ("段落", Kind::Paragraph),
    ("paragraph", Kind::Paragraph),
];

/// Words that add nothing to a target: particles, "in the page", "full-width".
const FILLER: &[&str] = &[
    "里面的",
    "里面",
    "里的",
    "中的",
    "当中的",
    "内的",
    "里",
    "中",
    "内",
    "的",
    "文中",
    "页面里",
    "页面中",
    "页面上",
    "文档里",
    "文档中",
    "正文",
    "本页",
    "这一页",
    "这页",
    "全文",
    "内容",
    "文字",
    "部分",
    "块",
    "full-width",
    "半角",
    "全角",
    "一下",
    "那个",
    "这个",
    "个",
    "blocks",
    "block",
    "段落里",
];

const ALL_WORDS: &[&str] = &["所有的", "所有", "全部的", "全部", "全都", "都", "统统", "每个", "每一个", "一律"];

/// Trailing words after a literal that name the block holding it.
const CONTAINING_SUFFIX: &[&str] = &[
    "所在的段落",
    "所在的那段",
    "所在段落",
    "所在的块",
    "所在的行",
    "那一段",
    "那段",
    "那一条",
    "那条",
    "那一行",
    "那行",
    "那句",
    "这一行",
    "这一段",
    "这段",
    "这一条",
    "这条",
    "这个标题",
    "那个标题",
    "这个待办",
    "那个待办",
];

/// Trailing words after a literal that still mean the text itself.
const TEXT_SUFFIX: &[&str] =
    &["这几个字", "这个词", "这几个词", "这句话", "这句", "这个短语", "这些字", "几个字", "这个"];

/// Reads the words naming a target. `None` when a word is not understood.
pub(super) fn phrase(s: &str, quotes: &[String]) -> Option<Phrase> {
    let mut p = Phrase::default();
    let (mut s, _) = strip_any(s.trim(), &["把", "将", "给", "让", "在"]);
    while !s.is_empty() {
        s = p.read_word(s, quotes)?;
    }
    Some(p)
}

impl Phrase {
    /// Reads the word `s` starts with into the phrase: the text after it, or `None` when it is not
    /// understood.
    fn read_word<'s>(&mut self, s: &'s str, quotes: &[String]) -> Option<&'s str> {
        if let Some(c) = s.chars().next()
            && let Some(i) = quote_index(c)
        {
            return self.read_literal(s.get(c.len_utf8()..)?, quotes.get(i)?);
        }
        if let Some((ordinal, rest)) = zh_ordinal(s) {
            self.ordinals.push(ordinal);
            return Some(rest);
        }
        if let (rest, true) = strip_any(s, &["和", "与", "跟", "及", "、", ","]) {
            return Some(rest);
        }
        if let (rest, true) = strip_any(s, ALL_WORDS) {
            self.all = true;
            return Some(rest);
        }
        if let (rest, true) = strip_any(s, SELECTION_WORDS) {
            self.selection = true;
            return Some(rest);
        }
        if let Some((word, kind)) = KIND_WORDS.iter().find(|(w, _)| s.starts_with(w)) {
            self.kind = Some(*kind);
            return s.get(word.len()..);
        }
        if let (rest, true) = strip_any(s, FILLER) {
            return Some(rest);
        }
        if let (rest, true) = strip_any(s, &["把", "将"]) {
            return Some(rest);
        }
        s.strip_prefix(' ')
    }

    /// The quoted literal (one per phrase), and the suffix after it that still means the literal, or the
    /// block containing it.
    fn read_literal<'s>(&mut self, after: &'s str, literal: &str) -> Option<&'s str> {
        if self.literal.is_some() {
            return None;
        }
        self.literal = Some(literal.into());
        if let (rest, true) = strip_any(after.trim_start(), CONTAINING_SUFFIX) {
            self.containing = true;
            return Some(rest);
        }
        if let (rest, true) = strip_any(after.trim_start(), TEXT_SUFFIX) {
            return Some(rest);
        }
        Some(after)
    }
}

impl Phrase {
    /// Where a replace of this phrase's literal may look.
    pub(super) fn within(&self) -> Option<Within> {
        Some(match (self.selection, self.ordinals.as_slice(), self.kind) {
            (true, [], _) => Within::Selection,
            (false, [one], _) => Within::Block(*one),
            (false, [], Some(kind)) if kind != Kind::Paragraph => Within::Kind(kind),
            (false, [], _) => Within::Page,
            _ => return None,
        })
    }

    /// The blocks this phrase names, when it names blocks rather than text.
    pub(super) fn block_ref(&self) -> Option<BlockRef> {
        match (&self.literal, self.selection, self.ordinals.as_slice()) {
            (Some(text), false, []) => Some(BlockRef::Containing(text.clone(), self.kind)),
            (None, true, []) => Some(BlockRef::Selection),
            (None, false, [one]) => Some(BlockRef::Ordinal(*one)),
            (None, false, [_, _, ..]) => Some(BlockRef::Ordinals(self.ordinals.clone())),
            (None, false, []) => self.kind.filter(|k| *k != Kind::Paragraph).map(BlockRef::Only),
            _ => None,
        }
    }

    /// For commands on "这段引用"-style targets: the selection when there is one, else the only block of the kind.
    pub(super) fn is_plain_text_target(&self) -> bool {
        self.literal.is_some() && !self.containing
    }
}
