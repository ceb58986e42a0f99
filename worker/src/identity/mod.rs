//! Who a caller is: a [`Principal`] (a user id and their roles by workspace), from one of the sign-in modes.
//!
//! - **Single user** (the client token `MNOTE_CLIENT_TOKEN`, and dev-login): the user `user` (the audit's actor for a person before identities, kept so), owner of the
//!   one implicit workspace [`crate::config::DEFAULT_WORKSPACE_ID`]. For one person on a laptop, and scripts.
//! - **Signed tokens** ([`jwt`]): a JWT signed by an identity provider (mnote-web, Cloudflare Access), checked
//!   against configured public keys (`MNOTE_JWT_KEYS`, a JWK set) or a JWKS URL (`MNOTE_JWT_JWKS_URL`,
//!   cached by [`jwks`]). Its `sub` is the user id; its `mnote.workspaces` claim gives a role per workspace:
//!
//!   ```json
//!   {"iss": "https://id.example", "aud": "mnote-pageai", "sub": "user_ana", "exp": 1767225600,
//!    "mnote": {"workspaces": {"ws_team": "editor", "ws_ana": "owner"}, "epochs": {"ws_team": 8}}}
//!   ```
//!
//!   `mnote.epochs` (optional) is each workspace's membership epoch: the provider raises it when it lowers
//!   or removes a member, and a live socket opened under an older one is closed (4403
//!   `mnote_live_role_changed`).
//!
//! What a role allows is core's rule ([`pageai_core::policy::Role`]); the Worker only asks it.

mod claims;
pub mod jwks;
pub mod jwt;
pub mod webcrypto;

use std::collections::BTreeMap;

use pageai_core::policy::{Grants, Role};
use serde::{Deserialize, Serialize};

use crate::config::DEFAULT_WORKSPACE_ID;

/// The user id of single-user mode.
pub const LOCAL_USER: &str = "user";

/// A signed-in caller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Principal {
    /// The user id (a JWT's `sub`; `local` in single-user mode). The audit's actor.
    pub user: String,
    /// Roles by workspace.
    pub workspaces: Grants,
    /// The membership epoch of each workspace the credential names one for (`mnote.epochs`): an identity
    /// provider raises it when it lowers or removes a member, so a live socket opened under an older one
    /// is ended ([`crate::durable::document`]'s membership check). None in single-user mode.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub epochs: BTreeMap<String, u64>,
}

impl Principal {
    /// The one person of single-user mode: owner of the implicit workspace.
    pub fn single_user() -> Principal {
        Principal {
            user: LOCAL_USER.into(),
            workspaces: Grants::from_pairs([(DEFAULT_WORKSPACE_ID, Role::Owner)]),
            epochs: BTreeMap::new(),
        }
    }

    /// The membership epoch the credential shows for `workspace` (0 when it names none).
    pub fn epoch_in(&self, workspace: &str) -> u64 {
        self.epochs.get(workspace).copied().unwrap_or(0)
    }

    /// The role held in `workspace`, if any.
    pub fn role_in(&self, workspace: &str) -> Option<Role> {
        self.workspaces.role_in(workspace)
    }
}

/// Whom a command on one document acts for: the person and their role in the document's workspace. A
/// frozen context records it, so the AI writes of a run carry at most the rights of the person it was
/// made for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Acting {
    /// The user id: the audit's actor for what the person does.
    pub user: String,
    /// Their role in the document's workspace.
    pub role: Role,
}

impl Acting {
    /// The one person of single-user mode, owner of everything in the implicit workspace.
    pub fn single_user() -> Acting {
        Acting { user: LOCAL_USER.into(), role: Role::Owner }
    }
}

/// The workspace a request is for when it may name one: the one it names (a profile's `?workspaceId=`, a new
/// page's `workspaceId`), else the caller's only workspace, else the implicit one. A profile request and the
/// `PUT` that creates a page choose the same way.
pub fn workspace_for(named: Option<&str>, grants: &Grants) -> String {
    named.or_else(|| grants.only_workspace()).unwrap_or(DEFAULT_WORKSPACE_ID).to_string()
}
