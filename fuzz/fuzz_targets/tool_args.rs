//! Tool calls with arbitrary arguments, through the one executor every tool call goes through. The first
//! byte picks the tool, the rest is the arguments' JSON. Never a panic; a dry-run never changes the page;
//! a failed call changes nothing.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{Call, Env, NoContexts, Origin, execute};
use pageai_core::manifest::Tool;
use pageai_core::profile::Profile;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let tool = Tool::ALL[usize::from(pick) % Tool::ALL.len()];
    // Text that is not JSON is still a call: its error must be coded, not a panic.
    let args: Value = match std::str::from_utf8(rest) {
        Ok(text) => match pageai_core::json::from_json::<Value>(text) {
            Ok(value) => value,
            Err(_) => Value::String(text.to_string()),
        },
        Err(_) => Value::Null,
    };
    let mut page = common::page();
    let before = page.clone();
    let profile = Profile::default();
    let mut store = MemoryIdempotencyStore::new();
    let mut next = 0u32;
    let mut mint = || {
        next += 1;
        format!("b_fuzz{next}")
    };
    let call = Call {
        tool_name: tool.spec().name,
        args: &args,
        origin: Origin::Hermes,
        actor: "fuzz",
        at: "2026-11-30T00:00:00Z",
        tool_call_id: "call_fuzz",
        new_context_id: "ctx_fuzz",
    };
    let mut env = Env {
        profile: &profile,
        grants: None,
        role: pageai_core::policy::Role::Owner,
        contexts: &NoContexts,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    let outcome = execute(&mut page, &call, &mut env);
    let dry_run = args.get("dryRun").and_then(Value::as_bool) != Some(false);
    if outcome.is_err() || dry_run {
        assert_eq!(page, before, "a failed call or a dry-run changed the page");
    }
    if outcome.is_ok() {
        page.validate().unwrap_or_else(|e| panic!("a successful write left an invalid page: {e}"));
    }
});
