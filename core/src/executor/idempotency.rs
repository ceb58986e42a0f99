//! Idempotency with Stripe's semantics, behind a small storage trait.
//!
//! An applied write is recorded under `(documentId, idempotencyKey)` with a fingerprint of its arguments and
//! the exact JSON it answered. The same key with the same arguments replays that JSON byte for byte and
//! writes nothing; the same key with other arguments is `mnote_idempotency_conflict`. Dry-runs write
//! nothing, so they are not recorded: previewing with a key and then applying with it is the normal flow.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_64;

/// What is kept for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyRecord {
    /// Hash of the tool name and canonical arguments.
    pub fingerprint: String,
    /// The answer, byte for byte.
    pub response: String,
}

/// Where records live: memory in the browser and tests, SQLite in the Worker's Durable Object.
pub trait IdempotencyStore {
    /// The record for `key` in `document_id`, if any.
    fn lookup(&self, document_id: &str, key: &str) -> Option<IdempotencyRecord>;
    /// Stores a record. Called only after the write it answers was applied.
    fn record(&mut self, document_id: &str, key: &str, record: IdempotencyRecord);
}

/// An in-memory store.
#[derive(Debug, Clone, Default)]
pub struct MemoryIdempotencyStore {
    records: BTreeMap<(String, String), IdempotencyRecord>,
}

impl MemoryIdempotencyStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many records it holds.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

impl IdempotencyStore for MemoryIdempotencyStore {
    fn lookup(&self, document_id: &str, key: &str) -> Option<IdempotencyRecord> {
        self.records.get(&(document_id.into(), key.into())).cloned()
    }

    fn record(&mut self, document_id: &str, key: &str, record: IdempotencyRecord) {
        self.records.insert((document_id.into(), key.into()), record);
    }
}

/// The fingerprint of a call: tool name and arguments, canonicalized (object keys sorted).
pub fn fingerprint(tool_name: &str, args: &Value) -> String {
    let mut bytes = String::with_capacity(tool_name.len() + 256);
    bytes.push_str(tool_name);
    bytes.push('\n');
    canonical(args, &mut bytes);
    format!("{:016x}", xxh3_64(bytes.as_bytes()))
}

/// [`fingerprint`] of `args` with their top-level `dryRun` set to `dry_run` (where they have one), or left
/// out when `None`: the apply's and the proposal's fingerprints of one call, taken without copying it.
pub fn fingerprint_sent(tool_name: &str, args: &Value, dry_run: Option<bool>) -> String {
    let Value::Object(map) = args else { return fingerprint(tool_name, args) };
    let mut bytes = String::with_capacity(tool_name.len() + 256);
    bytes.push_str(tool_name);
    bytes.push('\n');
    let forced = dry_run.map(Value::Bool);
    let entries: alloc::vec::Vec<(&String, &Value)> = map
        .iter()
        .filter_map(|(key, value)| match (key.as_str(), &forced) {
            ("dryRun", None) => None,
            ("dryRun", Some(forced)) => Some((key, forced)),
            _ => Some((key, value)),
        })
        .collect();
    object(entries, &mut bytes);
    format!("{:016x}", xxh3_64(bytes.as_bytes()))
}

/// JSON with object keys sorted at every level, whatever order the map keeps (serde_json's
/// `preserve_order` feature may be on elsewhere in a build).
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            object(map.iter().collect(), out);
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        // serde_json's compact text, as `Display` writes it; through `to_string` the browser package carries
        // one writer of a value, where `Display` brings its pretty one too.
        scalar => out.push_str(&serde_json::to_string(scalar).unwrap_or_default()),
    }
}

/// `entries` in the order of their keys, by insertion: a map's keys are unique, so any sort gives the one
/// order. serde_json's map (a `BTreeMap` without `preserve_order`, which no crate of the workspace turns on)
/// hands them over sorted already, which insertion checks in one pass; the browser package then carries no
/// quicksort for these pairs (issue 29: about 3 KB before `wasm-opt`). Insertion stays correct, if
/// quadratic, for a map that keeps its insertion order.
fn sort_by_key(entries: &mut [(&String, &Value)]) {
    for next in 1..entries.len() {
        // Moved back past every key above it: sorted input costs one comparison per entry.
        let mut at = next;
        while at > 0 && matches!((entries.get(at - 1), entries.get(at)), (Some(a), Some(b)) if a.0 > b.0) {
            entries.swap(at - 1, at);
            at -= 1;
        }
    }
}

/// An object's entries, canonically: sorted by key, then written.
fn object(mut entries: alloc::vec::Vec<(&String, &Value)>, out: &mut String) {
    sort_by_key(&mut entries);
    out.push('{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key.as_str()).unwrap_or_default());
        out.push(':');
        canonical(value, out);
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_in_any_order_come_out_sorted_by_key() {
        let keys: alloc::vec::Vec<String> = ["b", "dryRun", "a", "ab", "B"].into_iter().map(String::from).collect();
        let value = Value::Null;
        let mut entries: alloc::vec::Vec<(&String, &Value)> = keys.iter().map(|k| (k, &value)).collect();
        sort_by_key(&mut entries);
        let sorted: alloc::vec::Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(sorted, ["B", "a", "ab", "b", "dryRun"]);
    }

    #[test]
    fn fingerprints_ignore_the_order_keys_were_written_in() {
        let one: Value =
            serde_json::from_str(r#"{"b":1,"a":{"y":[1,{"q":2,"p":3}],"x":null},"dryRun":true}"#).unwrap_or_default();
        let two: Value =
            serde_json::from_str(r#"{"a":{"x":null,"y":[1,{"p":3,"q":2}]},"dryRun":true,"b":1}"#).unwrap_or_default();
        assert_ne!(one, Value::Null);
        assert_eq!(fingerprint("t", &one), fingerprint("t", &two));
        assert_eq!(fingerprint_sent("t", &one, Some(false)), fingerprint_sent("t", &two, Some(false)));
        assert_ne!(fingerprint_sent("t", &one, Some(false)), fingerprint_sent("t", &one, None));
    }
}
