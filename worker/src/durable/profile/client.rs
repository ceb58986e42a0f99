//! What is asked of the profile object ([`ProfileCommand`]) and the handle routes and document objects ask
//! it through ([`ProfileClient`]).

use pageai_core::Error;
use pageai_core::profile::Profile;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use worker::Env;

use crate::config::{PROFILE_OBJECT_NAME, PROFILES_BINDING};
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

/// The handle on the one profile object.
#[derive(Debug)]
pub struct ProfileClient {
    stub: worker::Stub,
}

impl ProfileClient {
    /// The one profile object.
    pub fn new(env: &Env, trace_id: &str) -> Result<Self, Error> {
        let namespace = env.durable_object(PROFILES_BINDING).or_internal("bind PROFILES", trace_id)?;
        let id = namespace.id_from_name(PROFILE_OBJECT_NAME).or_internal("derive profile object id", trace_id)?;
        let stub = id.get_stub().or_internal("get profile object stub", trace_id)?;
        Ok(ProfileClient { stub })
    }

    /// The stored profile (or the default).
    pub async fn get(&self, trace_id: &str) -> Result<Profile, Failure> {
        self.send(&ProfileCommand::Get, trace_id).await
    }

    /// Stores `profile`; answers it as stored (tool names normalized) once every copy has it.
    pub async fn put(&self, profile: Profile, trace_id: &str) -> Result<Profile, Failure> {
        self.send(&ProfileCommand::Put { profile }, trace_id).await
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
