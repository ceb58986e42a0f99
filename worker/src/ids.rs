//! Fresh ids: block ids for imported Markdown, trace ids for requests, and the other ids the Worker
//! mints (contexts, sessions).
//!
//! Core has no randomness of its own (it must stay deterministic), so the Worker mints every id from
//! `getrandom`, which on workerd reads `crypto.getRandomValues`.

use pageai_core::Error;

/// RFC 4648 base32, lowercase, as SPEC §2 asks for block ids.
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Length of the random part of a block id (`b_` + 10 chars, SPEC §2).
const BLOCK_ID_CHARS: usize = 10;

/// Length of the random part of a minted trace id.
const TRACE_ID_CHARS: usize = 16;

/// The longest client-supplied trace id we echo back.
const MAX_TRACE_ID_LEN: usize = 128;

/// `n` random base32 characters, or `None` when the platform RNG fails.
fn random_base32(n: usize) -> Option<String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).ok()?;
    // 256 is a multiple of 32, so masking keeps every character equally likely.
    Some(bytes.iter().filter_map(|b| ALPHABET.get(usize::from(b & 31))).map(|&c| char::from(c)).collect())
}

/// Mints block ids for one import.
///
/// Core's `markdown::import` wants an infallible `FnMut() -> String`, so a failing RNG cannot be reported
/// from inside the call. The minter remembers the failure instead, and [`BlockIdMinter::finish`] turns it
/// into an error, so weak ids are never stored.
#[derive(Debug, Default)]
pub struct BlockIdMinter {
    failed: bool,
    fallback: u64,
}

impl BlockIdMinter {
    /// A minter that has not failed yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh `b_xxxxxxxxxx` id.
    pub fn mint(&mut self) -> String {
        match random_base32(BLOCK_ID_CHARS) {
            Some(random) => format!("b_{random}"),
            None => {
                // Still unique within this import, so core's duplicate check stays quiet; `finish` rejects it.
                self.failed = true;
                self.fallback += 1;
                format!("b_fallback{}", self.fallback)
            }
        }
    }

    /// `Err` when any id came from the fallback instead of the RNG.
    pub fn finish(self) -> Result<(), Error> {
        if self.failed {
            worker::console_error!("getrandom failed while minting block ids");
            return Err(Error::StorageFailed);
        }
        Ok(())
    }
}

/// A fresh id: `prefix` followed by `n` random base32 characters (context ids, session-id suffixes,
/// session nonces). A failing RNG is an internal error, never a weak id.
pub fn mint(prefix: &str, n: usize) -> Result<String, Error> {
    match random_base32(n) {
        Some(random) => Ok(format!("{prefix}{random}")),
        None => {
            worker::console_error!("getrandom failed while minting a {prefix}… id");
            Err(Error::StorageFailed)
        }
    }
}

/// The caller's `x-trace-id` when it is a sane token, else a fresh `tr_…` id.
///
/// The id is echoed in a response header and in logs, so anything that could smuggle header syntax or
/// flood a log line is replaced rather than trusted.
pub fn trace_id(from_header: Option<&str>) -> String {
    if let Some(given) = from_header.map(str::trim)
        && is_sane_trace_id(given)
    {
        return given.to_string();
    }
    match random_base32(TRACE_ID_CHARS) {
        Some(random) => format!("tr_{random}"),
        None => "tr_unavailable".to_string(),
    }
}

fn is_sane_trace_id(id: &str) -> bool {
    (1..=MAX_TRACE_ID_LEN).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_ids_follow_the_spec_format() {
        let mut minter = BlockIdMinter::new();
        let id = minter.mint();
        assert_eq!(id.len(), 12, "{id}");
        assert!(id.starts_with("b_"));
        assert!(id.bytes().skip(2).all(|b| ALPHABET.contains(&b)), "{id}");
        assert!(pageai_core::page::validate_block_id(&id).is_ok());
        assert_ne!(minter.mint(), id);
        assert!(minter.finish().is_ok());
    }

    #[test]
    fn trace_ids_are_kept_only_when_sane() {
        assert_eq!(trace_id(Some("req-42.a:b_c")), "req-42.a:b_c");
        for hostile in ["", "a b", "x\r\nset-cookie: y", &"a".repeat(129)] {
            let minted = trace_id(Some(hostile));
            assert!(minted.starts_with("tr_") && minted.len() == 19, "{hostile:?} -> {minted}");
        }
        assert!(trace_id(None).starts_with("tr_"));
    }

    #[test]
    fn minted_ids_have_the_prefix_and_length() {
        let id = mint("ctx_", 16).unwrap_or_default();
        assert_eq!(id.len(), 20, "{id}");
        assert!(id.starts_with("ctx_") && id.bytes().skip(4).all(|b| ALPHABET.contains(&b)));
        assert_ne!(mint("ctx_", 16).unwrap_or_default(), id);
    }
}
