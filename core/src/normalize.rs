//! Text folding for matching that people expect to be forgiving: case-insensitive, and blind to the
//! difference between full-width and half-width forms (`ＡＢＣ１２３` matches `abc123`, `ｶﾀｶﾅ` matches
//! `カタカナ`). CJK text passes through unchanged because it has no case.
//!
//! Folding works char by char (compatibility decomposition of one char, then lowercase), and a char whose
//! fold would be several chars stays as it is. So folded text has exactly as many chars as the original,
//! and an offset found in the folded text is the offset in the original.

use alloc::string::String;
use alloc::vec::Vec;
use unicode_normalization::UnicodeNormalization;

/// Folds one char; see the module docs.
pub fn fold_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let mut nfkc = core::iter::once(c).nfkc();
    let wide = match (nfkc.next(), nfkc.next()) {
        (Some(single), None) => single,
        _ => c,
    };
    let mut lower = wide.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(single), None) => single,
        _ => wide,
    }
}

/// Folds `text` for comparison, char by char.
pub fn fold(text: &str) -> String {
    text.chars().map(fold_char).collect()
}

/// True when `haystack` contains `needle` after folding both.
pub fn contains_folded(haystack: &str, folded_needle: &str) -> bool {
    if folded_needle.is_empty() {
        return false;
    }
    fold(haystack).contains(folded_needle)
}

/// Char offsets of every non-overlapping occurrence of `folded_needle` in `haystack`, folded.
pub fn find_folded(haystack: &str, folded_needle: &str) -> Vec<usize> {
    if folded_needle.is_empty() {
        return Vec::new();
    }
    let folded = fold(haystack);
    let mut offsets = Vec::new();
    let mut chars_before = 0;
    let mut last = 0;
    for (byte, _) in folded.match_indices(folded_needle) {
        chars_before += folded.get(last..byte).map_or(0, |s| s.chars().count());
        last = byte;
        offsets.push(chars_before);
    }
    offsets
}

/// Levenshtein distance over chars; used for "did you mean" hints on short strings.
pub fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = i;
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(usize::MAX - 1);
            let left = row.get(j).copied().unwrap_or(usize::MAX - 1);
            let value = (diagonal + usize::from(ca != cb)).min(above + 1).min(left + 1);
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_and_case_fold_together() {
        assert_eq!(fold("ＡＢＣ１２３"), "abc123");
        assert_eq!(fold("ｶﾀｶﾅ"), "カタカナ");
        assert_eq!(fold("Rust 语言"), "rust 语言");
        assert!(contains_folded("我们用 ＲＵＳＴ 写内核", &fold("rust")));
        assert!(!contains_folded("anything", ""));
    }

    #[test]
    fn folding_keeps_char_offsets() {
        let text = "ﬁ第二段 ＲＵＳＴ and rust";
        assert_eq!(fold(text).chars().count(), text.chars().count());
        assert_eq!(find_folded(text, "rust"), [5, 14]);
    }

    #[test]
    fn edit_distance_counts_chars() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(edit_distance(&chars("第二断"), &chars("第二段")), 1);
        assert_eq!(edit_distance(&chars("p_1"), &chars("p_12")), 1);
    }
}
