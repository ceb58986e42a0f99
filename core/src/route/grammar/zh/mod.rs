//! Chinese clauses: 把「A」替换为「B」, 删除第二段, 在末尾添加「B」, 把选中的段落改成待办, 勾选第二个待办,
//! 把代码块移到最后. Traditional forms (替換為, 刪除) arrive already mapped onto these (see `prompt`).
//!
//! The words around a command's target (选中的, 第二段里的, 表格里的, 所有的, 这几个字 …) are read by one phrase
//! parser, [`phrase`], that either understands every word or gives up: an unknown word means the clause is
//! not a direct command.

mod phrase;
mod structure;

use alloc::string::String;

use super::{BlockRef, Command, InsertAt, Within, only_quote, split_verb, strip_any, strip_any_suffix};
use crate::page::BlockType;
use crate::route::language::zh;
use crate::route::target::{en_block_type, zh_block_type, zh_ordinal};
use phrase::phrase;

/// `把 … 替换为 …` and its variants.
fn replace(s: &str, quotes: &[String]) -> Option<Command> {
    let (left, _, right) = split_verb(s, zh::REPLACE)?;
    let with = only_quote(right.trim_end_matches(['.', '!', '?']), quotes)?;
    // `全部` / `都` before the verb are phrase words: they set `all`.
    let p = phrase(left, quotes)?;
    if !p.is_plain_text_target() {
        return None;
    }
    Some(Command::Replace {
        find: p.literal.clone()?,
        with: with.into(),
        all: p.all,
        within: p.within()?,
        quoted: true,
    })
}

/// `用「B」替换「A」`, `以「B」代替「A」`: the new text first.
fn replace_new_first(s: &str, quotes: &[String]) -> Option<Command> {
    let (s, true) = strip_any(s.trim(), zh::NEW_FIRST_OPENERS) else { return None };
    let (new, _, old) = split_verb(s, zh::NEW_FIRST_VERBS)?;
    let with = only_quote(new, quotes)?;
    let p = phrase(old, quotes)?;
    if !p.is_plain_text_target() {
        return None;
    }
    Some(Command::Replace {
        find: p.literal.clone()?,
        with: with.into(),
        all: p.all,
        within: p.within()?,
        quoted: true,
    })
}

/// `把 X 改成 Y` without quotes: accepted only for short, single-token literals and amounts (`把 100 元改成 200
/// 元`). `simp` is `raw` with Traditional chars mapped, byte for byte: the words are read in it, the literals
/// are taken from `raw`.
fn replace_unquoted(raw: &str, simp: &str) -> Option<Command> {
    let (left, _, right) = split_verb(simp, zh::REPLACE_UNQUOTED)?;
    let (left, _) = strip_any(left.trim(), &["把", "将"]);
    let (left, all_before) = strip_any(left.trim(), &["所有的", "所有", "全部的", "全部"]);
    let (left, all_after) = strip_any_suffix(left.trim(), &["都", "全部", "全都"]);
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
    let literal = |t: &str, max: usize| plain(t, max) || amount(t);
    if !literal(left, 24)
        || !literal(right, 32)
        || zh_ordinal(left).is_some()
        || VAGUE_LEFT.iter().any(|w| left.contains(w))
        || VAGUE_RIGHT.iter().any(|w| right.contains(w))
    {
        return None;
    }
    Some(Command::Replace {
        find: same_span(raw, simp, left)?.into(),
        with: same_span(raw, simp, right)?.into(),
        all: all_before || all_after,
        within: Within::Page,
        quoted: false,
    })
}

/// A number with an optional currency sign and unit: `100 元`, `3.5%`, `¥200`, `5 分钟`, `2025年`.
fn amount(t: &str) -> bool {
    let t = t.trim_start_matches(['¥', '￥', '$', '€', '£']);
    let digits = t.chars().take_while(|c| c.is_ascii_digit() || matches!(c, '.' | ',')).count();
    let unit = t.chars().skip(digits).collect::<String>();
    let unit = unit.strip_prefix(' ').unwrap_or(&unit);
    t.chars().next().is_some_and(|c| c.is_ascii_digit())
        && !t.chars().take(digits).last().is_some_and(|c| matches!(c, '.' | ','))
        && (unit.chars().count() <= 3 || (unit.len() <= 8 && unit.chars().all(|c| c.is_ascii_alphabetic())))
        && unit.chars().all(|c| c == '%' || c.is_ascii_alphabetic() || ('\u{4e00}'..='\u{9fff}').contains(&c))
}

/// The part of `raw` at the same bytes as `part`, a slice of `simp` (which lines up with `raw`).
fn same_span<'r>(raw: &'r str, simp: &str, part: &str) -> Option<&'r str> {
    let start = (part.as_ptr() as usize).checked_sub(simp.as_ptr() as usize)?;
    raw.get(start..start + part.len())
}

/// `删除「A」`, `把「A」删掉`, `删除第二段`, `把选中的段落删除`, `第三个待办不要了，删掉`.
fn delete(s: &str, quotes: &[String]) -> Option<Command> {
    let body = if let (rest, true) = strip_any(s, zh::DELETE_BEFORE) {
        rest
    } else {
        let (rest, found) = strip_any_suffix(s, zh::DELETE_AFTER);
        if !found {
            return None;
        }
        // `第三个待办不要了，删掉`: two ways of saying it.
        let (rest, _) = strip_any_suffix(rest.trim_end_matches(','), zh::DELETE_AFTER_REASONS);
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
    let (left, _, right) = split_verb(s, zh::SET_TYPE)?;
    let mut p = phrase(left, quotes)?;
    if let Some(text) = only_quote(right, quotes) {
        // `把「A」改成「B」` is a replace; only a block named by position or selection gets new text.
        if p.literal.is_some() || p.all {
            return None;
        }
        return Some(Command::SetText { target: p.block_ref()?, text: text.into() });
    }
    let (kind_words, _) = strip_any_suffix(right.trim(), zh::TYPE_SUFFIXES);
    let kind_words = kind_words.trim();
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
    let (place_words, _, what) = split_verb(s, zh::INSERT)?;
    let (place_words, _) = strip_any(place_words, &["在", "往", "于"]);
    let at = place(place_words.trim_end_matches(['处', ',']), quotes, true)?;
    let what = what.trim_start_matches(['个', '一']);
    let (what, _) = strip_any(what, zh::INSERT_MEASURES);
    let (what, kind) = new_block_kind(what);
    let what = what.trim_start_matches([':', '：']).trim_start_matches("内容").trim_start_matches("文字");
    let what = what.trim_start_matches([':', '：']);
    let what = what.strip_prefix("说").unwrap_or(what);
    let text = only_quote(what, quotes)?;
    Some(Command::Insert { text: text.into(), kind, at })
}

/// The type word of an inserted block (`个待办`, `条引用`, `个标题`), and the words after it.
fn new_block_kind(what: &str) -> (&str, BlockType) {
    let longest = zh::INSERT_KINDS.iter().filter(|(w, _)| what.starts_with(w)).max_by_key(|(w, _)| w.len());
    match longest.and_then(|(w, kind)| Some((what.get(w.len()..)?, *kind))) {
        Some(found) => found,
        None => (what, BlockType::Paragraph),
    }
}

/// Where a block goes: the end or the start of the page, or after or before a block a phrase names. An
/// empty place is the end when `empty_is_end` (`添加「B」`).
pub(super) fn place(words: &str, quotes: &[String], empty_is_end: bool) -> Option<InsertAt> {
    let words = words.trim();
    let words = words.strip_suffix("的位置").or_else(|| words.strip_suffix("位置")).unwrap_or(words);
    if words.is_empty() {
        return empty_is_end.then_some(InsertAt::End);
    }
    if zh::PLACE_END.contains(&words) {
        return Some(InsertAt::End);
    }
    if zh::PLACE_START.contains(&words) {
        return Some(InsertAt::Start);
    }
    let (anchor, after) = if let (a, true) = strip_any_suffix(words, zh::PLACE_AFTER) {
        (a, true)
    } else if let (a, true) = strip_any_suffix(words, zh::PLACE_BEFORE) {
        (a, false)
    } else {
        return None;
    };
    let mut p = phrase(anchor, quotes)?;
    if p.literal.is_some() {
        p.containing = true;
    }
    let target = p.block_ref()?;
    Some(if after { InsertAt::After(target) } else { InsertAt::Before(target) })
}

/// Parses one Chinese clause.
pub(in crate::route) fn zh(s: &str, quotes: &[String]) -> Option<Command> {
    structure::check(s, quotes)
        .or_else(|| structure::move_block(s, quotes))
        .or_else(|| insert(s, quotes))
        .or_else(|| delete(s, quotes))
        .or_else(|| set(s, quotes))
        .or_else(|| replace(s, quotes))
        .or_else(|| replace_new_first(s, quotes))
}

/// Parses one Chinese clause written without quotes (the raw prompt, courtesy already stripped, and the same
/// with Traditional chars mapped).
pub(in crate::route) fn zh_unquoted(raw: &str, simp: &str) -> Option<Command> {
    replace_unquoted(raw, simp)
}

/// The blocks a Chinese phrase names, for an English sentence that names its target in Chinese.
pub(in crate::route) fn block_ref_words(s: &str, quotes: &[String]) -> Option<BlockRef> {
    let p = phrase(s, quotes)?;
    if p.all || p.literal.is_some() {
        return None;
    }
    p.block_ref()
}
