// The mnote Page AI demo: loads the WASM engine and the `welcome` document, draws the page, and lets the
// user freeze it into model contexts. Each panel lives in its own module under js/; this file only wires
// them together.

import { ApiError, fetchDocument } from "./js/api.js";
import { count, h, replace } from "./js/dom.js";
import { loadEngine } from "./js/engine.js";
import { createContextPanel } from "./js/context-panel.js";
import { createPageView } from "./js/page-view.js";

const documentId = new URLSearchParams(location.search).get("doc") || "welcome";
const $ = (selector) => document.querySelector(selector);

async function main() {
  const [engine, page] = await Promise.all([loadEngine(), fetchDocument(documentId)]);
  // Loaded into WASM once; every context below passes only its request across the boundary.
  const session = new engine.PageSession(page);

  document.title = `${page.title || page.documentId} · mnote`;
  $("#doc-title").textContent = page.title || page.documentId;
  replace(
    $("#doc-meta"),
    pill(`Revision ${page.revision}`),
    pill(`${count(page.blocks.length)} blocks`),
    page.permission === "read" ? pill("Read-only", "pill-warn") : null,
    pill(
      engine.wasmBytes ? `WASM ${Math.round(engine.wasmBytes / 1024)} KB · ${Math.round(engine.loadMs)} ms` : "WASM ready",
      "pill-ok",
    ),
  );

  let panel;
  const pageView = createPageView($("#page-blocks"), { onPick: (blockId) => panel.pick(blockId) });
  pageView.render(page);
  $("#page-blocks").removeAttribute("aria-busy");
  panel = createContextPanel($("#context-panel"), { session, isPageAiError: engine.isPageAiError, pageView });
  panel.refresh();
  document.body.dataset.state = "ready";
}

function pill(text, kind = "") {
  return h("span", { class: `pill ${kind}` }, text);
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
