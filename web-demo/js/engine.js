// The WASM engine: the web build of @mnote/pageai, served by the Worker at /pkg/. Everything it computes
// (contexts, command routes, dry-run previews, a review session's buttons, fresh ids) runs in the browser
// with no request.

import init, * as pageai from "/pkg/pageai.js";

/** Loads and instantiates the module once; answers the package's exports and what loading cost. */
export async function loadEngine() {
  const started = performance.now();
  await init({ module_or_path: new URL("/pkg/pageai_bg.wasm", location.origin) });
  const entry = performance.getEntriesByType("resource").find((e) => e.name.endsWith("/pkg/pageai_bg.wasm"));
  return {
    PageSession: pageai.PageSession,
    isPageAiError: pageai.isPageAiError,
    // Core's names (intents, reason codes, review modes, states, verbs, …): the panels key their words by them.
    vocabulary: pageai.vocabulary(),
    // A review session's buttons, gated by the session's `actions`, with core's reason when refused.
    reviewVerbs: pageai.reviewVerbs,
    // Ids and keys as core spells them; the demo never spells one itself.
    mintBlockId: pageai.mintBlockId,
    mintIdempotencyKey: pageai.mintIdempotencyKey,
    mintToolCallId: pageai.mintToolCallId,
    loadMs: performance.now() - started,
    // Bytes on the wire (compressed when the server compresses), when the browser reports them.
    wasmBytes: entry?.encodedBodySize || entry?.transferSize || null,
  };
}
