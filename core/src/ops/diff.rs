//! Per-block diffs of a write, from the `similar` crate.
//!
//! Each changed block gets a unified line diff (what a reviewer reads in a terminal or a log) and an inline
//! character-level diff (what the UI paints). Characters, not words: CJK text has no spaces, so a word diff
//! would mark a whole sentence as changed for a one-character edit.
//!
//! Both diffs call similar's Myers implementation directly, with the same hooks (`Compact` over `Replace`
//! over `Capture`) that `similar::TextDiff` uses, and format the unified diff from
//! `similar::group_diff_ops` and `UnifiedHunkHeader`. Going through `TextDiff` would give the same bytes
//! (the tests check it against `TextDiff` as the oracle), but `TextDiff` dispatches on its algorithm at run
//! time, so all six of similar's algorithms, each for several index types, ship in the browser package:
//! about 250 KB of the WASM module before this change.

use crate::json::Read;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write as _;
use serde::{Deserialize, Serialize};
use similar::algorithms::{Capture, Compact, Replace, myers};
use similar::udiff::UnifiedHunkHeader;
use similar::{DiffOp, DiffTag};

/// One run of an inline diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InlineSpan {
    /// `equal`, `insert` or `delete`.
    pub tag: SpanTag,
    /// The characters of this run.
    pub text: String,
}

/// What happened to a run of characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SpanTag {
    /// In both texts.
    Equal,
    /// Only in the new text.
    Insert,
    /// Only in the old text.
    Delete,
}

/// The diff of one block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockDiff {
    /// The block.
    pub block_id: String,
    /// A unified diff of the block's text, with `a/{blockId}` and `b/{blockId}` headers.
    pub unified: String,
    /// The character-level diff, as runs.
    pub inline: Vec<InlineSpan>,
}

/// Lines of a block's unified diff kept on each side of a change.
const CONTEXT_RADIUS: usize = 3;

/// The character-level diff of `before` → `after`, as runs (a replaced run is a delete, then an insert).
pub fn inline_diff(before: &str, after: &str) -> Vec<InlineSpan> {
    let (mut old, mut new) = (before, after);
    inline_runs(before, after)
        .into_iter()
        .map(|(tag, chars)| {
            let text = match tag {
                SpanTag::Equal => {
                    take_chars(&mut new, chars);
                    take_chars(&mut old, chars)
                }
                SpanTag::Delete => take_chars(&mut old, chars),
                SpanTag::Insert => take_chars(&mut new, chars),
            };
            InlineSpan { tag, text: text.to_string() }
        })
        .collect()
}

/// The runs of [`inline_diff`] as lengths in chars, without their text: an equal run advances both texts, a
/// delete run the old one, an insert run the new one. No run is empty.
///
/// For callers that can slice the texts themselves: the browser package hands these to JS, which slices the
/// strings it already holds instead of receiving every span's text.
pub fn inline_runs(before: &str, after: &str) -> Vec<(SpanTag, usize)> {
    let ids = |text: &str| text.chars().map(u32::from).collect::<Vec<u32>>();
    let mut runs = Vec::new();
    let mut push = |tag: SpanTag, range: core::ops::Range<usize>| {
        if !range.is_empty() {
            runs.push((tag, range.len()));
        }
    };
    for op in diff_ops(&ids(before), &ids(after)) {
        let (tag, deleted, inserted) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => push(SpanTag::Equal, deleted),
            DiffTag::Delete => push(SpanTag::Delete, deleted),
            DiffTag::Insert => push(SpanTag::Insert, inserted),
            DiffTag::Replace => {
                push(SpanTag::Delete, deleted);
                push(SpanTag::Insert, inserted);
            }
        }
    }
    runs
}

/// The word-level diff of `before` → `after`, as runs: what a suggestion shows a reader. A run of letters
/// or digits of a spaced script is one token, so English changes word by word; every other character
/// (CJK, which has no spaces, punctuation, each space) is its own token, so Chinese changes character by
/// character. Same Myers diff as [`inline_diff`], over tokens instead of chars; adjacent runs of the same
/// tag are merged.
pub fn word_diff<'a>(before: &'a str, after: &'a str) -> Vec<InlineSpan> {
    let (old, new) = (words(before), words(after));
    let mut interned: hashbrown::HashMap<&'a str, u32> = hashbrown::HashMap::new();
    let mut ids = |tokens: &[&'a str]| -> Vec<u32> {
        let mut out = Vec::with_capacity(tokens.len());
        for &token in tokens {
            let next = u32::try_from(interned.len()).unwrap_or(u32::MAX);
            out.push(*interned.entry(token).or_insert(next));
        }
        out
    };
    let (old_ids, new_ids) = (ids(&old), ids(&new));
    let mut spans: Vec<InlineSpan> = Vec::new();
    let mut push = |tag: SpanTag, tokens: &[&str]| {
        if tokens.is_empty() {
            return;
        }
        let text: String = tokens.concat();
        match spans.last_mut() {
            Some(last) if last.tag == tag => last.text.push_str(&text),
            _ => spans.push(InlineSpan { tag, text }),
        }
    };
    for op in diff_ops(&old_ids, &new_ids) {
        let (tag, deleted, inserted) = op.as_tag_tuple();
        let (gone, came) = (old.get(deleted).unwrap_or_default(), new.get(inserted).unwrap_or_default());
        match tag {
            DiffTag::Equal => push(SpanTag::Equal, gone),
            DiffTag::Delete => push(SpanTag::Delete, gone),
            DiffTag::Insert => push(SpanTag::Insert, came),
            DiffTag::Replace => {
                push(SpanTag::Delete, gone);
                push(SpanTag::Insert, came);
            }
        }
    }
    spans
}

/// Whether `c` belongs to a word of a spaced script: a letter or digit that is not CJK.
fn in_word(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// Han, kana, Hangul and the CJK symbols and full-width forms: scripts written without spaces.
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x11FF | 0x2E80..=0x9FFF | 0xA960..=0xA97F | 0xAC00..=0xD7FF | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
}

/// `text` cut into [`word_diff`]'s tokens.
fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(first) = rest.chars().next() {
        let end = match in_word(first) {
            true => rest.char_indices().find(|(_, c)| !in_word(*c)).map_or(rest.len(), |(at, _)| at),
            false => first.len_utf8(),
        };
        let (token, tail) = rest.split_at_checked(end).unwrap_or((rest, ""));
        out.push(token);
        rest = tail;
    }
    out
}

/// The first `chars` chars of `text`, which moves past them.
fn take_chars<'a>(text: &mut &'a str, chars: usize) -> &'a str {
    let end = text.char_indices().nth(chars).map_or(text.len(), |(at, _)| at);
    let (head, tail) = text.split_at_checked(end).unwrap_or((text, ""));
    *text = tail;
    head
}

/// The full diff of one block.
pub fn block_diff(block_id: &str, before: &str, after: &str) -> BlockDiff {
    BlockDiff {
        block_id: block_id.to_string(),
        unified: unified_diff(block_id, before, after),
        inline: inline_diff(before, after),
    }
}

/// A unified line diff with `a/{blockId}` and `b/{blockId}` headers and three lines of context; empty when
/// the lines are equal. A last line without a newline gets one (no "\\ No newline at end of file" hint).
fn unified_diff<'a>(block_id: &str, before: &'a str, after: &'a str) -> String {
    let old = lines(before);
    let new = lines(after);
    let mut interned: hashbrown::HashMap<&str, u32> = hashbrown::HashMap::new();
    let mut ids = |lines: &[&'a str]| -> Vec<u32> {
        lines
            .iter()
            .map(|&line| {
                let next = u32::try_from(interned.len()).unwrap_or(u32::MAX);
                *interned.entry(line).or_insert(next)
            })
            .collect()
    };
    let (old_ids, new_ids) = (ids(&old), ids(&new));
    let mut out = String::new();
    for hunk in similar::group_diff_ops(diff_ops(&old_ids, &new_ids), CONTEXT_RADIUS) {
        if hunk.is_empty() {
            continue;
        }
        if out.is_empty() {
            let _ = write!(out, "--- a/{block_id}\n+++ b/{block_id}\n");
        }
        let _ = writeln!(out, "{}", UnifiedHunkHeader::new(&hunk));
        for op in &hunk {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            let (deleted, inserted) = (old.get(old_range).unwrap_or_default(), new.get(new_range).unwrap_or_default());
            match tag {
                DiffTag::Equal => push_lines(&mut out, ' ', deleted),
                DiffTag::Delete => push_lines(&mut out, '-', deleted),
                DiffTag::Insert => push_lines(&mut out, '+', inserted),
                DiffTag::Replace => {
                    push_lines(&mut out, '-', deleted);
                    push_lines(&mut out, '+', inserted);
                }
            }
        }
    }
    out
}

fn push_lines(out: &mut String, sign: char, lines: &[&str]) {
    for line in lines {
        out.push(sign);
        out.push_str(line);
        if !line.ends_with(['\n', '\r']) {
            out.push('\n');
        }
    }
}

/// Splits text into lines that keep their terminator: `\n`, `\r\n` or a lone `\r`, as `TextDiff` does.
fn lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(found) = memchr::memchr2(b'\n', b'\r', bytes.get(start..).unwrap_or_default()) {
        let at = start + found;
        let crlf = bytes.get(at) == Some(&b'\r') && bytes.get(at + 1) == Some(&b'\n');
        let end = if crlf { at + 2 } else { at + 1 };
        out.extend(text.get(start..end));
        start = end;
    }
    out.extend(text.get(start..).filter(|rest| !rest.is_empty()));
    out
}

/// Myers with compaction and replace detection: the ops `TextDiff` would give for the same tokens. Tokens
/// are ids (a char's scalar value, a line's first occurrence), so one copy of similar's generic code serves
/// both diffs; equal ids for equal tokens is all the algorithms look at.
///
/// The new side's ids are their own type, [`NewId`]: similar's Myers runs a preflight first, a fast path
/// for long and nearly disjoint inputs (both sides at least 512 tokens) that hashes both sides into a map,
/// re-indexes them and diffs the reduced sequences. It scans only when both sides index the same type (a
/// comparison of two constant type names, which the optimizer folds), so with two types it never does,
/// and the browser package carries none of the scan's code: about 4.6 KB of the gzipped editor module
/// (issue 29). Every input is still diffed by similar's Myers with its heuristics, which bound the cost of
/// a long diff; the ops differ from `TextDiff`'s only for inputs the preflight would have reduced (none of
/// benches/wasm.mjs's, whose outputs are checked against the previous build's).
fn diff_ops(old: &[u32], new: &[u32]) -> Vec<DiffOp> {
    let new: Vec<NewId> = new.iter().copied().map(NewId).collect();
    let (old, new) = (Tokens(old), NewTokens(&new));
    let mut hook = Compact::new(Replace::new(Capture::new()), &old, &new);
    // Myers calls `finish` itself. Capture never fails (its error type is `Infallible`), and neither do the
    // hooks around it.
    let _ = myers::diff(&mut hook, &old, 0..old.0.len(), &new, 0..new.0.len());
    hook.into_inner().into_inner().into_ops()
}

/// Token ids as similar's algorithms index them.
///
/// Myers indexes its inputs in its innermost loop. Through `[u32]` every index is a call to the slice's
/// bounds-checked `index`, which the package's size-optimized build does not inline (about a third of a
/// character diff's time); forced inline here, it costs no code. The algorithms only index inside the
/// ranges they are given, so the fallback for an index out of range is never read.
struct Tokens<'a>(&'a [u32]);

impl core::ops::Index<usize> for Tokens<'_> {
    type Output = u32;

    #[inline(always)]
    fn index(&self, index: usize) -> &u32 {
        self.0.get(index).unwrap_or(&u32::MAX)
    }
}

/// A token id of the new side: a `u32` of a type of its own (see [`diff_ops`]).
#[derive(PartialEq, Eq, Hash)]
struct NewId(u32);

impl PartialEq<u32> for NewId {
    #[inline(always)]
    fn eq(&self, old: &u32) -> bool {
        self.0 == *old
    }
}

/// The new side's ids, indexed as [`Tokens`] indexes the old side's.
struct NewTokens<'a>(&'a [NewId]);

impl core::ops::Index<usize> for NewTokens<'_> {
    type Output = NewId;

    #[inline(always)]
    fn index(&self, index: usize) -> &NewId {
        self.0.get(index).unwrap_or(&NewId(u32::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_gets_a_character_diff() {
        let spans = inline_diff("第一版计划", "第二版计划");
        let tags: Vec<(SpanTag, &str)> = spans.iter().map(|s| (s.tag, s.text.as_str())).collect();
        assert_eq!(
            tags,
            [(SpanTag::Equal, "第"), (SpanTag::Delete, "一"), (SpanTag::Insert, "二"), (SpanTag::Equal, "版计划")]
        );
        let d = block_diff("p_1", "第一版计划", "第二版计划");
        assert!(d.unified.contains("-第一版计划") && d.unified.contains("+第二版计划"), "{}", d.unified);
    }

    #[test]
    fn a_word_diff_is_by_word_in_english_and_by_character_in_chinese() {
        let tagged =
            |spans: Vec<InlineSpan>| -> Vec<(SpanTag, String)> { spans.into_iter().map(|s| (s.tag, s.text)).collect() };
        assert_eq!(
            tagged(word_diff("Ship the draft today", "Ship the final plan today")),
            [
                (SpanTag::Equal, "Ship the ".into()),
                (SpanTag::Delete, "draft".into()),
                (SpanTag::Insert, "final plan".into()),
                (SpanTag::Equal, " today".into()),
            ]
        );
        assert_eq!(
            tagged(word_diff("第一版计划", "第二版计划")),
            [
                (SpanTag::Equal, "第".into()),
                (SpanTag::Delete, "一".into()),
                (SpanTag::Insert, "二".into()),
                (SpanTag::Equal, "版计划".into()),
            ]
        );
        // Both sides rebuild from the runs.
        let spans = word_diff("mixed 中文 text", "mixed 英文 words");
        let side = |skip: SpanTag| spans.iter().filter(|s| s.tag != skip).map(|s| s.text.as_str()).collect::<String>();
        assert_eq!(
            (side(SpanTag::Insert), side(SpanTag::Delete)),
            ("mixed 中文 text".into(), "mixed 英文 words".into())
        );
        assert!(word_diff("", "").is_empty());
    }

    /// Texts built from a few lines of a small alphabet, so that lines and chars repeat and every line
    /// terminator (`\n`, `\r\n`, a lone `\r`, none at the end) shows up.
    fn text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let line = prop::collection::vec(prop::sample::select(vec!['a', 'b', 'c', ' ', '第', '二', '版', 'é']), 0..6)
            .prop_map(|chars| chars.into_iter().collect::<String>());
        let end = prop::sample::select(vec!["\n", "\n", "\r\n", "\r", ""]);
        prop::collection::vec((line, end), 0..150)
            .prop_map(|lines| lines.into_iter().map(|(line, end)| line + end).collect())
    }

    proptest::proptest! {
        /// The direct Myers path gives exactly what `similar::TextDiff` gives (see the module docs for why it
        /// is not used directly).
        #[test]
        fn same_output_as_text_diff(before in text(), after in text()) {
            use similar::{Algorithm, ChangeTag, TextDiff};
            let oracle_inline: Vec<(SpanTag, String)> = similar::utils::diff_chars(Algorithm::Myers, &before, &after)
                .into_iter()
                .map(|(tag, text)| {
                    let tag = match tag {
                        ChangeTag::Equal => SpanTag::Equal,
                        ChangeTag::Insert => SpanTag::Insert,
                        ChangeTag::Delete => SpanTag::Delete,
                    };
                    (tag, text.to_string())
                })
                .collect();
            let inline: Vec<(SpanTag, String)> =
                inline_diff(&before, &after).into_iter().map(|span| (span.tag, span.text)).collect();
            proptest::prop_assert_eq!(&inline, &oracle_inline);
            let runs: Vec<(SpanTag, usize)> = inline.iter().map(|(tag, text)| (*tag, text.chars().count())).collect();
            proptest::prop_assert_eq!(inline_runs(&before, &after), runs);

            let oracle_unified = TextDiff::from_lines(&before, &after)
                .unified_diff()
                .context_radius(CONTEXT_RADIUS)
                .missing_newline_hint(false)
                .header("a/p_1", "b/p_1")
                .to_string();
            proptest::prop_assert_eq!(block_diff("p_1", &before, &after).unified, oracle_unified);
        }
    }
}
