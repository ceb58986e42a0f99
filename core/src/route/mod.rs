//! The command router: `mnote.page_ai_command_route.v1`.
//!
//! A deterministic parser, not a model. It turns low-ambiguity edit commands, in Chinese or English
//! (`把「A」替换为「B」`, `replace "A" with "B"`, `删除第二段`, `make the selected blocks a bulleted list`), into a
//! recommended `mnote.doc.apply_block_ops` call, and sends everything else to Hermes with a reason and a hint
//! of where to start reading.
//!
//! The worst failure is a wrong direct write, so the router only recommends what it has dry-run itself
//! through [`crate::executor::preview`] on the very page it routed against: a missing, ambiguous,
//! out-of-scope or locked target, a disabled tool or a read-only page all send the prompt to Hermes instead.
//!
//! ## Confidence
//!
//! `confidence` says how sure the router is of its reading of the prompt, not of the model's future work:
//!
//! | value | meaning |
//! |---|---|
//! | 0.95 | direct: quoted literal text, an explicit edit verb, and a clean self dry-run |
//! | 0.90 | direct: a block named by position or selection (第二段, the selected blocks), dry-run clean |
//! | 0.85 | direct: an unquoted single-token literal (`将 Rust 替换成 Go`) that occurs exactly once |
//! | 0.70 | understood as an edit, but it cannot run directly (target missing, ambiguous, locked, out of the selection, tool disabled); Hermes gets the reason |
//! | 0.60 | recognized by keywords as a question, an open rewrite, or unsupported |
//! | 0.40 | no pattern matched; Hermes decides |

mod classify;
mod grammar;
mod intent;
mod plan;
mod prompt;
mod target;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde_json::json;

use crate::error::Error;
use crate::executor::idempotency::MemoryIdempotencyStore;
use crate::executor::{self, Call, Effect, Env, FrozenContext, Origin};
use crate::manifest::{Tool, unavailable_reason};
use crate::normalize::fold;
use crate::ops::Risk;
use crate::page::Page;
use crate::policy::{self, Ask, Stage, Unavailable};
use crate::profile::{Profile, ReviewMode};
pub use crate::wire::{PAGE_AI_COMMAND_ROUTE_V1, RecommendedCallV1, RouteV1, ToolHintV1};
use classify::Class;
use grammar::Command;
pub use intent::{Intent, ReasonCode};

/// Prompts longer than this are not commands; they go to Hermes without parsing.
const MAX_COMMAND_CHARS: usize = 2_000;

/// What the router needs besides the prompt.
#[derive(Debug, Clone, Copy)]
pub struct RouteInput<'a> {
    /// The page, at the context's revision.
    pub page: &'a Page,
    /// The frozen context the recommendation binds to.
    pub context: &'a FrozenContext,
    /// The user's selection, in any order (empty when nothing is selected).
    pub selection: &'a [String],
    /// Disabled tools and review mode.
    pub profile: &'a Profile,
    /// Granted capability scopes; `None` grants all.
    pub grants: Option<&'a [String]>,
    /// The key to put in the recommended call; minted by the caller.
    pub idempotency_key: &'a str,
}

/// Routes `prompt`. Never panics and never calls a model; any string is a valid prompt.
pub fn route(prompt: &str, input: &RouteInput<'_>) -> RouteV1 {
    if prompt.trim().is_empty() {
        return hermes(
            input,
            Intent::Unsupported,
            ReasonCode::Unsupported,
            0.4,
            "the prompt is empty".into(),
            None,
            &[],
        );
    }
    if prompt.chars().count() > MAX_COMMAND_CHARS {
        return hermes(
            input,
            Intent::ComplexRewrite,
            ReasonCode::Complex,
            0.6,
            "too long to be a single command".into(),
            None,
            &[],
        );
    }
    let parsed = prompt::parse(prompt);
    let first_quote = parsed.quotes.first().cloned();
    match parse_commands(&parsed) {
        Some(commands) => direct(input, &commands, true, first_quote),
        None => {
            if parsed.quotes.is_empty()
                && let Some(command) = unquoted(prompt)
            {
                return direct(input, &[command], false, None);
            }
            let stripped = prompt::strip_courtesy(&parsed.skeleton);
            let asked = parsed.skeleton.trim_end().ends_with('?');
            let (intent, code, confidence, reason) = match classify::classify(stripped, asked) {
                Some(Class::Unsupported) => {
                    (Intent::Unsupported, ReasonCode::Unsupported, 0.6, "the page AI cannot do this with page tools")
                }
                Some(Class::Complex) => {
                    (Intent::ComplexRewrite, ReasonCode::Complex, 0.6, "an open request that needs a model")
                }
                Some(Class::Question) => {
                    (Intent::ReadOnlyQuestion, ReasonCode::Question, 0.6, "a question about the page; nothing to write")
                }
                None => match classify::edit_intent(stripped) {
                    Some(intent) => {
                        (intent, ReasonCode::Complex, 0.5, "an edit whose target can't be pinned down without a model")
                    }
                    None => (Intent::ComplexRewrite, ReasonCode::Complex, 0.4, "no direct command pattern matched"),
                },
            };
            hermes(input, intent, code, confidence, reason.into(), first_quote, &[])
        }
    }
}

/// Splits the skeleton into clauses and parses each; `None` unless every clause is a direct command.
fn parse_commands(p: &prompt::Prompt) -> Option<Vec<Command>> {
    let whole = prompt::strip_courtesy(&p.skeleton);
    if let Some(command) = clause(whole, &p.quotes) {
        return Some(vec![command]);
    }
    let parts: Vec<&str> = whole.split([',', ';', '.']).map(str::trim).filter(|s| !s.is_empty()).collect();
    if parts.len() < 2 {
        return english_pairs(whole, &p.quotes);
    }
    let mut commands = Vec::new();
    let mut pending = String::new();
    for part in parts {
        let part = strip_joiner(part);
        let candidate = if pending.is_empty() { String::from(part) } else { format!("{pending},{part}") };
        match clause(prompt::strip_courtesy(&candidate), &p.quotes)
            .or_else(|| english_pairs(&candidate, &p.quotes).and_then(single))
        {
            Some(command) => {
                commands.push(command);
                pending.clear();
            }
            None => match english_pairs(prompt::strip_courtesy(&candidate), &p.quotes) {
                Some(more) => {
                    commands.extend(more);
                    pending.clear();
                }
                None => pending = candidate,
            },
        }
    }
    (pending.is_empty() && !commands.is_empty()).then_some(commands)
}

fn single(mut v: Vec<Command>) -> Option<Command> {
    (v.len() == 1).then(|| v.pop()).flatten()
}

/// Words that join commands: `再`, `然后`, `and then`, `also`.
fn strip_joiner(s: &str) -> &str {
    const JOINERS: &[&str] = &[
        "然后再",
        "然后",
        "并且",
        "同时",
        "另外",
        "还有",
        "再",
        "并",
        "and then ",
        "and also ",
        "then ",
        "also ",
        "and ",
        "plus ",
    ];
    let mut s = s.trim();
    for j in JOINERS {
        if let Some(rest) = s.strip_prefix(j) {
            s = rest.trim();
        }
    }
    prompt::strip_courtesy(s)
}

/// `replace "A" with "B" and "C" with "D"`: one verb, several pairs.
fn english_pairs(s: &str, quotes: &[String]) -> Option<Vec<Command>> {
    let (head, tail) = s.split_once(" and ")?;
    let command = clause(head, quotes)?;
    let Command::Replace { .. } = command else {
        return None;
    };
    let verb = head.split(' ').next()?;
    let mut commands = vec![command];
    for pair in tail.split(" and ") {
        commands.push(clause(&format!("{verb} {}", pair.trim()), quotes)?);
    }
    Some(commands)
}

fn clause(s: &str, quotes: &[String]) -> Option<Command> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let cjk = s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    if cjk {
        grammar::zh(s, quotes).or_else(|| grammar::en(s, quotes, false))
    } else {
        grammar::en(s, quotes, false).or_else(|| grammar::zh(s, quotes))
    }
}

/// The unquoted forms, read from the raw prompt so the literal keeps its case and width.
fn unquoted(raw: &str) -> Option<Command> {
    let folded = fold(raw);
    let stripped = prompt::strip_courtesy(&folded);
    // `fold` keeps char counts, so the stripped range maps back onto the raw prompt char for char.
    let start = folded.get(..folded.find(stripped)?)?.chars().count();
    let len = stripped.chars().count();
    let original: String = raw.chars().skip(start).take(len).collect();
    if stripped.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
        return grammar::zh_unquoted(&original);
    }
    let command = grammar::en(stripped, &[], true)?;
    // Re-read the two tokens from the raw text, so `Colour` stays `Colour`.
    let Command::Replace { find, with, all, within, .. } = command else {
        return None;
    };
    let token = |folded_token: &str| {
        let at = stripped.find(folded_token)?;
        let start = stripped.get(..at)?.chars().count();
        Some(original.chars().skip(start).take(folded_token.chars().count()).collect::<String>())
    };
    let find = token(&find)?;
    let with = stripped.rfind(with.as_str()).and_then(|at| {
        let start = stripped.get(..at)?.chars().count();
        Some(original.chars().skip(start).take(with.chars().count()).collect::<String>())
    })?;
    Some(Command::Replace { find, with, all, within, quoted: false })
}

fn locked_holding<'p>(page: &'p Page, text: &'p str) -> impl Iterator<Item = String> + 'p {
    page.blocks.iter().filter(move |b| !b.editable && b.text.contains(text)).map(|b| b.block_id.clone())
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

/// Maps an executor error from the self dry-run onto a reason code.
fn refusal_of(input: &RouteInput<'_>, error: &Error, quoted: bool) -> (ReasonCode, Vec<String>) {
    let page = input.page;
    match error {
        // Text that exists only in locked blocks is out of reach, not missing.
        Error::MatchNotFound { match_text, .. } if locked_holding(page, match_text).next().is_some() => {
            (ReasonCode::NotEditable, locked_holding(page, match_text).collect())
        }
        Error::MatchNotFound { .. } if !quoted => (ReasonCode::Complex, Vec::new()),
        Error::MatchNotFound { did_you_mean, .. } => {
            (ReasonCode::MatchNotFound, did_you_mean.iter().map(|(b, _)| b.clone()).collect())
        }
        Error::MatchAmbiguous { matches, .. } => {
            let mut ids: Vec<String> = matches.iter().map(|(b, _)| b.clone()).collect();
            ids.dedup();
            (ReasonCode::MatchAmbiguous, ids)
        }
        // A locked block is outside every frozen scope; say why it is out of reach.
        Error::BlockTargetOutOfScope { block_id, .. } if page.block(block_id).is_some_and(|b| !b.editable) => {
            (ReasonCode::NotEditable, vec![block_id.clone()])
        }
        Error::BlockTargetOutOfScope { block_id, .. } => (ReasonCode::OutOfSelection, vec![block_id.clone()]),
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

fn direct(input: &RouteInput<'_>, commands: &[Command], quoted: bool, first_quote: Option<String>) -> RouteV1 {
    let intent = commands.first().map_or(Intent::ComplexRewrite, Command::intent);
    if let Err(reason) = apply_availability(input) {
        return hermes(
            input,
            intent,
            unavailable_code(reason),
            0.7,
            format!("{} {reason}", Tool::DocApplyBlockOps.spec().name),
            first_quote,
            &[],
        );
    }
    let (ops, allowed, structural) = match plan::operations(input, commands) {
        Ok(found) => found,
        Err(r) => {
            let intent = if r.code == ReasonCode::Complex { Intent::ComplexRewrite } else { intent };
            return hermes(input, intent, r.code, 0.7, r.reason, first_quote, &r.candidates);
        }
    };
    let args = json!({
        "contextId": input.context.context_id,
        "documentId": input.page.document_id,
        "baseRevision": input.page.revision,
        "operations": ops,
        "dryRun": true,
        "idempotencyKey": input.idempotency_key,
        "allowedTargetBlockIds": allowed,
    });
    let contexts = input.context;
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0u32;
    let mut mint = || {
        n += 1;
        format!("b_route{n:05}")
    };
    let mut env =
        Env { profile: input.profile, grants: input.grants, contexts, idempotency: &mut store, mint: &mut mint };
    let call = Call {
        tool_name: Tool::DocApplyBlockOps.spec().name,
        args: &args,
        origin: Origin::Shortcut,
        actor: "router",
        at: "",
        tool_call_id: "route",
        new_context_id: "",
    };
    let result = match executor::preview(input.page, &call, &mut env) {
        Ok(executor::Outcome { effect: Effect::Previewed(result), .. }) => result,
        Ok(_) => {
            return hermes(
                input,
                intent,
                ReasonCode::Complex,
                0.4,
                "the self dry-run did not preview".into(),
                first_quote,
                &[],
            );
        }
        Err(error) => {
            let (code, candidates) = match &error {
                // Narrowed to the selection, the text is elsewhere on the page: say so.
                Error::MatchNotFound { match_text, .. }
                    if allowed.len() < input.context.allowed_target_block_ids.len() =>
                {
                    let outside: Vec<String> = input
                        .page
                        .blocks
                        .iter()
                        .filter(|b| {
                            b.editable && !allowed.contains(&b.block_id) && b.text.contains(match_text.as_str())
                        })
                        .map(|b| b.block_id.clone())
                        .collect();
                    if outside.is_empty() {
                        refusal_of(input, &error, quoted)
                    } else {
                        (ReasonCode::OutOfSelection, outside)
                    }
                }
                _ => refusal_of(input, &error, quoted),
            };
            let intent = if code == ReasonCode::Complex && !quoted { Intent::ComplexRewrite } else { intent };
            return hermes(input, intent, code, 0.7, error.message(), first_quote, &candidates);
        }
    };
    let risk = result.risk;
    let confidence = match (
        quoted,
        structural || commands.iter().any(|c| matches!(c, Command::DeleteBlock(_) | Command::SetText { .. })),
    ) {
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

fn hermes(
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
    let scope = if !input.selection.is_empty() {
        json!({"type": "selection", "blockIds": input.selection})
    } else if let Some(q) = match_text.as_ref().filter(|q| !q.trim().is_empty()) {
        json!({"type": "keyword", "query": q})
    } else if input.page.blocks.len() > 200 {
        json!({"type": "outline"})
    } else {
        json!({"type": "full"})
    };
    let start_with = enabled(Tool::DocFetch).then(|| RecommendedCallV1 {
        tool_name: Tool::DocFetch.spec().name.into(),
        args: json!({"documentId": input.page.document_id, "scope": scope, "formats": ["page_xml"], "budget": {"maxChars": 12000}}),
    });
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
        requires_review: intent != Intent::ReadOnlyQuestion && input.profile.review_mode != ReviewMode::Yolo,
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

#[cfg(test)]
mod tests;
