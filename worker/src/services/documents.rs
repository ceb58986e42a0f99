//! Document rules the Worker adds around core: the draft a `PUT` carries, how it is resolved against the
//! stored page, and the seeded `welcome` page.
//!
//! A `PUT` replaces the blocks but not necessarily the metadata. Markdown has no place for a workspace or
//! a permission, and a JSON body may leave them out, so a [`PageDraft`] holds only what the caller said.
//! The Durable Object fills in the rest from the stored page ([`PageDraft::resolve`]), inside its
//! single-threaded turn, so the read of the old page and the write of the new one cannot interleave with
//! another writer.

use pageai_core::Error;
use pageai_core::markdown;
use pageai_core::page::{Block, BlockHistory, BlockType, Page, Permission, validate_document_id};
use serde::{Deserialize, Serialize};

use crate::config::DEFAULT_WORKSPACE_ID;
use crate::ids::BlockIdMinter;

/// Id of the sample page that a `GET` seeds into an empty store.
pub const WELCOME_ID: &str = "welcome";

/// The sample page, as the Markdown file a user would keep locally.
const WELCOME_MARKDOWN: &str = include_str!("../../../tests/fixtures/pages/welcome.md");

/// What a `PUT` says about the page. `None` means "keep the stored value, or use the default".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PageDraft {
    /// The workspace; default [`DEFAULT_WORKSPACE_ID`].
    pub workspace_id: Option<String>,
    /// The title; default the first level-1 heading, else the document id.
    pub title: Option<String>,
    /// The permission; default `edit`.
    pub permission: Option<Permission>,
    /// The new blocks, replacing all old ones.
    pub blocks: Vec<Block>,
}

/// The JSON body of `PUT /api/documents/{id}`: a page whose metadata fields may be left out.
///
/// `revision` is accepted so a page fetched with `GET` can be sent back unchanged, but it is ignored:
/// the store assigns revisions.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PutPageBody {
    workspace_id: Option<String>,
    document_id: Option<String>,
    title: Option<String>,
    #[allow(dead_code, reason = "accepted for GET/PUT round trips; the store assigns revisions")]
    revision: Option<u64>,
    permission: Option<Permission>,
    blocks: Vec<Block>,
}

impl PutPageBody {
    /// The draft, after checking that the body names the same document as the path (or none).
    pub fn into_draft(self, document_id: &str) -> Result<PageDraft, Error> {
        if let Some(named) = &self.document_id
            && named != document_id
        {
            return Err(Error::invalid(
                "/documentId",
                format!("must be {document_id:?}, the id in the path, or be left out"),
            ));
        }
        Ok(PageDraft {
            workspace_id: self.workspace_id,
            title: self.title,
            permission: self.permission,
            blocks: self.blocks,
        })
    }
}

impl PageDraft {
    /// A draft from a Markdown body: blocks only, so title, workspace and permission are kept.
    pub fn from_markdown(bytes: &[u8]) -> Result<PageDraft, Error> {
        let blocks = import_markdown(bytes)?;
        Ok(PageDraft { workspace_id: None, title: None, permission: None, blocks })
    }

    /// The page to store: the draft over the stored page (if any) over the defaults, at the next revision.
    pub fn resolve(self, document_id: &str, stored: Option<&Page>) -> Result<Page, Error> {
        let revision = stored.map_or(0, |p| p.revision);
        let revision = revision.checked_add(1).ok_or_else(|| Error::invalid("/revision", "revision overflow"))?;
        let title = self
            .title
            .or_else(|| stored.map(|p| p.title.clone()))
            .unwrap_or_else(|| default_title(&self.blocks, document_id));
        let page = Page {
            workspace_id: self
                .workspace_id
                .or_else(|| stored.map(|p| p.workspace_id.clone()))
                .unwrap_or_else(|| DEFAULT_WORKSPACE_ID.to_string()),
            document_id: document_id.to_string(),
            title,
            revision,
            permission: self.permission.or_else(|| stored.map(|p| p.permission)).unwrap_or_default(),
            blocks: self.blocks,
            // Every block is new to this revision as far as a later write can tell.
            history: BlockHistory::new(revision),
        };
        page.validate()?;
        // Core's block rule, as every other write path asks it: the same coded 413 naming the block.
        pageai_core::limits::check_blocks(&page.blocks)?;
        Ok(page)
    }
}

/// Checks a document id from a path or a body: core's rule ([`validate_document_id`]), as an error at
/// `/documentId`.
pub fn check_document_id(id: &str) -> Result<(), Error> {
    validate_document_id(id).map_err(|reason| Error::invalid("/documentId", reason))
}

/// The page a `GET` of `document_id` creates in an empty store, if any: only `welcome` is seeded.
pub fn seed(document_id: &str) -> Result<Option<Page>, Error> {
    if document_id != WELCOME_ID {
        return Ok(None);
    }
    let draft = PageDraft::from_markdown(WELCOME_MARKDOWN.as_bytes())?;
    draft.resolve(document_id, None).map(Some)
}

fn import_markdown(bytes: &[u8]) -> Result<Vec<Block>, Error> {
    let mut minter = BlockIdMinter::new();
    let blocks = markdown::import_bytes(bytes, &mut || minter.mint())?;
    minter.finish()?;
    Ok(blocks)
}

/// The text of the first level-1 heading, else the document id.
fn default_title(blocks: &[Block], document_id: &str) -> String {
    blocks
        .iter()
        .find(|b| b.kind == BlockType::Heading && b.attrs.level == Some(1))
        .map_or_else(|| document_id.to_string(), |b| b.text.trim().to_string())
}

#[cfg(test)]
#[allow(clippy::expect_used, reason = "a failed expectation is the test's report")]
mod tests {
    use super::*;

    fn draft(markdown: &str) -> PageDraft {
        PageDraft::from_markdown(markdown.as_bytes()).expect("markdown imports")
    }

    #[test]
    fn new_page_takes_defaults_and_revision_one() {
        let page = draft("# Plan\n\nShip it\n").resolve("doc_1", None).expect("resolves");
        assert_eq!((page.title.as_str(), page.workspace_id.as_str(), page.revision), ("Plan", "ws_local", 1));
        let untitled = draft("just text\n").resolve("doc_2", None).expect("resolves");
        assert_eq!(untitled.title, "doc_2");
    }

    #[test]
    fn markdown_put_keeps_stored_metadata() {
        let mut stored = draft("# Old\n").resolve("doc_1", None).expect("resolves");
        stored.workspace_id = "ws_team".into();
        stored.permission = Permission::Read;
        let next = draft("# New heading\n\nbody\n").resolve("doc_1", Some(&stored)).expect("resolves");
        assert_eq!((next.title.as_str(), next.workspace_id.as_str()), ("Old", "ws_team"));
        assert_eq!((next.permission, next.revision), (Permission::Read, 2));
    }

    #[test]
    fn body_naming_another_document_is_refused() {
        let body: PutPageBody = serde_json::from_str(r#"{"documentId":"other","blocks":[]}"#).expect("parses");
        let details = body.into_draft("doc_1").expect_err("refused").details();
        assert_eq!(details.get("pointer").and_then(|p| p.as_str()), Some("/documentId"));
    }

    #[test]
    fn document_ids_are_plain_tokens() {
        assert!(check_document_id("welcome").is_ok());
        assert!(check_document_id("doc_1-A").is_ok());
        for bad in ["", "a.b", "a%20b", "中文", &"x".repeat(65)] {
            assert!(check_document_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn welcome_seed_is_a_rich_page() {
        let page = seed(WELCOME_ID).expect("seeds").expect("welcome is seeded");
        assert_eq!((page.revision, page.title.as_str()), (1, "mnote Page AI"));
        assert!((25..=40).contains(&page.blocks.len()), "{} blocks", page.blocks.len());
        for kind in BlockType::ALL {
            if kind != BlockType::Image {
                assert!(page.blocks.iter().any(|b| b.kind == kind), "no {kind:?} block");
            }
        }
        assert!(page.blocks.iter().any(|b| b.attrs.depth.unwrap_or(0) > 0), "no nested list item");
        assert!(page.blocks.iter().all(|b| !b.block_id.starts_with("b_")), "every seed block has a stable id");
        assert!(seed("other").expect("no error").is_none());
    }
}
