//! The page-AI profile (disabled tools, review mode): which workspace's profile a request is for, who may
//! read or change it, how a stored profile is checked and what the profile route answers.
//!
//! Each workspace has one, stored in its profile Durable Object ([`crate::durable::profile`]), and read by
//! the executor guard, the page-AI command router and a Hermes run start (through each document object's
//! copy of its workspace's profile, which the profile object updates before a `PUT` answers): one source
//! per workspace, so they always agree.

use pageai_core::Error;
use pageai_core::manifest::{self, ManifestV1, Tool};
use pageai_core::page::Permission;
use pageai_core::policy::{Act, Grants, Role};
use pageai_core::profile::Profile;
use serde::{Deserialize, Serialize};

/// The caller's role in `workspace`, when it allows `act` (core's rule, [`Role::check`]). Without a role the
/// workspace answers as if it did not exist (`mnote_workspace_not_found`), as its documents do; a role too
/// low is `mnote_role_forbidden`.
pub fn admit(grants: &Grants, workspace: &str, act: Act) -> Result<Role, Error> {
    let role = grants.role_in(workspace).ok_or_else(|| Error::WorkspaceNotFound { workspace_id: workspace.into() })?;
    role.check(act)?;
    Ok(role)
}

/// The answer of `GET/PUT /api/profile`: the profile and the manifest it yields.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileAnswer {
    /// The stored profile.
    pub profile: Profile,
    /// The tool manifest under it (for an editable document), with disabled tools marked and explained.
    pub manifest: ManifestV1,
}

impl ProfileAnswer {
    /// The answer for `profile`.
    pub fn of(profile: Profile) -> Self {
        let manifest = manifest::manifest(&profile, None, Permission::Edit);
        ProfileAnswer { profile, manifest }
    }
}

/// Checks a profile before it is stored: every disabled tool must exist. Names are stored dotted
/// (`mnote.doc.search`), the form every guard compares, whichever form was sent; duplicates are dropped.
pub fn normalize(mut profile: Profile) -> Result<Profile, Error> {
    let mut names: Vec<String> = Vec::with_capacity(profile.tools.disabled.len());
    for (i, name) in profile.tools.disabled.iter().enumerate() {
        let Some(tool) = Tool::from_name(name) else {
            let known = Tool::ALL.iter().map(|t| t.spec().name).collect::<Vec<_>>().join(", ");
            return Err(Error::invalid(
                format!("/tools/disabled/{i}"),
                format!("{name:?} is not a tool; tools are {known}"),
            ));
        };
        let dotted = tool.spec().name.to_string();
        if !names.contains(&dotted) {
            names.push(dotted);
        }
    }
    profile.tools.disabled = names;
    Ok(profile)
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;
    use crate::config::DEFAULT_WORKSPACE_ID;
    use crate::identity::workspace_for;
    use pageai_core::profile::{ReviewMode, ToolsPolicy};

    #[test]
    fn the_workspace_is_the_named_one_else_the_only_one_else_the_implicit_one() {
        let one = Grants::from_pairs([("ws_a", Role::Owner)]);
        let two = Grants::from_pairs([("ws_a", Role::Owner), ("ws_b", Role::Viewer)]);
        assert_eq!(workspace_for(Some("ws_b"), &one), "ws_b");
        assert_eq!(workspace_for(None, &one), "ws_a");
        assert_eq!(workspace_for(None, &two), DEFAULT_WORKSPACE_ID);
        assert_eq!(workspace_for(None, &Grants::default()), DEFAULT_WORKSPACE_ID);
    }

    #[test]
    fn reading_takes_any_role_changing_takes_the_owner_and_no_role_sees_nothing() {
        let grants = Grants::from_pairs([("ws_a", Role::Owner), ("ws_b", Role::Editor), ("ws_c", Role::Viewer)]);
        for workspace in ["ws_a", "ws_b", "ws_c"] {
            assert!(admit(&grants, workspace, Act::Read).is_ok(), "{workspace}");
        }
        assert_eq!(admit(&grants, "ws_a", Act::ChangeProfile), Ok(Role::Owner));
        for (workspace, role) in [("ws_b", "editor"), ("ws_c", "viewer")] {
            let refused = admit(&grants, workspace, Act::ChangeProfile).expect_err("not an owner");
            assert_eq!(refused, Error::RoleForbidden { act: "change_profile".into(), role: role.into() });
        }
        for act in [Act::Read, Act::ChangeProfile] {
            let hidden = admit(&grants, "ws_d", act).expect_err("no role");
            assert_eq!(hidden, Error::WorkspaceNotFound { workspace_id: "ws_d".into() });
            assert_eq!(hidden.code().as_str(), "mnote_workspace_not_found");
        }
    }

    #[test]
    fn disabled_names_are_checked_and_stored_dotted() {
        let profile = Profile {
            tools: ToolsPolicy {
                disabled: vec!["doc_search".into(), "mnote.doc.search".into(), "mnote.page.save".into()],
            },
            review_mode: ReviewMode::Yolo,
        };
        let stored = normalize(profile).expect("valid");
        assert_eq!(stored.tools.disabled, ["mnote.doc.search", "mnote.page.save"]);
        let bad =
            Profile { tools: ToolsPolicy { disabled: vec!["mnote.doc.delete_all".into()] }, ..Profile::default() };
        let details = normalize(bad).expect_err("unknown tool").details();
        assert_eq!(details["pointer"], "/tools/disabled/0");
    }

    #[test]
    fn the_answer_marks_disabled_tools_in_the_manifest() {
        let profile = normalize(Profile {
            tools: ToolsPolicy { disabled: vec!["doc_search".into()] },
            review_mode: ReviewMode::Review,
        })
        .expect("valid");
        let answer = ProfileAnswer::of(profile);
        let search = answer.manifest.tools.iter().find(|t| t.name == "mnote.doc.search").expect("listed");
        assert!(!search.availability.enabled);
        assert_eq!(search.availability.unsupported_reason, "disabled in the profile");
        assert_eq!(manifest::mcp_tools_list(&answer.manifest).len(), Tool::ALL.len() - 1);
    }
}
