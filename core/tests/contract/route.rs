//! The command router's answer, `mnote.page_ai_command_route.v1`: `page_ai_command_route.*.json` under
//! `tests/fixtures/wire/v1/`.
//!
//! Input `{page, profile, prompt, scope, selection, contextId, idempotencyKey}`. The route is made over a
//! context frozen from `scope` under `contextId`, as the Worker's command route freezes one (the text
//! view), with `selection` as the user's selection; the recommendation carries `idempotencyKey`. The
//! output is the route. One case of each kind of answer: a direct write, one held for review, one the
//! router is unsure of (a literal matched ignoring case), and the refusals a model is told about (a
//! missing, an ambiguous, a locked target; an open request).

use pageai_core::context::{ContextRequest, Format, Scope};
use pageai_core::executor::FrozenContext;
use pageai_core::json::from_value;
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::route::{RouteInput, route};
use serde_json::{Value, json};

use crate::support::{self, Case, Layout, pretty};

const OWNED: [&str; 1] = ["page_ai_command_route."];

fn run_route(input: &Value) -> (&'static str, String) {
    let page: Page = from_value(input["page"].clone()).unwrap();
    page.validate().unwrap();
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let scope: Scope = from_value(input["scope"].clone()).unwrap();
    let selection: Vec<String> = from_value(input["selection"].clone()).unwrap();
    let request = ContextRequest::new(scope).with_formats(&[Format::Text]);
    let (_, frozen) = FrozenContext::freeze(&page, &request, input["contextId"].as_str().unwrap()).unwrap();
    let routed = RouteInput {
        page: &page,
        context: &frozen,
        selection: &selection,
        profile: &profile,
        grants: None,
        idempotency_key: input["idempotencyKey"].as_str().unwrap(),
    };
    ("output", pretty(&route(input["prompt"].as_str().unwrap(), &routed)))
}

fn all_cases() -> Vec<Case> {
    let full = json!({"type": "full"});
    let case = |prompt: &str, mode: &str, scope: &Value, selection: Value| {
        json!({
            "page": support::weekly_page(),
            "profile": {"reviewMode": mode},
            "prompt": prompt,
            "scope": scope,
            "selection": selection,
            "contextId": "ctx_golden",
            "idempotencyKey": "idem_golden",
        })
    };
    let selected = json!({"type": "selection", "blockIds": ["p_2"]});
    [
        ("direct_replace", case("把「第一版」替换为「第二版」", "yolo", &full, json!([]))),
        ("held_for_review", case("replace \"not final\" with \"stable\"", "review", &full, json!([]))),
        ("case_folded", case("replace \"RISKS\" with \"Open risks\"", "yolo", &full, json!([]))),
        ("in_selection", case("删除选中的段落", "yolo", &selected, json!(["p_2"]))),
        ("not_on_page", case("把「火星」替换为「地球」", "yolo", &full, json!([]))),
        ("ambiguous", case("replace \"API\" with \"SDK\"", "yolo", &full, json!([]))),
        ("locked", case("把「Signed off」替换为「Approved」", "yolo", &full, json!([]))),
        ("open_request", case("把这段整理得更专业，并保留原意", "yolo", &full, json!([]))),
    ]
    .into_iter()
    .map(|(name, input)| Case::new(format!("page_ai_command_route.{name}.json"), input, run_route))
    .collect()
}

#[test]
fn fixtures_match() {
    support::check("v1", &all_cases(), Layout::Ordered);
}

#[test]
fn every_fixture_file_is_exercised() {
    support::exercised("v1", &OWNED, &all_cases());
}

#[test]
fn the_fixtures_show_each_kind_of_answer() {
    let route = |name: &str| support::read("v1", &format!("page_ai_command_route.{name}.json"))["output"].clone();
    let direct = |name: &str| !route(name)["requiresHermesRun"].as_bool().unwrap();
    assert!(direct("direct_replace") && !route("direct_replace")["requiresReview"].as_bool().unwrap());
    assert!(direct("held_for_review") && route("held_for_review")["requiresReview"].as_bool().unwrap());
    assert!(direct("case_folded") && route("case_folded")["requiresReview"].as_bool().unwrap());
    assert!(direct("in_selection"));
    for refused in ["not_on_page", "ambiguous", "locked", "open_request"] {
        assert!(!direct(refused), "{refused} goes to Hermes");
        assert!(route(refused)["reasonCode"].is_string(), "{refused} says why");
    }
}
