//! `mnote.hermes_tool.v1`: one entry of the Worker's `GET /api/hermes/client/tools`, a tool the workspace's
//! profile enables, as `{name, scope, schemaVersion}` (the dotted name, its capability scope, and this id).
//! The Worker builds the entries from the manifest ([`super::ManifestV1`]); the id lives here with every
//! other schema id.

/// Schema id of a Hermes client tool entry.
pub const HERMES_TOOL_V1: &str = "mnote.hermes_tool.v1";
