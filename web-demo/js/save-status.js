// Whether the person's edits are saved, in the top bar: saved, saving, waiting to be saved, not saved (with
// the reason and Try again), or waiting for the person to settle a conflict.

import { h, replace } from "./dom.js";
import { errorWords } from "./labels.js";

// Short, so the page's title keeps its room on a phone.
const WORDS = {
  saved: "Saved",
  saving: "Saving…",
  unsaved: "Not saved yet",
  conflict: "Choose a version",
  // While the person suggests (their edits go as suggestions, js/edit-sync.js).
  suggested: "Suggested",
  suggesting: "Suggesting…",
  unsuggested: "Not suggested yet",
};

/**
 * @param {HTMLElement} root
 * @param {{retry: () => void}} handlers
 */
export function createSaveStatus(root, { retry }) {
  return {
    show(state, error) {
      root.dataset.state = state;
      if (state !== "failed") return replace(root, WORDS[state] ?? "");
      const words = errorWords(error ?? {}, {});
      replace(
        root,
        h(
          "span",
          { class: "save-failed", title: words.hint || undefined },
          "Not saved",
          h("span", { class: "save-reason" }, `: ${words.text}`),
        ),
        h("button", { type: "button", class: "link-button", id: "save-retry", onclick: retry }, "Try again"),
      );
    },
  };
}
