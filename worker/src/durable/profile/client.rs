//! What is asked of a workspace's profile object ([`ProfileCommand`]) and the handle routes and document
//! objects ask it through ([`ProfileClient`]).

use pageai_core::Error;
use pageai_core::profile::Profile;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use worker::Env;

use crate::config::{DEFAULT_WORKSPACE_ID, PROFILE_OBJECT_NAME, PROFILES_BINDING};
use crate::error::{Failure, OrInternal};

/// What the profile object is asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ProfileCommand {
    /// The stored profile, or the default. Answers a [`Profile`].
    Get,
    /// Store a profile (checked by [`crate::services::profiles::normalize`]) and push it to every document
    /// object that holds a copy before answering. Answers the stored [`Profile`].
    Put {
        /// The workspace whose object this is, named in each push so a document of another workspace
        /// refuses it.
        workspace_id: String,
        /// The new profile.
        profile: Profile,
    },
    /// A document object takes a copy: remember it, to push the next `Put` to it. Answers a
    /// [`VersionedProfile`].
    Subscribe {
        /// The document whose object asks.
        document_id: String,
    },
}

/// A profile with the version it was stored at. Versions only grow (each `Put` adds one), so a copy that
/// hears of two keeps the higher: a push and a fetch that cross cannot leave an older profile behind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VersionedProfile {
    /// The profile.
    pub profile: Profile,
    /// `0` for the configured default, then one more per stored profile.
    pub version: u64,
}

/// The name of `workspace`'s profile object. The implicit workspace keeps the name of the one object there
/// was before profiles were per workspace ([`PROFILE_OBJECT_NAME`]), so its stored profile stays; every
/// other name is prefixed, so no workspace id can name that one.
pub fn object_name(workspace: &str) -> String {
    match workspace == DEFAULT_WORKSPACE_ID {
        true => PROFILE_OBJECT_NAME.to_string(),
        false => format!("workspace:{workspace}"),
    }
}

/// The handle on one workspace's profile object.
#[derive(Debug)]
pub struct ProfileClient {
    stub: worker::Stub,
    workspace: String,
}

impl ProfileClient {
    /// The profile object of `workspace` (created by the runtime on first use).
    pub fn new(env: &Env, workspace: &str, trace_id: &str) -> Result<Self, Error> {
        let namespace = env.durable_object(PROFILES_BINDING).or_internal("bind PROFILES", trace_id)?;
        let id = namespace.id_from_name(&object_name(workspace)).or_internal("derive profile object id", trace_id)?;
        let stub = id.get_stub().or_internal("get profile object stub", trace_id)?;
        Ok(ProfileClient { stub, workspace: workspace.to_string() })
    }

    /// The stored profile (or the default).
    pub async fn get(&self, trace_id: &str) -> Result<Profile, Failure> {
        self.send(&ProfileCommand::Get, trace_id).await
    }

    /// Stores `profile`; answers it as stored (tool names normalized) once every copy has it.
    pub async fn put(&self, profile: Profile, trace_id: &str) -> Result<Profile, Failure> {
        self.send(&ProfileCommand::Put { workspace_id: self.workspace.clone(), profile }, trace_id).await
    }

    /// The profile with its version, for the object of `document_id`, which is remembered as holding it.
    pub async fn subscribe(&self, document_id: &str, trace_id: &str) -> Result<VersionedProfile, Failure> {
        self.send(&ProfileCommand::Subscribe { document_id: document_id.into() }, trace_id).await
    }

    async fn send<T: DeserializeOwned>(&self, command: &ProfileCommand, trace_id: &str) -> Result<T, Failure> {
        let answer = crate::durable::call_object(&self.stub, "profile", command, trace_id).await?;
        Ok(serde_json::from_str(&answer.json).or_internal("decode profile object answer", trace_id)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_implicit_workspace_keeps_the_old_object_and_no_other_can_name_it() {
        assert_eq!(object_name(DEFAULT_WORKSPACE_ID), PROFILE_OBJECT_NAME);
        assert_eq!(object_name("ws_a"), "workspace:ws_a");
        assert_ne!(object_name(PROFILE_OBJECT_NAME), PROFILE_OBJECT_NAME);
    }
}
