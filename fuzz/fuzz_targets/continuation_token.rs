//! Context requests carrying an arbitrary continuation token (and budget). Never a panic; a token that is
//! accepted yields a chunk of the same page.
#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use pageai_core::context::{ContextRequest, Scope, build_context};

fuzz_target!(|data: &[u8]| {
    let Some((&budget, token)) = data.split_first() else { return };
    let page = common::page();
    let token = String::from_utf8_lossy(token);
    let request =
        ContextRequest::new(Scope::Full).with_budget(usize::from(budget) + 1).with_continuation(token.as_ref());
    if let Ok(context) = build_context(&page, &request, "ctx_fuzz") {
        assert_eq!(context.document_id, page.document_id);
        assert!(context.blocks.iter().flatten().all(|b| page.blocks.iter().any(|p| p.block_id == b.block_id)));
    }
});
