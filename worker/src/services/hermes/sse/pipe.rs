//! The relay in the Workers runtime.
//!
//! Hermes' response body is piped (`pipeTo`) into a `TransformStream` whose `transform` callback runs
//! [`SseRelay::push`] synchronously on each chunk and enqueues what it returns; the stream's readable
//! side is the client's response body. Per chunk that is one call into wasm and one `Uint8Array` each
//! way: the runtime's own pipe does the reading, the writing and the backpressure, and no future,
//! promise or closure is made per chunk. So an event leaves as soon as the chunk that completes it has
//! arrived, and a burst of chunks is relayed back to back.
//!
//! How the stream ends:
//! - a terminal event: `transform` terminates the stream, and the pipe cancels the upstream;
//! - Hermes closes the stream first: `flush` writes the relay's coded `run.failed`;
//! - the connection to Hermes breaks: the pipe fails (it is told not to abort the transform), and the
//!   pipe's task writes the `run.failed` and terminates;
//! - nothing, not even a keepalive, for `idle_ms`: that task's timer does the same. One timer covers each
//!   stretch of silence; when it fires early (data came meanwhile) it is set again for what is left;
//! - the client goes away: the pipe cancels the upstream, and nothing more is written.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use futures_util::future::{Either, select};
use futures_util::pin_mut;
use js_sys::futures::JsFuture;
use js_sys::{Function, Object, Reflect, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use worker::Delay;
use worker::web_sys::{ReadableStream, TransformStream};

use super::SseRelay;

/// The client's response body: `upstream` through `relay` (see the module docs).
pub fn relay_body(
    upstream: ReadableStream,
    relay: SseRelay,
    idle_ms: u64,
    trace_id: String,
) -> Result<ReadableStream, JsValue> {
    let state = Rc::new(RefCell::new(State {
        relay,
        controller: None,
        last_chunk_ms: js_sys::Date::now(),
        scratch: Vec::new(),
        trace_id,
        logged_skips: 0,
    }));
    let callbacks = Callbacks::new(&state);
    let transformer = Object::new();
    for (name, callback) in [
        ("start", callbacks.start.as_ref()),
        ("transform", callbacks.transform.as_ref()),
        ("flush", callbacks.flush.as_ref()),
    ] {
        Reflect::set(&transformer, &JsValue::from_str(name), callback)?;
    }
    let stream = TransformStream::new_with_transformer(&transformer)?;

    // Not aborting the transform when the upstream fails leaves it open for the coded run.failed.
    let options = Object::new();
    Reflect::set(&options, &JsValue::from_str("preventAbort"), &JsValue::TRUE)?;
    let pipe_to: Function = Reflect::get(&upstream, &JsValue::from_str("pipeTo"))?.dyn_into()?;
    let piped = JsFuture::from(js_sys::Promise::from(pipe_to.call2(&upstream, &stream.writable(), &options)?));
    worker::wasm_bindgen_futures::spawn_local(watch(state, piped, callbacks, idle_ms));
    Ok(stream.readable())
}

/// What the callbacks and the watching task share.
struct State {
    relay: SseRelay,
    /// The stream's `TransformStreamDefaultController`, with its `enqueue` and `terminate`.
    controller: Option<Controller>,
    last_chunk_ms: f64,
    /// The current chunk's bytes, copied out of JS (kept to reuse its allocation).
    scratch: Vec<u8>,
    trace_id: String,
    logged_skips: usize,
}

struct Controller {
    this: JsValue,
    enqueue: Function,
    terminate: Function,
}

impl State {
    /// Enqueues `out` (if any); ends the stream when the relay is finished and `end` is asked for.
    /// Answers whether the client could still be written to.
    fn send(&mut self, out: &[u8], end: bool) -> bool {
        self.log_skips();
        let Some(controller) = &self.controller else {
            return false;
        };
        let written = out.is_empty() || controller.enqueue.call1(&controller.this, &Uint8Array::from(out)).is_ok();
        if end && self.relay.is_finished() {
            // Throws only when the stream already ended.
            let _ = controller.terminate.call0(&controller.this);
        }
        written
    }

    fn log_skips(&mut self) {
        if self.relay.skipped() > self.logged_skips {
            self.logged_skips = self.relay.skipped();
            worker::console_error!(
                "[{}] skipped a malformed Hermes event ({} so far)",
                self.trace_id,
                self.logged_skips
            );
        }
    }
}

/// The transformer's callbacks. JS holds them through the stream; the watching task owns them (they
/// are freed when it ends, after the pipe is over and nothing calls them any more).
struct Callbacks {
    start: Closure<dyn FnMut(JsValue) -> Result<(), JsValue>>,
    transform: Closure<dyn FnMut(JsValue) -> Result<(), JsValue>>,
    flush: Closure<dyn FnMut() -> Result<(), JsValue>>,
}

impl Callbacks {
    fn new(state: &Rc<RefCell<State>>) -> Self {
        let shared = Rc::clone(state);
        let start = Closure::new(move |controller: JsValue| {
            let method = |name: &str| -> Result<Function, JsValue> {
                Reflect::get(&controller, &JsValue::from_str(name))?.dyn_into::<Function>()
            };
            let (enqueue, terminate) = (method("enqueue")?, method("terminate")?);
            shared.borrow_mut().controller = Some(Controller { this: controller, enqueue, terminate });
            Ok(())
        });
        let shared = Rc::clone(state);
        let transform = Closure::new(move |chunk: JsValue| {
            let mut state = shared.borrow_mut();
            let state = &mut *state;
            state.last_chunk_ms = js_sys::Date::now();
            let bytes = chunk.dyn_into::<Uint8Array>().unwrap_or_else(|other| Uint8Array::new(&other));
            state.scratch.resize(bytes.length() as usize, 0);
            bytes.copy_to(&mut state.scratch);
            let out = state.relay.push(&state.scratch);
            state.send(&out, true);
            Ok(())
        });
        let shared = Rc::clone(state);
        let flush = Closure::new(move || {
            let mut state = shared.borrow_mut();
            if !state.relay.is_finished() {
                worker::console_error!("[{}] Hermes closed the event stream before the run ended", state.trace_id);
                let out = state.relay.dropped("Hermes closed the stream", false);
                // The stream closes after flush by itself.
                state.send(&out, false);
            }
            Ok(())
        });
        Callbacks { start, transform, flush }
    }
}

/// Waits for the pipe to settle, or for the upstream to fall silent; writes the coded end for a broken
/// or silent upstream. Keeps the callbacks alive until the pipe is over.
async fn watch(state: Rc<RefCell<State>>, piped: JsFuture, callbacks: Callbacks, idle_ms: u64) {
    let idle = idle_timeout(Rc::clone(&state), idle_ms);
    pin_mut!(idle);
    let piped = match select(piped, idle).await {
        Either::Left((result, _)) => Some(result),
        Either::Right(((), piped)) => {
            // The timeout ended the stream; the pipe settles once it notices.
            let _ = piped.await;
            None
        }
    };
    if let Some(Err(error)) = piped {
        let mut state = state.borrow_mut();
        if !state.relay.is_finished() {
            let out = state.relay.dropped("the connection to Hermes broke", false);
            // A client that went away is no broken upstream: only log when the end could be written.
            if state.send(&out, true) {
                worker::console_error!("[{}] Hermes event stream broke: {error:?}", state.trace_id);
            }
        }
    }
    drop(callbacks);
}

/// Resolves once the upstream has sent nothing for `idle_ms`, after writing the relay's coded end; or
/// never, once the relay is finished.
async fn idle_timeout(state: Rc<RefCell<State>>, idle_ms: u64) {
    let mut wait_ms = idle_ms;
    loop {
        Delay::from(Duration::from_millis(wait_ms)).await;
        let left_ms = {
            let mut state = state.borrow_mut();
            let silent_ms = (js_sys::Date::now() - state.last_chunk_ms).max(0.0) as u64;
            if state.relay.is_finished() {
                None
            } else if silent_ms < idle_ms {
                Some(idle_ms - silent_ms)
            } else {
                worker::console_error!("[{}] Hermes event stream silent for {idle_ms} ms", state.trace_id);
                let out = state.relay.dropped(&format!("no data for {idle_ms} ms"), true);
                state.send(&out, true);
                return;
            }
        };
        match left_ms {
            Some(left_ms) => wait_ms = left_ms,
            None => return std::future::pending().await,
        }
    }
}
