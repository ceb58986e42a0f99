//! Frozen contexts kept in the document object's memory, so a write bound to a whole-page context does not
//! read and decode that context's ids and hashes (tens of thousands of strings at 10,000 blocks) from
//! SQLite each time.
//!
//! SQLite stays the truth: an entry is exactly the row as committed ([`ContextCache::committed`] is called
//! only once the transaction that wrote it succeeded, with the context as stored), or as read back on a
//! miss. Nothing else writes `frozen_contexts` but expiry, and an expired entry is never answered and is
//! purged when contexts are committed, as the rows are. The cache is bounded by [`MAX_ENTRIES`] and
//! [`MAX_BYTES`] (estimated), least recently used first out; a context too large for it alone is read from
//! SQLite every time, as all were before. After eviction or a restart of the object the row answers.
//!
//! Each entry also keeps whom its context acts for (its row's `user_id` and `role`), which every call that
//! names the context asks, so a call never walks the row's ids and hashes to read two short columns.
//!
//! Entries are shared ([`Rc`]), never copied: a write bound to a whole-page context borrows the kept one,
//! so it neither copies nor frees that context's ids and hashes (at 10,000 blocks, copying and dropping
//! them cost a write about as much as the write itself).

use std::cell::RefCell;
use std::rc::Rc;

use pageai_core::executor::FrozenContext;

use crate::identity::Acting;

/// Contexts kept at most: a document has a few live runs and tool-route reads at a time.
pub const MAX_ENTRIES: usize = 32;

/// Estimated bytes kept at most. A full-page context of a 10,000-block page is about 1.5 MB by this estimate
/// (so five of them fit), and the object's isolate has 128 MB for everything.
pub const MAX_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug)]
struct Entry {
    context: Rc<FrozenContext>,
    /// Whom it was made for (its row's `user_id`, `role`): asked of every call that names it, and read
    /// from its row only past the row's ids and hashes.
    acting: Acting,
    expires_at_ms: i64,
    bytes: usize,
    used: u64,
}

#[derive(Debug, Default)]
struct Entries {
    entries: Vec<Entry>,
    bytes: usize,
    clock: u64,
}

/// The object's cache of frozen contexts; clones share it.
#[derive(Debug, Clone, Default)]
pub struct ContextCache(Rc<RefCell<Entries>>);

/// A rough size of a context in memory: its strings, plus a pointer-sized overhead per string and per map
/// entry.
fn bytes_of(context: &FrozenContext) -> usize {
    const OVERHEAD: usize = 32;
    let ids: usize = context.allowed_target_block_ids.iter().map(|id| id.len() + OVERHEAD).sum();
    let hashes: usize = context.block_hashes.iter().map(|(id, hash)| id.len() + hash.len() + 3 * OVERHEAD).sum();
    context.context_id.len() + context.document_id.len() + context.scope.len() + ids + hashes + 4 * OVERHEAD
}

impl ContextCache {
    /// The context `context_id` if it is kept and unexpired at `now_ms`.
    pub fn get(&self, context_id: &str, now_ms: i64) -> Option<Rc<FrozenContext>> {
        let mut inner = self.0.borrow_mut();
        inner.clock += 1;
        let clock = inner.clock;
        let entry =
            inner.entries.iter_mut().find(|e| e.context.context_id == context_id && e.expires_at_ms > now_ms)?;
        entry.used = clock;
        Some(Rc::clone(&entry.context))
    }

    /// Whom the context `context_id` was made for, if it is kept and unexpired at `now_ms`.
    pub fn acting(&self, context_id: &str, now_ms: i64) -> Option<Acting> {
        let inner = self.0.borrow();
        let entry = inner.entries.iter().find(|e| e.context.context_id == context_id && e.expires_at_ms > now_ms)?;
        Some(entry.acting.clone())
    }

    /// The context `context_id` if it is kept, expired or not: what a review session whose scope names it
    /// reads (the row outlives its expiry while a session names it, and an entry is the row as committed).
    pub fn any(&self, context_id: &str) -> Option<Rc<FrozenContext>> {
        let inner = self.0.borrow();
        inner.entries.iter().find(|e| e.context.context_id == context_id).map(|e| Rc::clone(&e.context))
    }

    /// Keeps `context` (as stored, made for `acting`) until `expires_at_ms`, replacing an entry of the same
    /// id, evicting the least recently used past the bounds; drops entries expired at `now_ms`.
    pub fn committed(&self, context: Rc<FrozenContext>, acting: Acting, expires_at_ms: i64, now_ms: i64) {
        let mut inner = self.0.borrow_mut();
        inner.entries.retain(|e| e.expires_at_ms > now_ms && e.context.context_id != context.context_id);
        let bytes = bytes_of(&context);
        if bytes <= MAX_BYTES && expires_at_ms > now_ms {
            inner.clock += 1;
            let used = inner.clock;
            inner.entries.push(Entry { context, acting, expires_at_ms, bytes, used });
        }
        inner.bytes = inner.entries.iter().map(|e| e.bytes).sum();
        while inner.entries.len() > MAX_ENTRIES || inner.bytes > MAX_BYTES {
            let Some((oldest, _)) = inner.entries.iter().enumerate().min_by_key(|(_, e)| e.used) else { break };
            let evicted = inner.entries.swap_remove(oldest);
            inner.bytes -= evicted.bytes;
        }
    }

    /// How many contexts and estimated bytes are kept (for tests and logs).
    pub fn size(&self) -> (usize, usize) {
        let inner = self.0.borrow();
        (inner.entries.len(), inner.bytes)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "a failed expectation is the test's report")]

    use super::*;

    fn context(id: &str, blocks: usize) -> Rc<FrozenContext> {
        Rc::new(FrozenContext {
            context_id: id.into(),
            document_id: "doc".into(),
            revision: 1,
            scope: "full".into(),
            allowed_target_block_ids: (0..blocks).map(|i| format!("p_{i}")).collect(),
            block_hashes: (0..blocks).map(|i| (format!("p_{i}"), "0123abcd".to_string())).collect(),
        })
    }

    #[test]
    fn whom_a_kept_context_acts_for_answers_until_it_expires() {
        let cache = ContextCache::default();
        let editor = Acting { user: "user_e".into(), role: pageai_core::policy::Role::Editor };
        cache.committed(context("ctx_a", 3), editor.clone(), 100, 0);
        assert_eq!(cache.acting("ctx_a", 99), Some(editor));
        assert_eq!(cache.acting("ctx_a", 100), None, "expired at its expiry: the row answers (and ignores it)");
        assert_eq!(cache.acting("ctx_b", 0), None);
    }

    #[test]
    fn a_kept_context_answers_until_it_expires() {
        let cache = ContextCache::default();
        cache.committed(context("ctx_a", 3), Acting::single_user(), 100, 0);
        assert_eq!(cache.get("ctx_a", 99).unwrap().allowed_target_block_ids.len(), 3);
        assert!(cache.get("ctx_a", 100).is_none(), "expired at its expiry");
        assert!(cache.get("ctx_b", 0).is_none());
        cache.committed(context("ctx_b", 1), Acting::single_user(), 300, 200);
        assert_eq!(cache.size().0, 1, "the expired one is dropped when contexts are committed");
    }

    #[test]
    fn the_cache_is_bounded_by_count_least_recently_used_first_out() {
        let cache = ContextCache::default();
        for i in 0..MAX_ENTRIES {
            cache.committed(context(&format!("ctx_{i}"), 1), Acting::single_user(), i64::MAX, 0);
        }
        assert!(cache.get("ctx_0", 0).is_some(), "ctx_0 is now the most recently used");
        cache.committed(context("ctx_new", 1), Acting::single_user(), i64::MAX, 0);
        assert_eq!(cache.size().0, MAX_ENTRIES);
        assert!(cache.get("ctx_0", 0).is_some() && cache.get("ctx_new", 0).is_some());
        assert!(cache.get("ctx_1", 0).is_none(), "the least recently used went");
    }

    #[test]
    fn the_cache_is_bounded_by_bytes() {
        let cache = ContextCache::default();
        let big = bytes_of(&context("ctx_0", 10_000));
        assert!(big < MAX_BYTES, "a 10,000-block context fits ({big} bytes)");
        let fit = MAX_BYTES / big;
        for i in 0..=fit {
            cache.committed(context(&format!("ctx_{i}"), 10_000), Acting::single_user(), i64::MAX, 0);
        }
        let (count, bytes) = cache.size();
        assert!(bytes <= MAX_BYTES && count == fit, "{count} contexts, {bytes} bytes");
        assert!(cache.get("ctx_0", 0).is_none() && cache.get(&format!("ctx_{fit}"), 0).is_some());
        cache.committed(context("ctx_huge", 200_000), Acting::single_user(), i64::MAX, 0);
        assert!(cache.get("ctx_huge", 0).is_none(), "a context over the whole budget is never kept");
        assert!(cache.size().1 <= MAX_BYTES);
    }

    #[test]
    fn a_kept_context_is_shared_not_copied() {
        let cache = ContextCache::default();
        let kept = context("ctx_a", 10_000);
        cache.committed(Rc::clone(&kept), Acting::single_user(), 100, 0);
        let (first, second) = (cache.get("ctx_a", 0).unwrap(), cache.get("ctx_a", 1).unwrap());
        assert!(Rc::ptr_eq(&first, &kept) && Rc::ptr_eq(&second, &kept));
    }

    #[test]
    fn committing_a_context_again_replaces_it() {
        let cache = ContextCache::default();
        cache.committed(context("ctx_a", 3), Acting::single_user(), 100, 0);
        cache.committed(context("ctx_a", 1), Acting::single_user(), 100, 0);
        assert_eq!(cache.size().0, 1);
        assert_eq!(cache.get("ctx_a", 0).unwrap().allowed_target_block_ids.len(), 1);
    }
}
