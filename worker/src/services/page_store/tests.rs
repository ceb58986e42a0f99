//! The page store on a real SQLite: what a write stores, what a load reads back, how many rows a write
//! touches, and the move from the layout before order keys.

#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::page::{Block, BlockHistory, Page, Permission};

use super::*;
use crate::services::sqlite::atomically;
use crate::services::sqlite::memory::Memory;

pub(super) fn page_of(n: usize) -> Page {
    let blocks: Vec<Block> = (0..n).map(|i| Block::paragraph(format!("p_{i}"), format!("paragraph {i}"))).collect();
    // As a load reads it back once stored at revision 1: every block last changed then.
    let history = BlockHistory::from_rows(0, blocks.iter().map(|b| (b.block_id.clone(), 1)));
    Page {
        workspace_id: "ws".into(),
        document_id: "doc".into(),
        title: "Title".into(),
        revision: 1,
        permission: Permission::Edit,
        blocks,
        history,
    }
}

/// `page` without its block history, for tests that edit blocks by hand (core's commit keeps the history;
/// here only the rows' `changed_rev` does, checked on its own).
pub(super) fn content(page: &Page) -> Page {
    Page { history: BlockHistory::default(), ..page.clone() }
}

/// A database with the schema.
fn store() -> Memory {
    let db = Memory::open();
    create_schema(&db).expect("schema");
    db
}

/// Writes what `page` changed against `stored_blocks`; answers the block rows and the rows SQLite changed.
pub(super) fn commit(db: &Memory, stored_blocks: &mut StoredBlocks, page: &Page) -> (usize, u64) {
    let (rows, patch) = stored_blocks.diff(page).expect("diff");
    let blocks = rows.blocks().len();
    db.take_rows_written();
    atomically(db, |sql| rows.write(sql)).expect("write");
    let written = db.take_rows_written();
    stored_blocks.apply(patch, page.blocks.len()).expect("apply");
    (blocks, written)
}

#[test]
fn a_stored_page_loads_back_with_the_image_of_its_rows() {
    let db = store();
    assert_eq!(load(&db).expect("load"), None, "an empty store has no page");
    let mut stored_blocks = StoredBlocks::default();
    let page = page_of(50);
    let (blocks, _) = commit(&db, &mut stored_blocks, &page);
    assert_eq!(blocks, 50);
    let (loaded, image) = load(&db).expect("load").expect("a page");
    assert_eq!(loaded, page);
    assert_eq!(image, stored_blocks);
}

#[test]
fn an_edit_writes_its_block_and_the_meta_row_whatever_the_page_size() {
    for size in [3, 300, 3_000] {
        let db = store();
        let mut stored_blocks = StoredBlocks::default();
        let mut page = page_of(size);
        commit(&db, &mut stored_blocks, &page);
        page.revision += 1;
        page.blocks[size / 2].text = "changed".into();
        assert_eq!(commit(&db, &mut stored_blocks, &page), (1, 2), "update at {size} blocks");
        page.revision += 1;
        page.blocks.insert(size / 2, Block::paragraph("new", "inserted"));
        assert_eq!(commit(&db, &mut stored_blocks, &page), (1, 2), "insert at {size} blocks");
        page.revision += 1;
        let moved = page.blocks.remove(0);
        page.blocks.push(moved);
        assert_eq!(commit(&db, &mut stored_blocks, &page), (1, 2), "move at {size} blocks");
        page.revision += 1;
        page.blocks.remove(1);
        assert_eq!(commit(&db, &mut stored_blocks, &page), (1, 2), "delete at {size} blocks");
        let (loaded, image) = load(&db).expect("load").expect("a page");
        assert_eq!(content(&loaded), content(&page));
        assert_eq!(image, stored_blocks);
        // The history read back is each row's changed_rev: the updated block at 2 (at 3 blocks it is the
        // one deleted), the inserted one at 3, the moved one at 4, the rest as first stored.
        let changed = |id: &str| loaded.history.changed_at(id);
        if size > 3 {
            assert_eq!(changed(&format!("p_{}", size / 2)), 2, "updated at {size} blocks");
        }
        let last = format!("p_{}", size - 1);
        assert_eq!((changed("new"), changed("p_0"), changed(&last)), (3, 4, 1), "at {size} blocks");
    }
}

#[test]
fn a_changed_row_carries_the_revision_that_wrote_it() {
    let db = store();
    let mut stored_blocks = StoredBlocks::default();
    let mut page = page_of(4);
    commit(&db, &mut stored_blocks, &page);
    page.revision = 7;
    page.blocks[2].text = "seven".into();
    commit(&db, &mut stored_blocks, &page);
    let revs: Vec<u64> = stored_blocks.rows().iter().map(|r| r.changed_rev).collect();
    assert_eq!(revs, [1, 1, 7, 1]);
}

#[test]
fn a_block_over_the_limit_is_refused_before_anything_is_written() {
    let db = store();
    let mut stored_blocks = StoredBlocks::default();
    let mut page = page_of(3);
    commit(&db, &mut stored_blocks, &page);
    page.revision += 1;
    page.blocks[1].text = "x".repeat(MAX_BLOCK_BYTES);
    let error = stored_blocks.diff(&page).expect_err("too large");
    assert_eq!(error.code(), pageai_core::error::ErrorCode::BlockTooLarge);
    assert_eq!(error.details()["blockId"], page.blocks[1].block_id);
    assert_eq!(load(&db).expect("load").expect("a page").0, page_of(3), "the stored page is untouched");
}

#[test]
fn a_page_in_the_layout_before_order_keys_moves_on_first_load() {
    let db = Memory::open();
    // The layout and rows exactly as the object wrote them before order keys.
    db.db
        .execute_batch(
            "CREATE TABLE page_meta (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                workspace_id TEXT NOT NULL,
                document_id TEXT NOT NULL,
                title TEXT NOT NULL,
                revision INTEGER NOT NULL,
                permission TEXT NOT NULL
            );
            CREATE TABLE page_blocks (
                position INTEGER PRIMARY KEY,
                block_id TEXT NOT NULL UNIQUE,
                body TEXT NOT NULL
            );
            INSERT INTO page_meta VALUES (1, 'ws', 'doc', 'Old page', 9, 'read');
            -- The interim block history some stores keep beside that layout.
            CREATE TABLE page_history (block_id TEXT PRIMARY KEY, changed_rev INTEGER NOT NULL);
            CREATE TABLE page_history_since (id INTEGER PRIMARY KEY CHECK (id = 1), known_since INTEGER NOT NULL);
            INSERT INTO page_history VALUES ('p_2', 6);
            INSERT INTO page_history_since VALUES (1, 4);",
        )
        .expect("old layout");
    let blocks = [
        Block::heading("h_1", 1, "Old page"),
        Block::paragraph("p_2", "second, stored at position 5"),
        Block::paragraph("p_1", "first, stored at position 2").locked(),
    ];
    for (position, block) in [(5, &blocks[1]), (2, &blocks[0]), (9, &blocks[2])] {
        let body = serde_json::to_string(block).expect("encode");
        db.db
            .execute(
                "INSERT INTO page_blocks (position, block_id, body) VALUES (?, ?, ?)",
                rusqlite::params![position, block.block_id, body],
            )
            .expect("old row");
    }

    create_schema(&db).expect("schema and move");
    let (page, stored_blocks) = load(&db).expect("load").expect("a page");
    assert_eq!(page.title, "Old page");
    assert_eq!((page.revision, page.permission), (9, Permission::Read));
    assert_eq!(page.blocks, blocks, "the blocks, in position order");
    let revs: Vec<u64> = stored_blocks.rows().iter().map(|r| r.changed_rev).collect();
    assert_eq!(revs, [9, 6, 9], "the interim history where it has a row, else the page's revision");
    let old_left: i64 = db
        .db
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master
             WHERE name IN ('page_blocks_by_position', 'page_history', 'page_history_since')",
            [],
            |r| r.get(0),
        )
        .expect("count");
    assert_eq!(old_left, 0, "the old tables are gone");
    // A second wake finds the new layout and leaves it alone; writes go on from there.
    create_schema(&db).expect("schema again");
    assert_eq!(content(&load(&db).expect("load").expect("a page").0), content(&page));
    let mut stored_blocks = stored_blocks;
    let mut next = page.clone();
    next.revision = 10;
    next.blocks.insert(1, Block::paragraph("p_new", "between the heading and p_2"));
    assert_eq!(commit(&db, &mut stored_blocks, &next).0, 1);
    assert_eq!(content(&load(&db).expect("load").expect("a page").0), content(&next));
}

#[test]
fn a_page_in_the_layout_before_order_keys_without_a_history_is_as_of_its_revision() {
    let db = Memory::open();
    db.db
        .execute_batch(
            "CREATE TABLE page_meta (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                workspace_id TEXT NOT NULL,
                document_id TEXT NOT NULL,
                title TEXT NOT NULL,
                revision INTEGER NOT NULL,
                permission TEXT NOT NULL
            );
            CREATE TABLE page_blocks (
                position INTEGER PRIMARY KEY,
                block_id TEXT NOT NULL UNIQUE,
                body TEXT NOT NULL
            );
            INSERT INTO page_meta VALUES (1, 'ws', 'doc', 'T', 3, 'edit');
            INSERT INTO page_blocks VALUES (0, 'a', '{\"blockId\":\"a\",\"type\":\"paragraph\",\"text\":\"A\"}');
            INSERT INTO page_blocks VALUES (1, 'b', '{\"blockId\":\"b\",\"type\":\"paragraph\",\"text\":\"B\"}');",
        )
        .expect("old layout");
    create_schema(&db).expect("schema and move");
    let (page, stored_blocks) = load(&db).expect("load").expect("a page");
    assert_eq!(page.blocks, [Block::paragraph("a", "A"), Block::paragraph("b", "B")]);
    assert!(stored_blocks.rows().iter().all(|r| r.changed_rev == 3));
}
