//! How large the things a document keeps may grow: one stored record, one block, one page.
//!
//! Which one should I use? The Worker measures (the JSON it is about to store) and asks these; the
//! executor asks [`check_result`] of every write it answers, so a write that could never be stored is
//! refused before anything is written, on every path (a person's edits, tools, MCP, commands, accepts,
//! reverts), with the same coded 413 naming the block.
//!
//! - [`MAX_STORED_RECORD_BYTES`]: one JSON value the document keeps in one SQLite cell (a write's answer,
//!   kept for idempotent replays; a review session). The runtime's per-value limit is 2 MB
//!   (`SQLITE_TOOBIG` past it), so a record past this is `mnote_stored_record_too_large`.
//! - [`MAX_BLOCK_BYTES`]: one block's JSON, checked by [`check_block`] (and [`block_json`], which answers the
//!   JSON it measured): the operations engine asks it of every block a write inserts or changes
//!   ([`crate::ops::plan`], so tools, MCP, commands, a person's `PATCH …/blocks`, accepts and reverts alike),
//!   a whole-page store asks it of every block ([`check_blocks`]), and the Worker's page store asks it of
//!   every row it writes. Past it: 413 `mnote_block_too_large`, naming the block. A review session keeps about 21 copies of the text of the
//!   block it changes by the time it is proposed, accepted and reverted (the operations, the preview's
//!   texts and diff, and the answers it keeps for replays), so at 64 KiB any block a page may hold can be
//!   edited by an AI, accepted and reverted within one stored record (`tests/e2e/security_round3.test.mjs`).
//! - [`MAX_PAGE_BYTES`]: the page's JSON, as `GET /api/documents/{id}` answers it. It is the body limit of
//!   a `PUT`, so the page a `GET` returns can always be `PUT` back.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::history::BlockHistory;
use crate::json::to_json;
use crate::page::{Block, Page};

/// The most one stored record (JSON) may take, in bytes.
pub const MAX_STORED_RECORD_BYTES: usize = 1_900_000;

/// The most one block's JSON may take, in bytes.
pub const MAX_BLOCK_BYTES: usize = 64 * 1024;

/// The most a page's JSON may take, in bytes: the same as a request body.
pub const MAX_PAGE_BYTES: usize = 5 * 1024 * 1024;

/// Refuses a record of `bytes` past [`MAX_STORED_RECORD_BYTES`]; the error names the record (e.g. `review
/// session`) and, when known, the block that makes it large.
pub fn check_record(record: &str, bytes: usize, block_id: Option<&str>) -> Result<()> {
    match bytes > MAX_STORED_RECORD_BYTES {
        true => Err(Error::StoredTooLarge {
            record: record.into(),
            bytes,
            limit: MAX_STORED_RECORD_BYTES,
            block_id: block_id.map(Into::into),
        }),
        false => Ok(()),
    }
}

/// A block a write changed, as a record's size names it: the operations engine's `ChangedBlock`
/// (`crate::ops`, which sits above this module and asks [`check_block`] of every block it plans).
pub trait ChangedText {
    /// The block's id.
    fn block_id(&self) -> &str;
    /// The length of its text, before or after the change, whichever is longer.
    fn text_len(&self) -> usize;
}

/// Refuses a write whose answer (`json`, what an applied write keeps for its idempotent replays) could not
/// be stored, naming the largest block it changes.
pub fn check_result<C: ChangedText>(json: &str, changed: &[C]) -> Result<()> {
    check_record("tool result", json.len(), largest_block(changed))
}

/// The block of `changed` with the most text, before or after: the one to name when a record is too large.
pub fn largest_block<C: ChangedText>(changed: &[C]) -> Option<&str> {
    changed.iter().max_by_key(|c| c.text_len()).map(ChangedText::block_id)
}

/// A block's JSON, refused past [`MAX_BLOCK_BYTES`] with `mnote_block_too_large` naming it: the stored form
/// of a block, measured once.
pub fn block_json(block: &Block) -> Result<String> {
    let json = to_json(block)?;
    check_block_bytes(&block.block_id, json.len())?;
    Ok(json)
}

/// Refuses `block` when its JSON takes more than [`MAX_BLOCK_BYTES`]; answers its length otherwise.
pub fn check_block(block: &Block) -> Result<usize> {
    block_json(block).map(|json| json.len())
}

/// Refuses the first of `blocks` past [`MAX_BLOCK_BYTES`] (a whole page about to be stored).
pub fn check_blocks(blocks: &[Block]) -> Result<()> {
    blocks.iter().try_for_each(|block| check_block(block).map(|_| ()))
}

/// Refuses a block `block_id` whose JSON takes `bytes` past [`MAX_BLOCK_BYTES`].
pub fn check_block_bytes(block_id: &str, bytes: usize) -> Result<()> {
    match bytes > MAX_BLOCK_BYTES {
        true => Err(Error::BlockTooLarge { block_id: block_id.into(), bytes, limit: MAX_BLOCK_BYTES }),
        false => Ok(()),
    }
}

/// Refuses a page whose JSON would take `bytes` past [`MAX_PAGE_BYTES`].
pub fn check_page(bytes: usize) -> Result<()> {
    match bytes > MAX_PAGE_BYTES {
        true => Err(Error::PageTooLarge { bytes, limit: MAX_PAGE_BYTES }),
        false => Ok(()),
    }
}

/// The length of `page`'s JSON, from `block_bytes`, the sum of its blocks' JSON lengths: the blocks are
/// joined by commas inside the brackets of the block-less page. Lets a caller that keeps each block's
/// stored form measure the page without encoding all of it again.
pub fn page_json_bytes(page: &Page, block_bytes: usize) -> Result<usize> {
    let header = Page {
        workspace_id: page.workspace_id.clone(),
        document_id: page.document_id.clone(),
        title: page.title.clone(),
        revision: page.revision,
        permission: page.permission,
        blocks: Vec::new(),
        history: BlockHistory::default(),
    };
    let header = to_json(&header)?.len();
    Ok(header.saturating_add(block_bytes).saturating_add(page.blocks.len().saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::Block;

    #[test]
    fn a_pages_length_is_its_header_and_blocks_joined_by_commas() {
        let blocks = alloc::vec![Block::paragraph("p_1", "a \"quoted\" line"), Block::paragraph("p_2", "第二段")];
        let page = Page::new("ws", "doc", "Plan", blocks).unwrap();
        let whole = serde_json::to_string(&page).unwrap().len();
        let each: usize = page.blocks.iter().map(|b| serde_json::to_string(b).unwrap().len()).sum();
        assert_eq!(page_json_bytes(&page, each).unwrap(), whole);
        let empty = Page { blocks: Vec::new(), ..page.clone() };
        assert_eq!(page_json_bytes(&empty, 0).unwrap(), serde_json::to_string(&empty).unwrap().len());
    }

    #[test]
    fn the_limits_refuse_past_them_and_name_the_block() {
        assert!(check_record("tool result", MAX_STORED_RECORD_BYTES, None).is_ok());
        let err = check_record("tool result", MAX_STORED_RECORD_BYTES + 1, Some("b_1")).unwrap_err();
        assert_eq!(err.code().as_str(), "mnote_stored_record_too_large");
        assert_eq!(err.details()["blockId"], "b_1");
        assert!(check_page(MAX_PAGE_BYTES).is_ok());
        assert_eq!(check_page(MAX_PAGE_BYTES + 1).unwrap_err().code().as_str(), "mnote_page_too_large");
    }

    #[test]
    fn a_block_past_its_limit_is_refused_by_name_and_one_at_it_is_kept() {
        let around = serde_json::to_string(&Block::paragraph("p_1", "")).unwrap().len();
        let at = Block::paragraph("p_1", "x".repeat(MAX_BLOCK_BYTES - around));
        assert_eq!(check_block(&at).unwrap(), MAX_BLOCK_BYTES);
        assert_eq!(block_json(&at).unwrap(), serde_json::to_string(&at).unwrap());
        let past = Block::paragraph("p_2", "x".repeat(MAX_BLOCK_BYTES - around + 1));
        let err = check_blocks(&[at, past]).unwrap_err();
        assert_eq!(err.code().as_str(), "mnote_block_too_large");
        assert_eq!(err.details()["blockId"], "p_2");
        assert_eq!(err.details()["bytes"], MAX_BLOCK_BYTES + 1);
        assert_eq!(err.details()["limitBytes"], MAX_BLOCK_BYTES);
    }
}
