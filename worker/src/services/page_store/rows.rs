//! The statements one write runs on the page's tables: its block rows ([`RowWrite`]) and the `page_meta`
//! row, all stamped with the page's new revision. Encoded before the transaction (so a page that cannot be
//! stored is refused before anything is written), run inside it by [`PageRows::write`].

use pageai_core::Error;
use pageai_core::page::{Page, Permission};

use crate::services::sqlite::{Sql, SqlValue};

/// One block row to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowWrite {
    /// A block that was not stored.
    Insert {
        /// The block.
        block_id: String,
        /// Its order key (hex).
        ord: String,
        /// Its JSON.
        body: String,
    },
    /// A stored block whose content changed where it stands.
    Body {
        /// The block.
        block_id: String,
        /// Its new JSON.
        body: String,
    },
    /// A stored block that moved (its content may have changed too).
    Moved {
        /// The block.
        block_id: String,
        /// Its new order key (hex).
        ord: String,
        /// Its JSON.
        body: String,
    },
    /// A stored block that is gone.
    Delete {
        /// The block.
        block_id: String,
    },
}

/// Everything one write stores of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageRows {
    revision: i64,
    meta: Vec<SqlValue>,
    rows: Vec<RowWrite>,
}

impl PageRows {
    /// The rows for `page` at its revision.
    pub fn new(page: &Page, rows: Vec<RowWrite>) -> Result<Self, Error> {
        let revision = i64::try_from(page.revision).map_err(|_| Error::invalid("/revision", "revision overflow"))?;
        let meta = vec![
            page.workspace_id.as_str().into(),
            page.document_id.as_str().into(),
            page.title.as_str().into(),
            revision.into(),
            permission_name(page.permission).into(),
        ];
        Ok(PageRows { revision, meta, rows })
    }

    /// The block rows, in the order they are written.
    pub fn blocks(&self) -> &[RowWrite] {
        &self.rows
    }

    /// Runs the statements. Call it inside a transaction ([`crate::services::sqlite::atomically`]), alone
    /// or with the rest of a command's writes.
    pub fn write(self, sql: &dyn Sql) -> worker::Result<()> {
        let PageRows { revision, meta, rows } = self;
        for row in rows {
            match row {
                RowWrite::Insert { block_id, ord, body } => sql.run(
                    "INSERT INTO page_blocks (block_id, ord, body, changed_rev) VALUES (?, ?, ?, ?)",
                    vec![block_id.into(), ord.into(), body.into(), revision.into()],
                )?,
                RowWrite::Body { block_id, body } => sql.run(
                    "UPDATE page_blocks SET body = ?, changed_rev = ? WHERE block_id = ?",
                    vec![body.into(), revision.into(), block_id.into()],
                )?,
                RowWrite::Moved { block_id, ord, body } => sql.run(
                    "UPDATE page_blocks SET ord = ?, body = ?, changed_rev = ? WHERE block_id = ?",
                    vec![ord.into(), body.into(), revision.into(), block_id.into()],
                )?,
                RowWrite::Delete { block_id } => {
                    sql.run("DELETE FROM page_blocks WHERE block_id = ?", vec![block_id.into()])?
                }
            }
        }
        sql.run(
            "INSERT INTO page_meta (id, workspace_id, document_id, title, revision, permission)
             VALUES (1, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET workspace_id = excluded.workspace_id,
               document_id = excluded.document_id, title = excluded.title,
               revision = excluded.revision, permission = excluded.permission",
            meta,
        )
    }
}

pub(super) fn permission_name(permission: Permission) -> &'static str {
    match permission {
        Permission::Edit => "edit",
        Permission::Read => "read",
    }
}

pub(super) fn parse_permission(name: &str) -> Result<Permission, String> {
    match name {
        "edit" => Ok(Permission::Edit),
        "read" => Ok(Permission::Read),
        other => Err(format!("stored permission {other:?} is unknown")),
    }
}
