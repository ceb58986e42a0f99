//! # pageai-core
//!
//! The editor command layer of mnote's page AI, as pure logic: no I/O, no clock, no randomness. Callers
//! (the WASM package and the Cloudflare Worker) pass in time, ids and keys, so the browser preview and the
//! server's authoritative answer are computed by the same code and are byte-identical.
//!
//! A guided tour:
//!
//! - [`vocab`]: the closed lists everything else names (tools, origins, risks, intents, review states and
//!   modes), at the bottom of the crate: it imports no other module, and no module imports one above it.
//! - [`page`]: the block page model, its content hashes, `conflictDetectionKey` and `revisionRef`.
//! - [`history`]: the revision at which each block last changed, so a write based on an older revision
//!   lands when the blocks it touches did not change since.
//! - [`markdown`] (feature `std`): import and export of local-first `.md` pages, with block ids kept in
//!   optional `<!-- mnote:block id=… -->` markers.
//! - [`context`]: freezes a page into `mnote.page_ai_context.v1`, the addressable context a model reads, or
//!   into `mnote.page_ai_context.v2`, which also shows the page's pending suggestions, marked in every view as
//!   not its text (what `mnote.doc.fetch` and `mnote.block.fetch` answer).
//! - [`manifest`]: the one tool catalog (`mnote.ai_tool_manifest.v1`) and its MCP and OpenAI exports.
//! - [`executor`]: the single entry point of every tool call; every write is checked and applied there. A
//!   write conflicts only when a block it touches changed since the caller's read.
//! - [`edits`]: a person's block edits (`PATCH /api/documents/{id}/blocks`), and the edit a text change
//!   becomes.
//! - [`route`]: the deterministic bilingual command router (`mnote.page_ai_command_route.v1`): direct
//!   shortcuts for low-ambiguity commands, everything else to Hermes with a reason and a hint.
//! - [`review`]: review sessions (`mnote.page_ai_review_session.v1`) that hold AI writes until a person
//!   accepts them, with partial accept, rebase over edits to other blocks, stale detection, retry and
//!   undo, all on top of the executor; a person's edit held the same way as their suggestion; and the
//!   page's pending changes, people's and AI's alike, as `mnote.suggestion.v1`; and the undo of a whole
//!   Hermes run as one write, previewed first when a later edit touched its blocks (`mnote.run_undo.v1`).
//! - [`events`]: `mnote.tool_event.v1`, the same tool and review events for shortcuts and Hermes runs.
//! - [`live`]: a document's live channel (`mnote.live_event.v1`): the messages a committed command sends,
//!   what a reconnecting client is replayed, and how a client's copy of the page follows them (and its
//!   own writes, from the server's result).
//! - [`audit`]: the append-only, SHA-256 hash-chained audit log of a document, and its verifier.
//! - [`error`]: the one error enum, with stable codes, HTTP status classes and hints.
//! - [`ids`]: how ids and keys are spelled (one alphabet, the prefix and length of each kind, the review and
//!   Hermes session ids that name their document, read back); the caller brings the randomness.
//! - [`limits`]: how large one stored record, one block and one page may grow; every write is measured
//!   against them before anything is stored.
//! - [`json`]: the one JSON reader (each shape's [`json::Read`], derived from its serde attributes; errors
//!   name the field by JSON pointer) and encoder.
//! - [`wire`]: every versioned wire DTO (`mnote.*.v1`) and its schema id, one file per schema, and the coded
//!   error body.
//!
//! ```
//! use pageai_core::context::{build_context, ContextRequest, Scope, Format};
//! use pageai_core::page::{Block, Page};
//!
//! let page = Page::new("ws_1", "doc_1", "Plan", vec![
//!     Block::paragraph("p_1", "第一段"),
//!     Block::paragraph("p_2", "second paragraph"),
//! ]).unwrap();
//! let request = ContextRequest::new(Scope::Full).with_formats(&[Format::PageXml]);
//! let ctx = build_context(&page, &request, "ctx_1").unwrap();
//! assert_eq!(ctx.allowed_target_block_ids, ["p_1", "p_2"]);
//! assert!(ctx.page_xml.unwrap().contains(r#"<block id="p_1" type="paragraph">第一段</block>"#));
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing))]

extern crate alloc;
// `#[derive(Read)]` names core as `::pageai_core`, inside core too.
extern crate self as pageai_core;

pub mod audit;
pub mod context;
pub mod edits;
pub mod error;
pub mod events;
pub mod executor;
pub mod history;
pub mod ids;
pub mod json;
pub mod limits;
pub mod live;
pub mod manifest;
#[cfg(feature = "std")]
pub mod markdown;
pub mod normalize;
pub mod ops;
pub mod page;
pub mod policy;
pub mod profile;
pub mod review;
pub mod route;
pub mod search;
pub mod vocab;
pub mod wire;

pub use error::{Error, Result};
pub use page::{Block, BlockType, Page};
