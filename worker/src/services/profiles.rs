//! The page-AI profile (disabled tools, review mode): how a stored profile is checked and what the profile
//! route answers. It is stored once, in the profile Durable Object ([`crate::durable::profile`]), and read
//! by the MCP `tools/list`, the executor guard and the page-AI command router (through each document
//! object's copy, which the profile object updates before a `PUT` answers): one source, so they always
//! agree.

use pageai_core::Error;
use pageai_core::manifest::{self, ManifestV1, Tool};
use pageai_core::page::Permission;
use pageai_core::profile::Profile;
use serde::{Deserialize, Serialize};

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
    use pageai_core::profile::{ReviewMode, ToolsPolicy};

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
