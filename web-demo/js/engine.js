// The WASM engine: the web build of @mnote/pageai, served by the Worker at /pkg/. Everything it computes
// (contexts, command routes, dry-run previews) runs in the browser with no request.

import init, * as pageai from "/pkg/pageai.js";

/** Loads and instantiates the module once; answers the package's exports and what loading cost. */
export async function loadEngine() {
  const started = performance.now();
  await init({ module_or_path: new URL("/pkg/pageai_bg.wasm", location.origin) });
  const entry = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/pkg/pageai_bg.wasm"));
  return {
    PageSession: pageai.PageSession,
    isPageAiError: pageai.isPageAiError,
    loadMs: performance.now() - started,
    // Bytes on the wire (compressed when the server compresses), when the browser reports them.
    wasmBytes: entry?.encodedBodySize || entry?.transferSize || null,
  };
}

/** A fresh context id, `ctx_` + 10 base32 characters: it names one frozen snapshot. */
export function mintContextId() {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `ctx_${Array.from(bytes, (b) => alphabet[b & 31]).join("")}`;
}
