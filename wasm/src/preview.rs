//! Dry-runs through core's executor, shared by `PageSession.preview` and `validateOps`.
//!
//! Core takes no hidden inputs, so this is where the package plays the caller: it stamps the audit with the
//! JS clock and minted ids unless the options name them, and it mints ids for inserted blocks. Nothing is
//! ever written: `executor::preview_write_json` refuses a call that would apply.

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::String;
use pageai_core::error::Error;
use pageai_core::executor::idempotency::MemoryIdempotencyStore;
use pageai_core::executor::{self, Call, ContextLookup, Env, Origin, Outcome, WriteArgs, WriteCall};
use pageai_core::manifest::Tool;
use pageai_core::page::Page;
use wasm_bindgen::JsValue;

use crate::ids;
use crate::interop::{self, PreviewOptions, ToolCall};

/// Dry-runs `call` against `page`, binding `contextId`s through `contexts`; answers `mnote.tool_result.v1`
/// exactly as the executor wrote it.
pub(crate) fn run(
    page: &Page,
    call: &ToolCall,
    options: PreviewOptions,
    contexts: &dyn ContextLookup,
) -> Result<JsValue, Error> {
    if let Some(tool) = Tool::from_name(&call.tool_name).filter(|t| !t.writes()) {
        let reason =
            format!("{} only reads: preview dry-runs write tools; freeze contexts with context()", tool.spec().name);
        return Err(Error::invalid("/toolName", reason));
    }
    let json = stamped(options, contexts, |stamp, env| {
        let call = Call {
            tool_name: &call.tool_name,
            args: &call.args,
            origin: stamp.origin,
            actor: &stamp.actor,
            at: &stamp.at,
            tool_call_id: &stamp.tool_call_id,
            new_context_id: "",
        };
        // Write tools only (reads were refused above): the package links no read path.
        executor::preview_write_json(page, &call, env)
    })?;
    interop::parse(&json)
}

/// Dry-runs a write whose arguments are already typed, with the same stamping as [`run`].
pub(crate) fn run_write(
    page: &Page,
    args: WriteArgs,
    options: PreviewOptions,
    contexts: &dyn ContextLookup,
) -> Result<JsValue, Error> {
    interop::parse(&run_write_json(page, args, options, contexts)?)
}

/// [`run_write`], answering the result's JSON text as the executor wrote it.
pub(crate) fn run_write_json(
    page: &Page,
    args: WriteArgs,
    options: PreviewOptions,
    contexts: &dyn ContextLookup,
) -> Result<String, Error> {
    stamped(options, contexts, |stamp, env| {
        let call = WriteCall {
            args,
            origin: stamp.origin,
            actor: &stamp.actor,
            at: &stamp.at,
            tool_call_id: &stamp.tool_call_id,
        };
        executor::preview_write(page, call, env)
    })
}

/// Who and when a preview is stamped with: the options', or `shortcut`, the JS clock and a minted id.
struct Stamp {
    origin: Origin,
    actor: String,
    at: String,
    tool_call_id: String,
}

/// Runs `preview` with the stamp and the executor's environment the options describe; answers the JSON.
fn stamped(
    options: PreviewOptions,
    contexts: &dyn ContextLookup,
    preview: impl FnOnce(&Stamp, &mut Env<'_>) -> Result<Outcome, Error>,
) -> Result<String, Error> {
    let PreviewOptions { origin, actor, at, tool_call_id, profile, grants, block_ids, role } = options;
    let stamp = Stamp {
        origin: origin.unwrap_or(Origin::Shortcut),
        actor: actor.unwrap_or_else(|| "shortcut".to_owned()),
        at: at.unwrap_or_else(now),
        tool_call_id: tool_call_id.unwrap_or_else(ids::mint_tool_call_id),
    };
    let mut given = block_ids.into_iter();
    let mut mint = move || given.next().unwrap_or_else(ids::mint_block_id);
    // Dry-runs are never recorded, so an empty store answers every lookup.
    let mut store = MemoryIdempotencyStore::new();
    let mut env = Env {
        profile: &profile,
        grants: grants.as_deref(),
        // The Worker's executor runs for the role of the person a call acts for; a session says whose.
        role: role.unwrap_or(pageai_core::policy::Role::Owner),
        contexts,
        idempotency: &mut store,
        mint: &mut mint,
        suggestions: &[],
    };
    Ok(preview(&stamp, &mut env)?.json)
}

/// The caller's clock, RFC 3339 in UTC.
fn now() -> String {
    js_sys::Date::new_0().to_iso_string().into()
}
