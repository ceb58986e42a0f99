//! Ids and keys this package mints for its callers: block ids, context ids, tool call ids and idempotency
//! keys, spelled as core's [`pageai_core::ids`] says.
//!
//! Core takes ids from its caller; in the browser and in Node the caller is this package, and the entropy
//! comes from the JS crypto API through `getrandom`.

use alloc::string::String;
use pageai_core::ids::{self, Kind};

/// A fresh block id, `b_` and 10 characters, e.g. `b_k3xq9mz2ap` (SPEC §2).
pub(crate) fn mint_block_id() -> String {
    fresh(Kind::Block)
}

/// A fresh context id, `ctx_` and 16 characters: it names one frozen snapshot.
pub(crate) fn mint_context_id() -> String {
    fresh(Kind::Context)
}

/// A fresh tool call id, `call_` and 16 characters.
pub(crate) fn mint_tool_call_id() -> String {
    fresh(Kind::ToolCall)
}

/// A fresh idempotency key, `idem_` and 20 characters: one per intended write.
pub(crate) fn mint_idempotency_key() -> String {
    fresh(Kind::IdempotencyKey)
}

/// A fresh id of `kind`, spelled by core from random bytes.
fn fresh(kind: Kind) -> String {
    let mut bytes = [0u8; ids::MAX_CHARS];
    let bytes = bytes.get_mut(..kind.chars()).unwrap_or_default();
    if getrandom::fill(bytes).is_err() {
        // Ids need uniqueness, not secrecy; core retries block ids on a collision. A JS runtime without
        // `crypto.getRandomValues` still gets usable ids.
        for byte in bytes.iter_mut() {
            *byte = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    ids::id(kind, bytes)
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
