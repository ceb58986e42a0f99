//! The contexts a `PageSession` binds writes to, and their allowed ids on the JS side.
//!
//! A session holds its own full-page routing context (frozen on first use at each revision) and the most
//! recent contexts it built or was given. On a 10,000-block page a full-page context allows 10,000 ids; a
//! route's recommendation repeats them in `args.allowedTargetBlockIds`, and the preview of that
//! recommendation sends them back. As JSON, both ways, they cost more than the route and the dry-run. So
//! once a context has handed its ids out they stay a JS array (`js/allowed.js`): every recommendation gets a
//! copy, and a tool call whose list is that array element for element crosses the boundary without it.
//! Core answers the same either way: narrowing a context's scope by the context's own list changes
//! nothing (the executor's `target_scope`).

use alloc::collections::VecDeque;
use alloc::string::String;

use pageai_core::context::{Scope, allowed_targets};
use pageai_core::error::Error;
use pageai_core::executor::{ContextLookup, FrozenContext};
use pageai_core::page::Page;
use pageai_core::route::RouteV1;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::{ids, interop};

/// How many contexts built by `context()` or given to `rememberContext()` a session keeps; the oldest go
/// first. Each costs about its allowed ids.
const REMEMBERED_CONTEXTS: usize = 64;

#[wasm_bindgen(module = "/js/allowed.js")]
extern "C" {
    #[wasm_bindgen(js_name = giveIds)]
    fn give_ids(route: JsValue, ids: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = contextIdOf)]
    fn context_id_of(call: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = callTextWithout)]
    fn call_text_without(call: &JsValue, ids: &JsValue) -> JsValue;
}

/// A context, with its allowed ids as a JS array once they were handed out.
pub(crate) struct Held {
    pub context: FrozenContext,
    ids: Option<JsValue>,
}

impl Held {
    fn new(context: FrozenContext) -> Self {
        Held { context, ids: None }
    }

    /// The allowed ids as a JS array, made on first use.
    fn js_ids(&mut self) -> Result<&JsValue, Error> {
        match &mut self.ids {
            Some(ids) => Ok(ids),
            slot @ None => Ok(slot.insert(interop::to_js(&self.context.allowed_target_block_ids)?)),
        }
    }
}

/// The contexts of a session.
#[derive(Default)]
pub(crate) struct Contexts {
    routing: Option<Held>,
    recent: VecDeque<Held>,
}

impl Contexts {
    /// Keeps `context`, replacing one of the same id.
    pub fn remember(&mut self, context: FrozenContext) {
        self.recent.retain(|held| held.context.context_id != context.context_id);
        if self.recent.len() == REMEMBERED_CONTEXTS {
            self.recent.pop_front();
        }
        self.recent.push_back(Held::new(context));
    }

    /// Drops the routing context: it names the allowed blocks of an older revision.
    pub fn forget_routing(&mut self) {
        self.routing = None;
    }

    fn find(&self, context_id: &str) -> Option<&Held> {
        let routing = self.routing.as_ref().filter(|held| held.context.context_id == context_id);
        routing.or_else(|| self.recent.iter().rev().find(|held| held.context.context_id == context_id))
    }

    /// A remembered context, which must be of the page's current revision.
    pub fn remembered(&mut self, context_id: &str, page: &Page) -> Result<&mut Held, Error> {
        let routing = self.routing.as_mut().filter(|held| held.context.context_id == context_id);
        let held = routing
            .or_else(|| self.recent.iter_mut().rev().find(|held| held.context.context_id == context_id))
            .ok_or_else(|| Error::ContextNotFound { context_id: context_id.into() })?;
        if held.context.revision != page.revision {
            let token_revision = held.context.revision;
            return Err(Error::ContextStale { token_revision, current_revision: page.revision });
        }
        Ok(held)
    }

    /// The session's own full-page context at the page's revision.
    pub fn routing(&mut self, page: &Page) -> Result<&mut Held, Error> {
        let routing = match self.routing.take() {
            Some(held) if held.context.revision == page.revision => held,
            _ => Held::new(FrozenContext {
                context_id: ids::mint_context_id(),
                document_id: page.document_id.clone(),
                revision: page.revision,
                scope: Scope::Full.name().into(),
                allowed_target_block_ids: allowed_targets(page, &Scope::Full)?,
                block_hashes: Default::default(),
            }),
        };
        Ok(self.routing.insert(routing))
    }

    /// The JSON text of a tool call (an object) without its allowed ids, when they are element for element
    /// those its context handed out; `None` when the call must cross whole.
    pub fn call_without_own_ids(&self, call: &JsValue) -> Option<JsValue> {
        let context_id = context_id_of(call).as_string()?;
        let ids = self.find(&context_id)?.ids.as_ref()?;
        Some(call_text_without(call, ids)).filter(|text| !text.is_undefined())
    }
}

impl ContextLookup for Contexts {
    fn frozen(&self, context_id: &str) -> Option<&FrozenContext> {
        self.find(context_id).map(|held| &held.context)
    }
}

/// A route as a plain JS object. A recommendation that repeats its context's allowed ids gets them as a
/// copy of the context's JS array instead of through JSON.
pub(crate) fn route_to_js(mut route: RouteV1, held: &mut Held) -> Result<JsValue, Error> {
    let listed = route.recommended_tool_call.as_mut().and_then(|call| call.args.get_mut("allowedTargetBlockIds"));
    let Some(list) = listed.filter(|list| same_ids(list, &held.context.allowed_target_block_ids)) else {
        return interop::to_js(&route);
    };
    // The key keeps its place (serde_json's map is sorted; JS keeps the order JSON.parse gave it).
    *list = Value::Null;
    let route = interop::to_js(&route)?;
    Ok(give_ids(route, held.js_ids()?))
}

fn same_ids(list: &Value, ids: &[String]) -> bool {
    matches!(list, Value::Array(list) if list.len() == ids.len()
        && list.iter().zip(ids).all(|(value, id)| value.as_str() == Some(id)))
}
