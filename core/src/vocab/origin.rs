//! Who is asking: the one fact that decides whether a write is held to the review mode.

use crate::json::Read;
use serde::{Deserialize, Serialize};

/// Who is asking. AI callers are held to the review mode; people are not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A Hermes run, through MCP or the tool route.
    Hermes,
    /// The deterministic command router's shortcut.
    Shortcut,
    /// A person acting directly (the editor, an import).
    User,
    /// A person accepting a review session.
    ReviewAccept,
}

impl Origin {
    /// Whether the caller is an AI, held to the profile's review mode.
    pub fn is_ai(self) -> bool {
        match self {
            Origin::Hermes | Origin::Shortcut => true,
            Origin::User | Origin::ReviewAccept => false,
        }
    }

    /// The actor an AI call records in the audit when no person is named: `hermes`, `shortcut`, `user`.
    pub fn actor(self) -> &'static str {
        match self {
            Origin::Hermes => "hermes",
            Origin::Shortcut => "shortcut",
            Origin::User | Origin::ReviewAccept => "user",
        }
    }
}
