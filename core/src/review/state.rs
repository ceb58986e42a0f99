//! The review session's state machine: which actions each state allows, and where they lead.
//!
//! The words ([`State`], [`Action`]) are core's vocabulary ([`crate::vocab`]); the rules are here.
//!
//! [`next`] is the only place a transition is decided. The services in this module call it before they do
//! anything, so an illegal action fails with `mnote_review_invalid_transition` before a byte is written.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::vocab::{Action, State};

impl State {
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
