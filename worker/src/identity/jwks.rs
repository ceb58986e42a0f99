//! The key set of a JWKS URL (`MNOTE_JWT_JWKS_URL`), cached in the isolate.
//!
//! The set is fetched on first use and again when a token names a `kid` the cached set lacks (the
//! provider rotated its keys), but never more often than once per `MNOTE_JWT_JWKS_MIN_REFRESH_SECONDS`
//! (default [`DEFAULT_MIN_REFRESH_SECONDS`]): a stream of tokens with made-up `kid`s cannot make the Worker
//! hammer the provider. [`may_refresh`] is that rule, a pure function.

use std::cell::RefCell;

use jsonwebtoken::jwk::JwkSet;
use pageai_core::Error;

use crate::error::OrInternal;

/// The shortest wait between two fetches of the key set, unless configured.
pub const DEFAULT_MIN_REFRESH_SECONDS: u64 = 60;

/// The key set a JWKS URL answered, and when.
#[derive(Debug, Clone)]
struct Cached {
    url: String,
    keys: JwkSet,
    fetched_at: u64,
}

thread_local! {
    static CACHE: RefCell<Option<Cached>> = const { RefCell::new(None) };
    static LAST_FETCH: RefCell<Option<(String, u64)>> = const { RefCell::new(None) };
}

/// Whether the set may be fetched again at `now`, when it was last fetched (or tried) at `last`.
pub fn may_refresh(last: Option<u64>, now: u64, min_refresh_seconds: u64) -> bool {
    last.is_none_or(|last| now.saturating_sub(last) >= min_refresh_seconds)
}

/// The key set to check a token naming `kid` against: the cached one when it has the key (or no fetch is
/// allowed yet), else a fresh one.
pub async fn keys_for(
    url: &str,
    kid: Option<&str>,
    now: u64,
    min_refresh_seconds: u64,
    trace_id: &str,
) -> Result<JwkSet, Error> {
    let cached = CACHE.with(|c| c.borrow().clone()).filter(|c| c.url == url);
    let has_key = cached.as_ref().is_some_and(|c| super::jwt::pick(&c.keys, kid).is_some());
    let last = LAST_FETCH.with(|l| l.borrow().clone()).filter(|(u, _)| u == url).map(|(_, at)| at);
    if has_key || !may_refresh(last, now, min_refresh_seconds) {
        return Ok(cached.map(|c| c.keys).unwrap_or(JwkSet { keys: Vec::new() }));
    }
    LAST_FETCH.with(|l| *l.borrow_mut() = Some((url.to_string(), now)));
    match fetch(url, trace_id).await {
        Ok(keys) => {
            CACHE.with(|c| *c.borrow_mut() = Some(Cached { url: url.into(), keys: keys.clone(), fetched_at: now }));
            Ok(keys)
        }
        Err(error) => {
            worker::console_error!("[{trace_id}] JWKS fetch from {url} failed: {error}");
            Ok(cached.map(|c| c.keys).unwrap_or(JwkSet { keys: Vec::new() }))
        }
    }
}

/// When the cached set was fetched, if one is cached (for tests and logs).
pub fn cached_at(url: &str) -> Option<u64> {
    CACHE.with(|c| c.borrow().as_ref().filter(|c| c.url == url).map(|c| c.fetched_at))
}

async fn fetch(url: &str, trace_id: &str) -> Result<JwkSet, Error> {
    let parsed = worker::Url::parse(url).or_internal("parse MNOTE_JWT_JWKS_URL", trace_id)?;
    let mut response = worker::Fetch::Url(parsed).send().await.or_internal("fetch the JWKS", trace_id)?;
    if response.status_code() != 200 {
        return Err(crate::error::internal("fetch the JWKS", format!("status {}", response.status_code()), trace_id));
    }
    let text = response.text().await.or_internal("read the JWKS", trace_id)?;
    serde_json::from_str(&text).or_internal("decode the JWKS", trace_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_set_is_fetched_first_then_at_most_once_per_floor() {
        assert!(may_refresh(None, 0, 60));
        assert!(!may_refresh(Some(100), 100, 60));
        assert!(!may_refresh(Some(100), 159, 60));
        assert!(may_refresh(Some(100), 160, 60));
        assert!(may_refresh(Some(100), 100, 0), "a floor of 0 allows a fetch per unknown kid");
        assert!(!may_refresh(Some(100), 50, 60), "a clock that went back waits");
    }
}
