//! The document object's writes: a `PUT` of the whole page, and [`DocumentObject::transact`], where a tool
//! call, a page-AI command or a review action works on the page in memory and commits what it recorded in
//! one transaction.

use pageai_core::Error;
use pageai_core::audit::{self, AuditAction, AuditDraft};
use pageai_core::json::to_json;
use pageai_core::live::{self, AppliedWrite, Author, Change, Commit};
use pageai_core::page::Page;
use pageai_core::profile::Profile;

use super::DocumentObject;
use crate::clock::Now;
use crate::error::{OrInternal, internal};
use crate::identity::Acting;
use crate::ids::RandomMint;
use crate::services::documents::PageDraft;
use crate::services::page_store::{StoredBlocks, StoredBlocksPatch};
use crate::services::stores::Stores;
use crate::services::tables::{LiveRow, Tables};

impl DocumentObject {
    /// Stores a new page (or the first one) with its `document.put` audit entry, in one transaction; only
    /// the block rows that differ from the stored page are written.
    pub(super) fn put(
        &self,
        document_id: &str,
        draft: PageDraft,
        acting: &Acting,
        trace_id: &str,
    ) -> Result<String, Error> {
        let mut cache = self.cache.borrow_mut();
        let sql = cache.sql().clone();
        let contexts = cache.contexts();
        let page = draft.resolve(document_id, cache.loaded(trace_id)?.page.as_ref())?;
        let now = Now::read();
        let mut tables = Tables::new(&sql, &contexts, now.ms);
        let entry = AuditDraft {
            at: now.at.clone(),
            actor: acting.user.clone(),
            document_id: document_id.into(),
            action: AuditAction::DocumentPut,
            tool_name: None,
            tool_call_id: None,
            review_session_id: None,
            revision: page.revision,
            summary: format!("stored the page: {} block(s)", page.blocks.len()),
        };
        audit::record(&mut tables.audit, entry)?;
        if let Some(failure) = tables.read_failure() {
            return Err(internal("read document storage", failure, trace_id));
        }
        let json = to_json(&page)?;
        let stored = cache.loaded(trace_id)?.page.as_ref();
        let (written, deleted) = live::compared(stored, &page);
        let change = Change {
            from_revision: stored.map_or(0, |p| p.revision),
            written: &written,
            deleted: &deleted,
            author: Author::Person(&acting.user),
        };
        let commit = Commit { page: &page, at: &now.at, change: Some(change), events: &[], sessions: &[] };
        tables.live = self.live_rows(&commit, trace_id)?;
        let rows = tables.live.clone();
        match cache.replace(page, trace_id, |page_rows| tables.commit(Some(page_rows), true)) {
            Ok(()) => self.broadcast(&rows),
            Err(error) => {
                self.forget_seq();
                return Err(error);
            }
        }
        Ok(json)
    }

    /// Runs `work` on the page and its stores (the document's tables), then commits what it recorded in one
    /// transaction (see the module docs). A failed `work` keeps only its events. When the commit fails, or
    /// a failed `work` changed the page's revision in memory, the copy is dropped and read again next time.
    pub(super) fn transact<T>(
        &self,
        document_id: &str,
        profile: &Profile,
        acting: &Acting,
        trace_id: &str,
        work: impl FnOnce(&mut Page, &mut Stores<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut cache = self.cache.borrow_mut();
        let sql = cache.sql().clone();
        let contexts = cache.contexts();
        let (page, stored_blocks) = cache.page(document_id, trace_id)?;
        let revision = page.revision;
        let now = Now::read();
        let mut tables = Tables::new(&sql, &contexts, now.ms);
        tables.contexts.act_for(acting);
        let mut mint = RandomMint::default();
        let mut writes: Vec<AppliedWrite> = Vec::new();
        let outcome = {
            let Tables { idempotency, audit, sessions, contexts, events, .. } = &mut tables;
            let mut stores = Stores {
                profile,
                acting,
                now: &now,
                context_ttl_seconds: self.config.context_ttl_seconds,
                idempotency,
                audit,
                sessions,
                contexts,
                events,
                writes: &mut writes,
                mint: &mut mint,
            };
            work(page, &mut stores)
        };
        let changed = page.revision != revision;
        let started_on = outcome.is_ok().then_some(revision);
        let told = self.tell(&mut tables, page, started_on, &writes, &now.at, trace_id);
        let (keep, settled) = settle(tables, mint, page, stored_blocks, outcome.is_ok(), changed, trace_id);
        if !keep {
            cache.forget();
        }
        match (&settled, told) {
            (Ok(()), Ok(rows)) => self.broadcast(&rows),
            _ => self.forget_seq(),
        }
        settled?;
        outcome
    }

    /// Builds this command's live messages into `tables` (committed with it) and answers them for the
    /// broadcast. `started_on` is the revision a command that succeeded started on (`None` when it failed):
    /// a failed command tells only its tool events; one that changed the page, the change too.
    fn tell(
        &self,
        tables: &mut Tables,
        page: &Page,
        started_on: Option<u64>,
        writes: &[AppliedWrite],
        at: &str,
        trace_id: &str,
    ) -> Result<Vec<LiveRow>, Error> {
        let (written, deleted) = live::touched(writes);
        let succeeded = started_on.is_some();
        let change = started_on.filter(|from| *from != page.revision).map(|from_revision| Change {
            from_revision,
            written: &written,
            deleted: &deleted,
            author: Author::Writes(writes),
        });
        let sessions = if succeeded { tables.sessions.stored() } else { &[] };
        let commit = Commit { page, at, change, events: &tables.events, sessions };
        let rows = self.live_rows(&commit, trace_id)?;
        tables.live.clone_from(&rows);
        Ok(rows)
    }
}

/// Commits what a command recorded (its page rows only when it succeeded and changed the revision) and
/// brings the image up to date. Answers whether the copy in memory may be kept, and the commit's outcome.
fn settle(
    tables: Tables,
    mint: RandomMint,
    page: &Page,
    stored_blocks: &mut StoredBlocks,
    succeeded: bool,
    changed: bool,
    trace_id: &str,
) -> (bool, Result<(), Error>) {
    let committed = (|| -> Result<Option<StoredBlocksPatch>, Error> {
        if let Some(failure) = tables.read_failure() {
            return Err(internal("read document storage", failure, trace_id));
        }
        mint.finish()?;
        let (rows, patch) = match (succeeded, changed) {
            (true, true) => {
                let (rows, patch) = stored_blocks.diff(page)?;
                (Some(rows), Some(patch))
            }
            _ => (None, None),
        };
        tables.commit(rows, succeeded).or_internal("commit document command", trace_id)?;
        Ok(patch)
    })();
    match committed {
        Ok(Some(patch)) => match stored_blocks.apply(patch, page.blocks.len()) {
            Ok(()) => (true, Ok(())),
            Err(e) => {
                // The command is committed; only the copy is off. Reading it again mends that.
                worker::console_error!("[{trace_id}] follow the stored page: {e}; reloading it next time");
                (false, Ok(()))
            }
        },
        // Nothing of the page was written: the copy is right unless the failed work changed it.
        Ok(None) => (!changed, Ok(())),
        Err(error) => (!changed, Err(error)),
    }
}
