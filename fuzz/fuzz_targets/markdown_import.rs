//! Markdown import on arbitrary bytes (invalid UTF-8 included). Never a panic; what imports makes a valid
//! page, and exporting it and importing again keeps every block id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pageai_core::markdown::{export, import, import_bytes};
use pageai_core::page::Page;

fuzz_target!(|data: &[u8]| {
    let mut next = 0u32;
    let mut mint = || {
        next += 1;
        format!("b_fuzz{next}")
    };
    let Ok(blocks) = import_bytes(data, &mut mint) else { return };
    let Ok(page) = Page::new("ws", "doc", "Fuzz", blocks) else { return };
    let again = import(&export(&page), &mut mint).unwrap_or_else(|e| panic!("an exported page imports: {e}"));
    let ids = |blocks: &[pageai_core::page::Block]| blocks.iter().map(|b| b.block_id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&again), ids(&page.blocks), "block ids survive the round trip");
});
