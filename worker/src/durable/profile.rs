//! `ProfileObject`: the one stored page-AI profile (disabled tools, review mode).
//!
//! A single instance, named [`PROFILE_OBJECT_NAME`], holds it in SQLite; until the first `PUT` it answers
//! the configured default (`MNOTE_DEFAULT_PROFILE`, else review mode with every tool on). Every reader (the
//! MCP `tools/list`, the tool route, the page-AI command, the review routes) asks this object on each
//! request rather than caching it, so a change applies to the very next call everywhere.

use pageai_core::profile::Profile;
use pageai_core::{Error, wire};
use serde::{Deserialize, Serialize};
use worker::{DurableObject, Env, Request, Response, State, durable_object};

use crate::config::{Config, PROFILE_OBJECT_NAME, PROFILES_BINDING};
use crate::error::{Failure, OrInternal, TRACE_HEADER, error_response, internal};
use crate::http::json_response;
use crate::ids;
use crate::services::profiles;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS profile (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    body TEXT NOT NULL
)";

/// What the front Worker asks the profile object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ProfileCommand {
    /// The stored profile, or the default.
    Get,
    /// Store a profile (already checked by [`profiles::normalize`]).
    Put {
        /// The new profile.
        profile: Profile,
    },
}

#[derive(Deserialize)]
struct Row {
    body: String,
}

/// The Durable Object class bound as `PROFILES`.
#[durable_object]
struct ProfileObject {
    state: State,
    default: Profile,
}

impl DurableObject for ProfileObject {
    fn new(state: State, env: Env) -> Self {
        let configured = Config::from_env(&env).default_profile;
        let default = profiles::normalize(configured).unwrap_or_else(|e| {
            worker::console_error!("MNOTE_DEFAULT_PROFILE: {}; using review mode", e.message());
            Profile::default()
        });
        ProfileObject { state, default }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let trace_id = ids::trace_id(req.headers().get(TRACE_HEADER).ok().flatten().as_deref());
        let outcome = match req.text().await {
            Ok(body) => wire::from_json::<ProfileCommand>(&body).and_then(|command| self.run(command, &trace_id)),
            Err(e) => Err(internal("read profile command", e, &trace_id)),
        };
        match outcome.and_then(|profile| json_response(&profile, &trace_id)) {
            Ok(response) => Ok(response),
            Err(error) => error_response(&error, &trace_id),
        }
    }
}

impl ProfileObject {
    fn run(&self, command: ProfileCommand, trace_id: &str) -> Result<Profile, Error> {
        let sql = self.state.storage().sql();
        sql.exec(SCHEMA, None).or_internal("create profile table", trace_id)?;
        match command {
            ProfileCommand::Get => {
                let rows: Vec<Row> = sql
                    .exec("SELECT body FROM profile WHERE id = 1", None)
                    .and_then(|cursor| cursor.to_array())
                    .or_internal("read profile", trace_id)?;
                match rows.into_iter().next() {
                    Some(row) => serde_json::from_str(&row.body).or_internal("decode stored profile", trace_id),
                    None => Ok(self.default.clone()),
                }
            }
            ProfileCommand::Put { profile } => {
                let profile = profiles::normalize(profile)?;
                let body = serde_json::to_string(&profile).or_internal("encode profile", trace_id)?;
                sql.exec(
                    "INSERT INTO profile (id, body) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body",
                    vec![body.into()],
                )
                .or_internal("store profile", trace_id)?;
                Ok(profile)
            }
        }
    }
}

/// The front Worker's handle on the profile object.
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

    /// Stores `profile`; answers it as stored (tool names normalized).
    pub async fn put(&self, profile: Profile, trace_id: &str) -> Result<Profile, Failure> {
        self.send(&ProfileCommand::Put { profile }, trace_id).await
    }

    async fn send(&self, command: &ProfileCommand, trace_id: &str) -> Result<Profile, Failure> {
        let text = super::call_object(&self.stub, "profile", command, trace_id).await?;
        Ok(serde_json::from_str(&text).or_internal("decode profile object answer", trace_id)?)
    }
}
