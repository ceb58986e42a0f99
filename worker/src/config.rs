//! What the Worker reads from its environment, in one place.
//!
//! Binding names and limits live here so routes never spell a binding name or a magic number. Secrets
//! (`HERMES_API_KEY`, `MNOTE_TOOL_TOKEN`, `MNOTE_SESSION_SECRET`) are deliberately not held in [`Config`]:
//! the code that needs one reads it at the point of use, so it cannot leak through a `Debug` print.

use worker::Env;

/// The Durable Object namespace that holds one object per document.
pub const DOCUMENTS_BINDING: &str = "DOCUMENTS";

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
}

impl Config {
    /// Reads the configuration. Missing or empty vars fall back to defaults; nothing here can fail.
    pub fn from_env(env: &Env) -> Self {
        Config { max_body_bytes: MAX_BODY_BYTES, hermes_upstream_url: non_empty_var(env, "HERMES_UPSTREAM_URL") }
    }
}

fn non_empty_var(env: &Env, name: &str) -> Option<String> {
    let value = env.var(name).ok()?.to_string();
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_string())
}
