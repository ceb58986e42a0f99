//! Text folding for matching that people expect to be forgiving: case-insensitive, and blind to the
//! difference between full-width and half-width forms (`ＡＢＣ１２３` matches `abc123`, `ｶﾀｶﾅ` matches
//! `カタカナ`). Compatibility normalization (NFKC) does the width folding; CJK text passes through
//! unchanged because it has no case.

use alloc::string::String;
use unicode_normalization::UnicodeNormalization;

/// Folds `text` for comparison: NFKC, then lowercase.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    if text.is_ascii() {
        out.extend(text.chars().map(|c| c.to_ascii_lowercase()));
        return out;
    }
    for c in text.nfkc() {
        out.extend(c.to_lowercase());
    }
    out
}

/// True when `haystack` contains `needle` after folding both.
pub fn contains_folded(haystack: &str, folded_needle: &str) -> bool {
    if folded_needle.is_empty() {
        return false;
    }
    fold(haystack).contains(folded_needle)
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
}
