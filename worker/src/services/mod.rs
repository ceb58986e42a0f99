//! Storage and document logic behind the routes, kept free of HTTP concerns.

pub mod context_store;
pub mod documents;
pub mod hermes;
pub mod page_store;
pub mod sqlite;
