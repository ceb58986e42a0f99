// The editor's toolbar above the page: the "Suggesting" switch (a toggle button, `aria-pressed`), which
// turns the person's edits into suggestions instead of writes, the optional reason sent with them, and the
// place where the suggestion view lists the authors of the pending suggestions (js/suggestion-view.js).
// The switch is remembered for the tab (sessionStorage). A person who may suggest but not write (a viewer,
// by core's role table) sees it on and locked: still a Tab stop, saying why it cannot be turned off.

import { h } from "./dom.js";

/**
 * @param {HTMLElement} container where the toolbar goes (first in it)
 * @param {{ documentId: string, locked: boolean, onChange: (on: boolean) => Promise<void> | void,
 *   onReason: (text: string) => void }} deps `locked`: the person may only suggest
 * @returns {{ on: () => boolean, authors: HTMLElement }}
 */
export function createSuggestSwitch(container, { documentId, locked, onChange, onReason }) {
  const key = `mnote.suggesting.${documentId}`;
  let on = locked || readStored(key);
  const reason = h("input", {
    type: "text",
    id: "suggest-reason",
    class: "suggest-reason",
    maxlength: "2000",
    placeholder: "Reason (optional)",
    "aria-label": "Why you suggest these changes (optional)",
    oninput: () => onReason(reason.value),
  });
  const toggle = h(
    "button",
    {
      type: "button",
      id: "suggest-toggle",
      class: "suggest-toggle",
      "aria-pressed": String(on),
      "aria-disabled": locked ? "true" : undefined,
      title: locked ? "Your role lets you suggest changes, not write them: an editor or owner decides each suggestion" : "Your edits become suggestions for others to accept or reject",
      onclick: async () => {
        if (locked) return;
        toggle.setAttribute("aria-busy", "true");
        try {
          await onChange(!on);
          on = !on;
          store(key, on);
          paint();
        } finally {
          toggle.removeAttribute("aria-busy");
        }
      },
    },
    h("span", { class: "suggest-track", "aria-hidden": "true" }, h("span", { class: "suggest-thumb" })),
    h("span", { class: "suggest-label" }, "Suggesting"),
    locked ? h("span", { class: "suggest-lock" }, "· only") : null,
  );
  const authors = h("div", { class: "suggestion-authors", id: "suggestion-authors", role: "group", "aria-label": "Pending suggestions by author" });
  const bar = h("div", { class: "editor-bar", id: "editor-bar", role: "toolbar", "aria-label": "Editing" }, toggle, reason, authors);
  container.prepend(bar);

  function paint() {
    toggle.setAttribute("aria-pressed", String(on));
    reason.hidden = !on;
    container.dataset.suggesting = on ? "on" : "off";
  }
  paint();

  return { on: () => on, authors };
}

function readStored(key) {
  try {
    return sessionStorage.getItem(key) === "on";
  } catch {
    return false;
  }
}

function store(key, on) {
  try {
    sessionStorage.setItem(key, on ? "on" : "off");
  } catch {
    // Storage refused (a private window's quota): the switch still works for this page's life.
  }
}
