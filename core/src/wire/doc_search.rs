//! `mnote.doc_search.v1`: the answer of `mnote.doc.search`.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Schema id of [`SearchResultV1`].
pub const DOC_SEARCH_V1: &str = "mnote.doc_search.v1";

/// One place a searched text occurs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchHitV1 {
    /// The block.
    pub block_id: String,
    /// Char offset of the hit in the block's text.
    pub offset: usize,
    /// Length of the hit in chars.
    pub length: usize,
    /// The hit with some text around it.
    pub snippet: String,
    /// Whether the block may be written.
    pub editable: bool,
}

/// `mnote.doc_search.v1`: the answer of `mnote.doc.search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchResultV1 {
    /// Always [`DOC_SEARCH_V1`].
    pub schema: String,
    /// The document.
    pub document_id: String,
    /// The revision searched.
    pub revision: u64,
    /// The query as sent.
    pub query: String,
    /// Hits in page order.
    pub hits: Vec<SearchHitV1>,
    /// Hits beyond the limit were left out.
    pub truncated: bool,
}
