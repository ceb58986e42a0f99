//! The document object's copy of the page-AI profile, with the version it was stored at (see
//! [`crate::durable::profile`]): fetched once per wake, replaced by every push, never older than what the
//! object has seen.

use pageai_core::profile::Profile;

use crate::durable::profile::VersionedProfile;

/// The copy, and how many fetches of it are under way.
#[derive(Debug, Default)]
pub struct ProfileCopy {
    held: Option<VersionedProfile>,
    fetching: u32,
}

impl ProfileCopy {
    /// The profile, when the object holds a copy.
    pub fn current(&self) -> Option<&Profile> {
        self.held.as_ref().map(|held| &held.profile)
    }

    /// A fetch starts; the object counts as holding a copy until it ends, so a push that crosses it is
    /// kept, not refused.
    pub fn fetch_started(&mut self) {
        self.fetching = self.fetching.saturating_add(1);
    }

    /// A fetch ended, with `fetched` when it succeeded. Answers the profile now held.
    pub fn fetch_ended(&mut self, fetched: Option<VersionedProfile>) -> Option<&Profile> {
        self.fetching = self.fetching.saturating_sub(1);
        if let Some(fetched) = fetched {
            self.keep(fetched);
        }
        self.current()
    }

    /// A push from the profile object. Answers whether the object holds a copy: one that woke only for
    /// the push does not take it (it fetches when it needs one), so the profile object may forget it.
    pub fn pushed(&mut self, pushed: VersionedProfile) -> bool {
        if self.held.is_none() && self.fetching == 0 {
            return false;
        }
        self.keep(pushed);
        true
    }

    /// Keeps the higher version of the two.
    fn keep(&mut self, candidate: VersionedProfile) {
        if self.held.as_ref().is_none_or(|held| candidate.version >= held.version) {
            self.held = Some(candidate);
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;
    use pageai_core::profile::ReviewMode;

    fn version(n: u64, mode: ReviewMode) -> VersionedProfile {
        VersionedProfile { profile: Profile { review_mode: mode, ..Profile::default() }, version: n }
    }

    #[test]
    fn a_push_that_crosses_a_fetch_wins_when_it_is_newer() {
        let mut copy = ProfileCopy::default();
        copy.fetch_started();
        assert!(copy.pushed(version(2, ReviewMode::Yolo)), "a fetch is under way: the push is kept");
        let held = copy.fetch_ended(Some(version(1, ReviewMode::Review))).expect("held");
        assert_eq!(held.review_mode, ReviewMode::Yolo, "the older fetched copy does not replace the push");
        assert!(copy.pushed(version(3, ReviewMode::Required)));
        assert_eq!(copy.current().map(|p| p.review_mode), Some(ReviewMode::Required));
    }

    #[test]
    fn an_object_without_a_copy_does_not_take_a_push() {
        let mut copy = ProfileCopy::default();
        assert!(!copy.pushed(version(4, ReviewMode::Yolo)));
        assert_eq!(copy.current(), None);
        copy.fetch_started();
        assert_eq!(copy.fetch_ended(None), None, "a failed fetch leaves no copy");
        assert!(!copy.pushed(version(5, ReviewMode::Yolo)));
    }
}
