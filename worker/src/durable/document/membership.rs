//! The membership epoch of the page's workspace, as far as this object has seen it.
//!
//! A role is the credential's (a token's `mnote.workspaces`, or the cookie made from it), so it cannot be
//! taken back while the credential holds. An identity provider that lowers or removes a member raises the
//! workspace's epoch in the tokens it issues from then on (`mnote.epochs: {"ws_team": 8}`); the first
//! request of any member under such a token tells this object, which keeps the highest epoch seen (in
//! SQLite, so it survives hibernation). A live socket opened under an older epoch is closed at its next
//! message with content, and may not open again ([`pageai_core::live::check_membership`]). A workspace
//! whose tokens name no epoch stays at 0, and nothing changes for it.

use pageai_core::Error;

use super::DocumentObject;
use crate::services::sqlite::{Sql, SqlValue};

const SCHEMA: &str =
    "CREATE TABLE IF NOT EXISTS membership_epoch (id INTEGER PRIMARY KEY CHECK (id = 1), epoch INTEGER NOT NULL)";

impl DocumentObject {
    /// The highest epoch seen, read from storage once per wake (0 when none was ever seen, or on a read
    /// failure, which is logged: the check then falls back to the credential's own end).
    pub(super) fn membership_epoch(&self) -> u64 {
        if let Some(epoch) = self.membership.get() {
            return epoch;
        }
        let read = self
            .sql
            .run(SCHEMA, Vec::new())
            .and_then(|()| self.sql.rows("SELECT epoch FROM membership_epoch WHERE id = 1", Vec::new()));
        let epoch = match read {
            Ok(rows) => match rows.first().and_then(|r| r.first()) {
                Some(SqlValue::Integer(n)) => u64::try_from(*n).unwrap_or(0),
                _ => 0,
            },
            Err(e) => {
                worker::console_error!("membership epoch: read failed: {e:?}");
                return 0;
            }
        };
        self.membership.set(Some(epoch));
        epoch
    }

    /// Keeps `epoch` when it is newer than the one held.
    pub(super) fn saw_epoch(&self, epoch: u64) -> Result<(), Error> {
        if epoch <= self.membership_epoch() {
            return Ok(());
        }
        let value = SqlValue::Integer(i64::try_from(epoch).unwrap_or(i64::MAX));
        self.sql
            .run("INSERT INTO membership_epoch (id, epoch) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET epoch = excluded.epoch", vec![value])
            .map_err(|e| crate::services::tables::storage("store the membership epoch", e))?;
        self.membership.set(Some(epoch));
        Ok(())
    }
}
