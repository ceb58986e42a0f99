//! Writes: the typed arguments of every write tool ([`WriteArgs`]), reduced to one shape, and SPEC §5's
//! guards in order, each a named step. JSON calls arrive here parsed; core's own callers (review sessions)
//! arrive with typed arguments through [`super::execute_write`], so nothing inside core goes through JSON.

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use serde::Serialize;

use super::idempotency::{fingerprint, fingerprint_sent};
use super::precondition::{self, Preconditions};
use super::{
    ContextLookup, Effect, Env, FrozenContext, Origin, Outcome, Staged, bound_context, check_document, page_save,
};
use crate::error::{Error, Result};
use crate::json::{to_json, to_value};
use crate::limits;
use crate::manifest::{Tool, args};
use crate::ops::{self, Operation, Plan, Risk, TargetScope};
use crate::page::Page;
use crate::policy::{self, Ask, Decision, Hold, Stage};
use crate::wire::{AuditV1, TOOL_RESULT_V1, ToolResultV1, WarningV1};

/// A write tool's arguments, already typed: one variant per write tool.
///
/// Serialized, a variant is its arguments exactly as a model would send them (no tag), so the idempotency
/// fingerprint of a typed call equals that of the same call sent as JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum WriteArgs {
    /// `mnote.doc.apply_block_ops`
    ApplyBlockOps(args::ApplyBlockOpsArgs),
    /// `mnote.doc.plan_update`
    PlanUpdate(args::PlanUpdateArgs),
    /// `mnote.block.insert`
    BlockInsert(args::BlockInsertArgs),
    /// `mnote.block.update`
    BlockUpdate(args::BlockUpdateArgs),
    /// `mnote.block.delete`
    BlockDelete(args::BlockDeleteArgs),
    /// `mnote.block.move`
    BlockMove(args::BlockMoveArgs),
    /// `mnote.page.save`
    PageSave(args::PageSaveArgs),
}

impl WriteArgs {
    /// The tool these arguments are for.
    pub fn tool(&self) -> Tool {
        match self {
            WriteArgs::ApplyBlockOps(_) => Tool::DocApplyBlockOps,
            WriteArgs::PlanUpdate(_) => Tool::DocPlanUpdate,
            WriteArgs::BlockInsert(_) => Tool::BlockInsert,
            WriteArgs::BlockUpdate(_) => Tool::BlockUpdate,
            WriteArgs::BlockDelete(_) => Tool::BlockDelete,
            WriteArgs::BlockMove(_) => Tool::BlockMove,
            WriteArgs::PageSave(_) => Tool::PageSave,
        }
    }

    /// Whether the call only previews (`plan_update` always does).
    pub fn dry_run(&self) -> bool {
        match self {
            WriteArgs::ApplyBlockOps(a) => a.dry_run,
            WriteArgs::PlanUpdate(_) => true,
            WriteArgs::BlockInsert(a) => a.dry_run,
            WriteArgs::BlockUpdate(a) => a.dry_run,
            WriteArgs::BlockDelete(a) => a.dry_run,
            WriteArgs::BlockMove(a) => a.dry_run,
            WriteArgs::PageSave(a) => a.dry_run,
        }
    }
}

macro_rules! each_write {
    ($args:expr, $a:ident => $body:expr) => {
        match $args {
            WriteArgs::ApplyBlockOps($a) => $body,
            WriteArgs::PlanUpdate($a) => $body,
            WriteArgs::BlockInsert($a) => $body,
            WriteArgs::BlockUpdate($a) => $body,
            WriteArgs::BlockDelete($a) => $body,
            WriteArgs::BlockMove($a) => $body,
            WriteArgs::PageSave($a) => $body,
        }
    };
}

impl WriteArgs {
    /// The frozen context the write names, if any.
    pub fn context_id(&self) -> Option<&str> {
        each_write!(self, a => a.context_id.as_deref())
    }

    /// The document the write names.
    pub fn document_id(&self) -> &str {
        each_write!(self, a => a.document_id.as_str())
    }

    /// The write's `idempotencyKey`.
    pub fn idempotency_key(&self) -> &str {
        each_write!(self, a => a.idempotency_key.as_str())
    }

    /// The blocks the write's own list narrows its context to (`allowedTargetBlockIds`), if it lists any.
    pub fn allowed_target_block_ids(&self) -> Option<&[String]> {
        match self {
            WriteArgs::ApplyBlockOps(a) => a.allowed_target_block_ids.as_deref(),
            WriteArgs::PlanUpdate(a) => a.allowed_target_block_ids.as_deref(),
            WriteArgs::BlockInsert(a) => a.allowed_target_block_ids.as_deref(),
            WriteArgs::BlockUpdate(a) => a.allowed_target_block_ids.as_deref(),
            WriteArgs::BlockDelete(a) => a.allowed_target_block_ids.as_deref(),
            WriteArgs::BlockMove(a) => a.allowed_target_block_ids.as_deref(),
            WriteArgs::PageSave(_) => None,
        }
    }

    /// Sets `dryRun` (`plan_update` has none: it never writes).
    pub fn set_dry_run(&mut self, dry_run: bool) {
        match self {
            WriteArgs::ApplyBlockOps(a) => a.dry_run = dry_run,
            WriteArgs::PlanUpdate(_) => {}
            WriteArgs::BlockInsert(a) => a.dry_run = dry_run,
            WriteArgs::BlockUpdate(a) => a.dry_run = dry_run,
            WriteArgs::BlockDelete(a) => a.dry_run = dry_run,
            WriteArgs::BlockMove(a) => a.dry_run = dry_run,
            WriteArgs::PageSave(a) => a.dry_run = dry_run,
        }
    }

    /// The fingerprint of the tool and these arguments serialized, with `dryRun` set to `dry_run` (left out
    /// when `None`): what the same call sent as JSON would be fingerprinted by.
    pub fn fingerprint(&self, dry_run: Option<bool>) -> Result<String> {
        Ok(fingerprint_sent(self.tool().spec().name, &to_value(self)?, dry_run))
    }
}

/// A write call with typed arguments: what [`super::execute_write`] runs.
#[derive(Debug, Clone)]
pub struct WriteCall<'a> {
    /// The tool's arguments.
    pub args: WriteArgs,
    /// Who is asking.
    pub origin: Origin,
    /// The actor recorded in the audit.
    pub actor: &'a str,
    /// The caller's clock, RFC 3339.
    pub at: &'a str,
    /// The tool call's id.
    pub tool_call_id: &'a str,
}

/// A write's plan, made once and kept with its arguments ([`super::ToolArgs`]), so that every answer to
/// that one write comes from this plan: the router's self dry-run, then the command route's shortcut
/// (previewed in its review session, or applied), and a `yolo` proposal's preview, then its apply. Planning
/// is everything between the replay check and the policy: the frozen context and the allowed blocks, the
/// block-level preconditions, and the operations engine ([`ops::plan`]), with the ids it minted.
///
/// A plan is used only on the page it was made on (its revision and number of blocks: every change to a
/// page moves its revision; the document is the arguments' own, checked before); anywhere else the write
/// is planned again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Planned {
    plan: Plan,
    revision: u64,
    blocks: usize,
}

impl Planned {
    fn made_on(page: &Page, plan: Plan) -> Self {
        Planned { plan, revision: page.revision, blocks: page.blocks.len() }
    }

    /// Whether this plan was made on `page` as it is.
    fn fits(&self, page: &Page) -> bool {
        self.revision == page.revision && self.blocks == page.blocks.len()
    }

    /// The plan.
    pub(super) fn plan(&self) -> &Plan {
        &self.plan
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
    revision_refs: Option<Vec<String>>,
    /// The strict page-level check: `baseRevision` must be the page's revision.
    exact_revision: bool,
}

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
            revision_refs: $a.revision_refs,
            exact_revision: $a.require_exact_revision.unwrap_or(false),
        }
    };
}

impl WriteRequest {
    fn of(args: WriteArgs, page: &Page) -> Result<Self> {
        Ok(match args {
            WriteArgs::ApplyBlockOps(a) => {
                let ops = a.operations.clone();
                block_write!(a, ops)
            }
            WriteArgs::PlanUpdate(a) => WriteRequest {
                context_id: a.context_id,
                document_id: a.document_id,
                base_revision: a.base_revision,
                operations: a.operations,
                dry_run: true,
                idempotency_key: a.idempotency_key,
                allowed: a.allowed_target_block_ids,
                revision_refs: a.revision_refs,
                exact_revision: a.require_exact_revision.unwrap_or(false),
            },
            WriteArgs::BlockInsert(a) => {
                let op = insert_of(&a)?;
                block_write!(a, alloc::vec![op])
            }
            WriteArgs::BlockUpdate(a) => {
                let op = Operation::Update {
                    block_id: a.block_id.clone(),
                    text: a.text.clone(),
                    kind: a.kind,
                    attrs: a.attrs.clone(),
                };
                block_write!(a, alloc::vec![op])
            }
            WriteArgs::BlockDelete(a) => {
                let op = Operation::Delete { block_id: a.block_id.clone() };
                block_write!(a, alloc::vec![op])
            }
            WriteArgs::BlockMove(a) => {
                let op = Operation::Move { block_id: a.block_id.clone(), after_block_id: a.after_block_id.clone() };
                block_write!(a, alloc::vec![op])
            }
            WriteArgs::PageSave(a) => WriteRequest {
                operations: page_save::operations_for(page, &a.blocks)?,
                context_id: a.context_id,
                document_id: a.document_id,
                base_revision: a.base_revision,
                dry_run: a.dry_run,
                idempotency_key: a.idempotency_key,
                allowed: None,
                revision_refs: None,
                // A whole-page save replaces every block: it must be based on the page as it is.
                exact_revision: true,
            },
        })
    }
}

/// The one operation of `mnote.block.insert`: after or before its anchor, never both.
fn insert_of(a: &args::BlockInsertArgs) -> Result<Operation> {
    match (a.after_block_id.clone(), a.before_block_id.clone()) {
        (Some(after_block_id), None) => Ok(Operation::InsertAfter { after_block_id, block: a.block.clone() }),
        (None, Some(before_block_id)) => Ok(Operation::InsertBefore { before_block_id, block: a.block.clone() }),
        (None, None) | (Some(_), Some(_)) => {
            Err(Error::invalid("/afterBlockId", "give exactly one of afterBlockId and beforeBlockId"))
        }
    }
}

/// Runs a write up to its commit. `sent` is the fingerprint of the arguments as sent, taken at their parse
/// ([`super::ToolArgs`]); a write typed by core has none and is fingerprinted from its own serialization.
/// `planned` is the plan already made for these arguments, if any ([`Planned`]).
pub(super) fn write(
    page: &Page,
    call: WriteCall<'_>,
    sent: Option<String>,
    planned: Option<Arc<Planned>>,
    env: &mut Env<'_>,
) -> Result<Staged> {
    let WriteCall { args, origin, actor, at, tool_call_id } = call;
    let tool = args.tool();
    // Dry-runs are never recorded, so only an apply pays for the canonical fingerprint.
    let fingerprint = match (args.dry_run(), sent) {
        (true, _) => String::new(),
        (false, Some(sent)) => sent,
        (false, None) => fingerprint(tool.spec().name, &to_value(&args)?),
    };
    let request = WriteRequest::of(args, page)?;
    check_key(&request.idempotency_key)?;
    check_document(page, Some(&request.document_id))?;
    check_bound(tool, origin, &request)?;
    let ask =
        Ask { tool, origin, profile: env.profile, grants: env.grants, permission: page.permission, role: env.role };
    if let Some(replayed) = replay(page, &request, &fingerprint, &ask, env)? {
        return Ok(Staged::Done(replayed));
    }
    let planned = match planned.filter(|p| p.fits(page)) {
        Some(planned) => planned,
        None => Arc::new(plan(page, &request, env)?),
    };
    let hold = hold_of(&ask, planned.plan.risk)?;
    if !request.dry_run && hold.is_some() {
        return Err(Error::ReviewRequired { tool: tool.spec().name.into() });
    }
    let audit = AuditV1 {
        tool_call_id: tool_call_id.into(),
        idempotency_key: request.idempotency_key.clone(),
        actor: actor.into(),
        at: at.into(),
    };
    let mut result = tool_result(page, tool, &request, &planned.plan, hold, audit);
    result.warnings.extend(precondition::rebased(request.base_revision, page, request.dry_run));
    finish(page, result, request, planned, fingerprint)
}

/// Plans the write: its scope (the frozen context, narrowed by its own list), the block-level
/// preconditions, and the operations engine.
fn plan(page: &Page, request: &WriteRequest, env: &mut Env<'_>) -> Result<Planned> {
    let (scope, frozen) = target_scope(page, request, env.contexts)?;
    let read =
        Preconditions::new(request.base_revision, request.exact_revision, frozen, request.revision_refs.as_deref())?;
    let named = read.check_named(page, &request.operations)?;
    let plan = ops::plan(page, &request.operations, &scope, env.mint)?;
    read.check_changed(page, &plan, &named)?;
    Ok(Planned::made_on(page, plan))
}

/// Where writes run, an AI write that would change the page is bound: it names its frozen context, or
/// (a review session's accept, revert or retry, made after its context may have expired) the blocks that
/// context allowed, which the session recorded. The parse of a sent call refuses an unbound one first, with
/// its other bad fields ([`super::SentCall::check_bound`]); a preview writes nothing and needs neither.
fn check_bound(tool: Tool, origin: Origin, request: &WriteRequest) -> Result<()> {
    match request.dry_run || request.allowed.is_some() {
        true => Ok(()),
        false => policy::check_bound(tool, origin, request.context_id.as_deref()),
    }
}

fn check_key(key: &str) -> Result<()> {
    if key.trim().is_empty() || key.len() > 255 {
        return Err(Error::invalid("/idempotencyKey", "use a non-empty key of at most 255 bytes"));
    }
    Ok(())
}

/// The stored answer when the policy replays this call; a stored answer to other arguments is a conflict.
fn replay(
    page: &Page,
    request: &WriteRequest,
    fingerprint: &str,
    ask: &Ask<'_>,
    env: &Env<'_>,
) -> Result<Option<Outcome>> {
    let stored =
        if request.dry_run { None } else { env.idempotency.lookup(&page.document_id, &request.idempotency_key) };
    let Some(record) = stored else { return Ok(None) };
    match policy::decide(ask, Stage::Submitted { dry_run: request.dry_run, stored: true }) {
        Ok(Decision::Replay) if record.fingerprint == fingerprint => {
            Ok(Some(Outcome { json: record.response, effect: Effect::Replayed }))
        }
        Ok(Decision::Replay) => Err(Error::IdempotencyConflict { key: request.idempotency_key.clone() }),
        Ok(Decision::Run | Decision::Preview | Decision::Propose | Decision::Apply | Decision::Hold(_)) | Err(_) => {
            Ok(None)
        }
    }
}

/// The frozen context's allowed blocks, narrowed (never widened) by the caller's list, and the context.
fn target_scope<'r>(
    page: &'r Page,
    request: &'r WriteRequest,
    contexts: &'r dyn ContextLookup,
) -> Result<(TargetScope<'r>, Option<&'r FrozenContext>)> {
    let bound = bound_context(page, request.context_id.as_deref(), contexts)?;
    let frozen = bound.map(|context| context.allowed_target_block_ids.as_slice());
    let scope = match (frozen, request.allowed.as_deref()) {
        (None, None) => TargetScope::unrestricted(),
        (Some(ids), None) | (None, Some(ids)) => TargetScope::listed(page, ids),
        // The router's recommendations repeat their context's list: nothing to narrow.
        (Some(frozen), Some(ids)) if frozen == ids => TargetScope::listed(page, ids),
        (Some(frozen), Some(ids)) => TargetScope::listed(page, frozen).narrowed_by(Some(ids)),
    };
    Ok((scope, bound))
}

/// The policy's answer for a planned write: `Err` when the tool is unavailable, the hold reason if held.
fn hold_of(ask: &Ask<'_>, risk: Risk) -> Result<Option<Hold>> {
    match policy::decide(ask, Stage::Planned { risk }).map_err(|u| u.error(ask.tool))? {
        Decision::Hold(hold) => Ok(Some(hold)),
        Decision::Apply | Decision::Run | Decision::Replay | Decision::Preview | Decision::Propose => Ok(None),
    }
}

fn tool_result(
    page: &Page,
    tool: Tool,
    request: &WriteRequest,
    plan: &Plan,
    hold: Option<Hold>,
    audit: AuditV1,
) -> ToolResultV1 {
    let spec = tool.spec();
    let mut warnings = Vec::new();
    if spec.always_dry_run {
        warnings.push(WarningV1 {
            code: "proposal_only".into(),
            message: "plan_update never writes: the user accepts or rejects the proposal in a review session".into(),
        });
    }
    ToolResultV1 {
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
        risk: policy::risk_of(tool, plan.risk),
        blocked: hold.is_some(),
        blocked_reason: hold.map(|h| h.message().into()),
        operations: plan.operations.clone(),
        inverse: None,
        audit,
    }
}

/// A dry-run is done; an apply gets its new revision and inverse and waits to be committed.
fn finish(
    page: &Page,
    mut result: ToolResultV1,
    request: WriteRequest,
    planned: Arc<Planned>,
    fingerprint: String,
) -> Result<Staged> {
    if request.dry_run {
        let json = to_json(&result)?;
        // A preview too large to keep previews a write that could never be stored: refused alike.
        limits::check_result(&json, &result.changed_blocks)?;
        return Ok(Staged::Previewed { outcome: Outcome { json, effect: Effect::Previewed(result) }, planned });
    }
    result.new_revision = Some(page.revision + 1);
    result.inverse = Some(planned.plan.inverse.clone());
    let json = to_json(&result)?;
    // The answer is kept for idempotent replays: one that could not be stored refuses the write now, on
    // every path alike, rather than failing the storage's commit later.
    limits::check_result(&json, &result.changed_blocks)?;
    let outcome = Outcome { json, effect: Effect::Applied(result) };
    Ok(Staged::Commit { outcome, planned, key: request.idempotency_key, fingerprint })
}
