//! Prompt preprocessing: pull out quoted spans verbatim, then normalize what is left.
//!
//! Quoted text is the user's literal target and is never altered: `「ＡＢＣ」` stays full-width. Everything
//! outside quotes is folded (full-width → half-width, lowercase, Traditional → Simplified), its punctuation
//! canonicalized, polite
//! prefixes and trailing punctuation dropped, so the grammar sees one spelling of each form.

use alloc::string::String;
use alloc::vec::Vec;

use super::language::{GLUED_BEFORE, GLUED_PREFIXES, QUOTE_PAIRS, WRAPPER_PREFIXES, WRAPPER_SUFFIXES};
use crate::normalize::fold_char;

/// The first private-use char; quote `i` is replaced by `char(QUOTE_BASE + i)` in the skeleton.
const QUOTE_BASE: u32 = 0xE000;
/// At most this many quotes are tracked; a prompt with more goes to Hermes.
pub(super) const MAX_QUOTES: usize = 64;

/// A prompt split into its quoted spans and a normalized skeleton that refers to them by marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Prompt {
    /// Normalized text; each quote is one marker char, surrounded by spaces.
    pub skeleton: String,
    /// The quoted spans, verbatim.
    pub quotes: Vec<String>,
}

/// The marker char of quote `i`.
pub(super) fn marker(i: usize) -> char {
    char::from_u32(QUOTE_BASE + i as u32).unwrap_or('\u{E000}')
}

/// The quote index of a marker char.
pub(super) fn quote_index(c: char) -> Option<usize> {
    let v = c as u32;
    (QUOTE_BASE..QUOTE_BASE + MAX_QUOTES as u32).contains(&v).then(|| (v - QUOTE_BASE) as usize)
}

fn closing(open: char) -> Option<char> {
    QUOTE_PAIRS.iter().find(|(o, _)| *o == open).map(|(_, c)| *c)
}

/// Symmetric ASCII quotes double as apostrophes and inch marks: they only open at a word boundary and only
/// close before one, so `don't` and `5'9"` stay text.
fn symmetric(c: char) -> bool {
    matches!(c, '"' | '\'' | '`' | '＂' | '＇')
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Finds where the quote opened at `chars[start]` closes, honouring nesting of asymmetric pairs.
fn find_close(chars: &[char], start: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in chars.iter().enumerate().skip(start + 1) {
        if symmetric(open) {
            if c == close && !is_word(chars.get(i + 1).copied()) && i > start + 1 {
                return Some(i);
            }
            continue;
        }
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

/// Splits `raw` into quotes and a normalized skeleton.
pub(super) fn parse(raw: &str) -> Prompt {
    let chars: Vec<char> = raw.chars().collect();
    let mut quotes = Vec::new();
    let mut skeleton = String::with_capacity(raw.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let opens =
            closing(c).filter(|_| !(symmetric(c) && is_word(i.checked_sub(1).and_then(|p| chars.get(p).copied()))));
        if let Some(close) = opens
            && quotes.len() < MAX_QUOTES
            && let Some(end) = find_close(&chars, i, c, close)
        {
            quotes.push(chars.get(i + 1..end).map(|s| s.iter().collect()).unwrap_or_default());
            skeleton.push(' ');
            skeleton.push(marker(quotes.len() - 1));
            skeleton.push(' ');
            i = end + 1;
            continue;
        }
        skeleton.push(canonical_char(c));
        i += 1;
    }
    Prompt { skeleton: rewrite(tidy(&skeleton)), quotes }
}

/// Width- and case-folds a char, and maps CJK punctuation onto one ASCII spelling.
fn canonical_char(c: char) -> char {
    match c {
        '。' | '｡' => '.',
        '、' => ',',
        '～' | '〜' => '~',
        '\u{3000}' => ' ',
        '→' | '⇒' | '➡' => '>',
        c if c.is_whitespace() => ' ',
        c => super::hant::simplified(fold_char(c)),
    }
}

/// Spellings that mean the same to the grammar: English verbs inside Chinese sentences, and words that join
/// two commands (`并且`, `然后`, `and 把`), which become a comma.
const REWRITES: &[(&str, &str)] = &[
    ("update成", "改成"),
    ("change成", "改成"),
    ("rename成", "改成"),
    ("replace成", "替换成"),
    ("replace为", "替换为"),
    ("delete掉", "删掉"),
    ("move到", "移到"),
    ("move至", "移到"),
    ("remove掉", "删掉"),
    ("并且把", ",把"),
    ("然后把", ",把"),
    ("同时把", ",把"),
    ("再把", ",把"),
    ("并把", ",把"),
    ("and把", ",把"),
    ("以及把", ",把"),
    ("另外把", ",把"),
    ("还有把", ",把"),
];

/// Applies [`REWRITES`].
fn rewrite(s: String) -> String {
    let mut s = s;
    for (from, to) in REWRITES {
        if s.contains(from) {
            s = s.replace(from, to);
        }
    }
    s
}

/// Collapses runs of spaces, and drops spaces next to CJK text and punctuation, where they carry nothing.
fn tidy(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        if c != ' ' {
            out.push(c);
            continue;
        }
        let prev = out.chars().last();
        let next = chars.get(i + 1..).and_then(|rest| rest.iter().find(|c| **c != ' ')).copied();
        let keep = match (prev, next) {
            (None, _) | (_, None) => false,
            (Some(p), Some(n)) => {
                p != ' ' && (latin(p) || quote_index(p).is_some()) && (latin(n) || quote_index(n).is_some())
            }
        };
        if keep {
            out.push(' ');
        }
    }
    out
}

fn latin(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '>' | '<')
}

/// Strips polite prefixes and closing punctuation, repeatedly, from a normalized clause: the longest wrapper
/// that matches each time, so a table's order never splits one (`好吗` is not `吗` after `好`).
pub(super) fn strip_courtesy(mut s: &str) -> &str {
    loop {
        let before = s.len();
        s = s.trim_matches(|c: char| c == ' ' || c == ',');
        if let Some(rest) = longest(WRAPPER_PREFIXES.iter().filter_map(|p| s.strip_prefix(p))) {
            s = rest;
        }
        for p in GLUED_PREFIXES {
            if let Some(rest) = s.strip_prefix(p)
                && rest.chars().next().is_some_and(|c| GLUED_BEFORE.contains(&c))
            {
                s = rest;
            }
        }
        let suffixes = WRAPPER_SUFFIXES.iter().filter_map(|p| {
            // `…,thanks`, `…?thanks`: spaces next to punctuation are gone after normalization.
            let glued = p
                .strip_prefix(' ')
                .and_then(|word| s.strip_suffix(word))
                .filter(|rest| rest.ends_with([',', '?', '!', '.', ';']));
            s.strip_suffix(p).or(glued)
        });
        if let Some(rest) = longest(suffixes) {
            s = rest;
        }
        if s.len() == before {
            return s.trim();
        }
    }
}

/// The shortest of the remainders: what is left after the longest wrapper.
fn longest<'s>(rests: impl Iterator<Item = &'s str>) -> Option<&'s str> {
    rests.min_by_key(|rest| rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_kept_verbatim_and_the_rest_is_folded() {
        let p = parse("请把「ＡＢＣ」替换为“第二版”！");
        assert_eq!(p.quotes, ["ＡＢＣ", "第二版"]);
        assert_eq!(p.skeleton, alloc::format!("请把{}替换为{}!", marker(0), marker(1)));
        assert_eq!(strip_courtesy(&p.skeleton), alloc::format!("把{}替换为{}", marker(0), marker(1)));
    }

    #[test]
    fn nesting_and_apostrophes() {
        let p = parse("把「他说“好”」改成「他说“行”」");
        assert_eq!(p.quotes, ["他说“好”", "他说“行”"]);
        let p = parse("Don't replace 'it's' with \"its\"");
        assert_eq!(p.quotes, ["it's", "its"]);
        assert_eq!(p.skeleton, alloc::format!("don't replace {} with {}", marker(0), marker(1)));
        let p = parse("replace `a` with ``");
        assert_eq!(p.quotes, ["a"], "an empty backtick pair is not a quote");
    }

    #[test]
    fn the_longest_wrapper_is_stripped() {
        let m = |i| marker(i);
        for (raw, left) in [
            ("把「A」改成「B」好吗", alloc::format!("把{}改成{}", m(0), m(1))),
            ("麻烦把「A」改成「B」可以吗？", alloc::format!("把{}改成{}", m(0), m(1))),
            ("please replace 'A' with 'B' for me, thanks a lot!", alloc::format!("replace {} with {}", m(0), m(1))),
        ] {
            assert_eq!(strip_courtesy(&parse(raw).skeleton), left, "{raw}");
        }
    }

    #[test]
    fn unclosed_quotes_stay_text() {
        let p = parse("把「A 改成 B");
        assert!(p.quotes.is_empty());
        assert_eq!(p.skeleton, "把「a改成b");
    }
}
