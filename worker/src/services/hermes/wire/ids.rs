//! Session and run ids: the one format of a session id, read back to its document, and the checks on ids
//! from paths and bodies.

use pageai_core::Error;
use pageai_core::page::validate_document_id;

/// Longest session-id suffix accepted.
const MAX_SUFFIX_LEN: usize = 64;

/// Longest run id accepted (Hermes mints `run_` + 32 hex digits).
const MAX_RUN_ID_LEN: usize = 128;

/// What every mnote session id starts with.
const SESSION_ID_PREFIX: &str = "mnote_";

/// Session ids of one document start with this.
pub fn session_prefix(document_id: &str) -> String {
    format!("{SESSION_ID_PREFIX}{document_id}_")
}

/// The session id `mnote_{documentId}_{suffix}` that [`session_document`] reads back. The caller mints
/// `suffix` from [`is_session_suffix`]'s alphabet.
pub fn session_id_of(document_id: &str, suffix: &str) -> String {
    format!("{}{suffix}", session_prefix(document_id))
}

/// Whether `suffix` is a valid session-id suffix.
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
pub fn check_session_id(pointer: &str, session_id: &str, document_id: Option<&str>) -> Result<(), Error> {
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

/// Checks a run id from a path.
pub fn check_run_id(run_id: &str) -> Result<(), Error> {
    let valid = (1..=MAX_RUN_ID_LEN).contains(&run_id.len())
        && run_id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    match valid {
        true => Ok(()),
        false => Err(Error::HermesBadRequest {
            pointer: "/runId".into(),
            reason: "a run id has 1 to 128 characters from A-Z, a-z, 0-9, '_' and '-'".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(result: Result<(), Error>) -> &'static str {
        result.err().map_or("ok", |e| e.code().as_str())
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
