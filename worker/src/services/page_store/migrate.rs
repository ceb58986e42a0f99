//! The page as the object stored it before order keys, `page_blocks(position INTEGER PRIMARY KEY, block_id,
//! body)`, moved into today's layout on the first load after an upgrade: all in one transaction, so an
//! object evicted halfway finds the old table again next time and starts over.
//!
//! A block's `changed_rev` comes from the interim `page_history` table where a store has one (the block
//! history kept beside that layout), else it is the page's revision: nothing is known of what came before,
//! which is what a page read from JSON assumes too.

use std::collections::HashMap;

use super::order::OrderKey;
use super::schema::SCHEMA;
use crate::services::sqlite::{Sql, atomically, integer, text, unsigned};

/// The table that layout had; SQLite keeps each table's `CREATE` text as it was written.
const OLD_LAYOUT: &str = "SELECT COUNT(*) FROM sqlite_master
    WHERE type = 'table' AND name = 'page_blocks' AND sql LIKE '%position INTEGER PRIMARY KEY%'";

/// Where the old rows wait while the new table fills.
const OLD_TABLE: &str = "page_blocks_by_position";

/// Whether the interim block history is there.
const OLD_HISTORY: &str = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'page_history'";

/// Moves a page of the old layout into the new one; `Ok(false)` when there is none.
pub(super) fn from_positions(sql: &dyn Sql) -> Result<bool, String> {
    let found = sql.rows(OLD_LAYOUT, Vec::new()).map_err(|e| format!("look for the old page layout: {e}"))?;
    let count = integer(found.first().and_then(|row| row.first()), "COUNT(*)")?;
    if count == 0 {
        return Ok(false);
    }
    atomically(sql, |sql| {
        sql.run(&format!("ALTER TABLE page_blocks RENAME TO {OLD_TABLE}"), Vec::new())?;
        for statement in SCHEMA {
            sql.run(statement, Vec::new())?;
        }
        let revision = sql.rows("SELECT revision FROM page_meta WHERE id = 1", Vec::new())?;
        let revision = match revision.into_iter().next().and_then(|row| row.into_iter().next()) {
            Some(value) => unsigned(Some(value), "revision").map_err(worker::Error::from)?,
            None => 0,
        };
        let history = interim_history(sql)?;
        let rows = sql.rows(&format!("SELECT block_id, body FROM {OLD_TABLE} ORDER BY position"), Vec::new())?;
        let keys = OrderKey::between(None, None, rows.len()).map_err(worker::Error::from)?;
        for (row, key) in rows.into_iter().zip(keys) {
            let mut row = row.into_iter();
            let block_id = text(row.next(), "block_id").map_err(worker::Error::from)?;
            let body = text(row.next(), "body").map_err(worker::Error::from)?;
            let changed = history.get(&block_id).copied().unwrap_or(revision);
            let changed = i64::try_from(changed).unwrap_or(i64::MAX);
            sql.run(
                "INSERT INTO page_blocks (block_id, ord, body, changed_rev) VALUES (?, ?, ?, ?)",
                vec![block_id.into(), key.to_hex().into(), body.into(), changed.into()],
            )?;
        }
        for table in [OLD_TABLE, "page_history", "page_history_since"] {
            sql.run(&format!("DROP TABLE IF EXISTS {table}"), Vec::new())?;
        }
        Ok(())
    })
    .map_err(|e| format!("move the page to order keys: {e}"))?;
    Ok(true)
}

/// The interim `page_history` rows (block id → the revision that last changed it), if the store has them.
fn interim_history(sql: &dyn Sql) -> worker::Result<HashMap<String, u64>> {
    let found = sql.rows(OLD_HISTORY, Vec::new())?;
    if integer(found.first().and_then(|row| row.first()), "COUNT(*)").map_err(worker::Error::from)? == 0 {
        return Ok(HashMap::new());
    }
    sql.rows("SELECT block_id, changed_rev FROM page_history", Vec::new())?
        .into_iter()
        .map(|row| {
            let mut row = row.into_iter();
            let block_id = text(row.next(), "block_id")?;
            Ok((block_id, unsigned(row.next(), "changed_rev")?))
        })
        .collect::<Result<HashMap<_, _>, String>>()
        .map_err(worker::Error::from)
}
