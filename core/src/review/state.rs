//! The review session's state machine: which actions each state allows, and where they lead.
//!
//! [`next`] is the only place a transition is decided. The services in this module call it before they do
//! anything, so an illegal action fails with `mnote_review_invalid_transition` before a byte is written.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where a review session is (seed §5.5), plus `reverted` for an applied change that was undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

    /// True when no action leads anywhere from here.
    pub fn is_final(self) -> bool {
        allowed_actions(self).is_empty()
    }

    /// True when the session is open: it holds a change that waits for a person's accept or reject
    /// (`awaiting_user`, `stale`). A `failed` session holds nothing to accept (it may be retried, which
    /// makes a new preview, or aborted), a session being worked on asks nothing of anyone, and an applied
    /// one can only be undone.
    pub fn awaits_person(self) -> bool {
        allowed_actions(self).iter().any(|a| matches!(a, Action::Accept | Action::Reject))
    }
}

/// Something that moves a session: a person's choice, or a step of the service reporting back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
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

/// The machine, one line per action: the states that allow it, and where it leads. A new action does not
/// compile until it has its line; a state that no line lists allows nothing.
const fn rule(action: Action) -> (&'static [State], State) {
    use Action as A;
    use State as S;
    match action {
        A::Plan => (&[S::Draft], S::Planning),
        A::Preview => (&[S::Draft, S::Planning], S::Previewing),
        A::Present => (&[S::Previewing], S::AwaitingUser),
        A::PreviewFailed => (&[S::Planning, S::Previewing], S::Failed),
        A::Accept => (&[S::AwaitingUser], S::Accepted),
        // `yolo`: an unblocked write skips awaiting_user, but still passes through applying.
        A::Apply => (&[S::Previewing, S::Accepted], S::Applying),
        A::ApplySucceeded => (&[S::Applying], S::Applied),
        A::ApplyFailed => (&[S::Applying], S::Failed),
        A::MarkStale => (&[S::AwaitingUser, S::Accepted], S::Stale),
        A::Reject => (&[S::AwaitingUser, S::Stale], S::Rejected),
        A::Retry => (&[S::AwaitingUser, S::Stale, S::Failed], S::Previewing),
        // A write in flight cannot be interrupted (it is one atomic batch), and finished sessions stay so.
        A::Abort => {
            (&[S::Draft, S::Planning, S::Previewing, S::AwaitingUser, S::Accepted, S::Failed, S::Stale], S::Aborted)
        }
        A::Revert => (&[S::Applied], S::Reverted),
    }
}

/// Where `action` leads from `state`, or `None` when the state does not allow it.
fn target(state: State, action: Action) -> Option<State> {
    let (from, to) = rule(action);
    from.contains(&state).then_some(to)
}

/// The actions `state` allows, in [`Action::ALL`] order.
pub fn allowed_actions(state: State) -> Vec<Action> {
    Action::ALL.into_iter().filter(|a| target(state, *a).is_some()).collect()
}

/// The state `action` leads to from `state`, or `mnote_review_invalid_transition` naming the actions that
/// `state` does allow.
pub fn next(state: State, action: Action) -> Result<State> {
    target(state, action).ok_or_else(|| Error::ReviewInvalidTransition {
        state: state.as_str().into(),
        action: action.as_str().into(),
        allowed: allowed_actions(state).into_iter().map(|a| String::from(a.as_str())).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// The whole machine, written out by hand: every legal (state, action) pair and where it leads.
    /// Anything not listed must be refused.
    fn table() -> Vec<(State, Vec<(Action, State)>)> {
        use Action as A;
        use State as S;
        vec![
            (S::Draft, vec![(A::Plan, S::Planning), (A::Preview, S::Previewing), (A::Abort, S::Aborted)]),
            (S::Planning, vec![(A::Preview, S::Previewing), (A::PreviewFailed, S::Failed), (A::Abort, S::Aborted)]),
            (
                S::Previewing,
                vec![
                    (A::Present, S::AwaitingUser),
                    (A::PreviewFailed, S::Failed),
                    (A::Apply, S::Applying),
                    (A::Abort, S::Aborted),
                ],
            ),
            (
                S::AwaitingUser,
                vec![
                    (A::Accept, S::Accepted),
                    (A::MarkStale, S::Stale),
                    (A::Reject, S::Rejected),
                    (A::Retry, S::Previewing),
                    (A::Abort, S::Aborted),
                ],
            ),
            (S::Accepted, vec![(A::Apply, S::Applying), (A::MarkStale, S::Stale), (A::Abort, S::Aborted)]),
            (S::Applying, vec![(A::ApplySucceeded, S::Applied), (A::ApplyFailed, S::Failed)]),
            (S::Applied, vec![(A::Revert, S::Reverted)]),
            (S::Rejected, vec![]),
            (S::Failed, vec![(A::Retry, S::Previewing), (A::Abort, S::Aborted)]),
            (S::Aborted, vec![]),
            (S::Stale, vec![(A::Reject, S::Rejected), (A::Retry, S::Previewing), (A::Abort, S::Aborted)]),
            (S::Reverted, vec![]),
        ]
    }

    #[test]
    fn every_state_and_action_pair() {
        let table = table();
        assert_eq!(table.len(), State::ALL.len(), "the table covers every state");
        let mut checked = 0;
        for (state, legal) in &table {
            let allowed: Vec<String> =
                Action::ALL.iter().filter(|a| legal.iter().any(|(l, _)| l == *a)).map(|a| a.as_str().into()).collect();
            for action in Action::ALL {
                checked += 1;
                match legal.iter().find(|(a, _)| *a == action) {
                    Some((_, to)) => {
                        assert_eq!(next(*state, action), Ok(*to), "{state:?} --{action:?}")
                    }
                    None => assert_eq!(
                        next(*state, action),
                        Err(Error::ReviewInvalidTransition {
                            state: state.as_str().into(),
                            action: action.as_str().into(),
                            allowed: allowed.clone(),
                        }),
                        "{state:?} --{action:?} must be refused"
                    ),
                }
            }
        }
        assert_eq!(checked, 12 * 13);
    }

    #[test]
    fn refusals_name_the_code_and_the_allowed_actions() {
        let e = next(State::Applied, Action::Accept).unwrap_err();
        assert_eq!(e.code().as_str(), "mnote_review_invalid_transition");
        assert_eq!(e.hint(), "allowed now: revert");
        let e = next(State::Rejected, Action::Retry).unwrap_err();
        assert_eq!(e.hint(), "the session is finished; start a new one");
    }

    #[test]
    fn final_states_are_the_ones_nothing_leaves() {
        let finals: Vec<State> = State::ALL.into_iter().filter(|s| s.is_final()).collect();
        assert_eq!(finals, [State::Rejected, State::Aborted, State::Reverted]);
    }

    #[test]
    fn the_states_that_wait_for_a_person() {
        let waiting: Vec<State> = State::ALL.into_iter().filter(|s| s.awaits_person()).collect();
        assert_eq!(waiting, [State::AwaitingUser, State::Stale]);
    }

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

    #[test]
    fn only_a_persons_verbs_parse_as_path_segments() {
        let verbs: Vec<&str> = Action::VERBS.iter().map(|a| a.as_str()).collect();
        assert_eq!(verbs, ["accept", "reject", "retry", "abort", "revert"]);
        for action in Action::ALL {
            let expected = Action::VERBS.contains(&action).then_some(action);
            assert_eq!(Action::parse_verb(action.as_str()), expected, "{action:?}");
        }
        assert_eq!(Action::parse_verb("get"), None);
    }

    #[test]
    fn a_stale_session_can_never_reach_applying_without_a_new_preview() {
        // From stale, every path to `applying` goes through `previewing` (a retry): breadth-first search.
        let mut frontier = vec![State::Stale];
        let mut seen = vec![State::Stale];
        while let Some(s) = frontier.pop() {
            for a in allowed_actions(s) {
                let to = next(s, a).unwrap();
                assert_ne!(to, State::Applying, "{s:?} --{a:?} reaches applying");
                if to != State::Previewing && !seen.contains(&to) {
                    seen.push(to);
                    frontier.push(to);
                }
            }
        }
    }
}
