// The conflict view: a block the person changed that someone else (the assistant, or this page open in
// another tab) changed too before the person's version was saved. Both versions side by side, and the two
// ways out: Keep mine (saved on the page as it is now) and Take theirs (the person's version is dropped).
// Until the person chooses, neither is lost and the block is not saved.

import { h } from "./dom.js";

/**
 * @param {{theirs: object | null, yours: object}} conflict the server's block (null: deleted) and the person's
 * @param {{keepMine: () => void, takeTheirs: () => void}} handlers
 */
export function conflictCard(conflict, { keepMine, takeTheirs }) {
  const title = `conflict-title-${conflict.yours.blockId}`;
  const gone = conflict.theirs === null;
  return h(
    "section",
    { class: "conflict", role: "group", tabindex: "-1", "aria-labelledby": title },
    h("p", { class: "conflict-title", id: title, role: "alert" }, gone ? "This block was deleted while you were editing it." : "This block was changed while you were editing it."),
    h(
      "p",
      { class: "conflict-hint" },
      "Someone else saved it first (the assistant, or this page open elsewhere). Your version is not saved yet: choose which one to keep.",
    ),
    h(
      "div",
      { class: "conflict-versions" },
      version("Their version", gone ? null : conflict.theirs.text, "conflict-theirs"),
      version("Your version", conflict.yours.text, "conflict-yours"),
    ),
    h(
      "div",
      { class: "conflict-actions" },
      h("button", { type: "button", class: "primary", "data-choice": "mine", onclick: keepMine }, "Keep mine"),
      h("button", { type: "button", "data-choice": "theirs", onclick: takeTheirs }, gone ? "Delete it" : "Take theirs"),
    ),
  );
}

function version(label, text, kind) {
  return h(
    "figure",
    { class: `conflict-version ${kind}` },
    h("figcaption", {}, label),
    text === null ? h("p", { class: "conflict-gone" }, "Deleted") : h("p", { class: "conflict-text" }, text === "" ? "(empty)" : text),
  );
}
