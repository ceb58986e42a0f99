// The mnote Page AI demo: loads the WASM engine and the `welcome` document, draws the page, and wires the
// command box (route + preview per keystroke, in WASM; Apply and Send to Hermes through the server), the
// review panel, the context panel (contexts, in WASM), the tool toggles and the audit log. Each panel lives
// in its own module under js/; this file only wires them together and owns the session.

import { ApiError, fetchDocument, runCommand, streamRun } from "./js/api.js";
import { createAuditPanel } from "./js/audit-panel.js";
import { createCommandPanel } from "./js/command-panel.js";
import { createContextPanel } from "./js/context-panel.js";
import { createReviewPanel } from "./js/review-panel.js";
import { createToolsPanel } from "./js/tools-panel.js";
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

  /** Shows `stored` (the server's page) and makes it the session's page, unless the session already is. */
  function follow(stored, result = null) {
    const mine = result && session.revision + 1 === stored.revision ? followWrite(result) : null;
    if (!mine || JSON.stringify(mine.blocks) !== JSON.stringify(stored.blocks)) {
      // Someone else wrote in between, or there was no result to follow: take the server's page as it is.
      session.free();
      session = new engine.PageSession(stored);
    }
    pageView.render(stored);
    showMeta(stored);
    contextPanel.refresh();
  }

  /** Follows the server's write with `applyLocal`, in WASM, without fetching the page; answers the page. */
  function followWrite(result) {
    try {
      session.applyLocal(result);
      return session.page();
    } catch (error) {
      if (!engine.isPageAiError(error)) throw error;
      return null;
    }
  }

  /** Reads the page again after a write this page did not make itself (a review accepted, a revert, Hermes). */
  async function reload() {
    const stored = await fetchDocument(documentId);
    if (stored.revision !== session.revision) follow(stored);
    await auditPanel.refresh();
  }

  /**
   * Applies a direct command on the server: `POST /api/page-ai/command` routes it again in the document's
   * Durable Object (the same core as the preview) and writes it there, validated, audited and with its tool
   * events. When the review mode holds it, it waits in the review panel. Answers `{outcome, page, answer}`.
   */
  async function apply({ prompt, mode, selection }) {
    const scope = selection.length ? { type: "selection", blockIds: selection } : { type: "full" };
    const answer = await runCommand({ documentId, prompt, scope, selection, mode });
    if (answer.outcome === "applied") {
      follow(answer.page, answer.result);
      await Promise.all([auditPanel.refresh(), reviewPanel.refresh()]);
      return { outcome: "applied", page: answer.page, answer };
    }
    if (answer.outcome === "review") await reviewPanel.refresh(answer.reviewSession.sessionId);
    return { outcome: answer.outcome, page: null, answer };
  }

  /**
   * Sends a prompt to Hermes: the command route freezes the page and starts the run through the Hermes
   * proxy, in a new session of this document; its events stream back to `onEvent`. When the run ends, the
   * page is read again, since Hermes may have written through the mnote tools.
   */
  async function sendToHermes({ prompt, selection }, onEvent) {
    const scope = selection.length ? { type: "selection", blockIds: selection } : { type: "full" };
    const answer = await runCommand({ documentId, prompt, scope, selection });
    if (answer.outcome !== "hermes") return { outcome: answer.outcome, answer };
    const run = answer.hermesRun;
    if (!run?.started) {
      const error = run?.error ?? {};
      throw Object.assign(new Error(error.message ?? "the run did not start"), { code: error.code, hint: error.hint });
    }
    const last = await streamRun(run.runId, run.sessionId, onEvent);
    await Promise.all([reload(), reviewPanel.refresh()]);
    return { outcome: "hermes", run, last };
  }

  const deps = { session: () => session, isPageAiError: engine.isPageAiError, pageView };
  contextPanel = createContextPanel($("#context-panel"), { ...deps, onPick: () => commandPanel?.refresh() });
  const reviewPanel = createReviewPanel($("#review-panel"), { documentId, onWrite: reload, engine });
  const auditPanel = createAuditPanel($("#audit-panel"), { documentId });
  const toolsPanel = createToolsPanel($("#tools-panel"), { onProfile: (profile) => commandPanel?.showProfile(profile) });
  commandPanel = createCommandPanel($("#command-panel"), {
    ...deps,
    vocabulary: engine.vocabulary,
    selection: () => contextPanel.picked(),
    apply,
    sendToHermes,
    // The review mode is the stored profile's: what the preview shows is what the server and Hermes obey.
    onMode: (reviewMode) => toolsPanel.save({ reviewMode }),
  });
  contextPanel.refresh();
  await Promise.all([toolsPanel.load(), reviewPanel.refresh(), auditPanel.refresh()]);
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
