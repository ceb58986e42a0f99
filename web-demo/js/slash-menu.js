// The "/" menu: a "/" typed at the start of an empty block, or after a space, opens a list of the block
// types (js/block-types.js) under the caret; what is typed after the "/" filters it; the arrow keys and
// Enter (or Tab), a click or a tap pick one, and the editor turns the block into it with the "/…" taken out.
// Escape closes it and leaves the "/" as text. To assistive tech the block is a combobox whose listbox is
// the menu, the option under the arrow keys its `aria-activedescendant`: that behaviour is
// @github/combobox-nav (GitHub's, copied into web-demo/vendor/ by scripts/build-wasm); this module opens,
// filters, places and closes the list.

import Combobox from "../vendor/combobox-nav.js";
import { BLOCK_KINDS, kindOf } from "./block-types.js";
import { getCaret, readText } from "./caret.js";
import { h } from "./dom.js";

/**
 * @param {object} deps
 * @param {(kind: object, el: HTMLElement, from: number, to: number) => void} deps.onPick a kind was picked
 *   in the block text `el`, whose "/…" runs from offset `from` to `to`
 */
export function createSlashMenu({ onPick }) {
  const options = BLOCK_KINDS.filter((k) => !k.hidden).map((kind) =>
    h(
      "div",
      { role: "option", id: `slash-option-${kind.key}`, class: "slash-option", "data-kind": kind.key },
      h("span", { class: "slash-label" }, kind.label),
      kind.markers[0] ? h("span", { class: "slash-hint", "aria-hidden": "true" }, kind.markers[0].trim()) : null,
    ),
  );
  const none = h("p", { class: "slash-none", hidden: true }, "No block type matches");
  const list = h("div", { id: "slash-menu", class: "slash-menu", role: "listbox", "aria-label": "Turn this block into", hidden: true }, options, none);
  document.body.append(list);
  /** The open menu: the block text it belongs to, where its "/" is, the combobox behaviour. */
  let open = null;

  // A press on the menu must not take the caret out of the block (a tap on a phone included).
  list.addEventListener("mousedown", (event) => event.preventDefault());
  list.addEventListener("combobox-commit", (event) => {
    const option = event.target.closest("[role=option]");
    if (option && open) pick(option.dataset.kind);
  });

  function show(el, slashAt) {
    const combobox = new Combobox(el, list, { tabInsertsSuggestions: true, firstOptionSelectionMode: "selected" });
    const keys = (event) => onKey(event);
    open = { el, slashAt, combobox, keys };
    list.hidden = false;
    filter("");
    place(el);
    combobox.start();
    el.addEventListener("keydown", keys);
    el.addEventListener("blur", close, { once: true });
  }

  function close() {
    if (!open) return;
    const { el, combobox, keys } = open;
    open = null;
    combobox.stop();
    combobox.destroy();
    el.removeEventListener("keydown", keys);
    el.removeEventListener("blur", close);
    list.hidden = true;
  }

  /** Shows the options whose name or words hold every word of `query`; answers how many. */
  function filter(query) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const option of options) {
      const kind = kindOf(option.dataset.kind);
      const haystack = `${kind.label} ${kind.words}`.toLowerCase();
      option.hidden = !words.every((w) => haystack.includes(w));
      if (!option.hidden) shown++;
    }
    none.hidden = shown > 0;
    return shown;
  }

  /** Under the caret, inside the window. */
  function place(el) {
    const range = getSelection()?.rangeCount ? getSelection().getRangeAt(0) : null;
    const at = range?.getClientRects()[0] ?? el.getBoundingClientRect();
    const width = Math.min(280, innerWidth - 16);
    const left = Math.max(8, Math.min(at.left, innerWidth - width - 8));
    list.style.setProperty("top", `${at.bottom + scrollY + 6}px`);
    list.style.setProperty("left", `${left + scrollX}px`);
    list.style.setProperty("width", `${width}px`);
  }

  function pick(key) {
    const { el, slashAt } = open;
    const to = getCaret(el)?.start ?? slashAt + 1;
    close();
    onPick(kindOf(key), el, slashAt, Math.max(to, slashAt + 1));
  }

  /** After the combobox's own keys (arrows, Enter on the chosen option): Escape, and Enter with none chosen. */
  function onKey(event) {
    if (!open || event.defaultPrevented || event.isComposing) return;
    if (event.key === "Escape") {
      event.preventDefault();
      close();
    } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      const first = options.find((o) => !o.hidden);
      if (first) {
        event.preventDefault();
        pick(first.dataset.kind);
      } else close();
    } else if (["ArrowLeft", "ArrowRight", "Home", "End", "PageUp", "PageDown"].includes(event.key)) close();
  }

  return {
    /** Whether the menu is open (the editor leaves the keys to it then). */
    isOpen: () => open !== null,

    /**
     * The person typed in the block text `el`: a "/" at the start of an empty block or after a space opens
     * the menu; with it open, the text after the "/" filters it, and deleting the "/" (or a word that
     * matches nothing, then a space) closes it.
     */
    typed(el, inputType) {
      const text = readText(el);
      const caret = getCaret(el);
      if (!caret || caret.start !== caret.end) return close();
      if (open) {
        if (open.el !== el || caret.start <= open.slashAt || text[open.slashAt] !== "/") return close();
        const query = text.slice(open.slashAt + 1, caret.start);
        const shown = filter(query);
        if (!shown && /\s$/.test(query)) return close();
        open.combobox.resetSelection();
        return;
      }
      const at = caret.start - 1;
      if (inputType !== "insertText" || text[at] !== "/") return;
      if (text === "/" || (at > 0 && /\s/.test(text[at - 1]))) show(el, at);
    },

    close,
  };
}
