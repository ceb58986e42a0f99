// The JS half of a thrown error (wasm/src/error.rs): a real `Error` (so `instanceof Error` holds and a stack
// is captured) named `PageAiError`, with core's `.code`, `.hint` and `.details` (sent as core's JSON text).
// Built here in one call rather than property by property through `Reflect` from WASM.
export function pageAiError(message, code, hint, details) {
  const error = new Error(message);
  // `name` stays non-enumerable, as on built-in errors, so that logging shows only the useful fields.
  Object.defineProperty(error, "name", { value: "PageAiError", writable: true, configurable: true });
  error.code = code;
  error.hint = hint;
  error.details = JSON.parse(details);
  return error;
}

// True for an `Error` whose `.code` is one of `codes` (core's, from `errorCodes()`).
export function hasCodeOf(value, codes) {
  return value instanceof Error && typeof value.code === "string" && codes.includes(value.code);
}
