//! Ids and keys this package mints for its callers: block ids, context ids, tool call ids and idempotency
//! keys, spelled as core's [`pageai_core::ids`] says.
//!
//! Core takes ids from its caller; in the browser and in Node the caller is this package, and the entropy
//! comes from the JS crypto API through `getrandom`.

use pageai_core::ids::{self, BLOCK_ID_CHARS, ID_CHARS, KEY_CHARS};

/// A fresh block id, e.g. `b_k3xq9mz2ap`.
pub(crate) fn mint_block_id() -> String {
    ids::block_id(&random::<BLOCK_ID_CHARS>())
}

/// A fresh context id, `ctx_` and 16 characters: it names one frozen snapshot.
pub(crate) fn mint_context_id() -> String {
    ids::mint("ctx_", &random::<ID_CHARS>())
}

/// A fresh tool call id, `call_` and 16 characters.
pub(crate) fn mint_tool_call_id() -> String {
    ids::mint("call_", &random::<ID_CHARS>())
}

/// A fresh idempotency key, `idem_` and 20 characters: one per intended write.
pub(crate) fn mint_idempotency_key() -> String {
    ids::mint("idem_", &random::<KEY_CHARS>())
}

fn random<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    if getrandom::fill(&mut bytes).is_err() {
        // Ids need uniqueness, not secrecy; core retries block ids on a collision. A JS runtime without
        // `crypto.getRandomValues` still gets usable ids.
        for byte in &mut bytes {
            *byte = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    bytes
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
            assert!(id[2..].bytes().all(|b| ids::ALPHABET.contains(&b)), "{id}");
            assert!(pageai_core::page::validate_block_id(&id).is_ok());
        }
    }

    #[test]
    fn keys_and_context_ids_have_their_prefix_and_length() {
        assert!(mint_context_id().starts_with("ctx_") && mint_context_id().len() == 20);
        assert!(mint_tool_call_id().starts_with("call_") && mint_tool_call_id().len() == 21);
        let key = mint_idempotency_key();
        assert!(key.starts_with("idem_") && key.len() == 25, "{key}");
        assert_ne!(key, mint_idempotency_key());
    }
}
