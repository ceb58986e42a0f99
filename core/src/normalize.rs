//! Text folding for matching that people expect to be forgiving: case-insensitive, and blind to the
//! difference between full-width and half-width forms (`ＡＢＣ１２３` matches `abc123`, `ｶﾀｶﾅ` matches
//! `カタカナ`). CJK text passes through unchanged because it has no case.
//!
//! Folding works char by char: the width fold, then lowercase. A char whose lowercase would be several
//! chars stays as it is, so folded text has exactly as many chars as the original, and an offset found in
//! the folded text is the offset in the original.
//!
//! The width fold is Unicode's compatibility mapping (NFKC) restricted to the ideographic space and the
//! Halfwidth and Fullwidth Forms block (U+FF00–U+FFEF), wherever that mapping is one char. Other
//! compatibility mappings (`①` → `1`, mathematical letters, CJK compatibility ideographs) do not fold: a
//! user who types `1` is not looking for `①`, and the full NFKC tables would be most of a 100 KB in the
//! browser package. A test checks the table below against the `unicode-normalization` crate.

use alloc::string::String;
use alloc::vec::Vec;

/// Folds one char; see the module docs.
pub fn fold_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let wide = width_fold(c).unwrap_or(c);
    let mut lower = wide.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(single), None) => single,
        _ => wide,
    }
}

/// NFKC of U+FF61..=U+FFEF where it is one char, else 0: halfwidth katakana and punctuation, halfwidth
/// Hangul (to conjoining jamo, as NFKC does) and the fullwidth symbols `￠￡￢￤￥￦` and halfwidth arrows.
const HALFWIDTH_FORMS: [u16; 0xFFF0 - 0xFF61] = [
    0x3002, 0x300C, 0x300D, 0x3001, 0x30FB, 0x30F2, 0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30E3, 0x30E5, 0x30E7,
    0x30C3, 0x30FC, 0x30A2, 0x30A4, 0x30A6, 0x30A8, 0x30AA, 0x30AB, 0x30AD, 0x30AF, 0x30B1, 0x30B3, 0x30B5, 0x30B7,
    0x30B9, 0x30BB, 0x30BD, 0x30BF, 0x30C1, 0x30C4, 0x30C6, 0x30C8, 0x30CA, 0x30CB, 0x30CC, 0x30CD, 0x30CE, 0x30CF,
    0x30D2, 0x30D5, 0x30D8, 0x30DB, 0x30DE, 0x30DF, 0x30E0, 0x30E1, 0x30E2, 0x30E4, 0x30E6, 0x30E8, 0x30E9, 0x30EA,
    0x30EB, 0x30EC, 0x30ED, 0x30EF, 0x30F3, 0x3099, 0x309A, 0x1160, 0x1100, 0x1101, 0x11AA, 0x1102, 0x11AC, 0x11AD,
    0x1103, 0x1104, 0x1105, 0x11B0, 0x11B1, 0x11B2, 0x11B3, 0x11B4, 0x11B5, 0x111A, 0x1106, 0x1107, 0x1108, 0x1121,
    0x1109, 0x110A, 0x110B, 0x110C, 0x110D, 0x110E, 0x110F, 0x1110, 0x1111, 0x1112, 0x0000, 0x0000, 0x0000, 0x1161,
    0x1162, 0x1163, 0x1164, 0x1165, 0x1166, 0x0000, 0x0000, 0x1167, 0x1168, 0x1169, 0x116A, 0x116B, 0x116C, 0x0000,
    0x0000, 0x116D, 0x116E, 0x116F, 0x1170, 0x1171, 0x1172, 0x0000, 0x0000, 0x1173, 0x1174, 0x1175, 0x0000, 0x0000,
    0x0000, 0x00A2, 0x00A3, 0x00AC, 0x0000, 0x00A6, 0x00A5, 0x20A9, 0x0000, 0x2502, 0x2190, 0x2191, 0x2192, 0x2193,
    0x25A0, 0x25CB, 0x0000,
];

/// The one-char compatibility mapping of a width variant, if `c` is one; see the module docs.
fn width_fold(c: char) -> Option<char> {
    let code = u32::from(c);
    let mapped = match code {
        0x3000 => 0x20,
        0xFF01..=0xFF5E => code - 0xFEE0,
        0xFF5F => 0x2985,
        0xFF60 => 0x2986,
        0xFF61..=0xFFEF => HALFWIDTH_FORMS.get((code - 0xFF61) as usize).map_or(0, |&m| u32::from(m)),
        _ => 0,
    };
    if mapped == 0 { None } else { char::from_u32(mapped) }
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
    fn width_fold_is_nfkc_on_the_width_forms() {
        use unicode_normalization::UnicodeNormalization;
        let forms = core::iter::once(0x3000).chain(0xFF00..=0xFFEF).filter_map(char::from_u32);
        for c in forms {
            let mut nfkc = core::iter::once(c).nfkc();
            let expected = match (nfkc.next(), nfkc.next()) {
                (Some(single), None) if single != c => Some(single),
                _ => None,
            };
            assert_eq!(width_fold(c), expected, "U+{:04X}", u32::from(c));
        }
        assert_eq!(width_fold('①'), None);
        assert_eq!(width_fold('a'), None);
    }

    #[test]
    fn edit_distance_counts_chars() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(edit_distance(&chars("第二断"), &chars("第二段")), 1);
        assert_eq!(edit_distance(&chars("p_1"), &chars("p_12")), 1);
    }
}
