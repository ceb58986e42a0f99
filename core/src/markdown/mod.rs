//! Markdown import and export (feature `std`).
//!
//! Local-first pages are `.md` files. Import parses CommonMark + GFM with `pulldown-cmark` and maps its
//! block structure onto [`Block`]s; export writes the blocks back so that import ∘ export keeps every
//! block's type, attrs and text.
//!
//! Block ids survive a round trip through an optional marker, `<!-- mnote:block id=p_1 -->`. Export puts it
//! at the end of a block's last line, or, for code, dividers and tables, alone on the line after the block.
//! Import accepts both. Blocks without a marker (or with a duplicate or malformed one) get ids from the
//! caller's `mint` function: core has no randomness of its own.
//!
//! ```
//! use pageai_core::markdown::{export, import};
//! let mut n = 0;
//! let blocks = import("# Plan\n\nShip it <!-- mnote:block id=p_1 -->\n", &mut || { n += 1; format!("b_{n}") }).unwrap();
//! assert_eq!(blocks[0].block_id, "b_1");
//! assert_eq!(blocks[1].block_id, "p_1");
//! ```

mod export;
mod import;

use crate::error::{Error, Result};
use crate::page::Block;

pub use export::{export, export_blocks};

pub(crate) const MARKER_PREFIX: &str = "mnote:block";
/// Marks an empty paragraph, which Markdown cannot otherwise express.
pub(crate) const EMPTY_FLAG: &str = " empty -->";

/// Imports UTF-8 bytes; invalid UTF-8 is [`Error::InvalidMarkdown`].
pub fn import_bytes(bytes: &[u8], mint: &mut dyn FnMut() -> String) -> Result<Vec<Block>> {
    let text = std::str::from_utf8(bytes).map_err(|e| Error::InvalidMarkdown {
        reason: format!("not UTF-8: invalid byte at offset {}", e.valid_up_to()),
    })?;
    import(text, mint)
}

/// Imports Markdown into blocks. `mint` supplies ids for blocks that carry no usable marker.
pub fn import(markdown: &str, mint: &mut dyn FnMut() -> String) -> Result<Vec<Block>> {
    import::import(markdown, mint)
}

/// The lines of a text, each with the line ending after it (none after the last): CommonMark ends a line at
/// `\n`, `\r\n` or a lone `\r`. A text that ends with a line ending has an empty last line.
pub(crate) struct Lines<'a>(Option<&'a str>);

impl<'a> Lines<'a> {
    pub(crate) fn of(text: &'a str) -> Self {
        Lines(Some(text))
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.0?;
        let Some(at) = rest.find(['\n', '\r']) else {
            self.0 = None;
            return Some((rest, ""));
        };
        let (line, tail) = rest.split_at(at);
        let (ending, next) = tail.split_at(if tail.starts_with("\r\n") { 2 } else { 1 });
        self.0 = Some(next);
        Some((line, ending))
    }
}
