//! Block ids for Markdown imports: `b_` followed by 10 lowercase base32 characters (SPEC §2).
//!
//! Core takes ids from its caller; in the browser and in Node the caller is this package, and the entropy
//! comes from the JS crypto API through `getrandom`.

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// A fresh block id, e.g. `b_k3xq9mz2ap`.
pub(crate) fn mint_block_id() -> String {
    let mut bytes = [0u8; 10];
    if getrandom::fill(&mut bytes).is_err() {
        // Ids need uniqueness, not secrecy; core retries on a collision. A JS runtime without
        // `crypto.getRandomValues` still gets usable ids.
        for byte in &mut bytes {
            *byte = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    encode(bytes)
}

fn encode(bytes: [u8; 10]) -> String {
    let mut id = String::with_capacity(12);
    id.push_str("b_");
    // 256 is a multiple of 32, so the low five bits of a uniform byte are uniform.
    id.extend(bytes.iter().map(|b| char::from(ALPHABET.get(usize::from(b & 31)).copied().unwrap_or(b'a'))));
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_b_and_ten_base32_chars() {
        for _ in 0..100 {
            let id = mint_block_id();
            assert_eq!(id.len(), 12);
            assert!(id.starts_with("b_"));
            assert!(id[2..].bytes().all(|b| ALPHABET.contains(&b)), "{id}");
            assert!(pageai_core::page::validate_block_id(&id).is_ok());
        }
    }

    #[test]
    fn encoding_uses_the_low_five_bits() {
        assert_eq!(encode([0, 1, 25, 26, 31, 32, 33, 255, 224, 7]), "b_abz27ab7ah");
    }
}
