//! `GET/PUT /api/profile`: the page-AI profile (disabled tools, review mode) and the manifest it yields.
//!
//! The body of a `PUT` is a profile, `{tools:{disabled:[…]}, reviewMode}`; tool names may be dotted or MCP
//! names, and an unknown one is refused by JSON pointer. Both answer `{profile, manifest}`.
//!
//! There is one profile, the implicit workspace's ([`DEFAULT_WORKSPACE_ID`]); changing it takes that
//! workspace's owner role (core's [`Act::ChangeProfile`]). A profile per workspace is not built yet.

use pageai_core::Error;
use pageai_core::policy::Act;
use pageai_core::profile::Profile;
use worker::{Request, Response};

use crate::config::DEFAULT_WORKSPACE_ID;
use crate::durable::profile::ProfileClient;
use crate::error::Failure;
use crate::http::{RequestContext, json_response, read_json};
use crate::services::profiles::ProfileAnswer;

/// The stored profile (or the configured default).
pub async fn get(_req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let profile = ProfileClient::new(&ctx.env, &ctx.trace_id)?.get(&ctx.trace_id).await?;
    Ok(json_response(&ProfileAnswer::of(profile), &ctx.trace_id)?)
}

/// Stores the body as the profile.
pub async fn put(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let role = ctx.principal()?.role_in(DEFAULT_WORKSPACE_ID);
    let role = role.ok_or_else(|| Error::RoleForbidden { act: Act::ChangeProfile.to_string(), role: "none".into() })?;
    role.check(Act::ChangeProfile)?;
    let profile: Profile = read_json(&mut req, ctx).await?;
    let stored = ProfileClient::new(&ctx.env, &ctx.trace_id)?.put(profile, &ctx.trace_id).await?;
    Ok(json_response(&ProfileAnswer::of(stored), &ctx.trace_id)?)
}
