//! Every error code, with a sample message, hint and details, pinned by a snapshot: codes are append-only,
//! and a variant cannot silently lose its message or hint.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use pageai_core::error::{BlockConflict, Error, ErrorCode};
use pageai_core::wire::ErrorBody;

fn samples() -> Vec<Error> {
    vec![
        Error::invalid("/operations/0/op", "unknown variant `rename`"),
        Error::RevisionConflict {
            expected: 3,
            actual: 5,
            blocks: vec![
                BlockConflict {
                    block_id: "p_2".into(),
                    revision_ref: Some("pageRev:5:block:p_2:1a2b3c4d".into()),
                    text: Some("第二段，改过了".into()),
                    changed_at_revision: Some(4),
                },
                BlockConflict { block_id: "p_7".into(), revision_ref: None, text: None, changed_at_revision: None },
            ],
        },
        Error::BlockNotFound { block_id: "p_9".into(), nearest: vec!["p_1".into(), "p_2".into()] },
        Error::BlockTargetOutOfScope { block_id: "p_1".into(), allowed: vec!["p_2".into()] },
        Error::BlockNotEditable { block_id: "p_3".into() },
        Error::MatchNotFound { match_text: "第二断".into(), did_you_mean: Some(("p_2".into(), "第二段".into())) },
        Error::MatchAmbiguous {
            match_text: "A".into(),
            matches: vec![("p_2".into(), 0), ("p_7".into(), 4), ("p_9".into(), 1)],
        },
        Error::ToolDisabled { tool: "mnote.block.fetch".into(), reason: "disabled in the profile".into() },
        Error::ScopeDenied { tool: "mnote.doc.apply_block_ops".into(), required: "doc.write".into() },
        Error::ReviewRequired { tool: "mnote.doc.apply_block_ops".into() },
        Error::IdempotencyConflict { key: "k_1".into() },
        Error::ContextStale { token_revision: 12, current_revision: 13 },
        Error::DocumentNotFound { document_id: "doc_x".into() },
        Error::DocumentReadOnly { document_id: "doc_r".into() },
        Error::invalid_page("/blocks/1/blockId", "duplicate block id \"p_1\""),
        Error::InvalidMarkdown { reason: "not UTF-8: invalid byte at offset 5".into() },
        Error::UnsupportedSchema {
            found: "mnote.page_ai_context.v9".into(),
            expected: "mnote.page_ai_context.v1".into(),
        },
        Error::PayloadTooLarge { limit: 5 * 1024 * 1024 },
        Error::InvalidBody { reason: "expected value".into() },
        Error::Unauthorized,
        Error::ForbiddenOrigin { origin: "https://evil.invalid".into() },
        Error::RouteNotFound { path: "/api/nope".into() },
        Error::MethodNotAllowed { method: "DELETE".into() },
        Error::StorageFailed,
        Error::UnknownTool { name: "doc_fecth".into(), nearest: vec!["doc_fetch".into()] },
        Error::ContextNotFound { context_id: "ctx_forged".into() },
        Error::ReviewInvalidTransition {
            state: "applied".into(),
            action: "accept".into(),
            allowed: vec!["revert".into()],
        },
        Error::RevertConflict { changed: vec!["p_2".into()] },
        Error::ReviewSessionNotFound { session_id: "rs_x".into() },
        Error::AuditChainBroken { seq: 3, reason: "prevHash does not match entry 2".into() },
        Error::HermesUnauthorized,
        Error::HermesUnconfigured,
        Error::HermesBadRequest { pointer: "/sessionId".into(), reason: "must start with mnote_doc_1_".into() },
        Error::HermesUpstreamUnauthorized { status: 401 },
        Error::HermesUpstreamRateLimited { retry_after: Some("3".into()) },
        Error::HermesUpstreamUnavailable { reason: "no answer within 1500 ms".into(), status: None, timed_out: true },
        Error::LiveSocketLimit { limit: 64 },
        Error::LiveMessageTooLarge { bytes: 5000, limit: 4096 },
        Error::LiveResync { revision: 7, message_revision: 9, reason: "the change goes from revision 8".into() },
        Error::TooManyAttempts { retry_after_seconds: 4 },
        Error::RoleForbidden { act: "write".into(), role: "viewer".into() },
        Error::ContextRequired { tool: "mnote.block.update".into() },
        Error::StoredTooLarge {
            record: "review session".into(),
            bytes: 2_000_000,
            limit: 1_900_000,
            block_id: Some("b_big".into()),
        },
        Error::WorkspaceNotFound { workspace_id: "ws_x".into() },
        Error::PageTooLarge { bytes: 5_300_000, limit: 5_242_880 },
        Error::LiveSessionEnded { why: "signed out".into() },
        Error::BlockTooLarge { block_id: "p_big".into(), bytes: 70_000, limit: 65_536 },
        Error::LiveRoleChanged { opened_at: 1, epoch: 2 },
        Error::RunNotFound { run_id: "run_x".into() },
        Error::RunNothingToUndo { run_id: "run_1".into(), reason: "1 session waits for review".into() },
        Error::RunAlreadyUndone { run_id: "run_1".into(), session_ids: vec!["rs_1".into(), "rs_2".into()] },
        Error::RunUndoStale { run_id: "run_1".into(), confirmed: 5, current: 6 },
    ]
}

#[test]
fn every_code_has_a_sample_and_a_stable_string() {
    let samples = samples();
    let codes: Vec<ErrorCode> = samples.iter().map(Error::code).collect();
    assert_eq!(codes, ErrorCode::ALL, "add a sample for each new code, in order");
    for code in ErrorCode::ALL {
        assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
        assert!(code.as_str().starts_with("mnote_") || code.as_str().starts_with("hermes_client_"));
    }
}

#[test]
fn catalog_of_codes() {
    let bodies: Vec<ErrorBody> = samples().iter().map(|e| ErrorBody::new(e, "trace_1")).collect();
    insta::assert_json_snapshot!(bodies);
}

#[test]
fn nearest_ids_are_the_three_closest_by_distance_then_id() {
    use pageai_core::error::nearest_ids;
    let candidates = ["p_9", "zzzzzz", "p_12", "p_1", "q_1", "p_10", "p_1", "p_2"];
    assert_eq!(nearest_ids("p_1", candidates), ["p_1", "p_1", "p_10"]);
    assert_eq!(nearest_ids("p_3", candidates), ["p_1", "p_1", "p_2"]);
    assert_eq!(nearest_ids("p_3", ["p_9", "q_4"]), ["p_9", "q_4"]);
    assert!(nearest_ids("p_3", ["zzzzzz"]).is_empty());
    // What sorting every scored pair and taking three gives, for lists of any order.
    let ids: Vec<String> = (0..40).map(|i| format!("b_{}", (i * 17) % 23)).collect();
    for wanted in ["b_1", "b_22", "b_", "c_5"] {
        let mut scored: Vec<(usize, &str)> = ids
            .iter()
            .map(|c| (levenshtein(wanted, c), c.as_str()))
            .filter(|(d, c)| *d <= wanted.chars().count().max(c.chars().count()) / 2 + 1)
            .collect();
        scored.sort();
        let expected: Vec<&str> = scored.iter().take(3).map(|(_, c)| *c).collect();
        assert_eq!(nearest_ids(wanted, ids.iter().map(String::as_str)), expected, "{wanted}");
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    pageai_core::normalize::edit_distance(&a, &b)
}
