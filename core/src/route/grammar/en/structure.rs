//! Structural English clauses that keep the text: check off the first todo, mark "X" as done, uncheck the
//! selected todos, move the code block to the end, move the second heading after the quote.

use alloc::string::String;

use super::words::block_ref;
use super::{destination, lead};
use crate::route::grammar::{BlockRef, Command, InsertAt};
use crate::route::language::en;
use crate::route::target::{Kind, Ordinal};

/// `check off the first todo`, `tick "X"`, `uncheck the selected todos`, `mark "X" as done`, `mark all the tasks
/// complete`, `set the second todo to not done`.
pub(super) fn check(words: &[&str], quotes: &[String]) -> Option<Command> {
    let (checked, target, by_mark) = if let Some((_, rest)) = lead(words, en::CHECK) {
        (true, rest.strip_suffix(&["off"]).unwrap_or(rest), false)
    } else if let Some((_, rest)) = lead(words, en::UNCHECK) {
        (false, rest, true)
    } else {
        let (_, rest) = lead(words, en::MARK)?;
        let (target, checked) = marked_state(rest)?;
        (checked, target, true)
    };
    todo_ref(target, quotes, by_mark).map(|target| Command::Check { target, checked })
}

/// `X as done`, `X complete`, `X to not done`, `X as incomplete`: the target words and the new state.
fn marked_state<'a>(words: &'a [&'a str]) -> Option<(&'a [&'a str], bool)> {
    let done = |w: &str| en::DONE.contains(&w);
    let open = |w: &str| en::OPEN.contains(&w);
    let (last, rest) = words.split_last()?;
    let (rest, checked) = match rest {
        [r @ .., "not"] if done(last) => (r, false),
        r if done(last) => (r, true),
        r if open(last) => (r, false),
        _ => return None,
    };
    let rest = match rest {
        [r @ .., "as" | "to"] => r,
        r => r,
    };
    (!rest.is_empty()).then_some((rest, checked))
}

/// The todos some words name. Positions without a todo noun (`the second item`) count todos; a quoted text
/// is looked for in todos only; the selection needs a todo noun after `check` (`check this` may mean "look
/// at it"), but not after `mark` or `uncheck`.
fn todo_ref(words: &[&str], quotes: &[String], by_mark: bool) -> Option<BlockRef> {
    let todo_noun = |w: &str| matches!(w, "todo" | "todos" | "to-do" | "to-dos" | "task" | "tasks" | "item" | "items");
    match words {
        ["all" | "every" | "each", "the", noun] | ["all" | "every" | "each", noun] if todo_noun(noun) => {
            return Some(BlockRef::Every(Kind::Todo));
        }
        _ => {}
    }
    let as_todo = |o: &Ordinal| match o.kind {
        Kind::Todo | Kind::ListItem | Kind::Any => Some(Ordinal { kind: Kind::Todo, ..*o }),
        _ => None,
    };
    match block_ref(words, quotes)? {
        BlockRef::Containing(text, None | Some(Kind::Todo)) => Some(BlockRef::Containing(text, Some(Kind::Todo))),
        BlockRef::Ordinal(o) => as_todo(&o).map(BlockRef::Ordinal),
        BlockRef::Ordinals(list) => list.iter().map(as_todo).collect::<Option<_>>().map(BlockRef::Ordinals),
        BlockRef::Selection if by_mark || words.iter().any(|w| todo_noun(w)) => Some(BlockRef::Selection),
        BlockRef::Only(Kind::Todo) => Some(BlockRef::Only(Kind::Todo)),
        BlockRef::Every(Kind::Todo) => Some(BlockRef::Every(Kind::Todo)),
        BlockRef::Containing(..) | BlockRef::Selection | BlockRef::Only(_) | BlockRef::Every(_) => None,
    }
}

/// `move the code block to the end`, `move "X" to the top`, `move the second heading after the quote`,
/// `move the selected bullets below the heading "Goals"`.
pub(super) fn move_block(words: &[&str], quotes: &[String]) -> Option<Command> {
    let (_, rest) = lead(words, en::MOVE)?;
    let rest = match rest {
        [r @ .., "please"] => r,
        r => r,
    };
    for at in 1..rest.len() {
        let (target, place) = rest.split_at(at);
        let place = match place {
            ["down" | "up", r @ ..] => r,
            r => r,
        };
        let (Some(to), Some(target)) = (destination(place, quotes), block_ref(target, quotes)) else { continue };
        if matches!(&to, InsertAt::After(r) | InsertAt::Before(r) if *r == target) {
            return None;
        }
        return Some(Command::Move { target, to });
    }
    None
}
