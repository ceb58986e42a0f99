//! Hermes session ids and run ids: the one format of a session id, read back to its document and its
//! owner, and the checks on ids from paths and bodies.
//!
//! An mnote session id is `mnote_{documentId}_{suffix}`: it names its document (mnote stores nothing of
//! Hermes' sessions, so the id is where it is kept). A signed-in user's suffix is `{owner tag}-{random}`
//! ([`owner_tag`]), and a user sees and uses only the sessions with their own tag; the single user of the
//! client token keeps untagged ids, so its sessions and theirs never mix.

use alloc::format;
use alloc::string::{String, ToString};

use super::is_plain;
use crate::error::{Error, Result};
use crate::page::validate_document_id;

/// Random characters in a fresh session id's suffix (drawn by the caller, spelled by [`super::mint`]).
pub const RANDOM_CHARS: usize = 12;

/// Longest session-id suffix accepted.
const MAX_SUFFIX_LEN: usize = 64;

/// Longest run id accepted (Hermes mints `run_` + 32 hex digits).
const MAX_RUN_ID_LEN: usize = 128;

/// What every mnote session id starts with.
const SESSION_ID_PREFIX: &str = "mnote_";

/// How many hex digits of the owner's hash a session id carries.
const OWNER_TAG_HEX: usize = 12;

/// Session ids of one document start with this.
pub fn session_prefix(document_id: &str) -> String {
    format!("{SESSION_ID_PREFIX}{document_id}_")
}

/// The session id `mnote_{documentId}_{suffix}` that [`session_document`] reads back. The caller mints
/// `suffix` from [`is_session_suffix`]'s alphabet ([`owned_suffix`]).
pub fn session_id_of(document_id: &str, suffix: &str) -> String {
    format!("{}{suffix}", session_prefix(document_id))
}

/// Whether `suffix` is a valid session-id suffix: 1 to 64 characters of A-Z, a-z, 0-9 and `-`.
pub fn is_session_suffix(suffix: &str) -> bool {
    (1..=MAX_SUFFIX_LEN).contains(&suffix.len()) && suffix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The document a session id belongs to, if the id has the mnote shape.
pub fn session_document(session_id: &str) -> Option<&str> {
    let rest = session_id.strip_prefix(SESSION_ID_PREFIX)?;
    let (document_id, suffix) = rest.rsplit_once('_')?;
    (is_session_suffix(suffix) && validate_document_id(document_id).is_ok()).then_some(document_id)
}

/// Checks a session id: the mnote shape, and, when `document_id` is given, that document's prefix.
pub fn check_session_id(pointer: &str, session_id: &str, document_id: Option<&str>) -> Result<()> {
    let bad = |reason: String| Error::HermesBadRequest { pointer: pointer.to_string(), reason };
    let Some(owner) = session_document(session_id) else {
        return Err(bad("a session id is mnote_{documentId}_{suffix}, the suffix of A-Z, a-z, 0-9 and '-'".into()));
    };
    match document_id {
        Some(document_id) if owner != document_id => {
            Err(bad(format!("session {session_id:?} does not belong to document {document_id:?}")))
        }
        _ => Ok(()),
    }
}

/// Checks a run id from a path: 1 to 128 characters of A-Z, a-z, 0-9, `_` and `-`.
pub fn check_run_id(run_id: &str) -> Result<()> {
    match is_plain(run_id, MAX_RUN_ID_LEN) {
        true => Ok(()),
        false => Err(Error::HermesBadRequest {
            pointer: "/runId".into(),
            reason: "a run id has 1 to 128 characters from A-Z, a-z, 0-9, '_' and '-'".into(),
        }),
    }
}

/// The owner tag of `user`'s Hermes sessions: `o` and the first hex digits of SHA-256 of the user id;
/// `None` for the single user of the client token, whose ids stay untagged.
pub fn owner_tag(user: Option<&str>) -> Option<String> {
    use sha2::{Digest, Sha256};
    let user = user?;
    let digest = Sha256::digest(format!("mnote hermes session owner\0{user}").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("o{}", hex.get(..OWNER_TAG_HEX).unwrap_or_default()))
}

/// A session suffix for the owner `tag` (see [`owner_tag`]) around a fresh random part.
pub fn owned_suffix(tag: Option<&str>, random: &str) -> String {
    match tag {
        Some(tag) => format!("{tag}-{random}"),
        None => random.to_string(),
    }
}

/// Whether `session_id` belongs to the owner `tag` (`None`: the single user's, untagged).
pub fn owned_by(session_id: &str, tag: Option<&str>) -> bool {
    let Some((_, suffix)) = session_id.rsplit_once('_') else { return false };
    let carried = suffix.split_once('-').map(|(head, _)| head).filter(|head| is_owner_tag(head));
    carried == tag
}

fn is_owner_tag(text: &str) -> bool {
    text.len() == OWNER_TAG_HEX + 1
        && text.starts_with('o')
        && text.bytes().skip(1).all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(result: Result<()>) -> &'static str {
        result.err().map_or("ok", |e| e.code().as_str())
    }

    #[test]
    fn sessions_are_their_owners() {
        let ana = owner_tag(Some("user_ana"));
        let bob = owner_tag(Some("user_bob"));
        assert_ne!(ana, bob);
        let hers = session_id_of("doc_1", &owned_suffix(ana.as_deref(), "abc"));
        assert!(is_session_suffix(hers.rsplit_once('_').map(|(_, s)| s).unwrap_or_default()));
        assert_eq!(session_document(&hers), Some("doc_1"));
        assert!(owned_by(&hers, ana.as_deref()));
        assert!(!owned_by(&hers, bob.as_deref()));
        assert!(!owned_by(&hers, None), "the single user does not see hers");
        let single = session_id_of("doc_1", &owned_suffix(None, "abc"));
        assert!(owned_by(&single, None));
        assert!(!owned_by(&single, ana.as_deref()));
        assert!(owned_by("mnote_doc_abc-2", None), "a dash alone is no owner tag");
    }

    #[test]
    fn session_ids_belong_to_one_document() {
        assert_eq!(session_document("mnote_doc_1_abc"), Some("doc_1"));
        assert_eq!(session_document("mnote_doc_abc-2"), Some("doc"));
        assert_eq!(session_document("mnote_doc_1_trace_1"), Some("doc_1_trace"));
        assert_eq!(session_id_of("doc_1", "A-9"), "mnote_doc_1_A-9");
        assert_eq!(session_document(&session_id_of("doc_1_x", "abc")), Some("doc_1_x"));
        for bad in ["", "mnote_", "mnote__x", "other_doc_x", "mnote_doc_", "mnote_d/x_y", "mnote_doc_a.b"] {
            assert_eq!(session_document(bad), None, "{bad:?}");
        }
        assert_eq!(code(check_session_id("/sessionId", "mnote_doc_1_abc", Some("doc_1"))), "ok");
        assert_eq!(code(check_session_id("/sessionId", "mnote_doc_1_abc", Some("doc"))), "hermes_client_bad_request");
        assert_eq!(code(check_session_id("/sessionId", "telegram_123", None)), "hermes_client_bad_request");
        // A prefix match alone is not enough: `doc` must not list `doc_1`'s sessions.
        let prefix = session_prefix("doc");
        let of_doc_1 = "mnote_doc_1_abc";
        assert!(of_doc_1.starts_with(&prefix) && session_document(of_doc_1) != Some("doc"));
    }

    #[test]
    fn run_ids_are_plain_tokens() {
        assert_eq!(code(check_run_id("run_0123abcd")), "ok");
        assert_eq!(code(check_run_id("run/../x")), "hermes_client_bad_request");
        assert_eq!(code(check_run_id(&"r".repeat(129))), "hermes_client_bad_request");
    }
}
