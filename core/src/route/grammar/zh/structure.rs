//! Structural Chinese clauses that keep the text: 勾选第二个待办, 把「A」标记为完成, 取消勾选选中的待办,
//! 把代码块移到最后, 把第一个标题移到「背景」后面.

use alloc::string::String;

use super::phrase::{Phrase, phrase};
use super::place;
use crate::route::grammar::{BlockRef, Command, InsertAt, split_verb, strip_any};
use crate::route::language::zh;
use crate::route::target::{Kind, Ordinal};

/// `勾选第二个待办`, `把「A」勾上`, `第三个待办标记为完成`, `取消勾选选中的待办`, `所有待办都勾上`, `完成第一个待办`.
pub(super) fn check(s: &str, quotes: &[String]) -> Option<Command> {
    let (checked, target) = if let Some((before, _, after)) = split_verb(s, zh::UNCHECK) {
        (false, only_one_side(before, after)?)
    } else if let Some((before, _, after)) = split_verb(s, zh::CHECK) {
        (true, only_one_side(before, after)?)
    } else {
        // `完成第一个待办`: `完成` reads as "check" only before a todo named by position or text.
        let rest = s.strip_prefix("完成")?;
        let p = phrase(rest, quotes)?;
        let todo_named = p.kind == Some(Kind::Todo)
            || p.literal.is_some()
            || (!p.ordinals.is_empty() && p.ordinals.iter().all(|o| o.kind == Kind::Todo));
        return todo_named.then(|| todo_ref(p)).flatten().map(|target| Command::Check { target, checked: true });
    };
    let (target, _) = strip_any(target.trim(), &["把", "将", "给"]);
    let target = target.trim_end_matches(['都', ',']).trim_end_matches("全部");
    let p = phrase(target, quotes)?;
    todo_ref(p).map(|target| Command::Check { target, checked })
}

/// The words on the one side of a verb that has words: `勾选X` or `X勾上`, never both.
fn only_one_side<'s>(before: &'s str, after: &'s str) -> Option<&'s str> {
    let (before, after) = (before.trim(), after.trim().trim_end_matches(['了', ',']));
    match (before.is_empty(), after.is_empty()) {
        (true, false) => Some(after),
        (false, true) => Some(before),
        _ => None,
    }
}

/// The todos a phrase names: a literal is looked for in todos only, and a position without a todo noun
/// (`第二项`) counts todos.
fn todo_ref(mut p: Phrase) -> Option<BlockRef> {
    if !matches!(p.kind, None | Some(Kind::Todo)) {
        return None;
    }
    for o in &mut p.ordinals {
        if matches!(o.kind, Kind::ListItem | Kind::Any) {
            *o = Ordinal { kind: Kind::Todo, ..*o };
        }
        if o.kind != Kind::Todo {
            return None;
        }
    }
    if p.all {
        let nothing_else = p.literal.is_none() && !p.selection && p.ordinals.is_empty();
        return nothing_else.then_some(BlockRef::Every(Kind::Todo));
    }
    if let Some(text) = p.literal.take() {
        let alone = !p.selection && p.ordinals.is_empty();
        return alone.then_some(BlockRef::Containing(text, Some(Kind::Todo)));
    }
    match p.block_ref()? {
        BlockRef::Only(_) => Some(BlockRef::Only(Kind::Todo)),
        other => Some(other),
    }
}

/// `把代码块移到最后`, `把第一个标题移到「背景」后面`, `把选中的段落挪到最前面`, `将「A」那段移动到开头`.
pub(super) fn move_block(s: &str, quotes: &[String]) -> Option<Command> {
    let (target, _, destination) = split_verb(s, zh::MOVE)?;
    let (target, _) = strip_any(target.trim(), &["把", "将"]);
    let destination = destination.trim().trim_end_matches(['去', '吧']);
    let to = place(destination, quotes, false)?;
    let mut p = phrase(target, quotes)?;
    if p.all {
        return None;
    }
    // A literal names the block that holds it: `把「背景」标题移到最后`.
    if p.literal.is_some() {
        p.containing = true;
    }
    let target = p.block_ref()?;
    if matches!(to, InsertAt::After(ref r) | InsertAt::Before(ref r) if *r == target) {
        return None;
    }
    Some(Command::Move { target, to })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn check_forms() {
        let todo2 = BlockRef::Ordinal(Ordinal { kind: Kind::Todo, n: 2, from_end: false });
        for s in ["勾选第二个待办", "把第二个待办勾上", "第二个待办标记为完成", "完成第二个待办", "把第二项打勾"]
        {
            assert_eq!(check(s, &[]), Some(Command::Check { target: todo2.clone(), checked: true }), "{s}");
        }
        assert_eq!(check("取消勾选第二个待办", &[]), Some(Command::Check { target: todo2.clone(), checked: false }));
        assert_eq!(
            check("所有待办都勾上", &[]),
            Some(Command::Check { target: BlockRef::Every(Kind::Todo), checked: true })
        );
        let marker = crate::route::prompt::marker(0);
        let quoted = vec![String::from("补齐订单模块的单元测试")];
        assert_eq!(
            check(&alloc::format!("把{marker}勾上"), &quoted),
            Some(Command::Check { target: BlockRef::Containing(quoted[0].clone(), Some(Kind::Todo)), checked: true })
        );
        assert_eq!(check("勾选", &[]), None, "a verb with nothing to check");
        assert_eq!(check("勾选第二段", &[]), None, "a paragraph is not a todo");
    }
}
