//! `GET/PUT /api/profile`: a workspace's page-AI profile (disabled tools, review mode) and the manifest it
//! yields.
//!
//! The workspace is `?workspaceId=…`, else the caller's only workspace, else the implicit one
//! ([`crate::identity::workspace_for`]), so the single user (client token) reads and changes the implicit
//! workspace's profile as before. Reading takes any role there, changing takes the owner's (core's
//! [`Act::ChangeProfile`]); without a role the workspace answers `mnote_workspace_not_found`.
//!
//! The body of a `PUT` is a profile, `{tools:{disabled:[…]}, reviewMode}`; tool names may be dotted or MCP
//! names, and an unknown one is refused by JSON pointer. Both answer `{profile, manifest}`. A `PUT` answers
//! once every document object of the workspace that holds a copy has the new one.

use pageai_core::Error;
use pageai_core::policy::Act;
use pageai_core::profile::Profile;
use worker::{Request, Response};

use crate::durable::profile::ProfileClient;
use crate::error::{Failure, OrInternal};
use crate::http::{RequestContext, json_response, read_json};
use crate::services::profiles::{self, ProfileAnswer};

/// The stored profile of the workspace (or the configured default).
pub async fn get(req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let workspace = workspace_of(&req, ctx, Act::Read)?;
    let profile = ProfileClient::new(&ctx.env, &workspace, &ctx.trace_id)?.get(&ctx.trace_id).await?;
    Ok(json_response(&ProfileAnswer::of(profile), &ctx.trace_id)?)
}

/// Stores the body as the workspace's profile.
pub async fn put(mut req: Request, ctx: &RequestContext) -> Result<Response, Failure> {
    let workspace = workspace_of(&req, ctx, Act::ChangeProfile)?;
    let profile: Profile = read_json(&mut req, ctx).await?;
    let client = ProfileClient::new(&ctx.env, &workspace, &ctx.trace_id)?;
    let stored = client.put(profile, &ctx.trace_id).await?;
    Ok(json_response(&ProfileAnswer::of(stored), &ctx.trace_id)?)
}

/// The workspace `req` is for (`?workspaceId=`, else the caller's default), once the caller's role there
/// allows `act`.
pub fn workspace_of(req: &Request, ctx: &RequestContext, act: Act) -> Result<String, Error> {
    let url = req.url().or_internal("parse request URL", &ctx.trace_id)?;
    let named = url.query_pairs().find(|(k, _)| k == "workspaceId").map(|(_, v)| v.trim().to_string());
    let grants = &ctx.principal()?.workspaces;
    let workspace = crate::identity::workspace_for(named.as_deref().filter(|w| !w.is_empty()), grants);
    profiles::admit(grants, &workspace, act)?;
    Ok(workspace)
}
