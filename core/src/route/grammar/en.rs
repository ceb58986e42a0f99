//! English clauses: replace "A" with "B", delete the third paragraph, append "B", make the selected blocks a
//! bulleted list.

use alloc::string::String;
use alloc::vec::Vec;

use super::{BlockRef, Command, InsertAt, Within, only_quote};
use crate::page::BlockType;
use crate::route::target::{Kind, en_block_type, en_kind, en_ordinal};

fn is_block_noun(w: &str) -> bool {
    matches!(
        w,
        "paragraph"
            | "paragraphs"
            | "block"
            | "blocks"
            | "text"
            | "part"
            | "section"
            | "lines"
            | "line"
            | "bit"
            | "todo"
            | "todos"
            | "to-do"
            | "bullet"
            | "bullets"
            | "item"
            | "items"
            | "heading"
            | "headings"
            | "quote"
            | "task"
            | "tasks"
            | "one"
            | "ones"
            | "sentence"
            | "points"
            | "point"
    )
}

/// Removes scope phrases from a clause: the selection, a block by ordinal, a kind, or "everywhere".
/// Location phrases it cannot read (`from the attendees`) are dropped: they can only narrow a literal
/// target, and the self dry-run still requires that target to be unique.
fn scope(words: &mut Vec<&str>) -> (Within, bool) {
    let mut within = Within::Page;
    let mut all = false;
    let mut i = 0;
    while i < words.len() {
        match scope_phrase(words.get(i..).unwrap_or_default(), i > 0) {
            Some(Phrase::Everywhere(used)) => {
                all = true;
                words.drain(i..i + used);
            }
            Some(Phrase::Within(found, used)) => {
                within = found;
                words.drain(i..i + used);
            }
            Some(Phrase::Unread) => {
                words.truncate(i);
                break;
            }
            None => i += 1,
        }
    }
    (within, all)
}

/// A scope phrase at the start of some words.
enum Phrase {
    /// `everywhere`, `throughout the whole page`: every occurrence; how many words it used.
    Everywhere(usize),
    /// `in the selected blocks`, `in the third paragraph`, `in the table`; how many words it used.
    Within(Within, usize),
    /// A location at the end of the clause that the router cannot read: it ends the clause.
    Unread,
}

/// The scope phrase `rest` starts with, if any. `later` is false at the clause's first word, which is never
/// a location.
fn scope_phrase(rest: &[&str], later: bool) -> Option<Phrase> {
    let prep = matches!(rest.first(), Some(&("in" | "within" | "inside" | "of" | "from" | "on")));
    match rest {
        ["throughout" | "in" | "on" | "across", "the", "whole" | "entire", _, ..] => Some(Phrase::Everywhere(4)),
        ["everywhere" | "throughout" | "globally", ..] => Some(Phrase::Everywhere(1)),
        [_, "the" | "this" | "my", "selected" | "highlighted", noun, ..] if prep && is_block_noun(noun) => {
            Some(Phrase::Within(Within::Selection, 4))
        }
        [_, "the" | "my", "selection", ..] if prep => Some(Phrase::Within(Within::Selection, 3)),
        [_, "this" | "these", noun, ..] if prep && is_block_noun(noun) => Some(Phrase::Within(Within::Selection, 3)),
        [_, "the", noun, ..]
            if prep && en_kind(noun).is_some_and(|k| !matches!(k, Kind::Paragraph | Kind::Any)) && rest.len() == 3 =>
        {
            Some(Phrase::Within(Within::Kind(en_kind(noun).unwrap_or(Kind::Any)), 3))
        }
        [_, tail @ ..] if prep && later => {
            if let Some((ordinal, used)) = en_ordinal(tail) {
                return Some(Phrase::Within(Within::Block(ordinal), 1 + used));
            }
            // An unread location at the end of the clause: `from the attendees`, `in the notes`.
            let unread = matches!(rest.first(), Some(&("from" | "in" | "on")))
                && tail.len() <= 4
                && !tail.iter().any(|w| is_marker(w));
            unread.then_some(Phrase::Unread)
        }
        _ => None,
    }
}

fn is_marker(w: &str) -> bool {
    w.chars().next().is_some_and(|c| crate::route::prompt::quote_index(c).is_some())
}

/// Strips `all`, `every`, `all occurrences of`, `the word`, … from the front of a target.
fn target_prefix<'a>(words: &'a [&'a str]) -> (&'a [&'a str], bool) {
    let mut w = words;
    let mut all = false;
    loop {
        match w {
            [
                "all" | "every" | "each",
                "occurrences" | "occurrence" | "instances" | "instance" | "mentions" | "mention",
                "of",
                rest @ ..,
            ] => {
                all = true;
                w = rest;
            }
            ["all" | "every" | "each", "the", rest @ ..] | ["all" | "every" | "each", rest @ ..] => {
                all = true;
                w = rest;
            }
            ["the", "word" | "words" | "text" | "phrase" | "string" | "term" | "sentence" | "typo", rest @ ..] => {
                w = rest
            }
            ["word" | "text" | "phrase" | "string" | "term", rest @ ..] => w = rest,
            _ => return (w, all),
        }
    }
}

fn only_quote_word<'q>(words: &[&str], quotes: &'q [String]) -> Option<&'q str> {
    match words {
        [one] => only_quote(one, quotes),
        _ => None,
    }
}

/// Several ordinals: `the first and second todos`, `the first two paragraphs`.
fn ordinal_list(words: &[&str]) -> Option<BlockRef> {
    let w = match words {
        ["the", rest @ ..] => rest,
        rest => rest,
    };
    let count = |word: &str| match word {
        "two" | "2" => Some(2),
        "three" | "3" => Some(3),
        "four" | "4" => Some(4),
        _ => None,
    };
    match w {
        ["first" | "last", n, noun] if count(n).is_some() => {
            let kind = en_kind(noun)?;
            let from_end = w.first() == Some(&"last");
            let ordinals = (1..=count(n)?).map(|n| crate::route::target::Ordinal { kind, n, from_end }).collect();
            Some(BlockRef::Ordinals(ordinals))
        }
        [a, "and", b, noun] => {
            let first = en_ordinal(&[a, noun])?.0;
            let second = en_ordinal(&[b, noun])?.0;
            Some(BlockRef::Ordinals(alloc::vec![first, second]))
        }
        _ => None,
    }
}

fn block_ref(words: &[&str], quotes: &[String], selection_nouns_only: bool) -> Option<BlockRef> {
    match words {
        ["the" | "my" | "this" | "these", "selected" | "highlighted", noun] | ["selected" | "highlighted", noun]
            if is_block_noun(noun) =>
        {
            Some(BlockRef::Selection)
        }
        ["the" | "my", "selection"] | ["selection"] | ["these" | "them" | "it" | "this" | "those"] => {
            Some(BlockRef::Selection)
        }
        ["this" | "these", noun] if is_block_noun(noun) => Some(BlockRef::Selection),
        ["the", "paragraph" | "block" | "line" | "bullet" | "item" | "todo", "containing" | "with" | "saying", q]
        | ["the", "paragraph" | "block" | "line" | "bullet" | "item" | "todo", "that", "says" | "contains", q] => {
            only_quote(q, quotes).map(|q| BlockRef::Containing(q.into(), None))
        }
        ["the", q, noun] if en_kind(noun).is_some() && only_quote(q, quotes).is_some() => {
            only_quote(q, quotes).map(|q| BlockRef::Containing(q.into(), en_kind(noun)))
        }
        [q] if only_quote(q, quotes).is_some() => only_quote(q, quotes).map(|q| BlockRef::Containing(q.into(), None)),
        // A single Chinese word inside an English sentence: `make 第二段 a quote`, `make 选中的两条 a list`.
        [word] if word.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) => {
            super::zh::block_ref_words(word, quotes)
        }
        ["the", noun] if !selection_nouns_only => {
            en_kind(noun).filter(|k| !matches!(k, Kind::Paragraph | Kind::Any)).map(BlockRef::Only)
        }
        _ => match en_ordinal(words) {
            Some((o, used)) if used == words.len() => Some(BlockRef::Ordinal(o)),
            _ => ordinal_list(words),
        },
    }
}

fn replace(words: &[&str], quotes: &[String], raw_unquoted: bool) -> Option<Command> {
    let (verb, rest) = words.split_first()?;
    let swap_order = *verb == "substitute";
    if !matches!(
        *verb,
        "replace"
            | "change"
            | "swap"
            | "switch"
            | "substitute"
            | "rename"
            | "update"
            | "correct"
            | "fix"
            | "turn"
            | "modify"
            | "edit"
    ) {
        return None;
    }
    let mut rest: Vec<&str> = rest.to_vec();
    let (within, everywhere) = scope(&mut rest);
    let split = rest.iter().position(|w| matches!(*w, "with" | "to" | "into" | "by" | "for" | ">" | "->" | "=>"))?;
    let (left, right) = rest.split_at(split);
    let right = right.get(1..).unwrap_or_default();
    let (left, all) = target_prefix(left);
    let all = all || everywhere;
    let (find, with) = match (only_quote_word(left, quotes), only_quote_word(right, quotes)) {
        (Some(a), Some(b)) => (a.into(), b.into()),
        (None, None) if raw_unquoted && quotes.is_empty() => {
            // `replace colour with color`: one plain token each side, nothing else.
            let token = |w: &[&str]| match w {
                [one] if one.len() <= 64 && one.chars().all(|c| c.is_alphanumeric() || "-_'.@/:+#".contains(c)) => {
                    Some(String::from(*one))
                }
                _ => None,
            };
            (token(left)?, token(right)?)
        }
        _ => return None,
    };
    let (find, with) = if swap_order { (with, find) } else { (find, with) };
    Some(Command::Replace { find, with, all, within, quoted: !raw_unquoted })
}

fn delete(words: &[&str], quotes: &[String]) -> Option<Command> {
    let rest = match words {
        ["get", "rid", "of", rest @ ..] => rest,
        ["delete" | "remove" | "erase" | "drop" | "cut" | "strike" | "kill", rest @ ..] => rest,
        _ => return None,
    };
    let rest = match rest {
        ["out", r @ ..] => r,
        r => r,
    };
    let mut rest: Vec<&str> = rest.to_vec();
    let (within, everywhere) = scope(&mut rest);
    let (target, all) = target_prefix(&rest);
    if let Some(text) = only_quote_word(target, quotes) {
        return Some(Command::DeleteSpan { text: text.into(), all: all || everywhere, within });
    }
    if within != Within::Page || everywhere || all {
        return None;
    }
    match block_ref(&rest, quotes, false)? {
        BlockRef::Containing(..) => None,
        r => Some(Command::DeleteBlock(r)),
    }
}

fn insert(words: &[&str], quotes: &[String]) -> Option<Command> {
    // `after "X" add "Y"`: the place may come first.
    if let Some(at) = words.iter().position(|w| matches!(*w, "add" | "insert" | "append" | "put")).filter(|at| *at > 0)
        && matches!(words.first(), Some(&("after" | "before" | "below" | "under" | "above" | "at")))
    {
        let (place, command) = words.split_at(at);
        let reordered: Vec<&str> = command.iter().chain(place.iter()).copied().collect();
        return insert(&reordered, quotes);
    }
    let (verb, rest) = words.split_first()?;
    if !matches!(*verb, "append" | "add" | "insert" | "write" | "put") {
        return None;
    }
    let mut kind = BlockType::Paragraph;
    let mut w: &[&str] = rest;
    // An optional noun phrase: `a new paragraph`, `a todo`, `a bullet`, `a line saying`.
    loop {
        match w {
            [
                "a" | "an" | "another" | "new" | "one" | "the" | "following" | "text" | "line" | "sentence"
                | "paragraph" | "saying" | "that" | "says" | "with" | "reading" | "which" | "reads" | "of" | ":",
                r @ ..,
            ] => w = r,
            ["todo" | "to-do" | "task" | "checkbox", r @ ..] => {
                kind = BlockType::Todo;
                w = r;
            }
            ["bullet" | "bullet-point" | "item", r @ ..] => {
                kind = BlockType::BulletedListItem;
                w = r;
            }
            ["quote", r @ ..] => {
                kind = BlockType::Quote;
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
        [] if *verb == "append" => InsertAt::End,
        ["at" | "to", "the", "end" | "bottom", ..] | ["at" | "to", "end"] => InsertAt::End,
        ["at" | "to", "the", "top" | "beginning" | "start", ..] => InsertAt::Start,
        ["after" | "below" | "under" | "beneath", rest @ ..] => InsertAt::After(anchor(rest, quotes)?),
        ["before" | "above", rest @ ..] => InsertAt::Before(anchor(rest, quotes)?),
        _ => return None,
    };
    Some(Command::Insert { text: text.into(), kind, at })
}

fn anchor(words: &[&str], quotes: &[String]) -> Option<BlockRef> {
    match block_ref(words, quotes, true)? {
        BlockRef::Selection if !words.iter().any(|w| matches!(*w, "selected" | "selection" | "this" | "these")) => None,
        r => Some(r),
    }
}

fn set(words: &[&str], quotes: &[String]) -> Option<Command> {
    let (verb, rest) = words.split_first()?;
    if !matches!(*verb, "make" | "turn" | "convert" | "change" | "set" | "format" | "transform") {
        return None;
    }
    // Try every split between the target and the new type; `make the selected bullets todos` has no `into`.
    for at in 1..rest.len() {
        let (target, kind_words) = rest.split_at(at);
        let kind_words = match kind_words {
            ["into" | "to" | "as", r @ ..] => r,
            r => r,
        };
        let Some(target) = block_ref(target, quotes, false) else { continue };
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
    // Outside quotes a comma only separates words: `in the selected bullet,replace …`.
    let spaced = space_scripts(s.trim_end_matches(['.', '!', '?'])).replace(',', " ");
    let owned: Vec<&str> = spaced
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches([',', ':']))
        .filter(|w| !w.is_empty())
        .collect();
    // `in the selected paragraph, replace …`: a leading scope moves to the end.
    let verbs =
        ["replace", "change", "delete", "remove", "make", "turn", "convert", "swap", "substitute", "rename", "update"];
    let words: Vec<&str> = match owned.iter().position(|w| verbs.contains(w)) {
        Some(at) if at > 0 && matches!(owned.first(), Some(&"in") | Some(&"within") | Some(&"inside")) => {
            let (scope, command) = owned.split_at(at);
            command.iter().chain(scope.iter()).copied().collect()
        }
        _ => owned,
    };
    insert(&words, quotes)
        .or_else(|| delete(&words, quotes))
        .or_else(|| set(&words, quotes))
        .or_else(|| replace(&words, quotes, unquoted_ok))
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
