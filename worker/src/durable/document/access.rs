//! Who may run a command on this document: the gate every command passes before it runs.
//!
//! A person's command arrives with who is asking ([`CALLER_HEADER`]: the signed-in [`Principal`]); the
//! object knows the page's workspace, so it is the one place that can tell. Core's role rule decides
//! ([`Role::check`]); the gate only looks the role up:
//!
//! - no role in the page's workspace: `mnote_document_not_found`, exactly what a missing page answers;
//! - a role that does not allow the command's [`Act`]: `mnote_role_forbidden`.
//!
//! A tool call (Hermes, over MCP or the tool route) carries no person: it acts for whoever its frozen
//! context was made for ([`crate::services::tables::ContextTable::acting_of`]), reads and writes alike, and
//! their role must allow the call (a read reads, a write proposes). A call that names no known context acts
//! for the single user of the implicit workspace, so it reaches only that workspace's pages (another
//! workspace's page answers `mnote_document_not_found`; its writes are refused anyway:
//! `mnote_context_required`, and a context it names but this page never froze: `mnote_context_not_found`).
//!
//! A `PUT` of a page that does not exist yet creates it in the workspace it names (`workspaceId`), else in
//! the caller's only workspace, else in the implicit one; a page never moves to another workspace.

use pageai_core::Error;
use pageai_core::executor::SentCall;
use pageai_core::manifest::Tool;
use pageai_core::policy::Act;

use super::{DocumentCommand, DocumentObject};
use crate::config::DEFAULT_WORKSPACE_ID;
use crate::identity::{Acting, Principal, workspace_for};
use crate::services::reviews::ReviewAction;
use crate::services::tables::Tables;

/// The header a person's command carries: the [`Principal`] as JSON, set by
/// [`super::DocumentClient::acting_for`].
pub const CALLER_HEADER: &str = "x-mnote-caller";

impl DocumentCommand {
    /// What the command asks of a person's role; `None` for a command no person sends (a tool call acts
    /// for its context, a profile push comes from the profile object).
    pub fn act(&self) -> Option<Act> {
        match self {
            DocumentCommand::Get { .. }
            | DocumentCommand::ListSessions { .. }
            | DocumentCommand::ListSuggestions { .. }
            | DocumentCommand::EndSession { .. }
            | DocumentCommand::Audit { .. }
            | DocumentCommand::VerifyAudit { .. }
            | DocumentCommand::Events { .. }
            | DocumentCommand::Review { action: ReviewAction::Get, .. } => Some(Act::Read),
            // A run or a command proposes; what its writes may do is the role's, through the policy.
            // Binding a run to the context frozen for it belongs to the same person's run.
            DocumentCommand::Command { .. } | DocumentCommand::FreezeRun { .. } | DocumentCommand::BindRun { .. } => {
                Some(Act::Propose)
            }
            DocumentCommand::Put { .. } | DocumentCommand::EditBlocks { .. } => Some(Act::Write),
            DocumentCommand::Suggest { .. } => Some(Act::Suggest),
            // The author of a suggestion may withdraw it: the gate lets anyone who may suggest try, and
            // the service asks core's `review::may_act` whose session it is.
            DocumentCommand::Review { action: ReviewAction::Reject | ReviewAction::Abort, .. } => Some(Act::Suggest),
            // Undoing a run writes the page back: the accept rule (core's `review::may_undo_run` says the same).
            DocumentCommand::Review { .. } | DocumentCommand::UndoRun { .. } => Some(Act::Accept),
            DocumentCommand::CallTool { .. } | DocumentCommand::PutProfile { .. } => None,
        }
    }
}

impl DocumentObject {
    /// Lets `command` run, for whom, or answers why not (see the module docs). A `PUT` that creates the
    /// page gets the workspace it lands in written into its draft.
    pub(super) fn admit(
        &self,
        command: &mut DocumentCommand,
        caller: Option<&Principal>,
        trace_id: &str,
    ) -> Result<Acting, Error> {
        let act = command.act();
        match (command, act) {
            (DocumentCommand::PutProfile { .. }, _) => Ok(Acting::single_user()),
            (DocumentCommand::CallTool { document_id, call }, _) => self.tool_caller(document_id, &call.call, trace_id),
            (DocumentCommand::Put { document_id, draft }, Some(act)) => {
                let caller = caller.ok_or(Error::Unauthorized)?;
                let stored = self.cache.borrow_mut().loaded(trace_id)?.page.as_ref().map(|p| p.workspace_id.clone());
                match stored {
                    Some(workspace) => {
                        self.saw_caller(caller, &workspace)?;
                        let acting = acting(caller, &workspace, act, document_id)?;
                        if draft.workspace_id.as_ref().is_some_and(|named| *named != workspace) {
                            return Err(Error::invalid("/workspaceId", "a page stays in the workspace it was made in"));
                        }
                        Ok(acting)
                    }
                    None => {
                        let workspace = workspace_for(draft.workspace_id.as_deref(), &caller.workspaces);
                        let acting = acting(caller, &workspace, act, document_id)?;
                        draft.workspace_id = Some(workspace);
                        Ok(acting)
                    }
                }
            }
            (command, Some(act)) => {
                let caller = caller.ok_or(Error::Unauthorized)?;
                let document_id = command.document_id().to_string();
                let workspace = self.cache.borrow_mut().page(&document_id, trace_id)?.0.workspace_id.clone();
                // Any member's request may carry a newer membership epoch: the live channel's check.
                self.saw_caller(caller, &workspace)?;
                acting(caller, &workspace, act, &document_id)
            }
            (_, None) => Err(Error::Unauthorized),
        }
    }

    /// Lets a live channel open for `caller`: a role in the page's workspace that allows reading it
    /// (without one, the page answers as if it did not exist), under a credential no older than the
    /// workspace's membership ([`super::membership`]). Answers the workspace and the credential's epoch.
    pub(super) fn admit_live(
        &self,
        document_id: &str,
        caller: Option<&Principal>,
        trace_id: &str,
    ) -> Result<(String, u64), Error> {
        let caller = caller.ok_or(Error::Unauthorized)?;
        let workspace = self.cache.borrow_mut().page(document_id, trace_id)?.0.workspace_id.clone();
        let epoch = self.saw_caller(caller, &workspace)?;
        acting(caller, &workspace, Act::Read, document_id)?;
        pageai_core::live::check_membership(epoch, self.membership_epoch())?;
        Ok((workspace, epoch))
    }

    /// Learns the membership epoch `caller`'s credential shows in `workspace`; answers it.
    fn saw_caller(&self, caller: &Principal, workspace: &str) -> Result<u64, Error> {
        let epoch = caller.epoch_in(workspace);
        self.saw_epoch(epoch)?;
        Ok(epoch)
    }

    /// Whom a tool call acts for: its context's person, or the single user on the implicit workspace.
    fn tool_caller(&self, document_id: &str, call: &SentCall, trace_id: &str) -> Result<Acting, Error> {
        let mut cache = self.cache.borrow_mut();
        let workspace = cache.page(document_id, trace_id)?.0.workspace_id.clone();
        if let Some(context_id) = call.context_id() {
            let tables = Tables::new(cache.sql(), &cache.contexts(), js_sys::Date::now() as i64);
            if let Some(acting) = tables.contexts.acting_of(context_id)? {
                // A read asks to read; a write at least to propose (the policy holds what the role may
                // not let land).
                acting.role.check(tool_act(call.tool()))?;
                return Ok(acting);
            }
        }
        match workspace == DEFAULT_WORKSPACE_ID {
            true => Ok(Acting::single_user()),
            false => Err(Error::DocumentNotFound { document_id: document_id.into() }),
        }
    }
}

/// What a tool call asks of the role of the person its context was made for: a read reads, a write proposes
/// (an unknown tool is refused later, by the executor, with its own code).
fn tool_act(tool: Option<Tool>) -> Act {
    match tool.is_some_and(Tool::writes) {
        true => Act::Propose,
        false => Act::Read,
    }
}

/// `caller`'s role in `workspace`, if it allows `act`.
fn acting(caller: &Principal, workspace: &str, act: Act, document_id: &str) -> Result<Acting, Error> {
    let role = caller.role_in(workspace).ok_or_else(|| Error::DocumentNotFound { document_id: document_id.into() })?;
    role.check(act)?;
    Ok(Acting { user: caller.user.clone(), role })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pageai_core::policy::Role;

    #[test]
    fn a_tool_call_asks_its_contexts_person_to_read_or_to_propose() {
        for tool in Tool::ALL {
            let act = tool_act(Tool::from_name(tool.spec().mcp_name));
            assert_eq!(act, if tool.writes() { Act::Propose } else { Act::Read }, "{tool:?}");
            assert_eq!(tool_act(Tool::from_name(tool.spec().name)), act);
            // Every role may read and propose: a viewer's run reads the page and its writes are held.
            assert!(Role::ALL.iter().all(|role| role.check(act).is_ok()));
        }
    }

    #[test]
    fn anyone_may_suggest_and_try_to_withdraw_but_deciding_takes_accept() {
        let doc = || String::from("d");
        let body = crate::services::block_edits::SuggestionBody {
            base_revision: 0,
            operations: Vec::new(),
            idempotency_key: "k".into(),
            revision_refs: None,
            reason: None,
        };
        assert_eq!(DocumentCommand::Suggest { document_id: doc(), body }.act(), Some(Act::Suggest));
        assert_eq!(DocumentCommand::ListSuggestions { document_id: doc() }.act(), Some(Act::Read));
        let review = |action| DocumentCommand::Review { document_id: doc(), session_id: "s".into(), action };
        // Whose suggestion it is, the service asks core (`review::may_act`).
        assert_eq!(review(ReviewAction::Reject).act(), Some(Act::Suggest));
        assert_eq!(review(ReviewAction::Abort).act(), Some(Act::Suggest));
        let accept = pageai_core::review::AcceptRequest { block_ids: None, idempotency_key: "k".into() };
        assert_eq!(review(ReviewAction::Accept(accept)).act(), Some(Act::Accept));
    }
}
