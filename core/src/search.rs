//! `mnote.doc.search`: where a text occurs, as block ids and char offsets.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::normalize;
use crate::page::Page;
use crate::wire::{DOC_SEARCH_V1, SearchHitV1, SearchResultV1};

/// Chars of context on each side of a hit in its snippet.
const SNIPPET_RADIUS: usize = 24;

/// Finds `query` (case- and width-insensitive) in every block, in page order, up to `limit` hits.
pub fn search(page: &Page, query: &str, limit: usize) -> Result<SearchResultV1> {
    let needle = normalize::fold(query.trim());
    if needle.is_empty() {
        return Err(Error::invalid("/query", "must contain a non-blank query"));
    }
    if !(1..=200).contains(&limit) {
        return Err(Error::invalid("/limit", "must be between 1 and 200"));
    }
    let length = needle.chars().count();
    let mut hits = Vec::new();
    let mut truncated = false;
    'blocks: for block in &page.blocks {
        for offset in normalize::find_folded(&block.text, &needle) {
            if hits.len() == limit {
                truncated = true;
                break 'blocks;
            }
            hits.push(SearchHitV1 {
                block_id: block.block_id.clone(),
                offset,
                length,
                snippet: snippet(&block.text, offset, length),
                editable: block.editable,
            });
        }
    }
    Ok(SearchResultV1 {
        schema: DOC_SEARCH_V1.into(),
        document_id: page.document_id.clone(),
        revision: page.revision,
        query: query.into(),
        hits,
        truncated,
    })
}

fn snippet(text: &str, offset: usize, length: usize) -> String {
    let start = offset.saturating_sub(SNIPPET_RADIUS);
    let take = length + (offset - start) + SNIPPET_RADIUS;
    let mut out: String = text.chars().skip(start).take(take).collect();
    if start > 0 {
        out.insert(0, '…');
    }
    if start + take < text.chars().count() {
        out.push('…');
    }
    out
}
