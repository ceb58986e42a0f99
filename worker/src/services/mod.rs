//! Storage and document logic behind the routes, kept free of HTTP concerns.
//!
//! - [`stores`]: the traits a document command works against (sessions, contexts, ids), over core's own
//!   store traits; [`tables`] backs them with the Durable Object's SQLite, tests with memory.
//! - [`tool_calls`], [`commands`], [`reviews`], [`block_edits`]: what a tool call, a page-AI command, a
//!   review action and a person's block edits do inside the document's object.
//! - [`mcp`]: the MCP JSON-RPC protocol, as pure functions.
//! - [`profiles`]: the profile's validation.
//! - [`documents`], [`page_store`], [`sqlite`]: pages and all-or-nothing SQLite writes.
//!
//! A document command answers JSON text, encoded by core's `pageai_core::json::to_json`.

pub mod block_edits;
pub mod commands;
pub mod documents;
pub mod hermes;
pub mod mcp;
pub mod page_store;
pub mod profiles;
pub mod reviews;
pub mod sqlite;
pub mod stores;
pub mod tables;
pub mod tool_calls;
