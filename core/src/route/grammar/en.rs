//! English clauses: replace "A" with "B", delete the third paragraph, append "B", make the selected blocks a
//! bulleted list.

use alloc::string::String;
use alloc::vec::Vec;

use super::{BlockRef, Command, InsertAt, Within, only_quote};
use crate::page::BlockType;
use crate::route::target::{en_block_type, en_ordinal};

/// Removes scope phrases from an English clause: the selection, a block by ordinal, or "everywhere".
fn en_scope(words: &mut Vec<&str>) -> (Within, bool) {
    let mut within = Within::Page;
    let mut all = false;
    let mut i = 0;
    while i < words.len() {
        let rest = words.get(i..).unwrap_or_default();
        match rest {
            ["throughout" | "in" | "on" | "across", "the", "whole" | "entire", _, ..] => {
                all = true;
                words.drain(i..i + 4);
                continue;
            }
            ["everywhere" | "throughout" | "globally", ..] => {
                all = true;
                words.remove(i);
                continue;
            }
            ["in" | "within" | "inside" | "of", "the" | "this", "selected" | "highlighted", noun, ..]
                if is_block_noun(noun) =>
            {
                within = Within::Selection;
                words.drain(i..i + 4);
                continue;
            }
            ["in" | "within" | "inside" | "of", "the", "selection", ..] => {
                within = Within::Selection;
                words.drain(i..i + 3);
                continue;
            }
            ["in" | "within" | "inside" | "of", "my" | "the", "selected" | "highlighted", "text", ..] => {
                within = Within::Selection;
                words.drain(i..i + 4);
                continue;
            }
            ["in" | "within" | "inside" | "of", ..] => {
                if let Some((ordinal, used)) = en_ordinal(rest.get(1..).unwrap_or_default()) {
                    within = Within::Block(ordinal);
                    words.drain(i..i + 1 + used);
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (within, all)
}

fn is_block_noun(w: &str) -> bool {
    matches!(
        w,
        "paragraph" | "paragraphs" | "block" | "blocks" | "text" | "part" | "section" | "lines" | "line" | "bit"
    )
}

/// Strips `all`, `every`, `all occurrences of`, `the word`, … from the front of a target.
fn en_target_prefix<'a>(words: &'a [&'a str]) -> (&'a [&'a str], bool) {
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

fn en_only_quote<'q>(words: &[&str], quotes: &'q [String]) -> Option<&'q str> {
    match words {
        [one] => only_quote(one, quotes),
        _ => None,
    }
}

fn en_block_ref(words: &[&str], quotes: &[String]) -> Option<BlockRef> {
    match words {
        ["the" | "my" | "this", "selected" | "highlighted", noun] | ["selected" | "highlighted", noun]
            if is_block_noun(noun) =>
        {
            Some(BlockRef::Selection)
        }
        ["the" | "my", "selection"]
        | ["selection"]
        | ["this" | "these", "paragraph" | "paragraphs" | "block" | "blocks" | "lines" | "line"] => {
            Some(BlockRef::Selection)
        }
        ["the", "paragraph" | "block" | "line", "containing" | "with", q]
        | ["the", "paragraph" | "block" | "line", "that", "says" | "contains", q] => {
            only_quote(q, quotes).map(|q| BlockRef::Containing(q.into()))
        }
        _ => match en_ordinal(words) {
            Some((o, used)) if used == words.len() => Some(BlockRef::Ordinal(o)),
            _ => None,
        },
    }
}

fn en_replace(words: &[&str], quotes: &[String], raw_unquoted: bool) -> Option<Command> {
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
    let (within, everywhere) = en_scope(&mut rest);
    let split = rest.iter().position(|w| matches!(*w, "with" | "to" | "into" | "by" | "for" | ">" | "->" | "=>"))?;
    let (left, right) = rest.split_at(split);
    let right = right.get(1..).unwrap_or_default();
    let (left, all) = en_target_prefix(left);
    let all = all || everywhere;
    let (find, with) = match (en_only_quote(left, quotes), en_only_quote(right, quotes)) {
        (Some(a), Some(b)) => (a.into(), b.into()),
        (None, None) if raw_unquoted && quotes.is_empty() => {
            // `replace colour with color`: one plain token each side, nothing else.
            let token = |w: &[&str]| match w {
                [one] if one.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '\'') && one.len() <= 32 => {
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

fn en_delete(words: &[&str], quotes: &[String]) -> Option<Command> {
    let rest = match words {
        ["get", "rid", "of", rest @ ..] => rest,
        ["delete" | "remove" | "erase" | "drop" | "cut" | "strike" | "take" | "kill", rest @ ..] => rest,
        _ => return None,
    };
    let rest = match rest {
        ["out", r @ ..] => r,
        r => r,
    };
    let mut rest: Vec<&str> = rest.to_vec();
    let (within, everywhere) = en_scope(&mut rest);
    let (target, all) = en_target_prefix(&rest);
    if let Some(text) = en_only_quote(target, quotes) {
        return Some(Command::DeleteSpan { text: text.into(), all: all || everywhere, within });
    }
    if within != Within::Page || everywhere {
        return None;
    }
    en_block_ref(&rest, quotes).map(Command::DeleteBlock)
}

fn en_insert(words: &[&str], quotes: &[String]) -> Option<Command> {
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
    let place: Vec<&str> =
        place.iter().copied().filter(|p| !matches!(*p, "as" | "a" | "new" | "paragraph" | "line")).collect();
    let at = match place.as_slice() {
        [] if *verb == "append" => InsertAt::End,
        ["at" | "to", "the", "end" | "bottom", ..] | ["at" | "to", "end"] => InsertAt::End,
        ["at" | "to", "the", "top" | "beginning" | "start", ..] => InsertAt::Start,
        ["after" | "below" | "under" | "beneath", rest @ ..] => InsertAt::After(en_anchor(rest, quotes)?),
        ["before" | "above", rest @ ..] => InsertAt::Before(en_anchor(rest, quotes)?),
        _ => return None,
    };
    Some(Command::Insert { text: text.into(), kind, at })
}

fn en_anchor(words: &[&str], quotes: &[String]) -> Option<BlockRef> {
    match words {
        [q] => only_quote(q, quotes).map(|q| BlockRef::Containing(q.into())),
        ["the", "paragraph" | "block" | "line", "with" | "containing", q] => {
            only_quote(q, quotes).map(|q| BlockRef::Containing(q.into()))
        }
        _ => en_block_ref(words, quotes),
    }
}

fn en_set(words: &[&str], quotes: &[String]) -> Option<Command> {
    let (verb, rest) = words.split_first()?;
    if !matches!(*verb, "make" | "turn" | "convert" | "change" | "set" | "format" | "transform") {
        return None;
    }
    let split = rest.iter().position(|w| matches!(*w, "into" | "to" | "as" | "a" | "an"));
    let (target, kind_words) = match split {
        Some(at) => {
            let (t, k) = rest.split_at(at);
            let k = match k {
                ["into" | "to" | "as", r @ ..] => r,
                r => r,
            };
            (t, k)
        }
        None => return None,
    };
    let target = en_block_ref(target, quotes)?;
    if let Some(text) = en_only_quote(kind_words, quotes) {
        return Some(Command::SetText { target, text: text.into() });
    }
    let (kind, level) = en_block_type(&kind_words.join(" "))?;
    Some(Command::SetType { target, kind, level })
}

/// Parses one English clause (normalized, lowercase words, quotes as markers).
pub(in crate::route) fn en(s: &str, quotes: &[String], unquoted_ok: bool) -> Option<Command> {
    let s = s.trim_end_matches(['.', '!', '?']);
    let owned: Vec<&str> = s
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches([',', ':']))
        .filter(|w| !w.is_empty())
        .collect();
    // `in the selected paragraph, replace …`: a leading scope moves to the end.
    let words: Vec<&str> = match owned.iter().position(|w| {
        matches!(
            *w,
            "replace" | "change" | "delete" | "remove" | "make" | "turn" | "add" | "append" | "insert" | "convert"
        )
    }) {
        Some(at) if at > 0 && matches!(owned.first(), Some(&"in") | Some(&"within")) => {
            let (scope, command) = owned.split_at(at);
            command.iter().chain(scope.iter()).copied().collect()
        }
        _ => owned,
    };
    en_insert(&words, quotes)
        .or_else(|| en_delete(&words, quotes))
        .or_else(|| en_set(&words, quotes))
        .or_else(|| en_replace(&words, quotes, unquoted_ok))
}
