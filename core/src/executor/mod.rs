//! The one executor entry point: every tool call, from Hermes, the shortcut router, the browser preview or a
//! review accept, runs through [`execute`] (or its typed forms), which applies every guard in one place.
//!
//! A call is parsed once, where it enters (`call.rs`): [`SentCall`] over the wire (the Worker's routes),
//! [`ToolArgs::parse`] for a [`Call`] given as JSON, or typed by core ([`WriteArgs`]); the executor, review
//! and the Worker's access checks then take the typed [`ToolCall`] and read no argument JSON. An AI write
//! that names no frozen context never leaves the parse of a sent call (`mnote_context_required`,
//! [`SentCall::into_args`]), and the executor refuses one that reaches it anyway (a write typed by core):
//! an AI write that changes the page is bound to its context, or to the scope a review session recorded
//! from it.
//!
//! A write is planned once: the plan travels with its typed arguments (`Planned`, attached by core only),
//! so the router's self dry-run is the plan the command route's shortcut is previewed and applied from, and
//! a `yolo` proposal's apply commits the plan its preview showed, minted block ids included.
//!
//! For a write the order is SPEC §5's: schema → idempotency replay → frozen context → revision → the
//! operations engine (block exists → in scope → editable → match found → match unique) → policy (tool
//! disabled or read-only document → capability scope → review mode). The first failure is returned and
//! nothing is written. Reads check the schema, the frozen context they name (if any, by the same rule as
//! writes), then the policy.
//!
//! The revision check is per block (`precondition.rs`): a write conflicts only when a block it touches
//! changed since the caller's read, known from its frozen context's block hashes, the `revisionRefs` it
//! passes, or its `baseRevision` and the page's [`history`](crate::history). A write that lands on a newer
//! revision than its `baseRevision` answers `baseRevision` = the revision it was applied on and a
//! [`REBASED`] warning. `mnote.page.save` and `requireExactRevision: true` keep the page-level check.
//!
//! The executor holds no state of its own: the caller passes the page, the profile, the frozen contexts, an
//! idempotency store, the clock reading and an id minter, and persists what the [`Effect`] says changed.

mod call;
pub mod idempotency;
mod origin;
mod page_save;
mod precondition;
mod write;

use crate::json::Read;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::{self, ContextRequest, Scope};
use crate::error::{Error, Result};
use crate::json::to_json;
use crate::manifest::Tool;
use crate::page::{Block, Page};
use crate::policy::{self, Ask, Stage};
use crate::profile::Profile;
use crate::wire::{ContextHeldV1, PageAiContextV1, PageAiContextV2, SuggestionV1, ToolResultV1};
pub use call::{ReadArgs, SentCall, ToolArgs, ToolCall, Typed};
use idempotency::{IdempotencyRecord, IdempotencyStore};
pub use origin::{Origin, check_call_bound};
pub use precondition::REBASED;
pub(crate) use write::Planned;
pub use write::{WriteArgs, WriteCall};

/// A frozen context as the executor needs it: what a contextId binds a write to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
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
    /// The 8-hex content hash (the `h8` of the `revisionRef`) of each block the context showed: a write
    /// bound to it conflicts when a block it touches no longer has this hash. Empty when unknown, and then
    /// the write's `baseRevision` decides.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub block_hashes: BTreeMap<String, String>,
}

/// The hash of each of `blocks`, by id. Inserted one at a time rather than collected: `collect` into a
/// `BTreeMap` sorts the pairs first (a stable sort), which the browser package carried for this alone (issue
/// 29); a later block with the same id wins either way.
fn block_hashes(blocks: &[&Block]) -> BTreeMap<String, String> {
    let mut hashes = BTreeMap::new();
    for block in blocks {
        hashes.insert(block.block_id.clone(), block.content_hash8());
    }
    hashes
}

impl FrozenContext {
    /// Freezes `page` into a context and keeps what the executor needs of it, with the hash of every block
    /// the context shows.
    pub fn freeze(page: &Page, request: &ContextRequest, context_id: &str) -> Result<(PageAiContextV1, Self)> {
        let snapshot = context::build_snapshot(page, request, context_id)?;
        let hashes = block_hashes(&snapshot.blocks);
        let frozen = FrozenContext { block_hashes: hashes, ..FrozenContext::of(&snapshot.context) };
        Ok((snapshot.context, frozen))
    }

    /// [`FrozenContext::freeze`] for `mnote.page_ai_context.v2`: the context shows `suggestions` (see
    /// [`context::build_context_v2`]); what is frozen is the same as for v1.
    pub fn freeze_v2(
        page: &Page,
        request: &ContextRequest,
        context_id: &str,
        suggestions: &[SuggestionV1],
    ) -> Result<(PageAiContextV2, Self)> {
        let snapshot = context::build_snapshot_v2(page, request, context_id, suggestions)?;
        let hashes = block_hashes(&snapshot.blocks);
        let frozen = FrozenContext { block_hashes: hashes, ..FrozenContext::of_v2(&snapshot.context) };
        Ok((snapshot.context, frozen))
    }

    /// [`FrozenContext::of`] for a `mnote.page_ai_context.v2` context: the same fields bind it.
    pub fn of_v2(context: &PageAiContextV2) -> Self {
        let blocks = context.blocks.iter().flatten().map(|b| (&b.block_id, &b.revision_ref));
        let allowed = &context.allowed_target_block_ids;
        Self::kept(&context.context_id, &context.document_id, context.revision, &context.scope, allowed, blocks)
    }

    /// The frozen part of a context built elsewhere: block hashes come from its `json` view (the
    /// `revisionRef`s), and are unknown without one.
    pub fn of(context: &PageAiContextV1) -> Self {
        let blocks = context.blocks.iter().flatten().map(|b| (&b.block_id, &b.revision_ref));
        let allowed = &context.allowed_target_block_ids;
        Self::kept(&context.context_id, &context.document_id, context.revision, &context.scope, allowed, blocks)
    }

    /// [`FrozenContext::of`] for a context read as [`ContextHeldV1`] (the browser package's path).
    pub fn held(context: &ContextHeldV1) -> Self {
        let blocks = context.blocks.iter().flatten().map(|b| (&b.block_id, &b.revision_ref));
        let allowed = &context.allowed_target_block_ids;
        Self::kept(&context.context_id, &context.document_id, context.revision, &context.scope, allowed, blocks)
    }

    /// What both forms of a context keep: its ids, revision, scope, allowed targets, and the `h8` of each
    /// block's `revisionRef` (`pageRev:{revision}:block:{id}:{h8}`), by block id.
    fn kept<'a>(
        context_id: &str,
        document_id: &str,
        revision: u64,
        scope: &str,
        allowed: &[String],
        blocks: impl Iterator<Item = (&'a String, &'a String)>,
    ) -> Self {
        let mut block_hashes = BTreeMap::new();
        for (id, revision_ref) in blocks {
            if let Some(h8) = revision_ref.rsplit(':').next() {
                block_hashes.insert(id.clone(), String::from(h8));
            }
        }
        FrozenContext {
            context_id: context_id.into(),
            document_id: document_id.into(),
            revision,
            scope: scope.into(),
            allowed_target_block_ids: allowed.to_vec(),
            block_hashes,
        }
    }
}

#[cfg(test)]
impl FrozenContext {
    /// A context over every block of `page` as it is, with no block hashes (its `baseRevision` decides):
    /// what core's unit tests bind an AI write to when the context is not what they test.
    pub(crate) fn whole_page(page: &Page, context_id: &str) -> Self {
        FrozenContext {
            context_id: context_id.into(),
            document_id: page.document_id.clone(),
            revision: page.revision,
            scope: "full".into(),
            allowed_target_block_ids: page.blocks.iter().map(|b| b.block_id.clone()).collect(),
            block_hashes: BTreeMap::new(),
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

impl ContextLookup for BTreeMap<String, FrozenContext> {
    fn frozen(&self, context_id: &str) -> Option<&FrozenContext> {
        self.get(context_id)
    }
}

/// One tool call as JSON: the executor's convenience for callers that hold a call's name and JSON arguments
/// (the browser package's preview, tests). [`execute`] parses it once ([`ToolArgs::parse`]) and runs the
/// typed call; the Worker parses where a call enters and runs [`ToolCall`]s ([`execute_call`]).
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
    /// The role of the person the call acts for, in the document's workspace ([`crate::policy::Role`]).
    pub role: crate::policy::Role,
    /// Frozen contexts by id.
    pub contexts: &'a dyn ContextLookup,
    /// Idempotency records.
    pub idempotency: &'a mut dyn IdempotencyStore,
    /// Mints block ids for inserted blocks.
    pub mint: &'a mut dyn FnMut() -> String,
    /// The page's pending suggestions ([`crate::review::suggestions`]), which `mnote.doc.fetch` and
    /// `mnote.block.fetch` show on the blocks they answer (`mnote.page_ai_context.v2`); empty when the
    /// caller keeps none (a browser preview), and then the contexts show none.
    pub suggestions: &'a [SuggestionV1],
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
    let staged = stage_json(page, call, env)?;
    Ok(commit(page, staged, env))
}

/// Runs one typed tool call against `page`: [`execute`] without the parse. On [`Effect::Applied`] the page
/// has been changed in place.
pub fn execute_call(page: &mut Page, call: ToolCall<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    let staged = stage(page, call, env)?;
    Ok(commit(page, staged, env))
}

/// Runs one write whose arguments are already typed: the same guards and answer as [`execute`] with the
/// same arguments as JSON, without the JSON. On [`Effect::Applied`] the page has been changed in place.
pub fn execute_write(page: &mut Page, call: WriteCall<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    let staged = write::write(page, call, None, None, env)?;
    Ok(commit(page, staged, env))
}

/// Runs a read or a dry-run against a page that stays shared: the browser's instant preview and the router's
/// self-check. A call that would write is refused.
pub fn preview(page: &Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    previewed(stage_json(page, call, env)?)
}

/// [`preview`] for a typed tool call.
pub fn preview_call(page: &Page, call: ToolCall<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    previewed(stage(page, call, env)?)
}

/// [`preview`] for a write whose arguments are already typed (the router's self-check, the browser's
/// `validateOps`): the same guards and answer as the same call sent as JSON, without the JSON.
pub fn preview_write(page: &Page, call: WriteCall<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    previewed(write::write(page, call, None, None, env)?)
}

/// [`preview_call`], with the plan the preview was made from: attached to the same arguments
/// ([`ToolArgs::with_plan`]), it answers their apply on this page without planning again. `None` for a
/// read or a replay.
pub(crate) fn preview_planned(
    page: &Page,
    call: ToolCall<'_>,
    env: &mut Env<'_>,
) -> Result<(Outcome, Option<Arc<Planned>>)> {
    with_plan(stage(page, call, env)?)
}

/// [`preview_planned`] for a write whose arguments are already typed (the router's self dry-run).
pub(crate) fn preview_write_planned(
    page: &Page,
    call: WriteCall<'_>,
    env: &mut Env<'_>,
) -> Result<(Outcome, Option<Arc<Planned>>)> {
    with_plan(write::write(page, call, None, None, env)?)
}

fn with_plan(staged: Staged) -> Result<(Outcome, Option<Arc<Planned>>)> {
    match staged {
        Staged::Previewed { outcome, planned } => Ok((outcome, Some(planned))),
        Staged::Done(outcome) => Ok((outcome, None)),
        Staged::Commit { .. } => Err(not_a_preview()),
    }
}

impl<'a> Call<'a> {
    /// The typed call: the one parse of its name and arguments ([`ToolArgs::parse`]).
    pub fn typed(&self) -> Result<ToolCall<'a>> {
        Ok(self.parsed(ToolArgs::parse(self.tool_name, self.args)?))
    }

    fn parsed(&self, args: ToolArgs) -> ToolCall<'a> {
        ToolCall {
            args,
            origin: self.origin,
            actor: self.actor,
            at: self.at,
            tool_call_id: self.tool_call_id,
            new_context_id: self.new_context_id,
        }
    }
}

/// A preview's answer; a call that would write is refused.
fn previewed(staged: Staged) -> Result<Outcome> {
    match staged {
        Staged::Done(outcome) | Staged::Previewed { outcome, .. } => Ok(outcome),
        Staged::Commit { .. } => Err(not_a_preview()),
    }
}

fn not_a_preview() -> Error {
    Error::invalid("/dryRun", "a preview runs only with dryRun:true")
}

/// A call's answer: a preview with the plan it was made from, or for an apply the plan still to be
/// committed.
enum Staged {
    Done(Outcome),
    Previewed { outcome: Outcome, planned: Arc<Planned> },
    Commit { outcome: Outcome, planned: Arc<Planned>, key: String, fingerprint: String },
}

fn commit(page: &mut Page, staged: Staged, env: &mut Env<'_>) -> Outcome {
    match staged {
        Staged::Done(outcome) | Staged::Previewed { outcome, .. } => outcome,
        Staged::Commit { outcome, planned, key, fingerprint } => {
            planned.plan().commit(page);
            let record = IdempotencyRecord { fingerprint, response: outcome.json.clone() };
            env.idempotency.record(&page.document_id, &key, record);
            outcome
        }
    }
}

/// [`stage`] for a call given as JSON: parsed here ([`ToolArgs`]'s parse), run at once; only an apply takes
/// its fingerprint (its JSON already says `dryRun:false`).
fn stage_json(page: &Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Staged> {
    let tool = call::tool_of(call.tool_name)?;
    match call::parse_typed(tool, call.args)? {
        Typed::Read(args) => read(page, args, call.origin, call.new_context_id, env).map(Staged::Done),
        Typed::Write(args) => stage_write_json(page, tool, *args, call, env),
    }
}

/// The write arm of [`stage_json`]: only an apply takes its fingerprint.
fn stage_write_json(page: &Page, tool: Tool, args: WriteArgs, call: &Call<'_>, env: &mut Env<'_>) -> Result<Staged> {
    let sent = (!args.dry_run()).then(|| idempotency::fingerprint(tool.spec().name, call.args));
    let typed =
        WriteCall { args, origin: call.origin, actor: call.actor, at: call.at, tool_call_id: call.tool_call_id };
    write::write(page, typed, sent, None, env)
}

/// [`preview`] for write tools only; a read tool is `mnote_invalid_arguments`. The same guards and answer
/// as [`preview`] for a write, without the read path: a caller that freezes no context through the
/// executor (the browser package's preview) does not link it.
pub fn preview_write_json(page: &Page, call: &Call<'_>, env: &mut Env<'_>) -> Result<Outcome> {
    let tool = call::tool_of(call.tool_name)?;
    match call::parse_typed(tool, call.args)? {
        Typed::Read(_) => Err(Error::invalid(
            "/toolName",
            alloc::format!("{} only reads: a write preview dry-runs write tools", tool.spec().name),
        )),
        Typed::Write(args) => previewed(stage_write_json(page, tool, *args, call, env)?),
    }
}

fn stage(page: &Page, call: ToolCall<'_>, env: &mut Env<'_>) -> Result<Staged> {
    let ToolCall { args, origin, actor, at, tool_call_id, new_context_id } = call;
    let (typed, sent, planned) = args.into_parts();
    match typed {
        Typed::Read(args) => read(page, args, origin, new_context_id, env).map(Staged::Done),
        Typed::Write(args) => {
            let typed = WriteCall { args: *args, origin, actor, at, tool_call_id };
            write::write(page, typed, sent, planned, env)
        }
    }
}

/// The policy's answer for a read: `Err` with the coded error when the tool is unavailable here.
fn check_available(tool: Tool, page: &Page, origin: Origin, env: &Env<'_>) -> Result<()> {
    let ask =
        Ask { tool, origin, profile: env.profile, grants: env.grants, permission: page.permission, role: env.role };
    policy::decide(&ask, Stage::Run).map(|_| ()).map_err(|unavailable| unavailable.error(tool))
}

fn check_document(page: &Page, document_id: Option<&str>) -> Result<()> {
    match document_id {
        Some(id) if id != page.document_id => {
            Err(Error::invalid("/documentId", alloc::format!("this call is bound to document {:?}", page.document_id)))
        }
        Some(_) | None => Ok(()),
    }
}

/// The frozen context a call names, if it names one: a context this caller does not know (never made, or
/// expired) is `mnote_context_not_found`, another document's is `mnote_invalid_arguments`. Reads and writes
/// share the rule, so a read naming a context is judged exactly as a write naming it.
fn bound_context<'c>(
    page: &Page,
    context_id: Option<&str>,
    contexts: &'c dyn ContextLookup,
) -> Result<Option<&'c FrozenContext>> {
    let Some(context_id) = context_id else { return Ok(None) };
    let context =
        contexts.frozen(context_id).ok_or_else(|| Error::ContextNotFound { context_id: context_id.into() })?;
    if context.document_id != page.document_id {
        return Err(Error::invalid("/contextId", "the context belongs to another document"));
    }
    Ok(Some(context))
}

/// The checks every read passes before it runs: its document, the context it names, the policy.
fn check_read(
    tool: Tool,
    page: &Page,
    document_id: Option<&str>,
    context_id: Option<&str>,
    origin: Origin,
    env: &Env<'_>,
) -> Result<()> {
    check_document(page, document_id)?;
    bound_context(page, context_id, env.contexts)?;
    check_available(tool, page, origin, env)
}

/// A read's answer. The fetches answer `mnote.page_ai_context.v2`, with the suggestions of `env` on the
/// blocks they show.
fn read(page: &Page, args: ReadArgs, origin: Origin, new_context_id: &str, env: &Env<'_>) -> Result<Outcome> {
    let context = |request: ContextRequest| -> Result<Outcome> {
        let (ctx, frozen) = FrozenContext::freeze_v2(page, &request, new_context_id, env.suggestions)?;
        Ok(Outcome { json: to_json(&ctx)?, effect: Effect::Read { frozen: Some(frozen) } })
    };
    match args {
        ReadArgs::DocFetch(a) => {
            check_read(Tool::DocFetch, page, a.document_id.as_deref(), a.context_id.as_deref(), origin, env)?;
            let mut request = ContextRequest::new(a.scope);
            request.formats = a.formats.unwrap_or(request.formats);
            request.budget = a.budget;
            request.continuation = a.continuation;
            context(request)
        }
        ReadArgs::BlockFetch(a) => {
            check_read(Tool::BlockFetch, page, a.document_id.as_deref(), a.context_id.as_deref(), origin, env)?;
            let mut request = ContextRequest::new(Scope::Selection { block_ids: a.block_ids });
            request.formats = a.formats.unwrap_or(request.formats);
            context(request)
        }
        ReadArgs::DocSearch(a) => {
            check_read(Tool::DocSearch, page, a.document_id.as_deref(), a.context_id.as_deref(), origin, env)?;
            let limit = a.limit.map_or(20, |l| l as usize);
            let result = crate::search::search(page, &a.query, limit)?;
            Ok(Outcome { json: to_json(&result)?, effect: Effect::Read { frozen: None } })
        }
    }
}

#[cfg(test)]
mod tests;
