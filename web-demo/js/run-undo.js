// "Undo this run": every write one Hermes run applied, undone as one write (POST …/runs/{runId}/undo,
// core's review::undo_run), while the changes of everyone else stay. Shown beside a run's applied change in
// the review panel. When a later edit (a person's, another run's) touched a block of the run, the server
// writes nothing and answers a preview: this shows it, names the blocks, and writes only on "Undo anyway".
// The outcome is announced (role=status). What the run undoes and what it may replace is the server's
// answer; this only shows it.

import { undoRun } from "./api.js";
import { diffSpans } from "./diff-view.js";
import { h, replace } from "./dom.js";
import { DECIDERS_ONLY, errorWords, listWords } from "./labels.js";

/** Per run: `{busy, preview, notice}`. Kept here so a repaint of the review panel keeps it. */
const runs = new Map();

const stateOf = (runId) => {
  if (!runs.has(runId)) runs.set(runId, { busy: false, preview: null, notice: null });
  return runs.get(runId);
};

/** Whether `session` is a change an AI run wrote (and so has a run to undo). */
export const undoableRun = (session) =>
  Boolean(session?.runId) && session?.source?.origin !== "user" && (session.state === "applied" || session.state === "reverted");

/**
 * The undo of `session`'s run, as a node (null for a session no run wrote).
 *
 * @param {{ documentId: string, session: object, canDecide: boolean, engine: { mintIdempotencyKey: () => string },
 *   onDone: () => Promise<void> }} deps `onDone` reloads the page and the review panel after the undo wrote
 */
export function runUndoView({ documentId, session, canDecide, engine, onDone }) {
  if (!undoableRun(session)) return null;
  const runId = session.runId;
  const root = h("div", { class: "run-undo", id: "run-undo", "data-run-id": runId });

  async function send(confirmRevision) {
    const state = stateOf(runId);
    if (state.busy) return;
    state.busy = true;
    state.notice = null;
    paint();
    let wrote = false;
    try {
      const body = { idempotencyKey: engine.mintIdempotencyKey() };
      if (confirmRevision !== undefined) body.confirmRevision = confirmRevision;
      const answer = await undoRun(documentId, runId, body);
      if (answer.outcome === "needs_confirm") {
        state.preview = answer;
        const blocks = answer.changedBlockIds;
        state.notice = { kind: "warn", text: `Nothing was written yet: ${listWords(blocks)} changed after the run wrote ${blocks.length === 1 ? "it" : "them"}.` };
      } else {
        state.preview = null;
        const n = answer.result?.changedBlocks?.length ?? 0;
        state.notice = { kind: "ok", text: `Run undone: ${n} block${n === 1 ? "" : "s"} back as before the run · revision ${answer.revision}. Other changes stay.` };
        wrote = true;
      }
    } catch (error) {
      const words = errorWords(error);
      state.notice = { kind: "error", text: `Undo failed: ${words.text} ${words.hint}`.trim() };
    } finally {
      state.busy = false;
    }
    paint();
    if (wrote) await onDone();
  }

  function cancel() {
    const state = stateOf(runId);
    state.preview = null;
    state.notice = { kind: "ok", text: "Kept as is: nothing was written." };
    paint();
  }

  function previewView(answer) {
    const blocks = answer.changedBlockIds;
    const them = blocks.length === 1 ? "it" : "them";
    return h(
      "div",
      { class: "message message-warn", id: "run-undo-preview", "data-revision": String(answer.revision) },
      h("p", {}, `A later edit changed ${listWords(blocks)} after this run wrote ${them}. Undoing the run puts ${them} back as ${blocks.length === 1 ? "it was" : "they were"} before the run, replacing that edit:`),
      answer.preview
        ? h(
            "div",
            { class: "review-blocks" },
            answer.preview.diff.map((d) =>
              h("div", { class: "review-block", "data-block-id": d.blockId }, h("code", {}, d.blockId), h("p", { class: "inline-diff" }, diffSpans(d.inline, { elide: true }))),
            ),
          )
        : h("p", { class: "error-message" }, errorWords(answer.previewError).text),
      h(
        "div",
        { class: "review-actions" },
        h("button", { type: "button", class: "primary small", id: "run-undo-confirm", "data-action": "undo-run-confirm", disabled: !answer.preview, onclick: () => send(answer.revision) }, "Undo anyway"),
        h("button", { type: "button", class: "ghost small", id: "run-undo-cancel", onclick: cancel }, "Keep as is"),
      ),
    );
  }

  function paint() {
    const state = stateOf(runId);
    const undone = session.state === "reverted";
    replace(
      root,
      h("p", { class: "subtle" }, undone ? "This run's changes were undone." : "Part of a Hermes run. Undo every change the run wrote, in one step; other people's edits stay."),
      state.preview
        ? previewView(state.preview)
        : undone
          ? null
          : h(
            "button",
            {
              type: "button",
              class: "ghost small",
              id: "run-undo-button",
              "data-action": "undo-run",
              disabled: state.busy || !canDecide,
              title: canDecide ? undefined : DECIDERS_ONLY,
              onclick: () => send(),
            },
            state.busy ? "Undoing…" : "Undo this run",
          ),
      h("p", { class: `command-status ${state.notice ? `status-${state.notice.kind}` : ""}`, id: "run-undo-status", role: "status" }, state.notice?.text ?? ""),
    );
  }

  paint();
  return root;
}
