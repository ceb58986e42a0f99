// The WASM engine: the web build of @mnote/pageai, served by the Worker at /pkg/. Everything it computes
// (contexts, command routes, dry-run previews, a review session's buttons, fresh ids) runs in the browser
// with no request.

// Imported when first asked for, not statically: the demo's own code then runs at once and asks for the
// page while the package's module, its snippets and the `.wasm` still arrive (index.html preloads them).

let loading = null;

/** Loads and instantiates the module once; answers the package's exports and what loading cost. */
export const loadEngine = () =>
  (loading ??= load().catch((error) => {
    loading = null; // the next call tries again
    throw error;
  }));

async function load() {
  const started = performance.now();
  const pageai = await import("/pkg/pageai.js");
  await pageai.default({ module_or_path: new URL("/pkg/pageai_bg.wasm", location.origin) });
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
