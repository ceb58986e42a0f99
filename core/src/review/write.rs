//! How review sessions ask the executor for a dry-run or a write. Every write a session makes is an
//! `mnote.doc.apply_block_ops` call with typed arguments through [`crate::executor::execute_write`], so
//! scope, revision, editability, idempotency and policy are checked there and nowhere else.

use alloc::string::String;
use alloc::vec::Vec;

use super::Stamp;
use super::session::BlockStampV1;
use crate::error::{Error, Result};
use crate::executor::{Effect, Env, Origin, Outcome, WriteArgs, WriteCall, execute_write};
use crate::json;
use crate::manifest::args::ApplyBlockOpsArgs;
use crate::ops::Operation;
use crate::page::Page;
use crate::wire::ToolResultV1;

/// One batch to run.
pub(crate) struct Batch<'s> {
    pub operations: &'s [Operation],
    /// What the batch was made against: the revision, and the `revisionRef`s of the blocks it read. A
    /// preview against the page as it is now is [`Read::NOW`].
    pub read: Read<'s>,
    pub allowed: Option<&'s [String]>,
    pub dry_run: bool,
    pub idempotency_key: &'s str,
    pub origin: Origin,
    pub tool_call_id: &'s str,
}

/// What a batch was made against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Read<'s> {
    /// The revision; `None` for the page as it is now.
    pub revision: Option<u64>,
    /// The `revisionRef`s of the blocks it read (each checked by content hash).
    pub revision_refs: &'s [String],
}

impl Read<'_> {
    /// The page as it is now: nothing to check.
    pub const NOW: Read<'static> = Read { revision: None, revision_refs: &[] };
}

/// Runs `batch` through the executor's block-level preconditions (see [`Read`]) and returns the tool
/// result. The batch is an `mnote.doc.apply_block_ops` call: that tool takes any batch of operations.
pub(crate) fn run(page: &mut Page, batch: &Batch<'_>, stamp: &Stamp<'_>, env: &mut Env<'_>) -> Result<ToolResultV1> {
    let refs = batch.read.revision_refs;
    let args = WriteArgs::ApplyBlockOps(ApplyBlockOpsArgs {
        base_revision: batch.read.revision.unwrap_or(page.revision),
        dry_run: batch.dry_run,
        allowed_target_block_ids: batch.allowed.map(<[String]>::to_vec),
        revision_refs: (!refs.is_empty()).then(|| refs.to_vec()),
        ..ApplyBlockOpsArgs::dry_run(page, batch.operations.to_vec(), batch.idempotency_key)
    });
    let call =
        WriteCall { args, origin: batch.origin, actor: stamp.actor, at: stamp.at, tool_call_id: batch.tool_call_id };
    result_of(execute_write(page, call, env)?)
}

/// The tool result inside a write's outcome; a replay's stored JSON is parsed back.
pub(crate) fn result_of(outcome: Outcome) -> Result<ToolResultV1> {
    match outcome.effect {
        Effect::Previewed(result) | Effect::Applied(result) => Ok(result),
        Effect::Replayed => json::from_json(&outcome.json),
        Effect::Read { .. } => Err(Error::invalid("/toolName", "a review session holds writes; this tool only reads")),
    }
}

/// The blocks `result` touched, as they are on `page` right after it was applied.
pub(crate) fn stamps(page: &Page, result: &ToolResultV1) -> Vec<BlockStampV1> {
    result
        .changed_blocks
        .iter()
        .map(|changed| {
            let block = page.block(&changed.block_id);
            BlockStampV1 {
                block_id: changed.block_id.clone(),
                revision_ref: block.map(|b| page.revision_ref(b)),
                content_hash: block.map(|b| b.content_hash8()),
            }
        })
        .collect()
}
