//! Fresh ids: block ids, trace ids, and the ids of contexts, review sessions, shortcut runs and tool calls.
//!
//! Core spells every id ([`pageai_core::ids`]: the alphabet, the prefix and length of each [`Kind`], how a
//! review session id or a Hermes session id names its document) and has no randomness of its own (it must
//! stay deterministic); the Worker brings only the random bytes, from `getrandom`, which on workerd reads
//! `crypto.getRandomValues`, and says what to do when there are none.

use pageai_core::Error;
use pageai_core::ids::{self, ID_CHARS, hermes, review};

pub use pageai_core::ids::Kind;
pub use pageai_core::ids::is_sane_trace_id;
pub use pageai_core::ids::review::session_document;

use crate::services::stores::IdMinter;

/// `n` random bytes, or `None` when the platform RNG fails.
fn random_bytes(n: usize) -> Option<Vec<u8>> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes)
}

/// A fresh id of `kind`; `None` when the platform RNG fails.
fn minted(kind: Kind) -> Option<String> {
    random_bytes(kind.chars()).map(|bytes| ids::id(kind, &bytes))
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
        match minted(Kind::Block) {
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

/// `what`'s random part, or `mnote_storage_failed` when the platform RNG fails: a guessable id is never
/// handed out.
fn random_or_fail(n: usize, what: &str) -> Result<Vec<u8>, Error> {
    random_bytes(n).ok_or_else(|| {
        worker::console_error!("getrandom failed while minting a {what} id");
        Error::StorageFailed
    })
}

/// A fresh id of `kind` (context, run, tool call, idempotency key, sign-in nonce, …), or
/// `mnote_storage_failed` when the platform RNG fails: a guessable id is never handed out.
pub fn opaque(kind: Kind) -> Result<String, Error> {
    random_or_fail(kind.chars(), kind.prefix()).map(|bytes| ids::id(kind, &bytes))
}

/// A fresh random part for a Hermes session id; the id itself is spelled by core
/// ([`hermes::owned_suffix`], [`hermes::session_id_of`]).
pub fn hermes_session_suffix() -> Result<String, Error> {
    random_or_fail(hermes::RANDOM_CHARS, "Hermes session").map(|bytes| ids::mint("", &bytes))
}

/// A fresh review session id for `document_id`: `rs.{documentId}.{16 base32 chars}` ([`review::session_id`]).
pub fn session_id(document_id: &str) -> Result<String, Error> {
    let bytes = random_or_fail(ID_CHARS, review::PREFIX)?;
    let mut random = [0u8; ID_CHARS];
    random.copy_from_slice(&bytes);
    Ok(review::session_id(document_id, &random))
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
    fn opaque(&mut self, kind: Kind) -> Result<String, Error> {
        opaque(kind)
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
/// flood a log line is replaced rather than trusted ([`is_sane_trace_id`]).
pub fn trace_id(from_header: Option<&str>) -> String {
    given_trace_id(from_header).unwrap_or_else(fresh_trace_id)
}

/// A caller's trace id (from a header or a body), trimmed, when it is a sane token ([`is_sane_trace_id`]).
pub fn given_trace_id(given: Option<&str>) -> Option<String> {
    given.map(str::trim).filter(|id| is_sane_trace_id(id)).map(str::to_string)
}

/// A fresh `tr_…` trace id.
pub fn fresh_trace_id() -> String {
    minted(Kind::Trace).unwrap_or_else(|| ids::unavailable(Kind::Trace))
}

/// A fresh `req_…` id for one HTTP request. Unlike a trace id, a caller never chooses it.
pub fn request_id() -> String {
    minted(Kind::Request).unwrap_or_else(|| ids::unavailable(Kind::Request))
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
        let a = opaque(Kind::Context).expect("minted");
        assert!(a.starts_with("ctx_") && a.len() == 20, "{a}");
        assert_ne!(opaque(Kind::Context).expect("minted"), a);
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
        let id = opaque(Kind::Context).unwrap_or_default();
        assert_eq!(id.len(), 20, "{id}");
        assert!(id.starts_with("ctx_") && id.bytes().skip(4).all(|b| ids::ALPHABET.contains(&b)));
        assert_ne!(opaque(Kind::Context).unwrap_or_default(), id);
        let suffix = hermes_session_suffix().expect("minted");
        assert!(suffix.len() == 12 && hermes::is_session_suffix(&suffix), "{suffix}");
    }
}
