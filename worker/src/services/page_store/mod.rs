//! The page of one document, in its Durable Object's SQLite storage.
//!
//! Metadata is one row of `page_meta`; blocks are one row each in `page_blocks(block_id, ord, body,
//! changed_rev)`, where `ord` is an [`OrderKey`] (page order is `ORDER BY ord`) and `changed_rev` the page
//! revision that last wrote the row: the block's last-changed revision, which the page's
//! [`BlockHistory`] is loaded from. A row per block keeps stored values under SQLite-in-DO's per-value
//! limit (about 2 MB; workerd answers `SQLITE_TOOBIG` past it) even for a page near the 5 MiB body cap,
//! and lets a write touch only the rows it changes: the object keeps a [`StoredBlocks`] of the rows in memory,
//! and after a command [`StoredBlocks::diff`] answers the [`PageRows`] to write (changed, new, gone and moved
//! blocks, plus the meta row). An insert or a move writes one block row: its key sits between its
//! neighbours', so no other row is renumbered. A single block over [`MAX_BLOCK_BYTES`] is refused with a
//! coded error before any write.
//!
//! [`create_schema`] runs once per wake of the object. It first moves a page stored in the layout before
//! order keys (`page_blocks(position, block_id, body)`) into this one, in one transaction.

mod migrate;
mod order;
mod rows;
mod stored_blocks;

use pageai_core::page::{Block, BlockHistory, Page};

pub use order::OrderKey;
pub use rows::{PageRows, RowWrite};
pub use stored_blocks::{StoredBlock, StoredBlocks, StoredBlocksPatch};

use crate::services::sqlite::{Sql, SqlValue, integer, text};

/// Largest stored form (JSON) of one block, in bytes, checked when a page is stored (`PUT`, every write):
/// core's limit (see [`pageai_core::limits`]).
pub use pageai_core::limits::MAX_BLOCK_BYTES;

/// `CREATE … IF NOT EXISTS`, so creating an existing schema is a no-op.
const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS page_meta (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        workspace_id TEXT NOT NULL,
        document_id TEXT NOT NULL,
        title TEXT NOT NULL,
        revision INTEGER NOT NULL,
        permission TEXT NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS page_blocks (
        block_id TEXT PRIMARY KEY,
        ord TEXT NOT NULL,
        body TEXT NOT NULL,
        changed_rev INTEGER NOT NULL
    )",
    "CREATE INDEX IF NOT EXISTS page_blocks_by_ord ON page_blocks (ord)",
];

/// Creates the page's tables (after moving a page of the older layout into them). Errors are runtime
/// messages meant for the log.
pub fn create_schema(sql: &dyn Sql) -> Result<(), String> {
    migrate::from_positions(sql)?;
    for statement in SCHEMA {
        sql.run(statement, Vec::new()).map_err(|e| format!("create page schema: {e}"))?;
    }
    Ok(())
}

/// The stored page and the image of its rows, or `None` when the document was never written.
pub fn load(sql: &dyn Sql) -> Result<Option<(Page, StoredBlocks)>, String> {
    let meta = sql
        .rows("SELECT workspace_id, document_id, title, revision, permission FROM page_meta WHERE id = 1", Vec::new())
        .map_err(|e| format!("read page_meta: {e}"))?;
    let Some(meta) = meta.into_iter().next() else {
        return Ok(None);
    };
    let mut meta = meta.into_iter();
    let workspace_id = text(meta.next(), "workspace_id")?;
    let document_id = text(meta.next(), "document_id")?;
    let title = text(meta.next(), "title")?;
    let revision = unsigned(meta.next(), "revision")?;
    let permission = rows::parse_permission(&text(meta.next(), "permission")?)?;
    let rows = sql
        .rows("SELECT block_id, ord, body, changed_rev FROM page_blocks ORDER BY ord", Vec::new())
        .map_err(|e| format!("read page_blocks: {e}"))?;
    let stored = rows.into_iter().map(stored_block).collect::<Result<Vec<_>, _>>()?;
    let blocks: Vec<Block> = stored.iter().map(|row| row.block.clone()).collect();
    let stored_blocks = StoredBlocks::from_rows(stored);
    let history = history_of(&stored_blocks);
    let page = Page { workspace_id, document_id, title, revision, permission, blocks, history };
    Ok(Some((page, stored_blocks)))
}

/// The page's block history as its rows record it: each block's `changed_rev` (core's
/// [`BlockHistory`], which the executor's block-level preconditions read).
pub fn history_of(stored_blocks: &StoredBlocks) -> BlockHistory {
    BlockHistory::from_rows(0, stored_blocks.rows().iter().map(|row| (row.block.block_id.clone(), row.changed_rev)))
}

fn stored_block(row: Vec<SqlValue>) -> Result<StoredBlock, String> {
    let mut row = row.into_iter();
    let block_id = text(row.next(), "block_id")?;
    let ord = OrderKey::parse(&text(row.next(), "ord")?)?;
    let body = text(row.next(), "body")?;
    let block: Block = serde_json::from_str(&body).map_err(|e| format!("decode stored block {block_id}: {e}"))?;
    if block.block_id != block_id {
        return Err(format!("stored block {block_id} holds block {}", block.block_id));
    }
    let changed_rev = unsigned(row.next(), "changed_rev")?;
    Ok(StoredBlock { block, ord, changed_rev, bytes: body.len() })
}

fn unsigned(value: Option<SqlValue>, column: &str) -> Result<u64, String> {
    let value = integer(value.as_ref(), column)?;
    u64::try_from(value).map_err(|_| format!("column {column} is negative: {value}"))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
