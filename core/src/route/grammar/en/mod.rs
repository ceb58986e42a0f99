//! English clauses: replace "A" with "B", delete the third paragraph, append "B", make the selected blocks a
//! bulleted list, check off the first todo, move the code block to the end, `"A" -> "B"`, `s/A/B/`.

mod shorthand;
mod structure;
mod words;

pub(in crate::route) use shorthand::sed;

use alloc::string::String;
use alloc::vec::Vec;

use super::{BlockRef, Command, InsertAt, Within, only_quote};
use crate::page::BlockType;
use crate::route::language::en;
use crate::route::target::{Kind, en_block_type};
use words::{block_ref, only_quote_word, scope, target_prefix};

fn replace(words: &[&str], quotes: &[String], raw_unquoted: bool) -> Option<Command> {
    let (verb, rest) = lead(words, en::REPLACE)?;
    // `swap out "A" for "B"`, `change it from "A" to "B"`.
    let particles = rest.iter().take_while(|w| en::REPLACE_PARTICLES.contains(w)).count();
    let mut rest: Vec<&str> = rest.get(particles..).unwrap_or_default().to_vec();
    let (within, everywhere) = scope(&mut rest);
    let split = rest.iter().position(|w| en::REPLACE_SEPARATORS.contains(w))?;
    let (left, right) = rest.split_at(split);
    // `as` only renames: `rename "A" as "B"`.
    if right.first() == Some(&"as") && verb != "rename" {
        return None;
    }
    // `substitute "B" for "A"`: the new text comes first.
    let swap_order = verb == "substitute" && right.first() == Some(&"for");
    let right = right.get(1..).unwrap_or_default();
    // `edit "A" to read "B"`, `change "A" to say "B"`.
    let right = match right {
        [w, r @ ..] if en::REPLACE_NEW_PARTICLES.contains(w) => r,
        r => r,
    };
    let (left, all) = target_prefix(left);
    let (left, within) = kind_prefix(left, within);
    let (find, with) = texts(left, right, quotes, raw_unquoted)?;
    let (find, with) = if swap_order { (with, find) } else { (find, with) };
    Some(Command::Replace { find, with, all: all || everywhere, within, quoted: !raw_unquoted })
}

/// `rename the heading "Goals" to …`: a kind before the text says where it is.
fn kind_prefix<'a>(left: &'a [&'a str], within: Within) -> (&'a [&'a str], Within) {
    match left {
        ["the", noun, rest @ ..] | [noun, rest @ ..] if within == Within::Page && !rest.is_empty() => {
            match crate::route::target::en_kind(noun) {
                Some(kind) if !matches!(kind, Kind::Paragraph | Kind::Any) => (rest, Within::Kind(kind)),
                _ => (left, within),
            }
        }
        _ => (left, within),
    }
}

/// The old and new texts of a replace: one quote each side, or (unquoted, from a prompt without quotes) one
/// plain token or amount each side.
fn texts(left: &[&str], right: &[&str], quotes: &[String], raw_unquoted: bool) -> Option<(String, String)> {
    match (only_quote_word(left, quotes), only_quote_word(right, quotes)) {
        (Some(a), Some(b)) => Some((a.into(), b.into())),
        (None, None) if raw_unquoted && quotes.is_empty() => Some((token(left)?, token(right)?)),
        _ => None,
    }
}

/// An unquoted literal: one plain token (`colour`, `3.5%`, `$40`, `v2.3`), or a number and its unit
/// (`5 minutes`, `100 元`). Anything longer has no clear boundary.
pub(super) fn token(words: &[&str]) -> Option<String> {
    const UNITS: &[&str] = &[
        "%", "percent", "ms", "s", "sec", "secs", "seconds", "second", "min", "mins", "minutes", "minute", "h",
        "hours", "hour", "days", "day", "weeks", "week", "months", "month", "years", "year", "mb", "gb", "kb", "tb",
        "px", "pt", "users", "people", "items", "dollars", "euros", "usd", "eur", "rmb", "元", "块", "分钟", "小时",
        "天", "秒", "周", "个", "次", "人",
    ];
    let plain = |w: &str| w.len() <= 64 && w.chars().all(|c| c.is_alphanumeric() || "-_'.@/:+#%$€£¥,".contains(c));
    let number = |w: &str| w.chars().any(|c| c.is_ascii_digit()) && plain(w);
    match words {
        [one] if plain(one) && one.chars().any(char::is_alphanumeric) => Some(String::from(*one)),
        [n, unit] if number(n) && UNITS.contains(unit) => Some(alloc::format!("{n} {unit}")),
        _ => None,
    }
}

fn delete(words: &[&str], quotes: &[String]) -> Option<Command> {
    let (_, rest) = lead(words, en::DELETE)?;
    let rest = match rest {
        ["out", r @ ..] => r,
        r => r,
    };
    let mut rest: Vec<&str> = rest.to_vec();
    let (within, everywhere) = scope(&mut rest);
    // `delete the bullet "X"`, `remove the "X" paragraph`: the block of that kind whose text is X.
    if let Some(kind) = kind_and_text(&rest, quotes)
        && within == Within::Page
        && !everywhere
    {
        return Some(Command::DeleteBlock(kind));
    }
    let (target, all) = target_prefix(&rest);
    if let Some(text) = only_quote_word(target, quotes) {
        return Some(Command::DeleteSpan { text: text.into(), all: all || everywhere, within });
    }
    if within != Within::Page || everywhere || all {
        return None;
    }
    match block_ref(&rest, quotes)? {
        BlockRef::Containing(..) => None,
        r => Some(Command::DeleteBlock(r)),
    }
}

/// A block named by its kind and its quoted text: `the todo "X"`, `the "X" bullet`, `paragraph "X"`.
fn kind_and_text(words: &[&str], quotes: &[String]) -> Option<BlockRef> {
    let (noun, q) = match words {
        ["the", noun, q] | [noun, q] if only_quote(q, quotes).is_some() => (*noun, *q),
        ["the", q, noun] | [q, noun] if only_quote(q, quotes).is_some() => (*noun, *q),
        _ => return None,
    };
    let kind = crate::route::target::en_kind(noun).filter(|k| !matches!(k, Kind::Any | Kind::ListItem))?;
    Some(BlockRef::Containing(only_quote(q, quotes)?.into(), Some(kind)))
}

fn insert(words: &[&str], quotes: &[String]) -> Option<Command> {
    // `after "X" add "Y"`: the place may come first.
    if let Some(at) = words.iter().position(|w| en::INSERT.contains(w)).filter(|at| *at > 0)
        && matches!(words.first(), Some(&("after" | "before" | "below" | "under" | "above" | "at")))
    {
        let (place, command) = words.split_at(at);
        let reordered: Vec<&str> = command.iter().chain(place.iter()).copied().collect();
        return insert(&reordered, quotes);
    }
    let (verb, rest) = lead(words, en::INSERT)?;
    let mut kind = BlockType::Paragraph;
    let mut w: &[&str] = rest;
    // An optional noun phrase: `a new paragraph`, `a todo`, `a bullet`, `a line saying`.
    loop {
        match w {
            [word, r @ ..] if en::INSERT_FILLER.contains(word) => w = r,
            ["todo" | "to-do" | "task" | "checkbox", r @ ..] => {
                kind = BlockType::Todo;
                w = r;
            }
            ["bullet" | "bullet-point" | "item", r @ ..] => {
                kind = BlockType::BulletedListItem;
                w = r;
            }
            ["quote" | "blockquote", r @ ..] => {
                kind = BlockType::Quote;
                w = r;
            }
            ["numbered", "item" | "step" | "point", r @ ..] | ["step", r @ ..] => {
                kind = BlockType::NumberedListItem;
                w = r;
            }
            ["heading" | "subheading" | "header", r @ ..] => {
                kind = BlockType::Heading;
                w = r;
            }
            _ => break,
        }
    }
    let (first, place) = w.split_first()?;
    let text = only_quote(first, quotes)?;
    let place = match place {
        ["as", "a", "new", "paragraph" | "line", rest @ ..] | ["as", "a", "paragraph" | "line", rest @ ..] => rest,
        rest => rest,
    };
    let at = match place {
        [] if en::INSERT_AT_END.contains(&verb) => InsertAt::End,
        rest => destination(rest, quotes)?,
    };
    Some(Command::Insert { text: text.into(), kind, at })
}

/// Where a block goes: `at the end (of the page)`, `to the top`, `after the heading "Goals"`, `right before
/// the quote`.
pub(super) fn destination(words: &[&str], quotes: &[String]) -> Option<InsertAt> {
    let words = match words {
        ["right" | "just" | "directly" | "immediately", rest @ ..] => rest,
        rest => rest,
    };
    let page_end = |tail: &[&str]| matches!(tail, [] | ["of", "the" | "this", "page" | "document" | "doc" | "note"]);
    match words {
        ["at" | "to", "the", "very", "end" | "bottom", tail @ ..]
        | ["at" | "to", "the", "end" | "bottom", tail @ ..]
            if page_end(tail) =>
        {
            Some(InsertAt::End)
        }
        ["at" | "to", "end" | "bottom"] => Some(InsertAt::End),
        ["at" | "to", "the", "very", "top" | "beginning" | "start", tail @ ..]
        | ["at" | "to", "the", "top" | "beginning" | "start", tail @ ..]
            if page_end(tail) =>
        {
            Some(InsertAt::Start)
        }
        ["to", "after" | "below", rest @ ..] | ["after" | "below" | "under" | "beneath", rest @ ..] => {
            anchor(rest, quotes).map(InsertAt::After)
        }
        ["to", "before" | "above", rest @ ..] | ["before" | "above", rest @ ..] => {
            anchor(rest, quotes).map(InsertAt::Before)
        }
        _ => None,
    }
}

fn anchor(words: &[&str], quotes: &[String]) -> Option<BlockRef> {
    match block_ref(words, quotes)? {
        BlockRef::Selection if !words.iter().any(|w| matches!(*w, "selected" | "selection" | "this" | "these")) => None,
        r => Some(r),
    }
}

fn set(words: &[&str], quotes: &[String]) -> Option<Command> {
    let (_, rest) = lead(words, en::SET_TYPE)?;
    // Try every split between the target and the new type; `make the selected bullets todos` has no `into`.
    for at in 1..rest.len() {
        let (target, kind_words) = rest.split_at(at);
        let kind_words = match kind_words {
            [w, r @ ..] if en::SET_TYPE_PARTICLES.contains(w) => r,
            r => r,
        };
        let Some(target) = block_ref(target, quotes) else { continue };
        if let Some(text) = only_quote_word(kind_words, quotes) {
            if matches!(target, BlockRef::Containing(..)) {
                return None; // `change "A" to "B"` is a replace
            }
            return Some(Command::SetText { target, text: text.into() });
        }
        if let Some((kind, level)) = en_block_type(&kind_words.join(" ")) {
            return Some(Command::SetType { target, kind, level });
        }
    }
    None
}

/// Parses one English clause (normalized, lowercase words, quotes as markers).
pub(in crate::route) fn en(s: &str, quotes: &[String], unquoted_ok: bool) -> Option<Command> {
    // Outside quotes a comma only separates words (`in the selected bullet,replace …`), except inside a
    // number (`$1,200`).
    let spaced = commas_as_spaces(&space_scripts(s.trim_end_matches(['.', '!', '?'])));
    let owned: Vec<&str> = spaced
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches([',', ':']))
        .filter(|w| !w.is_empty())
        .collect();
    // `in the selected paragraph, replace …`: a leading scope moves to the end.
    let verb = |w: &&str| [en::REPLACE, en::DELETE, en::SET_TYPE].iter().any(|table| table.contains(w));
    let words: Vec<&str> = match owned.iter().position(verb) {
        Some(at) if at > 0 && matches!(owned.first(), Some(&"in") | Some(&"within") | Some(&"inside")) => {
            let (scope, command) = owned.split_at(at);
            command.iter().chain(scope.iter()).copied().collect()
        }
        _ => owned,
    };
    insert(&words, quotes)
        .or_else(|| structure::check(&words, quotes))
        .or_else(|| structure::move_block(&words, quotes))
        .or_else(|| delete(&words, quotes))
        .or_else(|| set(&words, quotes))
        .or_else(|| replace(&words, quotes, unquoted_ok))
        .or_else(|| shorthand::verbless(&words, quotes, unquoted_ok))
}

/// The verb of `table` that `words` start with (the longest, an entry of several words matched word by
/// word: `get rid of`), and the words after it.
pub(super) fn lead<'w>(words: &'w [&'w str], table: &[&'static str]) -> Option<(&'static str, &'w [&'w str])> {
    table
        .iter()
        .filter_map(|verb| {
            let mut rest = words;
            for part in verb.split(' ') {
                rest = rest.strip_prefix(&[part])?;
            }
            Some((*verb, rest))
        })
        .max_by_key(|(verb, _)| verb.len())
}

/// Replaces commas by spaces, but not a comma between two digits.
fn commas_as_spaces(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let digit = |j: Option<usize>| j.and_then(|j| chars.get(j)).is_some_and(char::is_ascii_digit);
            if c == ',' && !(digit(i.checked_sub(1)) && digit(Some(i + 1))) { ' ' } else { c }
        })
        .collect()
}

/// Puts a space where Latin and CJK text touch, so `make第二段a quote` reads as words.
fn space_scripts(s: &str) -> String {
    let cjk = |c: char| ('\u{4e00}'..='\u{9fff}').contains(&c);
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev: Option<char> = None;
    for c in s.chars() {
        if let Some(p) = prev
            && ((cjk(p) && c.is_ascii_alphanumeric()) || (p.is_ascii_alphanumeric() && cjk(c)))
        {
            out.push(' ');
        }
        out.push(c);
        prev = Some(c);
    }
    out
}
