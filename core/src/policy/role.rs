//! Who may do what in a workspace: the [`Role`] a person holds there, the [`Act`]s a route or a tool
//! asks for, and [`Grants`], a person's roles by workspace.
//!
//! | act | viewer | editor | owner |
//! |---|---|---|---|
//! | `read` (pages, audit, events, review sessions, contexts) | yes | yes | yes |
//! | `propose` (an AI run's writes held for review) | yes | yes | yes |
//! | `suggest` (a person's edit held as a suggestion; withdraw one's own) | yes | yes | yes |
//! | `write` (PUT, block edits, a write that lands) | no | yes | yes |
//! | `accept` (a review session's accept, retry, revert, the undo of a whole run, and a reject or abort of another's) | no | yes | yes |
//! | `change_profile` (the workspace's page-AI profile) | no | no | yes |
//!
//! A workspace the person holds no role in is invisible to them: the Worker answers its documents as if
//! they did not exist. A write an AI makes for a viewer is held as a proposal ([`super::Hold::Role`]):
//! the run carries at most the rights of the person it was made for.
//!
//! Why everyone may suggest and only editors and owners accept: a suggestion changes nothing until someone
//! who may write decides, so it is the one way a viewer (who may already let an AI propose for them) can
//! offer a change, and an editor can ask a co-editor's eye before a write lands. Accepting writes the page,
//! so it takes the right to write. The author of a suggestion may always withdraw it (reject or abort their
//! own, [`crate::review::may_act`]): it was theirs to offer. A person's suggestion is never applied by the
//! profile's `yolo` mode, which is about AI writes.
//!
//! ```
//! use pageai_core::policy::{Act, Grants, Role};
//!
//! let grants = Grants::from_pairs([("ws_a", Role::Editor), ("ws_b", Role::Viewer)]);
//! assert_eq!(grants.role_in("ws_a"), Some(Role::Editor));
//! assert_eq!(grants.role_in("ws_c"), None);
//! assert!(Role::Editor.permits(Act::Accept));
//! assert!(!Role::Viewer.permits(Act::Write));
//! assert!(!Role::Editor.permits(Act::ChangeProfile));
//! ```

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use core::fmt;

use crate::json::Read;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// A person's role in one workspace, from the least to the most rights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Read)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Reads, lets an AI propose, and suggests.
    Viewer,
    /// Also writes and accepts.
    Editor,
    /// Also changes the workspace's profile.
    Owner,
}

/// What a caller asks to do with a document or its workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Read)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    /// See the page and what is kept beside it.
    Read,
    /// Let an AI write land as a proposal that waits for a person.
    Propose,
    /// Hold one's own edit as a suggestion that waits for a person, or withdraw it.
    Suggest,
    /// Change the page.
    Write,
    /// Decide a review session: accept, retry, revert; undo a whole run.
    Accept,
    /// Change the workspace's page-AI profile.
    ChangeProfile,
}

impl Role {
    /// Every role, least rights first.
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Editor, Role::Owner];

    /// Whether this role allows `act` (the table in the module docs).
    pub fn permits(self, act: Act) -> bool {
        match act {
            Act::Read | Act::Propose | Act::Suggest => true,
            Act::Write | Act::Accept => self >= Role::Editor,
            Act::ChangeProfile => self == Role::Owner,
        }
    }

    /// `Ok` when this role allows `act`, else `mnote_role_forbidden`.
    pub fn check(self, act: Act) -> Result<(), Error> {
        match self.permits(act) {
            true => Ok(()),
            false => Err(Error::RoleForbidden { act: act.to_string(), role: self.to_string() }),
        }
    }

    /// The role named `name` (`viewer`, `editor`, `owner`).
    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == name)
    }

    /// The role's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Editor => "editor",
            Role::Owner => "owner",
        }
    }
}

impl Act {
    /// Every act, in the order of the table in the module docs.
    pub const ALL: [Act; 6] = [Act::Read, Act::Propose, Act::Suggest, Act::Write, Act::Accept, Act::ChangeProfile];

    /// The act named `name` (`read`, `propose`, `suggest`, `write`, `accept`, `change_profile`).
    pub fn parse(name: &str) -> Option<Act> {
        Act::ALL.into_iter().find(|act| act.as_str() == name)
    }

    /// The act's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Act::Read => "read",
            Act::Propose => "propose",
            Act::Suggest => "suggest",
            Act::Write => "write",
            Act::Accept => "accept",
            Act::ChangeProfile => "change_profile",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Act {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A person's roles, by workspace id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Read)]
#[serde(transparent)]
pub struct Grants(BTreeMap<String, Role>);

impl Grants {
    /// Grants from `(workspace, role)` pairs; a workspace named twice keeps the higher role.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, Role)>) -> Grants {
        let mut map: BTreeMap<String, Role> = BTreeMap::new();
        for (workspace, role) in pairs {
            let held = map.entry(workspace.to_string()).or_insert(role);
            *held = (*held).max(role);
        }
        Grants(map)
    }

    /// The role held in `workspace`, if any.
    pub fn role_in(&self, workspace: &str) -> Option<Role> {
        self.0.get(workspace).copied()
    }

    /// The only workspace held, if exactly one: where a new document goes when its `PUT` names none.
    pub fn only_workspace(&self) -> Option<&str> {
        let mut workspaces = self.0.keys();
        match (workspaces.next(), workspaces.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    /// The workspaces and roles, by workspace id.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Role)> {
        self.0.iter().map(|(workspace, role)| (workspace.as_str(), *role))
    }

    /// Whether no workspace is held.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;

    #[test]
    fn the_role_table() {
        let table = [
            (Act::Read, [true, true, true]),
            (Act::Propose, [true, true, true]),
            (Act::Suggest, [true, true, true]),
            (Act::Write, [false, true, true]),
            (Act::Accept, [false, true, true]),
            (Act::ChangeProfile, [false, false, true]),
        ];
        assert_eq!(table.map(|(act, _)| act), Act::ALL, "every act has its row");
        for (act, allowed) in table {
            for (role, allowed) in Role::ALL.into_iter().zip(allowed) {
                assert_eq!(role.permits(act), allowed, "{role} {act}");
                assert_eq!(role.check(act).is_ok(), allowed, "{role} {act}");
            }
        }
    }

    #[test]
    fn a_refusal_names_the_act_and_the_role() {
        let refused = Role::Viewer.check(Act::Write).err();
        assert_eq!(refused, Some(Error::RoleForbidden { act: "write".into(), role: "viewer".into() }));
        assert_eq!(refused.map(|e| e.code().as_str()), Some("mnote_role_forbidden"));
    }

    #[test]
    fn roles_parse_by_name_only() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("admin"), None);
        assert_eq!(Role::parse("Owner"), None);
    }

    #[test]
    fn grants_keep_the_higher_role_and_know_the_only_workspace() {
        let grants = Grants::from_pairs([("ws_a", Role::Viewer), ("ws_a", Role::Owner), ("ws_b", Role::Editor)]);
        assert_eq!(grants.role_in("ws_a"), Some(Role::Owner));
        assert_eq!(grants.only_workspace(), None);
        assert_eq!(Grants::from_pairs([("ws_b", Role::Editor)]).only_workspace(), Some("ws_b"));
        assert_eq!(Grants::default().only_workspace(), None);
    }
}
