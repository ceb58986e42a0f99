//! `PageSession`: one page loaded into WASM once, with the frozen contexts built from it.
//!
//! A keystroke crosses the boundary with its prompt (and a few small options) only, never the page:
//! `route` parses and self-checks the prompt against the page held here, and `preview` dry-runs the call
//! it recommends. `editBlock` turns a person's new text of a block into the edit to send and previews it.
//! `applyLocal` follows a write the server applied (core decides whether the page can:
//! [`pageai_core::live::follow_write`]), so the session stays at the server's revision without loading the
//! page again; `applyRemote` (in `remote`) follows the document's live channel, whoever
//! wrote.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use pageai_core::context::ContextRequest;
use pageai_core::edits::BlockEdits;
use pageai_core::error::Error;
use pageai_core::executor::{FrozenContext, Origin, WriteArgs};
use pageai_core::json::to_json;
use pageai_core::live;
use pageai_core::manifest::args::ApplyBlockOpsArgs;
use pageai_core::page::Page;
use pageai_core::policy::{Act, Role};
use pageai_core::route::{RouteInput, route};
use pageai_core::wire::{self, ContextHeldV1, ToolResultFollowV1};
use wasm_bindgen::prelude::*;

use crate::contexts::{self, Contexts};
use crate::interop::{self, EditOptions, PreviewOptions, RouteOptions, SessionOptions, ToolCall};
use crate::{error, ids, preview};

mod remote;

/// A page held in WASM memory. Call `free()` when done (or use `using` where supported).
#[wasm_bindgen]
pub struct PageSession {
    page: Page,
    contexts: Contexts,
    freed: bool,
    /// Whom previews run for: the caller's role in the page's workspace (`SessionOptions.role`).
    role: Role,
}

#[wasm_bindgen]
impl PageSession {
    /// Loads and validates `page` (a `Page` object, its JSON text, or that text's UTF-8 bytes as fetched,
    /// a `Uint8Array`: the fastest, nothing is re-encoded on the way in). `options.role` is the caller's
    /// role in the page's workspace (`owner` when omitted): `preview` and `editBlock` judge writes for it, as
    /// the server's dry-run does for that person.
    ///
    /// @throws {PageAiError} `mnote_invalid_page`, `mnote_invalid_arguments`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "PageInput | string | Uint8Array")] page: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "SessionOptions")] options: Option<JsValue>,
    ) -> Result<PageSession, JsValue> {
        let page = error::throw(interop::page(&page))?;
        let role = error::throw(session_role(options.as_ref()))?;
        Ok(PageSession { page, contexts: Contexts::default(), freed: false, role })
    }

    /// Releases the page and every remembered context. Any later call throws a coded error
    /// (`mnote_invalid_arguments` at `/this`). `[Symbol.dispose]` is this method too.
    //
    // Named `free` on purpose: wasm-bindgen emits its own `free()` (which deallocates and zeroes the
    // pointer, so a later call would throw an uncoded "null pointer passed to rust") first in the class,
    // and this later definition replaces it. The few bytes of the emptied struct are reclaimed when the
    // object is garbage-collected, through wasm-bindgen's FinalizationRegistry. A test pins this.
    #[wasm_bindgen(js_name = free)]
    pub fn release(&mut self) {
        self.freed = true;
        self.page.blocks = Vec::new();
        self.contexts = Contexts::default();
    }

    /// The role this session judges writes for (`SessionOptions.role`, `owner` when omitted).
    #[wasm_bindgen(getter, unchecked_return_type = "Role")]
    pub fn role(&self) -> String {
        self.role.as_str().into()
    }

    /// Whether the session's role allows `act` (core's role table, the one the Worker checks): a page
    /// shows a control only to a person the server would let use it, e.g. accept for an editor, the
    /// review mode for an owner.
    ///
    /// @throws {PageAiError} `mnote_invalid_arguments` for a name that is not an act.
    pub fn may(&self, #[wasm_bindgen(unchecked_param_type = "RoleAct")] act: &str) -> Result<bool, JsValue> {
        let act = Act::parse(act).ok_or_else(|| Error::invalid("/act", "one of vocabulary().acts"));
        error::throw(act.map(|act| self.role.permits(act)))
    }

    /// The loaded page's revision: the server's, as long as every server write is followed with
    /// `applyLocal`.
    #[wasm_bindgen(getter)]
    pub fn revision(&self) -> Result<f64, JsValue> {
        // Revisions grow by one per write; they stay far below 2^53, where f64 is exact.
        error::throw(self.live().map(|s| s.page.revision as f64))
    }

    /// The loaded page's document id.
    #[wasm_bindgen(getter, js_name = documentId)]
    pub fn document_id(&self) -> Result<String, JsValue> {
        error::throw(self.live().map(|s| s.page.document_id.clone()))
    }

    /// The loaded page, as a plain object.
    #[wasm_bindgen(unchecked_return_type = "Page")]
    pub fn page(&self) -> Result<JsValue, JsValue> {
        error::throw(self.live().and_then(|s| interop::to_js(&s.page)))
    }

    /// Freezes the loaded page into a `mnote.page_ai_context.v1` context (the same answer as
    /// `buildContext(page, request, contextId)`) and remembers it, so that `route` and `preview` can bind
    /// to its `contextId`. A fresh `ctx_…` id is minted when `contextId` is omitted.
    ///
    /// @throws {PageAiError} `mnote_invalid_arguments`, `mnote_block_not_found`, `mnote_context_stale`.
    #[wasm_bindgen(unchecked_return_type = "PageAiContextV1")]
    pub fn context(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ContextRequest | string")] request: JsValue,
        #[wasm_bindgen(js_name = contextId, unchecked_optional_param_type = "string")] context_id: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        error::throw(self.freeze(&request, context_id.as_ref()))
    }

    /// Remembers a context frozen elsewhere (the server's, from `mnote.doc.fetch`: `mnote.page_ai_context.v2`,
    /// or a v1 one from `buildContext`), so that `route` and
    /// `preview` can bind to its `contextId`. It reads what a bound write is checked against (the ids, the
    /// revision, the scope, the allowed targets and the `json` view's `revisionRef`s); the rest of the
    /// context is not read.
    ///
    /// @throws {PageAiError} `mnote_invalid_arguments` (not a context, or of another document),
    /// `mnote_unsupported_schema`.
    #[wasm_bindgen(js_name = rememberContext)]
    pub fn remember_context(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "PageAiContextV1 | PageAiContextV2 | string")] context: JsValue,
    ) -> Result<(), JsValue> {
        error::throw(self.remember(&context))
    }

    /// Routes a prompt (`mnote.page_ai_command_route.v1`): a direct command gets a recommended
    /// `mnote.doc.apply_block_ops` call that the router has already dry-run on this page; anything else
    /// goes to Hermes with a reason and a hint. Only the prompt and the options cross the boundary.
    ///
    /// The recommendation binds to `options.contextId` (a context this session remembers), or else to the
    /// session's own full-page context. Its `idempotencyKey` is `options.idempotencyKey`, or a fresh one.
    ///
    /// @throws {PageAiError} `mnote_invalid_arguments` (options), `mnote_context_not_found`,
    /// `mnote_context_stale` (the context was frozen at an older revision).
    #[wasm_bindgen(unchecked_return_type = "RouteV1")]
    pub fn route(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] prompt: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "RouteOptions")] options: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        error::throw(self.route_prompt(&prompt, options.as_ref()))
    }

    /// Dry-runs a write tool call against the loaded page, as the server's executor would, and answers its
    /// `mnote.tool_result.v1` (`dryRun: true`, with the diff and the risk). `contextId`s bind to the
    /// contexts this session remembers. Nothing changes.
    ///
    /// @throws {PageAiError} every executor error: `mnote_invalid_arguments`, `mnote_revision_conflict`,
    /// `mnote_block_not_found`, `mnote_block_target_out_of_scope`, `mnote_block_not_editable`,
    /// `mnote_match_not_found`, `mnote_match_ambiguous`, `mnote_tool_disabled`, `mnote_scope_denied`,
    /// `mnote_context_not_found`, `mnote_unknown_tool`.
    #[wasm_bindgen(unchecked_return_type = "ToolResultV1")]
    pub fn preview(
        &self,
        #[wasm_bindgen(js_name = toolCall, unchecked_param_type = "ToolCall | string")] tool_call: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PreviewOptions")] options: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        error::throw(self.dry_run(&tool_call, options.as_ref()))
    }

    /// A person's new text for one block, as the edit to send: `{body, preview}`. `body` is the JSON body of
    /// `PATCH /api/documents/{id}/blocks` (an `update` with the whole new text, based on this session's
    /// revision and pinned to the block's `revisionRef`, so the server refuses it only when someone changed
    /// that block since); `preview` is its dry-run here, exactly as the server would answer it as a person's
    /// write. Nothing changes: follow the server's answer with `applyLocal`.
    ///
    /// @throws {PageAiError} `mnote_block_not_found`, `mnote_block_not_editable`, `mnote_invalid_arguments`
    /// (not strings, or the block already has this text), and the executor's errors of `preview`.
    #[wasm_bindgen(js_name = editBlock, unchecked_return_type = "BlockEdit")]
    pub fn edit_block(
        &self,
        #[wasm_bindgen(js_name = blockId, unchecked_param_type = "string")] block_id: JsValue,
        #[wasm_bindgen(js_name = newText, unchecked_param_type = "string")] new_text: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "EditOptions")] options: Option<JsValue>,
    ) -> Result<JsValue, JsValue> {
        error::throw(self.edit(&block_id, &new_text, options.as_ref()))
    }

    /// Follows a write the server applied: replays the result's `operations` on the loaded page, which
    /// must be at the result's `baseRevision`, and answers the new revision (`newRevision`). On any error
    /// the page is left untouched.
    ///
    /// It reads what following needs (the ids, the revisions, `operations` and `changedBlocks`); the diffs,
    /// warnings and audit are not read.
    ///
    /// @throws {PageAiError} `mnote_revision_conflict` (the session is not at `baseRevision`),
    /// `mnote_invalid_arguments` (a dry-run, another document, a `newRevision` that is not
    /// `baseRevision + 1`, or changes that differ from what the local page gives: load the page again),
    /// `mnote_unsupported_schema`, and the operation errors of `preview`.
    #[wasm_bindgen(js_name = applyLocal)]
    pub fn apply_local(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ToolResultV1 | string")] result: JsValue,
    ) -> Result<f64, JsValue> {
        error::throw(self.follow(&result)).map(|revision| revision as f64)
    }
}

impl PageSession {
    /// The session, unless `free()` released it.
    fn live(&self) -> Result<&Self, Error> {
        if self.freed {
            return Err(Error::invalid(
                "/this",
                "this PageSession was freed; load the page again with new PageSession(page)",
            ));
        }
        Ok(self)
    }

    fn freeze(&mut self, request: &JsValue, context_id: Option<&JsValue>) -> Result<JsValue, Error> {
        self.live()?;
        let request: ContextRequest = interop::from_js(request, "")?;
        let context_id = interop::optional_string(context_id, "/contextId")?.unwrap_or_else(ids::mint_context_id);
        let (context, frozen) = FrozenContext::freeze(&self.page, &request, &context_id)?;
        self.contexts.remember(frozen);
        interop::to_js(&context)
    }

    fn remember(&mut self, context: &JsValue) -> Result<(), Error> {
        self.live()?;
        let context: ContextHeldV1 = interop::from_js(context, "")?;
        // The server's fetches answer v2 (v1 plus the page's suggestions); both bind writes alike.
        if context.schema != wire::PAGE_AI_CONTEXT_V2 {
            wire::check_schema(&context.schema, wire::PAGE_AI_CONTEXT_V1)?;
        }
        if context.document_id != self.page.document_id {
            let reason = format!("this session holds document {:?}", self.page.document_id);
            return Err(Error::invalid("/documentId", reason));
        }
        self.contexts.remember(FrozenContext::held(&context));
        Ok(())
    }

    fn route_prompt(&mut self, prompt: &JsValue, options: Option<&JsValue>) -> Result<JsValue, Error> {
        self.live()?;
        let prompt = interop::string(prompt, "/prompt")?;
        let options: RouteOptions = interop::optional(options, "/options")?;
        let key = options.idempotency_key.unwrap_or_else(ids::mint_idempotency_key);
        let held = match &options.context_id {
            Some(id) => self.contexts.remembered(id, &self.page)?,
            None => self.contexts.routing(&self.page)?,
        };
        let input = RouteInput {
            page: &self.page,
            context: &held.context,
            selection: &options.selection,
            profile: &options.profile,
            grants: options.grants.as_deref(),
            idempotency_key: &key,
        };
        let answer = route(&prompt, &input);
        contexts::route_to_js(answer, held)
    }

    fn dry_run(&self, tool_call: &JsValue, options: Option<&JsValue>) -> Result<JsValue, Error> {
        self.live()?;
        let text = self.contexts.call_without_own_ids(tool_call);
        let call: ToolCall = interop::from_js(text.as_ref().unwrap_or(tool_call), "/toolCall")?;
        let options: PreviewOptions = interop::optional(options, "/options")?;
        let options = PreviewOptions { role: Some(self.role), ..options };
        preview::run(&self.page, &call, options, &self.contexts)
    }

    fn edit(&self, block_id: &JsValue, new_text: &JsValue, options: Option<&JsValue>) -> Result<JsValue, Error> {
        self.live()?;
        let block_id = interop::string(block_id, "/blockId")?;
        let text = interop::string(new_text, "/newText")?;
        let options: EditOptions = interop::optional(options, "/options")?;
        let key = options.idempotency_key.unwrap_or_else(ids::mint_idempotency_key);
        let body = BlockEdits::text(&self.page, &block_id, &text, key).map_err(|e| match e {
            Error::InvalidArguments { pointer, reason, .. } if pointer == "/text" => Error::invalid("/newText", reason),
            other => other,
        })?;
        let args = ApplyBlockOpsArgs { dry_run: true, ..body.args(&self.page.document_id) };
        let person = PreviewOptions {
            origin: Some(Origin::User),
            actor: Some(Origin::User.actor().into()),
            profile: options.profile,
            role: Some(self.role),
            ..PreviewOptions::default()
        };
        let preview = preview::run_write_json(&self.page, WriteArgs::ApplyBlockOps(args), person, &self.contexts)?;
        interop::parse(&format!("{{\"body\":{},\"preview\":{preview}}}", to_json(&body)?))
    }

    fn follow(&mut self, result: &JsValue) -> Result<u64, Error> {
        self.live()?;
        let result: ToolResultFollowV1 = interop::from_js(result, "")?;
        let revision = live::follow_write(&mut self.page, &result)?;
        // The routing context names the allowed blocks of the old revision.
        self.contexts.forget_routing();
        Ok(revision)
    }
}

/// The role a session previews for: `options.role`, else `owner` (what a session made without options did).
fn session_role(options: Option<&JsValue>) -> Result<Role, Error> {
    let options: SessionOptions = interop::optional(options, "/options")?;
    Ok(options.role.unwrap_or(Role::Owner))
}
