//! `PageSession.applyRemote`: the session follows the document's live channel (`mnote.live_event.v1`), so
//! every preview and route is computed against the page as the server has it now.
//!
//! Core decides what a message does ([`pageai_core::live::follow_light`], which reads only what following
//! needs: a tool event's or a review session's contents are skipped unread); here the session only drops its own
//! routing context when the page changed (its allowed blocks were frozen at the old revision).

use pageai_core::error::Error;
use pageai_core::live;
use pageai_core::wire::LiveFollowV1;
use wasm_bindgen::prelude::*;

use super::PageSession;
use crate::error;
use crate::interop::{self, RemoteApplied};

#[wasm_bindgen]
impl PageSession {
    /// Follows one message of the document's live channel. A `page.changed` made on the session's revision
    /// is applied (its blocks, deletions, title and revision); a `snapshot` replaces the page; tool events
    /// and review updates change nothing. Answers `{applied, revision, kind}`. On any error the page is left
    /// as it was.
    ///
    /// A route or preview made before the page changed is not current: when `applied` is true, call
    /// `route(prompt)` (or `preview(call)`) again; the new one names the new `baseRevision`.
    ///
    /// @throws {PageAiError} `mnote_live_resync` (a change is missing, the message is older than the page,
    /// a block does not match its `revisionRef`, or the change was too large to send: reconnect with
    /// `?revision=<session.revision>`, or read the page and apply it as a snapshot),
    /// `mnote_invalid_arguments` (not a live message, or another document's), `mnote_unsupported_schema`.
    #[wasm_bindgen(js_name = applyRemote, unchecked_return_type = "RemoteApplied")]
    pub fn apply_remote(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "LiveEventV1 | LiveEventV2 | string")] message: JsValue,
    ) -> Result<JsValue, JsValue> {
        error::throw(self.follow_remote(&message))
    }
}

impl PageSession {
    fn follow_remote(&mut self, message: &JsValue) -> Result<JsValue, Error> {
        self.live()?;
        let message: LiveFollowV1 = interop::from_js(message, "")?;
        let followed = live::follow_light(&mut self.page, &message)?;
        if followed.applied {
            // The routing context names the allowed blocks of the old revision.
            self.contexts.forget_routing();
        }
        interop::to_js(&RemoteApplied { applied: followed.applied, revision: followed.revision, kind: message.kind })
    }
}
