//! How ids and keys are spelled: one alphabet, one encoding, and the length of each kind, all here.
//!
//! Core has no randomness of its own (it must stay deterministic), so the caller passes the random bytes:
//! the Worker and the WASM package read them from `getrandom`. Each byte becomes one character of
//! RFC 4648 base32, lowercase, as SPEC §2 asks for block ids (`b_` followed by 10 characters).
//!
//! | what | form | random characters |
//! |---|---|---|
//! | block id | `b_…` | [`BLOCK_ID_CHARS`] (10, SPEC §2) |
//! | every other id: context, tool call, run, review and MCP session, trace | `{prefix}…` | [`ID_CHARS`] (16) |
//! | idempotency key | `idem_…` | [`KEY_CHARS`] (20) |
//!
//! ```
//! use pageai_core::ids;
//!
//! assert_eq!(ids::block_id(&[0, 1, 25, 26, 31, 32, 33, 255, 224, 7]), "b_abz27ab7ah");
//! assert_eq!(ids::mint("ctx_", &[1; ids::ID_CHARS]), "ctx_bbbbbbbbbbbbbbbb");
//! ```

use alloc::string::String;

/// RFC 4648 base32, lowercase.
pub const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Random characters of a block id (SPEC §2).
pub const BLOCK_ID_CHARS: usize = 10;

/// Random characters of every other id: 80 bits.
pub const ID_CHARS: usize = 16;

/// Random characters of an idempotency key: 100 bits, one key per intended write.
pub const KEY_CHARS: usize = 20;

/// What every block id starts with.
pub const BLOCK_ID_PREFIX: &str = "b_";

/// `prefix` followed by one base32 character per byte of `random`.
pub fn mint(prefix: &str, random: &[u8]) -> String {
    let mut id = String::with_capacity(prefix.len() + random.len());
    id.push_str(prefix);
    // 256 is a multiple of 32, so the low five bits of a uniform byte are uniform.
    id.extend(random.iter().filter_map(|b| ALPHABET.get(usize::from(b & 31))).map(|&c| char::from(c)));
    id
}

/// A block id, `b_` and [`BLOCK_ID_CHARS`] characters.
pub fn block_id(random: &[u8; BLOCK_ID_CHARS]) -> String {
    mint(BLOCK_ID_PREFIX, random)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_one_character_of_the_alphabet() {
        let id = mint("x_", &[0, 31, 32, 255]);
        assert_eq!(id, "x_a7a7");
        let all: alloc::vec::Vec<u8> = (0..=255).collect();
        assert!(mint("", &all).bytes().all(|b| ALPHABET.contains(&b)));
    }

    #[test]
    fn block_ids_are_valid_block_ids() {
        let id = block_id(&[255; BLOCK_ID_CHARS]);
        assert_eq!(id.len(), 2 + BLOCK_ID_CHARS);
        assert!(crate::page::validate_block_id(&id).is_ok());
    }
}
