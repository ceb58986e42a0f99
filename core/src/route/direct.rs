//! A direct route: the commands become one `mnote.doc.apply_block_ops` dry-run, which the router runs
//! itself on the page it routed against. A clean preview is recommended; any refusal (from the policy, the
//! planner or the executor) hands the prompt to Hermes with its reason.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::grammar::Command;
use super::hermes::hermes;
use super::intent::{Intent, ReasonCode};
use super::{PAGE_AI_COMMAND_ROUTE_V1, RecommendedCallV1, RouteInput, RouteV1, plan};
use crate::error::Error;
use crate::executor::idempotency::MemoryIdempotencyStore;
use crate::executor::{self, Effect, Env, Origin, WriteArgs, WriteCall};
use crate::json;
use crate::manifest::Tool;
use crate::manifest::args::ApplyBlockOpsArgs;
use crate::ops::Risk;
use crate::page::Page;
use crate::policy::{self, Ask, Stage, Unavailable};
use crate::profile::ReviewMode;
use crate::wire::ToolResultV1;

/// Routes parsed commands: the recommendation when the self dry-run is clean, else a Hermes route.
pub(super) fn direct(
    input: &RouteInput<'_>,
    commands: &[Command],
    quoted: bool,
    first_quote: Option<String>,
) -> RouteV1 {
    let intent = commands.first().map_or(Intent::ComplexRewrite, Command::intent);
    if let Err(reason) = apply_availability(input) {
        let why = format!("{} {reason}", Tool::DocApplyBlockOps.spec().name);
        return hermes(input, intent, unavailable_code(reason), 0.7, why, first_quote, &[]);
    }
    let (operations, allowed, structural) = match plan::operations(input, commands) {
        Ok(found) => found,
        Err(r) => {
            let intent = if r.code == ReasonCode::Complex { Intent::ComplexRewrite } else { intent };
            return hermes(input, intent, r.code, 0.7, r.reason, first_quote, &r.candidates);
        }
    };
    let args = ApplyBlockOpsArgs {
        context_id: Some(input.context.context_id.clone()),
        allowed_target_block_ids: Some(allowed),
        ..ApplyBlockOpsArgs::dry_run(input.page, operations, input.idempotency_key)
    };
    let result = match self_check(input, &args) {
        Ok(Some(result)) => result,
        Ok(None) => {
            let why = "the self dry-run did not preview".into();
            return hermes(input, intent, ReasonCode::Complex, 0.4, why, first_quote, &[]);
        }
        Err(error) => {
            let allowed = args.allowed_target_block_ids.as_deref().unwrap_or_default();
            let (code, candidates) = refusal_of(input, &error, quoted, allowed);
            let intent = if code == ReasonCode::Complex && !quoted { Intent::ComplexRewrite } else { intent };
            return hermes(input, intent, code, 0.7, error.message(), first_quote, &candidates);
        }
    };
    let sure = structural || commands.iter().any(|c| matches!(c, Command::DeleteBlock(_) | Command::SetText { .. }));
    recommend(input, intent, quoted, sure, &args, &result)
}

/// The router's own dry-run of `args` on the page it routed against: the preview, `None` if the executor
/// answered something else, or the executor's refusal.
fn self_check(input: &RouteInput<'_>, args: &ApplyBlockOpsArgs) -> Result<Option<ToolResultV1>, Error> {
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0u32;
    let mut mint = || {
        n += 1;
        format!("b_route{n:05}")
    };
    let mut env = Env {
        profile: input.profile,
        grants: input.grants,
        contexts: input.context,
        idempotency: &mut store,
        mint: &mut mint,
    };
    let call = WriteCall {
        args: WriteArgs::ApplyBlockOps(args.clone()),
        origin: Origin::Shortcut,
        actor: "router",
        at: "",
        tool_call_id: "route",
    };
    Ok(match executor::preview_write(input.page, call, &mut env)?.effect {
        Effect::Previewed(result) => Some(result),
        Effect::Read { .. } | Effect::Applied(_) | Effect::Replayed => None,
    })
}

/// The direct route: the recommended call, serialized once here, and how sure the router is.
fn recommend(
    input: &RouteInput<'_>,
    intent: Intent,
    quoted: bool,
    sure: bool,
    args: &ApplyBlockOpsArgs,
    result: &ToolResultV1,
) -> RouteV1 {
    let Ok(args) = json::to_value(args) else {
        return hermes(input, intent, ReasonCode::Complex, 0.4, "the call could not be encoded".into(), None, &[]);
    };
    let risk = result.risk;
    let confidence = match (quoted, sure) {
        (false, _) => 0.85,
        (true, true) => 0.9,
        (true, false) => 0.95,
    };
    let changed: Vec<&str> = result.changed_blocks.iter().map(|c| c.block_id.as_str()).collect();
    let reason = format!(
        "{} {} on {}; the self dry-run succeeded",
        if quoted { "explicit" } else { "unquoted" },
        intent.as_str().trim_start_matches("direct_").replace('_', " "),
        if changed.is_empty() { "no block".to_string() } else { changed.join(", ") },
    );
    RouteV1 {
        schema: PAGE_AI_COMMAND_ROUTE_V1.into(),
        intent,
        confidence,
        recommended_tool_call: Some(RecommendedCallV1 { tool_name: Tool::DocApplyBlockOps.spec().name.into(), args }),
        risk,
        requires_hermes_run: false,
        requires_review: requires_review(input.profile.review_mode, risk),
        reason,
        reason_code: None,
        tool_hint: None,
    }
}

/// SPEC §6: `required` and `review` review every write; `yolo` reviews only high risk.
pub fn requires_review(mode: ReviewMode, risk: Risk) -> bool {
    match mode {
        ReviewMode::Required | ReviewMode::Review => true,
        ReviewMode::Yolo => risk == Risk::High,
    }
}

/// The policy's answer for the shortcut's write tool here.
fn apply_availability(input: &RouteInput<'_>) -> Result<(), Unavailable> {
    let ask = Ask {
        tool: Tool::DocApplyBlockOps,
        origin: Origin::Shortcut,
        profile: input.profile,
        grants: input.grants,
        permission: input.page.permission,
    };
    policy::decide(&ask, Stage::Run).map(|_| ())
}

/// The reason code of a tool the policy finds unavailable.
fn unavailable_code(unavailable: Unavailable) -> ReasonCode {
    match unavailable {
        Unavailable::ReadOnly => ReasonCode::ReadOnlyDocument,
        Unavailable::Disabled | Unavailable::ScopeNotGranted { .. } => ReasonCode::ToolDisabled,
    }
}

/// Maps an executor error from the self dry-run (narrowed to `allowed`) onto a reason code and the blocks
/// it is about.
fn refusal_of(input: &RouteInput<'_>, error: &Error, quoted: bool, allowed: &[String]) -> (ReasonCode, Vec<String>) {
    let page = input.page;
    match error {
        Error::MatchNotFound { match_text, did_you_mean } => {
            let did_you_mean: Vec<String> = did_you_mean.iter().map(|(b, _)| b.clone()).collect();
            not_found(input, match_text, quoted, allowed, did_you_mean)
        }
        Error::MatchAmbiguous { matches, .. } => {
            let mut ids: Vec<String> = matches.iter().map(|(b, _)| b.clone()).collect();
            ids.dedup();
            (ReasonCode::MatchAmbiguous, ids)
        }
        // A locked block is outside every frozen scope; say why it is out of reach.
        Error::BlockTargetOutOfScope { block_id, .. } => match page.block(block_id).is_some_and(|b| !b.editable) {
            true => (ReasonCode::NotEditable, vec![block_id.clone()]),
            false => (ReasonCode::OutOfSelection, vec![block_id.clone()]),
        },
        Error::BlockNotEditable { block_id } => (ReasonCode::NotEditable, vec![block_id.clone()]),
        Error::BlockNotFound { .. } => (ReasonCode::TargetNotFound, Vec::new()),
        // Only the policy refuses a tool; ask it for the typed cause.
        Error::ToolDisabled { .. } | Error::ScopeDenied { .. } => {
            (apply_availability(input).err().map_or(ReasonCode::ToolDisabled, unavailable_code), Vec::new())
        }
        // Nothing else is a refusal the router can explain: a model has to look.
        Error::InvalidArguments { .. }
        | Error::RevisionConflict { .. }
        | Error::ReviewRequired { .. }
        | Error::IdempotencyConflict { .. }
        | Error::ContextStale { .. }
        | Error::DocumentNotFound { .. }
        | Error::DocumentReadOnly { .. }
        | Error::InvalidPage { .. }
        | Error::InvalidMarkdown { .. }
        | Error::UnsupportedSchema { .. }
        | Error::PayloadTooLarge { .. }
        | Error::InvalidBody { .. }
        | Error::Unauthorized
        | Error::ForbiddenOrigin { .. }
        | Error::RouteNotFound { .. }
        | Error::MethodNotAllowed { .. }
        | Error::StorageFailed
        | Error::UnknownTool { .. }
        | Error::ContextNotFound { .. }
        | Error::ReviewInvalidTransition { .. }
        | Error::RevertConflict { .. }
        | Error::ReviewSessionNotFound { .. }
        | Error::AuditChainBroken { .. }
        | Error::HermesUnauthorized
        | Error::HermesUnconfigured
        | Error::HermesBadRequest { .. }
        | Error::HermesUpstreamUnauthorized { .. }
        | Error::HermesUpstreamRateLimited { .. }
        | Error::HermesUpstreamUnavailable { .. } => (ReasonCode::Complex, Vec::new()),
    }
}

/// Why `match_text` was not found: it is only outside the selection, only in locked blocks, the prompt
/// was not quoted (so the reading may be wrong), or it is simply not there.
fn not_found(
    input: &RouteInput<'_>,
    match_text: &str,
    quoted: bool,
    allowed: &[String],
    did_you_mean: Vec<String>,
) -> (ReasonCode, Vec<String>) {
    let page = input.page;
    // Narrowed to the selection, the text is elsewhere on the page: say so.
    if allowed.len() < input.context.allowed_target_block_ids.len() {
        let outside: Vec<String> = page
            .blocks
            .iter()
            .filter(|b| b.editable && !allowed.contains(&b.block_id) && b.text.contains(match_text))
            .map(|b| b.block_id.clone())
            .collect();
        if !outside.is_empty() {
            return (ReasonCode::OutOfSelection, outside);
        }
    }
    // Text that exists only in locked blocks is out of reach, not missing.
    let locked: Vec<String> = locked_holding(page, match_text).collect();
    match (locked.is_empty(), quoted) {
        (false, _) => (ReasonCode::NotEditable, locked),
        (true, false) => (ReasonCode::Complex, Vec::new()),
        (true, true) => (ReasonCode::MatchNotFound, did_you_mean),
    }
}

fn locked_holding<'p>(page: &'p Page, text: &'p str) -> impl Iterator<Item = String> + 'p {
    page.blocks.iter().filter(move |b| !b.editable && b.text.contains(text)).map(|b| b.block_id.clone())
}
