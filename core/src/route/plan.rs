//! From parsed commands to block operations: resolving ordinals, the selection and "the block containing"
//! to ids, and working out the write scope.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::RouteInput;
use super::grammar::{BlockRef, Command, InsertAt, Within};
use super::intent::ReasonCode;
use crate::ops::{NewBlock, Occurrence, Operation};
use crate::page::{Attrs, BlockType, Page};

/// Why a command can't become operations: a reason code and a sentence.
pub(super) struct Refusal {
    pub code: ReasonCode,
    pub reason: String,
    pub candidates: Vec<String>,
}

fn refuse(code: ReasonCode, reason: impl Into<String>) -> Refusal {
    Refusal { code, reason: reason.into(), candidates: Vec::new() }
}

fn resolve(page: &Page, selection: &[String], target: &BlockRef, allowed: &[String]) -> Result<Vec<String>, Refusal> {
    let missing = || refuse(ReasonCode::TargetNotFound, "the page has no such block");
    match target {
        BlockRef::Ordinal(o) => o.resolve(page).map(|id| vec![id]).ok_or_else(missing),
        BlockRef::Ordinals(list) => {
            let mut ids = Vec::new();
            for o in list {
                let id = o.resolve(page).ok_or_else(missing)?;
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
            Ok(ids)
        }
        BlockRef::Only(kind) => {
            let of_kind: Vec<String> =
                page.blocks.iter().filter(|b| kind.matches(b.kind)).map(|b| b.block_id.clone()).collect();
            match of_kind.as_slice() {
                [] => Err(missing()),
                [one] => Ok(vec![one.clone()]),
                many => Err(Refusal {
                    code: ReasonCode::MatchAmbiguous,
                    reason: format!("the page has {} such blocks: {}", many.len(), many.join(", ")),
                    candidates: many.to_vec(),
                }),
            }
        }
        BlockRef::Selection if selection.is_empty() => {
            Err(refuse(ReasonCode::TargetNotFound, "the prompt refers to a selection, but nothing is selected"))
        }
        BlockRef::Selection => {
            Ok(page.blocks.iter().filter(|b| selection.contains(&b.block_id)).map(|b| b.block_id.clone()).collect())
        }
        BlockRef::Containing(text, kind) => {
            let hits: Vec<String> = page
                .blocks
                .iter()
                .filter(|b| kind.is_none_or(|k| k.matches(b.kind)) && b.text.contains(text.as_str()))
                .map(|b| b.block_id.clone())
                .collect();
            let visible: Vec<String> = hits.iter().filter(|id| allowed.contains(id)).cloned().collect();
            match (hits.len(), visible.len()) {
                (0, _) => Err(refuse(ReasonCode::MatchNotFound, format!("no block contains {text:?}"))),
                (_, 1) => Ok(visible),
                (1, 0) => Ok(hits),
                _ => Err(Refusal {
                    code: ReasonCode::MatchAmbiguous,
                    reason: format!("{} blocks contain {text:?}: {}", hits.len(), hits.join(", ")),
                    candidates: hits,
                }),
            }
        }
    }
}

fn new_block(kind: BlockType, text: &str) -> NewBlock {
    let attrs = match kind {
        BlockType::Todo => Attrs { checked: Some(false), depth: Some(0), ..Attrs::default() },
        BlockType::BulletedListItem | BlockType::NumberedListItem => Attrs { depth: Some(0), ..Attrs::default() },
        BlockType::Heading => Attrs { level: Some(2), ..Attrs::default() },
        BlockType::Paragraph
        | BlockType::Quote
        | BlockType::Code
        | BlockType::Divider
        | BlockType::Image
        | BlockType::Table => Attrs::default(),
    };
    NewBlock { block_id: None, kind, text: text.into(), attrs }
}

/// Turns commands into operations, and the scope they need. The flag says a command changes structure
/// (a type change), which the router is slightly less sure of.
pub(super) fn operations(
    input: &RouteInput<'_>,
    commands: &[Command],
) -> Result<(Vec<Operation>, Vec<String>, bool), Refusal> {
    let allowed = write_scope(input, commands)?;
    let mut ops = Vec::new();
    for command in commands {
        command_ops(input, command, &allowed, &mut ops)?;
    }
    let structural = commands.iter().any(|c| matches!(c, Command::SetType { .. }));
    Ok((ops, allowed, structural))
}

/// The blocks the commands may write: the context's, narrowed to the selection when a command names it.
fn write_scope(input: &RouteInput<'_>, commands: &[Command]) -> Result<Vec<String>, Refusal> {
    let context_allowed = &input.context.allowed_target_block_ids;
    if !commands.iter().any(uses_selection) {
        return Ok(context_allowed.clone());
    }
    if input.selection.is_empty() {
        return Err(refuse(ReasonCode::TargetNotFound, "the prompt refers to a selection, but nothing is selected"));
    }
    Ok(context_allowed.iter().filter(|id| input.selection.contains(id)).cloned().collect())
}

/// Whether a command acts on the user's selection.
fn uses_selection(command: &Command) -> bool {
    match command {
        Command::Replace { within, .. } | Command::DeleteSpan { within, .. } => matches!(within, Within::Selection),
        Command::DeleteBlock(target) | Command::SetType { target, .. } | Command::SetText { target, .. } => {
            matches!(target, BlockRef::Selection)
        }
        Command::Insert { .. } => false,
    }
}

/// The operations of one command, appended to `ops`.
fn command_ops(
    input: &RouteInput<'_>,
    command: &Command,
    allowed: &[String],
    ops: &mut Vec<Operation>,
) -> Result<(), Refusal> {
    let (page, selection) = (input.page, input.selection);
    match command {
        Command::Replace { find, with, all, within, .. } => {
            ops.push(replace_op(page, selection, find, with, *all, *within)?)
        }
        Command::DeleteSpan { text, all, within } => ops.push(replace_op(page, selection, text, "", *all, *within)?),
        Command::DeleteBlock(target) => ops.extend(
            resolve(page, selection, target, allowed)?.into_iter().map(|block_id| Operation::Delete { block_id }),
        ),
        Command::Insert { text, kind, at } => ops.push(insert_op(input, new_block(*kind, text), at, allowed)?),
        Command::SetType { target, kind, level } => {
            for id in resolve(page, selection, target, allowed)? {
                ops.push(set_type_op(page, id, *kind, *level)?);
            }
        }
        Command::SetText { target, text } => {
            for id in resolve(page, selection, target, allowed)? {
                ops.push(Operation::Update { block_id: id, text: Some(text.clone()), kind: None, attrs: None });
            }
        }
    }
    Ok(())
}

/// An insert at the start or end of the page, or next to the block a reference names.
fn insert_op(input: &RouteInput<'_>, block: NewBlock, at: &InsertAt, allowed: &[String]) -> Result<Operation, Refusal> {
    let page = input.page;
    let first_last = |last: bool| {
        let b = if last { page.blocks.last() } else { page.blocks.first() };
        b.map(|b| b.block_id.clone()).ok_or_else(|| refuse(ReasonCode::TargetNotFound, "the page is empty"))
    };
    Ok(match at {
        InsertAt::End => Operation::InsertAfter { after_block_id: first_last(true)?, block },
        InsertAt::Start => Operation::InsertBefore { before_block_id: first_last(false)?, block },
        InsertAt::After(r) => match resolve(page, input.selection, r, allowed)?.pop() {
            Some(anchor) => Operation::InsertAfter { after_block_id: anchor, block },
            None => return Err(refuse(ReasonCode::TargetNotFound, "no block to insert next to")),
        },
        InsertAt::Before(r) => match resolve(page, input.selection, r, allowed)?.into_iter().next() {
            Some(anchor) => Operation::InsertBefore { before_block_id: anchor, block },
            None => return Err(refuse(ReasonCode::TargetNotFound, "no block to insert next to")),
        },
    })
}

/// A type change of one block. Only text blocks trade types directly; a table, code block or divider
/// needs its content reworked, which is a model's job.
fn set_type_op(page: &Page, id: String, kind: BlockType, level: Option<u8>) -> Result<Operation, Refusal> {
    let from = page.block(&id).map(|b| b.kind);
    if !from.is_some_and(is_text_type) || !is_text_type(kind) {
        return Err(refuse(ReasonCode::Complex, "turning this block into that type needs its content rewritten"));
    }
    let attrs = level.map(|l| Attrs { level: Some(l), ..Attrs::default() });
    Ok(Operation::Update { block_id: id, text: None, kind: Some(kind), attrs })
}

fn replace_op(
    page: &Page,
    selection: &[String],
    find: &str,
    with: &str,
    all: bool,
    within: Within,
) -> Result<Operation, Refusal> {
    // "Replace all" that can't reach every occurrence would quietly do less than asked.
    if all && within == Within::Page {
        let locked: Vec<String> =
            page.blocks.iter().filter(|b| !b.editable && b.text.contains(find)).map(|b| b.block_id.clone()).collect();
        if !locked.is_empty() {
            return Err(Refusal {
                code: ReasonCode::NotEditable,
                reason: format!("{find:?} also occurs in locked blocks: {}", locked.join(", ")),
                candidates: locked,
            });
        }
    }
    let block_id = match within {
        Within::Page => None,
        Within::Selection => match selection {
            [only] => Some(only.clone()),
            _ => None,
        },
        Within::Block(o) => {
            Some(o.resolve(page).ok_or_else(|| refuse(ReasonCode::TargetNotFound, "the page has no such block"))?)
        }
        // `表格里的「A」`: the one block of that kind holding the text.
        Within::Kind(kind) => {
            let holders: Vec<&str> = page
                .blocks
                .iter()
                .filter(|b| kind.matches(b.kind) && b.text.contains(find))
                .map(|b| b.block_id.as_str())
                .collect();
            match holders.as_slice() {
                [one] => Some((*one).into()),
                [] => return Err(refuse(ReasonCode::MatchNotFound, format!("no such block contains {find:?}"))),
                _ if all => None,
                many => {
                    return Err(Refusal {
                        code: ReasonCode::MatchAmbiguous,
                        reason: format!("{find:?} occurs in {} such blocks: {}", many.len(), many.join(", ")),
                        candidates: many.iter().map(|s| String::from(*s)).collect(),
                    });
                }
            }
        }
    };
    Ok(Operation::Replace {
        block_id,
        match_text: find.into(),
        content: with.into(),
        occurrence: if all { Occurrence::All } else { Occurrence::Unique },
    })
}

/// Blocks whose text reads the same whatever their type: a type change is a pure relabelling.
fn is_text_type(kind: BlockType) -> bool {
    match kind {
        BlockType::Paragraph
        | BlockType::Heading
        | BlockType::BulletedListItem
        | BlockType::NumberedListItem
        | BlockType::Todo
        | BlockType::Quote => true,
        BlockType::Code | BlockType::Divider | BlockType::Image | BlockType::Table => false,
    }
}
