//! A direct route: the commands become one `mnote.doc.apply_block_ops` dry-run, which the router runs
//! itself on the page it routed against. A clean preview is recommended; any refusal (from the policy, the
//! planner or the executor) hands the prompt to Hermes with its reason.

use crate::policy::Role;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use serde_json::Value;

use super::grammar::Command;
use super::hermes::hermes;
use super::plan::{self, Note};
use super::{Kept, PAGE_AI_COMMAND_ROUTE_V1, RecommendedCallV1, RouteInput, RouteV1};
use crate::error::Error;
use crate::executor::idempotency::MemoryIdempotencyStore;
use crate::executor::{self, Effect, Env, Planned, ToolArgs, WriteArgs, WriteCall};
use crate::json;
use crate::manifest::args::ApplyBlockOpsArgs;
use crate::ops::Operation;
use crate::page::Page;
use crate::policy::{self, Ask, Stage, Unavailable};
use crate::vocab::{Intent, Origin, ReasonCode, ReviewMode, Risk, Tool};
use crate::wire::ToolResultV1;

/// Routes parsed commands: the recommendation when the self dry-run is clean, else a Hermes route. With
/// `KEEP`, the recommended write is left typed, with the self dry-run's plan, in `kept`
/// ([`super::Routed`]).
pub(super) fn direct<const KEEP: bool>(
    input: &RouteInput<'_>,
    commands: &[Command],
    quoted: bool,
    first_quote: Option<String>,
    kept: &mut Kept<'_>,
) -> RouteV1 {
    let intent = commands.first().map_or(Intent::ComplexRewrite, Command::intent);
    if let Err(reason) = apply_availability(input) {
        let why = format!("{} {reason}", Tool::DocApplyBlockOps.spec().name);
        return hermes(input, intent, unavailable_code(reason), 0.7, why, first_quote, &[]);
    }
    let planned = match plan::operations(input, commands) {
        Ok(planned) => planned,
        Err(r) => {
            let intent = if r.code == ReasonCode::Complex { Intent::ComplexRewrite } else { intent };
            return hermes(input, intent, r.code, 0.7, r.reason, first_quote, &r.candidates);
        }
    };
    let args = ApplyBlockOpsArgs {
        context_id: Some(input.context.context_id.clone()),
        allowed_target_block_ids: Some(planned.allowed),
        ..ApplyBlockOpsArgs::dry_run(input.page, planned.operations, input.idempotency_key)
    };
    let (result, plan) =
        match self_check(input, &args, kept.mint.as_mut().map(|m| &mut **m as &mut dyn FnMut() -> String)) {
            Ok(Some(checked)) => checked,
            Ok(None) => {
                let why = "the self dry-run did not preview".into();
                return hermes(input, intent, ReasonCode::Complex, 0.4, why, first_quote, &[]);
            }
            Err(error) => {
                let allowed = args.allowed_target_block_ids.as_deref().unwrap_or_default();
                let (code, candidates) = refusal_of(input, &error, quoted, allowed);
                let intent = if code == ReasonCode::Complex && !quoted { Intent::ComplexRewrite } else { intent };
                let why = refusal_reason(&error, code, &candidates);
                return hermes(input, intent, code, 0.7, why, first_quote, &candidates);
            }
        };
    let sure =
        planned.structural || commands.iter().any(|c| matches!(c, Command::DeleteBlock(_) | Command::SetText { .. }));
    let mut actions: Vec<&str> = Vec::new();
    for action in commands.iter().map(Command::action) {
        if !actions.contains(&action) {
            actions.push(action);
        }
    }
    let reading = Reading { intent, actions: actions.join(" and "), quoted, sure, notes: &planned.notes };
    if KEEP {
        kept.write = Some(ToolArgs::from(WriteArgs::ApplyBlockOps(args.clone())).with_plan(plan));
    }
    let wire = recommend(input, &reading, args, &result);
    // A recommendation that could not be encoded went to Hermes: it carries no write.
    if KEEP && wire.recommended_tool_call.is_none() {
        kept.write = None;
    }
    wire
}

/// How the router read the prompt, for the recommendation's confidence, risk and reason.
struct Reading<'n> {
    intent: Intent,
    /// What the commands do: `replace`, `check and move` …
    actions: String,
    /// The literals were quoted.
    quoted: bool,
    /// Blocks named by position, kind or selection (not literal text).
    sure: bool,
    notes: &'n [Note],
}

impl Reading<'_> {
    /// A literal matched only ignoring case or spaces: a guess at what the user meant.
    fn folded(&self) -> bool {
        self.notes.iter().any(|n| matches!(n, Note::Folded { .. }))
    }

    fn confidence(&self) -> f64 {
        match (self.quoted, self.sure) {
            _ if self.folded() => 0.8,
            (false, _) => 0.85,
            (true, true) => 0.9,
            (true, false) => 0.95,
        }
    }

    /// The dry-run's risk, raised to medium for a folded match.
    fn risk(&self, planned: Risk) -> Risk {
        if self.folded() { planned.max(Risk::Medium) } else { planned }
    }

    /// A folded match is a guess, reviewed in every mode; otherwise the review rule decides, for the
    /// shortcut's write at the dry-run's risk.
    fn requires_review(&self, mode: ReviewMode, risk: Risk) -> bool {
        self.folded() || policy::held(Tool::DocApplyBlockOps, Origin::Shortcut, mode, risk).is_some()
    }

    /// `explicit replace on p_1; the self dry-run succeeded`, plus what the notes say. A new block is named
    /// by its place, since its id is only minted when the write lands.
    fn reason(&self, result: &ToolResultV1) -> String {
        let changed: Vec<String> = result
            .operations
            .iter()
            .filter_map(|op| match op {
                Operation::InsertAfter { after_block_id, .. } => Some(format!("a new block after {after_block_id}")),
                Operation::InsertBefore { before_block_id, .. } => {
                    Some(format!("a new block before {before_block_id}"))
                }
                Operation::Replace { .. }
                | Operation::Update { .. }
                | Operation::Delete { .. }
                | Operation::Move { .. } => None,
            })
            .chain(result.changed_blocks.iter().filter(|c| c.op != "insert").map(|c| c.block_id.clone()))
            .collect();
        let mut reason = format!(
            "{} {}: {}; the self dry-run succeeded",
            if self.quoted { "explicit" } else { "unquoted" },
            self.actions,
            if changed.is_empty() { "no block".to_string() } else { changed.join(", ") },
        );
        for note in self.notes {
            reason.push_str("; ");
            reason.push_str(&match note {
                Note::Folded { asked, found } => format!(
                    "{asked:?} is not on the page as typed: it matched {found:?} ignoring case and surrounding spaces, so the write waits for review"
                ),
                Note::WholeBlock(id) => {
                    format!("the quoted text is the whole of {id}, so the block is deleted rather than left empty")
                }
            });
        }
        reason
    }
}

/// A clean self dry-run: its preview, and the plan it was made from.
type Checked = (ToolResultV1, Option<Arc<Planned>>);

/// The router's own dry-run of `args` on the page it routed against: the preview and its plan, `None` if
/// the executor answered something else, or the executor's refusal. Inserted blocks get their ids from
/// `mint` when given (the write will be answered from this plan), else placeholders.
fn self_check(
    input: &RouteInput<'_>,
    args: &ApplyBlockOpsArgs,
    mint: Option<&mut dyn FnMut() -> String>,
) -> Result<Option<Checked>, Error> {
    let mut store = MemoryIdempotencyStore::new();
    let mut n = 0u32;
    let mut placeholder = || {
        n += 1;
        format!("b_route{n:05}")
    };
    let mint: &mut dyn FnMut() -> String = match mint {
        Some(mint) => mint,
        None => &mut placeholder,
    };
    let mut env = Env {
        profile: input.profile,
        grants: input.grants,
        // The router recommends; the write it recommends runs later under the caller's own role, which
        // holds it for a viewer. Its self-check asks what the page allows.
        role: Role::Owner,
        contexts: input.context,
        idempotency: &mut store,
        mint,
        suggestions: &[],
    };
    let call = WriteCall {
        args: WriteArgs::ApplyBlockOps(checked_args(input, args)),
        origin: Origin::Shortcut,
        actor: "router",
        at: "",
        tool_call_id: "route",
    };
    let (outcome, planned) = executor::preview_write_planned(input.page, call, &mut env)?;
    Ok(match outcome.effect {
        Effect::Previewed(result) => Some((result, planned)),
        Effect::Read { .. } | Effect::Applied(_) | Effect::Replayed => None,
    })
}

/// `args` for the self dry-run. A list that is the context's own narrows nothing, so the dry-run goes
/// without a copy of it: on a long page's full-page context that is thousands of ids, copied and read back.
fn checked_args(input: &RouteInput<'_>, args: &ApplyBlockOpsArgs) -> ApplyBlockOpsArgs {
    let listed = args.allowed_target_block_ids.as_deref();
    let own = listed == Some(input.context.allowed_target_block_ids.as_slice());
    ApplyBlockOpsArgs {
        context_id: args.context_id.clone(),
        document_id: args.document_id.clone(),
        base_revision: args.base_revision,
        operations: args.operations.clone(),
        dry_run: args.dry_run,
        idempotency_key: args.idempotency_key.clone(),
        allowed_target_block_ids: if own { None } else { args.allowed_target_block_ids.clone() },
        revision_refs: args.revision_refs.clone(),
        require_exact_revision: args.require_exact_revision,
    }
}

/// The direct route: the recommended call, serialized once here, and how sure the router is.
fn recommend(
    input: &RouteInput<'_>,
    reading: &Reading<'_>,
    mut args: ApplyBlockOpsArgs,
    result: &ToolResultV1,
) -> RouteV1 {
    let intent = reading.intent;
    // The allowed ids move into the JSON instead of being copied (and the copies dropped): a long page's
    // full-page context has thousands.
    let allowed = args.allowed_target_block_ids.as_mut().map(core::mem::take);
    let Ok(mut args) = json::to_value(&args) else {
        return hermes(input, intent, ReasonCode::Complex, 0.4, "the call could not be encoded".into(), None, &[]);
    };
    if let (Some(allowed), Some(slot)) = (allowed, args.get_mut("allowedTargetBlockIds")) {
        *slot = Value::Array(allowed.into_iter().map(Value::String).collect());
    }
    let risk = reading.risk(result.risk);
    RouteV1 {
        schema: PAGE_AI_COMMAND_ROUTE_V1.into(),
        intent,
        confidence: reading.confidence(),
        recommended_tool_call: Some(RecommendedCallV1 { tool_name: Tool::DocApplyBlockOps.spec().name.into(), args }),
        risk,
        requires_hermes_run: false,
        requires_review: reading.requires_review(input.profile.review_mode, risk),
        reason: reading.reason(result),
        reason_code: None,
        tool_hint: None,
    }
}

/// The review mode a direct route's write runs under when it is carried out: the command's mode, except
/// that a route which itself asks for review (a literal matched only ignoring case, say) is held even under
/// `yolo`. Whoever applies a route's recommendation (the Worker's command route) asks this.
pub fn shortcut_review_mode(route: &RouteV1, mode: ReviewMode) -> ReviewMode {
    match mode {
        ReviewMode::Yolo if route.requires_review => ReviewMode::Review,
        ReviewMode::Yolo | ReviewMode::Review | ReviewMode::Required => mode,
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
        role: Role::Owner,
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
        | Error::HermesUpstreamUnavailable { .. }
        | Error::TooManyAttempts { .. }
        | Error::RoleForbidden { .. }
        | Error::ContextRequired { .. }
        | Error::StoredTooLarge { .. }
        | Error::WorkspaceNotFound { .. }
        | Error::PageTooLarge { .. }
        | Error::LiveSessionEnded { .. }
        | Error::BlockTooLarge { .. }
        | Error::LiveRoleChanged { .. }
        | Error::RunNotFound { .. }
        | Error::RunNothingToUndo { .. }
        | Error::RunAlreadyUndone { .. }
        | Error::RunUndoStale { .. }
        | Error::LiveSocketLimit { .. }
        | Error::LiveMessageTooLarge { .. }
        | Error::LiveResync { .. } => (ReasonCode::Complex, Vec::new()),
    }
}

/// The sentence for a refusal: the executor's message, unless the reason code says more than it does (a text
/// that is only in locked blocks or only outside the selection, a target that is locked).
fn refusal_reason(error: &Error, code: ReasonCode, candidates: &[String]) -> String {
    let blocks = candidates.join(", ");
    match (code, error) {
        (ReasonCode::NotEditable, Error::MatchNotFound { match_text, .. }) => {
            format!("{match_text:?} is only in locked blocks: {blocks}")
        }
        (ReasonCode::OutOfSelection, Error::MatchNotFound { match_text, .. }) => {
            format!("{match_text:?} is only outside the selection: {blocks}")
        }
        (ReasonCode::NotEditable, _) => format!("{blocks} is locked"),
        (ReasonCode::OutOfSelection, _) => format!("{blocks} is outside the selection"),
        _ => error.message(),
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
