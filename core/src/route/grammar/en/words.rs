//! The words naming a command's target in English: scope phrases (`in the selected paragraph`, `everywhere`),
//! target prefixes (`all occurrences of`, `the word`), and block references (`the third paragraph`, `the
//! code block`, `the heading "Goals"`, `these`).

use alloc::string::String;
use alloc::vec::Vec;

use crate::route::grammar::{BlockRef, Within, only_quote};
use crate::route::target::{Kind, en_kind, en_kind_words, en_ordinal};

pub(super) fn is_block_noun(w: &str) -> bool {
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
pub(super) fn scope(words: &mut Vec<&str>) -> (Within, bool) {
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
pub(super) fn target_prefix<'a>(words: &'a [&'a str]) -> (&'a [&'a str], bool) {
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
            // `change the "97.8%" to …`
            ["the", q] if is_marker(q) => w = core::slice::from_ref(q),
            _ => return (w, all),
        }
    }
}

pub(super) fn only_quote_word<'q>(words: &[&str], quotes: &'q [String]) -> Option<&'q str> {
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

/// The blocks some words name: the selection (`the selected bullets`, `these`, `it`), the block holding a
/// quoted text (`"X"`, `the heading "Goals"`, `the "Goals" heading`, `the paragraph that says "X"`), the one
/// block of a kind (`the quote`, `the code block`), or blocks by position (`the third paragraph`).
pub(super) fn block_ref(words: &[&str], quotes: &[String]) -> Option<BlockRef> {
    let quoted = |w: &str| only_quote(w, quotes).map(String::from);
    // A kind that names one particular block type; `paragraph` and `block` are too general alone.
    let specific = |noun: &str| en_kind(noun).filter(|k| !matches!(k, Kind::Paragraph | Kind::Any));
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
            quoted(q).map(|q| BlockRef::Containing(q, None))
        }
        ["the", noun, "called" | "named" | "titled", q] | ["the", noun, "that", "says" | "reads", q]
            if specific(noun).is_some() =>
        {
            quoted(q).map(|q| BlockRef::Containing(q, specific(noun)))
        }
        ["the", q, noun] | [q, noun] if en_kind(noun).is_some() && quoted(q).is_some() => {
            quoted(q).map(|q| BlockRef::Containing(q, en_kind(noun)))
        }
        ["the", noun, q] | [noun, q] if specific(noun).is_some() && quoted(q).is_some() => {
            quoted(q).map(|q| BlockRef::Containing(q, specific(noun)))
        }
        [q] if quoted(q).is_some() => quoted(q).map(|q| BlockRef::Containing(q, None)),
        // A single Chinese word inside an English sentence: `make 第二段 a quote`, `make 选中的两条 a list`.
        [word] if word.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) => {
            crate::route::grammar::zh::block_ref_words(word, quotes)
        }
        // `the bullets`, `all the todos`: every block of the kind.
        ["the" | "all", kind @ ..] | ["all", "the", kind @ ..] if plural_kind(kind).is_some() => {
            plural_kind(kind).map(BlockRef::Every)
        }
        ["the", kind @ ..]
            if en_kind_words(kind)
                .is_some_and(|(k, used)| used == kind.len() && !matches!(k, Kind::Paragraph | Kind::Any)) =>
        {
            en_kind_words(kind).map(|(k, _)| BlockRef::Only(k))
        }
        _ => match en_ordinal(words) {
            Some((o, used)) if used == words.len() => Some(BlockRef::Ordinal(o)),
            _ => ordinal_list(words),
        },
    }
}

/// The kind plural words name, all of them (`bullets`, `numbered items`, `to-dos`); never `blocks` or
/// `items` alone, which name no kind.
fn plural_kind(words: &[&str]) -> Option<Kind> {
    let (kind, used) = en_kind_words(words)?;
    let last = words.get(used.checked_sub(1)?)?;
    let plural = last.ends_with('s');
    (used == words.len() && plural && !matches!(kind, Kind::Any | Kind::ListItem)).then_some(kind)
}
