//! The Worker's clock. Core has none (it must stay deterministic), so the Worker reads the time once per
//! request and passes it down: as milliseconds for expiries, and as RFC 3339 for audit entries, events and
//! review sessions.

/// One reading of the clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Now {
    /// Milliseconds since the Unix epoch.
    pub ms: i64,
    /// The same instant, RFC 3339 in UTC with milliseconds (`2026-11-30T08:00:00.000Z`).
    pub at: String,
}

impl Now {
    /// The runtime's clock (`Date.now()`; workerd advances it only across I/O, which is all we need).
    pub fn read() -> Self {
        let ms = js_sys::Date::now();
        let at = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms)).to_iso_string().into();
        // Date.now() is an integral number of milliseconds well inside i64.
        Now { ms: ms as i64, at }
    }

    /// A fixed reading, for tests.
    pub fn fixed(ms: i64, at: &str) -> Self {
        Now { ms, at: at.to_string() }
    }

    /// The instant `seconds` after this one, in milliseconds.
    pub fn plus_seconds_ms(&self, seconds: u64) -> i64 {
        let delta = i64::try_from(seconds.saturating_mul(1000)).unwrap_or(i64::MAX);
        self.ms.saturating_add(delta)
    }
}
