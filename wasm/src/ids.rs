//! Ids and keys this package mints for its callers: block ids (`b_` followed by 10 lowercase base32
//! characters, SPEC §2), context ids, tool call ids and idempotency keys.
//!
//! Core takes ids from its caller; in the browser and in Node the caller is this package, and the entropy
//! comes from the JS crypto API through `getrandom`.

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// A fresh block id, e.g. `b_k3xq9mz2ap`.
pub(crate) fn mint_block_id() -> String {
    mint::<10>("b_")
}

/// A fresh context id, e.g. `ctx_k3xq9mz2ap`: it names one frozen snapshot.
pub(crate) fn mint_context_id() -> String {
    mint::<10>("ctx_")
}

/// A fresh tool call id, e.g. `call_k3xq9mz2ap`.
pub(crate) fn mint_tool_call_id() -> String {
    mint::<10>("call_")
}

/// A fresh idempotency key, e.g. `idem_…` with 100 random bits: one per intended write.
pub(crate) fn mint_idempotency_key() -> String {
    mint::<20>("idem_")
}

fn mint<const N: usize>(prefix: &str) -> String {
    let mut bytes = [0u8; N];
    if getrandom::fill(&mut bytes).is_err() {
        // Ids need uniqueness, not secrecy; core retries block ids on a collision. A JS runtime without
        // `crypto.getRandomValues` still gets usable ids.
        for byte in &mut bytes {
            *byte = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    encode(prefix, &bytes)
}

fn encode(prefix: &str, bytes: &[u8]) -> String {
    let mut id = String::with_capacity(prefix.len() + bytes.len());
    id.push_str(prefix);
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
        assert_eq!(encode("b_", &[0, 1, 25, 26, 31, 32, 33, 255, 224, 7]), "b_abz27ab7ah");
    }

    #[test]
    fn keys_and_context_ids_have_their_prefix_and_length() {
        assert!(mint_context_id().starts_with("ctx_") && mint_context_id().len() == 14);
        assert!(mint_tool_call_id().starts_with("call_") && mint_tool_call_id().len() == 15);
        let key = mint_idempotency_key();
        assert!(key.starts_with("idem_") && key.len() == 25, "{key}");
        assert_ne!(key, mint_idempotency_key());
    }
}
