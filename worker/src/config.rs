//! What the Worker reads from its environment, in one place.
//!
//! Binding names and limits live here so routes never spell a binding name or a magic number. Secrets
//! (`HERMES_API_KEY`, `MNOTE_TOOL_TOKEN`, `MNOTE_SESSION_SECRET`) are deliberately not held in [`Config`]:
//! the code that needs one reads it at the point of use, so it cannot leak through a `Debug` print.

use pageai_core::profile::Profile;
use worker::Env;

/// The Durable Object namespace that holds one object per document.
pub const DOCUMENTS_BINDING: &str = "DOCUMENTS";

/// The Durable Object namespace of the profile store; it holds one object, [`PROFILE_OBJECT_NAME`].
pub const PROFILES_BINDING: &str = "PROFILES";

/// The name of the one profile object: every route reads the same profile.
pub const PROFILE_OBJECT_NAME: &str = "default";

/// The secret Hermes presents (as `Authorization: Bearer`) to `/mcp` and the tool route.
pub const TOOL_TOKEN_SECRET: &str = "MNOTE_TOOL_TOKEN";

/// How long a frozen context stays valid when `MNOTE_CONTEXT_TTL_SECONDS` is unset: an hour, longer than
/// any Hermes run.
pub const DEFAULT_CONTEXT_TTL_SECONDS: u64 = 60 * 60;

/// Largest request body accepted, in bytes (5 MiB).
pub const MAX_BODY_BYTES: usize = 5 * 1024 * 1024;

/// Workspace of documents created without one (local-first single-user default).
pub const DEFAULT_WORKSPACE_ID: &str = "ws_local";

/// Settings taken from `wrangler.toml` vars and `.dev.vars`.
#[derive(Debug, Clone)]
pub struct Config {
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Base URL of the Hermes Agent API server; `None` leaves the Hermes routes unconfigured (SPEC §10).
    pub hermes_upstream_url: Option<String>,
    /// How long a frozen context (from `mnote.doc.fetch` or a page-AI command) stays valid.
    pub context_ttl_seconds: u64,
    /// The profile a fresh profile store starts from: `MNOTE_DEFAULT_PROFILE` (JSON), else review mode.
    pub default_profile: Profile,
}

impl Config {
    /// Reads the configuration. Missing or empty vars fall back to defaults; nothing here can fail. A var
    /// that is set but unreadable is logged and replaced by its default.
    pub fn from_env(env: &Env) -> Self {
        Config {
            max_body_bytes: MAX_BODY_BYTES,
            hermes_upstream_url: non_empty_var(env, "HERMES_UPSTREAM_URL"),
            context_ttl_seconds: non_empty_var(env, "MNOTE_CONTEXT_TTL_SECONDS")
                .map(|v| {
                    v.parse::<u64>().ok().filter(|&n| n > 0).unwrap_or_else(|| {
                        worker::console_error!(
                            "MNOTE_CONTEXT_TTL_SECONDS={v:?} is not a positive number; using the default"
                        );
                        DEFAULT_CONTEXT_TTL_SECONDS
                    })
                })
                .unwrap_or(DEFAULT_CONTEXT_TTL_SECONDS),
            default_profile: non_empty_var(env, "MNOTE_DEFAULT_PROFILE")
                .map(|json| {
                    pageai_core::wire::from_json::<Profile>(&json).unwrap_or_else(|e| {
                        worker::console_error!(
                            "MNOTE_DEFAULT_PROFILE is not a profile ({}); using review mode",
                            e.message()
                        );
                        Profile::default()
                    })
                })
                .unwrap_or_default(),
        }
    }
}

fn non_empty_var(env: &Env, name: &str) -> Option<String> {
    let value = env.var(name).ok()?.to_string();
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_string())
}
