//! Scrubbing the Worker's secrets out of relayed events.
//!
//! Hermes holds both `HERMES_API_KEY` (its own API key) and `MNOTE_TOOL_TOKEN` (what it presents to
//! `/mcp`), and a model or tool can echo either into its output. [`Redactor::scrub`] replaces each
//! secret in every string and object key of an event, at any depth; JSON escapes are already decoded by
//! then, so `\u0068k-…` is caught like `hk-…`.
//!
//! `message.delta` text is a stream cut at arbitrary points, so a secret can arrive split over two or
//! more deltas. [`Redactor::stream`] therefore holds back the tail of each delta that could be the start
//! of a secret, and puts it in front of the next delta; [`Redactor::release`] hands back what is still
//! held when the run ends. The text a client joins from the deltas is exactly the upstream text with
//! each secret replaced; only where it is cut between deltas moves.

use serde_json::{Map, Value};

use crate::config::Secret;

/// What a secret becomes (the same mark as in the proxy's JSON errors).
pub const MARK: &str = "[redacted]";

/// Replaces the Worker's secrets in events, including across the pieces of a streamed text.
#[derive(Debug, Default)]
pub struct Redactor {
    secrets: Vec<Secret>,
    held: String,
}

impl Redactor {
    /// A redactor for these secrets (empty ones are ignored).
    pub fn new(secrets: Vec<Secret>) -> Self {
        let secrets = secrets.into_iter().filter(|s| !s.expose().is_empty()).collect();
        Redactor { secrets, held: String::new() }
    }

    /// Replaces every secret in every string and object key of `value`, at any depth.
    pub fn scrub(&self, value: &mut Value) {
        if self.secrets.is_empty() {
            return;
        }
        match value {
            Value::String(text) => self.scrub_text(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.scrub(item)),
            Value::Object(map) => self.scrub_map(map),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// [`Redactor::scrub`] for an event's top-level object.
    pub fn scrub_map(&self, map: &mut Map<String, Value>) {
        if self.secrets.is_empty() {
            return;
        }
        let tainted: Vec<String> = map.keys().filter(|k| self.contains_secret(k)).cloned().collect();
        for key in tainted {
            if let Some(value) = map.remove(&key) {
                let mut clean = key;
                self.scrub_text(&mut clean);
                map.insert(clean, value);
            }
        }
        map.values_mut().for_each(|value| self.scrub(value));
    }

    /// The next piece of a streamed text: what was held back before plus `delta`, scrubbed, minus a
    /// new tail that could begin a secret (held for the next piece).
    pub fn stream(&mut self, delta: &str) -> String {
        let mut text = std::mem::take(&mut self.held);
        text.push_str(delta);
        self.scrub_text(&mut text);
        let keep = self.secret_prefix_len(&text);
        self.held = text.split_off(text.len() - keep);
        text
    }

    /// The held tail of a streamed text, when the run ends before the next piece.
    pub fn release(&mut self) -> Option<String> {
        (!self.held.is_empty()).then(|| std::mem::take(&mut self.held))
    }

    fn scrub_text(&self, text: &mut String) {
        for secret in &self.secrets {
            if text.contains(secret.expose()) {
                *text = text.replace(secret.expose(), MARK);
            }
        }
    }

    fn contains_secret(&self, text: &str) -> bool {
        self.secrets.iter().any(|s| text.contains(s.expose()))
    }

    /// The length of the longest tail of `text` that is a proper start of some secret.
    fn secret_prefix_len(&self, text: &str) -> usize {
        let mut longest = 0;
        for secret in &self.secrets {
            let secret = secret.expose();
            // Longest first; a cut inside a multi-byte character is no prefix (`get` answers None).
            let found = (1..secret.len())
                .rev()
                .take_while(|&n| n > longest)
                .find(|&n| secret.get(..n).is_some_and(|start| text.ends_with(start)));
            longest = longest.max(found.unwrap_or(0));
        }
        longest
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
mod tests {
    use serde_json::json;

    use super::*;

    const KEY: &str = "hk-0123456789abcdef";

    fn redactor() -> Redactor {
        Redactor::new(vec![Secret::new(KEY), Secret::new("tool-token-secret"), Secret::new("")])
    }

    #[test]
    fn every_string_and_key_at_any_depth() {
        let mut value = json!({
            "preview": format!("curl -H 'Bearer {KEY}'"),
            "nested": [{ KEY: [KEY, 1, null, { "deep": format!("{KEY}{KEY}") }] }],
            "other": "tool-token-secret",
            "n": 7,
        });
        redactor().scrub(&mut value);
        assert_eq!(
            value,
            json!({
                "preview": "curl -H 'Bearer [redacted]'",
                "nested": [{ "[redacted]": ["[redacted]", 1, null, { "deep": "[redacted][redacted]" }] }],
                "other": "[redacted]",
                "n": 7,
            })
        );
    }

    #[test]
    fn a_key_split_over_deltas_never_leaves_whole_or_in_part() {
        for cut in 1..KEY.len() {
            let mut redactor = redactor();
            let upstream = [format!("see {}", &KEY[..cut]), format!("{} now", &KEY[cut..])];
            let out: Vec<String> = upstream.iter().map(|d| redactor.stream(d)).collect();
            assert_eq!(out, ["see ", "[redacted] now"], "cut at {cut}");
            assert_eq!(redactor.release(), None);
        }
    }

    #[test]
    fn a_held_tail_that_is_not_a_key_comes_back_in_order() {
        let mut redactor = redactor();
        assert_eq!(redactor.stream("which"), "whic");
        assert_eq!(redactor.stream(" hk-01 is not it."), "h hk-01 is not it.");
        assert_eq!(redactor.stream("end hk-0"), "end ");
        assert_eq!(redactor.release().as_deref(), Some("hk-0"));
        assert_eq!(redactor.release(), None);
        assert_eq!(redactor.stream("plain"), "plain");
    }

    #[test]
    fn no_secrets_means_no_change_and_no_holding() {
        let mut redactor = Redactor::new(Vec::new());
        let mut value = json!({ "a": "hk-0123456789abcdef" });
        redactor.scrub(&mut value);
        assert_eq!(value["a"], KEY);
        assert_eq!(redactor.stream("h"), "h");
    }

    #[test]
    fn multi_byte_secrets_hold_only_at_character_boundaries() {
        let mut redactor = Redactor::new(vec![Secret::new("密钥-0123456789")]);
        assert_eq!(redactor.stream("看 密"), "看 ");
        assert_eq!(redactor.stream("钥-0123456789!"), "[redacted]!");
    }
}
