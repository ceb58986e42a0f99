//! Continuation tokens: where the next chunk of a budgeted context starts.
//!
//! A token is opaque to callers. Inside it names the document, the revision and a tag of the scope, so a
//! token can only continue the context it came from: another document or scope is an invalid argument, and
//! an older revision is `mnote_context_stale`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use xxhash_rust::xxh3::xxh3_64;

use super::Scope;
use crate::error::{Error, Result};
use crate::page::Page;

const VERSION: &str = "c1";

/// A position in a resolved scope: the entry, and the char offset inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// Index into the scope's blocks.
    pub entry: usize,
    /// Char offset inside that block's text (non-zero only after a partial cut).
    pub offset: usize,
}

/// A short tag that tells scopes apart.
pub(super) fn scope_tag(scope: &Scope) -> u64 {
    let canonical = serde_json::to_vec(scope).unwrap_or_default();
    xxh3_64(&canonical)
}

impl Cursor {
    pub(super) fn encode(self, page: &Page, scope_tag: u64) -> String {
        let raw = format!(
            "{VERSION}|{}|{:016x}|{}|{}|{}",
            page.revision, scope_tag, self.entry, self.offset, page.document_id
        );
        URL_SAFE_NO_PAD.encode(raw.as_bytes())
    }

    pub(super) fn decode(token: &str, page: &Page, scope_tag: u64) -> Result<Cursor> {
        let bad = |reason: &str| Error::invalid("/continuation", reason);
        let bytes = URL_SAFE_NO_PAD.decode(token.as_bytes()).map_err(|_| bad("not a continuation token"))?;
        let raw = String::from_utf8(bytes).map_err(|_| bad("not a continuation token"))?;
        // The document id comes last, so it may itself contain '|'.
        let parts: Vec<&str> = raw.splitn(6, '|').collect();
        let [version, revision, tag, entry, offset, document_id] = parts.as_slice() else {
            return Err(bad("not a continuation token"));
        };
        if *version != VERSION {
            return Err(bad("not a continuation token"));
        }
        let revision: u64 = revision.parse().map_err(|_| bad("not a continuation token"))?;
        let tag = u64::from_str_radix(tag, 16).map_err(|_| bad("not a continuation token"))?;
        let entry: usize = entry.parse().map_err(|_| bad("not a continuation token"))?;
        let offset: usize = offset.parse().map_err(|_| bad("not a continuation token"))?;
        if *document_id != page.document_id {
            return Err(bad("the token belongs to another document"));
        }
        if tag != scope_tag {
            return Err(bad("the token belongs to another scope; send the same scope as the first request"));
        }
        if revision != page.revision {
            return Err(Error::ContextStale { token_revision: revision, current_revision: page.revision });
        }
        Ok(Cursor { entry, offset })
    }
}
