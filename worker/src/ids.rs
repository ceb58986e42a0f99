//! Fresh ids: block ids, trace ids, and the ids of contexts, review sessions, shortcut runs and tool calls.
//!
//! Core has no randomness of its own (it must stay deterministic) and spells every id ([`pageai_core::ids`]:
//! the alphabet, the encoding, the length of each kind); the Worker brings the random bytes, from
//! `getrandom`, which on workerd reads `crypto.getRandomValues`.
//!
//! A review session id names its document: `rs.{documentId}.{random}`. Document ids never contain a dot, so
//! [`session_document`] splits it back unambiguously, and the review routes need no `documentId` besides
//! the path.

use pageai_core::Error;
use pageai_core::ids::{self, BLOCK_ID_CHARS, ID_CHARS};
use pageai_core::page::validate_document_id;

use crate::services::stores::IdMinter;

/// The longest client-supplied trace id we echo back.
const MAX_TRACE_ID_LEN: usize = 128;

/// `n` random bytes, or `None` when the platform RNG fails.
fn random_bytes(n: usize) -> Option<Vec<u8>> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes)
}

/// `prefix` and `n` random characters, spelled by core; `None` when the platform RNG fails.
fn minted(prefix: &str, n: usize) -> Option<String> {
    random_bytes(n).map(|bytes| ids::mint(prefix, &bytes))
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
        match minted(ids::BLOCK_ID_PREFIX, BLOCK_ID_CHARS) {
            Some(id) => id,
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
    match minted(prefix, n) {
        Some(id) => Ok(id),
        None => {
            worker::console_error!("getrandom failed while minting a {prefix}… id");
            Err(Error::StorageFailed)
        }
    }
}

/// Random characters in a Hermes session id's suffix (`mnote_{documentId}_{suffix}`).
const HERMES_SESSION_SUFFIX_CHARS: usize = 12;

/// A fresh suffix for a Hermes session id; the id itself is built by
/// `services::hermes::wire::session_id_of`.
pub fn hermes_session_suffix() -> Result<String, Error> {
    mint("", HERMES_SESSION_SUFFIX_CHARS)
}

/// Prefix of review session ids.
const SESSION_PREFIX: &str = "rs.";

/// A fresh `{prefix}_{16 base32 chars}` id (`ctx`, `run`, `call`, …; core's [`ID_CHARS`]), or
/// `mnote_storage_failed` when the platform RNG fails: a guessable id is never handed out.
pub fn opaque(prefix: &str) -> Result<String, Error> {
    match minted(&format!("{prefix}_"), ID_CHARS) {
        Some(id) => Ok(id),
        None => {
            worker::console_error!("getrandom failed while minting a {prefix} id");
            Err(Error::StorageFailed)
        }
    }
}

/// A fresh review session id for `document_id`: `rs.{documentId}.{16 base32 chars}`.
pub fn session_id(document_id: &str) -> Result<String, Error> {
    let random = opaque("x")?;
    Ok(format!("{SESSION_PREFIX}{document_id}.{}", random.trim_start_matches("x_")))
}

/// The document a review session id belongs to, or `mnote_review_session_not_found` when the id is not of
/// the form [`session_id`] mints.
pub fn session_document(session_id: &str) -> Result<&str, Error> {
    let not_found = || Error::ReviewSessionNotFound { session_id: session_id.chars().take(200).collect() };
    let rest = session_id.strip_prefix(SESSION_PREFIX).ok_or_else(not_found)?;
    let (document_id, random) = rest.split_once('.').ok_or_else(not_found)?;
    let plain = |s: &str, max: usize| {
        (1..=max).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    };
    match validate_document_id(document_id).is_ok() && plain(random, 64) {
        true => Ok(document_id),
        false => Err(not_found()),
    }
}

/// Every id a document command mints, from the platform RNG. Block-id failures surface in
/// [`RandomMint::finish`], before anything is committed.
#[derive(Debug, Default)]
pub struct RandomMint {
    blocks: BlockIdMinter,
}

impl RandomMint {
    /// `Err` when a block id could not be minted from the RNG.
    pub fn finish(self) -> Result<(), Error> {
        self.blocks.finish()
    }
}

impl IdMinter for RandomMint {
    fn opaque(&mut self, prefix: &str) -> Result<String, Error> {
        opaque(prefix)
    }

    fn session_id(&mut self, document_id: &str) -> Result<String, Error> {
        session_id(document_id)
    }

    fn block_id(&mut self) -> String {
        self.blocks.mint()
    }
}

/// The caller's `x-trace-id` when it is a sane token, else a fresh `tr_…` id.
///
/// The id is echoed in a response header and in logs, so anything that could smuggle header syntax or
/// flood a log line is replaced rather than trusted.
pub fn trace_id(from_header: Option<&str>) -> String {
    given_trace_id(from_header).unwrap_or_else(fresh_trace_id)
}

/// A caller's trace id (from a header or a body), trimmed, when it is a sane token ([`is_sane_trace_id`]).
pub fn given_trace_id(given: Option<&str>) -> Option<String> {
    given.map(str::trim).filter(|id| is_sane_trace_id(id)).map(str::to_string)
}

/// A fresh `tr_…` trace id.
pub fn fresh_trace_id() -> String {
    minted("tr_", ID_CHARS).unwrap_or_else(|| "tr_unavailable".to_string())
}

/// A fresh `req_…` id for one HTTP request. Unlike a trace id, a caller never chooses it.
pub fn request_id() -> String {
    minted("req_", ID_CHARS).unwrap_or_else(|| "req_unavailable".to_string())
}

/// Whether a client-supplied id (trace id, tool call id, run id) is a plain, bounded token.
pub fn is_sane_trace_id(id: &str) -> bool {
    (1..=MAX_TRACE_ID_LEN).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

#[cfg(test)]
#[allow(clippy::expect_used, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;

    #[test]
    fn block_ids_follow_the_spec_format() {
        let mut minter = BlockIdMinter::new();
        let id = minter.mint();
        assert_eq!(id.len(), 12, "{id}");
        assert!(id.starts_with("b_"));
        assert!(id.bytes().skip(2).all(|b| ids::ALPHABET.contains(&b)), "{id}");
        assert!(pageai_core::page::validate_block_id(&id).is_ok());
        assert_ne!(minter.mint(), id);
        assert!(minter.finish().is_ok());
    }

    #[test]
    fn session_ids_name_their_document() {
        let id = session_id("doc_1-A").expect("minted");
        assert!(id.starts_with("rs.doc_1-A.") && id.len() == "rs.doc_1-A.".len() + 16, "{id}");
        assert_eq!(session_document(&id), Ok("doc_1-A"));
        assert_ne!(session_id("doc_1-A").expect("minted"), id);
        for bad in ["", "rs.", "rs.doc", "rs..abc", "rs.doc.", "rs.a.b.c", "xs.doc.abc", "rs.d%2F.abc"] {
            let code = session_document(bad).map_err(|e| e.code().as_str());
            assert_eq!(code, Err("mnote_review_session_not_found"), "{bad:?}");
        }
    }

    #[test]
    fn opaque_ids_are_prefixed_and_random() {
        let a = opaque("ctx").expect("minted");
        assert!(a.starts_with("ctx_") && a.len() == 20, "{a}");
        assert_ne!(opaque("ctx").expect("minted"), a);
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
        assert!(id.starts_with("ctx_") && id.bytes().skip(4).all(|b| ids::ALPHABET.contains(&b)));
        assert_ne!(mint("ctx_", 16).unwrap_or_default(), id);
    }
}
