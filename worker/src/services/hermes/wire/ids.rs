//! Session and run ids: core spells them ([`pageai_core::ids::hermes`]: the one format of a session id,
//! read back to its document and its owner, and the checks on ids from paths and bodies); the proxy's wire
//! module names them here, so its routes read them beside the rest of the Hermes wire.

pub use pageai_core::ids::hermes::{
    check_run_id, check_session_id, owned_by, owned_suffix, owner_tag, session_document, session_id_of, session_prefix,
};
