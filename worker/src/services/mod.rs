//! Storage and document logic behind the routes, kept free of HTTP concerns.

pub mod documents;
pub mod page_store;
pub mod sqlite;
