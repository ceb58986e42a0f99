//! Which review sessions a list shows, and in what order: the open ones first (a held change must never
//! drop out of reach behind applied ones, whatever their number), then the rest, each group newest first,
//! paged with a cursor. The Worker's query follows this; the demo and any client read the answer.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::State;
use crate::error::{Error, Result};

/// What `GET …/review-sessions?state=` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// Every session (the default), open ones first.
    All,
    /// Only the open ones: those that wait for a person's accept or reject ([`State::awaits_person`]).
    Open,
    /// Only sessions in this state.
    In(State),
}

impl Filter {
    /// Reads `?state=`: `all` (or nothing), `open`, or a state's wire name.
    pub fn parse(value: Option<&str>) -> Result<Filter> {
        match value.map(str::trim).filter(|v| !v.is_empty()) {
            None | Some("all") => Ok(Filter::All),
            Some("open") => Ok(Filter::Open),
            Some(name) => State::ALL.into_iter().find(|s| s.as_str() == name).map(Filter::In).ok_or_else(|| {
                let names: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
                Error::invalid("/state", format!("use all, open, or one of {}", names.join(", ")))
            }),
        }
    }

    /// The states this filter lets through, in [`State::ALL`] order.
    pub fn states(self) -> Vec<State> {
        State::ALL.into_iter().filter(|s| self.admits(*s)).collect()
    }

    fn admits(self, state: State) -> bool {
        match self {
            Filter::All => true,
            Filter::Open => state.awaits_person(),
            Filter::In(wanted) => state == wanted,
        }
    }
}

/// The states a session is listed first in: the open ones.
pub fn open_states() -> Vec<State> {
    Filter::Open.states()
}

/// Where a page of the list ends: the group (open first, then the rest) and the storage order number of
/// the last session shown. Spelled `o.{seq}` or `c.{seq}` on the wire; clients pass it back unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// Whether the last session shown was open.
    pub open: bool,
    /// Its order number (newer sessions have larger ones).
    pub seq: u64,
}

impl Cursor {
    /// The cursor after a session.
    pub fn after(state: State, seq: u64) -> Cursor {
        Cursor { open: state.awaits_person(), seq }
    }

    /// Reads `?cursor=`.
    pub fn parse(value: &str) -> Result<Cursor> {
        let bad = || Error::invalid("/cursor", "pass back the nextCursor of the previous page, unchanged");
        let (group, seq) = value.trim().split_once('.').ok_or_else(bad)?;
        let open = match group {
            "o" => true,
            "c" => false,
            _ => return Err(bad()),
        };
        let seq = seq.parse::<u64>().map_err(|_| bad())?;
        Ok(Cursor { open, seq })
    }

    /// The wire spelling.
    pub fn to_wire(self) -> String {
        format!("{}.{}", if self.open { "o" } else { "c" }, self.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_means_waiting_for_an_accept_or_a_reject_and_failed_is_not_open() {
        assert_eq!(open_states(), [State::AwaitingUser, State::Stale]);
        assert_eq!(Filter::parse(Some("failed")).unwrap().states(), [State::Failed]);
        assert_eq!(Filter::parse(None).unwrap(), Filter::All);
        assert_eq!(Filter::parse(Some("nope")).unwrap_err().code().as_str(), "mnote_invalid_arguments");
    }

    #[test]
    fn a_cursor_round_trips_and_refuses_anything_else() {
        let cursor = Cursor::after(State::Stale, 42);
        assert_eq!(cursor.to_wire(), "o.42");
        assert_eq!(Cursor::parse("o.42").unwrap(), cursor);
        assert_eq!(Cursor::parse("c.7").unwrap(), Cursor { open: false, seq: 7 });
        for bad in ["", "o", "x.1", "o.-1", "o.1.2"] {
            assert!(Cursor::parse(bad).is_err(), "{bad}");
        }
    }
}
