//! What the Worker reads from its environment, in one place.
//!
//! Binding names and limits live here so routes never spell a binding name or a magic number. Secrets
//! (`HERMES_API_KEY`, `MNOTE_CLIENT_TOKEN`, `MNOTE_SESSION_SECRET`, `MNOTE_TOOL_TOKEN`) are deliberately
//! not held in [`Config`]: the code that needs one reads it with [`secret`] at the point of use, as a
//! [`Secret`] whose `Debug` prints nothing, so it cannot leak through a log line.
//!
//! A secret that still has a placeholder value (`replace-with-…`, as in `.dev.vars.example`) is public
//! knowledge: it is never used, as if unset, so every route it guards refuses. One shorter than
//! [`MIN_SECRET_LEN`] is guessable: it is used in local development ([`Config::dev_auto_login`]) only.
//! Either way the Worker says so loudly in its log, once per isolate and secret, naming the secret, never
//! its value.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt;

use pageai_core::live;
use pageai_core::profile::Profile;
use serde::{Deserialize, Serialize};
use worker::Env;

/// The Durable Object namespace that holds one object per document.
pub const DOCUMENTS_BINDING: &str = "DOCUMENTS";

/// The Durable Object namespace of the profile store: one object per workspace.
pub const PROFILES_BINDING: &str = "PROFILES";

/// The name of the implicit workspace's profile object (the one object of the time before profiles were per
/// workspace; see [`crate::durable::profile::client::object_name`]).
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

/// The Durable Object namespace of the sign-in guards: one object per client (failed sign-ins) and per
/// signed-out session (its revocation), see `durable::guard`.
pub const GUARDS_BINDING: &str = "GUARDS";

/// A secret shorter than this is guessable; Hermes asks the same of its `API_SERVER_KEY`.
pub const MIN_SECRET_LEN: usize = 16;

/// How the placeholders of `.dev.vars.example` start.
pub const PLACEHOLDER_PREFIX: &str = "replace-with-";

/// Secret names.
pub mod secrets {
    /// The Bearer token the Worker presents to Hermes.
    pub const HERMES_API_KEY: &str = "HERMES_API_KEY";
    /// The token a browser (or script) presents to sign in, or as `Authorization: Bearer`.
    pub const MNOTE_CLIENT_TOKEN: &str = "MNOTE_CLIENT_TOKEN";
    /// The HMAC key that signs session cookies.
    pub const MNOTE_SESSION_SECRET: &str = "MNOTE_SESSION_SECRET";
    /// The token Hermes presents to `/mcp` and the tool route.
    pub const MNOTE_TOOL_TOKEN: &str = super::TOOL_TOKEN_SECRET;
    /// Every secret, for the start-up check of [`super::warn_weak_secrets`].
    pub const ALL: [&str; 4] = [HERMES_API_KEY, MNOTE_CLIENT_TOKEN, MNOTE_SESSION_SECRET, MNOTE_TOOL_TOKEN];
}

const DEFAULT_HERMES_TIMEOUT_MS: u64 = 15_000;
/// Hermes sends `: keepalive` every 30 s, so three missed keepalives mean the stream is dead.
const DEFAULT_STREAM_IDLE_MS: u64 = 90_000;
const DEFAULT_CONTEXT_MAX_CHARS: usize = 24_000;
const DEFAULT_SESSION_TTL_SECONDS: u64 = 12 * 60 * 60;
const DEFAULT_SIGN_IN_FREE_FAILURES: u64 = 10;
const DEFAULT_SIGN_IN_LOCK_SECONDS: u64 = 1;
const DEFAULT_SIGN_IN_MAX_LOCK_SECONDS: u64 = 15 * 60;
/// A client with no failed sign-in for this long starts again from zero (unless the longest lock is longer).
const SIGN_IN_FORGET_SECONDS: u64 = 60 * 60;

/// How failed sign-ins slow a client down (`durable::guard` applies it): the first `free_failures` cost
/// nothing; each one after them locks the client for `lock_seconds`, doubling per failure up to
/// `max_lock_seconds`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInLimits {
    /// Failures before the first lock (`MNOTE_SIGN_IN_FREE_FAILURES`, default 10).
    pub free_failures: u32,
    /// The first lock (`MNOTE_SIGN_IN_LOCK_SECONDS`, default 1).
    pub lock_seconds: u64,
    /// The longest lock (`MNOTE_SIGN_IN_MAX_LOCK_SECONDS`, default 900).
    pub max_lock_seconds: u64,
}

impl SignInLimits {
    /// How long a client's failures are remembered after the last one.
    pub fn forget_seconds(&self) -> u64 {
        SIGN_IN_FORGET_SECONDS.max(self.max_lock_seconds.saturating_mul(2))
    }
}

/// Settings taken from `wrangler.toml` vars and `.dev.vars`.
#[derive(Debug, Clone)]
pub struct Config {
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Base URL of the Hermes Agent API server; `None` leaves the Hermes routes unconfigured (SPEC §10).
    pub hermes_upstream_url: Option<String>,
    /// How long one upstream call may take until its answer (for the event stream: until its headers).
    pub hermes_timeout_ms: u64,
    /// How long an event stream may stay silent (not even a keepalive) before it counts as dropped.
    pub hermes_stream_idle_ms: u64,
    /// The origins the Worker itself is served at (`MNOTE_PUBLIC_ORIGIN`, comma-separated; `make dev` sets
    /// the URL it serves). Never taken from the request's `Host`: a DNS-rebound page sends its own.
    pub public_origins: Vec<String>,
    /// Other origins allowed to send state-changing requests (`MNOTE_ALLOWED_ORIGINS`).
    pub allowed_origins: Vec<String>,
    /// The profile used until the profile route exists: `MNOTE_DEFAULT_PROFILE` (JSON), else review mode.
    pub default_profile: Profile,
    /// How long a run's frozen context stays valid.
    pub context_ttl_seconds: u64,
    /// The character budget of the page view injected into a Hermes run.
    pub context_max_chars: usize,
    /// How long a signed-in session cookie is valid.
    pub session_ttl_seconds: u64,
    /// Local development only: `POST /api/auth/dev-login` signs in a same-origin page without a token.
    pub dev_auto_login: bool,
    /// The backoff of failed sign-ins.
    pub sign_in: SignInLimits,
    /// Signed sign-in tokens, when configured (`MNOTE_JWT_*`).
    pub jwt: Option<JwtConfig>,
    /// Sockets one document's live channel accepts at once (`MNOTE_LIVE_MAX_SOCKETS`, at most core's
    /// [`pageai_core::live::MAX_SOCKETS`]).
    pub live_max_sockets: u32,
}

/// Where signed sign-in tokens' keys come from, and what the tokens must say (`identity::jwt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtConfig {
    /// `MNOTE_JWT_ISSUER`: the `iss` every token must carry.
    pub issuer: String,
    /// `MNOTE_JWT_AUDIENCE`: the `aud` every token must carry.
    pub audience: String,
    /// The keys.
    pub keys: JwtKeys,
    /// `MNOTE_JWT_JWKS_MIN_REFRESH_SECONDS`: the shortest wait between two fetches of a JWKS URL.
    pub min_refresh_seconds: u64,
}

/// A fixed key set or a URL to fetch one from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwtKeys {
    /// `MNOTE_JWT_KEYS`: a JWK set, as JSON (`{"keys": [...]}`).
    Fixed(String),
    /// `MNOTE_JWT_JWKS_URL`: fetched, cached, refreshed on an unknown `kid`.
    Url(String),
}

impl Config {
    /// Reads the configuration. Missing or empty vars fall back to defaults; nothing here can fail. A var
    /// that is set but unreadable is logged and replaced by its default.
    pub fn from_env(env: &Env) -> Self {
        Config {
            max_body_bytes: MAX_BODY_BYTES,
            hermes_upstream_url: non_empty_var(env, "HERMES_UPSTREAM_URL"),
            hermes_timeout_ms: number_var(env, "HERMES_TIMEOUT_MS", DEFAULT_HERMES_TIMEOUT_MS),
            hermes_stream_idle_ms: number_var(env, "HERMES_STREAM_IDLE_MS", DEFAULT_STREAM_IDLE_MS),
            public_origins: non_empty_var(env, "MNOTE_PUBLIC_ORIGIN").map(|v| parse_origins(&v)).unwrap_or_default(),
            allowed_origins: non_empty_var(env, "MNOTE_ALLOWED_ORIGINS").map(|v| parse_origins(&v)).unwrap_or_default(),
            default_profile: non_empty_var(env, "MNOTE_DEFAULT_PROFILE")
                .map(|json| {
                    parse_profile(&json).unwrap_or_else(|e| {
                        worker::console_error!("MNOTE_DEFAULT_PROFILE is not a valid profile ({e}); using review mode");
                        Profile::default()
                    })
                })
                .unwrap_or_default(),
            context_ttl_seconds: number_var(env, "MNOTE_CONTEXT_TTL_SECONDS", DEFAULT_CONTEXT_TTL_SECONDS),
            context_max_chars: number_var(env, "MNOTE_CONTEXT_MAX_CHARS", DEFAULT_CONTEXT_MAX_CHARS as u64)
                .try_into()
                .unwrap_or(DEFAULT_CONTEXT_MAX_CHARS),
            session_ttl_seconds: number_var(env, "MNOTE_SESSION_TTL_SECONDS", DEFAULT_SESSION_TTL_SECONDS),
            dev_auto_login: dev_auto_login(env),
            sign_in: SignInLimits {
                free_failures: number_var(env, "MNOTE_SIGN_IN_FREE_FAILURES", DEFAULT_SIGN_IN_FREE_FAILURES)
                    .try_into()
                    .unwrap_or(u32::MAX),
                lock_seconds: number_var(env, "MNOTE_SIGN_IN_LOCK_SECONDS", DEFAULT_SIGN_IN_LOCK_SECONDS),
                max_lock_seconds: number_var(env, "MNOTE_SIGN_IN_MAX_LOCK_SECONDS", DEFAULT_SIGN_IN_MAX_LOCK_SECONDS),
            },
            jwt: jwt_config(env),
            live_max_sockets: number_var(env, "MNOTE_LIVE_MAX_SOCKETS", u64::from(live::MAX_SOCKETS))
                .clamp(1, u64::from(live::MAX_SOCKETS))
                .try_into()
                .unwrap_or(live::MAX_SOCKETS),
        }
    }
}

/// Signed tokens are on when an issuer, an audience and keys (a set or a URL) are all configured; a partial
/// setting is logged and leaves them off.
fn jwt_config(env: &Env) -> Option<JwtConfig> {
    let issuer = non_empty_var(env, "MNOTE_JWT_ISSUER");
    let audience = non_empty_var(env, "MNOTE_JWT_AUDIENCE");
    let keys = match (non_empty_var(env, "MNOTE_JWT_KEYS"), non_empty_var(env, "MNOTE_JWT_JWKS_URL")) {
        (Some(set), _) => Some(JwtKeys::Fixed(set)),
        (None, Some(url)) => Some(JwtKeys::Url(url)),
        (None, None) => None,
    };
    match (issuer, audience, keys) {
        (Some(issuer), Some(audience), Some(keys)) => Some(JwtConfig {
            issuer,
            audience,
            keys,
            min_refresh_seconds: number_var(
                env,
                "MNOTE_JWT_JWKS_MIN_REFRESH_SECONDS",
                crate::identity::jwks::DEFAULT_MIN_REFRESH_SECONDS,
            ),
        }),
        (None, None, None) => None,
        _ => {
            worker::console_error!(
                "signed sign-in tokens are off: set MNOTE_JWT_ISSUER, MNOTE_JWT_AUDIENCE and MNOTE_JWT_KEYS or MNOTE_JWT_JWKS_URL"
            );
            None
        }
    }
}

fn dev_auto_login(env: &Env) -> bool {
    non_empty_var(env, "MNOTE_DEV_AUTO_LOGIN").is_some_and(|v| v == "true")
}

/// A secret value. `Debug` and `Display` are deliberately absent or redacted: read it with
/// [`Secret::expose`] only where it is used.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value (tests and callers that already hold one).
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The value itself. Never log or return it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// The secret `name`, or `None` when it is unset or empty, or weak outside local development (see the
/// module docs).
pub fn secret(env: &Env, name: &str) -> Option<Secret> {
    let value = non_empty_var(env, name)?;
    let Some(weakness) = weakness(&value) else { return Some(Secret(value)) };
    let used = weakness == Weakness::TooShort && dev_auto_login(env);
    warn_once(name, weakness, used);
    used.then_some(Secret(value))
}

/// Why a secret's value must not be trusted, if it must not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weakness {
    /// It is still the placeholder of `.dev.vars.example`.
    Placeholder,
    /// It is shorter than [`MIN_SECRET_LEN`].
    TooShort,
}

/// Whether `value` is a placeholder or too short to be a secret.
pub fn weakness(value: &str) -> Option<Weakness> {
    if value.starts_with(PLACEHOLDER_PREFIX) {
        Some(Weakness::Placeholder)
    } else if value.chars().count() < MIN_SECRET_LEN {
        Some(Weakness::TooShort)
    } else {
        None
    }
}

/// Logs every weak secret now (once per isolate each), so the first request of a Worker says so even
/// before a route reads the secret.
pub fn warn_weak_secrets(env: &Env) {
    for name in secrets::ALL {
        let _ = secret(env, name);
    }
}

/// The log line for a weak secret: loud, with what to do, without the value. `used`: it is used anyway
/// (a short secret in local development).
pub fn weak_secret_message(name: &str, weakness: Weakness, used: bool) -> String {
    let why = match weakness {
        Weakness::Placeholder => "still has its placeholder value from .dev.vars.example".to_string(),
        Weakness::TooShort => format!("is shorter than {MIN_SECRET_LEN} characters"),
    };
    let consequence = match used {
        true => "it is used only because this is local development (MNOTE_DEV_AUTO_LOGIN=true); never deploy it",
        false => "it is IGNORED, as if unset, so what it guards refuses every caller, until you set a real one",
    };
    format!(
        "WARNING: secret {name} {why}; {consequence}. Set a long random value in worker/.dev.vars, or with \
         `wrangler secret put {name}` (e.g. from `openssl rand -hex 32`)."
    )
}

thread_local! {
    /// The secrets this isolate has warned about already.
    static WARNED: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
}

fn warn_once(name: &str, weakness: Weakness, used: bool) {
    let first = WARNED.with(|warned| warned.borrow_mut().insert(name.to_string()));
    if first {
        worker::console_error!("{}", weak_secret_message(name, weakness, used));
    }
}

/// `MNOTE_ALLOWED_ORIGINS`: comma-separated origins, without trailing slashes.
pub fn parse_origins(list: &str) -> Vec<String> {
    list.split(',').map(|o| o.trim().trim_end_matches('/').to_string()).filter(|o| !o.is_empty()).collect()
}

/// A profile from its JSON text.
pub fn parse_profile(json: &str) -> Result<Profile, pageai_core::Error> {
    pageai_core::wire::from_json(json)
}

fn non_empty_var(env: &Env, name: &str) -> Option<String> {
    let value = env.var(name).ok()?.to_string();
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_string())
}

fn number_var(env: &Env, name: &str, default: u64) -> u64 {
    match non_empty_var(env, name) {
        None => default,
        Some(text) => match text.parse::<u64>() {
            Ok(value) if value > 0 => value,
            _ => {
                worker::console_error!("{name}={text:?} is not a positive whole number; using {default}");
                default
            }
        },
    }
}

#[cfg(test)]
#[allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "a failed expectation is the test's report"
)]
mod tests {
    use super::*;
    use pageai_core::profile::ReviewMode;

    #[test]
    fn origins_are_trimmed_and_split() {
        assert_eq!(
            parse_origins(" https://a.example/, http://127.0.0.1:8787 ,,"),
            ["https://a.example", "http://127.0.0.1:8787"]
        );
        assert!(parse_origins("").is_empty());
    }

    #[test]
    fn profiles_parse_from_json() {
        let profile = parse_profile(r#"{"reviewMode":"yolo","tools":{"disabled":["mnote.page.save"]}}"#);
        let profile = profile.ok().unwrap_or_default();
        assert_eq!(profile.review_mode, ReviewMode::Yolo);
        assert!(profile.disables("mnote.page.save"));
        assert!(parse_profile(r#"{"reviewMode":"maybe"}"#).is_err());
        assert_eq!(Profile::default().review_mode, ReviewMode::Review);
    }

    #[test]
    fn placeholders_and_short_values_are_weak() {
        assert_eq!(weakness("replace-with-a-long-random-token"), Some(Weakness::Placeholder));
        assert_eq!(weakness("replace-with-"), Some(Weakness::Placeholder));
        assert_eq!(weakness("short"), Some(Weakness::TooShort));
        assert_eq!(weakness("fifteen-chars-x"), Some(Weakness::TooShort));
        assert_eq!(weakness("sixteen-chars-xx"), None);
        assert_eq!(weakness("e2e-client-token-0123456789abcdef"), None);
        let message = weak_secret_message("MNOTE_CLIENT_TOKEN", Weakness::Placeholder, false);
        assert!(message.contains("MNOTE_CLIENT_TOKEN") && message.contains("IGNORED"), "{message}");
        assert!(weak_secret_message("HERMES_API_KEY", Weakness::TooShort, true).contains("local development"));
    }

    #[test]
    fn failures_are_forgotten_after_an_hour_or_twice_the_longest_lock() {
        let limits = SignInLimits { free_failures: 10, lock_seconds: 1, max_lock_seconds: 900 };
        assert_eq!(limits.forget_seconds(), 3600);
        assert_eq!(SignInLimits { max_lock_seconds: 7200, ..limits }.forget_seconds(), 14_400);
    }

    #[test]
    fn secrets_do_not_print() {
        assert_eq!(format!("{:?}", Secret::new("hunter2-hunter2")), "Secret(…)");
    }
}
