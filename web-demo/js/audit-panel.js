// The audit log: the newest entries of the document's append-only, hash-chained log (each entry stores the
// hash of the one before), and a button that has the server verify the whole chain. The app refreshes it
// after every action (apply, accept, reject, retry, abort, revert, a Hermes run); Verify reads it again
// too, so the count in the head, the list and the verdict always describe the same chain.

import { fetchRecentAudit, verifyAudit } from "./api.js";
import { count, h, replace } from "./dom.js";
import { auditActionLabel, errorWords, toolLabel } from "./labels.js";

const SHOWN = 10;

/** @param {HTMLElement} root the panel's container @param {{ documentId: string }} deps */
export function createAuditPanel(root, { documentId }) {
  const state = { entries: [], head: null, verdict: null, busy: false };

  /**
   * Reads the newest entries again. A verdict about an older head no longer holds, so it goes. Reads overlap
   * (a write's own refresh, the live channel's): the log only grows, so an answer older than the one shown
   * (it left the server before a later entry) is dropped rather than painted over the newer list.
   */
  async function refresh() {
    const { entries, head } = await fetchRecentAudit(documentId, SHOWN);
    if ((head?.seq ?? 0) < (state.head?.seq ?? 0)) return;
    if (state.verdict && state.verdict.seq !== (head?.seq ?? 0)) state.verdict = null;
    state.entries = entries;
    state.head = head;
    paint();
  }

  /** Has the server verify the chain, then reads the list again so both describe the same head. */
  async function verify() {
    state.busy = true;
    paint();
    let verdict;
    try {
      const answer = await verifyAudit(documentId);
      verdict = { ok: true, text: `Chain verified · ${count(answer.entries)} entries` };
    } catch (error) {
      verdict = { ok: false, text: `The chain does not verify: ${errorWords(error).text}` };
    }
    await refresh().catch(() => {});
    state.busy = false;
    state.verdict = { ...verdict, seq: state.head?.seq ?? 0 };
    paint();
  }

  function paint() {
    const total = state.head?.seq ?? 0;
    replace(
      root,
      h(
        "header",
        { class: "panel-head" },
        h(
          "div",
          {},
          h("h2", {}, "Audit log"),
          h("p", { class: "subtle" }, "Append-only, each entry chained to the last"),
        ),
        h(
          "div",
          { class: "audit-head" },
          h("span", { class: "badge badge-quiet", id: "audit-count" }, `${count(total)} ${total === 1 ? "entry" : "entries"}`),
          h("button", { type: "button", class: "ghost small", id: "audit-verify", disabled: state.busy, onclick: verify }, state.busy ? "Verifying…" : "Verify chain"),
        ),
      ),
      state.verdict
        ? h("div", { class: `command-status status-${state.verdict.ok ? "ok" : "error"}`, id: "audit-verdict", role: "status" }, state.verdict.text)
        : null,
      state.entries.length
        ? h(
            "ol",
            { class: "audit-list", id: "audit-list", reversed: true },
            [...state.entries].reverse().map((e) =>
              h(
                "li",
                { class: "audit-entry", "data-seq": e.seq, "data-action": e.action },
                h("span", { class: "audit-seq" }, `#${e.seq}`),
                h("span", { class: "audit-action" }, auditActionLabel(e.action)),
                h("span", { class: "audit-meta subtle" }, [e.actor, e.toolName ? ` · ${toolLabel(e.toolName)}` : "", ` · rev ${e.revision}`]),
                h("code", { class: "audit-hash", title: `hash ${e.hash}\nprevious ${e.prevHash}` }, e.hash.slice(0, 10)),
              ),
            ),
          )
        : h("p", { class: "subtle" }, "No entries yet."),
      total > state.entries.length ? h("p", { class: "subtle audit-more" }, `The newest ${state.entries.length} of ${count(total)}.`) : null,
    );
  }

  return { refresh };
}
