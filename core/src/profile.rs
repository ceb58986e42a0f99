//! The profile: which tools are switched off, and how much review writes need.
//!
//! The types live in core's vocabulary ([`crate::vocab`]), beside the other closed lists the wire shapes
//! name; this path is kept for the adapters that read them from here.

pub use crate::vocab::{Profile, ReviewMode, ToolsPolicy};
