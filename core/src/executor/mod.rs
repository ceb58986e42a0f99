//! The one executor entry point: every tool call, from Hermes, the shortcut router, the browser preview or a
//! review accept, runs through [`execute`], which applies every guard in one place.
//!
//! For a write the order is SPEC §5's: schema → idempotency replay → frozen context → revision → the
//! operations engine (block exists → in scope → editable → match found → match unique) → policy (tool
//! disabled or read-only document → capability scope → review mode). The first failure is returned and
//! nothing is written. Reads check the schema, then the policy.
//!
//! The executor holds no state of its own: the caller passes the page, the profile, the frozen contexts, an
//! idempotency store, the clock reading and an id minter, and persists what the [`Effect`] says changed.

pub mod idempotency;
mod page_save;

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::{self, ContextRequest, Scope};
use crate::error::{Error, Result};
use crate::manifest::{Tool, ToolRisk, args, scope_granted};
use crate::ops::{self, Operation, Risk, TargetScope};
use crate::page::{Page, Permission};
use crate::profile::{Profile, ReviewMode};
use crate::wire::{self, AuditV1, PageAiContextV1, TOOL_RESULT_V1, ToolResultV1, WarningV1};
use idempotency::{IdempotencyRecord, IdempotencyStore, fingerprint};

/// Who is asking. AI callers are held to the review mode; people are not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A Hermes run, through MCP or the tool route.
    Hermes,
    /// The deterministic command router's shortcut.
    Shortcut,
    /// A person acting directly (the editor, an import).
    User,
    /// A person accepting a review session.
    ReviewAccept,
}

impl Origin {
    fn is_ai(self) -> bool {
        matches!(self, Origin::Hermes | Origin::Shortcut)
    }
}

/// A frozen context as the executor needs it: what a contextId binds a write to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrozenContext {
    /// The id.
    pub context_id: String,
    /// The document it was frozen from.
    pub document_id: String,
    /// The revision it was frozen at.
    pub revision: u64,
    /// Its scope name.
    pub scope: String,
    /// The only blocks a write bound to it may target.
    pub allowed_target_block_ids: Vec<String>,
}

impl FrozenContext {
    /// The frozen part of a built context.
    pub fn of(context: &PageAiContextV1) -> Self {
        FrozenContext {
            context_id: context.context_id.clone(),
            document_id: context.document_id.clone(),
            revision: context.revision,
            scope: context.scope.clone(),
            allowed_target_block_ids: context.allowed_target_block_ids.clone(),
        }
    }
}

/// Looks up frozen contexts by id (the Worker's Durable Object, with a TTL; a map in the browser).
pub trait ContextLookup {
    /// The context, or `None` when unknown or expired.
    fn frozen(&self, context_id: &str) -> Option<&FrozenContext>;
}

/// No contexts at all.
pub struct NoContexts;

/// Exactly one context: what the router and a single-context caller need, without copying it into a map.
impl ContextLookup for FrozenContext {
    fn frozen(&self, context_id: &str) -> Option<&FrozenContext> {
        (self.context_id == context_id).then_some(self)
    }
}

impl ContextLookup for NoContexts {
    fn frozen(&self, _: &str) -> Option<&FrozenContext> {
        None
    }
}

impl ContextLookup for alloc::collections::BTreeMap<String, FrozenContext> {
    fn frozen(&self, context_id: &str) -> Option<&FrozenContext> {
        self.get(context_id)
    }
}

/// One tool call.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    /// Dotted or MCP name.
    pub tool_name: &'a str,
    /// The arguments as sent.
    pub args: &'a Value,
    /// Who is asking.
    pub origin: Origin,
    /// The actor recorded in the audit.
    pub actor: &'a str,
    /// The caller's clock, RFC 3339.
    pub at: &'a str,
    /// The tool call's id.
    pub tool_call_id: &'a str,
    /// The id to give a context this call freezes (`doc.fetch`, `block.fetch`).
    pub new_context_id: &'a str,
}

/// Everything the executor reads or records besides the page.
pub struct Env<'a> {
    /// The profile: disabled tools, review mode.
    pub profile: &'a Profile,
    /// Granted capability scopes; `None` grants all.
    pub grants: Option<&'a [String]>,
    /// Frozen contexts by id.
    pub contexts: &'a dyn ContextLookup,
    /// Idempotency records.
    pub idempotency: &'a mut dyn IdempotencyStore,
    /// Mints block ids for inserted blocks.
    pub mint: &'a mut dyn FnMut() -> String,
}

/// What a call did, for the caller to persist.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// A read; a context was frozen when `frozen` is set.
    Read {
        /// Store this so later writes can bind to it.
        frozen: Option<FrozenContext>,
    },
    /// A dry-run: nothing changed.
    Previewed(ToolResultV1),
    /// The page changed: persist it, with the result, in one transaction.
    Applied(ToolResultV1),
    /// An idempotent replay: nothing changed.
    Replayed,
}

/// The answer of a call: its JSON, exactly as returned (and replayed), and its effect.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The answer's JSON.
    pub json: String,
    /// What happened.
    pub effect: Effect,
}

/// Runs one tool call against `page`. On [`Effect::Applied`] the page has been changed in place.
pub fn execute(page: &mut Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    match stage(page, call, env)? {
        Staged::Done(outcome) => Ok(outcome),
        Staged::Commit { outcome, plan, key, fingerprint } => {
            plan.commit(page);
            let record = IdempotencyRecord { fingerprint, response: outcome.json.clone() };
            env.idempotency.record(&page.document_id, &key, record);
            Ok(outcome)
        }
    }
}

/// Runs a read or a dry-run against a page that stays shared: the browser's instant preview and the router's
/// self-check. A call that would write is refused.
pub fn preview(page: &Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    match stage(page, call, env)? {
        Staged::Done(outcome) => Ok(outcome),
        Staged::Commit { .. } => Err(Error::invalid("/dryRun", "a preview runs only with dryRun:true")),
    }
}

/// A call's answer, and for an apply the plan still to be committed.
enum Staged {
    Done(Outcome),
    Commit { outcome: Outcome, plan: ops::Plan, key: String, fingerprint: String },
}

fn stage(page: &Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Staged> {
    let tool = Tool::from_name(call.tool_name).ok_or_else(|| Error::UnknownTool {
        name: call.tool_name.into(),
        nearest: crate::error::nearest_ids(call.tool_name, Tool::ALL.iter().map(|t| t.spec().mcp_name)),
    })?;
    if tool.writes() { write(tool, page, call, env) } else { read(tool, page, call, env).map(Staged::Done) }
}

fn policy(tool: Tool, page: &Page, env: &Env<'_>) -> Result<()> {
    let spec = tool.spec();
    if tool.writes() && page.permission == Permission::Read {
        return Err(Error::ToolDisabled { tool: spec.name.into(), reason: "document is read-only".into() });
    }
    if env.profile.disables(spec.name) {
        return Err(Error::ToolDisabled { tool: spec.name.into(), reason: "disabled in the profile".into() });
    }
    if !scope_granted(env.grants, spec.capability_scope) {
        return Err(Error::ScopeDenied { tool: spec.name.into(), required: spec.capability_scope.into() });
    }
    Ok(())
}

fn check_document(page: &Page, document_id: Option<&str>) -> Result<()> {
    match document_id {
        Some(id) if id != page.document_id => {
            Err(Error::invalid("/documentId", alloc::format!("this call is bound to document {:?}", page.document_id)))
        }
        _ => Ok(()),
    }
}

fn to_json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::invalid("", e.to_string()))
}

fn read(tool: Tool, page: &Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    let context = |request: ContextRequest| -> Result<Outcome> {
        let ctx = context::build_context(page, &request, call.new_context_id)?;
        Ok(Outcome { json: to_json(&ctx)?, effect: Effect::Read { frozen: Some(FrozenContext::of(&ctx)) } })
    };
    match tool {
        Tool::DocFetch => {
            let a: args::DocFetchArgs = wire::from_value_ref(call.args)?;
            check_document(page, a.document_id.as_deref())?;
            policy(tool, page, env)?;
            let mut request = ContextRequest::new(a.scope);
            request.formats = a.formats.unwrap_or(request.formats);
            request.budget = a.budget;
            request.continuation = a.continuation;
            context(request)
        }
        Tool::BlockFetch => {
            let a: args::BlockFetchArgs = wire::from_value_ref(call.args)?;
            check_document(page, a.document_id.as_deref())?;
            policy(tool, page, env)?;
            let mut request = ContextRequest::new(Scope::Selection { block_ids: a.block_ids });
            request.formats = a.formats.unwrap_or(request.formats);
            context(request)
        }
        _ => {
            let a: args::DocSearchArgs = wire::from_value_ref(call.args)?;
            check_document(page, a.document_id.as_deref())?;
            policy(tool, page, env)?;
            let limit = a.limit.map_or(20, |l| l as usize);
            let result = crate::search::search(page, &a.query, limit)?;
            Ok(Outcome { json: to_json(&result)?, effect: Effect::Read { frozen: None } })
        }
    }
}

/// Any write tool's arguments, reduced to one shape.
struct WriteRequest {
    context_id: Option<String>,
    document_id: String,
    base_revision: u64,
    operations: Vec<Operation>,
    dry_run: bool,
    idempotency_key: String,
    allowed: Option<Vec<String>>,
}

fn parse_write(tool: Tool, page: &Page, args: &Value) -> Result<WriteRequest> {
    macro_rules! block_write {
        ($a:ident, $ops:expr) => {
            WriteRequest {
                context_id: $a.context_id,
                document_id: $a.document_id,
                base_revision: $a.base_revision,
                operations: $ops,
                dry_run: $a.dry_run,
                idempotency_key: $a.idempotency_key,
                allowed: $a.allowed_target_block_ids,
            }
        };
    }
    Ok(match tool {
        Tool::DocApplyBlockOps => {
            let a: args::ApplyBlockOpsArgs = wire::from_value_ref(args)?;
            let ops = a.operations.clone();
            block_write!(a, ops)
        }
        Tool::DocPlanUpdate => {
            let a: args::PlanUpdateArgs = wire::from_value_ref(args)?;
            WriteRequest {
                context_id: a.context_id,
                document_id: a.document_id,
                base_revision: a.base_revision,
                operations: a.operations,
                dry_run: true,
                idempotency_key: a.idempotency_key,
                allowed: a.allowed_target_block_ids,
            }
        }
        Tool::BlockInsert => {
            let a: args::BlockInsertArgs = wire::from_value_ref(args)?;
            let op = match (a.after_block_id.clone(), a.before_block_id.clone()) {
                (Some(after_block_id), None) => Operation::InsertAfter { after_block_id, block: a.block.clone() },
                (None, Some(before_block_id)) => Operation::InsertBefore { before_block_id, block: a.block.clone() },
                _ => {
                    return Err(Error::invalid("/afterBlockId", "give exactly one of afterBlockId and beforeBlockId"));
                }
            };
            block_write!(a, alloc::vec![op])
        }
        Tool::BlockUpdate => {
            let a: args::BlockUpdateArgs = wire::from_value_ref(args)?;
            let op = Operation::Update {
                block_id: a.block_id.clone(),
                text: a.text.clone(),
                kind: a.kind,
                attrs: a.attrs.clone(),
            };
            block_write!(a, alloc::vec![op])
        }
        Tool::BlockDelete => {
            let a: args::BlockDeleteArgs = wire::from_value_ref(args)?;
            let op = Operation::Delete { block_id: a.block_id.clone() };
            block_write!(a, alloc::vec![op])
        }
        Tool::BlockMove => {
            let a: args::BlockMoveArgs = wire::from_value_ref(args)?;
            let op = Operation::Move { block_id: a.block_id.clone(), after_block_id: a.after_block_id.clone() };
            block_write!(a, alloc::vec![op])
        }
        _ => {
            let a: args::PageSaveArgs = wire::from_value_ref(args)?;
            let ops = page_save::operations_for(page, &a.blocks)?;
            WriteRequest {
                context_id: a.context_id,
                document_id: a.document_id,
                base_revision: a.base_revision,
                operations: ops,
                dry_run: a.dry_run,
                idempotency_key: a.idempotency_key,
                allowed: None,
            }
        }
    })
}

fn write(tool: Tool, page: &Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Staged> {
    let spec = tool.spec();
    let request = parse_write(tool, page, call.args)?;
    if request.idempotency_key.trim().is_empty() || request.idempotency_key.len() > 255 {
        return Err(Error::invalid("/idempotencyKey", "use a non-empty key of at most 255 bytes"));
    }
    check_document(page, Some(&request.document_id))?;

    // Dry-runs are never recorded, so only an apply pays for the canonical fingerprint.
    let fingerprint = if request.dry_run { String::new() } else { fingerprint(spec.name, call.args) };
    if !request.dry_run
        && let Some(record) = env.idempotency.lookup(&page.document_id, &request.idempotency_key)
    {
        if record.fingerprint == fingerprint {
            return Ok(Staged::Done(Outcome { json: record.response, effect: Effect::Replayed }));
        }
        return Err(Error::IdempotencyConflict { key: request.idempotency_key });
    }

    // The scope: the frozen context's allowed blocks, narrowed (never widened) by the caller's list.
    let mut scope = TargetScope::unrestricted();
    if let Some(context_id) = &request.context_id {
        let frozen =
            env.contexts.frozen(context_id).ok_or_else(|| Error::ContextNotFound { context_id: context_id.clone() })?;
        if frozen.document_id != page.document_id {
            return Err(Error::invalid("/contextId", "the context belongs to another document"));
        }
        scope = TargetScope::only(frozen.allowed_target_block_ids.iter().map(String::as_str));
    }
    let scope = scope.narrowed_by(request.allowed.as_deref());

    if request.base_revision != page.revision {
        return Err(Error::RevisionConflict { expected: request.base_revision, actual: page.revision });
    }

    let plan = ops::plan(page, &request.operations, &scope, env.mint)?;
    policy(tool, page, env)?;

    let risk = if spec.risk == ToolRisk::HighRiskWrite { Risk::High } else { plan.risk };
    let blocked_reason = review_needed(call.origin, env.profile.review_mode, risk, spec.always_dry_run);
    if !request.dry_run && blocked_reason.is_some() {
        return Err(Error::ReviewRequired { tool: spec.name.into() });
    }
    let mut warnings = Vec::new();
    if spec.always_dry_run {
        warnings.push(WarningV1 {
            code: "proposal_only".into(),
            message: "plan_update never writes: the user accepts or rejects the proposal in a review session".into(),
        });
    }
    let mut result = ToolResultV1 {
        schema: TOOL_RESULT_V1.into(),
        ok: true,
        dry_run: request.dry_run,
        tool_name: spec.name.into(),
        document_id: page.document_id.clone(),
        base_revision: page.revision,
        new_revision: None,
        changed_blocks: plan.changed.clone(),
        diff: plan.diffs.clone(),
        warnings,
        risk,
        blocked: blocked_reason.is_some(),
        blocked_reason: blocked_reason.map(String::from),
        operations: plan.operations.clone(),
        inverse: None,
        audit: AuditV1 {
            tool_call_id: call.tool_call_id.into(),
            idempotency_key: request.idempotency_key.clone(),
            actor: call.actor.into(),
            at: call.at.into(),
        },
    };
    if request.dry_run {
        let json = to_json(&result)?;
        return Ok(Staged::Done(Outcome { json, effect: Effect::Previewed(result) }));
    }
    result.new_revision = Some(page.revision + 1);
    result.inverse = Some(plan.inverse.clone());
    let json = to_json(&result)?;
    let outcome = Outcome { json, effect: Effect::Applied(result) };
    Ok(Staged::Commit { outcome, plan, key: request.idempotency_key, fingerprint })
}

/// Why a write by `origin` may not apply directly, or `None` when it may.
pub fn review_needed(origin: Origin, mode: ReviewMode, risk: Risk, always_dry_run: bool) -> Option<&'static str> {
    if always_dry_run {
        return Some("proposals only apply through a review session");
    }
    if !origin.is_ai() {
        return None;
    }
    match (mode, risk) {
        (ReviewMode::Required, _) => Some("the profile requires review of every AI write"),
        (ReviewMode::Review, _) => Some("the profile reviews every AI write"),
        (ReviewMode::Yolo, Risk::High) => Some("high-risk writes need review even in yolo mode"),
        (ReviewMode::Yolo, _) => None,
    }
}

#[cfg(test)]
mod tests;
