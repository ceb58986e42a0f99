//! The review session's words: where a session is ([`State`]) and what moves it ([`Action`]), with their
//! wire names. The machine that says which action each state allows is `crate::review`'s.

use crate::json::Read;
use serde::{Deserialize, Serialize};

/// Where a review session is (seed §5.5), plus `reverted` for an applied change that was undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Created; no dry-run preview yet.
    Draft,
    /// The tool arguments are being built, or a model is producing the candidate.
    Planning,
    /// The dry-run is running.
    Previewing,
    /// The preview is ready; waiting for accept, reject, retry or abort.
    AwaitingUser,
    /// The user accepted; the write has not started.
    Accepted,
    /// The write is running.
    Applying,
    /// The write landed.
    Applied,
    /// The user said no. The session never writes again.
    Rejected,
    /// The preview or the write failed; the session keeps the coded error.
    Failed,
    /// The user or the system stopped it. The session never writes again.
    Aborted,
    /// The page changed under the proposal; it needs a new preview and never applies as it is.
    Stale,
    /// An applied change that was undone as one unit.
    Reverted,
}

impl State {
    /// Every state, in lifecycle order.
    pub const ALL: [State; 12] = [
        State::Draft,
        State::Planning,
        State::Previewing,
        State::AwaitingUser,
        State::Accepted,
        State::Applying,
        State::Applied,
        State::Rejected,
        State::Failed,
        State::Aborted,
        State::Stale,
        State::Reverted,
    ];

    /// The wire name, e.g. `awaiting_user`.
    pub const fn as_str(self) -> &'static str {
        match self {
            State::Draft => "draft",
            State::Planning => "planning",
            State::Previewing => "previewing",
            State::AwaitingUser => "awaiting_user",
            State::Accepted => "accepted",
            State::Applying => "applying",
            State::Applied => "applied",
            State::Rejected => "rejected",
            State::Failed => "failed",
            State::Aborted => "aborted",
            State::Stale => "stale",
            State::Reverted => "reverted",
        }
    }
}

/// Something that moves a session: a person's choice, or a step of the service reporting back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Start building the proposal.
    Plan,
    /// Start the dry-run.
    Preview,
    /// Show the finished preview to the user.
    Present,
    /// The dry-run (or the planning) failed.
    PreviewFailed,
    /// The user accepts the preview.
    Accept,
    /// Start the write: after an accept, or straight from the preview in `yolo` mode.
    Apply,
    /// The write landed.
    ApplySucceeded,
    /// The write failed; nothing was written.
    ApplyFailed,
    /// The page changed under the proposal.
    MarkStale,
    /// The user says no.
    Reject,
    /// Make a new preview under a new toolCallId.
    Retry,
    /// Stop the session.
    Abort,
    /// Undo the applied change.
    Revert,
}

impl Action {
    /// Every action.
    pub const ALL: [Action; 13] = [
        Action::Plan,
        Action::Preview,
        Action::Present,
        Action::PreviewFailed,
        Action::Accept,
        Action::Apply,
        Action::ApplySucceeded,
        Action::ApplyFailed,
        Action::MarkStale,
        Action::Reject,
        Action::Retry,
        Action::Abort,
        Action::Revert,
    ];

    /// The wire name, e.g. `apply_succeeded`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::Plan => "plan",
            Action::Preview => "preview",
            Action::Present => "present",
            Action::PreviewFailed => "preview_failed",
            Action::Accept => "accept",
            Action::Apply => "apply",
            Action::ApplySucceeded => "apply_succeeded",
            Action::ApplyFailed => "apply_failed",
            Action::MarkStale => "mark_stale",
            Action::Reject => "reject",
            Action::Retry => "retry",
            Action::Abort => "abort",
            Action::Revert => "revert",
        }
    }

    /// The actions a person sends, each the last path segment of its review route
    /// (`POST /api/page-ai/review-sessions/{id}/{verb}`); the others are steps the services take.
    pub const VERBS: [Action; 5] = [Action::Accept, Action::Reject, Action::Retry, Action::Abort, Action::Revert];

    /// An action from its wire name, e.g. `apply_succeeded`.
    pub fn parse(name: &str) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// A person's action from a review route's path segment (one of [`Action::VERBS`]).
    pub fn parse_verb(segment: &str) -> Option<Action> {
        Action::VERBS.into_iter().find(|a| a.as_str() == segment)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for state in State::ALL {
            assert_eq!(serde_json::to_value(state).unwrap(), state.as_str());
        }
        for action in Action::ALL {
            assert_eq!(serde_json::to_value(action).unwrap(), action.as_str());
            assert_eq!(Action::parse(action.as_str()), Some(action));
        }
        assert_eq!(Action::parse("nope"), None);
    }
}
