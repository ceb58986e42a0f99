//! A person's edits of blocks: the body of `PATCH /api/documents/{id}/blocks` ([`BlockEdits`]), and the
//! edit a text change in the editor becomes ([`BlockEdits::text`]).
//!
//! A person's edits are an `mnote.doc.apply_block_ops` batch run as origin `user` ([`BlockEdits::args`]):
//! the same executor and guards as every AI write, never held for review. The editor builds a text change
//! with [`BlockEdits::text`] and previews it locally (the WASM package's `PageSession.editBlock`); the Worker
//! applies the same body.
//!
//! A text change becomes an `update` with the block's whole new text, not a minimal `replace`: a replace of
//! the changed span would be smaller on the wire, but the span may occur twice in the block (then it is
//! ambiguous), and it buys no merging, because the block's `revisionRef`, sent with the edit, refuses it
//! anyway when someone else changed that block since.
//!
//! ```
//! use pageai_core::edits::BlockEdits;
//! use pageai_core::page::{Block, Page};
//!
//! let page = Page::new("ws", "doc_1", "Plan", vec![Block::paragraph("p_1", "draft")]).unwrap();
//! let edit = BlockEdits::text(&page, "p_1", "final", "k_1").unwrap();
//! assert_eq!(edit.base_revision, 0);
//! assert_eq!(edit.revision_refs.as_deref(), Some(&[page.revision_ref(&page.blocks[0])][..]));
//! assert_eq!(serde_json::to_value(&edit.operations).unwrap(),
//!     serde_json::json!([{"op": "update", "blockId": "p_1", "text": "final"}]));
//! ```

use crate::json::Read;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::manifest::args::ApplyBlockOpsArgs;
use crate::ops::Operation;
use crate::page::Page;

/// The body of `PATCH /api/documents/{id}/blocks`: a person's edits, all applied or none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockEdits {
    /// The revision of the page the person edited.
    pub base_revision: u64,
    /// The edits: the operations of `mnote.doc.apply_block_ops`.
    pub operations: Vec<Operation>,
    /// Required: the same key and body replay the first answer; the same key with another body conflicts.
    pub idempotency_key: String,
    /// The `revisionRef`s of the edited blocks as the person's page showed them. Blocks not listed are
    /// judged by `baseRevision` and the page's history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_refs: Option<Vec<String>>,
}

impl BlockEdits {
    /// The edit that gives block `block_id` of `page` the text `text`: an `update` (see the module docs),
    /// based on `page`'s revision and pinned to the block's `revisionRef`.
    ///
    /// Fails with `mnote_block_not_found`, `mnote_block_not_editable`, or `mnote_invalid_arguments` at
    /// `/text` when the block already has this text (there is nothing to save).
    pub fn text(page: &Page, block_id: &str, text: &str, idempotency_key: impl Into<String>) -> Result<Self> {
        let block = page.require_block(block_id)?;
        if !block.editable {
            return Err(Error::BlockNotEditable { block_id: block_id.into() });
        }
        if block.text == text {
            return Err(Error::invalid("/text", "the block already has this text; there is nothing to save"));
        }
        Ok(BlockEdits {
            base_revision: page.revision,
            operations: vec![Operation::Update {
                block_id: block_id.into(),
                text: Some(text.into()),
                kind: None,
                attrs: None,
            }],
            idempotency_key: idempotency_key.into(),
            revision_refs: Some(vec![page.revision_ref(block)]),
        })
    }

    /// The `mnote.doc.apply_block_ops` arguments these edits are on document `document_id`: applied
    /// (`dryRun: false`), with no context and no narrowing.
    pub fn args(&self, document_id: &str) -> ApplyBlockOpsArgs {
        ApplyBlockOpsArgs {
            context_id: None,
            document_id: document_id.into(),
            base_revision: self.base_revision,
            operations: self.operations.clone(),
            dry_run: false,
            idempotency_key: self.idempotency_key.clone(),
            allowed_target_block_ids: None,
            revision_refs: self.revision_refs.clone(),
            require_exact_revision: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::Block;

    #[test]
    fn a_text_edit_names_the_block_it_read_and_refuses_what_cannot_be_saved() {
        let page =
            Page::new("ws", "doc_1", "t", vec![Block::paragraph("p_1", "a"), Block::paragraph("p_2", "b").locked()])
                .unwrap()
                .at_revision(4);
        let edit = BlockEdits::text(&page, "p_1", "A", "k").unwrap();
        assert_eq!(edit.args("doc_1").base_revision, 4);
        assert!(!edit.args("doc_1").dry_run);
        assert_eq!(BlockEdits::text(&page, "p_2", "B", "k").unwrap_err().code().as_str(), "mnote_block_not_editable");
        assert_eq!(BlockEdits::text(&page, "p_9", "B", "k").unwrap_err().code().as_str(), "mnote_block_not_found");
        assert_eq!(BlockEdits::text(&page, "p_1", "a", "k").unwrap_err().details()["pointer"], "/text");
    }
}
