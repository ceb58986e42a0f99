//! Durable Object classes, one file per class.

pub mod document;
pub mod profile;
