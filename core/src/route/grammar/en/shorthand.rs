//! Shorthand for "replace A with B": `s/A/B/`, `"A" -> "B"`, `"A" → "B"`, `"A" to "B"`, `"A" should be "B"`,
//! `use "B" instead of "A"`.

use alloc::string::String;
use alloc::vec::Vec;

use super::token;
use super::words::{only_quote_word, scope};
use crate::route::grammar::{Command, Within};
use crate::route::language::en;

/// A sed substitution typed as the whole prompt: `s/teh/the/`, or `s/teh/the/g` for every occurrence. The
/// two texts are taken verbatim, as if quoted; `\/` stands for a slash inside them.
pub(in crate::route) fn sed(raw: &str) -> Option<Command> {
    let body = raw.trim().strip_prefix("s/")?;
    let mut parts: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.clone().next() == Some('/') => {
                current.push('/');
                chars.next();
            }
            '/' => parts.push(core::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    let all = match (parts.len(), current.as_str()) {
        (2, "") => false,
        (2, "g") => true,
        _ => return None,
    };
    let mut parts = parts.into_iter();
    let (find, with) = (parts.next()?, parts.next()?);
    if find.is_empty() {
        return None;
    }
    Some(Command::Replace { find, with, all, within: Within::Page, quoted: true })
}

/// A replace without a verb: the old text, an arrow or `to` / `should be`, the new text (`"A" -> "B"`,
/// `"A" should read "B" in the second paragraph`), or `use "B" instead of "A"`. Unquoted tokens only with an
/// arrow (`Friday -> Thursday`).
pub(super) fn verbless(words: &[&str], quotes: &[String], raw_unquoted: bool) -> Option<Command> {
    let mut words: Vec<&str> = words.to_vec();
    let (within, all) = scope(&mut words);
    let arrow = |w: &str| matches!(w, ">" | "->" | "=>" | "-->");
    if let Some((old, new)) = instead(&words) {
        let (find, with) = (only_quote_word(&[old], quotes)?, only_quote_word(new, quotes)?);
        return Some(Command::Replace { find: find.into(), with: with.into(), all, within, quoted: true });
    }
    let (old, new): (&[&str], &[&str]) = match words.as_slice() {
        [old, "should", "be" | "read" | "say" | "become", new @ ..]
        | [old, "becomes", new @ ..]
        | [old, "to", new @ ..] => (core::slice::from_ref(old), new),
        [old @ .., sep, new] if arrow(sep) => (old, core::slice::from_ref(new)),
        _ => return None,
    };
    let (find, with) = match (only_quote_word(old, quotes), only_quote_word(new, quotes)) {
        (Some(a), Some(b)) => (String::from(a), String::from(b)),
        (None, None) if raw_unquoted && quotes.is_empty() && words.iter().any(|w| arrow(w)) => {
            (token(old)?, token(new)?)
        }
        _ => return None,
    };
    Some(Command::Replace { find, with, all, within, quoted: !raw_unquoted })
}

/// The old text and the new words of `[use] "B" instead of "A"`.
fn instead<'w>(words: &'w [&'w str]) -> Option<(&'w str, &'w [&'w str])> {
    let words = match words {
        [verb, rest @ ..] if en::NEW_FIRST_VERBS.contains(verb) => rest,
        rest => rest,
    };
    let (old, before) = words.split_last()?;
    en::NEW_FIRST_CONNECTORS.iter().find_map(|connector| {
        let connector: Vec<&str> = connector.split(' ').collect();
        before.strip_suffix(connector.as_slice()).map(|new| (*old, new))
    })
}
