//! Naming blocks in words: ordinals (第二段, 倒数第二段, the third paragraph, the last heading), the
//! selection (选中的, the selected), and block types (标题, 待办, bulleted list …).

use alloc::string::String;

use super::language::{block_type, en, zh};
use crate::page::{BlockType, Page};

/// Which blocks an ordinal counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Paragraphs only.
    Paragraph,
    /// Headings only.
    Heading,
    /// Bulleted and numbered list items.
    ListItem,
    /// Bulleted list items only.
    Bulleted,
    /// Numbered list items only.
    Numbered,
    /// Todos.
    Todo,
    /// Quotes.
    Quote,
    /// Code blocks.
    Code,
    /// Tables.
    Table,
    /// Dividers.
    Divider,
    /// Images.
    Image,
    /// Any block.
    Any,
}

impl Kind {
    /// The kind in words, for reasons: `todo`, `list item`, `block`.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Paragraph => "paragraph",
            Kind::Heading => "heading",
            Kind::ListItem => "list item",
            Kind::Bulleted => "bulleted list item",
            Kind::Numbered => "numbered list item",
            Kind::Todo => "todo",
            Kind::Quote => "quote",
            Kind::Code => "code block",
            Kind::Table => "table",
            Kind::Divider => "divider",
            Kind::Image => "image",
            Kind::Any => "block",
        }
    }

    /// Whether a block of type `t` is of this kind.
    pub fn matches(self, t: BlockType) -> bool {
        match self {
            Kind::Paragraph => t == BlockType::Paragraph,
            Kind::Heading => t == BlockType::Heading,
            Kind::ListItem => matches!(t, BlockType::BulletedListItem | BlockType::NumberedListItem),
            Kind::Bulleted => t == BlockType::BulletedListItem,
            Kind::Numbered => t == BlockType::NumberedListItem,
            Kind::Todo => t == BlockType::Todo,
            Kind::Quote => t == BlockType::Quote,
            Kind::Code => t == BlockType::Code,
            Kind::Table => t == BlockType::Table,
            Kind::Divider => t == BlockType::Divider,
            Kind::Image => t == BlockType::Image,
            Kind::Any => true,
        }
    }
}

/// A block named by position: the `n`th (1-based) from the start, or from the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ordinal {
    pub kind: Kind,
    pub n: usize,
    pub from_end: bool,
}

impl Ordinal {
    /// The id of the block this ordinal names on `page`, if it exists.
    pub fn resolve(self, page: &Page) -> Option<String> {
        let mut matching = page.blocks.iter().filter(|b| self.kind.matches(b.kind));
        let index = self.n.checked_sub(1)?;
        let block = if self.from_end { matching.rev().nth(index) } else { matching.nth(index) };
        block.map(|b| b.block_id.clone())
    }
}

/// Parses a Chinese number: digits, or 一 … 九十九 (两 counts as 2).
pub(super) fn zh_number(s: &str) -> Option<usize> {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) {
        return s.parse().ok().filter(|n| *n > 0);
    }
    let digit = |c: char| "零一二三四五六七八九".chars().position(|d| d == c).or((c == '两').then_some(2));
    let chars: alloc::vec::Vec<char> = s.chars().collect();
    match chars.as_slice() {
        [c] if *c == '十' => Some(10),
        [c] => digit(*c).filter(|n| *n > 0),
        ['十', u] => digit(*u).map(|u| 10 + u),
        [t, '十'] => digit(*t).map(|t| t * 10),
        [t, '十', u] => Some(digit(*t)? * 10 + digit(*u)?),
        _ => None,
    }
}

/// `(kind, rest)` when `s` starts with a Chinese block noun.
fn zh_kind(s: &str) -> Option<(Kind, &str)> {
    const NOUNS: &[(&str, Kind)] = &[
        ("个段落", Kind::Paragraph),
        ("段落", Kind::Paragraph),
        ("段", Kind::Paragraph),
        ("个自然段", Kind::Paragraph),
        ("个标题", Kind::Heading),
        ("标题", Kind::Heading),
        ("个无序列表项", Kind::Bulleted),
        ("条无序列表项", Kind::Bulleted),
        ("个项目符号", Kind::Bulleted),
        ("个有序列表项", Kind::Numbered),
        ("条有序列表项", Kind::Numbered),
        ("个编号列表项", Kind::Numbered),
        ("条编号列表项", Kind::Numbered),
        ("个编号项", Kind::Numbered),
        ("条编号项", Kind::Numbered),
        ("个列表项", Kind::ListItem),
        ("条列表项", Kind::ListItem),
        ("个要点", Kind::ListItem),
        ("条要点", Kind::ListItem),
        ("个条目", Kind::ListItem),
        ("条", Kind::ListItem),
        ("项", Kind::ListItem),
        ("个待办事项", Kind::Todo),
        ("个待办", Kind::Todo),
        ("条待办", Kind::Todo),
        ("项待办", Kind::Todo),
        ("个任务", Kind::Todo),
        ("个todo", Kind::Todo),
        ("条todo", Kind::Todo),
        ("todo", Kind::Todo),
        ("个bullet", Kind::Bulleted),
        ("条bullet", Kind::Bulleted),
        ("bullet", Kind::Bulleted),
        ("个引用块", Kind::Quote),
        ("个引用", Kind::Quote),
        ("段引用", Kind::Quote),
        ("条引用", Kind::Quote),
        ("处引用", Kind::Quote),
        ("个代码块", Kind::Code),
        ("段代码", Kind::Code),
        ("个代码", Kind::Code),
        ("个表格", Kind::Table),
        ("张表格", Kind::Table),
        ("张表", Kind::Table),
        ("个表", Kind::Table),
        ("条分割线", Kind::Divider),
        ("条分隔线", Kind::Divider),
        ("根分割线", Kind::Divider),
        ("个分割线", Kind::Divider),
        ("个分隔线", Kind::Divider),
        ("张图片", Kind::Image),
        ("张图", Kind::Image),
        ("个图片", Kind::Image),
        ("幅图", Kind::Image),
        ("个块", Kind::Any),
        ("块", Kind::Any),
    ];
    // The longest noun wins: `条分割线` is a divider, not `条` (a list item) followed by more words.
    NOUNS
        .iter()
        .filter(|(noun, _)| s.starts_with(noun))
        .max_by_key(|(noun, _)| noun.len())
        .and_then(|(noun, kind)| s.get(noun.len()..).map(|rest| (*kind, rest)))
}

/// Parses a Chinese ordinal at the start of `s`: 第二段, 最后一段, 倒数第二个标题, 第3个待办.
pub(super) fn zh_ordinal(s: &str) -> Option<(Ordinal, &str)> {
    let (from_end, rest) = if let Some(r) = s.strip_prefix("倒数第") {
        (true, r)
    } else if let Some(r) = s.strip_prefix("第") {
        (false, r)
    } else if let Some(r) =
        s.strip_prefix("最后一").or_else(|| s.strip_prefix("最后那")).or_else(|| s.strip_prefix("最后"))
    {
        let (kind, rest) = zh_kind(r)?;
        return Some((Ordinal { kind, n: 1, from_end: true }, rest));
    } else if let Some(r) = s.strip_prefix("最末一").or_else(|| s.strip_prefix("末尾一")) {
        let (kind, rest) = zh_kind(r)?;
        return Some((Ordinal { kind, n: 1, from_end: true }, rest));
    } else {
        return None;
    };
    let digits = rest
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || "零一二三四五六七八九十两".contains(*c))
        .last()?;
    let (number, after) = rest.split_at(digits.0 + digits.1.len_utf8());
    let n = zh_number(number)?;
    let (kind, rest) = zh_kind(after)?;
    Some((Ordinal { kind, n, from_end }, rest))
}

fn en_number(word: &str) -> Option<usize> {
    const WORDS: &[&str] = &[
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh",
        "twelfth",
    ];
    if let Some(i) = WORDS.iter().position(|w| *w == word) {
        return Some(i + 1);
    }
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = word.get(digits.len()..).unwrap_or("");
    if !digits.is_empty() && matches!(suffix, "st" | "nd" | "rd" | "th") {
        return digits.parse().ok().filter(|n| *n > 0);
    }
    None
}

/// The kind an English block noun names.
pub(super) fn en_kind(word: &str) -> Option<Kind> {
    Some(match word {
        "paragraph" | "para" | "paragraphs" => Kind::Paragraph,
        "heading" | "header" | "title" | "headline" | "subheading" | "headings" => Kind::Heading,
        "code" => Kind::Code,
        "bullet" | "bullets" | "bullet-point" => Kind::Bulleted,
        "todos" | "to-dos" | "tasks" => Kind::Todo,
        "item" | "list-item" | "point" => Kind::ListItem,
        "todo" | "to-do" | "task" | "checkbox" => Kind::Todo,
        "quote" | "blockquote" => Kind::Quote,
        "block" => Kind::Any,
        "divider" | "rule" | "separator" | "dividers" => Kind::Divider,
        "table" | "tables" => Kind::Table,
        "image" | "picture" | "photo" | "figure" | "screenshot" | "images" => Kind::Image,
        "quotes" | "blockquotes" | "quotation" => Kind::Quote,
        _ => return None,
    })
}

/// The kind the words start with, one word or two (`code block`, `bullet point`, `numbered item`,
/// `list item`, `block quote`), and how many words it used.
pub(super) fn en_kind_words(w: &[&str]) -> Option<(Kind, usize)> {
    let first = *w.first()?;
    let two = match (first, w.get(1)) {
        ("code", Some(&("block" | "blocks" | "snippet"))) => Some(Kind::Code),
        ("numbered", Some(&("item" | "point" | "step" | "items"))) => Some(Kind::Numbered),
        ("list", Some(&("item" | "items"))) => Some(Kind::ListItem),
        ("bullet", Some(&("point" | "points"))) => Some(Kind::Bulleted),
        ("block", Some(&("quote" | "quotes"))) | ("pull", Some(&"quote")) => Some(Kind::Quote),
        ("horizontal", Some(&("rule" | "line"))) => Some(Kind::Divider),
        _ => None,
    };
    match (two, first) {
        (Some(kind), _) => Some((kind, 2)),
        // `code` alone is text in code style, not a code block.
        (None, "code") => None,
        (None, word) => en_kind(word).map(|k| (k, 1)),
    }
}

/// Parses an English ordinal from words: `[the] third paragraph`, `the last heading`, `the second-to-last
/// bullet`, `paragraph 3`. Returns the ordinal and how many words it used.
pub(super) fn en_ordinal(words: &[&str]) -> Option<(Ordinal, usize)> {
    let skip = usize::from(words.first() == Some(&"the"));
    let w = words.get(skip..)?;
    let take_kind = |i: usize| en_kind_words(w.get(i..)?);
    match w {
        ["last" | "final", ..] => {
            take_kind(1).map(|(kind, used)| (Ordinal { kind, n: 1, from_end: true }, skip + 1 + used))
        }
        ["second-to-last" | "penultimate" | "next-to-last", ..] => {
            take_kind(1).map(|(kind, used)| (Ordinal { kind, n: 2, from_end: true }, skip + 1 + used))
        }
        ["second" | "2nd", "to" | "from", "last", ..] | ["second" | "2nd", "last", ..] => {
            let at = if w.get(1) == Some(&"last") { 2 } else { 3 };
            take_kind(at).map(|(kind, used)| (Ordinal { kind, n: 2, from_end: true }, skip + at + used))
        }
        [first, ..] if en_number(first).is_some() => {
            let n = en_number(first)?;
            take_kind(1).map(|(kind, used)| (Ordinal { kind, n, from_end: false }, skip + 1 + used))
        }
        [noun, number, ..] if en_kind(noun).is_some() && number.parse::<usize>().is_ok() => {
            let n: usize = number.parse().ok().filter(|n| *n > 0)?;
            Some((Ordinal { kind: en_kind(noun)?, n, from_end: false }, skip + 2))
        }
        _ => None,
    }
}

/// A block type named in words, with a heading level when one is implied.
pub(super) fn zh_block_type(s: &str) -> Option<(BlockType, Option<u8>)> {
    let s = zh::TYPE_MEASURES.iter().find_map(|p| s.strip_prefix(p)).unwrap_or(s);
    block_type(zh::BLOCK_TYPES, s)
}

/// The level of `h4`, `heading 4`, `heading level 4`, `level 4 heading`, `level-4 heading` (1..=6).
fn heading_level(s: &str) -> Option<u8> {
    let forms = [
        s.strip_prefix('h'),
        s.strip_prefix("heading level "),
        s.strip_prefix("heading "),
        s.strip_prefix("level ").and_then(|r| r.strip_suffix(" heading")),
        s.strip_prefix("level-").and_then(|r| r.strip_suffix(" heading")),
    ];
    let level: u8 = forms.into_iter().flatten().find_map(|digits| digits.parse().ok())?;
    (1..=6).contains(&level).then_some(level)
}

/// A block type named in English words (`a bulleted list`, `heading 2`, `h1`, `to-do`).
pub(super) fn en_block_type(s: &str) -> Option<(BlockType, Option<u8>)> {
    let s = s.strip_prefix("a ").or_else(|| s.strip_prefix("an ")).unwrap_or(s).trim();
    let s =
        s.strip_suffix(" block").unwrap_or(s).strip_suffix(" item").unwrap_or(s).strip_suffix(" items").unwrap_or(s);
    let s = s.strip_suffix(" instead").unwrap_or(s).trim();
    if let Some(level) = heading_level(s) {
        return Some((BlockType::Heading, Some(level)));
    }
    block_type(en::BLOCK_TYPES, s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_ordinals() {
        assert_eq!(zh_number("十二"), Some(12));
        assert_eq!(zh_number("二十"), Some(20));
        assert_eq!(zh_number("两"), Some(2));
        assert_eq!(zh_ordinal("第二段里"), Some((Ordinal { kind: Kind::Paragraph, n: 2, from_end: false }, "里")));
        assert_eq!(zh_ordinal("最后一段"), Some((Ordinal { kind: Kind::Paragraph, n: 1, from_end: true }, "")));
        assert_eq!(zh_ordinal("倒数第二个标题"), Some((Ordinal { kind: Kind::Heading, n: 2, from_end: true }, "")));
        assert_eq!(zh_ordinal("第3个待办"), Some((Ordinal { kind: Kind::Todo, n: 3, from_end: false }, "")));
    }

    #[test]
    fn english_ordinals() {
        let w = |s: &'static str| s.split(' ').collect::<alloc::vec::Vec<_>>();
        assert_eq!(
            en_ordinal(&w("the third paragraph")),
            Some((Ordinal { kind: Kind::Paragraph, n: 3, from_end: false }, 3))
        );
        assert_eq!(
            en_ordinal(&w("the last heading")),
            Some((Ordinal { kind: Kind::Heading, n: 1, from_end: true }, 3))
        );
        assert_eq!(
            en_ordinal(&w("second to last bullet point")),
            Some((Ordinal { kind: Kind::Bulleted, n: 2, from_end: true }, 5))
        );
        assert_eq!(en_ordinal(&w("paragraph 2")), Some((Ordinal { kind: Kind::Paragraph, n: 2, from_end: false }, 2)));
        assert_eq!(en_ordinal(&w("the 2nd todo")), Some((Ordinal { kind: Kind::Todo, n: 2, from_end: false }, 3)));
    }
}
