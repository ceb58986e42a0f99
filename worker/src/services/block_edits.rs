//! `PATCH /api/documents/{id}/blocks`: a person's edits of blocks (core's [`BlockEdits`]), inside the
//! document's object; and `POST /api/documents/{id}/suggestions`, the same edits held as the person's
//! suggestion instead ([`suggest`]).
//!
//! A person's edit is the same write as an AI's: an `mnote.doc.apply_block_ops` batch through core's
//! executor and its guards (block-level preconditions, scope, editability, idempotency), with origin `user`,
//! so the policy never holds it for review. It emits the same tool events and is audited like any applied
//! write, with the person as actor: origin `user` records the actor `user`, the same name review actions
//! record ([`super::reviews::REVIEWER`]), until identities arrive. The answer is the executor's
//! `mnote.tool_result.v1`, byte for byte the same on an idempotent replay.

use pageai_core::Error;
use pageai_core::audit::{self, AuditAction, AuditDraft};
pub use pageai_core::edits::BlockEdits;
use pageai_core::events;
use pageai_core::executor::{NoContexts, Origin, SentCall, ToolArgs, ToolCall, WriteArgs};
use pageai_core::json::to_json;
use pageai_core::ops::Operation;
use pageai_core::page::Page;
use pageai_core::review::{self, ProposeRequest};
use serde::{Deserialize, Serialize};

use super::stores::{ProposalKey, Stores};
use super::tool_calls::{self, ToolCallRequest};

/// Applies `edits` to `page` as the person's write; answers the `mnote.tool_result.v1` JSON.
pub fn apply(page: &mut Page, edits: &BlockEdits, trace_id: &str, stores: &mut Stores<'_>) -> Result<String, Error> {
    // The edits are typed by core: the call is made from them, never from JSON.
    let args = WriteArgs::ApplyBlockOps(edits.args(&page.document_id));
    let edit_id = stores.mint.opaque(pageai_core::ids::Kind::Edit)?;
    let request = ToolCallRequest {
        call: SentCall::typed(args),
        run_id: edit_id.clone(),
        tool_call_id: edit_id,
        trace_id: trace_id.into(),
        origin: Origin::User,
    };
    let reply = tool_calls::call(page, request, stores)?;
    Ok(reply.result.get().to_owned())
}

/// The body of `POST /api/documents/{id}/suggestions`: the edits of `PATCH …/blocks`, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuggestionBody {
    /// The revision of the page the person edited.
    pub base_revision: u64,
    /// The edits: the operations of `mnote.doc.apply_block_ops`.
    pub operations: Vec<Operation>,
    /// Required: the same key and edits find the same suggestion again.
    pub idempotency_key: String,
    /// The `revisionRef`s of the edited blocks as the person's page showed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_refs: Option<Vec<String>>,
    /// Optional: why, in the person's words, for whoever decides (at most [`MAX_REASON_CHARS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The longest reason a suggestion keeps, in chars.
pub const MAX_REASON_CHARS: usize = 2_000;

impl SuggestionBody {
    /// The edits, as `PATCH …/blocks` takes them.
    pub fn edits(&self) -> BlockEdits {
        BlockEdits {
            base_revision: self.base_revision,
            operations: self.operations.clone(),
            idempotency_key: self.idempotency_key.clone(),
            revision_refs: self.revision_refs.clone(),
        }
    }

    /// The reason, trimmed; `None` when absent or blank. Too long a reason is `mnote_invalid_arguments`.
    pub fn reason(&self) -> Result<Option<&str>, Error> {
        let reason = self.reason.as_deref().map(str::trim).filter(|r| !r.is_empty());
        if reason.is_some_and(|r| r.chars().count() > MAX_REASON_CHARS) {
            return Err(Error::invalid("/reason", format!("keep the reason to at most {MAX_REASON_CHARS} characters")));
        }
        Ok(reason)
    }
}

/// Holds `body`'s edits as the person's suggestion on `page` (core's `review::suggest`: the same dry-run as an AI
/// proposal, never applied, whatever the mode); answers the `mnote.page_ai_review_session.v1` that holds
/// it, `awaiting_user`, and keeps the reason, if any, beside it. It is stored, evented (`review.updated`, which the live channel carries to every
/// tab, as for a held AI write) and audited (`review.propose`, the person as actor). The same key and
/// edits find the same session again and record nothing; accept, reject and the rest go through the
/// review session routes ([`super::reviews`]).
pub fn suggest(
    page: &mut Page,
    body: &SuggestionBody,
    trace_id: &str,
    stores: &mut Stores<'_>,
) -> Result<String, Error> {
    let reason = body.reason()?;
    let edits = &body.edits();
    let args = ToolArgs::from(WriteArgs::ApplyBlockOps(edits.args(&page.document_id)));
    let proposal =
        ProposalKey { idempotency_key: edits.idempotency_key.clone(), fingerprint: args.proposal_fingerprint()? };
    if let Some(found) = stores.sessions.find_proposal(&proposal)? {
        return to_json(&found);
    }
    let edit_id = stores.mint.opaque(pageai_core::ids::Kind::Edit)?;
    let session_id = stores.mint.session_id(&page.document_id)?;
    let (acting, now) = (stores.acting, stores.now);
    let call = ToolCall {
        args,
        origin: Origin::User,
        actor: &acting.user,
        at: &now.at,
        tool_call_id: &edit_id,
        new_context_id: "",
    };
    let request = ProposeRequest { session_id: &session_id, run_id: &edit_id, trace_id, call: &call };
    let session = stores.with_env(&NoContexts, |env| review::suggest(page, &request, env))?;
    stores.sessions.put(&session, Some(&proposal))?;
    if let Some(reason) = reason {
        stores.sessions.note_reason(&session.session_id, reason)?;
    }
    stores.events.push(events::review_updated(&session, &now.at));
    let draft = AuditDraft::for_session(AuditAction::ReviewPropose, &session, &acting.user, &now.at, page.revision);
    audit::record(&mut *stores.audit, draft)?;
    to_json(&session)
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
mod tests {
    use pageai_core::audit::AuditStore;
    use pageai_core::profile::{Profile, ReviewMode};
    use serde_json::{Value, json};

    use super::*;
    use crate::services::reviews::REVIEWER;
    use crate::services::test_support::{MemoryStores, page_of};
    use pageai_core::manifest::Tool;

    fn page() -> Page {
        page_of(&["alpha", "beta"])
    }

    fn edits(key: &str, base: u64, block: &str, text: &str) -> BlockEdits {
        let operations =
            serde_json::from_value(json!([{"op": "update", "blockId": block, "text": text}])).expect("operations");
        BlockEdits { base_revision: base, operations, idempotency_key: key.into(), revision_refs: None }
    }

    #[test]
    fn a_persons_edit_applies_in_review_mode_audited_and_evented() {
        let mut page = page();
        let mut memory = MemoryStores::new(Profile { review_mode: ReviewMode::Required, ..Profile::default() });
        let json = apply(&mut page, &edits("k_1", 0, "p_1", "ALPHA"), "tr_1", &mut memory.stores()).expect("applied");
        let result: Value = serde_json::from_str(&json).expect("json");
        assert_eq!(
            (result["schema"].as_str(), result["newRevision"].as_u64()),
            (Some("mnote.tool_result.v1"), Some(1))
        );
        assert_eq!(result["audit"]["actor"], REVIEWER);
        assert_eq!(page.blocks[0].text, "ALPHA");
        let entry = memory.audit.entries().last().cloned().expect("an audit entry");
        assert_eq!((entry.action.as_str(), entry.actor.as_str()), ("tool.applied", REVIEWER));
        assert_eq!(memory.event_names(), ["tool.started", "tool.completed"]);
        // The same key and body replay the answer; nothing more is written.
        let again = apply(&mut page, &edits("k_1", 0, "p_1", "ALPHA"), "tr_1", &mut memory.stores()).expect("replayed");
        assert_eq!((again, page.revision), (json, 1));
    }

    #[test]
    fn an_edit_on_another_block_lands_and_one_on_the_same_block_conflicts() {
        let mut page = page();
        let mut memory = MemoryStores::new(Profile::default());
        apply(&mut page, &edits("k_1", 0, "p_1", "mine"), "tr_1", &mut memory.stores()).expect("applied");
        let other = apply(&mut page, &edits("k_2", 0, "p_2", "theirs"), "tr_1", &mut memory.stores()).expect("lands");
        assert!(other.contains("\"rebased\""), "{other}");
        let err =
            apply(&mut page, &edits("k_3", 0, "p_1", "late"), "tr_1", &mut memory.stores()).expect_err("conflict");
        assert_eq!(err.code().as_str(), "mnote_revision_conflict");
        assert_eq!(err.details()["blocks"][0]["text"], "mine");
        assert_eq!(memory.event_names().last().map(String::as_str), Some("tool.failed"));
    }

    #[test]
    fn the_profiles_tool_switches_do_not_stop_a_person() {
        let mut page = page();
        let disabled = pageai_core::profile::ToolsPolicy { disabled: vec![Tool::DocApplyBlockOps.spec().name.into()] };
        let mut memory = MemoryStores::new(Profile { tools: disabled, ..Profile::default() });
        apply(&mut page, &edits("k_1", 0, "p_1", "typed"), "tr_1", &mut memory.stores())
            .expect("a person's edit lands");
        assert_eq!(page.blocks[0].text, "typed");
    }
}
