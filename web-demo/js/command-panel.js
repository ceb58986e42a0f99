// The command box. While the user types, every keystroke is routed by the WASM router and, when the route
// is direct, dry-run by the WASM executor: the decision, the diff (inline, per character, so CJK reads as
// precisely as English) and the risk update with no request. Apply sends the command to the server, which
// routes it again with the same core and writes it; Send to Hermes starts a Hermes run on the server and
// streams its answer and tool events here as they arrive.

import { diffSpans } from "./diff-view.js";
import { h, replace } from "./dom.js";
import { intentLabel, reasonLabel, reviewModeWords } from "./labels.js";

const EXAMPLES = [
  { label: "CJK replace", prompt: "把「第一版草稿」改成「初稿」" },
  { label: "English replace", prompt: 'replace "numbers check" with "finance review"' },
  { label: "Type change", prompt: "把第二段改成引用" },
  { label: "Delete", prompt: "删除最后一段" },
  { label: "Ambiguous", prompt: "把「第一版」改成「第二版」" },
  { label: "Open request", prompt: "帮我把这一页润色得更专业" },
];

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ session: () => object, isPageAiError: (e: unknown) => boolean, pageView: object,
 *   vocabulary: { reviewModes: string[] }, selection: () => string[],
 *   apply: (command: {prompt: string, mode: string, selection: string[]}) => Promise<{outcome: string, page: object | null}>,
 *   sendToHermes: (command: {prompt: string, selection: string[]}, onEvent: (event: object) => void) => Promise<object>,
 *   onMode: (reviewMode: string) => void }} deps `onMode` stores a review mode the user picked
 */
export function createCommandPanel(root, { session, isPageAiError, pageView, vocabulary, selection, apply, sendToHermes, onMode }) {
  // `tools` is the stored profile's tool settings: the router's hints leave disabled tools out, as the server's do.
  const state = { prompt: "", reviewMode: "yolo", tools: { disabled: [] }, route: null, preview: null, status: null, busy: false, run: null };

  const input = h("textarea", {
    id: "command-input",
    class: "command-input",
    rows: 2,
    placeholder: "Type a command: 把「A」改成「B」, replace \"A\" with \"B\", 删除第二段 …",
    autocomplete: "off",
    spellcheck: "false",
    "aria-label": "Command",
    oninput: (e) => {
      state.prompt = e.target.value;
      state.status = null;
      compute();
    },
    onkeydown: (e) => {
      if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
        e.preventDefault();
        onApply();
      }
    },
  });
  const examples = h(
    "div",
    { class: "suggestions", id: "command-examples" },
    EXAMPLES.map((x) =>
      h("button", { type: "button", class: "suggestion", title: x.prompt, onclick: () => setPrompt(x.prompt) }, x.label),
    ),
  );
  // One button per review mode core has, in core's order.
  const modeButtons = vocabulary.reviewModes.map((mode) =>
    h(
      "button",
      { type: "button", class: "segment", "data-mode": mode, title: reviewModeWords(mode).hint, onclick: () => setMode(mode) },
      reviewModeWords(mode).label,
    ),
  );
  const selectionRow = h("div", { class: "command-selection", id: "command-selection", hidden: true });
  const decision = h("div", { class: "decision", id: "command-decision", "aria-live": "polite" });
  const diff = h("div", { class: "command-diff", id: "command-diff" });
  const footer = h("div", { class: "command-footer" });
  // The last Hermes run: its prompt, streamed answer, tool events and end. Kept across keystrokes.
  const runView = h("section", { class: "hermes-run", id: "hermes-run", hidden: true, "aria-live": "polite" });

  replace(
    root,
    h(
      "header",
      { class: "panel-head" },
      h("div", {}, h("h2", {}, "Command"), h("p", { class: "subtle" }, "Routed and previewed as you type")),
      h("span", { class: "badge badge-wasm", title: "Routing and the dry-run run in your browser; no request" }, "WASM · no request"),
    ),
    input,
    examples,
    h(
      "div",
      { class: "command-mode" },
      h("span", { class: "field-label" }, "Review mode"),
      h("div", { class: "segmented segmented-modes", id: "review-mode", role: "group", "aria-label": "Review mode" }, modeButtons),
    ),
    selectionRow,
    decision,
    diff,
    footer,
    runView,
  );

  function setPrompt(prompt) {
    input.value = prompt;
    state.prompt = prompt;
    state.status = null;
    compute();
    input.focus();
  }

  function setMode(mode) {
    if (mode === state.reviewMode) return;
    state.reviewMode = mode;
    compute();
    onMode(mode);
  }

  /** Takes the stored profile: its review mode and its disabled tools (without storing them again). */
  function showProfile(profile) {
    state.reviewMode = profile.reviewMode ?? state.reviewMode;
    state.tools = profile.tools ?? { disabled: [] };
    compute();
  }

  /** Routes and previews the prompt: both in WASM, synchronously, per keystroke. */
  function compute() {
    for (const b of modeButtons) b.setAttribute("aria-pressed", String(b.dataset.mode === state.reviewMode));
    const picked = selection();
    selectionRow.hidden = picked.length === 0;
    replace(
      selectionRow,
      h("span", { class: "subtle" }, "Selection"),
      picked.map((id) => h("span", { class: "chip chip-picked" }, id)),
    );
    state.route = state.preview = state.error = null;
    if (!state.prompt.trim()) {
      pageView.showPreview(null);
      return paint(0);
    }
    const profile = { reviewMode: state.reviewMode, tools: state.tools };
    const started = performance.now();
    try {
      state.route = session().route(state.prompt, { profile, selection: picked });
      const call = state.route.recommendedToolCall;
      if (call) state.preview = session().preview(call, { profile });
    } catch (error) {
      if (!isPageAiError(error)) throw error;
      state.error = error;
    }
    paint(performance.now() - started);
    pageView.showPreview(state.preview);
  }

  function paint(ms) {
    const { route, preview, error } = state;
    root.dataset.status = error ? "error" : !route ? "empty" : route.requiresHermesRun ? "hermes" : "direct";
    root.dataset.intent = route?.intent ?? "";
    root.dataset.risk = route?.risk ?? "";
    if (!route && !error) {
      replace(decision, h("p", { class: "decision-empty" }, "Try an example above, or type your own command. Nothing is sent until you apply."));
      replace(diff);
      replace(footer, status());
      return;
    }
    if (error) {
      replace(decision, h("div", { class: "message message-error" }, h("div", { class: "error-code" }, error.code), h("div", { class: "error-message" }, error.message), h("div", { class: "error-hint" }, error.hint)));
      replace(diff);
      replace(footer, status());
      return;
    }
    const direct = !route.requiresHermesRun;
    replace(
      decision,
      h(
        "div",
        { class: "decision-head" },
        h("span", { class: `route-badge ${direct ? "route-direct" : "route-hermes"}`, id: "decision-route" }, direct ? "Direct shortcut" : "Send to Hermes"),
        h("span", { class: "intent", id: "decision-intent" }, intentLabel(route.intent)),
        h("span", { class: `risk risk-${route.risk}`, id: "decision-risk", title: "Risk of the write" }, `${route.risk} risk`),
        h("span", { class: "confidence", title: "How sure the router is of its reading" }, `${Math.round(route.confidence * 100)}%`),
      ),
      h("p", { class: "decision-reason", id: "decision-reason" }, route.reason),
      h(
        "div",
        { class: "decision-facts" },
        direct
          ? fact("Review", route.requiresReview ? "needs your review" : "applies directly", route.requiresReview ? "warn" : "ok")
          : fact("Hermes' writes", route.requiresReview ? "wait for your review" : "apply directly", route.requiresReview ? "warn" : "ok"),
        route.reasonCode ? fact("Why Hermes", reasonLabel(route.reasonCode), "") : null,
        route.toolHint?.candidateBlockIds.length ? fact("Candidates", route.toolHint.candidateBlockIds.join(", "), "mono") : null,
        route.toolHint?.startWith ? fact("Hermes starts with", route.toolHint.startWith.toolName, "mono") : null,
      ),
    );
    replace(diff, preview ? previewView(preview) : null);
    replace(footer, status(), actions(ms));
  }

  function previewView(result) {
    const changes = result.changedBlocks.length;
    return [
      h(
        "div",
        { class: "field-label diff-head" },
        `Preview · ${changes} block${changes === 1 ? "" : "s"} changed`,
        result.blocked ? h("span", { class: "blocked", title: result.blockedReason }, "held for review") : null,
      ),
      result.diff.map((d) => {
        const change = result.changedBlocks.find((c) => c.blockId === d.blockId);
        // A type change shows in the operations, not in the text.
        const retyped = result.operations.findLast((o) => o.op === "update" && o.blockId === d.blockId && o.type);
        const textChanged = d.inline.some((s) => s.tag !== "equal");
        return h(
          "div",
          { class: `diff-block diff-${change?.op ?? "update"}`, "data-block-id": d.blockId },
          h(
            "div",
            { class: "diff-block-head" },
            h("code", {}, d.blockId),
            h("span", {}, [change?.op ?? "", retyped ? ` · becomes ${retyped.type.replaceAll("_", " ")}` : ""]),
          ),
          h(
            "p",
            { class: "inline-diff" },
            textChanged ? diffSpans(d.inline, { elide: true }) : [clip(change?.after ?? ""), h("span", { class: "subtle" }, "  (text unchanged)")],
          ),
        );
      }),
    ];
  }

  function actions(ms) {
    const direct = state.route && !state.route.requiresHermesRun && state.preview;
    const label = state.route?.requiresReview ? "Hold for review" : "Apply";
    return h(
      "div",
      { class: "command-actions" },
      h("span", { class: "timing", id: "command-timing", title: "route + dry-run, in WASM" }, ms ? `${ms < 1 ? ms.toFixed(2) : ms.toFixed(1)} ms · local` : ""),
      direct
        ? h("button", { type: "button", class: "primary", id: "command-apply", disabled: state.busy, onclick: onApply, title: state.route?.requiresReview ? "Sends the change to the server, which holds it in the Review panel (⌘/Ctrl+Enter)" : "Writes the previewed change to the document (⌘/Ctrl+Enter)" }, state.busy ? "Sending…" : label)
        : h(
            "button",
            {
              type: "button",
              class: "primary",
              id: "command-hermes",
              disabled: state.busy || !state.route,
              onclick: onHermes,
              title: "Starts a Hermes run on this page; the answer streams in below (⌘/Ctrl+Enter)",
            },
            state.busy ? "Sending…" : "Send to Hermes",
          ),
    );
  }

  function status() {
    if (!state.status) return null;
    const { kind, text } = state.status;
    return h("div", { class: `command-status status-${kind}`, id: "command-status", role: "status" }, text);
  }

  async function onApply() {
    const { route, preview } = state;
    if (route?.requiresHermesRun) return onHermes();
    if (state.busy || !route?.recommendedToolCall || !preview) return;
    state.busy = true;
    paint(0);
    try {
      const done = await apply({ prompt: state.prompt, mode: state.reviewMode, selection: selection() });
      if (done.outcome === "applied") {
        state.status = { kind: "ok", text: `Applied · revision ${done.page.revision}` };
        input.value = state.prompt = "";
      } else if (done.outcome === "review") {
        state.status = { kind: "ok", text: "Held for review: accept or reject it in the Review panel" };
        input.value = state.prompt = "";
      } else {
        state.status = { kind: "error", text: `The server routed this differently (${done.outcome}); nothing was written` };
      }
    } catch (error) {
      state.status = { kind: "error", text: `${error.code ?? "apply_failed"}: ${error.message}` };
    } finally {
      state.busy = false;
    }
    compute();
  }

  async function onHermes() {
    if (state.busy || !state.route?.requiresHermesRun) return;
    state.busy = true;
    state.status = null;
    state.run = { prompt: state.prompt, status: "starting", text: "", events: [], error: null };
    paint(0);
    paintRun();
    const onEvent = (event) => {
      const run = state.run;
      if (event.event === "message.delta") run.text += event.delta ?? "";
      else if (event.event === "tool.started") run.events.push({ kind: "started", tool: event.tool, detail: event.preview ?? "" });
      else if (event.event === "tool.completed") {
        const ms = typeof event.duration === "number" ? `${Math.round(event.duration * 1000)} ms` : "";
        run.events.push({ kind: event.error ? "failed" : "completed", tool: event.tool, detail: ms });
      }
      run.status = "streaming";
      paintRun();
    };
    try {
      const done = await sendToHermes({ prompt: state.prompt, selection: selection() }, onEvent);
      if (done.outcome !== "hermes") {
        state.run.status = "failed";
        state.run.error = { code: done.outcome, message: "the server routed this without Hermes; nothing was sent" };
      } else {
        const end = done.last;
        state.run.status = end.event === "run.completed" ? "completed" : end.event === "run.cancelled" ? "cancelled" : "failed";
        if (end.event === "run.completed" && typeof end.output === "string") state.run.text = end.output;
        if (end.event === "run.failed") state.run.error = { code: end.error?.code ?? "run_failed", message: end.error?.message ?? String(end.error ?? "") };
      }
    } catch (error) {
      state.run.status = "failed";
      state.run.error = { code: error.code ?? "hermes_failed", message: error.message, hint: error.hint };
    } finally {
      state.busy = false;
    }
    paintRun();
    compute();
  }

  function paintRun() {
    const run = state.run;
    runView.hidden = !run;
    if (!run) return;
    runView.dataset.status = run.status;
    const label = { starting: "Starting…", streaming: "Streaming", completed: "Done", cancelled: "Cancelled", failed: "Failed" }[run.status];
    replace(
      runView,
      h(
        "div",
        { class: "hermes-run-head" },
        h("span", { class: "route-badge route-hermes" }, "Hermes"),
        h("span", { class: "hermes-run-prompt", title: run.prompt }, clip(run.prompt)),
        h("span", { class: `hermes-run-status status-${run.status}`, id: "hermes-status" }, label),
      ),
      run.events.length
        ? h(
            "ul",
            { class: "hermes-events", id: "hermes-events" },
            run.events.map((e) => h("li", { class: `tool-event tool-${e.kind}` }, h("code", {}, e.tool), ` ${e.kind}${e.detail ? ` · ${e.detail}` : ""}`)),
          )
        : null,
      h("p", { class: "hermes-answer", id: "hermes-answer" }, run.text),
      run.error
        ? h(
            "div",
            { class: "message message-error" },
            h("div", { class: "error-code" }, run.error.code),
            h("div", { class: "error-message" }, run.error.message),
            run.error.hint ? h("div", { class: "error-hint" }, run.error.hint) : null,
          )
        : null,
    );
  }

  return { refresh: compute, showProfile };
}

/** At most 120 characters (code points), for unchanged text shown for context. */
function clip(text) {
  const chars = [...text];
  return chars.length > 120 ? `${chars.slice(0, 120).join("")}…` : text;
}

function fact(label, value, kind) {
  return h("div", { class: `fact ${kind ? `fact-${kind}` : ""}` }, h("span", {}, label), h("strong", {}, value));
}
