//! Replacing or deleting a literal span: where to look for it (the page, the selection, one block, the
//! blocks of a kind), how it was found, and whether a deleted span is a whole block.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Note, Planner, Refusal, folded_many, refuse};
use crate::ops::{Occurrence, Operation};
use crate::page::Block;
use crate::route::grammar::Within;
use crate::route::literal::{self, Found};
use crate::vocab::ReasonCode;

/// A literal span a command names.
pub(super) struct Span<'c> {
    pub find: &'c str,
    /// Every occurrence, not one.
    pub all: bool,
    pub within: Within,
    /// Typed in quotes; an unquoted literal must stand alone where it occurs.
    pub quoted: bool,
}

impl Planner<'_> {
    /// `replace{…}` of the span by `with`.
    pub(super) fn replace(&mut self, span: &Span<'_>, with: &str) -> Result<Operation, Refusal> {
        let (block_id, match_text) = self.locate(span)?;
        let occurrence = if span.all { Occurrence::All } else { Occurrence::Unique };
        Ok(Operation::Replace { block_id, match_text, content: with.into(), occurrence })
    }

    /// Deleting the span: a `replace` by nothing, or a `delete` of the block when the span is its whole text.
    pub(super) fn delete_span(&mut self, span: &Span<'_>) -> Result<Operation, Refusal> {
        let (block_id, match_text) = self.locate(span)?;
        if !span.all
            && let Some(whole) = self.whole_block(block_id.as_deref(), &match_text)
        {
            self.notes.push(Note::WholeBlock(whole.clone()));
            return Ok(Operation::Delete { block_id: whole });
        }
        let occurrence = if span.all { Occurrence::All } else { Occurrence::Unique };
        Ok(Operation::Replace { block_id, match_text, content: String::new(), occurrence })
    }

    /// The block to limit the replace to (if any) and the exact text to match.
    fn locate(&mut self, span: &Span<'_>) -> Result<(Option<String>, String), Refusal> {
        self.reachable_everywhere(span)?;
        self.unique_on_page(span)?;
        // Only a quoted literal is read ignoring case: an unquoted one is a guess already.
        if !span.all && span.quoted {
            let found = {
                let within = self.within_filter(span.within);
                literal::find(self.input.page, span.find, &|b| self.allowed.contains(&b.block_id) && within(b))
            };
            match found {
                Found::Folded { text, block_id } => {
                    self.notes.push(Note::Folded { asked: span.find.into(), found: text.clone() });
                    return Ok((Some(block_id), text));
                }
                Found::FoldedMany(ids) => return Err(folded_many(span.find, ids)),
                Found::Unreachable(id) => return Err(self.unreachable(span.find, id)),
                Found::Exact => {}
            }
        }
        let block_id = self.block_of(span)?;
        if !span.quoted {
            self.stands_alone(span)?;
        }
        Ok((block_id, span.find.into()))
    }

    /// "Replace all" that can't reach every occurrence would quietly do less than asked.
    fn reachable_everywhere(&self, span: &Span<'_>) -> Result<(), Refusal> {
        if !(span.all && span.within == Within::Page) {
            return Ok(());
        }
        let locked: Vec<String> = self
            .input
            .page
            .blocks
            .iter()
            .filter(|b| !b.editable && b.text.contains(span.find))
            .map(|b| b.block_id.clone())
            .collect();
        if locked.is_empty() {
            return Ok(());
        }
        Err(Refusal {
            code: ReasonCode::NotEditable,
            reason: format!("{:?} also occurs in locked blocks: {}", span.find, locked.join(", ")),
            candidates: locked,
        })
    }

    /// A text the command looks for anywhere must occur once on the whole page: an occurrence in a locked
    /// block, or outside the selection the prompt did not mention, is one the person may have meant, so
    /// writing the one reachable occurrence could change text they did not mean.
    fn unique_on_page(&self, span: &Span<'_>) -> Result<(), Refusal> {
        if span.all || span.within != Within::Page || span.find.is_empty() {
            return Ok(());
        }
        let finder = memchr::memmem::Finder::new(span.find.as_bytes());
        let mut total = 0;
        let mut holders = Vec::new();
        for block in &self.input.page.blocks {
            let here = finder.find_iter(block.text.as_bytes()).count();
            if here > 0 {
                total += here;
                holders.push(block.block_id.clone());
            }
        }
        if total <= 1 {
            return Ok(());
        }
        Err(ambiguous(self, span.find, total, holders))
    }

    /// Which blocks `within` lets the span be in (the write scope aside).
    fn within_filter(&self, within: Within) -> impl Fn(&Block) -> bool + '_ {
        let page = self.input.page;
        move |b: &Block| match within {
            Within::Page | Within::Selection => true,
            Within::Block(o) => o.resolve(page).is_some_and(|id| id == b.block_id),
            Within::Kind(kind) => kind.matches(b.kind),
        }
    }

    /// The block an exact span is limited to: the one selected block, the block named by position, or the
    /// one block of a kind holding the text.
    fn block_of(&self, span: &Span<'_>) -> Result<Option<String>, Refusal> {
        let page = self.input.page;
        Ok(match span.within {
            Within::Page => None,
            Within::Selection => match self.input.selection {
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
                    .filter(|b| kind.matches(b.kind) && b.text.contains(span.find))
                    .map(|b| b.block_id.as_str())
                    .collect();
                match holders.as_slice() {
                    [one] => Some((*one).into()),
                    [] => {
                        return Err(refuse(
                            ReasonCode::MatchNotFound,
                            format!("no such block contains {:?}", span.find),
                        ));
                    }
                    _ if span.all => None,
                    many => {
                        return Err(Refusal {
                            code: ReasonCode::MatchAmbiguous,
                            reason: format!(
                                "{:?} occurs in {} such blocks: {}",
                                span.find,
                                many.len(),
                                many.join(", ")
                            ),
                            candidates: many.iter().map(|s| String::from(*s)).collect(),
                        });
                    }
                }
            }
        })
    }

    /// An unquoted literal must not be part of a longer word or number where it would be replaced. Several
    /// hits of a unique replace are the executor's to refuse (as ambiguous), so only a lone hit is checked.
    fn stands_alone(&self, span: &Span<'_>) -> Result<(), Refusal> {
        let find = span.find;
        let reach: Vec<&Block> = self.input.page.blocks.iter().filter(|b| self.allowed.contains(&b.block_id)).collect();
        let hits: usize = reach.iter().map(|b| b.text.matches(find).count()).sum();
        if hits > 1 && !span.all {
            return Ok(());
        }
        let glued: Vec<String> =
            reach.iter().filter(|b| !literal::stands_alone(&b.text, find)).map(|b| b.block_id.clone()).collect();
        if glued.is_empty() {
            return Ok(());
        }
        Err(Refusal {
            code: ReasonCode::Complex,
            reason: format!("unquoted {find:?} is part of a longer word or number in {}", glued.join(", ")),
            candidates: glued,
        })
    }

    /// The block whose whole text (spaces aside) is the one occurrence of `text` the delete may reach.
    fn whole_block(&self, block_id: Option<&str>, text: &str) -> Option<String> {
        let in_reach = |b: &&Block| block_id.map_or_else(|| self.allowed.contains(&b.block_id), |id| b.block_id == id);
        let mut holders = self.input.page.blocks.iter().filter(in_reach).filter(|b| b.text.contains(text));
        let (Some(block), None) = (holders.next(), holders.next()) else { return None };
        (block.text.trim() == text.trim() && !text.trim().is_empty()).then(|| block.block_id.clone())
    }
}

/// The refusal for a text found `total` times in `holders`, saying which of them the command may not write.
pub(super) fn ambiguous(planner: &Planner<'_>, text: &str, total: usize, holders: Vec<String>) -> Refusal {
    let page = planner.input.page;
    let locked: Vec<&str> =
        holders.iter().filter(|id| page.block(id).is_some_and(|b| !b.editable)).map(String::as_str).collect();
    let outside: Vec<&str> = holders
        .iter()
        .filter(|id| !locked.contains(&id.as_str()) && !planner.allowed.contains(id))
        .map(String::as_str)
        .collect();
    let mut reason = format!("matchText {text:?} found {total} times in {}", holders.join(", "));
    if !locked.is_empty() {
        reason.push_str(&format!("; locked: {}", locked.join(", ")));
    }
    if !outside.is_empty() {
        reason.push_str(&format!("; outside the selection or context: {}", outside.join(", ")));
    }
    Refusal { code: ReasonCode::MatchAmbiguous, reason, candidates: holders }
}
