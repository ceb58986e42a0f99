//! The router on arbitrary prompts (any bytes, decoded lossily as a browser would send them). Never a panic;
//! a direct recommendation always names a call that was dry-run; the answer always serializes.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use pageai_core::profile::Profile;
use pageai_core::route::{RouteInput, route};

fuzz_target!(|data: &[u8]| {
    let prompt = String::from_utf8_lossy(data);
    let page = common::page();
    let context = common::frozen(&page);
    let selection: Vec<String> = match data.first() {
        Some(b) if b % 3 == 0 => vec!["p_1".into()],
        Some(b) if b % 3 == 1 => vec!["p_2".into(), "l_1".into()],
        _ => Vec::new(),
    };
    let profile = Profile::default();
    let input = RouteInput {
        page: &page,
        context: &context,
        selection: &selection,
        profile: &profile,
        grants: None,
        idempotency_key: "idem_fuzz",
    };
    let decision = route(&prompt, &input);
    if !decision.requires_hermes_run {
        assert!(decision.recommended_tool_call.is_some(), "a direct route recommends a call");
    }
    serde_json::to_string(&decision).unwrap_or_else(|e| panic!("the route serializes: {e}"));
});
