//! Storage and document logic behind the routes, kept free of HTTP concerns.
//!
//! - [`tool_calls`], [`commands`], [`reviews`], [`block_edits`]: what a tool call, a page-AI command, a
//!   review action and a person's block edits do inside the document's object.
//! - [`mcp`]: the MCP JSON-RPC protocol, as pure functions.
//! - [`profiles`]: the profile's validation; [`documents`]: a page as a client sends it, and the samples.
//! - [`hermes`]: the Hermes upstream client, its SSE relay and a run's instructions.
//!
//! Storage, each module named for what it holds; the dependencies point one way, down this list:
//!
//! - [`stores`]: what a document command stores and reads besides the page, one trait per thing stored
//!   (review sessions, frozen contexts, fresh ids; core's idempotency records and audit chain), lent to
//!   one command as a [`stores::Stores`].
//! - [`tables`]: the SQLite tables that back those traits (idempotency, contexts, sessions, audit, events,
//!   the live log), committed with the page's rows in one transaction by [`tables::Tables::commit`].
//! - [`page_store`]: the page's tables (a meta row, a row per block), the rows kept in memory
//!   ([`page_store::StoredBlocks`]) and the rows a write changes.
//! - [`sqlite`]: the SQL layer under both: statements, transactions, and the storage-error helpers.
//!
//! The service tests share one set-up, with every store in memory (`test_support`, tests only); the
//! Worker's wire-fixture tests (`wire_fixtures_tests`) read core's golden fixtures through it.
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
pub mod run_undo;
pub mod sqlite;
pub mod stores;
pub mod tables;
#[cfg(test)]
pub mod test_support;
pub mod tool_calls;
#[cfg(test)]
mod wire_fixtures_tests;
