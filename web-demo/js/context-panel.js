// The context panel: pick a scope, views and a budget; the page is frozen into a
// `mnote.page_ai_context.v1` context by WASM in the browser (no request) and shown with its allowed
// targets, views and continuation.

import { xmlView, jsonView } from "./code-view.js";
import { count, h, replace } from "./dom.js";
import { warningText } from "./labels.js";
import { rovingGroup } from "./roving.js";

const SCOPES = [
  { id: "full", label: "Full", hint: "Every block. Every editable block is a write target." },
  { id: "outline", label: "Outline", hint: "Headings only, each with the size of its section. Read-only: nothing is a target." },
  { id: "block", label: "Block", hint: "One block. Click a block in the page to focus on it." },
  { id: "selection", label: "Selection", hint: "Click blocks to select them. One neighbour on each side comes along as context only." },
  { id: "keyword", label: "Keyword", hint: "Blocks whose text contains the query: case-, width- and CJK-aware." },
];

const VIEWS = [
  { id: "page_xml", label: "Page XML" },
  { id: "text", label: "Text" },
  { id: "json", label: "JSON" },
];

const KEYWORD_SUGGESTIONS = ["Hermes", "第一版", "review", "ｙｏｌｏ"];

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ session: () => object, isPageAiError: (e: unknown) => boolean, pageView: object,
 *   onPick?: () => void }} deps
 */
export function createContextPanel(root, { session, isPageAiError, pageView, onPick = () => {} }) {
  const state = {
    scope: "full",
    picked: [],
    query: "",
    formats: new Set(["page_xml", "text", "json"]),
    budgetOn: false,
    maxChars: 600,
    view: "page_xml",
    // The snapshot's id: the package mints it on the first chunk, and the next chunks keep it.
    contextId: null,
    continuation: null,
    chunk: 1,
    context: null,
    // What the person asked to see in full: "targets" (every chip), "view" (the coloured code view).
    expanded: new Set(),
  };

  // --- Controls ---------------------------------------------------------------------------------------
  const scopeButtons = SCOPES.map((s) =>
    h("button", { type: "button", class: "segment", "data-scope": s.id, onclick: () => setScope(s.id) }, s.label),
  );
  const scopeHint = h("p", { class: "scope-hint", id: "scope-hint" });
  const keywordInput = h("input", {
    id: "keyword-input",
    type: "search",
    class: "text-input",
    placeholder: "Search the page…",
    "aria-label": "Keyword",
    autocomplete: "off",
    spellcheck: "false",
    oninput: (e) => {
      state.query = e.target.value;
      restart();
    },
  });
  const keywordRow = h(
    "div",
    { class: "scope-extra", id: "keyword-row", hidden: true },
    keywordInput,
    h(
      "div",
      { class: "suggestions" },
      KEYWORD_SUGGESTIONS.map((word) =>
        h("button", { type: "button", class: "suggestion", onclick: () => setQuery(word) }, word),
      ),
    ),
  );
  const pickedRow = h("div", { class: "scope-extra picked", id: "picked-row", hidden: true });

  const formatToggles = VIEWS.map((v) =>
    h(
      "label",
      { class: "toggle" },
      h("input", {
        type: "checkbox",
        "data-format": v.id,
        checked: state.formats.has(v.id),
        onchange: (e) => toggleFormat(v.id, e.target),
      }),
      h("span", {}, v.label),
    ),
  );

  const budgetCheck = h("input", {
    id: "budget-enabled",
    type: "checkbox",
    role: "switch",
    "aria-label": "Limit the context to a character budget",
    onchange: (e) => {
      state.budgetOn = e.target.checked;
      budgetInput.disabled = !state.budgetOn;
      restart();
    },
  });
  const budgetInput = h("input", {
    id: "budget-input",
    type: "number",
    class: "text-input number",
    min: 1,
    step: 50,
    value: state.maxChars,
    disabled: true,
    "aria-label": "Budget in characters",
    oninput: (e) => {
      const n = Number.parseInt(e.target.value, 10);
      if (Number.isFinite(n) && n > 0) {
        state.maxChars = n;
        restart();
      }
    },
  });

  // --- Result -----------------------------------------------------------------------------------------
  const stats = h("dl", { class: "stats", id: "context-stats" });
  // The targets are one Tab stop: arrow keys move between them (a page has dozens).
  const targets = h("div", { class: "chips", id: "context-targets" });
  const targetKeys = rovingGroup(targets, { label: "Allowed write targets" });
  const targetsLabel = h("div", { class: "field-label", id: "context-targets-label" }, "Allowed write targets");
  const copyButton = h("button", { type: "button", class: "ghost small", id: "context-copy", onclick: copy }, "Copy");
  const copyStatus = h("span", { class: "copy-status", id: "context-copy-status", role: "status" });
  const chunkBar = h("div", { class: "chunk-bar", id: "context-chunk", hidden: true });
  const viewTabs = h("div", { class: "view-tabs", id: "view-tabs", role: "tablist" });
  const output = h("pre", { class: "code-output", id: "context-output", tabindex: "0" });
  const meta = h("dl", { class: "meta", id: "context-meta" });
  const result = h(
    "div",
    { class: "result", id: "context-result" },
    stats,
    h(
      "div",
      { class: "legend", "aria-hidden": "true" },
      h("span", {}, h("i"), "Write target"),
      h("span", {}, h("i", { class: "in-context" }, ""), "Read only"),
      h("span", {}, h("i", { class: "context-only" }, ""), "Neighbour, context only"),
    ),
    targetsLabel,
    targets,
    chunkBar,
    h("div", { class: "view-head" }, viewTabs, h("div", { class: "copy" }, copyStatus, copyButton)),
    output,
    meta,
  );
  const message = h("div", { class: "message", id: "context-message", hidden: true });

  replace(
    root,
    h(
      "header",
      { class: "panel-head" },
      h("div", {}, h("h2", {}, "Context"), h("p", { class: "subtle" }, "What a model reads before it edits")),
      h("span", { class: "badge badge-wasm", title: "Computed in your browser by the WASM core; no request" }, "WASM · local"),
    ),
    h(
      "div",
      { class: "controls" },
      h("div", { class: "field-label" }, "Scope"),
      h("div", { class: "segmented", id: "scope-tabs", role: "group", "aria-label": "Scope" }, scopeButtons),
      scopeHint,
      keywordRow,
      pickedRow,
      h(
        "div",
        { class: "control-row" },
        h("div", {}, h("div", { class: "field-label" }, "Views"), h("div", { class: "toggles" }, formatToggles)),
        h(
          "div",
          {},
          h("div", { class: "field-label" }, "Budget"),
          h(
            "div",
            { class: "budget" },
            h("label", { class: "switch" }, budgetCheck, h("span", { class: "switch-track" })),
            budgetInput,
            h("span", { class: "subtle" }, "chars"),
          ),
        ),
      ),
    ),
    message,
    result,
  );

  // --- Behaviour --------------------------------------------------------------------------------------
  function setScope(scope) {
    state.scope = scope;
    if (scope === "block") state.picked = state.picked.slice(-1);
    restart();
    onPick();
    if (scope === "keyword") keywordInput.focus();
  }

  function setQuery(word) {
    state.query = word;
    keywordInput.value = word;
    restart();
  }

  function toggleFormat(format, input) {
    if (!input.checked && state.formats.size === 1) {
      input.checked = true; // a context needs at least one view
      return;
    }
    if (input.checked) state.formats.add(format);
    else state.formats.delete(format);
    restart();
  }

  /** A block was clicked in the page while a picking scope is active. */
  function pick(blockId) {
    if (state.scope === "block") {
      state.picked = [blockId];
    } else if (state.scope === "selection") {
      state.picked = state.picked.includes(blockId)
        ? state.picked.filter((id) => id !== blockId)
        : [...state.picked, blockId];
    } else {
      return;
    }
    restart();
    onPick();
  }

  /** Any change of the request starts a new snapshot at its first chunk. */
  function restart() {
    state.contextId = null;
    state.continuation = null;
    state.chunk = 1;
    compute();
  }

  function nextChunk() {
    if (!state.context?.continuation) return;
    state.continuation = state.context.continuation;
    state.chunk += 1;
    compute();
  }

  function firstChunk() {
    state.continuation = null;
    state.chunk = 1;
    compute();
  }

  function scopeOf() {
    switch (state.scope) {
      case "block":
        return state.picked.length ? { type: "block", blockId: state.picked[0] } : null;
      case "selection":
        return state.picked.length ? { type: "selection", blockIds: state.picked } : null;
      case "keyword":
        return state.query.trim() ? { type: "keyword", query: state.query } : null;
      default:
        return { type: state.scope };
    }
  }

  function compute() {
    paintControls();
    const scope = scopeOf();
    if (!scope) {
      state.context = null;
      pageView.showContext(null);
      return showMessage("empty", emptyText());
    }
    const request = {
      scope,
      formats: VIEWS.map((v) => v.id).filter((id) => state.formats.has(id)),
      ...(state.budgetOn ? { budget: { maxChars: state.maxChars } } : {}),
      ...(state.continuation ? { continuation: state.continuation } : {}),
    };
    let context;
    const started = performance.now();
    try {
      context = session().context(request, state.contextId ?? undefined);
    } catch (error) {
      state.context = null;
      pageView.showContext(null);
      if (!isPageAiError(error)) throw error;
      return showMessage("error", [
        h("div", { class: "error-code" }, error.code),
        h("div", { class: "error-message" }, error.message),
        h("div", { class: "error-hint" }, error.hint),
      ]);
    }
    state.context = context;
    state.contextId = context.contextId;
    paintResult(context, performance.now() - started);
    pageView.showContext(context);
  }

  function emptyText() {
    if (state.scope === "keyword") return "Type a word, or pick one of the suggestions.";
    if (state.scope === "block") return "Click a block in the page to focus the context on it.";
    return "Click blocks in the page to select them.";
  }

  function showMessage(kind, content) {
    result.hidden = true;
    message.hidden = false;
    message.className = `message message-${kind}`;
    replace(message, content);
    root.dataset.status = kind;
  }

  function paintControls() {
    for (const b of scopeButtons) b.setAttribute("aria-pressed", String(b.dataset.scope === state.scope));
    scopeHint.textContent = SCOPES.find((s) => s.id === state.scope).hint;
    keywordRow.hidden = state.scope !== "keyword";
    const picking = state.scope === "block" || state.scope === "selection";
    pickedRow.hidden = !picking || state.picked.length === 0;
    replace(
      pickedRow,
      h("span", { class: "subtle" }, state.scope === "block" ? "Block" : `${state.picked.length} selected`),
      state.picked.map((id) => h("span", { class: "chip chip-picked", "data-block-id": id }, id)),
      h("button", { type: "button", class: "ghost small", onclick: () => ((state.picked = []), restart(), onPick()) }, "Clear"),
    );
    pageView.setPickMode(state.scope === "block" ? "one" : state.scope === "selection" ? "many" : null);
    pageView.setPicked(picking ? state.picked : []);
  }

  function paintResult(ctx, ms) {
    message.hidden = true;
    result.hidden = false;
    root.dataset.status = "ready";
    root.dataset.truncated = String(ctx.truncated);
    root.dataset.chunk = String(state.chunk);

    // What this chunk holds: its blocks, and the write targets among them (a budget cuts the page into
    // chunks, while the allowed targets are the whole snapshot's).
    const held = blocksIn(ctx);
    const chunked = ctx.truncated || state.chunk > 1;
    const heldSet = new Set(held);
    const inChunk = ctx.allowedTargetBlockIds.filter((id) => heldSet.has(id));
    const chars = ctx.pageText?.length ?? (ctx.blocks ?? []).reduce((n, b) => n + b.text.length + 1, 0);
    replace(
      stats,
      stat("Blocks", count(held.length), chunked ? "in this chunk" : null),
      stat("Targets", count(chunked ? inChunk.length : ctx.allowedTargetBlockIds.length), chunked ? `of ${count(ctx.allowedTargetBlockIds.length)} in all` : null),
      stat("Characters", chars ? count(chars) : "—"),
      stat("Built in", ms < 1 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(1)} ms`),
    );

    targetsLabel.textContent = chunked ? "Allowed write targets · every chunk" : "Allowed write targets";
    replace(
      targets,
      ctx.allowedTargetBlockIds.length
        ? shown(ctx.allowedTargetBlockIds, MAX_CHIPS, state.expanded.has("targets")).map((id) =>
            h(
              "button",
              { type: "button", class: `chip${chunked && !heldSet.has(id) ? " chip-elsewhere" : ""}`, "data-block-id": id, "data-key": id, onclick: () => pageView.reveal(id) },
              id,
            ),
          )
        : h("span", { class: "subtle" }, ctx.scope === "outline" ? "None: the outline is read-only." : "None in this chunk."),
    );
    const hiddenTargets = ctx.allowedTargetBlockIds.length - shown(ctx.allowedTargetBlockIds, MAX_CHIPS, state.expanded.has("targets")).length;
    if (hiddenTargets > 0) targets.append(showAll(`Show all ${count(ctx.allowedTargetBlockIds.length)}`, "targets", () => (state.expanded.add("targets"), paintResult(ctx, ms))));
    targetKeys.sync();

    chunkBar.hidden = !ctx.truncated && state.chunk === 1;
    const warnings = ctx.warnings.map((w) => h("li", { "data-code": w.code }, warningText(w)));
    replace(
      chunkBar,
      h(
        "div",
        { class: "chunk-head" },
        h("strong", {}, ctx.truncated ? `Chunk ${state.chunk} · budget reached` : `Chunk ${state.chunk} · the last one`),
        h(
          "div",
          { class: "chunk-actions" },
          state.chunk > 1
            ? h("button", { type: "button", class: "ghost small", id: "restart-chunks", onclick: firstChunk }, "Start over")
            : null,
          ctx.truncated
            ? h("button", { type: "button", class: "primary small", id: "next-chunk", onclick: nextChunk }, "Next chunk →")
            : null,
        ),
      ),
      warnings.length ? h("ul", { class: "warnings" }, warnings) : null,
      ctx.continuation ? h("code", { class: "token", title: "The token that fetches the next chunk" }, ctx.continuation) : null,
    );

    const available = VIEWS.filter((v) => viewText(ctx, v.id) !== undefined);
    if (!available.some((v) => v.id === state.view)) state.view = available[0]?.id;
    replace(
      viewTabs,
      available.map((v) =>
        h(
          "button",
          {
            type: "button",
            role: "tab",
            class: "view-tab",
            "data-view": v.id,
            "aria-selected": String(v.id === state.view),
            onclick: () => {
              state.view = v.id;
              paintResult(ctx, ms);
            },
          },
          v.label,
        ),
      ),
    );
    output.dataset.view = state.view;
    // A large view shows its beginning until the person asks for all of it: coloured, a 10,000-block page
    // is some 100,000 elements, and even as plain text it is a megabyte to lay out as the page opens. Copy
    // copies all of it either way.
    const text = viewText(ctx, state.view) ?? "";
    if (text.length <= MAX_VIEW_CHARS || state.expanded.has("view")) {
      replace(output, state.view === "page_xml" ? xmlView(ctx.pageXml) : state.view === "json" ? jsonView(ctx.blocks) : ctx.pageText);
    } else {
      const cut = text.lastIndexOf("\n", MAX_VIEW_CHARS);
      const head = text.slice(0, cut > 0 ? cut : MAX_VIEW_CHARS);
      const more = `Show all ${count(text.length)} characters`;
      replace(output, head, "\n", showAll(more, "view", () => (state.expanded.add("view"), paintResult(ctx, ms))));
    }

    replace(
      meta,
      stat("Revision", ctx.revision),
      stat("Context id", ctx.contextId),
      stat("Conflict key", ctx.conflictDetectionKey),
    );
  }

  /** Copies the view as the package produced it, and says so; when the browser refuses, selects it. */
  let copyTimer = null;
  async function copy() {
    const text = viewText(state.context, state.view);
    if (text === undefined) return;
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      getSelection()?.selectAllChildren(output);
    }
    copyButton.textContent = copied ? "Copied" : "Copy";
    copyStatus.textContent = copied ? "Copied to the clipboard" : "Selected: press Ctrl+C (⌘C) to copy";
    copyButton.dataset.copied = String(copied);
    clearTimeout(copyTimer);
    copyTimer = setTimeout(() => {
      copyButton.textContent = "Copy";
      copyStatus.textContent = "";
      delete copyButton.dataset.copied;
    }, 2_000);
  }

  /** The blocks picked for the `block` and `selection` scopes: the command box's selection. */
  const picked = () => (state.scope === "block" || state.scope === "selection" ? [...state.picked] : []);

  return { pick, picked, refresh: restart };
}

// How much the panel draws at once; the rest is one click away (a 10,000-block page has 10,000 targets).
const MAX_CHIPS = 200;
const MAX_VIEW_CHARS = 20_000;

/** The first `max` of `list`, or all of it once the person asked for all. */
const shown = (list, max, all) => (all || list.length <= max ? list : list.slice(0, max));

/** A button that shows all of `what`: `onclick` remembers that and draws again. */
const showAll = (label, what, onclick) => h("button", { type: "button", class: "ghost small show-all", "data-show-all": what, onclick }, label);

function viewText(ctx, view) {
  if (!ctx) return undefined;
  if (view === "page_xml") return ctx.pageXml;
  if (view === "text") return ctx.pageText;
  return ctx.blocks ? JSON.stringify(ctx.blocks, null, 2) : undefined;
}

function stat(label, value, note = null) {
  return h("div", { class: "stat" }, h("dt", {}, label), h("dd", {}, value, note ? h("small", {}, note) : null));
}

/** The ids of the blocks a context (chunk) holds, context-only neighbours left out. */
function blocksIn(ctx) {
  if (ctx.blocks) return ctx.blocks.filter((b) => !b.contextOnly).map((b) => b.blockId);
  return [...(ctx.pageXml ?? "").matchAll(/<block id="([^"]+)"([^>]*)>/g)].filter((m) => !/context-only="true"/.test(m[2])).map((m) => m[1]);
}
