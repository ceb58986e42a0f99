//! The audit chain detects every change, reordering or removal of an entry, and names the first bad one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use pageai_core::audit::{
    AuditAction, AuditDraft, AuditEntryV1, AuditStore, GENESIS_HASH, MemoryAuditStore, record, verify, verify_head,
};
use pageai_core::error::Error;
use proptest::prelude::*;

fn draft() -> impl Strategy<Value = AuditDraft> {
    (
        "[0-9:TZ-]{1,20}",
        "[a-z_]{1,8}",
        proptest::sample::select(AuditAction::ALL.to_vec()),
        proptest::option::of("[a-z._]{1,12}"),
        proptest::option::of("call_[0-9]{1,3}"),
        proptest::option::of("rs_[0-9]{1,3}"),
        any::<u64>(),
        "\\PC{0,24}",
    )
        .prop_map(|(at, actor, action, tool_name, tool_call_id, review_session_id, revision, summary)| {
            AuditDraft {
                at,
                actor,
                document_id: "doc_a".into(),
                action,
                tool_name,
                tool_call_id,
                review_session_id,
                revision,
                summary,
            }
        })
}

fn chain(drafts: Vec<AuditDraft>) -> Vec<AuditEntryV1> {
    let mut store = MemoryAuditStore::new();
    for d in drafts {
        record(&mut store, d).unwrap();
    }
    store.entries()
}

/// One way to tamper with a log.
#[derive(Debug, Clone)]
enum Tamper {
    /// Change one field of one entry (by field number) to a different value.
    Change { index: usize, field: u8, text: String },
    /// Swap two different entries.
    Swap { a: usize, b: usize },
    /// Remove one entry.
    Remove { index: usize },
}

fn tamper() -> impl Strategy<Value = Tamper> {
    prop_oneof![
        (any::<usize>(), 0..12u8, "\\PC{0,8}").prop_map(|(index, field, text)| Tamper::Change { index, field, text }),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Tamper::Swap { a, b }),
        any::<usize>().prop_map(|index| Tamper::Remove { index }),
    ]
}

fn change(entry: &mut AuditEntryV1, field: u8, text: &str) {
    let other = |s: &str| format!("{s}{text}~");
    let other_opt = |s: &Option<String>| match s {
        Some(_) => None,
        None => Some(text.to_string()),
    };
    match field {
        0 => entry.seq = entry.seq.wrapping_add(1 + text.len() as u64),
        1 => entry.prev_hash = other(&entry.prev_hash),
        2 => entry.hash = other(&entry.hash),
        3 => entry.at = other(&entry.at),
        4 => entry.actor = other(&entry.actor),
        5 => entry.document_id = other(&entry.document_id),
        6 => entry.action = other(&entry.action),
        7 => entry.tool_name = other_opt(&entry.tool_name),
        8 => entry.tool_call_id = other_opt(&entry.tool_call_id),
        9 => entry.review_session_id = other_opt(&entry.review_session_id),
        10 => entry.revision = entry.revision.wrapping_add(1),
        _ => entry.summary = other(&entry.summary),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn any_tampering_is_detected_at_the_first_bad_entry(
        drafts in proptest::collection::vec(draft(), 2..12),
        how in tamper(),
    ) {
        let original = chain(drafts);
        verify(&original).unwrap();
        let head = original.last().unwrap().clone();
        let len = original.len();
        let mut log = original.clone();
        match &how {
            Tamper::Change { index, field, text } => {
                change(&mut log[index % len], *field, text);
            }
            Tamper::Swap { a, b } => {
                let (a, b) = (a % len, b % len);
                prop_assume!(a != b);
                log.swap(a, b);
            }
            Tamper::Remove { index } => {
                log.remove(index % len);
            }
        }
        prop_assert_ne!(&log, &original);
        let first_bad = log.iter().zip(&original).position(|(l, o)| l != o);
        match first_bad {
            Some(i) => {
                // The first entry that differs from the original is the one named.
                let err = verify(&log).unwrap_err();
                prop_assert!(
                    matches!(&err, Error::AuditChainBroken { seq, .. } if *seq == log[i].seq),
                    "{err:?} should name entry {} (seq {})", i, log[i].seq
                );
            }
            None => {
                // Only the last entry was removed: the chain that is left is valid, the head is not.
                prop_assert_eq!(log.len(), len - 1);
                verify(&log).unwrap();
                let err = verify_head(&log, head.seq, &head.hash).unwrap_err();
                prop_assert_eq!(err.code().as_str(), "mnote_audit_chain_broken");
            }
        }
        prop_assert!(verify_head(&log, head.seq, &head.hash).is_err());
    }

    #[test]
    fn an_untouched_log_verifies_against_its_head(drafts in proptest::collection::vec(draft(), 0..12)) {
        let log = chain(drafts);
        verify(&log).unwrap();
        let (seq, hash) = log.last().map_or((0, GENESIS_HASH.to_string()), |e| (e.seq, e.hash.clone()));
        verify_head(&log, seq, &hash).unwrap();
    }
}

#[test]
fn a_store_is_append_only_through_its_trait() {
    let mut store = MemoryAuditStore::new();
    let store_dyn: &mut dyn AuditStore = &mut store;
    for n in 0..3u64 {
        record(
            store_dyn,
            AuditDraft {
                at: format!("t{n}"),
                actor: "a".into(),
                document_id: "doc_a".into(),
                action: AuditAction::ToolApplied,
                tool_name: None,
                tool_call_id: None,
                review_session_id: None,
                revision: n + 1,
                summary: "s".into(),
            },
        )
        .unwrap();
    }
    let mut replayed = store_dyn.entries()[1].clone();
    replayed.summary = "rewritten".into();
    assert!(store_dyn.append(replayed).is_err(), "an old seq cannot be appended again");
    assert_eq!(store_dyn.entries().len(), 3);
    assert_eq!(store_dyn.last().unwrap().seq, 3);
}
