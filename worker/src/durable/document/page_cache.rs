//! What a document object keeps in memory between requests: the page, the image of its stored rows
//! ([`StoredBlocks`]), its committed frozen contexts ([`ContextCache`], bounded), and whether this wake created
//! the tables yet.
//!
//! Everything is read from SQLite once per wake ([`PageCache::loaded`]): the schema statements of the page
//! store and the tables (after moving a page of an older layout), then the page. Every later command works
//! on the page in memory and writes only what it changed ([`StoredBlocks::diff`]). When a commit fails, or a
//! failed command leaves the page in memory changed, [`PageCache::forget`] drops the copy: the next command
//! reads it again from storage, which the failed transaction left as it was.

use pageai_core::Error;
use pageai_core::page::Page;

use crate::error::OrInternal;
use crate::services::documents::seed;
use crate::services::page_store::{self, PageRows, StoredBlocks, StoredBlocksPatch};
use crate::services::sqlite::{ObjectSql, atomically};
use crate::services::tables::{self, ContextCache};

/// The page as loaded: `None` while the document was never written.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The page.
    pub page: Option<Page>,
    /// Its stored rows.
    pub stored_blocks: StoredBlocks,
}

impl Loaded {
    /// Brings the image up to date after `rows` (made with `patch` against it) were committed for `page`.
    /// On failure the caller forgets the copy.
    pub fn committed(&mut self, patch: StoredBlocksPatch, page: &Page) -> Result<(), String> {
        self.stored_blocks.apply(patch, page.blocks.len())
    }
}

/// The object's memory.
#[derive(Debug)]
pub struct PageCache {
    sql: ObjectSql,
    schema: bool,
    loaded: Option<Loaded>,
    contexts: ContextCache,
}

impl PageCache {
    /// Nothing loaded yet: the object just woke.
    pub fn new(sql: ObjectSql) -> Self {
        PageCache { sql, schema: false, loaded: None, contexts: ContextCache::default() }
    }

    /// The committed frozen contexts kept in memory (a handle: clones share them).
    pub fn contexts(&self) -> ContextCache {
        self.contexts.clone()
    }

    /// The storage the copy was loaded from.
    pub fn sql(&self) -> &ObjectSql {
        &self.sql
    }

    /// The page as stored (loading it, and creating the tables, on the first call after a wake).
    pub fn loaded(&mut self, trace_id: &str) -> Result<&mut Loaded, Error> {
        if !self.schema {
            page_store::create_schema(&self.sql).or_internal("create page tables", trace_id)?;
            tables::create_schema(&self.sql)?;
            self.schema = true;
        }
        let loaded = match self.loaded.take() {
            Some(loaded) => loaded,
            None => match page_store::load(&self.sql).or_internal("load page", trace_id)? {
                Some((page, stored_blocks)) => Loaded { page: Some(page), stored_blocks },
                None => Loaded::default(),
            },
        };
        Ok(self.loaded.insert(loaded))
    }

    /// The page and its image; a known sample is seeded first into an empty store, any other document
    /// that was never written is `mnote_document_not_found`.
    pub fn page(&mut self, document_id: &str, trace_id: &str) -> Result<(&mut Page, &mut StoredBlocks), Error> {
        let sql = self.sql.clone();
        let loaded = self.loaded(trace_id)?;
        if loaded.page.is_none() {
            let Some(page) = seed(document_id)? else {
                return Err(Error::DocumentNotFound { document_id: document_id.into() });
            };
            let (rows, patch) = loaded.stored_blocks.diff(&page)?;
            atomically(&sql, |sql| rows.write(sql)).or_internal("seed page", trace_id)?;
            loaded.committed(patch, &page).or_internal("seed page", trace_id)?;
            loaded.page = Some(page);
        }
        let Loaded { page, stored_blocks } = loaded;
        match page {
            Some(page) => Ok((page, stored_blocks)),
            None => Err(Error::DocumentNotFound { document_id: document_id.into() }),
        }
    }

    /// Stores `page` in one transaction with whatever `commit` adds, then keeps it as the copy. Used by a
    /// `PUT`, which replaces the page whole (only the rows that differ are written): the copy's block
    /// history is then the stored rows', so a block the `PUT` left as it was keeps its revision.
    pub fn replace(
        &mut self,
        mut page: Page,
        trace_id: &str,
        commit: impl FnOnce(PageRows) -> Result<(), String>,
    ) -> Result<(), Error> {
        let loaded = self.loaded(trace_id)?;
        let (rows, patch) = loaded.stored_blocks.diff(&page)?;
        if let Err(e) = commit(rows) {
            self.forget();
            return Err(crate::error::internal("commit page", e, trace_id));
        }
        match loaded.committed(patch, &page) {
            Ok(()) => {
                page.history = page_store::history_of(&loaded.stored_blocks);
                loaded.page = Some(page);
            }
            Err(e) => {
                // The page is stored; only the copy is off. Reading it again next time mends that.
                worker::console_error!("[{trace_id}] follow the stored page: {e}; reloading it next time");
                self.forget();
            }
        }
        Ok(())
    }

    /// Drops the copy; the next command loads the page from storage again.
    pub fn forget(&mut self) {
        self.loaded = None;
    }
}
