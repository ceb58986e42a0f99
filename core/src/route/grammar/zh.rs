//! Chinese clauses: 把「A」替换为「B」, 删除第二段, 在末尾添加「B」, 把选中的段落改成待办.
//!
//! The words around a command's target (选中的, 第二段里的, 表格里的, 所有的, 这几个字 …) are read by one phrase
//! parser, [`phrase`], that either understands every word or gives up: an unknown word means the clause is
//! not a direct command.

use alloc::string::String;
use alloc::vec::Vec;

use super::{BlockRef, Command, InsertAt, Within, only_quote, split_verb, strip_any, strip_any_suffix};
use crate::page::BlockType;
use crate::route::prompt::quote_index;
use crate::route::target::{Kind, Ordinal, en_block_type, zh_block_type, zh_ordinal};

/// What the words naming a target said.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Phrase {
    selection: bool,
    ordinals: Vec<Ordinal>,
    kind: Option<Kind>,
    all: bool,
    literal: Option<String>,
    /// The literal names the block containing it (「A」那段, 「A」这个标题), not the text itself.
    containing: bool,
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
fn phrase(s: &str, quotes: &[String]) -> Option<Phrase> {
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
    fn within(&self) -> Option<Within> {
        Some(match (self.selection, self.ordinals.as_slice(), self.kind) {
            (true, [], _) => Within::Selection,
            (false, [one], _) => Within::Block(*one),
            (false, [], Some(kind)) if kind != Kind::Paragraph => Within::Kind(kind),
            (false, [], _) => Within::Page,
            _ => return None,
        })
    }

    /// The blocks this phrase names, when it names blocks rather than text.
    fn block_ref(&self) -> Option<BlockRef> {
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
    fn is_plain_text_target(&self) -> bool {
        self.literal.is_some() && !self.containing
    }
}

/// `把 … 替换为 …` and its variants.
fn replace(s: &str, quotes: &[String]) -> Option<Command> {
    const VERBS: &[&str] = &[
        "全部替换为",
        "全部替换成",
        "全部改成",
        "全部改为",
        "全部换成",
        "都替换为",
        "都替换成",
        "都改成",
        "都改为",
        "都换成",
        "统统改成",
        "一律改成",
        "替换成为",
        "替换为",
        "替换成",
        "换成",
        "换为",
        "改成",
        "改为",
        "修改为",
        "修改成",
        "更改为",
        "更改成",
        "更正为",
        "订正为",
        "变成",
        "变为",
        "改作",
        "写成",
        "->",
        ">",
    ];
    let (left, verb, right) = split_verb(s, VERBS)?;
    let with = only_quote(right.trim_end_matches(['.', '!', '?']), quotes)?;
    let p = phrase(left, quotes)?;
    if !p.is_plain_text_target() {
        return None;
    }
    let all = p.all
        || verb.starts_with("全部")
        || verb.starts_with("都")
        || verb.starts_with("统统")
        || verb.starts_with("一律");
    Some(Command::Replace { find: p.literal.clone()?, with: with.into(), all, within: p.within()?, quoted: true })
}

/// `把 X 改成 Y` without quotes: accepted only for short, single-token literals.
fn replace_unquoted(raw: &str) -> Option<Command> {
    const VERBS: &[&str] = &["替换为", "替换成", "换成", "改成", "改为", "修改为", "更改为"];
    let (left, verb, right) = split_verb(raw, VERBS)?;
    let left = left.trim();
    let (left, _) = strip_any(left, &["把", "将"]);
    let (left, all_before) = strip_any(left.trim(), &["所有的", "所有", "全部的", "全部"]);
    let (left, all_after) = strip_any_suffix(left.trim(), &["都", "全部", "全都"]);
    let _ = verb;
    let (left, right) = (left.trim(), right.trim().trim_end_matches(['。', '.', '！', '!']).trim());
    let plain = |t: &str, max: usize| {
        !t.is_empty()
            && t.chars().count() <= max
            && !t.chars().any(|c| c.is_whitespace() || "，,。.、；;：:！!？?「」『』“”\"'‘’《》`的".contains(c))
    };
    // Deictic and structural words mean a block, not a literal; adjectives mean a rewrite.
    const VAGUE_LEFT: &[&str] =
        &["这", "那", "最后", "标题", "段落", "语气", "风格", "格式", "内容", "文字", "句子", "全文", "整个"];
    const VAGUE_RIGHT: &[&str] =
        &["更", "一点", "一些", "正式", "专业", "简洁", "口语", "英文", "中文", "通顺", "标题", "列表", "待办", "引用"];
    if !plain(left, 24)
        || !plain(right, 32)
        || zh_ordinal(left).is_some()
        || VAGUE_LEFT.iter().any(|w| left.contains(w))
        || VAGUE_RIGHT.iter().any(|w| right.contains(w))
    {
        return None;
    }
    Some(Command::Replace {
        find: left.into(),
        with: right.into(),
        all: all_before || all_after,
        within: Within::Page,
        quoted: false,
    })
}

/// `删除「A」`, `把「A」删掉`, `删除第二段`, `把选中的段落删除`, `第三个待办不要了，删掉`.
fn delete(s: &str, quotes: &[String]) -> Option<Command> {
    const PRE: &[&str] = &["删除掉", "删除", "删掉", "删去", "去掉", "去除", "移除", "delete", "remove", "删"];
    const POST: &[&str] = &[
        "删除掉",
        "删除",
        "删掉",
        "删去",
        "去掉",
        "去除",
        "移除",
        "给删了",
        "删了",
        "拿掉",
        "不要了",
        "delete掉",
        "delete",
    ];
    let body = if let (rest, true) = strip_any(s, PRE) {
        rest
    } else {
        let (rest, found) = strip_any_suffix(s, POST);
        if !found {
            return None;
        }
        // `第三个待办不要了，删掉`: two ways of saying it.
        let (rest, _) = strip_any_suffix(rest.trim_end_matches(','), &["不要了", "没用了", "不需要了"]);
        rest.trim_end_matches(',')
    };
    let p = phrase(body, quotes)?;
    if p.is_plain_text_target() {
        return Some(Command::DeleteSpan { text: p.literal.clone()?, all: p.all, within: p.within()? });
    }
    if p.all {
        return None;
    }
    p.block_ref().map(Command::DeleteBlock)
}

/// `把第二段改成标题`, `把选中的段落改成待办`, `「小结」改成二级标题`, `把第二段改成「新内容」`.
fn set(s: &str, quotes: &[String]) -> Option<Command> {
    const VERBS: &[&str] = &[
        "转换成",
        "转换为",
        "改成",
        "变成",
        "转成",
        "转为",
        "改为",
        "设为",
        "设置为",
        "设置成",
        "换成",
        "替换为",
        "替换成",
        "change成",
    ];
    let (left, _, right) = split_verb(s, VERBS)?;
    let mut p = phrase(left, quotes)?;
    if let Some(text) = only_quote(right, quotes) {
        // `把「A」改成「B」` is a replace; only a block named by position or selection gets new text.
        if p.literal.is_some() || p.all {
            return None;
        }
        return Some(Command::SetText { target: p.block_ref()?, text: text.into() });
    }
    let kind_words = right.trim_end_matches("格式").trim_end_matches("样式").trim();
    let (kind, level) = zh_block_type(kind_words).or_else(|| en_block_type(kind_words))?;
    // A bare literal names the block that holds it: `「小结」改成二级标题`.
    if p.literal.is_some() {
        p.containing = true;
    }
    if p.all {
        return None;
    }
    Some(Command::SetType { target: p.block_ref()?, kind, level })
}

/// `在末尾添加「B」`, `在「A」后面加一段「B」`, `在第二段后插入「B」`, `最后加个待办：「B」`.
fn insert(s: &str, quotes: &[String]) -> Option<Command> {
    const VERBS: &[&str] = &["添加", "加上", "追加", "插入", "补充", "新增", "写上", "补上", "加"];
    let (place, _, what) = split_verb(s, VERBS)?;
    let (place, _) = strip_any(place, &["在", "往", "于"]);
    let place = place.trim_end_matches(['处', ',']);
    let at = match place {
        "末尾" | "结尾" | "最后" | "最后面" | "文末" | "页面末尾" | "页面最后" | "文档末尾" | "最下面" | "底部"
        | "页尾" | "" => InsertAt::End,
        "开头" | "最前面" | "顶部" | "文首" | "页面开头" | "最上面" => InsertAt::Start,
        _ => {
            let (anchor, after) = if let (a, true) =
                strip_any_suffix(place, &["的后面", "的下面", "后面", "之后", "后边", "下面", "下方", "后"])
            {
                (a, true)
            } else if let (a, true) =
                strip_any_suffix(place, &["的前面", "的上面", "前面", "之前", "上面", "上方", "前"])
            {
                (a, false)
            } else {
                return None;
            };
            let mut p = phrase(anchor, quotes)?;
            if p.literal.is_some() {
                p.containing = true;
            }
            let target = p.block_ref()?;
            if after { InsertAt::After(target) } else { InsertAt::Before(target) }
        }
    };
    let what = what.trim_start_matches(['个', '一']);
    let (what, _) =
        strip_any(what, &["段话", "段文字", "段", "行字", "行", "句话", "句", "个段落", "段落", "新段落", "个新段落"]);
    let (what, kind) =
        match strip_any(what, &["个待办事项", "个待办", "条待办", "待办事项", "待办", "个任务", "个todo", "todo"])
        {
            (rest, true) => (rest, BlockType::Todo),
            _ => {
                match strip_any(what, &["个列表项", "条列表项", "列表项", "个要点", "要点", "条", "个bullet", "bullet"])
                {
                    (rest, true) => (rest, BlockType::BulletedListItem),
                    _ => match strip_any(what, &["个引用", "引用"]) {
                        (rest, true) => (rest, BlockType::Quote),
                        _ => (what, BlockType::Paragraph),
                    },
                }
            }
        };
    let what = what.trim_start_matches([':', '：']).trim_start_matches("内容").trim_start_matches("文字");
    let what = what.trim_start_matches([':', '：']);
    let what = what.strip_prefix("说").unwrap_or(what);
    let text = only_quote(what, quotes)?;
    Some(Command::Insert { text: text.into(), kind, at })
}

/// Parses one Chinese clause.
pub(in crate::route) fn zh(s: &str, quotes: &[String]) -> Option<Command> {
    insert(s, quotes).or_else(|| delete(s, quotes)).or_else(|| set(s, quotes)).or_else(|| replace(s, quotes))
}

/// Parses one Chinese clause written without quotes (the raw prompt, courtesy already stripped).
pub(in crate::route) fn zh_unquoted(raw: &str) -> Option<Command> {
    replace_unquoted(raw)
}

/// The blocks a Chinese phrase names, for an English sentence that names its target in Chinese.
pub(in crate::route) fn block_ref_words(s: &str, quotes: &[String]) -> Option<BlockRef> {
    let p = phrase(s, quotes)?;
    if p.all || p.literal.is_some() {
        return None;
    }
    p.block_ref()
}
