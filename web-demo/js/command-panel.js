// The command box. While the user types, every keystroke is routed by the WASM router and, when the route
// is direct, dry-run by the WASM executor: the decision, what the change does, the diff (word by word for
// Latin text, character by character for CJK) and the risk update with no request. When the command goes to
// Hermes instead, the box says why in words ("「火星」 is not on this page", the repeated matches marked in
// the page and how to ask for all of them). Enter applies (or sends), Shift+Enter adds a line; when the box
// has just said the command's text or block is not on the page, Enter takes its suggestion (the nearest
// text) instead and starts no model run (Send to Hermes stays a click away). Apply sends
// the command to the server, which routes it again with the same core and writes it; Send to Hermes starts
// a Hermes run on the server and streams it into the run view (js/hermes-run.js), where Stop or Esc ends it.

import { describeOperation, describeOperations } from "./describe.js";
import { diffSpans } from "./diff-view.js";
import { h, replace } from "./dom.js";
import { explainRoute } from "./explain.js";
import { createRunView } from "./hermes-run.js";
import { HELD_FOR_DECIDERS, OWNER_ONLY, errorWords, intentLabel, quoted, reviewModeWords, toolLabel } from "./labels.js";

// The router's reasons after which Enter starts no Hermes run: the box has just said that what the command
// names is not on this page: its text (`match_not_found`, usually a typo, with the nearest text offered)
// or its block (`target_not_found`: no such block, nothing selected, the to-do already checked). A model
// run would look for what the person can see is not there, so Enter takes the box's suggestion or does
// nothing, and Send to Hermes stays available by its button. Every other reason is Enter's to send: the
// text is on the page (repeated, locked, outside the selection: a model may still work out which one or
// read it), the tool or the page is closed to shortcuts (Hermes can still read and answer), or the command
// needs a model (a question, an open request, something the shortcuts cannot do).
const NOT_ON_PAGE = new Set(["match_not_found", "target_not_found"]);

const EXAMPLES = [
  { label: "CJK replace", prompt: "把「第一版草稿」改成「初稿」" },
  { label: "English replace", prompt: 'replace "numbers check" with "finance review"' },
  { label: "Type change", prompt: "把第二段改成引用" },
  { label: "Check a to-do", prompt: "把最后一个待办勾上" },
  { label: "Delete", prompt: "删除最后一段" },
  { label: "Ambiguous", prompt: "把「第一版」改成「第二版」" },
  { label: "Open request", prompt: "帮我把这一页润色得更专业" },
];

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ session: () => object, isPageAiError: (e: unknown) => boolean, pageView: object,
 *   vocabulary: object, selection: () => string[], mintIdempotencyKey: () => string,
 *   revealPreview: () => boolean, showTool: (toolName: string) => void, showBlock: (blockId: string) => void,
 *   apply: (command: {prompt: string, mode: string, selection: string[]}) => Promise<{outcome: string, page: object | null}>,
 *   sendToHermes: (command: {prompt: string, selection: string[]}, on: {onStart: Function, onEvent: Function}) => Promise<object>,
 *   stopRun: (run: {runId: string, sessionId: string}) => Promise<void>,
 *   onMode: (reviewMode: string) => void, canChangeMode?: boolean, canDecide?: boolean }} deps `onMode`
 *   stores a review mode the user picked; `canChangeMode` is whether they may (an owner; for others the
 *   modes are shown, off); `canDecide` whether they may accept what they hold (a viewer may not);
 *   `revealPreview` says whether scrolling the page to a previewed block is fine (it moves no input)
 */
export function createCommandPanel(root, deps) {
  const { session, isPageAiError, pageView, vocabulary, selection, apply, sendToHermes, onMode, canChangeMode = true, canDecide = true } = deps;
  // `tools` is the stored profile's tool settings: the router's hints leave disabled tools out, as the server's do.
  const state = { prompt: "", reviewMode: "yolo", tools: { disabled: [] }, route: null, preview: null, explained: null, status: null, busy: false };

  const input = h("textarea", {
    id: "command-input",
    class: "command-input",
    rows: 2,
    placeholder: "Type a command: 把「A」改成「B」, replace \"A\" with \"B\", 删除第二段 …",
    autocomplete: "off",
    spellcheck: "false",
    "aria-label": "Command",
    "aria-describedby": "command-keys",
    oninput: (e) => {
      state.prompt = e.target.value;
      state.status = null;
      compute();
    },
    onkeydown: (e) => {
      // Enter applies; Shift+Enter is a new line. Never while an input method composes (CJK typing).
      if (e.key !== "Enter" || e.shiftKey || e.isComposing || e.keyCode === 229) return;
      e.preventDefault();
      onApply();
    },
  });
  const keys = h("p", { class: "command-keys", id: "command-keys" });
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
      {
        type: "button",
        class: "segment",
        "data-mode": mode,
        disabled: !canChangeMode,
        title: canChangeMode ? reviewModeWords(mode).hint : `${reviewModeWords(mode).hint} ${OWNER_ONLY}`,
        onclick: () => setMode(mode),
      },
      reviewModeWords(mode).label,
    ),
  );
  const selectionRow = h("div", { class: "command-selection", id: "command-selection", hidden: true });
  const decision = h("div", { class: "decision", id: "command-decision", "aria-live": "polite" });
  const diff = h("div", { class: "command-diff", id: "command-diff" });
  const footer = h("div", { class: "command-footer" });
  const runRoot = h("section", { class: "hermes-run", id: "hermes-run", hidden: true, "aria-live": "polite" });
  const runView = createRunView(runRoot, { vocabulary, onStop: deps.stopRun, onChange: () => paint(0) });

  replace(
    root,
    h(
      "header",
      { class: "panel-head" },
      h("div", {}, h("h2", {}, "Command"), h("p", { class: "subtle" }, "Routed and previewed as you type")),
      h("span", { class: "badge badge-wasm", title: "Routing and the dry-run run in your browser; no request" }, "WASM · no request"),
    ),
    input,
    keys,
    examples,
    h(
      "div",
      { class: "command-mode" },
      h("span", { class: "field-label", id: "review-mode-label" }, "Review mode"),
      h("div", { class: "segmented segmented-modes", id: "review-mode", role: "group", "aria-labelledby": "review-mode-label" }, modeButtons),
    ),
    selectionRow,
    decision,
    diff,
    footer,
    runRoot,
  );

  // Esc stops a running Hermes run, wherever the focus is.
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && runView.active()) {
      e.preventDefault();
      runView.stop();
    }
  });

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
    state.route = state.preview = state.error = state.explained = null;
    if (!state.prompt.trim()) {
      pageView.showPreview(null);
      pageView.highlight(null);
      return paint(0);
    }
    const profile = { reviewMode: state.reviewMode, tools: state.tools };
    const started = performance.now();
    try {
      state.route = session().route(state.prompt, { profile, selection: picked });
      const call = state.route.recommendedToolCall;
      if (call) state.preview = session().preview(call, { profile });
      else state.explained = explainRoute(state.route, { prompt: state.prompt, selection: picked, facts: (text) => matchFacts(text, picked, profile) });
    } catch (error) {
      if (!isPageAiError(error)) throw error;
      state.error = error;
    }
    paint(performance.now() - started);
    // On a phone the page is not beside the command box: scrolling it would move the input away.
    pageView.showPreview(state.preview, { reveal: deps.revealPreview() });
    pageView.highlight(state.explained?.highlight ?? null);
  }

  /**
   * The executor's facts about `text` on this page: a dry-run of a replace of it answers where it is
   * ambiguous (count and matches) or what is nearest when it is missing. Null when the dry-run passes.
   */
  function matchFacts(text, picked, profile) {
    if (!text) return null;
    const args = {
      documentId: session().documentId,
      baseRevision: session().revision,
      operations: [{ op: "replace", matchText: text, content: text }],
      dryRun: true,
      idempotencyKey: deps.mintIdempotencyKey(),
      ...(picked.length ? { allowedTargetBlockIds: picked } : {}),
    };
    try {
      session().preview({ toolName: "mnote.doc.apply_block_ops", args }, { profile });
      return null;
    } catch (error) {
      if (!isPageAiError(error)) throw error;
      return error.details ?? null;
    }
  }

  function paint(ms) {
    const { route, error } = state;
    root.dataset.status = error ? "error" : !route ? "empty" : route.requiresHermesRun ? "hermes" : "direct";
    root.dataset.intent = route?.intent ?? "";
    root.dataset.risk = route?.risk ?? "";
    paintKeys();
    if (!route && !error) {
      replace(decision, h("p", { class: "decision-empty" }, "Try an example above, or type your own command. Nothing is sent until you apply."));
      replace(diff);
      replace(footer, status(), runView.active() ? actions(ms) : null);
      return;
    }
    if (error) {
      const words = errorWords(error);
      replace(decision, h("div", { class: "message message-error" }, h("div", { class: "error-message" }, words.text), h("div", { class: "error-hint" }, words.hint), error.code ? h("div", { class: "error-code" }, error.code) : null));
      replace(diff);
      replace(footer, status(), actions(ms));
      return;
    }
    replace(decision, route.requiresHermesRun ? hermesDecision(route) : directDecision(route));
    replace(diff, state.preview ? previewView(state.preview) : null);
    replace(footer, status(), actions(ms));
  }

  function paintKeys() {
    const direct = state.route && !state.route.requiresHermesRun && state.preview;
    const verb = runView.active()
      ? null
      : direct
        ? holds() ? "holds it for review" : "applies"
        : notOnPage()
          ? correction() ? `uses ${quoted(state.explained.replaceWith.to)}` : "sends nothing"
          : state.route?.requiresHermesRun ? "sends to Hermes" : "applies";
    const newLine = [h("kbd", {}, "Shift"), "+", h("kbd", {}, "Enter"), " new line"];
    replace(
      keys,
      verb ? [h("kbd", {}, "Enter"), ` ${verb} · `, newLine] : [h("kbd", {}, "Esc"), " stops Hermes"],
      verb && notOnPage() ? " · Send to Hermes by its button" : null,
    );
  }

  /**
   * Whether the server will hold the direct command's write: the router says so for the profile and the
   * risk, and the preview (the session previews for the person's role) says so for a viewer.
   */
  function notOnPage() {
    return Boolean(state.route?.requiresHermesRun && NOT_ON_PAGE.has(state.route.reasonCode));
  }

  /** The box's own rewrite of a command it explained as not on the page: the nearest text instead. */
  function correction() {
    const fix = state.explained?.replaceWith;
    return fix ? state.prompt.replace(fix.from, fix.to) : null;
  }

  function holds() {
    return Boolean(state.route?.requiresReview || state.preview?.blocked);
  }

  function directDecision(route) {
    const what = describeOperations(route.recommendedToolCall?.args?.operations ?? [], intentLabel(route.intent));
    return [
      h(
        "div",
        { class: "decision-head" },
        h("span", { class: "route-label route-direct", id: "decision-route" }, "Instant shortcut"),
        h("span", { class: "intent", id: "decision-intent", "data-kind": what.kind }, what.label),
        h("span", { class: `risk risk-${route.risk}`, id: "decision-risk", title: "Risk of the write" }, `${route.risk} risk`),
        h("span", { class: "confidence", title: "How sure the router is of its reading" }, `${Math.round(route.confidence * 100)}% sure`),
      ),
      h("p", { class: "decision-reason", id: "decision-reason" }, what.sentence),
      h(
        "div",
        { class: "decision-facts" },
        fact("Dry run", "passed in your browser", "ok"),
        fact("Review", holds() ? (canDecide ? "needs your review" : "needs an editor's review") : "applies directly", holds() ? "warn" : "ok"),
      ),
    ];
  }

  function hermesDecision(route) {
    const why = state.explained;
    const start = route.toolHint?.startWith?.toolName;
    return [
      h("div", { class: "decision-head" }, h("span", { class: "route-label route-hermes", id: "decision-route", "data-reason": why.code }, "Goes to Hermes")),
      h("p", { class: "decision-reason", id: "decision-reason" }, why.headline),
      why.detail ? h("p", { class: "decision-detail", id: "decision-detail" }, why.detail) : null,
      why.hint || why.say
        ? h(
            "p",
            { class: "decision-hint", id: "decision-hint" },
            why.hint,
            why.say ? [" ", h("code", { class: "say" }, why.say), "."] : null,
            why.after ? ` ${why.after}` : null,
          )
        : null,
      suggestions(why),
      h(
        "div",
        { class: "decision-facts" },
        fact("Hermes' writes", route.requiresReview ? "wait for your review" : "apply directly", route.requiresReview ? "warn" : "ok"),
        start ? fact("Hermes starts with", toolLabel(start), "") : null,
      ),
    ];
  }

  /** Buttons that rewrite the command: the nearest text for a missing one, the "all" form for a repeated one. */
  function suggestions(why) {
    const buttons = [];
    if (why.replaceWith) {
      const { from, to } = why.replaceWith;
      // The default for a command that is not on the page: Enter does what this button does.
      buttons.push(h("button", { type: "button", class: `${notOnPage() ? "primary" : "ghost"} small`, id: "decision-use", onclick: () => setPrompt(state.prompt.replace(from, to)) }, `Use ${quoted(to)}`));
    }
    if (why.tryPrompt) buttons.push(h("button", { type: "button", class: "ghost small", id: "decision-try", onclick: () => setPrompt(why.tryPrompt) }, `Try ${why.tryPrompt}`));
    if (why.tool) buttons.push(h("button", { type: "button", class: "ghost small", id: "decision-tool", onclick: () => deps.showTool(why.tool) }, "Open Tools"));
    const first = why.highlight?.blockIds?.[0];
    if (first) buttons.push(h("button", { type: "button", class: "ghost small", id: "decision-show", onclick: () => deps.showBlock(first) }, "Show in the page"));
    return buttons.length ? h("div", { class: "decision-actions" }, buttons) : null;
  }

  function previewView(result) {
    const changes = result.changedBlocks.length;
    return [
      h(
        "div",
        { class: "field-label diff-head" },
        `Preview · ${changes} block${changes === 1 ? "" : "s"} changed`,
        result.blocked ? h("span", { class: "blocked", title: "The server will hold this write until you accept it in Review" }, "held for review") : null,
      ),
      result.diff.map((d) => {
        const change = result.changedBlocks.find((c) => c.blockId === d.blockId);
        // The operations on this block; a replace without a blockId acts wherever its text is.
        const ops = result.operations.filter((o) => o.blockId === d.blockId || o.block?.blockId === d.blockId);
        const shown = ops.length ? ops : result.operations.filter((o) => o.op === "replace" && !o.blockId);
        const what = [...new Set(shown.map((o) => describeOperation(o).label))].join(" + ");
        const textChanged = d.inline.some((s) => s.tag !== "equal");
        return h(
          "div",
          { class: `diff-block diff-${change?.op ?? "update"}`, "data-block-id": d.blockId },
          h("div", { class: "diff-block-head" }, h("code", {}, d.blockId), h("span", {}, what || change?.op || "")),
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
    const timing = h("span", { class: "timing", id: "command-timing", title: "route + dry-run, in WASM" }, ms ? `${ms < 1 ? ms.toFixed(2) : ms.toFixed(1)} ms · local` : "");
    if (runView.active()) {
      return h(
        "div",
        { class: "command-actions" },
        timing,
        h("button", { type: "button", class: "danger", id: "command-stop", onclick: () => runView.stop(), title: "Stops the Hermes run (Esc)" }, "Stop"),
      );
    }
    const label = holds() ? "Hold for review" : "Apply";
    return h(
      "div",
      { class: "command-actions" },
      timing,
      direct
        ? h("button", { type: "button", class: "primary", id: "command-apply", disabled: state.busy, onclick: onApply }, state.busy ? "Sending…" : label)
        : h("button", { type: "button", class: notOnPage() ? "ghost" : "primary", id: "command-hermes", disabled: state.busy || !state.route, onclick: onHermes }, state.busy ? "Sending…" : "Send to Hermes"),
    );
  }

  function status() {
    if (!state.status) return null;
    const { kind, text } = state.status;
    return h("div", { class: `command-status status-${kind}`, id: "command-status", role: "status" }, text);
  }

  async function onApply() {
    const { route, preview } = state;
    if (notOnPage()) {
      const fixed = correction();
      if (fixed) setPrompt(fixed);
      return;
    }
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
        state.status = { kind: "ok", text: canDecide ? "Held for review: accept or reject it in the Review panel" : HELD_FOR_DECIDERS };
        input.value = state.prompt = "";
      } else {
        state.status = { kind: "error", text: "The server read this command differently, so nothing was written. Try again." };
      }
    } catch (error) {
      const words = errorWords(error);
      state.status = { kind: "error", text: `${words.text} ${words.hint}`.trim() };
    } finally {
      state.busy = false;
    }
    compute();
  }

  async function onHermes() {
    if (state.busy || runView.active() || !state.route?.requiresHermesRun) return;
    const prompt = state.prompt;
    state.busy = true;
    state.status = null;
    runView.begin(prompt);
    try {
      const done = await sendToHermes({ prompt, selection: selection() }, { onStart: (run) => runView.started(run), onEvent: (e) => runView.event(e) });
      if (done.outcome !== "hermes") {
        // Not an error of anyone's: the server chose the shortcut. Words only, no code.
        runView.end({ status: "failed", error: { code: null, message: "The server ran this command as a shortcut instead; nothing was sent to Hermes." } });
      } else {
        const end = done.last;
        const status = end.event === "run.completed" ? "completed" : end.event === "run.cancelled" ? "cancelled" : "failed";
        // Hermes' own run.failed carries its message, not one of mnote's codes: shown in its words.
        const error = end.event === "run.failed" ? { code: end.error?.code ?? null, message: end.error?.message ?? String(end.error ?? "") } : null;
        runView.end({ status, text: end.event === "run.completed" && typeof end.output === "string" ? end.output : undefined, error });
      }
    } catch (error) {
      runView.end({ status: "failed", error: { code: error.code ?? null, message: error.message, hint: error.hint, unanswered: error.unanswered } });
    } finally {
      state.busy = false;
    }
    compute();
  }

  return {
    refresh: compute,
    showProfile,
    /** One mnote tool event from the live channel: the run it belongs to shows the call. */
    toolEvent: (event) => runView.toolEvent(event),
  };
}

/** At most 120 characters (code points), for unchanged text shown for context. */
function clip(text) {
  const chars = [...text];
  return chars.length > 120 ? `${chars.slice(0, 120).join("")}…` : text;
}

function fact(label, value, kind) {
  return h("div", { class: `fact ${kind ? `fact-${kind}` : ""}` }, h("span", {}, label), h("strong", {}, value));
}
