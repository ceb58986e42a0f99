//! `ProfileObject`: one workspace's page-AI profile (disabled tools, review mode), and which document
//! objects of that workspace hold a copy of it.
//!
//! One instance per workspace, named by [`client::object_name`], holds it in SQLite with a version: `0`
//! is the configured default (`MNOTE_DEFAULT_PROFILE`, else review mode with every tool on), each `PUT`
//! adds one. `GET /api/profile`, the MCP `tools/list` (the implicit workspace's) and the Hermes client tool
//! listing ask this object. A document object asks its workspace's object once per wake
//! ([`ProfileCommand::Subscribe`]) and keeps the copy, so a tool call, a command or a run start makes one
//! Durable Object round trip, not two; this object remembers it in `profile_holders`.
//!
//! A `PUT` stores the new profile at the next version, then pushes it to every holder at once
//! ([`DocumentCommand::PutProfile`], naming the workspace) and answers only when each has taken it: the
//! change applies to the very next call on every page of the workspace. A holder that woke only for the
//! push, or whose page is in another workspace (a holder remembered before profiles were per workspace),
//! says so and is forgotten, unless it subscribed again in the meantime (each subscription bumps its
//! `generation`, and only the generation that was pushed to is forgotten). A push that fails makes the
//! `PUT` fail (the profile is stored; a retry pushes again).

pub mod client;

use std::cell::Cell;

use futures_util::future::join_all;
use pageai_core::json::to_json;
use pageai_core::profile::Profile;
use pageai_core::{Error, wire};
use worker::{DurableObject, Env, Request, Response, State, durable_object};

pub use client::{ProfileClient, ProfileCommand, VersionedProfile};

use crate::config::Config;
use crate::durable::document::client::DocumentClient;
use crate::durable::document::command::{DocumentCommand, ProfileHeld};
use crate::error::{Failure, OrInternal, TRACE_HEADER, error_response, internal};
use crate::http::text_response;
use crate::ids;
use crate::services::documents::check_document_id;
use crate::services::profiles;
use crate::services::sqlite::{ObjectSql, Sql, atomically, integer, text};

const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS profile (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        body TEXT NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS profile_version (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        version INTEGER NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS profile_holders (
        document_id TEXT PRIMARY KEY,
        generation INTEGER NOT NULL
    )",
];

/// The Durable Object class bound as `PROFILES`.
#[durable_object]
struct ProfileObject {
    env: Env,
    sql: ObjectSql,
    default: Profile,
    /// Whether this wake created the tables yet.
    schema: Cell<bool>,
}

impl DurableObject for ProfileObject {
    fn new(state: State, env: Env) -> Self {
        let configured = Config::from_env(&env).default_profile;
        let default = profiles::normalize(configured).unwrap_or_else(|e| {
            worker::console_error!("MNOTE_DEFAULT_PROFILE: {}; using review mode", e.message());
            Profile::default()
        });
        ProfileObject { sql: ObjectSql::new(state.storage()), env, default, schema: Cell::new(false) }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let trace_id = ids::trace_id(req.headers().get(TRACE_HEADER).ok().flatten().as_deref());
        let outcome = match req.text().await {
            Ok(body) => match wire::from_json_serde::<ProfileCommand>(&body) {
                Ok(command) => self.run(command, &trace_id).await,
                Err(e) => Err(e),
            },
            Err(e) => Err(internal("read profile command", e, &trace_id)),
        };
        match outcome.and_then(|json| text_response(json, "application/json; charset=utf-8", &trace_id)) {
            Ok(response) => Ok(response),
            Err(error) => error_response(&error, &trace_id),
        }
    }
}

impl ProfileObject {
    async fn run(&self, command: ProfileCommand, trace_id: &str) -> Result<String, Error> {
        if !self.schema.get() {
            for statement in SCHEMA {
                self.sql.run(statement, Vec::new()).or_internal("create profile tables", trace_id)?;
            }
            self.schema.set(true);
        }
        match command {
            ProfileCommand::Get => to_json(&self.stored(trace_id)?.profile),
            ProfileCommand::Subscribe { document_id } => {
                check_document_id(&document_id)?;
                self.sql
                    .run(
                        "INSERT INTO profile_holders (document_id, generation) VALUES (?, 1)
                         ON CONFLICT (document_id) DO UPDATE SET generation = generation + 1",
                        vec![document_id.into()],
                    )
                    .or_internal("remember a profile holder", trace_id)?;
                to_json(&self.stored(trace_id)?)
            }
            ProfileCommand::Put { workspace_id, profile } => {
                let stored = self.store(profile, trace_id)?;
                self.push(&workspace_id, &stored, trace_id).await?;
                to_json(&stored.profile)
            }
        }
    }

    /// The stored profile and its version, or the default at version 0.
    fn stored(&self, trace_id: &str) -> Result<VersionedProfile, Error> {
        let body =
            self.sql.rows("SELECT body FROM profile WHERE id = 1", Vec::new()).or_internal("read profile", trace_id)?;
        let profile = match body.into_iter().next().and_then(|row| row.into_iter().next()) {
            Some(value) => {
                let body = text(Some(value), "body").or_internal("read profile", trace_id)?;
                serde_json::from_str(&body).or_internal("decode stored profile", trace_id)?
            }
            None => self.default.clone(),
        };
        let version = self
            .sql
            .rows("SELECT version FROM profile_version WHERE id = 1", Vec::new())
            .or_internal("read profile version", trace_id)?;
        let version = match version.first() {
            Some(row) => integer(row.first(), "version").or_internal("read profile version", trace_id)?,
            None => 0,
        };
        Ok(VersionedProfile { profile, version: u64::try_from(version).unwrap_or(0) })
    }

    /// Stores `profile` at the next version.
    fn store(&self, profile: Profile, trace_id: &str) -> Result<VersionedProfile, Error> {
        let profile = profiles::normalize(profile)?;
        let body = serde_json::to_string(&profile).or_internal("encode profile", trace_id)?;
        let version = self.stored(trace_id)?.version.saturating_add(1);
        let stored = i64::try_from(version).or_internal("count profile versions", trace_id)?;
        atomically(&self.sql, |sql: &dyn Sql| {
            sql.run(
                "INSERT INTO profile (id, body) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET body = excluded.body",
                vec![body.into()],
            )?;
            sql.run(
                "INSERT INTO profile_version (id, version) VALUES (1, ?)
                 ON CONFLICT (id) DO UPDATE SET version = excluded.version",
                vec![stored.into()],
            )
        })
        .or_internal("store profile", trace_id)?;
        Ok(VersionedProfile { profile, version })
    }

    /// Pushes `stored` to every holder, all at once; forgets holders that no longer hold a copy.
    async fn push(&self, workspace_id: &str, stored: &VersionedProfile, trace_id: &str) -> Result<(), Error> {
        let holders = self
            .sql
            .rows("SELECT document_id, generation FROM profile_holders", Vec::new())
            .or_internal("read profile holders", trace_id)?
            .into_iter()
            .map(|row| {
                let mut row = row.into_iter();
                let document_id = text(row.next(), "document_id")?;
                Ok((document_id, integer(row.next().as_ref(), "generation")?))
            })
            .collect::<Result<Vec<(String, i64)>, String>>()
            .or_internal("read profile holders", trace_id)?;
        let pushes = holders.iter().map(|(document_id, _)| self.push_to(document_id, workspace_id, stored, trace_id));
        let answers = join_all(pushes).await;
        let mut failed = 0usize;
        for ((document_id, generation), answer) in holders.iter().zip(answers) {
            match answer {
                Ok(ProfileHeld { holding: true }) => {}
                Ok(ProfileHeld { holding: false }) => self
                    .sql
                    .run(
                        "DELETE FROM profile_holders WHERE document_id = ? AND generation = ?",
                        vec![document_id.as_str().into(), (*generation).into()],
                    )
                    .or_internal("forget a profile holder", trace_id)?,
                Err(failure) => {
                    failed += 1;
                    let detail = match failure {
                        Failure::Core(e) => e.message(),
                        Failure::Relayed(response) => format!("status {}", response.status_code()),
                    };
                    worker::console_error!("[{trace_id}] push profile to {document_id}: {detail}");
                }
            }
        }
        if failed > 0 {
            let detail = format!("{failed} of {} document objects did not take it", holders.len());
            return Err(internal("push the profile", detail, trace_id));
        }
        Ok(())
    }

    async fn push_to(
        &self,
        document_id: &str,
        workspace_id: &str,
        stored: &VersionedProfile,
        trace_id: &str,
    ) -> Result<ProfileHeld, Failure> {
        let client = DocumentClient::new(&self.env, document_id, trace_id)?;
        let command = DocumentCommand::PutProfile {
            document_id: document_id.into(),
            workspace_id: workspace_id.into(),
            profile: stored.profile.clone(),
            version: stored.version,
        };
        client.send(&command, trace_id).await
    }
}
