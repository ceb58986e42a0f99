// The review panel: the document's review sessions (writes held for a person: a command in review mode, or a
// Hermes proposal), newest first. The one shown has its preview, per block, with a checkbox each while it can
// be accepted, and a button per verb a person may send (accept all or the checked blocks, reject, retry,
// abort, revert): the session's `actions` decide which are enabled, and a disabled one says why (core's
// words, from the package's `reviewVerbs`). When the page moved on, accepting writes nothing: the session
// turns stale and a banner shows the fresh preview of the same proposal against the current page, to retry
// from.
//
// Every action is a request to the server, which runs core's review state machine in the document's Durable
// Object; this panel only shows what it answers, and never reads a state to decide what is allowed.

import { acceptReview, fetchReviewSession, listReviewSessions, reviewAction } from "./api.js";
import { diffSpans } from "./diff-view.js";
import { h, replace } from "./dom.js";
import { reviewStateLabel, reviewVerbWords } from "./labels.js";

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ documentId: string, onWrite: () => Promise<void>, engine: { vocabulary: object,
 *   reviewVerbs: (session: object) => { verb: string, allowed: boolean, reason: string | null }[],
 *   mintIdempotencyKey: () => string, mintToolCallId: () => string } }} deps `onWrite` reloads the page
 *   after a session wrote (accept, revert); `engine` is the WASM package
 */
export function createReviewPanel(root, { documentId, onWrite, engine }) {
  const state = { sessions: [], current: null, checked: new Set(), busy: false, notice: null };
  // The states in which a session waits for a person (core's list), for the count and the default pick.
  const open = (s) => engine.vocabulary.openReviewStates.includes(s.state);

  /** Reloads the list and the session shown (the newest open one, or the one picked). */
  async function refresh(pick = state.current?.sessionId) {
    state.sessions = await listReviewSessions(documentId);
    const newest = state.sessions.find(open);
    const id = pick && state.sessions.some((s) => s.sessionId === pick) ? pick : newest?.sessionId;
    state.current = id ? await fetchReviewSession(id) : null;
    state.checked = new Set((preview()?.changedBlocks ?? []).map((c) => c.blockId));
    paint();
  }

  /** The preview to show: the fresh one of a stale session, else the session's own. */
  const preview = () => state.current?.stale?.preview ?? state.current?.preview ?? null;

  async function act(action) {
    const session = state.current;
    if (!session || state.busy) return;
    state.busy = true;
    state.notice = null;
    paint();
    try {
      if (action === "accept") {
        const all = (session.preview?.changedBlocks ?? []).map((c) => c.blockId);
        const partial = state.checked.size < all.length ? [...state.checked] : undefined;
        const answer = await acceptReview(session.sessionId, engine.mintIdempotencyKey(), partial);
        if (!answer.result) {
          // No write: the page had moved on, and the answer carries the fresh preview.
          state.notice = { kind: "warn", text: `The page changed (revision ${answer.stale?.currentRevision}): nothing was written. Retry to review the fresh preview.` };
        } else {
          state.notice = { kind: "ok", text: `Applied · revision ${answer.result?.newRevision ?? "?"}` };
          await onWrite();
        }
      } else if (action === "revert") {
        const answer = await reviewAction(session.sessionId, "revert", { idempotencyKey: engine.mintIdempotencyKey() });
        state.notice = { kind: "ok", text: `Reverted · revision ${answer.result?.newRevision ?? "?"}` };
        await onWrite();
      } else if (action === "retry") {
        await reviewAction(session.sessionId, "retry", { toolCallId: engine.mintToolCallId() });
        state.notice = { kind: "ok", text: "Previewed again against the current page" };
      } else {
        const answer = await reviewAction(session.sessionId, action);
        state.notice = { kind: "ok", text: `${reviewStateLabel(answer.state)}: nothing was written` };
      }
    } catch (error) {
      state.notice = { kind: "error", text: `${error.code ?? "review_failed"}: ${error.message}` };
    } finally {
      state.busy = false;
    }
    await refresh(session.sessionId);
  }

  function paint() {
    const waiting = state.sessions.filter(open).length;
    replace(
      root,
      h(
        "header",
        { class: "panel-head" },
        h("div", {}, h("h2", {}, "Review"), h("p", { class: "subtle" }, "AI writes held for you, newest first")),
        h("span", { class: `badge ${waiting ? "badge-warn" : "badge-quiet"}`, id: "review-open-count" }, `${waiting} open`),
      ),
      state.notice ? h("div", { class: `command-status status-${state.notice.kind}`, id: "review-notice", role: "status" }, state.notice.text) : null,
      state.current ? sessionView(state.current) : h("p", { class: "subtle review-empty" }, "Nothing waits for review. Set the review mode to Review and hold a command, or let Hermes propose."),
      state.sessions.length ? listView() : null,
    );
    root.dataset.state = state.current?.state ?? "none";
  }

  function sessionView(session) {
    const shown = preview();
    // One gate per verb, from the session's `actions`: whether it is allowed now and, if not, why.
    const gates = engine.reviewVerbs(session);
    const allows = (verb) => gates.some((g) => g.verb === verb && g.allowed);
    const all = (session.preview?.changedBlocks ?? []).length;
    const button = ({ verb, allowed, reason }) => {
      const words = reviewVerbWords(verb);
      const accept = verb === "accept";
      const label = accept && state.checked.size && state.checked.size < all ? `Accept ${state.checked.size} of ${all}` : words.label;
      const nothingPicked = accept && allowed && state.checked.size === 0;
      return h(
        "button",
        {
          type: "button",
          class: words.primary ? "primary small" : "ghost small",
          "data-action": verb,
          disabled: state.busy || !allowed || nothingPicked,
          title: reason ?? (nothingPicked ? "Check at least one block to accept" : undefined),
          onclick: () => act(verb),
        },
        label,
      );
    };
    return h(
      "div",
      { class: "review-session", id: "review-session", "data-session-id": session.sessionId, "data-state": session.state },
      h(
        "div",
        { class: "review-session-head" },
        h("span", { class: `state-badge state-${session.state}` }, reviewStateLabel(session.state)),
        h("code", { title: session.sessionId }, session.source?.toolName ?? ""),
        h("span", { class: "subtle" }, `from ${session.source?.origin ?? "?"} · base revision ${session.base?.revision ?? "?"}`),
      ),
      // The stale report of the last accept (a retry clears it).
      session.stale
        ? h(
            "div",
            { class: "message message-warn", id: "review-stale" },
            `The page changed since this was proposed (now revision ${session.stale.currentRevision ?? "?"}). `,
            shown === session.preview ? "" : "Below: the same proposal against the current page. ",
            allows("retry") ? "Retry to make it acceptable again, or reject it." : "",
          )
        : null,
      session.error ? h("div", { class: "message message-error" }, h("div", { class: "error-code" }, session.error.code), h("div", { class: "error-message" }, session.error.message)) : null,
      // Blocks can be picked while the session can be accepted.
      shown ? blocksView(shown, allows("accept")) : null,
      h("div", { class: "review-actions" }, gates.map(button)),
    );
  }

  function blocksView(result, pickable) {
    return h(
      "div",
      { class: "review-blocks" },
      result.diff.map((d) => {
        const checkbox = pickable
          ? h("input", {
              type: "checkbox",
              "data-block-id": d.blockId,
              checked: state.checked.has(d.blockId),
              "aria-label": `Accept the change to ${d.blockId}`,
              onchange: (e) => {
                if (e.target.checked) state.checked.add(d.blockId);
                else state.checked.delete(d.blockId);
                paint();
              },
            })
          : null;
        return h(
          "label",
          { class: "review-block", "data-block-id": d.blockId },
          checkbox,
          h("div", {}, h("code", {}, d.blockId), h("p", { class: "inline-diff" }, diffSpans(d.inline, { elide: true }))),
        );
      }),
    );
  }

  function listView() {
    return h(
      "ul",
      { class: "review-list", id: "review-list" },
      state.sessions.slice(0, 8).map((s) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: `review-item ${s.sessionId === state.current?.sessionId ? "is-current" : ""}`,
              "data-session-id": s.sessionId,
              onclick: () => refresh(s.sessionId),
            },
            h("span", { class: `state-badge state-${s.state}` }, reviewStateLabel(s.state)),
            h("code", {}, s.sessionId.replace(/^rs\.[^.]+\./, "")),
            h("span", { class: "subtle" }, (s.updatedAt ?? "").replace("T", " ").replace(/\.\d+Z$|Z$/, "")),
          ),
        ),
      ),
    );
  }

  return { refresh };
}
