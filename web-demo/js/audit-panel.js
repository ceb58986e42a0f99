// The audit log: the newest entries of the document's append-only, hash-chained log (each entry stores the
// hash of the one before), and a button that has the server verify the whole chain.

import { fetchRecentAudit, verifyAudit } from "./api.js";
import { h, replace } from "./dom.js";

const SHOWN = 10;

/** @param {HTMLElement} root the panel's container @param {{ documentId: string }} deps */
export function createAuditPanel(root, { documentId }) {
  const state = { entries: [], head: null, verdict: null, busy: false };

  async function refresh() {
    const { entries, head } = await fetchRecentAudit(documentId, SHOWN);
    state.entries = entries;
    state.head = head;
    state.verdict = null;
    paint();
  }

  async function verify() {
    state.busy = true;
    paint();
    try {
      const answer = await verifyAudit(documentId);
      state.verdict = { ok: true, text: `Chain verified · ${answer.entries} entries` };
    } catch (error) {
      state.verdict = { ok: false, text: `${error.code}: ${error.message}` };
    } finally {
      state.busy = false;
      paint();
    }
  }

  function paint() {
    replace(
      root,
      h(
        "header",
        { class: "panel-head" },
        h("div", {}, h("h2", {}, "Audit log"), h("p", { class: "subtle" }, "Append-only, each entry chained to the last")),
        h("button", { type: "button", class: "ghost small", id: "audit-verify", disabled: state.busy, onclick: verify }, state.busy ? "Verifying…" : "Verify chain"),
      ),
      state.verdict
        ? h("div", { class: `command-status status-${state.verdict.ok ? "ok" : "error"}`, id: "audit-verdict", role: "status" }, state.verdict.text)
        : null,
      state.entries.length
        ? h(
            "ol",
            { class: "audit-list", id: "audit-list" },
            [...state.entries].reverse().map((e) =>
              h(
                "li",
                { class: "audit-entry", "data-seq": e.seq, "data-action": e.action },
                h("span", { class: "audit-seq" }, `#${e.seq}`),
                h("span", { class: "audit-action" }, e.action),
                h("span", { class: "subtle" }, [e.actor, e.toolName ? ` · ${e.toolName}` : "", ` · rev ${e.revision}`]),
                h("code", { class: "audit-hash", title: `hash ${e.hash}\nprevious ${e.prevHash}` }, e.hash.slice(0, 10)),
              ),
            ),
          )
        : h("p", { class: "subtle" }, "No entries yet."),
    );
  }

  return { refresh };
}
