//! All-or-nothing writes to a Durable Object's SQLite storage.
//!
//! SQLite-backed objects refuse `BEGIN`/`COMMIT` in `sql.exec`; the runtime's way to group statements is
//! `storage.transactionSync(callback)`, which rolls back everything the callback did when it throws.
//! worker 0.8.7 has no binding for it, so [`atomically`] calls it through `js_sys` with a scoped closure:
//! the closure only borrows the caller's work, which is fine because `transactionSync` returns before we
//! do.

use js_sys::{Function, Reflect};
use wasm_bindgen::closure::ScopedClosure;
use wasm_bindgen::{JsCast, JsValue};
use worker::{SqlStorage, Storage};

/// Runs `work` inside one SQLite transaction: either every statement it executes is committed, or none.
///
/// The returned error carries the first failure's message, for the log line; callers answer clients with
/// a generic storage error.
pub fn atomically(storage: &Storage, work: impl FnOnce(&SqlStorage) -> worker::Result<()>) -> Result<(), String> {
    let raw: &JsValue = storage.as_raw().as_ref();
    let transaction_sync: Function = Reflect::get(raw, &JsValue::from_str("transactionSync"))
        .map_err(|e| format!("storage.transactionSync is unavailable: {e:?}"))?
        .dyn_into()
        .map_err(|_| "storage.transactionSync is not a function".to_string())?;

    let sql = storage.sql();
    let mut work = Some(work);
    let mut failure: Option<String> = None;
    let mut callback = || -> Result<JsValue, JsValue> {
        let outcome = match work.take() {
            Some(work) => work(&sql).map_err(|e| e.to_string()),
            None => Err("transaction callback ran twice".to_string()),
        };
        match outcome {
            Ok(()) => Ok(JsValue::UNDEFINED),
            Err(message) => {
                // Throwing is what makes transactionSync roll back; the message is kept for the log.
                let thrown = JsValue::from_str(&message);
                failure = Some(message);
                Err(thrown)
            }
        }
    };
    let closure = ScopedClosure::<dyn FnMut() -> Result<JsValue, JsValue>>::borrow_mut(&mut callback);
    let called = transaction_sync.call1(raw, closure.as_ref());
    drop(closure);
    match (called, failure) {
        (Ok(_), None) => Ok(()),
        (_, Some(message)) => Err(message),
        (Err(e), None) => Err(format!("transaction failed: {e:?}")),
    }
}
