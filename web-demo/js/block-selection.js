// Several blocks selected at once: Shift+click on a block, or Shift+ArrowUp / Shift+ArrowDown from the edge of
// a block's text (and on from there), selects a run of blocks. Then Backspace or Delete deletes them,
// Alt+ArrowUp / Alt+ArrowDown moves them, Ctrl+Alt+0…6 (⌘+Option on macOS) turns them into text, a heading,
// a list or a to-do, and copying (Ctrl+C, or Ctrl+X to cut) puts their text on the clipboard, one block a
// line, without the hover labels. Each is one change of the page: one write, one undo step (it goes through
// js/undo.js). Escape, a click or an arrow without Shift goes back to typing.

import { kindOf, retype } from "./block-types.js";

/** Ctrl+Alt+digit: the kind a selection (or the block with the caret) turns into. */
export const TURN_INTO_KEYS = { 0: "paragraph", 1: "h1", 2: "h2", 3: "h3", 4: "todo", 5: "bulleted", 6: "numbered" };

/**
 * @param {HTMLElement} root the page's blocks (focused while blocks are selected)
 * @param {object} deps
 * @param {ReturnType<import("./edit-sync.js").createEditSync>} deps.sync the page as the person sees it
 * @param {ReturnType<import("./undo.js").createUndo>} deps.edit where the person's changes go
 * @param {(blockId: string) => HTMLElement | null} deps.elementOf a block's element
 * @param {(blockId: string, at: number | "end") => boolean} deps.focusText puts the caret in a block
 * @param {boolean} deps.mac whether the modifier is ⌘ (macOS)
 */
export function createBlockSelection(root, { sync, edit, elementOf, focusText, mac }) {
  /** The run of selected blocks: where it started and where it ends now. */
  let anchor = null;
  let head = null;

  const ids = () => sync.blocks().map((b) => b.blockId);
  /** The selected ids, in page order. */
  function selected() {
    if (!anchor) return [];
    const order = ids();
    const [a, b] = [order.indexOf(anchor), order.indexOf(head)];
    if (a < 0 || b < 0) return [];
    return order.slice(Math.min(a, b), Math.max(a, b) + 1);
  }
  const editableOnly = (list) => list.every((id) => sync.block(id)?.editable !== false && !sync.conflicts().has(id));

  /** Marks the selected blocks (again after each drawing of the page). */
  function paint() {
    const chosen = new Set(selected());
    for (const el of root.querySelectorAll(":scope > .block")) {
      const on = chosen.has(el.dataset.blockId);
      el.classList.toggle("is-selected", on);
      if (on) el.setAttribute("aria-selected", "true");
      else el.removeAttribute("aria-selected");
    }
    if (chosen.size) root.setAttribute("aria-label", `${chosen.size} blocks selected`);
    else root.removeAttribute("aria-label");
  }

  /** Selects from `from` to `to` and takes the keyboard (the page itself holds the focus meanwhile). */
  function select(from, to) {
    anchor = from;
    head = to;
    if (!root.hasAttribute("tabindex")) root.setAttribute("tabindex", "-1");
    getSelection()?.removeAllRanges();
    if (document.activeElement !== root) root.focus({ preventScroll: true });
    paint();
    elementOf(head)?.scrollIntoView({ block: "nearest" });
  }

  /** Back to typing: the caret in `blockId` (the block the selection ended on). */
  function clear(focusOn = null) {
    if (!anchor) return;
    anchor = head = null;
    paint();
    if (focusOn) focusText(focusOn, "end");
  }

  /** Deletes the selected blocks: one change; the caret goes to the block before (or after) them. */
  function remove() {
    const chosen = selected();
    if (!editableOnly(chosen)) return;
    const blocks = sync.blocks();
    const first = blocks.findIndex((b) => b.blockId === chosen[0]);
    const rest = blocks.filter((b) => !chosen.includes(b.blockId));
    if (!rest.length) return;
    anchor = head = null;
    edit.change(rest);
    paint();
    const near = rest[Math.max(0, first - 1)];
    if (!focusText(near.blockId, first > 0 ? "end" : 0)) root.focus();
  }

  /** Moves the selected run one block up (-1) or down (1): one change. */
  function move(step) {
    const chosen = selected();
    const blocks = sync.blocks();
    const first = blocks.findIndex((b) => b.blockId === chosen[0]);
    const last = first + chosen.length - 1;
    if (!chosen.length || first + step < 0 || last + step >= blocks.length) return;
    const run = blocks.slice(first, last + 1);
    const rest = blocks.toSpliced(first, chosen.length);
    edit.change(rest.toSpliced(first + step, 0, ...run));
    paint();
    elementOf(head)?.scrollIntoView({ block: "nearest" });
  }

  /** Turns the selected blocks with text into `kind`: one change. */
  function turnInto(kind, chosen = selected()) {
    if (!editableOnly(chosen)) return;
    const blocks = sync.blocks().map((b) => (chosen.includes(b.blockId) && typeof b.text === "string" && b.type !== "divider" ? retype(b, kind) : b));
    edit.change(blocks);
    paint();
  }

  /** The selected blocks' text, one block a line (no labels, no ids). */
  const text = () => selected().map((id) => sync.block(id)?.text ?? "").join("\n");

  root.addEventListener("keydown", (event) => {
    if (!anchor || event.target !== root) return;
    const mod = mac ? event.metaKey : event.ctrlKey;
    const order = ids();
    const at = order.indexOf(head);
    let handled = true;
    if (event.shiftKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
      const next = order[at + (event.key === "ArrowUp" ? -1 : 1)];
      if (next) select(anchor, next);
    } else if (event.altKey && !mod && (event.key === "ArrowUp" || event.key === "ArrowDown")) move(event.key === "ArrowUp" ? -1 : 1);
    else if (event.key === "Backspace" || event.key === "Delete") remove();
    else if (mod && event.altKey && TURN_INTO_KEYS[event.code?.replace("Digit", "")]) turnInto(kindOf(TURN_INTO_KEYS[event.code.replace("Digit", "")]));
    else if (event.key === "Escape" || event.key === "ArrowUp" || event.key === "ArrowDown" || event.key === "Enter") clear(head);
    else if (mod && event.key.toLowerCase() === "a") select(order[0], order.at(-1));
    else handled = false;
    if (handled) event.preventDefault();
  });
  root.addEventListener("copy", (event) => {
    if (!anchor || !event.clipboardData) return;
    event.preventDefault();
    event.clipboardData.setData("text/plain", text());
  });
  root.addEventListener("cut", (event) => {
    if (!anchor || !event.clipboardData) return;
    event.preventDefault();
    event.clipboardData.setData("text/plain", text());
    remove();
  });
  // Shift+click extends from the block with the caret (or the selection) to the clicked block.
  root.addEventListener("mousedown", (event) => {
    const block = event.target.closest?.(".block");
    if (!block || !root.contains(block) || root.dataset.pick) return;
    if (!event.shiftKey) {
      if (anchor) clear();
      return;
    }
    const from = anchor ?? document.activeElement?.closest?.("[data-block-id]")?.dataset.blockId;
    if (!from || !root.contains(elementOf(from))) return;
    event.preventDefault();
    select(from, block.dataset.blockId);
  });
  root.addEventListener("focusout", (event) => {
    if (event.target === root && anchor && !root.contains(event.relatedTarget)) clear();
  });

  return {
    paint,
    /** Whether blocks are selected (the editor leaves the keys to the selection then). */
    active: () => anchor !== null,
    /** Starts a selection from the block with the caret, one block up or down (Shift+arrow at its edge). */
    extend(blockId, step) {
      const order = ids();
      const next = order[order.indexOf(blockId) + step];
      select(blockId, next ?? blockId);
    },
    /** Ctrl+Alt+digit on the block with the caret: that one block's type. */
    turnInto: (kind, blockId) => turnInto(kind, [blockId]),
  };
}
