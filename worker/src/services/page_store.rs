//! The page of one document, in its Durable Object's SQLite storage.
//!
//! Metadata is one row of `page_meta`; blocks are one row each in `page_blocks`, in page order; the page's
//! block history (core's `BlockHistory`) is `page_history` with `page_history_since`. A row per
//! block keeps stored values under SQLite-in-DO's per-value limit (about 2 MB; workerd answers
//! `SQLITE_TOOBIG` past it) even for a page near the 5 MiB body cap, and lets later block-level writes
//! touch only the rows they change. A single block over [`MAX_BLOCK_BYTES`] is refused with a coded error
//! before any write.
//!
//! Saving is two steps: [`EncodedPage::encode`] is pure and is where a page that cannot be stored is
//! refused; [`PageStore::save`] replaces both tables inside one transaction ([`atomically`]), so a reader
//! never sees half a page.

use pageai_core::Error;
use pageai_core::page::{Block, BlockHistory, Page, Permission};
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue, Storage};

use crate::services::sqlite::atomically;

/// Largest stored form (JSON) of one block, in bytes: half the runtime's per-value limit, so the limit is
/// never met by surprise.
pub const MAX_BLOCK_BYTES: usize = 1024 * 1024;

/// `CREATE … IF NOT EXISTS`, so opening an existing store is a no-op.
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
        position INTEGER PRIMARY KEY,
        block_id TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL
    )",
    // The page's block history (core's `BlockHistory`): the revision each block last changed, and the
    // revision before which nothing is known. A store made before these tables has no row: its page loads
    // knowing nothing before its revision.
    "CREATE TABLE IF NOT EXISTS page_history (
        block_id TEXT PRIMARY KEY,
        changed_rev INTEGER NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS page_history_since (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        known_since INTEGER NOT NULL
    )",
];

#[derive(Deserialize)]
struct MetaRow {
    workspace_id: String,
    document_id: String,
    title: String,
    revision: u64,
    permission: String,
}

#[derive(Deserialize)]
struct BlockRow {
    body: String,
}

#[derive(Deserialize)]
struct HistoryRow {
    block_id: String,
    changed_rev: u64,
}

#[derive(Deserialize)]
struct SinceRow {
    known_since: u64,
}

/// Reads and replaces the stored page. Errors are runtime messages meant for the log.
#[derive(Debug)]
pub struct PageStore {
    storage: Storage,
    sql: SqlStorage,
}

impl PageStore {
    /// Opens the store, creating its tables on first use.
    pub fn open(storage: Storage) -> Result<Self, String> {
        let sql = storage.sql();
        for statement in SCHEMA {
            sql.exec(statement, None).map_err(|e| format!("create schema: {e}"))?;
        }
        Ok(PageStore { storage, sql })
    }

    /// The stored page, or `None` when the document was never written.
    pub fn load(&self) -> Result<Option<Page>, String> {
        let meta: Vec<MetaRow> = self
            .sql
            .exec("SELECT workspace_id, document_id, title, revision, permission FROM page_meta WHERE id = 1", None)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| format!("read page_meta: {e}"))?;
        let Some(meta) = meta.into_iter().next() else {
            return Ok(None);
        };
        let rows: Vec<BlockRow> = self
            .sql
            .exec("SELECT body FROM page_blocks ORDER BY position", None)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| format!("read page_blocks: {e}"))?;
        let blocks = rows
            .iter()
            .map(|row| serde_json::from_str::<Block>(&row.body))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("decode stored block: {e}"))?;
        let history = self.history(meta.revision)?;
        Ok(Some(Page {
            workspace_id: meta.workspace_id,
            document_id: meta.document_id,
            title: meta.title,
            revision: meta.revision,
            permission: parse_permission(&meta.permission)?,
            blocks,
            history,
        }))
    }

    /// The stored block history; a page stored without one knows nothing before `revision`.
    fn history(&self, revision: u64) -> Result<BlockHistory, String> {
        let since: Vec<SinceRow> = self
            .sql
            .exec("SELECT known_since FROM page_history_since WHERE id = 1", None)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| format!("read page_history_since: {e}"))?;
        let Some(since) = since.into_iter().next() else {
            return Ok(BlockHistory::new(revision));
        };
        let rows: Vec<HistoryRow> = self
            .sql
            .exec("SELECT block_id, changed_rev FROM page_history", None)
            .and_then(|cursor| cursor.to_array())
            .map_err(|e| format!("read page_history: {e}"))?;
        Ok(BlockHistory::from_rows(since.known_since, rows.into_iter().map(|r| (r.block_id, r.changed_rev))))
    }

    /// Replaces the stored page with `page`, atomically.
    pub fn save(&self, page: EncodedPage) -> Result<(), String> {
        atomically(&self.storage, move |sql| page.write(sql))
    }
}

/// A page as the rows [`PageStore::save`] writes.
#[derive(Debug)]
pub struct EncodedPage {
    meta: Vec<SqlStorageValue>,
    rows: Vec<Vec<SqlStorageValue>>,
    history: Vec<Vec<SqlStorageValue>>,
    known_since: i64,
}

impl EncodedPage {
    /// Encodes `page`, refusing one that storage could not hold, so the transaction only fails on storage.
    pub fn encode(page: &Page) -> Result<EncodedPage, Error> {
        let revision = i64::try_from(page.revision).map_err(|_| Error::invalid("/revision", "revision overflow"))?;
        let mut rows = Vec::with_capacity(page.blocks.len());
        for (position, block) in page.blocks.iter().enumerate() {
            let body = serde_json::to_string(block)
                .map_err(|e| Error::invalid_page(format!("/blocks/{position}"), e.to_string()))?;
            if body.len() > MAX_BLOCK_BYTES {
                return Err(Error::invalid_page(
                    format!("/blocks/{position}"),
                    format!(
                        "the block takes {} bytes; one block holds at most {MAX_BLOCK_BYTES}, so split it",
                        body.len()
                    ),
                ));
            }
            // A page is capped at 5 MiB, so its block count always fits an i64.
            let position = i64::try_from(position).unwrap_or(i64::MAX);
            rows.push(vec![position.into(), block.block_id.as_str().into(), body.into()]);
        }
        let meta = vec![
            page.workspace_id.as_str().into(),
            page.document_id.as_str().into(),
            page.title.as_str().into(),
            revision.into(),
            permission_name(page.permission).into(),
        ];
        let revision_cell = |r: u64| i64::try_from(r).map_err(|_| Error::invalid("/revision", "revision overflow"));
        let history = page
            .history
            .rows()
            .map(|(id, changed)| Ok(vec![id.into(), revision_cell(changed)?.into()]))
            .collect::<Result<Vec<Vec<SqlStorageValue>>, Error>>()?;
        let known_since = revision_cell(page.history.known_since())?;
        Ok(EncodedPage { meta, rows, history, known_since })
    }
}

impl EncodedPage {
    /// Replaces the stored page with this one. Call it inside a transaction ([`atomically`]), alone
    /// ([`PageStore::save`]) or with the rest of a command's writes.
    pub fn write(self, sql: &SqlStorage) -> worker::Result<()> {
        let EncodedPage { meta, rows, history, known_since } = self;
        sql.exec("DELETE FROM page_blocks", None)?;
        for row in rows {
            sql.exec("INSERT INTO page_blocks (position, block_id, body) VALUES (?, ?, ?)", row)?;
        }
        sql.exec("DELETE FROM page_history", None)?;
        for row in history {
            sql.exec("INSERT INTO page_history (block_id, changed_rev) VALUES (?, ?)", row)?;
        }
        sql.exec(
            "INSERT INTO page_history_since (id, known_since) VALUES (1, ?)
             ON CONFLICT (id) DO UPDATE SET known_since = excluded.known_since",
            vec![known_since.into()],
        )?;
        sql.exec(
            "INSERT INTO page_meta (id, workspace_id, document_id, title, revision, permission)
             VALUES (1, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET workspace_id = excluded.workspace_id,
               document_id = excluded.document_id, title = excluded.title,
               revision = excluded.revision, permission = excluded.permission",
            meta,
        )?;
        Ok(())
    }
}

fn permission_name(permission: Permission) -> &'static str {
    match permission {
        Permission::Edit => "edit",
        Permission::Read => "read",
    }
}

fn parse_permission(name: &str) -> Result<Permission, String> {
    match name {
        "edit" => Ok(Permission::Edit),
        "read" => Ok(Permission::Read),
        other => Err(format!("stored permission {other:?} is unknown")),
    }
}
