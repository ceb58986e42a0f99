//! Partial accept: which operations of a proposal belong to which blocks.
//!
//! Each operation is attributed to the block it changes: a replace or update to its block, an insert to
//! the new block, a delete or move to the moved or deleted block. A `replace` without `blockId` may change
//! several blocks, so it is expanded into one `replace` per block it hits, found by replaying the batch on a
//! copy of the page. Choosing blocks keeps their operations, in order; the executor then validates the
//! chosen batch again as a whole.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::session::ReviewSessionV1;
use crate::error::{Error, Result};
use crate::ops::{self, Operation, TargetScope};
use crate::page::Page;

/// Fails unless `block_ids` is a choice among the blocks `session`'s preview changes.
pub(crate) fn check_choice(session: &ReviewSessionV1, block_ids: &[String]) -> Result<()> {
    if block_ids.is_empty() {
        return Err(Error::invalid(
            "/blockIds",
            "choose at least one block, or leave blockIds out to accept every change",
        ));
    }
    let changed: Vec<&str> =
        session.preview.iter().flat_map(|p| p.changed_blocks.iter().map(|c| c.block_id.as_str())).collect();
    for (i, id) in block_ids.iter().enumerate() {
        if !changed.contains(&id.as_str()) {
            return Err(Error::invalid(
                format!("/blockIds/{i}"),
                format!("block {id:?} has no change in this proposal"),
            ));
        }
    }
    Ok(())
}

/// The operations of `session`'s proposal that change `block_ids` (a choice [`check_choice`] accepts), found
/// on `page` as it is now. While the blocks the proposal touches are as they were at its base, that gives the
/// same operations as the base page; when they are not, the executor refuses the batch anyway.
pub(crate) fn select(session: &ReviewSessionV1, page: &Page, block_ids: &[String]) -> Result<Vec<Operation>> {
    let attributed = attribute(page, &session.proposal.operations, session.base.allowed_target_block_ids.as_deref())?;
    Ok(attributed.into_iter().filter(|(owner, _)| block_ids.contains(owner)).map(|(_, op)| op).collect())
}

/// Every operation of `operations` paired with the block it changes, with block-less replaces expanded.
pub(crate) fn attribute(
    page: &Page,
    operations: &[Operation],
    allowed: Option<&[String]>,
) -> Result<Vec<(String, Operation)>> {
    let mut sim = page.clone();
    // Inserted blocks join the scope of the operations after them, as they do in the executor.
    let mut inserted: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(operations.len());
    // Proposal operations carry every block id already; nothing needs minting.
    let mut no_mint = String::new;
    for op in operations {
        let scope = match op {
            Operation::Replace { block_id: None, .. } => match allowed {
                Some(allowed) => TargetScope::only(allowed.iter().chain(inserted.iter()).cloned()),
                None => TargetScope::unrestricted(),
            },
            Operation::Replace { block_id: Some(_), .. }
            | Operation::InsertAfter { .. }
            | Operation::InsertBefore { .. }
            | Operation::Update { .. }
            | Operation::Delete { .. }
            | Operation::Move { .. } => TargetScope::unrestricted(),
        };
        let plan = ops::plan(&sim, core::slice::from_ref(op), &scope, &mut no_mint)?;
        match op {
            Operation::Replace { block_id: None, match_text, content, occurrence } => {
                for changed in &plan.changed {
                    out.push((
                        changed.block_id.clone(),
                        Operation::Replace {
                            block_id: Some(changed.block_id.clone()),
                            match_text: match_text.clone(),
                            content: content.clone(),
                            occurrence: *occurrence,
                        },
                    ));
                }
            }
            Operation::Replace { block_id: Some(id), .. }
            | Operation::Update { block_id: id, .. }
            | Operation::Delete { block_id: id }
            | Operation::Move { block_id: id, .. } => out.push((id.clone(), op.clone())),
            Operation::InsertAfter { block, .. } | Operation::InsertBefore { block, .. } => {
                let id = block.block_id.clone().unwrap_or_default();
                inserted.push(id.clone());
                out.push((id, op.clone()));
            }
        }
        plan.commit(&mut sim);
    }
    Ok(out)
}
