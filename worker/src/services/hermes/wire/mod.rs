//! The shapes on both sides of the proxy: the client routes' requests and answers (seed 7-5, camelCase),
//! and the parts of Hermes 0.19's API the proxy reads and sends (snake_case, SPEC §10).
//!
//! Client request bodies refuse unknown fields, so a typo is a `hermes_client_bad_request` naming the
//! field, never a silently ignored option. Hermes' answers are read leniently: it adds fields between
//! releases, and the proxy only needs a few.
//!
//! Session ids are `mnote_{documentId}_{suffix}`, with a suffix of `[A-Za-z0-9-]` (no `_`). Document ids
//! may contain `_`, so the underscore-free suffix is what keeps `doc` and `doc_1` apart when sessions are
//! listed by prefix.
//!
//! - `ids`: session ids (`session_id_of`, `session_document`) and the checks on session and run ids.
//! - `client`: the client routes' request bodies and answers.
//! - `upstream`: Hermes' answers and request bodies, and their conversion to the client's shapes.

mod client;
mod ids;
mod upstream;

pub use client::*;
pub use ids::*;
pub use upstream::*;
