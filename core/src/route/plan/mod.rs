//! From parsed commands to block operations: resolving ordinals, the selection and "the block containing"
//! to ids, finding literals, and working out the write scope.
//!
//! - [`resolve`]: the blocks a [`BlockRef`] names;
//! - [`span`]: replacing or deleting a literal span (exact, or folded as [`crate::route::literal`] allows);
//! - [`structure`]: inserting, moving, retyping and checking blocks.

mod resolve;
mod span;
mod structure;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::RouteInput;
use super::grammar::{BlockRef, Command, Within};
use crate::ops::Operation;
use crate::vocab::ReasonCode;

/// Why a command can't become operations: a reason code and a sentence.
pub(super) struct Refusal {
    pub code: ReasonCode,
    pub reason: String,
    pub candidates: Vec<String>,
}

pub(super) fn refuse(code: ReasonCode, reason: impl Into<String>) -> Refusal {
    Refusal { code, reason: reason.into(), candidates: Vec::new() }
}

/// The refusal for a literal that occurs several times once case and surrounding spaces are ignored.
pub(super) fn folded_many(text: &str, ids: Vec<String>) -> Refusal {
    Refusal {
        code: ReasonCode::MatchAmbiguous,
        reason: format!("{text:?} is not on the page as typed, and ignoring case it occurs in {}", ids.join(", ")),
        candidates: ids,
    }
}

/// Something the route must tell the user about how it read the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Note {
    /// The literal matched only ignoring case and surrounding spaces: what was asked, what was found.
    Folded { asked: String, found: String },
    /// The quoted span is a block's whole text, so the block is deleted rather than left empty.
    WholeBlock(String),
}

/// The operations of a batch of commands, the scope they need, and what the route must say about them.
pub(super) struct Planned {
    pub operations: Vec<Operation>,
    pub allowed: Vec<String>,
    /// A command changes structure (type, place, checked state), which the router is slightly less sure of.
    pub structural: bool,
    pub notes: Vec<Note>,
}

/// Turns commands into operations within the scope they may write.
pub(super) fn operations(input: &RouteInput<'_>, commands: &[Command]) -> Result<Planned, Refusal> {
    let allowed = write_scope(input, commands)?;
    let mut planner = Planner { input, allowed, ops: Vec::new(), notes: Vec::new() };
    for command in commands {
        planner.command(command)?;
    }
    let structural =
        commands.iter().any(|c| matches!(c, Command::SetType { .. } | Command::Check { .. } | Command::Move { .. }));
    Ok(Planned { operations: planner.ops, allowed: planner.allowed, structural, notes: planner.notes })
}

/// The blocks the commands may write: the context's, narrowed to the selection when a command names it, or
/// when a person with blocks selected asks for a text to be found (把「A」改成「B」 with two blocks
/// selected means in those two). A block named by position, kind or heading, and the place of an insert or a
/// move, stay anywhere in the context.
fn write_scope(input: &RouteInput<'_>, commands: &[Command]) -> Result<Vec<String>, Refusal> {
    let context_allowed = &input.context.allowed_target_block_ids;
    let searched = !input.selection.is_empty() && commands.iter().any(searches_page);
    if !searched && !commands.iter().any(uses_selection) {
        return Ok(context_allowed.clone());
    }
    if input.selection.is_empty() {
        return Err(refuse(ReasonCode::TargetNotFound, "the prompt refers to a selection, but nothing is selected"));
    }
    Ok(context_allowed.iter().filter(|id| input.selection.contains(id)).cloned().collect())
}

/// Whether a command writes only inside the user's selection. Inserts and moves do not: their place may be
/// anywhere in the context (`把这条移到最后`), and a move's blocks are still only the ones it names.
fn uses_selection(command: &Command) -> bool {
    match command {
        Command::Replace { within, .. } | Command::DeleteSpan { within, .. } => matches!(within, Within::Selection),
        Command::DeleteBlock(target)
        | Command::SetType { target, .. }
        | Command::SetText { target, .. }
        | Command::Check { target, .. } => matches!(target, BlockRef::Selection),
        Command::Insert { .. } | Command::Move { .. } => false,
    }
}

/// Whether a command looks for its text anywhere (no selection, block or kind named).
fn searches_page(command: &Command) -> bool {
    match command {
        Command::Replace { within, .. } | Command::DeleteSpan { within, .. } => matches!(within, Within::Page),
        _ => false,
    }
}

/// Builds one batch: the operations so far, and the notes for the route's reason.
struct Planner<'a> {
    input: &'a RouteInput<'a>,
    allowed: Vec<String>,
    ops: Vec<Operation>,
    notes: Vec<Note>,
}

impl Planner<'_> {
    /// Appends the operations of one command.
    fn command(&mut self, command: &Command) -> Result<(), Refusal> {
        match command {
            Command::Replace { find, with, all, within, quoted } => {
                let span = span::Span { find, all: *all, within: *within, quoted: *quoted };
                let op = self.replace(&span, with)?;
                self.ops.push(op);
            }
            Command::DeleteSpan { text, all, within } => {
                let span = span::Span { find: text, all: *all, within: *within, quoted: true };
                let op = self.delete_span(&span)?;
                self.ops.push(op);
            }
            Command::DeleteBlock(target) => {
                let ids = self.resolve(target)?;
                if let BlockRef::Containing(text, _) = target {
                    structure::whole_text(self.input.page, &ids, text)?;
                }
                for block_id in ids {
                    self.ops.push(Operation::Delete { block_id });
                }
            }
            Command::Insert { text, kind, at } => {
                let op = self.insert(structure::new_block(*kind, text), at)?;
                self.ops.push(op);
            }
            Command::SetType { target, kind, level } => {
                for id in self.resolve(target)? {
                    let op = structure::set_type(self.input.page, id, *kind, *level)?;
                    self.ops.push(op);
                }
            }
            Command::SetText { target, text } => {
                for id in self.resolve(target)? {
                    self.ops.push(Operation::Update {
                        block_id: id,
                        text: Some(text.clone()),
                        kind: None,
                        attrs: None,
                    });
                }
            }
            Command::Check { target, checked } => {
                let ids = self.resolve(target)?;
                let ops = structure::check(self.input.page, &ids, *checked)?;
                self.ops.extend(ops);
            }
            Command::Move { target, to } => {
                let ids = self.resolve(target)?;
                let ops = self.move_blocks(&ids, to)?;
                self.ops.extend(ops);
            }
        }
        Ok(())
    }
}
