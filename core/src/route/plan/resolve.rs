//! The blocks a command names: by position, by kind, through the selection, or as the one block holding a
//! literal.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::{Note, Planner, Refusal, folded_many, refuse};
use crate::route::grammar::BlockRef;
use crate::route::literal::{self, Found};
use crate::route::target::Kind;
use crate::vocab::ReasonCode;

impl Planner<'_> {
    /// The ids `target` names, in page order for several.
    pub(super) fn resolve(&mut self, target: &BlockRef) -> Result<Vec<String>, Refusal> {
        let page = self.input.page;
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
            BlockRef::Only(kind) => self.only(*kind),
            BlockRef::Selection => {
                let selection = self.input.selection;
                if selection.is_empty() {
                    return Err(refuse(
                        ReasonCode::TargetNotFound,
                        "the prompt refers to a selection, but nothing is selected",
                    ));
                }
                Ok(page.blocks.iter().filter(|b| selection.contains(&b.block_id)).map(|b| b.block_id.clone()).collect())
            }
            BlockRef::Containing(text, kind) => self.containing(text, *kind),
            BlockRef::Every(kind) => {
                let ids: Vec<String> =
                    page.blocks.iter().filter(|b| kind.matches(b.kind)).map(|b| b.block_id.clone()).collect();
                if ids.is_empty() { Err(missing()) } else { Ok(ids) }
            }
        }
    }

    /// The one block of `kind` on the page.
    fn only(&self, kind: Kind) -> Result<Vec<String>, Refusal> {
        let of_kind: Vec<String> =
            self.input.page.blocks.iter().filter(|b| kind.matches(b.kind)).map(|b| b.block_id.clone()).collect();
        match of_kind.as_slice() {
            [] => Err(refuse(ReasonCode::TargetNotFound, "the page has no such block")),
            [one] => Ok(vec![one.clone()]),
            many => Err(Refusal {
                code: ReasonCode::MatchAmbiguous,
                reason: format!("the page has {} such blocks: {}", many.len(), many.join(", ")),
                candidates: many.to_vec(),
            }),
        }
    }

    /// The one block (of `kind`, if given) holding `text`: exactly, else folded when that is unique.
    fn containing(&mut self, text: &str, kind: Option<Kind>) -> Result<Vec<String>, Refusal> {
        let page = self.input.page;
        let of_kind = |k: crate::page::BlockType| kind.is_none_or(|want| want.matches(k));
        let hits: Vec<String> = page
            .blocks
            .iter()
            .filter(|b| of_kind(b.kind) && b.text.contains(text))
            .map(|b| b.block_id.clone())
            .collect();
        if hits.is_empty() {
            return match literal::find(page, text, &|b| of_kind(b.kind)) {
                Found::Folded { text: found, block_id } => {
                    self.notes.push(Note::Folded { asked: text.into(), found });
                    Ok(vec![block_id])
                }
                Found::FoldedMany(ids) => Err(folded_many(text, ids)),
                Found::Unreachable(id) => Err(self.unreachable(text, id)),
                Found::Exact => Err(self.nowhere_of_kind(text, kind)),
            };
        }
        // Every holder counts, reachable or not: a second one in a locked block or outside the selection may
        // be the one the person meant. One unreachable holder: the self dry-run says why it can't be written.
        match hits.len() {
            1 => Ok(hits),
            n => Err(super::span::ambiguous(self, text, n, hits)),
        }
    }
}

impl Planner<'_> {
    /// No block of `kind` holds `text`: it is elsewhere on the page (in a block of another kind), or nowhere.
    fn nowhere_of_kind(&self, text: &str, kind: Option<Kind>) -> Refusal {
        let elsewhere: Vec<String> =
            self.input.page.blocks.iter().filter(|b| b.text.contains(text)).map(|b| b.block_id.clone()).collect();
        match (kind, elsewhere.is_empty()) {
            (Some(kind), false) => Refusal {
                code: ReasonCode::TargetNotFound,
                reason: format!("{text:?} is in {}, which is not a {}", elsewhere.join(", "), kind.noun()),
                candidates: elsewhere,
            },
            _ => refuse(ReasonCode::MatchNotFound, format!("no block contains {text:?}")),
        }
    }

    /// `text` matched once ignoring case, in block `id`, which the command may not write: locked, or
    /// outside the selection.
    pub(super) fn unreachable(&self, text: &str, id: String) -> Refusal {
        let locked = self.input.page.block(&id).is_some_and(|b| !b.editable);
        let (code, why) = match locked {
            true => (ReasonCode::NotEditable, "a locked block"),
            false => (ReasonCode::OutOfSelection, "a block outside the selection"),
        };
        Refusal { code, reason: format!("{text:?} matches {id} ignoring case, {why}"), candidates: vec![id] }
    }
}
