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
//!
//! Lowercase is Unicode's simple (one-char) mapping, read from [`LOWERCASE`], a run-length form of the
//! mapping core's `char::to_lowercase` carries (1.5 KB instead of its 11.7 KB table, ~5 KB of the browser
//! package gzipped; issue 29). A test holds the two equal for every char.

use alloc::string::String;
use alloc::vec::Vec;

/// Folds one char; see the module docs.
pub fn fold_char(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    lower(width_fold(c).unwrap_or(c))
}

/// A char's simple lowercase: the one char `char::to_lowercase` gives, or `c` itself when that is several
/// chars (`İ`) or none differs.
pub fn lower(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let code = u32::from(c);
    // The last run that starts at or before `code`.
    let at = LOWERCASE.partition_point(|&(run, _)| run & START <= code);
    let Some(&(run, delta)) = at.checked_sub(1).and_then(|at| LOWERCASE.get(at)) else { return c };
    let (offset, stride) = (code - (run & START), if run & EVERY_OTHER != 0 { 2 } else { 1 });
    match offset % stride == 0 && offset / stride < run >> 22 {
        true => char::from_u32(code.wrapping_add_signed(delta)).unwrap_or(c),
        false => c,
    }
}

/// A run's first char, in the low 21 bits.
const START: u32 = 0x1F_FFFF;
/// Bit 21: the run's chars are every other one (`Āā Ăă …`), else consecutive.
const EVERY_OTHER: u32 = 1 << 21;

/// Every non-ASCII char whose simple lowercase is another single char, as runs sorted by their first char:
/// `(first | every other << 21 | count << 22, lowercase - char)`, each run's chars mapped by the same
/// difference. Generated from `char::to_lowercase` (the test `lowercase_is_core_s` prints it again when a
/// Rust release brings a new Unicode version).
#[rustfmt::skip]
const LOWERCASE: [(u32, i32); 184] = [
    (0x05C000C0, 32), (0x01C000D8, 32), (0x06200100, 1), (0x00E00132, 1), (0x02200139, 1), (0x05E0014A, 1),
    (0x00400178, -121), (0x00E00179, 1), (0x00400181, 210), (0x00A00182, 1), (0x00400186, 206), (0x00400187, 1),
    (0x00800189, 205), (0x0040018B, 1), (0x0040018E, 79), (0x0040018F, 202), (0x00400190, 203), (0x00400191, 1),
    (0x00400193, 205), (0x00400194, 207), (0x00400196, 211), (0x00400197, 209), (0x00400198, 1), (0x0040019C, 211),
    (0x0040019D, 213), (0x0040019F, 214), (0x00E001A0, 1), (0x004001A6, 218), (0x004001A7, 1), (0x004001A9, 218),
    (0x004001AC, 1), (0x004001AE, 218), (0x004001AF, 1), (0x008001B1, 217), (0x00A001B3, 1), (0x004001B7, 219),
    (0x004001B8, 1), (0x004001BC, 1), (0x004001C4, 2), (0x004001C5, 1), (0x004001C7, 2), (0x004001C8, 1),
    (0x004001CA, 2), (0x026001CB, 1), (0x026001DE, 1), (0x004001F1, 2), (0x00A001F2, 1), (0x004001F6, -97),
    (0x004001F7, -56), (0x052001F8, 1), (0x00400220, -130), (0x02600222, 1), (0x0040023A, 10795), (0x0040023B, 1),
    (0x0040023D, -163), (0x0040023E, 10792), (0x00400241, 1), (0x00400243, -195), (0x00400244, 69), (0x00400245, 71),
    (0x01600246, 1), (0x00A00370, 1), (0x00400376, 1), (0x0040037F, 116), (0x00400386, 38), (0x00C00388, 37),
    (0x0040038C, 64), (0x0080038E, 63), (0x04400391, 32), (0x024003A3, 32), (0x004003CF, 8), (0x032003D8, 1),
    (0x004003F4, -60), (0x004003F7, 1), (0x004003F9, -7), (0x004003FA, 1), (0x00C003FD, -130), (0x04000400, 80),
    (0x08000410, 32), (0x04600460, 1), (0x06E0048A, 1), (0x004004C0, 15), (0x01E004C1, 1), (0x0C2004D0, 1),
    (0x09800531, 48), (0x098010A0, 7264), (0x004010C7, 7264), (0x004010CD, 7264), (0x140013A0, 38864), (0x018013F0, 8),
    (0x00401C89, 1), (0x0AC01C90, -3008), (0x00C01CBD, -3008), (0x12E01E00, 1), (0x00401E9E, -7615), (0x0C201EA0, 1),
    (0x02001F08, -8), (0x01801F18, -8), (0x02001F28, -8), (0x02001F38, -8), (0x01801F48, -8), (0x01201F59, -8),
    (0x02001F68, -8), (0x02001F88, -8), (0x02001F98, -8), (0x02001FA8, -8), (0x00801FB8, -8), (0x00801FBA, -74),
    (0x00401FBC, -9), (0x01001FC8, -86), (0x00401FCC, -9), (0x00801FD8, -8), (0x00801FDA, -100), (0x00801FE8, -8),
    (0x00801FEA, -112), (0x00401FEC, -7), (0x00801FF8, -128), (0x00801FFA, -126), (0x00401FFC, -9), (0x00402126, -7517),
    (0x0040212A, -8383), (0x0040212B, -8262), (0x00402132, 28), (0x04002160, 16), (0x00402183, 1), (0x068024B6, 26),
    (0x0C002C00, 48), (0x00402C60, 1), (0x00402C62, -10743), (0x00402C63, -3814), (0x00402C64, -10727), (0x00E02C67, 1),
    (0x00402C6D, -10780), (0x00402C6E, -10749), (0x00402C6F, -10783), (0x00402C70, -10782), (0x00402C72, 1), (0x00402C75, 1),
    (0x00802C7E, -10815), (0x0CA02C80, 1), (0x00A02CEB, 1), (0x00402CF2, 1), (0x05E0A640, 1), (0x03A0A680, 1),
    (0x01E0A722, 1), (0x07E0A732, 1), (0x00A0A779, 1), (0x0040A77D, -35332), (0x0160A77E, 1), (0x0040A78B, 1),
    (0x0040A78D, -42280), (0x00A0A790, 1), (0x02A0A796, 1), (0x0040A7AA, -42308), (0x0040A7AB, -42319), (0x0040A7AC, -42315),
    (0x0040A7AD, -42305), (0x0040A7AE, -42308), (0x0040A7B0, -42258), (0x0040A7B1, -42282), (0x0040A7B2, -42261), (0x0040A7B3, 928),
    (0x0220A7B4, 1), (0x0040A7C4, -48), (0x0040A7C5, -42307), (0x0040A7C6, -35384), (0x00A0A7C7, 1), (0x0040A7CB, -42343),
    (0x0220A7CC, 1), (0x0040A7DC, -42561), (0x0040A7F5, 1), (0x0680FF21, 32), (0x0A010400, 40), (0x090104B0, 40),
    (0x02C10570, 39), (0x03C1057C, 39), (0x01C1058C, 39), (0x00810594, 39), (0x0CC10C80, 64), (0x05810D50, 32),
    (0x080118A0, 32), (0x08016E40, 32), (0x06416EA0, 27), (0x0881E900, 34),
];

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

    /// [`LOWERCASE`] as `char::to_lowercase` gives it: the runs, in the table's own form.
    fn core_lowercase() -> Vec<(u32, i32)> {
        let mut runs: Vec<(u32, u32, u32, i32)> = Vec::new(); // first, count, stride, difference
        for c in (0x80..=0x10_FFFF).filter_map(char::from_u32) {
            let mut l = c.to_lowercase();
            let (Some(single), None) = (l.next(), l.next()) else { continue };
            let (code, delta) = (u32::from(c), u32::from(single) as i32 - u32::from(c) as i32);
            if delta == 0 {
                continue;
            }
            if let Some(run) = runs.last_mut() {
                let gap = code - run.0;
                let extends = match run.1 {
                    1 => gap == 1 || gap == 2,
                    n => code == run.0 + n * run.2,
                };
                if run.3 == delta && extends {
                    run.2 = if run.1 == 1 { gap } else { run.2 };
                    run.1 += 1;
                    continue;
                }
            }
            runs.push((code, 1, 1, delta));
        }
        runs.into_iter()
            .map(|(first, count, stride, delta)| (first | u32::from(stride == 2) << 21 | count << 22, delta))
            .collect()
    }

    #[test]
    fn lowercase_is_core_s() {
        let runs = core_lowercase();
        let printed: Vec<String> = runs.iter().map(|(run, delta)| format!("(0x{run:08X}, {delta}),")).collect();
        assert_eq!(LOWERCASE.as_slice(), runs.as_slice(), "the table from this Rust's Unicode:\n{}", printed.join(" "));
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let mut l = c.to_lowercase();
            let expected = match (l.next(), l.next()) {
                (Some(single), None) => single,
                _ => c,
            };
            assert_eq!(lower(c), expected, "U+{:04X}", u32::from(c));
        }
        assert_eq!(lower('Ā'), 'ā');
        assert_eq!(lower('ā'), 'ā');
        assert_eq!(lower('İ'), 'İ');
        assert_eq!(lower('Ω'), 'ω');
        assert_eq!(lower('语'), '语');
    }

    #[test]
    fn edit_distance_counts_chars() {
        let chars = |s: &str| s.chars().collect::<Vec<_>>();
        assert_eq!(edit_distance(&chars("第二断"), &chars("第二段")), 1);
        assert_eq!(edit_distance(&chars("p_1"), &chars("p_12")), 1);
    }
}
