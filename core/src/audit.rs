//! The audit log of a document: append-only and hash-chained.
//!
//! Each [`AuditEntryV1`] stores the hash of the entry before it (`prevHash`) and its own `hash`, SHA-256
//! over a canonical, length-prefixed encoding of all its other fields, `prevHash` included. Changing,
//! reordering or removing an entry therefore breaks the chain at that point, and [`verify`] names the first
//! entry that does not fit. Only a cut at the end leaves a valid (shorter) chain; [`verify_head`] catches
//! that against a head (`seq`, `hash`) kept elsewhere, e.g. beside the page's revision.
//!
//! Storage is behind [`AuditStore`]: [`MemoryAuditStore`] here, SQLite in the Worker's Durable Object.
//! [`record`] seals a new entry onto the store's last one; core has no clock, so the caller passes `at`.

use crate::json::Read;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::review::ReviewSessionV1;
use crate::wire::ToolResultV1;

pub use crate::wire::AuditEntryV1;

/// The `prevHash` of the first entry: 64 zeros.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Domain tag that starts every hashed encoding, so an entry hash can never collide with another use.
const HASH_TAG: &[u8] = b"mnote.audit_entry.v1\n";

/// What an audit entry records: one name per kind of event, `document.put`, `tool.applied`, `review.*`.
///
/// Drafts carry the enum; a sealed [`AuditEntryV1`] stores its string, so a log verifies whatever build
/// wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub enum AuditAction {
    /// A person stored a whole page (`PUT /api/documents/{id}`).
    #[serde(rename = "document.put")]
    DocumentPut,
    /// A write tool call applied (directly, or through a review session in `yolo`).
    #[serde(rename = "tool.applied")]
    ToolApplied,
    /// An AI write was held in a new review session.
    #[serde(rename = "review.propose")]
    ReviewPropose,
    /// A person accepted a session and its write applied.
    #[serde(rename = "review.accept")]
    ReviewAccept,
    /// An accept found the page changed under the proposal: the session went stale.
    #[serde(rename = "review.stale")]
    ReviewStale,
    /// A person undid an applied session.
    #[serde(rename = "review.revert")]
    ReviewRevert,
    /// A person rejected a session.
    #[serde(rename = "review.reject")]
    ReviewReject,
    /// A person aborted a session.
    #[serde(rename = "review.abort")]
    ReviewAbort,
    /// A person asked for a new preview.
    #[serde(rename = "review.retry")]
    ReviewRetry,
    /// A person undid a whole Hermes run (every session it applied) as one write.
    #[serde(rename = "review.undo_run")]
    ReviewUndoRun,
}

impl AuditAction {
    /// Every action.
    pub const ALL: [AuditAction; 10] = [
        AuditAction::DocumentPut,
        AuditAction::ToolApplied,
        AuditAction::ReviewPropose,
        AuditAction::ReviewAccept,
        AuditAction::ReviewStale,
        AuditAction::ReviewRevert,
        AuditAction::ReviewReject,
        AuditAction::ReviewAbort,
        AuditAction::ReviewRetry,
        AuditAction::ReviewUndoRun,
    ];

    /// The name stored in an entry, e.g. `review.accept`.
    pub const fn as_str(self) -> &'static str {
        match self {
            AuditAction::DocumentPut => "document.put",
            AuditAction::ToolApplied => "tool.applied",
            AuditAction::ReviewPropose => "review.propose",
            AuditAction::ReviewAccept => "review.accept",
            AuditAction::ReviewStale => "review.stale",
            AuditAction::ReviewRevert => "review.revert",
            AuditAction::ReviewReject => "review.reject",
            AuditAction::ReviewAbort => "review.abort",
            AuditAction::ReviewRetry => "review.retry",
            AuditAction::ReviewUndoRun => "review.undo_run",
        }
    }
}

impl core::fmt::Display for AuditAction {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An entry before it is sealed into the chain: everything but `seq`, `prevHash` and `hash`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuditDraft {
    /// When.
    pub at: String,
    /// Who.
    pub actor: String,
    /// The document.
    pub document_id: String,
    /// What happened.
    pub action: AuditAction,
    /// The tool, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The tool call, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The review session, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_session_id: Option<String>,
    /// The page revision after the event.
    pub revision: u64,
    /// One line for people.
    pub summary: String,
}

impl AuditDraft {
    /// The draft for a write's tool result: who and when come from its `audit`, the revision is the new one
    /// (or the base, for a dry-run).
    pub fn for_result(action: AuditAction, result: &ToolResultV1, review_session_id: Option<&str>) -> Self {
        let verb = if result.dry_run { "previewed" } else { "applied" };
        let risk = match result.risk {
            crate::vocab::Risk::Low => "low",
            crate::vocab::Risk::Medium => "medium",
            crate::vocab::Risk::High => "high",
        };
        AuditDraft {
            at: result.audit.at.clone(),
            actor: result.audit.actor.clone(),
            document_id: result.document_id.clone(),
            action,
            tool_name: Some(result.tool_name.clone()),
            tool_call_id: Some(result.audit.tool_call_id.clone()),
            review_session_id: review_session_id.map(String::from),
            revision: result.new_revision.unwrap_or(result.base_revision),
            summary: format!("{verb} {} changed block(s), risk {risk}", result.changed_blocks.len()),
        }
    }

    /// The draft for the undo of a whole run (`review.undo_run`): one entry for its one write, naming every
    /// session it undid in its summary (an entry holds one `reviewSessionId`; a run may have many).
    pub fn for_run_undo(run_id: &str, session_ids: &[String], result: &ToolResultV1) -> Self {
        AuditDraft {
            summary: format!(
                "undid run {run_id}: {} session(s) {}; {} changed block(s)",
                session_ids.len(),
                session_ids.join(", "),
                result.changed_blocks.len()
            ),
            review_session_id: None,
            ..AuditDraft::for_result(AuditAction::ReviewUndoRun, result, None)
        }
    }

    /// The draft for a review session's state change (`review.reject`, `review.abort`, …).
    pub fn for_session(action: AuditAction, session: &ReviewSessionV1, actor: &str, at: &str, revision: u64) -> Self {
        AuditDraft {
            at: at.into(),
            actor: actor.into(),
            document_id: session.document_id.clone(),
            action,
            tool_name: Some(session.source.tool_name.clone()),
            tool_call_id: Some(session.tool_call_id.clone()),
            review_session_id: Some(session.session_id.clone()),
            revision,
            summary: format!("review session is {}", session.state.as_str()),
        }
    }
}

/// Where a document's log lives. Implementations only store; [`record`] builds the chain, and
/// [`check_link`] lets a store refuse an entry that does not extend it.
pub trait AuditStore {
    /// Appends `entry` after the last one. Fails with [`Error::StorageFailed`] when storage does, or with
    /// [`Error::AuditChainBroken`] when the entry does not extend the chain.
    fn append(&mut self, entry: AuditEntryV1) -> Result<()>;
    /// Every entry, oldest first.
    fn entries(&self) -> Vec<AuditEntryV1>;
    /// The newest entry.
    fn last(&self) -> Option<AuditEntryV1>;
}

/// A log in memory (the browser, tests).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryAuditStore {
    entries: Vec<AuditEntryV1>,
}

impl MemoryAuditStore {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl AuditStore for MemoryAuditStore {
    fn append(&mut self, entry: AuditEntryV1) -> Result<()> {
        check_link(self.entries.last(), &entry)?;
        self.entries.push(entry);
        Ok(())
    }

    fn entries(&self) -> Vec<AuditEntryV1> {
        self.entries.clone()
    }

    fn last(&self) -> Option<AuditEntryV1> {
        self.entries.last().cloned()
    }
}

/// Seals `draft` onto the store's last entry and appends it. Returns the sealed entry.
pub fn record(store: &mut dyn AuditStore, draft: AuditDraft) -> Result<AuditEntryV1> {
    let entry = seal(store.last().as_ref(), draft);
    store.append(entry.clone())?;
    Ok(entry)
}

/// The entry that follows `prev` (or starts the chain): its `seq`, `prevHash` and `hash` filled in.
pub fn seal(prev: Option<&AuditEntryV1>, draft: AuditDraft) -> AuditEntryV1 {
    let mut entry = AuditEntryV1 {
        seq: prev.map_or(1, |p| p.seq.saturating_add(1)),
        prev_hash: prev.map_or_else(|| GENESIS_HASH.into(), |p| p.hash.clone()),
        hash: String::new(),
        at: draft.at,
        actor: draft.actor,
        document_id: draft.document_id,
        action: draft.action.as_str().into(),
        tool_name: draft.tool_name,
        tool_call_id: draft.tool_call_id,
        review_session_id: draft.review_session_id,
        revision: draft.revision,
        summary: draft.summary,
    };
    entry.hash = entry_hash(&entry);
    entry
}

/// SHA-256 of the entry's canonical encoding (every field but `hash`), as 64 lowercase hex digits.
pub fn entry_hash(entry: &AuditEntryV1) -> String {
    let mut hasher = Sha256::new();
    hasher.update(HASH_TAG);
    hasher.update(entry.seq.to_le_bytes());
    for field in
        [Some(&entry.prev_hash), Some(&entry.at), Some(&entry.actor), Some(&entry.document_id), Some(&entry.action)]
    {
        hash_opt(&mut hasher, field);
    }
    for field in [&entry.tool_name, &entry.tool_call_id, &entry.review_session_id] {
        hash_opt(&mut hasher, field.as_ref());
    }
    hasher.update(entry.revision.to_le_bytes());
    hash_opt(&mut hasher, Some(&entry.summary));
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(64);
    for byte in digest.iter() {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

// Length-prefixed, with a presence byte, so ("ab","c") and ("a","bc") and (None, Some("")) all differ.
fn hash_opt(hasher: &mut Sha256, field: Option<&String>) {
    match field {
        Some(s) => {
            hasher.update([1u8]);
            hasher.update((s.len() as u64).to_le_bytes());
            hasher.update(s.as_bytes());
        }
        None => hasher.update([0u8]),
    }
}

/// Checks that `entry` directly follows `prev` (or starts the chain) and that its hash is its own.
pub fn check_link(prev: Option<&AuditEntryV1>, entry: &AuditEntryV1) -> Result<()> {
    let broken = |reason: String| Error::AuditChainBroken { seq: entry.seq, reason };
    let (want_seq, want_prev) = match prev {
        Some(p) => (p.seq.saturating_add(1), p.hash.as_str()),
        None => (1, GENESIS_HASH),
    };
    if entry.seq != want_seq {
        return Err(broken(format!("expected seq {want_seq} here")));
    }
    if entry.prev_hash != want_prev {
        return Err(broken(match prev {
            Some(p) => format!("prevHash does not match entry {}", p.seq),
            None => "the first entry's prevHash is not the genesis hash".into(),
        }));
    }
    if entry.hash != entry_hash(entry) {
        return Err(broken("hash does not match the entry's content".into()));
    }
    Ok(())
}

/// Verifies a whole log, oldest first. Names the first entry that does not fit.
pub fn verify(entries: &[AuditEntryV1]) -> Result<()> {
    let mut prev = None;
    for entry in entries {
        check_link(prev, entry)?;
        prev = Some(entry);
    }
    Ok(())
}

/// [`verify`], and that the log ends at the head (`seq`, `hash`) stored apart from it, which catches a log
/// cut at the end. A head of `(0, GENESIS_HASH)` stands for an empty log.
pub fn verify_head(entries: &[AuditEntryV1], head_seq: u64, head_hash: &str) -> Result<()> {
    verify(entries)?;
    let (seq, hash) = entries.last().map_or((0, GENESIS_HASH), |e| (e.seq, e.hash.as_str()));
    if seq != head_seq || hash != head_hash {
        return Err(Error::AuditChainBroken {
            seq: head_seq,
            reason: format!("the log ends at entry {seq}, not at the recorded head"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_names_match_serde() {
        for action in AuditAction::ALL {
            assert_eq!(serde_json::to_value(action).unwrap(), action.as_str());
        }
    }

    fn draft(n: u64) -> AuditDraft {
        AuditDraft {
            at: format!("2026-11-30T08:00:{n:02}Z"),
            actor: "user_1".into(),
            document_id: "doc_1".into(),
            action: AuditAction::ToolApplied,
            tool_name: Some("mnote.doc.apply_block_ops".into()),
            tool_call_id: Some(format!("call_{n}")),
            review_session_id: None,
            revision: n,
            summary: "applied 1 changed block(s), risk low".into(),
        }
    }

    #[test]
    fn a_recorded_chain_verifies() {
        let mut store = MemoryAuditStore::new();
        for n in 1..=4 {
            record(&mut store, draft(n)).unwrap();
        }
        let entries = store.entries();
        assert_eq!(entries.len(), 4);
        assert_eq!(entries[0].prev_hash, GENESIS_HASH);
        assert_eq!(entries[1].prev_hash, entries[0].hash);
        assert_eq!(entries[3].seq, 4);
        verify(&entries).unwrap();
        verify_head(&entries, 4, &entries[3].hash).unwrap();
        verify_head(&[], 0, GENESIS_HASH).unwrap();
    }

    #[test]
    fn the_hash_is_sha256_over_the_canonical_encoding() {
        let entry = seal(None, draft(1));
        assert_eq!(entry.hash.len(), 64);
        assert!(entry.hash.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_eq!(entry.hash, entry_hash(&entry));
        // Pinned (and checked against Python's hashlib over the same bytes): a change to the encoding would
        // orphan every stored log.
        assert_eq!(entry.hash, "69a2e72f4915e0be69bd625f35064a81495d9c260843b4240ad150cf323e6264");
    }

    #[test]
    fn optional_fields_cannot_be_shifted_into_each_other() {
        let mut a = draft(1);
        a.tool_name = None;
        a.tool_call_id = Some("x".into());
        let mut b = draft(1);
        b.tool_name = Some("x".into());
        b.tool_call_id = None;
        assert_ne!(seal(None, a).hash, seal(None, b).hash);
    }

    #[test]
    fn a_store_refuses_an_entry_that_does_not_extend_the_chain() {
        let mut store = MemoryAuditStore::new();
        let first = record(&mut store, draft(1)).unwrap();
        let forged = seal(None, draft(2)); // claims to be first again
        let e = store.append(forged).unwrap_err();
        assert_eq!(e.code().as_str(), "mnote_audit_chain_broken");
        assert_eq!(store.len(), 1);
        assert_eq!(store.last(), Some(first));
    }

    #[test]
    fn a_cut_at_the_end_is_caught_against_the_head() {
        let mut store = MemoryAuditStore::new();
        for n in 1..=3 {
            record(&mut store, draft(n)).unwrap();
        }
        let entries = store.entries();
        let head = entries[2].hash.clone();
        verify(&entries[..2]).unwrap();
        let e = verify_head(&entries[..2], 3, &head).unwrap_err();
        assert!(matches!(e, Error::AuditChainBroken { seq: 3, .. }));
    }
}
