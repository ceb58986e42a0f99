//! A Hermes route: the prompt goes to a model, with the reason and a hint of where to start reading (the
//! enabled read tools, a first `mnote.doc.fetch` call, the write tool to propose with, candidate blocks).

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::{PAGE_AI_COMMAND_ROUTE_V1, RecommendedCallV1, RouteInput, RouteV1, ToolHintV1};
use crate::context::{Budget, Format, Scope};
use crate::json;
use crate::manifest::args::DocFetchArgs;
use crate::manifest::unavailable_reason;
use crate::policy;
use crate::vocab::{Intent, Origin, ReasonCode, Risk, Tool};

/// The character budget of the first fetch a Hermes run is pointed at.
const START_BUDGET_CHARS: usize = 12_000;

/// Pages longer than this are fetched as an outline first.
const OUTLINE_ABOVE_BLOCKS: usize = 200;

/// The route that hands the prompt to Hermes.
pub(super) fn hermes(
    input: &RouteInput<'_>,
    intent: Intent,
    code: ReasonCode,
    confidence: f64,
    reason: String,
    match_text: Option<String>,
    candidates: &[String],
) -> RouteV1 {
    let enabled = |t: Tool| unavailable_reason(t, input.profile, input.grants, input.page.permission).is_none();
    let read_tools: Vec<String> =
        Tool::ALL.iter().filter(|t| !t.writes() && enabled(**t)).map(|t| t.spec().name.to_string()).collect();
    let start_with = enabled(Tool::DocFetch).then(|| start_with(input, match_text.as_deref())).flatten();
    let write_tool = [Tool::DocPlanUpdate, Tool::DocApplyBlockOps]
        .into_iter()
        .find(|t| enabled(*t))
        .map(|t| t.spec().name.to_string());
    let candidate_block_ids = if candidates.is_empty() { input.selection.to_vec() } else { candidates.to_vec() };
    let risk = if intent == Intent::ReadOnlyQuestion { Risk::Low } else { Risk::Medium };
    RouteV1 {
        schema: PAGE_AI_COMMAND_ROUTE_V1.into(),
        intent,
        confidence,
        recommended_tool_call: None,
        risk,
        requires_hermes_run: true,
        // A question writes nothing; any other run's writes are held as the review rule holds a write of
        // the route's risk.
        requires_review: intent != Intent::ReadOnlyQuestion
            && policy::held(Tool::DocApplyBlockOps, Origin::Hermes, input.profile.review_mode, risk).is_some(),
        reason,
        reason_code: Some(code),
        tool_hint: Some(ToolHintV1 {
            read_tools,
            start_with,
            write_tool,
            candidate_block_ids,
            match_text,
            review_mode: input.profile.review_mode,
        }),
    }
}

/// The first call a run should make: the selection, the blocks holding the quoted text, an outline of a
/// long page, or the whole page, as `page_xml` within the start budget.
fn start_with(input: &RouteInput<'_>, match_text: Option<&str>) -> Option<RecommendedCallV1> {
    let scope = if !input.selection.is_empty() {
        Scope::Selection { block_ids: input.selection.to_vec() }
    } else if let Some(q) = match_text.filter(|q| !q.trim().is_empty()) {
        Scope::Keyword { query: q.into() }
    } else if input.page.blocks.len() > OUTLINE_ABOVE_BLOCKS {
        Scope::Outline
    } else {
        Scope::Full
    };
    let args = DocFetchArgs {
        // The run's instructions name the contextId to pass; the hint stays the same for every run.
        context_id: None,
        document_id: Some(input.page.document_id.clone()),
        scope,
        formats: Some(vec![Format::PageXml]),
        budget: Some(Budget { max_chars: START_BUDGET_CHARS }),
        continuation: None,
    };
    // Encoding core's own argument types cannot fail; a hint without a first call is still a hint.
    let args = json::to_value(&args).ok()?;
    Some(RecommendedCallV1 { tool_name: Tool::DocFetch.spec().name.into(), args })
}
