// The review panel: the document's review sessions (writes held for a person: a command in review mode, or a
// Hermes proposal), newest first. The open one shows its preview, per block, with a checkbox each, and the
// actions its `actions` field allows: accept all or the checked blocks, reject, retry, abort; an applied one
// can be reverted. When the page moved on, accepting writes nothing: the session turns stale and a banner
// shows the fresh preview of the same proposal against the current page, to retry from.
//
// Every action is a request to the server, which runs core's review state machine in the document's Durable
// Object; this panel only shows what it answers.

import { acceptReview, fetchReviewSession, listReviewSessions, reviewAction } from "./api.js";
import { diffSpans } from "./diff-view.js";
import { h, replace } from "./dom.js";

const OPEN = new Set(["awaiting_user", "stale", "failed"]);
const STATE_LABELS = {
  awaiting_user: "Awaiting you",
  stale: "Stale",
  failed: "Failed",
  applied: "Applied",
  rejected: "Rejected",
  aborted: "Aborted",
  reverted: "Reverted",
};

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ documentId: string, onWrite: () => Promise<void> }} deps `onWrite` reloads the page after a
 *   session wrote (accept, revert)
 */
export function createReviewPanel(root, { documentId, onWrite }) {
  const state = { sessions: [], current: null, checked: new Set(), busy: false, notice: null };

  /** Reloads the list and the session shown (the newest open one, or the one picked). */
  async function refresh(pick = state.current?.sessionId) {
    state.sessions = await listReviewSessions(documentId);
    const open = state.sessions.find((s) => OPEN.has(s.state));
    const id = pick && state.sessions.some((s) => s.sessionId === pick) ? pick : open?.sessionId;
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
        const answer = await acceptReview(session.sessionId, `idem_${crypto.randomUUID()}`, partial);
        if (answer.state === "stale") {
          state.notice = { kind: "warn", text: `The page changed (revision ${answer.stale?.currentRevision}): nothing was written. Retry to review the fresh preview.` };
        } else {
          state.notice = { kind: "ok", text: `Applied · revision ${answer.result?.newRevision ?? "?"}` };
          await onWrite();
        }
      } else if (action === "revert") {
        const answer = await reviewAction(session.sessionId, "revert", { idempotencyKey: `idem_${crypto.randomUUID()}` });
        state.notice = { kind: "ok", text: `Reverted · revision ${answer.result?.newRevision ?? "?"}` };
        await onWrite();
      } else if (action === "retry") {
        await reviewAction(session.sessionId, "retry", { toolCallId: `call_${crypto.randomUUID()}` });
        state.notice = { kind: "ok", text: "Previewed again against the current page" };
      } else {
        await reviewAction(session.sessionId, action);
        state.notice = { kind: "ok", text: action === "reject" ? "Rejected: nothing was written" : "Aborted: nothing was written" };
      }
    } catch (error) {
      state.notice = { kind: "error", text: `${error.code ?? "review_failed"}: ${error.message}` };
    } finally {
      state.busy = false;
    }
    await refresh(session.sessionId);
  }

  function paint() {
    const open = state.sessions.filter((s) => OPEN.has(s.state)).length;
    replace(
      root,
      h(
        "header",
        { class: "panel-head" },
        h("div", {}, h("h2", {}, "Review"), h("p", { class: "subtle" }, "AI writes held for you, newest first")),
        h("span", { class: `badge ${open ? "badge-warn" : "badge-quiet"}`, id: "review-open-count" }, `${open} open`),
      ),
      state.notice ? h("div", { class: `command-status status-${state.notice.kind}`, id: "review-notice", role: "status" }, state.notice.text) : null,
      state.current ? sessionView(state.current) : h("p", { class: "subtle review-empty" }, "Nothing waits for review. Set the review mode to Review and hold a command, or let Hermes propose."),
      state.sessions.length ? listView() : null,
    );
    root.dataset.state = state.current?.state ?? "none";
  }

  function sessionView(session) {
    const shown = preview();
    const actions = session.actions ?? {};
    const button = (action, label, enabled, primary = false) =>
      h(
        "button",
        { type: "button", class: primary ? "primary small" : "ghost small", "data-action": action, disabled: state.busy || !enabled, onclick: () => act(action) },
        label,
      );
    const all = (session.preview?.changedBlocks ?? []).length;
    const acceptLabel = state.checked.size && state.checked.size < all ? `Accept ${state.checked.size} of ${all}` : "Accept all";
    return h(
      "div",
      { class: "review-session", id: "review-session", "data-session-id": session.sessionId, "data-state": session.state },
      h(
        "div",
        { class: "review-session-head" },
        h("span", { class: `state-badge state-${session.state}` }, STATE_LABELS[session.state] ?? session.state),
        h("code", { title: session.sessionId }, session.source?.toolName ?? ""),
        h("span", { class: "subtle" }, `from ${session.source?.origin ?? "?"} · base revision ${session.base?.revision ?? "?"}`),
      ),
      session.state === "stale"
        ? h(
            "div",
            { class: "message message-warn", id: "review-stale" },
            `The page changed since this was proposed (now revision ${session.stale?.currentRevision ?? "?"}). `,
            shown === session.preview ? "" : "Below: the same proposal against the current page. ",
            "Retry to make it acceptable again, or reject it.",
          )
        : null,
      session.error ? h("div", { class: "message message-error" }, h("div", { class: "error-code" }, session.error.code), h("div", { class: "error-message" }, session.error.message)) : null,
      shown ? blocksView(shown, OPEN.has(session.state) && session.state !== "stale") : null,
      h(
        "div",
        { class: "review-actions" },
        OPEN.has(session.state) ? button("accept", acceptLabel, actions.accept?.allowed && state.checked.size > 0, true) : null,
        OPEN.has(session.state) ? button("reject", "Reject", actions.reject) : null,
        OPEN.has(session.state) ? button("retry", "Retry", actions.retry?.allowed) : null,
        OPEN.has(session.state) ? button("abort", "Abort", actions.abort) : null,
        session.state === "applied" ? button("revert", "Revert", actions.revert, true) : null,
      ),
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
            h("span", { class: `state-badge state-${s.state}` }, STATE_LABELS[s.state] ?? s.state),
            h("code", {}, s.sessionId.replace(/^rs\.[^.]+\./, "")),
            h("span", { class: "subtle" }, (s.updatedAt ?? "").replace("T", " ").replace(/\.\d+Z$|Z$/, "")),
          ),
        ),
      ),
    );
  }

  return { refresh };
}
