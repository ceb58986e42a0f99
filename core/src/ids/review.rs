//! Review session ids: `rs.{documentId}.{random}`.
//!
//! A review session id names its document. Document ids never contain a dot, so [`session_document`]
//! splits it back unambiguously, and the review routes need no `documentId` besides the path.

use alloc::format;
use alloc::string::String;

use super::{ID_CHARS, is_plain, mint};
use crate::error::{Error, Result};
use crate::page::validate_document_id;

/// What every review session id starts with.
pub const PREFIX: &str = "rs.";

/// The longest random part a review session id may carry.
const MAX_RANDOM_CHARS: usize = 64;

/// The review session id of `document_id` with the random part spelled from `random`:
/// `rs.{documentId}.{16 base32 characters}`.
pub fn session_id(document_id: &str, random: &[u8; ID_CHARS]) -> String {
    format!("{PREFIX}{document_id}.{}", mint("", random))
}

/// The document a review session id belongs to, or `mnote_review_session_not_found` when the id is not of
/// the form [`session_id`] spells.
pub fn session_document(session_id: &str) -> Result<&str> {
    let not_found = || Error::ReviewSessionNotFound { session_id: session_id.chars().take(200).collect() };
    let rest = session_id.strip_prefix(PREFIX).ok_or_else(not_found)?;
    let (document_id, random) = rest.split_once('.').ok_or_else(not_found)?;
    match validate_document_id(document_id).is_ok() && is_plain(random, MAX_RANDOM_CHARS) {
        true => Ok(document_id),
        false => Err(not_found()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_name_their_document() {
        let id = session_id("doc_1-A", &[1; ID_CHARS]);
        assert_eq!(id, "rs.doc_1-A.bbbbbbbbbbbbbbbb");
        assert_eq!(session_document(&id), Ok("doc_1-A"));
        for bad in ["", "rs.", "rs.doc", "rs..abc", "rs.doc.", "rs.a.b.c", "xs.doc.abc", "rs.d%2F.abc"] {
            let code = session_document(bad).map_err(|e| e.code().as_str());
            assert_eq!(code, Err("mnote_review_session_not_found"), "{bad:?}");
        }
    }
}
