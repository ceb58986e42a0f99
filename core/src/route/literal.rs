//! Finding a command's literal text on the page.
//!
//! Matching is exact: what the user quoted is what gets replaced. Only when the exact text occurs nowhere on
//! the page does the router read it ignoring case and the spaces around it (`"sdk vendor "` for `SDK
//! vendor`), and then only when that reading names exactly one place on the whole page; such a route is
//! at least medium risk and always waits for review. Width is never folded: `Ｅ０５０２` is not `E0502`.
//!
//! Unquoted literals (`将 Rust 替换成 Go`, `change 3.5% to 4%`) must also stand alone where they occur: a
//! hit inside a longer word or number (`3.5%` in `13.5%`) is not what the user named.

use alloc::string::String;
use alloc::vec::Vec;

use crate::normalize::lower;
use crate::page::{Block, Page};

/// How a literal was found on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Found {
    /// As typed (or nowhere at all: the executor reports that).
    Exact,
    /// Only ignoring case and surrounding spaces, once on the page: the page's own text, and its block.
    Folded { text: String, block_id: String },
    /// Ignoring case and surrounding spaces, more than once: the blocks holding it.
    FoldedMany(Vec<String>),
    /// Ignoring case and surrounding spaces, once, in a block the command may not write.
    Unreachable(String),
}

/// Looks for `literal` among the blocks `candidate` accepts: exactly, else folded (see the module docs).
/// The exact search covers the whole page, so text the user typed exactly is never read another way.
pub(super) fn find(page: &Page, literal: &str, candidate: &dyn Fn(&Block) -> bool) -> Found {
    // One searcher for the whole page: `str::contains` would set one up per block, which on a long page
    // cost more than the rest of the route.
    let finder = memchr::memmem::Finder::new(literal.as_bytes());
    if literal.is_empty() || page.blocks.iter().any(|b| finder.find(b.text.as_bytes()).is_some()) {
        return Found::Exact;
    }
    let needle = literal.trim();
    if needle.is_empty() {
        return Found::Exact;
    }
    let mut holders: Vec<(&Block, usize, usize)> = Vec::new();
    for block in &page.blocks {
        for (start, end) in folded_hits(&block.text, needle) {
            holders.push((block, start, end));
        }
    }
    match holders.as_slice() {
        [] => Found::Exact,
        [(block, start, end)] if candidate(block) => match block.text.get(*start..*end) {
            Some(text) => Found::Folded { text: text.into(), block_id: block.block_id.clone() },
            None => Found::Exact,
        },
        [(block, _, _)] => Found::Unreachable(block.block_id.clone()),
        many => {
            let mut ids: Vec<String> = many.iter().map(|(b, _, _)| b.block_id.clone()).collect();
            ids.dedup();
            Found::FoldedMany(ids)
        }
    }
}

/// Byte ranges of the non-overlapping occurrences of `needle` in `text`, comparing chars by their simple
/// lowercase (no width folding).
fn folded_hits(text: &str, needle: &str) -> Vec<(usize, usize)> {
    let needle: Vec<char> = needle.chars().map(lower).collect();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut hits = Vec::new();
    let mut i = 0;
    while i + needle.len() <= chars.len() && !needle.is_empty() {
        let window = chars.get(i..i + needle.len()).unwrap_or_default();
        if window.iter().zip(&needle).all(|((_, c), n)| lower(*c) == *n) {
            let start = window.first().map_or(0, |(at, _)| *at);
            let end = chars.get(i + needle.len()).map_or(text.len(), |(at, _)| *at);
            hits.push((start, end));
            i += needle.len();
        } else {
            i += 1;
        }
    }
    hits
}

/// Whether every occurrence of `literal` in `text` stands alone: not glued to a Latin letter or digit on a
/// side where the literal itself starts or ends with one, and a number not continued by `.5` or `,000`.
pub(super) fn stands_alone(text: &str, literal: &str) -> bool {
    let glue = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let starts_word = literal.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    let ends_word = literal.chars().last().is_some_and(|c| c.is_ascii_alphanumeric());
    let ends_digit = literal.chars().last().is_some_and(|c| c.is_ascii_digit());
    let starts_digit = literal.chars().next().is_some_and(|c| c.is_ascii_digit());
    text.match_indices(literal).all(|(at, _)| {
        let before = text.get(..at).unwrap_or_default();
        let after = text.get(at + literal.len()..).unwrap_or_default();
        let mut back = before.chars().rev();
        let (b1, b2) = (back.next(), back.next());
        let mut ahead = after.chars();
        let (a1, a2) = (ahead.next(), ahead.next());
        let decimal = |sep: Option<char>, digit: Option<char>| {
            sep.is_some_and(|c| matches!(c, '.' | ',')) && digit.is_some_and(|c| c.is_ascii_digit())
        };
        !(starts_word && glue(b1)
            || ends_word && glue(a1)
            || starts_digit && decimal(b1, b2)
            || ends_digit && decimal(a1, a2))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::Block;

    fn page(texts: &[&str]) -> Page {
        let blocks = texts.iter().enumerate().map(|(i, t)| Block::paragraph(alloc::format!("p_{i}"), *t)).collect();
        Page::new("ws", "doc", "t", blocks).unwrap()
    }

    #[test]
    fn exact_text_is_never_read_another_way() {
        let p = page(&["The SDK vendor", "the sdk vendor"]);
        assert_eq!(find(&p, "sdk vendor", &|_| true), Found::Exact);
    }

    #[test]
    fn folded_only_when_unique_on_the_whole_page() {
        let p = page(&["Ask the SDK Vendor today", "nothing"]);
        assert_eq!(
            find(&p, " sdk vendor ", &|_| true),
            Found::Folded { text: "SDK Vendor".into(), block_id: "p_0".into() }
        );
        assert_eq!(find(&p, "sdk vendor", &|b| b.block_id != "p_0"), Found::Unreachable("p_0".into()));
        let p = page(&["SDK one", "Sdk two"]);
        assert_eq!(find(&p, "sdk", &|_| true), Found::FoldedMany(alloc::vec!["p_0".into(), "p_1".into()]));
        let p = page(&["ＡＢＣ"]);
        assert_eq!(find(&p, "abc", &|_| true), Found::Exact, "width is not folded");
    }

    #[test]
    fn unquoted_literals_must_stand_alone() {
        assert!(stands_alone("rate is 3.5% now", "3.5%"));
        assert!(!stands_alone("rate is 13.5% now", "3.5%"));
        assert!(!stands_alone("v 3.55 now", "3.5"));
        assert!(!stands_alone("1,000 users", "000"));
        assert!(!stands_alone("Rustlings", "Rust"));
        assert!(stands_alone("学 Rust 的笔记", "Rust"));
        assert!(stands_alone("Rust学习", "Rust"), "CJK text next to a Latin word is a boundary");
        assert!(stands_alone("从 5 分钟调整", "5 分钟"));
        assert!(!stands_alone("从 15 分钟调整", "5 分钟"));
    }
}
