// The mnote Page AI demo: loads the WASM engine and the `welcome` document, draws the page, and wires the
// command box (route + preview per keystroke, in WASM) and the context panel (contexts, in WASM). Each
// panel lives in its own module under js/; this file only wires them together and owns the session.

import { ApiError, fetchDocument, putDocument } from "./js/api.js";
import { createCommandPanel } from "./js/command-panel.js";
import { createContextPanel } from "./js/context-panel.js";
import { count, h, replace } from "./js/dom.js";
import { loadEngine } from "./js/engine.js";
import { createPageView } from "./js/page-view.js";

const documentId = new URLSearchParams(location.search).get("doc") || "welcome";
const $ = (selector) => document.querySelector(selector);

async function main() {
  const [engine, page] = await Promise.all([loadEngine(), fetchDocument(documentId)]);
  // Loaded into WASM once: every keystroke and every context passes only its request across the boundary.
  let session = new engine.PageSession(page);

  document.title = `${page.title || page.documentId} · mnote`;
  $("#doc-title").textContent = page.title || page.documentId;
  const showMeta = (p) =>
    replace(
      $("#doc-meta"),
      pill(`Revision ${p.revision}`, "", "doc-revision"),
      pill(`${count(p.blocks.length)} blocks`),
      p.permission === "read" ? pill("Read-only", "pill-warn") : null,
      pill(
        engine.wasmBytes ? `WASM ${Math.round(engine.wasmBytes / 1024)} KB · ${Math.round(engine.loadMs)} ms` : "WASM ready",
        "pill-ok",
      ),
    );
  showMeta(page);

  let contextPanel;
  let commandPanel;
  const pageView = createPageView($("#page-blocks"), { onPick: (blockId) => contextPanel.pick(blockId) });
  pageView.render(page);
  $("#page-blocks").removeAttribute("aria-busy");

  /**
   * Applies a previewed command. The server's command route (`POST /api/page-ai/command`) does not exist
   * yet, so the browser applies the write to a copy of its page in WASM, saves that page with
   * `PUT /api/documents/{id}`, and follows its own write with `applyLocal`, as it will follow the server's.
   */
  async function apply(call) {
    const before = session.revision;
    // The person clicking Apply is the one accepting the change, so it is not held for review.
    const result = { ...session.preview(call, { origin: "user" }), dryRun: false, newRevision: before + 1 };
    const draft = new engine.PageSession(session.page());
    draft.applyLocal(result);
    const next = draft.page();
    draft.free();
    const stored = await putDocument(documentId, next);
    if (stored.revision === before + 1 && JSON.stringify(stored.blocks) === JSON.stringify(next.blocks)) {
      session.applyLocal(result);
    } else {
      // Someone else wrote in between: take the server's page as it is.
      session.free();
      session = new engine.PageSession(stored);
    }
    pageView.render(stored);
    showMeta(stored);
    contextPanel.refresh();
    return stored;
  }

  const deps = { session: () => session, isPageAiError: engine.isPageAiError, pageView };
  contextPanel = createContextPanel($("#context-panel"), { ...deps, onPick: () => commandPanel?.refresh() });
  commandPanel = createCommandPanel($("#command-panel"), { ...deps, selection: () => contextPanel.picked(), apply });
  contextPanel.refresh();
  commandPanel.refresh();
  document.body.dataset.state = "ready";
}

function pill(text, kind = "", id = undefined) {
  return h("span", { class: `pill ${kind}`, id }, text);
}

main().catch((error) => {
  document.body.dataset.state = "error";
  const coded = error instanceof ApiError || typeof error?.code === "string";
  $("#doc-title").textContent = "Unavailable";
  replace(
    $("#page-blocks"),
    h(
      "div",
      { class: "message message-error fatal" },
      h("div", { class: "error-code" }, coded ? error.code : "load_failed"),
      h("div", { class: "error-message" }, `The document “${documentId}” could not be loaded: ${error.message}`),
      error.hint ? h("div", { class: "error-hint" }, error.hint) : null,
    ),
  );
  $("#page-blocks").removeAttribute("aria-busy");
  console.error(error);
});
