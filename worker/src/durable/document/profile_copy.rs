//! The document object's copy of its workspace's page-AI profile, with the version it was stored at (see
//! [`crate::durable::profile`]): fetched once per wake, replaced by every push of that workspace, never
//! older than what the object has seen, and never another workspace's.

use pageai_core::profile::Profile;

use crate::durable::profile::VersionedProfile;

/// The copy, whose workspace it is, and how many fetches of it are under way.
#[derive(Debug, Default)]
pub struct ProfileCopy {
    /// The workspace of the page (set by the first fetch; a page never moves).
    workspace: Option<String>,
    held: Option<VersionedProfile>,
    fetching: u32,
}

impl ProfileCopy {
    /// The profile of `workspace`, when the object holds a copy of it.
    pub fn current(&self, workspace: &str) -> Option<&Profile> {
        match self.workspace.as_deref() == Some(workspace) {
            true => self.held.as_ref().map(|held| &held.profile),
            false => None,
        }
    }

    /// The version of the copy of `workspace`'s profile, when the object holds one.
    pub fn version(&self, workspace: &str) -> Option<u64> {
        match self.workspace.as_deref() == Some(workspace) {
            true => self.held.as_ref().map(|held| held.version),
            false => None,
        }
    }

    /// A fetch of `workspace`'s profile starts; the object counts as holding a copy until it ends, so a
    /// push that crosses it is kept, not refused.
    pub fn fetch_started(&mut self, workspace: &str) {
        if self.workspace.as_deref() != Some(workspace) {
            self.workspace = Some(workspace.to_string());
            self.held = None;
        }
        self.fetching = self.fetching.saturating_add(1);
    }

    /// A fetch ended, with `fetched` when it succeeded. Answers the profile now held.
    pub fn fetch_ended(&mut self, fetched: Option<VersionedProfile>) -> Option<&Profile> {
        self.fetching = self.fetching.saturating_sub(1);
        if let Some(fetched) = fetched {
            self.keep(fetched);
        }
        self.held.as_ref().map(|held| &held.profile)
    }

    /// A push from `workspace`'s profile object. Answers whether the object holds a copy of that profile:
    /// one that woke only for the push does not take it (it fetches when it needs one), nor does the page
    /// of another workspace, so the profile object may forget it.
    pub fn pushed(&mut self, workspace: &str, pushed: VersionedProfile) -> bool {
        let idle = self.held.is_none() && self.fetching == 0;
        if idle || self.workspace.as_deref() != Some(workspace) {
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
        copy.fetch_started("ws_a");
        assert!(copy.pushed("ws_a", version(2, ReviewMode::Yolo)), "a fetch is under way: the push is kept");
        let held = copy.fetch_ended(Some(version(1, ReviewMode::Review))).expect("held");
        assert_eq!(held.review_mode, ReviewMode::Yolo, "the older fetched copy does not replace the push");
        assert!(copy.pushed("ws_a", version(3, ReviewMode::Required)));
        assert_eq!(copy.current("ws_a").map(|p| p.review_mode), Some(ReviewMode::Required));
    }

    #[test]
    fn an_object_without_a_copy_does_not_take_a_push() {
        let mut copy = ProfileCopy::default();
        assert!(!copy.pushed("ws_a", version(4, ReviewMode::Yolo)));
        assert_eq!(copy.current("ws_a"), None);
        copy.fetch_started("ws_a");
        assert_eq!(copy.fetch_ended(None), None, "a failed fetch leaves no copy");
        assert!(!copy.pushed("ws_a", version(5, ReviewMode::Yolo)));
    }

    #[test]
    fn another_workspace_s_push_is_refused_and_changes_nothing() {
        let mut copy = ProfileCopy::default();
        copy.fetch_started("ws_a");
        copy.fetch_ended(Some(version(1, ReviewMode::Review)));
        assert!(!copy.pushed("ws_local", version(9, ReviewMode::Yolo)), "not this page's workspace");
        assert_eq!(copy.current("ws_a").map(|p| p.review_mode), Some(ReviewMode::Review));
        assert_eq!(copy.current("ws_local"), None, "the copy is only ever ws_a's");
        copy.fetch_started("ws_a");
        assert!(!copy.pushed("ws_b", version(10, ReviewMode::Yolo)), "nor while a fetch is under way");
        copy.fetch_ended(None);
        assert_eq!(copy.current("ws_a").map(|p| p.review_mode), Some(ReviewMode::Review));
    }
}
