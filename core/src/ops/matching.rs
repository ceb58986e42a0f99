//! Finding `matchText` in blocks, and the "did you mean" hint when it is not there.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::normalize;

/// One occurrence: the block's position in the working copy, its byte offset and its char offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub slot: usize,
    pub byte: usize,
    pub char_offset: usize,
}

/// Every non-overlapping occurrence of the finder's needle in `text`, in order.
pub(crate) fn hits_in(slot: usize, text: &str, finder: &memchr::memmem::Finder<'_>, out: &mut Vec<Hit>) {
    let mut chars_before = 0;
    let mut last_byte = 0;
    let width = finder.needle().len().max(1);
    let mut from = 0;
    while let Some(found) = text.as_bytes().get(from..).and_then(|rest| finder.find(rest)) {
        let byte = from + found;
        from = byte + width;
        chars_before += text.get(last_byte..byte).map_or(0, |s| s.chars().count());
        last_byte = byte;
        out.push(Hit { slot, byte, char_offset: chars_before });
    }
}

/// The closest text to `needle` among `texts` (block id, text), for a "did you mean" hint.
///
/// First a case- and width-insensitive match (the commonest slip: `ＲＵＳＴ` for `Rust`), then the window of
/// the same length with the smallest edit distance, if it is close enough to be a plausible typo. The
/// search is bounded so a miss on a huge page stays cheap.
pub(crate) fn did_you_mean<'a>(
    needle: &str,
    texts: impl Iterator<Item = (&'a str, &'a str)>,
) -> Option<(String, String)> {
    const MAX_WINDOW_CHARS: usize = 48;
    const MAX_SCANNED_CHARS: usize = 200_000;
    let folded = normalize::fold(needle);
    let needle_chars: Vec<char> = needle.chars().collect();
    let n = needle_chars.len();
    if n == 0 {
        return None;
    }
    let mut best: Option<(usize, String, String)> = None;
    let mut scanned = 0usize;
    for (block_id, text) in texts {
        if let Some(found) = folded_match(text, &folded, n) {
            return Some((block_id.to_string(), found));
        }
        if n > MAX_WINDOW_CHARS || scanned > MAX_SCANNED_CHARS {
            continue;
        }
        let chars: Vec<char> = text.chars().collect();
        scanned += chars.len();
        let limit = n / 3 + 1;
        for width in [n, n.saturating_sub(1).max(1), n + 1] {
            for window in chars.windows(width.min(chars.len()).max(1)) {
                let d = normalize::edit_distance(&needle_chars, window);
                if d <= limit && best.as_ref().is_none_or(|(bd, _, _)| d < *bd) {
                    best = Some((d, block_id.to_string(), window.iter().collect()));
                }
            }
        }
    }
    best.map(|(_, block, text)| (block, text))
}

/// The original text of the first case/width-insensitive occurrence of `folded` in `text`.
fn folded_match(text: &str, folded: &str, needle_chars: usize) -> Option<String> {
    if !normalize::fold(text).contains(folded) {
        return None;
    }
    // Folding can change lengths, so find the original span by trying windows near the needle's length.
    let chars: Vec<char> = text.chars().collect();
    for width in needle_chars.saturating_sub(2).max(1)..=needle_chars + 2 {
        for window in chars.windows(width.min(chars.len())) {
            let candidate: String = window.iter().collect();
            if normalize::fold(&candidate) == folded {
                return Some(candidate);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_prefer_a_case_or_width_slip_then_a_typo() {
        let texts = [("p_1", "我们用 ＲＵＳＴ 写内核"), ("p_2", "第二段的内容")];
        assert_eq!(did_you_mean("rust", texts.into_iter()), Some(("p_1".into(), "ＲＵＳＴ".into())));
        assert_eq!(did_you_mean("第二断", texts.into_iter()), Some(("p_2".into(), "第二段".into())));
        assert_eq!(did_you_mean("completely unrelated", texts.into_iter()), None);
    }

    #[test]
    fn hits_carry_char_offsets() {
        let mut out = Vec::new();
        hits_in(4, "甲A乙A", &memchr::memmem::Finder::new("A"), &mut out);
        assert_eq!(out.iter().map(|h| (h.slot, h.char_offset)).collect::<Vec<_>>(), [(4, 1), (4, 3)]);
    }
}
