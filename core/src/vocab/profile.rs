//! The profile: which tools are switched off, and how much review writes need ([`ReviewMode`]).
//!
//! One profile is the single source that the tool listing, the MCP `tools/list`, the router and the executor
//! guard all read, so they always agree. Which writes the mode holds is the policy's one review rule
//! (`crate::policy::held`); the mode itself is only vocabulary.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// How much a person must see before an AI write lands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReviewMode {
    /// Low- and medium-risk writes apply directly; high-risk writes still need review.
    Yolo,
    /// Every AI write waits for the user.
    #[default]
    Review,
    /// Every AI write waits for the user, and nothing may opt out.
    Required,
}

impl ReviewMode {
    /// Every review mode, from the least to the most review.
    pub const ALL: [ReviewMode; 3] = [ReviewMode::Yolo, ReviewMode::Review, ReviewMode::Required];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewMode::Yolo => "yolo",
            ReviewMode::Review => "review",
            ReviewMode::Required => "required",
        }
    }

    /// The mode one command runs under when it asks for `requested`: the request replaces this mode, except
    /// that `required` cannot be relaxed (nothing may opt out of it).
    pub fn overridden_by(self, requested: Option<ReviewMode>) -> ReviewMode {
        match (self, requested) {
            (ReviewMode::Required, _) => ReviewMode::Required,
            (ReviewMode::Yolo | ReviewMode::Review, Some(mode)) => mode,
            (mode, None) => mode,
        }
    }
}

/// Tool switches.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolsPolicy {
    /// Tool names (`mnote.block.fetch`) that are switched off.
    #[serde(default)]
    pub disabled: Vec<String>,
}

/// A page-AI profile.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Profile {
    /// Tool switches.
    #[serde(default)]
    pub tools: ToolsPolicy,
    /// Review policy for AI writes.
    #[serde(default)]
    pub review_mode: ReviewMode,
}

impl Profile {
    /// Whether the profile switches `tool_name` off.
    pub fn disables(&self, tool_name: &str) -> bool {
        self.tools.disabled.iter().any(|t| t == tool_name)
    }
}

#[cfg(test)]
mod tests {
    use super::ReviewMode;

    #[test]
    fn a_command_mode_overrides_the_profile_but_never_relaxes_required() {
        assert_eq!(ReviewMode::Review.overridden_by(Some(ReviewMode::Yolo)), ReviewMode::Yolo);
        assert_eq!(ReviewMode::Yolo.overridden_by(Some(ReviewMode::Required)), ReviewMode::Required);
        assert_eq!(ReviewMode::Yolo.overridden_by(None), ReviewMode::Yolo);
        assert_eq!(ReviewMode::Required.overridden_by(Some(ReviewMode::Yolo)), ReviewMode::Required);
        assert_eq!(ReviewMode::Required.overridden_by(Some(ReviewMode::Review)), ReviewMode::Required);
    }

    #[test]
    fn every_mode_has_its_wire_name() {
        for mode in ReviewMode::ALL {
            assert_eq!(serde_json::to_value(mode).unwrap(), mode.as_str());
        }
    }
}
