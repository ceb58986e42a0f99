//! `mnote.hermes_tool.v1`: one entry of the Worker's `GET /api/hermes/client/tools`, a tool the workspace's
//! profile enables, as `{name, scope, schemaVersion}` (the dotted name, its capability scope, and this id).
//! The entries are read off the manifest ([`super::ManifestV1`]) by [`hermes_tools`], here with every other
//! wire shape, so the Worker only serves them.

use crate::json::Read;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::ManifestV1;

/// Schema id of a Hermes client tool entry.
pub const HERMES_TOOL_V1: &str = "mnote.hermes_tool.v1";

/// One tool a Hermes client may call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Read)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HermesToolV1 {
    /// The dotted name (`mnote.doc.fetch`).
    pub name: String,
    /// Its capability scope (`doc.read`).
    pub scope: String,
    /// Always [`HERMES_TOOL_V1`].
    pub schema_version: String,
}

/// The tools `manifest` enables, in its order: what a Hermes client is offered.
pub fn hermes_tools(manifest: &ManifestV1) -> Vec<HermesToolV1> {
    manifest
        .tools
        .iter()
        .filter(|t| t.availability.enabled)
        .map(|t| HermesToolV1 {
            name: t.name.clone(),
            scope: t.capability_scope.clone(),
            schema_version: HERMES_TOOL_V1.into(),
        })
        .collect()
}
