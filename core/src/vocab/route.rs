//! The router's two vocabularies: what it understood a prompt to be ([`Intent`]) and, for a prompt it hands
//! to Hermes, why ([`ReasonCode`]). Both are enums here and snake_case strings on the wire.
use crate::json::Read;
use core::fmt;
use serde::{Deserialize, Serialize};

/// What the router understood a prompt to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Replace text (or set a block's text).
    DirectReplace,
    /// Delete text or a block.
    DirectDelete,
    /// Insert a block.
    DirectInsert,
    /// A structural edit that keeps the blocks' text: change their type, check or uncheck a todo, move
    /// blocks.
    DirectTypeChange,
    /// A question about the page; nothing to write.
    ReadOnlyQuestion,
    /// An open request that needs a model.
    ComplexRewrite,
    /// Something the page tools cannot do.
    Unsupported,
}

impl Intent {
    /// Every intent.
    pub const ALL: [Intent; 7] = [
        Intent::DirectReplace,
        Intent::DirectDelete,
        Intent::DirectInsert,
        Intent::DirectTypeChange,
        Intent::ReadOnlyQuestion,
        Intent::ComplexRewrite,
        Intent::Unsupported,
    ];

    /// The wire name, e.g. `direct_replace`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Intent::DirectReplace => "direct_replace",
            Intent::DirectDelete => "direct_delete",
            Intent::DirectInsert => "direct_insert",
            Intent::DirectTypeChange => "direct_type_change",
            Intent::ReadOnlyQuestion => "read_only_question",
            Intent::ComplexRewrite => "complex_rewrite",
            Intent::Unsupported => "unsupported",
        }
    }
}

impl fmt::Display for Intent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a prompt goes to Hermes instead of running directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Read)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// The quoted text occurs nowhere the command may write.
    MatchNotFound,
    /// The text occurs more than once.
    MatchAmbiguous,
    /// The block the command names does not exist.
    TargetNotFound,
    /// The target is on the page but outside the user's selection.
    OutOfSelection,
    /// The target is locked.
    NotEditable,
    /// The write tool is disabled, or its scope is not granted.
    ToolDisabled,
    /// The document is read-only.
    ReadOnlyDocument,
    /// A question about the page.
    Question,
    /// An edit that needs a model.
    Complex,
    /// Something the page tools cannot do.
    Unsupported,
}

impl ReasonCode {
    /// Every reason code.
    pub const ALL: [ReasonCode; 10] = [
        ReasonCode::MatchNotFound,
        ReasonCode::MatchAmbiguous,
        ReasonCode::TargetNotFound,
        ReasonCode::OutOfSelection,
        ReasonCode::NotEditable,
        ReasonCode::ToolDisabled,
        ReasonCode::ReadOnlyDocument,
        ReasonCode::Question,
        ReasonCode::Complex,
        ReasonCode::Unsupported,
    ];

    /// The wire name, e.g. `match_not_found`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ReasonCode::MatchNotFound => "match_not_found",
            ReasonCode::MatchAmbiguous => "match_ambiguous",
            ReasonCode::TargetNotFound => "target_not_found",
            ReasonCode::OutOfSelection => "out_of_selection",
            ReasonCode::NotEditable => "not_editable",
            ReasonCode::ToolDisabled => "tool_disabled",
            ReasonCode::ReadOnlyDocument => "read_only_document",
            ReasonCode::Question => "question",
            ReasonCode::Complex => "complex",
            ReasonCode::Unsupported => "unsupported",
        }
    }
}

impl fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_serde() {
        for intent in Intent::ALL {
            assert_eq!(serde_json::to_value(intent).unwrap(), intent.as_str());
        }
        for code in ReasonCode::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }
}
