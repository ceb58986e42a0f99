//! The diff against random edits: after every write the stored rows read back as the page, and one
//! operation (update, insert, delete or move of one block) writes one block row at most, however long the
//! page.

#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::page::Block;
use proptest::prelude::*;

use super::super::tests::{commit, content, page_of};
use super::super::{create_schema, load};
use super::*;
use crate::services::sqlite::memory::Memory;

#[derive(Debug, Clone)]
enum Edit {
    Update(usize),
    Insert(usize),
    Delete(usize),
    Move(usize, usize),
    /// Several edits in one write (a batch, or a `PUT` of a changed page).
    Batch(Vec<Edit>),
}

fn edit() -> impl Strategy<Value = Edit> {
    let one = prop_oneof![
        any::<usize>().prop_map(Edit::Update),
        any::<usize>().prop_map(Edit::Insert),
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Move(a, b)),
    ];
    prop_oneof![4 => one.clone(), 1 => proptest::collection::vec(one, 2..6).prop_map(Edit::Batch)]
}

/// Applies `edit` to `blocks`; answers how many block rows it may write at most.
fn apply(blocks: &mut Vec<Block>, edit: &Edit, fresh: &mut usize) -> usize {
    let len = blocks.len();
    match edit {
        Edit::Update(i) if len > 0 => {
            let block = &mut blocks[i % len];
            block.text.push('!');
            1
        }
        Edit::Insert(i) => {
            *fresh += 1;
            blocks.insert(i % (len + 1), Block::paragraph(format!("n_{fresh}"), format!("new {fresh}")));
            1
        }
        Edit::Delete(i) if len > 0 => {
            blocks.remove(i % len);
            1
        }
        Edit::Move(from, to) if len > 0 => {
            let block = blocks.remove(from % len);
            blocks.insert(to % len, block);
            1
        }
        Edit::Batch(edits) => edits.iter().map(|e| apply(blocks, e, fresh)).sum(),
        Edit::Update(_) | Edit::Delete(_) | Edit::Move(..) => 0,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn the_rows_follow_every_edit_and_only_the_edited_ones_are_written(
        size in 0usize..40,
        edits in proptest::collection::vec(edit(), 1..25),
    ) {
        let db = Memory::open();
        create_schema(&db).expect("schema");
        let mut stored_blocks = StoredBlocks::default();
        let mut page = page_of(size);
        commit(&db, &mut stored_blocks, &page);
        let mut fresh = 0;
        for edit in &edits {
            page.revision += 1;
            let most = apply(&mut page.blocks, edit, &mut fresh);
            let (rows, _) = commit(&db, &mut stored_blocks, &page);
            prop_assert!(rows <= most, "{edit:?} wrote {rows} block rows, at most {most} expected");
            let ords: Vec<String> = stored_blocks.rows().iter().map(|r| r.ord.to_hex()).collect();
            prop_assert!(ords.windows(2).all(|w| w[0] < w[1]), "keys in page order");
            let (loaded, image) = load(&db).expect("load").expect("a page");
            prop_assert_eq!(content(&loaded), content(&page));
            prop_assert_eq!(&image, &stored_blocks);
        }
    }
}

#[test]
fn a_new_page_is_all_inserts_and_the_same_page_again_writes_no_block() {
    let db = Memory::open();
    create_schema(&db).expect("schema");
    let mut stored_blocks = StoredBlocks::default();
    let mut page = page_of(20);
    assert_eq!(commit(&db, &mut stored_blocks, &page).0, 20);
    page.revision += 1;
    assert_eq!(commit(&db, &mut stored_blocks, &page).0, 0, "only the meta row");
}

#[test]
fn the_longest_run_in_order_keeps_its_keys() {
    assert_eq!(in_order(&[Some(0), Some(1), Some(2)]), [true, true, true]);
    // The last block moved to the top: only it moved.
    assert_eq!(in_order(&[Some(3), Some(0), Some(1), Some(2)]), [false, true, true, true]);
    assert_eq!(in_order(&[None, Some(1), None, Some(0)]).iter().filter(|k| **k).count(), 1);
    assert_eq!(in_order(&[]), Vec::<bool>::new());
}
