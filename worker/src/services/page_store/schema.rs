//! The page's tables, `page_meta` and `page_blocks` (see [`super`]): their statements, run on every wake
//! and by the move from the older layout ([`super::migrate`]).

/// `CREATE … IF NOT EXISTS`, so creating an existing schema is a no-op.
pub(super) const SCHEMA: &[&str] = &[
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
