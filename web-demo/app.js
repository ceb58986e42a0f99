// The mnote Page AI demo: loads the WASM engine and the `welcome` document, draws the page, and wires the
// command box (route + preview per keystroke, in WASM; Apply and Send to Hermes through the server), the
// review panel, the context panel (contexts, in WASM), the tool toggles and the audit log. Each panel lives
// in its own module under js/; this file only wires them together and owns the session. The layout
// (js/layout.js) puts the panels beside the page on a wide screen and behind a tab bar on a phone.
//
// The page is live: it listens on the document's live channel (js/live-status.js, through the package's
// `connectLive`), so a change made in another tab, by Hermes or by the assistant shows here as it is
// committed (merged with what the person is typing, as any newer page is), a proposal held for review
// appears in the Review panel, the audit log follows, and a Hermes run shows each mnote tool call as it
// starts and ends. Nothing polls.

import {
  ApiError,
  abortRun,
  createDocument,
  endReadsAhead,
  fetchDocumentAndRole,
  fetchSuggestions,
  firstReadsSeq,
  openedDocumentId,
  runCommand,
  streamRun,
} from "./js/api.js";
import { createAuditPanel } from "./js/audit-panel.js";
import { createBlockEditor } from "./js/block-editor.js";
import { createCommandPanel } from "./js/command-panel.js";
import { createContextPanel } from "./js/context-panel.js";
import { createEditSync } from "./js/edit-sync.js";
import { createReviewPanel } from "./js/review-panel.js";
import { createToolsPanel } from "./js/tools-panel.js";
import { count, h, replace } from "./js/dom.js";
import { loadEngine } from "./js/engine.js";
import { errorWords } from "./js/labels.js";
import { createLayout } from "./js/layout.js";
import { connectLiveStatus } from "./js/live-status.js";
import { createPageView } from "./js/page-view.js";
import { createPromptMemory } from "./js/prompts.js";
import { createSaveStatus } from "./js/save-status.js";
import { createSuggestSwitch } from "./js/suggest-switch.js";
import { createSuggestionView } from "./js/suggestion-view.js";

/** From how many blocks a page is long: its context is frozen when the browser is idle, not at once. */
const LONG_PAGE_BLOCKS = 1_000;
const documentId = openedDocumentId;
const $ = (selector) => document.querySelector(selector);
const layout = createLayout(document.body, $("#tabbar"));
// The skip link focuses the command box itself (following the link alone would only scroll to it), in the
// Command tab on a phone.
$("#skip-to-command").addEventListener("click", (event) => {
  event.preventDefault();
  layout.reveal("command", { focus: "#command-input" });
});

async function main() {
  // The page was asked for before this code arrived (js/reads.js, which also reads its panels' first data
  // once it answers): the server answers while the engine loads and the page is drawn.
  const [engine, { page, pageBytes, role, user }] = await Promise.all([loadEngine(), fetchDocumentAndRole(documentId)]);
  // What follows holds the main thread for a while (the page read into the session, drawn, the panels made):
  // the answers already in go first, so the reads they lead to (the review session the panel shows, the
  // audit entries) are on their way meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const prompts = createPromptMemory(documentId);

  document.title = `${page.title || page.documentId} · mnote`;
  $("#doc-title").textContent = page.title || page.documentId;
  const showMeta = (p) =>
    replace(
      $("#doc-meta"),
      pill(`Revision ${p.revision}`, "", "doc-revision"),
      pill(`${count(p.blocks.length)} blocks`, "pill-extra"),
      p.permission === "read" ? pill("Read-only", "pill-warn") : null,
      // A person who may only suggest: on a phone the locked switch above the page says it, and the title keeps its room.
      p.permission !== "read" && !may.write ? pill(may.suggest ? "Suggest only" : "View only", may.suggest ? "pill-warn pill-extra" : "pill-warn", "doc-view-only") : null,
      pill(
        engine.wasmBytes ? `WASM ${Math.round(engine.wasmBytes / 1024)} KB · ${Math.round(engine.loadMs)} ms` : "WASM ready",
        "pill-ok pill-extra",
      ),
    );

  let contextPanel;
  let commandPanel;
  let auditPanel;
  let reviewPanel;
  let editor;
  let suggestionView;
  // A burst of live messages reads each panel once more, not once per message.
  const refreshAudit = serial(() => auditPanel?.refresh());
  const refreshReview = serial((pick) => reviewPanel?.refresh(pick));
  const refreshSuggestions = serial(async () => {
    // A batch this tab suggests while the list is read is not taken for decided (js/edit-sync.js settle).
    const seq = edits.heldSeq();
    const { suggestions } = await fetchSuggestions(documentId);
    edits.settle(suggestions, seq);
    suggestionView?.show(suggestions);
    // The Review panel names a suggestion's author from this list: a session it drew before the list
    // named its author says so now.
    reviewPanel?.redraw();
  });
  const saveStatus = createSaveStatus($("#save-status"), { retry: () => edits.retry() });
  // The page as the person edits it; its WASM session (the server's page as this tab knows it) is what
  // every preview, context and edit is computed on.
  const edits = createEditSync({
    engine,
    documentId,
    page,
    pageBytes,
    role,
    onModel: () => editor?.draw(),
    onSession: () => {
      showMeta(edits.view());
      refreshContext();
      commandPanel?.refresh();
      void refreshAudit();
    },
    onStatus: (state, error) => saveStatus.show(state, error),
    onSuggested: () => void refreshSuggestions(),
  });
  const session = () => edits.session();
  // The context panel freezes the whole page again after every change. A long page's costs its size, so it
  // waits until the page is open (drawn, its suggestions marked, the panels read) and the browser is idle
  // (the person paused), once per burst of changes.
  let contextQueued = false;
  let opened;
  const pageOpen = new Promise((resolve) => (opened = resolve));
  function refreshContext() {
    if (!contextPanel) return;
    if (edits.view().blocks.length <= LONG_PAGE_BLOCKS) return contextPanel.refresh();
    if (contextQueued) return;
    contextQueued = true;
    void pageOpen.then(() =>
      requestIdleCallback(
        () => {
          contextQueued = false;
          contextPanel?.refresh();
        },
        { timeout: 1_000 },
      ),
    );
  }
  // What this person may do here, by core's role table (the session knows their role): the page shows a
  // control only to someone the server would let use it.
  const may = {
    write: session().may("write"),
    suggest: session().may("suggest"),
    accept: session().may("accept"),
    changeProfile: session().may("change_profile"),
  };
  // A long page's rest is drawn once the page is open: its steps would otherwise hold up the panels' answers.
  const pageView = createPageView($("#page-blocks"), { onPick: (blockId) => contextPanel.pick(blockId), restAfter: pageOpen });
  // A viewer edits too, but only as suggestions (core's role table: anyone may suggest, editors write).
  const editable = page.permission !== "read" && (may.write || may.suggest);
  const suggestSwitch = editable
    ? createSuggestSwitch($("section.doc"), {
        documentId,
        locked: !may.write,
        onChange: (on) => edits.setSuggesting(on),
        onReason: (text) => edits.setReason(text),
      })
    : null;
  if (suggestSwitch?.on()) await edits.setSuggesting(true);
  editor = createBlockEditor($("#page-blocks"), { sync: edits, pageView, editable, mintBlockId: engine.mintBlockId });
  // The pending suggestions, read again (once for a burst) when the live channel says one may have moved.
  suggestionView = createSuggestionView($("#page-blocks"), {
    pageView,
    sync: edits,
    authors: suggestSwitch?.authors ?? $("section.doc").insertBefore(document.createElement("div"), $("#page-blocks")),
    user,
    canDecide: may.accept,
    engine,
    onDecided: () => Promise.all([refreshSuggestions(), reload(), refreshReview(), refreshAudit()]).then(() => {}),
  });
  pageView.afterDraw(() => suggestionView?.paint());
  showMeta(page);
  editor.draw();
  $("#page-blocks").removeAttribute("aria-busy");
  // Leaving or hiding the tab saves what the person typed; leaving with edits not yet saved asks first.
  addEventListener("visibilitychange", () => document.visibilityState === "hidden" && void edits.flush());
  addEventListener("beforeunload", (event) => {
    if (edits.status() === "saved") return;
    void edits.flush();
    event.preventDefault();
  });

  /** Shows `stored` (the server's page, written by `result` when known), merged with the person's edits. */
  const follow = (stored, result = null) => edits.follow(stored, result);

  /** Reads the page again after a write this page did not make itself (a review accepted, a revert, Hermes). */
  const reload = () => edits.reload();

  /**
   * Applies a direct command on the server: `POST /api/page-ai/command` routes it again in the document's
   * Durable Object (the same core as the preview) and writes it there, validated, audited and with its tool
   * events. When the review mode holds it, it waits in the review panel. Answers `{outcome, page, answer}`.
   */
  async function apply({ prompt, mode, selection }) {
    // The command runs on the server's page: the person's edits get there first.
    await edits.flush();
    // The selection bounds the command as it bounded the preview (core's one rule); an Apply that the
    // server reads as a Hermes request writes nothing and starts no run.
    const answer = await runCommand({ documentId, prompt, selection, mode, runHermes: false });
    prompts.remember(prompt, answer.runId, answer.reviewSession?.sessionId);
    if (answer.outcome === "applied") {
      follow(answer.page, answer.result);
      await Promise.all([auditPanel.refresh(), reviewPanel.refresh()]);
      return { outcome: "applied", page: answer.page, answer };
    }
    if (answer.outcome === "review") await Promise.all([reviewPanel.refresh(answer.reviewSession.sessionId), auditPanel.refresh()]);
    return { outcome: answer.outcome, page: null, answer };
  }

  /**
   * Sends a prompt to Hermes: the command route freezes the page and starts the run through the Hermes
   * proxy, in a new session of this document; `onStart` gets the run's ids (so it can be stopped) and its
   * events stream back to `onEvent`. What Hermes does to the page through the mnote tools arrives on the
   * live channel while it runs (its tool calls in the run view, its writes on the page, its proposals in
   * the Review panel); when the run ends, the page and the panels are read once more, only in case the
   * channel was cut off meanwhile (each read changes nothing when the channel had it all).
   */
  async function sendToHermes({ prompt, selection }, { onStart, onEvent }) {
    await edits.flush();
    const answer = await runCommand({ documentId, prompt, selection });
    if (answer.outcome !== "hermes") return { outcome: answer.outcome, answer };
    const run = answer.hermesRun;
    if (!run?.started) {
      const error = run?.error ?? {};
      throw Object.assign(new Error(error.message ?? "the run did not start"), { code: error.code, hint: error.hint, details: error.details });
    }
    prompts.remember(prompt, run.runId, answer.runId);
    onStart(run);
    try {
      const last = await streamRun(run.runId, run.sessionId, onEvent);
      return { outcome: "hermes", run, last };
    } finally {
      await Promise.all([reload(), refreshReview(), refreshAudit()]);
    }
  }

  /** Brings the Tools panel into view with the switch of `toolName` focused. */
  const showTool = (toolName) => layout.reveal("tools", { focus: `[data-tool="${CSS.escape(toolName)}"] input` });

  const deps = { session, isPageAiError: engine.isPageAiError, pageView };
  contextPanel = createContextPanel($("#context-panel"), { ...deps, onPick: () => commandPanel?.refresh() });
  auditPanel = createAuditPanel($("#audit-panel"), { documentId });
  reviewPanel = createReviewPanel($("#review-panel"), {
    documentId,
    canDecide: may.accept,
    prompts,
    engine,
    showTool,
    onWrite: reload,
    onAction: () => auditPanel.refresh(),
    onCount: (open) => layout.setBadge("review", open),
    authorOf: (sessionId) => suggestionView?.authorOf(sessionId) ?? null,
  });
  // The profile controls (tools, review mode) act on the open page's workspace: its profile is the one
  // this page's commands, tool calls and runs obey.
  const toolsPanel = createToolsPanel($("#tools-panel"), {
    workspaceId: page.workspaceId,
    canChange: may.changeProfile,
    onProfile: (profile) => commandPanel?.showProfile(profile),
  });
  commandPanel = createCommandPanel($("#command-panel"), {
    ...deps,
    vocabulary: engine.vocabulary,
    mintIdempotencyKey: engine.mintIdempotencyKey,
    selection: () => contextPanel.picked(),
    revealPreview: layout.isWide,
    showTool,
    showBlock: (blockId) => {
      layout.reveal("page");
      pageView.reveal(blockId);
    },
    apply,
    sendToHermes,
    stopRun: (run) => abortRun(run.runId, { documentId, sessionId: run.sessionId }),
    // The review mode is the stored profile's: what the preview shows is what the server and Hermes obey.
    onMode: (reviewMode) => toolsPanel.save({ reviewMode }),
    canChangeMode: may.changeProfile,
    canDecide: may.accept,
  });
  refreshContext();
  // The page and its panels' first reads were answered in whatever order the server took them: the channel
  // resumes from the oldest of their positions, so whatever was committed after any of them is replayed here
  // (a page change this page already has makes the client read the page again, then a second hello reads the
  // panels again). Opened before the panels take those answers.
  const isOpen = (session) => engine.vocabulary.openReviewStates.includes(session?.state);
  let hellos = 0;
  connectLiveStatus($("#live-status"), {
    documentId,
    session: edits.live(),
    after: await firstReadsSeq(),
    onEvent(message, applied) {
      // Anything past the first hello may move a panel: what was read ahead and not taken yet is read anew.
      if (message.kind !== "hello" || hellos > 0) endReadsAhead();
      switch (message.kind) {
        case "hello":
          // Back after a cut: what the replay did not carry (a snapshot skips review updates) is read again.
          if (hellos++ > 0 || message.hello.snapshot) void Promise.all([refreshReview(), refreshAudit(), refreshSuggestions()]);
          break;
        case "page.changed":
          // The page followed already (edits.live() applied it; the audit log follows the session). The
          // blocks a change made elsewhere wrote light up for a moment, so the eye finds them.
          // A write can make a pending suggestion stale, or be one accepted.
          void refreshSuggestions();
          if (!applied?.applied) break;
          for (const { blockId } of message.change.blocks) if (!applied.mine?.has(blockId)) pageView.flash(blockId);
          break;
        case "snapshot":
          break;
        case "profile.changed":
          // The workspace profile changed (in another tab, or by another owner): the review mode switch and
          // the tool toggles show it, and the manifest is read again (not for this tab's own store).
          toolsPanel.follow(message.profile);
          break;
        case "tool.event":
          commandPanel.toolEvent(message.event);
          void refreshAudit();
          break;
        case "review.updated":
          // A proposal that now waits for review is the one to show.
          void refreshReview(isOpen(message.session) ? message.session.sessionId : undefined);
          void refreshSuggestions();
          void refreshAudit();
          break;
        case "refetch":
          // Too large to send: the client read the page again for a page change; a review session is read here.
          if (message.refetch.skipped === "review.updated") void refreshReview(message.refetch.reviewSessionId);
          void refreshSuggestions();
          void refreshAudit();
          break;
      }
    },
  });
  await Promise.all([toolsPanel.load(), reviewPanel.refresh(), auditPanel.refresh(), refreshSuggestions()]);
  commandPanel.refresh();
  // What was read ahead and not taken is dropped: a later read asks the server again.
  endReadsAhead();
  document.body.dataset.state = "ready";
  opened();
}

/**
 * `fn` run one call at a time: a call while one runs waits for it, and the calls made meanwhile fold into
 * one more run (with the newest arguments that name something). Failures are logged, not thrown.
 */
function serial(fn) {
  let running = null;
  let next = null;
  const start = (args) => {
    running = Promise.resolve()
      .then(() => fn(...args))
      .catch((error) => console.warn(error))
      .finally(() => {
        running = null;
        if (!next) return;
        const { args: queued, resolve } = next;
        next = null;
        resolve(start(queued));
      });
    return running;
  };
  return (...args) => {
    if (!running) return start(args);
    if (!next) {
      let resolve;
      const promise = new Promise((r) => (resolve = r));
      next = { args, promise, resolve };
    } else if (args[0] !== undefined || next.args[0] === undefined) next.args = args;
    return next.promise;
  };
}

function pill(text, kind = "", id = undefined) {
  return h("span", { class: `pill ${kind}`, id }, text);
}

/** The one message a page that cannot load shows (the panels would have nothing to work on). */
function showFatal(error) {
  document.body.dataset.state = "error";
  // The server's code when it answered one; otherwise a state of this page (no answer, or a browser the
  // demo cannot start in), said in words with no code.
  const code = typeof error?.code === "string" ? error.code : null;
  const fromServer = error instanceof ApiError || code !== null;
  const words = fromServer ? errorWords(error, { documentId }) : { text: "The demo could not start in this browser.", hint: String(error?.message ?? error) };
  const missing = code === "mnote_document_not_found";
  $("#doc-title").textContent = missing ? "Not found" : "Unavailable";
  replace($("#doc-meta"));
  // No page, nothing to hear: the live indicator would say "Connecting…" for ever.
  $("#live-status").hidden = true;
  replace(
    $("#page-blocks"),
    h(
      "div",
      { class: "message message-error fatal", id: "fatal-error", role: "alert" },
      h("h1", { class: "fatal-title" }, words.text),
      words.hint ? h("p", { class: "error-hint" }, words.hint) : null,
      missing ? createOffer() : null,
      documentId !== "welcome" ? h("p", {}, h("a", { class: "fatal-link", href: "/" }, "Open the welcome page")) : null,
      code ? h("p", { class: "error-code" }, `Error code: ${code}`) : null,
    ),
  );
  $("#page-blocks").removeAttribute("aria-busy");
}

/**
 * A missing page can be made here: a button that stores a page of that name (its title as a heading, then an
 * empty paragraph to type in) and opens it. The server decides who may: a refusal is shown in its words.
 */
function createOffer() {
  const status = h("p", { class: "error-hint", id: "create-status", role: "status" });
  const button = h(
    "button",
    {
      type: "button",
      class: "primary",
      id: "create-page",
      onclick: async () => {
        button.disabled = true;
        status.textContent = "Creating…";
        try {
          const { mintBlockId } = await loadEngine();
          const blocks = [
            { blockId: mintBlockId(), type: "heading", text: documentId, attrs: { level: 1 } },
            { blockId: mintBlockId(), type: "paragraph", text: "" },
          ];
          await createDocument(documentId, { title: documentId, blocks });
          location.reload();
        } catch (error) {
          button.disabled = false;
          const words = error instanceof ApiError ? errorWords(error, { documentId }) : { text: String(error?.message ?? error) };
          status.textContent = `The page could not be created: ${words.text}`;
        }
      },
    },
    `Create “${documentId}”`,
  );
  return h("p", { class: "fatal-actions" }, button, status);
}

main().catch((error) => {
  showFatal(error);
  console.error(error);
});
