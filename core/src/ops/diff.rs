//! Per-block diffs of a write, from the `similar` crate.
//!
//! Each changed block gets a unified line diff (what a reviewer reads in a terminal or a log) and an inline
//! character-level diff (what the UI paints). Characters, not words: CJK text has no spaces, so a word diff
//! would mark a whole sentence as changed for a one-character edit.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::{Algorithm, ChangeTag, TextDiff};

/// One run of an inline diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InlineSpan {
    /// `equal`, `insert` or `delete`.
    pub tag: SpanTag,
    /// The characters of this run.
    pub text: String,
}

/// What happened to a run of characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockDiff {
    /// The block.
    pub block_id: String,
    /// A unified diff of the block's text, with `a/{blockId}` and `b/{blockId}` headers.
    pub unified: String,
    /// The character-level diff, as runs.
    pub inline: Vec<InlineSpan>,
}

/// The character-level diff of `before` → `after`, as merged runs.
pub fn inline_diff(before: &str, after: &str) -> Vec<InlineSpan> {
    similar::utils::diff_chars(Algorithm::Myers, before, after)
        .into_iter()
        .map(|(tag, text)| InlineSpan {
            tag: match tag {
                ChangeTag::Equal => SpanTag::Equal,
                ChangeTag::Insert => SpanTag::Insert,
                ChangeTag::Delete => SpanTag::Delete,
            },
            text: text.to_string(),
        })
        .collect()
}

/// The full diff of one block.
pub fn block_diff(block_id: &str, before: &str, after: &str) -> BlockDiff {
    let lines = TextDiff::from_lines(before, after);
    let unified = lines
        .unified_diff()
        .context_radius(3)
        .missing_newline_hint(false)
        .header(&alloc::format!("a/{block_id}"), &alloc::format!("b/{block_id}"))
        .to_string();
    BlockDiff { block_id: block_id.to_string(), unified, inline: inline_diff(before, after) }
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
}
