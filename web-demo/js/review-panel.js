// The review panel: the document's review sessions (writes held for a person: a command in review mode, or a
// Hermes proposal). The one shown is named by its command and has its preview, per block, with a checkbox
// each while it can be accepted, and a button per verb a person may send (accept all or the checked blocks,
// reject, retry, abort, revert): the session's `actions` decide which are enabled, and a disabled one says
// why and which verbs work now (from the package's `reviewVerbs`). Once applied, it shows what the server
// wrote (a partial accept: only the blocks accepted). When the page moved on, accepting writes nothing:
// the session turns stale and a banner shows the fresh preview of the same proposal against the current
// page, to retry from. A message about an action stays with the session it concerns.
//
// Every action is a request to the server, which runs core's review state machine in the document's Durable
// Object; this panel only shows what it answers, and never reads a state to decide what is allowed.

import { acceptReview, fetchReviewSession, listReviewSessions, reviewAction } from "./api.js";
import { diffSpans } from "./diff-view.js";
import { h, replace } from "./dom.js";
import { DECIDERS_ONLY, errorWords, listWords, refusedVerbText, reviewStateLabel, reviewVerbWords } from "./labels.js";
import { historyView, originLabel, sessionName, shownSessions, when } from "./review-history.js";
import { runUndoView } from "./run-undo.js";

// How many session bodies the panel reads at once for the names in its list.
const NAME_READS = 6;

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ documentId: string, canDecide?: boolean, prompts: object, onWrite: () => Promise<void>, onAction: () => Promise<void>,
 *   onCount: (open: number) => void, showTool: (toolName: string) => void, engine: { vocabulary: object,
 *   reviewVerbs: (session: object) => { verb: string, allowed: boolean, reason: string | null }[],
 *   mintIdempotencyKey: () => string, mintToolCallId: () => string } }} deps `onWrite` reloads the page
 *   after a session wrote (accept, revert); `onAction` follows every action (the audit log); `engine` is
 *   the WASM package; `canDecide` is whether the person's role may send a verb (a viewer's may not: the
 *   session is shown with its buttons off, and why); `authorOf(sessionId)` names the person or run whose
 *   pending suggestion a session holds ("You", "user_vic", "Hermes · run …"), or null
 */
export function createReviewPanel(root, { documentId, canDecide = true, prompts, onWrite, onAction, onCount, showTool, engine, authorOf = () => null }) {
  const state = { sessions: [], counts: { open: 0, all: 0 }, bodies: new Map(), current: null, checked: new Set(), busy: false, notices: new Map() };
  // The states in which a session waits for a person (core's list), for the count and the default pick.
  const open = (s) => engine.vocabulary.openReviewStates.includes(s.state);
  let drawnAuthor = null; // whom the shown session's head names, as last drawn (`redraw`)

  /** Reloads the list and the session shown (the newest open one, or the one picked). */
  async function refresh(pick = state.current?.sessionId) {
    // The session to show is read while the list is: the one picked at once, else the newest open one of
    // the list's first page (with more than 50 open sessions the list takes two reads or more, one after
    // the other, and the shown session's read would be a third). Read again below only in the rare case
    // the whole list names another one (the server orders by creation, the panel by the last change).
    let early = null;
    const readEarly = (id) => {
      if (!id || early?.id === id) return;
      const read = fetchReviewSession(id);
      read.catch(() => {}); // Awaited below only when it is the one shown; a failure then throws there.
      early = { id, read };
    };
    readEarly(pick);
    ({ sessions: state.sessions, counts: state.counts } = await listReviewSessions(documentId, {
      onFirstPage: (first) => readEarly(pick ?? shownSessions(first, open).find(open)?.sessionId),
    }));
    const listed = shownSessions(state.sessions, open);
    const newest = listed.find(open);
    // The session picked (or just acted on) stays shown even when the list no longer carries it: one
    // accepted leaves the open group, and an old one may be past the newest others.
    const id = pick ?? newest?.sessionId;
    // Sessions read once keep their body (for the name); the one shown is read again. The others' names
    // follow in the background: a page with a hundred open suggestions would otherwise wait for a hundred
    // reads before its panel (and the page) is ready.
    const unread = listed.filter((s) => s.sessionId !== id && !state.bodies.has(s.sessionId));
    const current = id ? await (early?.id === id ? early.read : fetchReviewSession(id)) : null;
    if (current) state.bodies.set(current.sessionId, current);
    state.current = current;
    state.checked = new Set((preview()?.changedBlocks ?? []).map((c) => c.blockId));
    paint();
    if (unread.length) void readNames(unread);
  }

  /** Reads the bodies of `sessions` for their names, a few at a time, and draws the list again once. */
  async function readNames(sessions) {
    for (let i = 0; i < sessions.length; i += NAME_READS) {
      const bodies = await Promise.all(sessions.slice(i, i + NAME_READS).map((s) => fetchReviewSession(s.sessionId).catch(() => null)));
      for (const body of bodies) if (body) state.bodies.set(body.sessionId, body);
    }
    paint();
  }

  /** The preview to show: the fresh one of a stale session, else the session's own. */
  const preview = () => state.current?.stale?.preview ?? state.current?.preview ?? null;

  async function act(action) {
    const session = state.current;
    if (!session || state.busy) return;
    state.busy = true;
    state.notices.delete(session.sessionId);
    paint();
    let notice = null;
    try {
      notice = await send(session, action);
    } catch (error) {
      const words = errorWords(error);
      notice = { kind: "error", text: `${reviewVerbWords(action).name} failed: ${words.text} ${words.hint}`.trim() };
    } finally {
      state.busy = false;
    }
    if (notice) state.notices.set(session.sessionId, notice);
    await Promise.all([refresh(session.sessionId), onAction()]);
  }

  /** Sends one action; answers the message to keep with the session, or null when the session says it all. */
  async function send(session, action) {
    if (action === "accept") {
      const all = (session.preview?.changedBlocks ?? []).map((c) => c.blockId);
      const partial = state.checked.size < all.length ? [...state.checked] : undefined;
      const answer = await acceptReview(session.sessionId, engine.mintIdempotencyKey(), partial);
      // No write: the page had moved on; the stale banner shows the fresh preview.
      if (!answer.result) return null;
      await onWrite();
      return { kind: "ok", text: `Applied · revision ${answer.result.newRevision ?? "?"}` };
    }
    if (action === "revert") {
      const answer = await reviewAction(session.sessionId, "revert", { idempotencyKey: engine.mintIdempotencyKey() });
      await onWrite();
      return { kind: "ok", text: `Reverted · revision ${answer.result?.newRevision ?? "?"}` };
    }
    if (action === "retry") {
      const answer = await reviewAction(session.sessionId, "retry", { toolCallId: engine.mintToolCallId() });
      // A retry that could not preview fails the session: its error (with what to do) is the message.
      if (answer.error) return null;
      return { kind: "ok", text: "Previewed again against the current page" };
    }
    const answer = await reviewAction(session.sessionId, action);
    return { kind: "ok", text: `${reviewStateLabel(answer.state)}: nothing was written` };
  }

  function paint() {
    // The server's count: the list holds every open session, so the badge and the list agree.
    const waiting = state.counts.open;
    onCount(waiting);
    replace(
      root,
      h(
        "header",
        { class: "panel-head" },
        h("div", {}, h("h2", {}, "Review"), h("p", { class: "subtle" }, "AI writes held for you first, then the newest others")),
        h("span", { class: `badge ${waiting ? "badge-warn" : "badge-quiet"}`, id: "review-open-count" }, `${waiting} open`),
      ),
      state.current ? sessionView(state.current) : h("p", { class: "subtle review-empty" }, "Nothing waits for review. Set the review mode to Review and hold a command, or let Hermes propose."),
      state.sessions.length
        ? historyView({ sessions: state.sessions, open, bodies: state.bodies, current: state.current?.sessionId ?? null, prompts, onPick: (id) => refresh(id) })
        : null,
    );
    root.dataset.state = state.current?.state ?? "none";
  }

  function sessionView(session) {
    const shown = preview();
    // One gate per verb, from the session's `actions`: whether it is allowed now.
    // A viewer's role allows no verb (the server would answer mnote_role_forbidden): every gate is shut.
    const gates = engine.reviewVerbs(session).map((gate) => (canDecide ? gate : { ...gate, allowed: false }));
    const allows = (verb) => gates.some((g) => g.verb === verb && g.allowed);
    const notice = state.notices.get(session.sessionId);
    drawnAuthor = authorOf(session.sessionId);
    return h(
      "div",
      { class: "review-session", id: "review-session", "data-session-id": session.sessionId, "data-state": session.state },
      h(
        "div",
        { class: "review-session-head" },
        // A viewer waits too, but not for themself: the session waits for someone who may decide it.
        h("span", { class: `state-badge state-${session.state}` }, canDecide || !open(session) ? reviewStateLabel(session.state) : "Awaiting an editor"),
        h("span", { class: "subtle" }, `${authorOf(session.sessionId) ?? originLabel(session.source?.origin)} · base revision ${session.base?.revision ?? "?"} · ${when(session.audit?.updatedAt)}`),
      ),
      h("p", { class: "review-session-name", id: "review-session-name", title: session.sessionId }, sessionName(session, prompts)),
      notice ? h("div", { class: `command-status status-${notice.kind}`, id: "review-notice", role: "status" }, notice.text) : null,
      session.stale ? staleView(session, shown, allows("retry")) : null,
      session.error ? errorView(session.error) : null,
      session.applied ? appliedView(session) : shown ? blocksView(shown, allows("accept")) : null,
      canDecide ? null : h("p", { class: "subtle", id: "review-viewer-note" }, DECIDERS_ONLY),
      h("div", { class: "review-actions" }, gates.map((gate) => button(gate, session, gates))),
      runUndoView({ documentId, session, canDecide, engine, onDone: async () => Promise.all([onWrite(), refresh(session.sessionId), onAction()]) }),
    );
  }

  function button({ verb, allowed }, session, gates) {
    const all = (session.preview?.changedBlocks ?? []).length;
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
        title: allowed ? (nothingPicked ? "Check at least one block to accept" : undefined) : canDecide ? refusedVerbText(verb, session.state, gates) : DECIDERS_ONLY,
        onclick: () => act(verb),
      },
      label,
    );
  }

  // The stale report of the last accept (a retry clears it).
  function staleView(session, shown, canRetry) {
    return h(
      "div",
      { class: "message message-warn", id: "review-stale" },
      `The page changed since this was proposed (now revision ${session.stale.currentRevision ?? "?"}), so nothing was written. `,
      shown === session.preview ? "" : "Below: the same proposal against the current page. ",
      canRetry ? "Retry to make it acceptable again, or reject it." : "",
    );
  }

  function errorView(error) {
    const words = errorWords(error);
    return h(
      "div",
      { class: "message message-error", id: "review-error" },
      h("div", { class: "error-message" }, words.text),
      words.hint ? h("div", { class: "error-hint" }, words.hint) : null,
      words.tool ? h("button", { type: "button", class: "ghost small", id: "review-open-tools", onclick: () => showTool(words.tool) }, "Open Tools") : null,
      error.code ? h("div", { class: "error-code" }, error.code) : null,
    );
  }

  /** What the server wrote: the applied result's blocks (a partial accept: only the ones accepted). */
  function appliedView(session) {
    const written = session.applied.result;
    const proposed = (session.preview?.changedBlocks ?? []).map((c) => c.blockId);
    const kept = proposed.filter((id) => !written.changedBlocks.some((c) => c.blockId === id));
    const verb = session.reverted ? "Undone" : "Written";
    return [
      h(
        "p",
        { class: "review-applied", id: "review-applied" },
        kept.length
          ? `${verb}: ${written.changedBlocks.length} of ${proposed.length} changes. ${listWords(kept)} ${kept.length === 1 ? "was" : "were"} left as ${kept.length === 1 ? "it was" : "they were"}.`
          : `${verb}: ${written.changedBlocks.length === 1 ? "the change" : `all ${written.changedBlocks.length} changes`}.`,
      ),
      blocksView(written, false),
    ];
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

  return {
    refresh,
    /** Draws the panel again when the shown session's author (`authorOf`) is now named otherwise. */
    redraw() {
      if (state.current && authorOf(state.current.sessionId) !== drawnAuthor) paint();
    },
  };
}
