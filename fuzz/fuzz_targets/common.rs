//! The page every target works on: bilingual, with headings, a locked block, a list and repeated text, so
//! that matches, ambiguity, scope and type rules all have something to bite on.

#![allow(dead_code, reason = "each target uses part of this")]

use pageai_core::context::{ContextRequest, Scope, build_context};
use pageai_core::executor::FrozenContext;
use pageai_core::page::{Block, BlockType, Page};

pub fn page() -> Page {
    let mut locked = Block::paragraph("p_locked", "Signed off by legal. 法务已签字。");
    locked.editable = false;
    let blocks = vec![
        Block::heading("h_1", 1, "周报 Weekly"),
        Block::paragraph("p_1", "本周完成了第一版计划，下周开始第二阶段。The API is not final."),
        Block::paragraph("p_2", "Risks: the API may change. 风险：接口可能变化。"),
        locked,
        Block::heading("h_2", 2, "Next"),
        Block::new("l_1", BlockType::BulletedListItem, "ship the first draft"),
        Block::new("l_2", BlockType::BulletedListItem, "第一版 review"),
    ];
    Page::new("ws_fuzz", "doc_fuzz", "Fuzz", blocks).unwrap_or_else(|e| panic!("the fixed page is valid: {e}"))
}

/// The full-page context a router or a write binds to.
pub fn frozen(page: &Page) -> FrozenContext {
    let context = build_context(page, &ContextRequest::new(Scope::Full), "ctx_fuzz")
        .unwrap_or_else(|e| panic!("a full context of the fixed page builds: {e}"));
    FrozenContext::of(&context)
}
