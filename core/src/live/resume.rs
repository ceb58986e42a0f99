//! What a client that (re)connects needs to catch up.
//!
//! A client resumes with the `seq` of the last message it took (`?after=`), or with the revision of the
//! page it holds (`?revision=`), or both (`after` is tried first). The stored messages are a window of the
//! newest [`super::KEEP_MESSAGES`]: since revisions never go down along `seq`, every message of a revision
//! above the window's first is still kept. What is asked for and no longer kept, or what lies in another
//! store's future (a `seq` or revision past this document's), is a `snapshot`.

/// The stored messages of a document, as far as resuming needs to know them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogWindow {
    /// The first kept message's `seq` and revision; `None` while nothing is stored.
    pub first: Option<(u64, u64)>,
    /// The last message's `seq` (0 before the first).
    pub last_seq: u64,
    /// The page's revision now.
    pub revision: u64,
}

/// What a connecting socket is sent before `hello`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUp {
    /// Nothing: the client is current, or asked for nothing.
    Nothing,
    /// Every stored message with a larger `seq`.
    AfterSeq(u64),
    /// Every stored message of a larger revision.
    AfterRevision(u64),
    /// The whole page.
    Snapshot,
}

/// What a client that took messages up to `after`, or holds the page at `revision`, needs.
pub fn catch_up(window: &LogWindow, after: Option<u64>, revision: Option<u64>) -> CatchUp {
    if let Some(after) = after {
        let kept = match window.first {
            Some((first_seq, _)) => after.saturating_add(1) >= first_seq,
            None => after == 0,
        };
        match (after == window.last_seq, after < window.last_seq && kept) {
            (true, _) => return CatchUp::Nothing,
            (false, true) => return CatchUp::AfterSeq(after),
            (false, false) => {}
        }
    }
    match revision {
        None if after.is_none() => CatchUp::Nothing,
        None => CatchUp::Snapshot,
        Some(revision) if revision == window.revision => CatchUp::Nothing,
        Some(revision) if revision > window.revision => CatchUp::Snapshot,
        Some(revision) => match window.first {
            Some((_, first_revision)) if revision >= first_revision => CatchUp::AfterRevision(revision),
            _ => CatchUp::Snapshot,
        },
    }
}
