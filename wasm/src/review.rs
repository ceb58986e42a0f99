//! `reviewVerbs`: the buttons of a review session, as its `actions` gate them.
//!
//! The Worker's review routes run core's state machine; a UI only shows what the session says. This export
//! reads the session's `actions` (so a UI never re-derives them from the state) and, for each verb core
//! lets a person send, answers whether it is allowed and, when not, core's reason.

use alloc::format;
use alloc::vec::Vec;
use pageai_core::review::Action;
use wasm_bindgen::prelude::*;

use crate::error;
use crate::interop::{self, ReviewGates, ReviewVerbGate};

/// Every verb a person may send a review session (`accept`, `reject`, `retry`, `abort`, `revert`, in that
/// order), each with whether the session's `actions` allow it now and, when not, why, in core's words:
/// the message and hint of the `mnote_review_invalid_transition` that sending it would answer.
///
/// `session` is a `mnote.page_ai_review_session.v1` (only its `state` and `actions` are read).
///
/// @throws {PageAiError} `mnote_invalid_arguments` when the state or the actions are not core's.
#[wasm_bindgen(js_name = reviewVerbs, unchecked_return_type = "ReviewVerbGate[]")]
pub fn review_verbs(
    #[wasm_bindgen(unchecked_param_type = "ReviewGateInput | string")] session: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let ReviewGates { state, actions } = interop::from_js(&session, "")?;
        let gates: Vec<ReviewVerbGate> = Action::VERBS
            .into_iter()
            .map(|verb| {
                let reason = actions.refusal(state, verb).map(|e| format!("{}; {}", e.message(), e.hint()));
                ReviewVerbGate { verb, allowed: actions.allows(verb), reason }
            })
            .collect();
        interop::to_js(&gates)
    };
    error::throw(run())
}
