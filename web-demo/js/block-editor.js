// Editing the page in place, as in a block editor: click into a block and type; Enter starts a new block
// (splitting the text at the caret), Backspace at the start of a block joins it to the one before (or
// deletes it when empty), the arrow keys move between blocks, a to-do's box checks it. While the caret is
// in a block it shows the block's Markdown source; when it leaves, the formatted text again. What changes
// goes to the page's edits (js/edit-sync.js), which save it; a block both sides changed shows the
// conflict view (js/conflict-view.js) under it.
//
// What a block editor is expected to do lives beside it, each in its own module, wired in here: Markdown
// shortcuts and Tab / Shift+Tab (js/block-shortcuts.js), Ctrl+B / Ctrl+I / Ctrl+K (js/block-format.js), the
// "/" menu (js/slash-menu.js), several pasted lines as blocks (js/block-paste.js), several blocks selected
// at once (js/block-selection.js), drag handles (js/block-drag.js), and undo / redo of the person's own edits (js/undo.js, which every edit
// goes through on its way to the page's edits).

import { toggleLink, toggleMark } from "./block-format.js";
import { createBlockDrag } from "./block-drag.js";
import { isMultiLine, pastedBlocks } from "./block-paste.js";
import { TURN_INTO_KEYS, createBlockSelection } from "./block-selection.js";
import { indent, markdownShortcut } from "./block-shortcuts.js";
import { LIST_TYPES, kindOf, retype } from "./block-types.js";
import { getCaret, onEdgeLine, readText, setCaret, setSelection, sourceOffset } from "./caret.js";
import { conflictCard } from "./conflict-view.js";
import { h } from "./dom.js";
import { createSlashMenu } from "./slash-menu.js";
import { createUndo } from "./undo.js";

const TEXT_TYPES = new Set(["heading", "paragraph", "bulleted_list_item", "numbered_list_item", "todo", "quote", "code"]);
/** macOS says ⌘ where others say Ctrl. */
const IS_MAC = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/**
 * @param {HTMLElement} root the page's blocks
 * @param {object} deps
 * @param {ReturnType<import("./edit-sync.js").createEditSync>} deps.sync
 * @param {ReturnType<import("./page-view.js").createPageView>} deps.pageView
 * @param {boolean} deps.editable whether the person may edit this page at all
 * @param {() => string} deps.mintBlockId the package's `mintBlockId`: the editor names a new block itself, so
 *   the block is on the page (and takes the caret) before the server has it
 */
export function createBlockEditor(root, { sync, pageView, editable, mintBlockId }) {
  let drawing = false;
  /** Draws the person's page: blocks, the text the caret is in, conflicts. */
  function draw() {
    // Removing the focused block blurs it, and its focusout would draw again in the middle of this one.
    if (drawing) return;
    drawing = true;
    // A block whose type changed under the caret (someone else's write) is drawn anew: the caret follows it.
    const typing = textIn(document.activeElement);
    const caret = typing?.dataset.raw !== undefined ? { blockId: idOf(typing), at: getCaret(typing)?.start ?? 0 } : null;
    try {
      pageView.render(sync.view(), { editable });
      if (caret && !root.contains(typing)) focusText(caret.blockId, caret.at);
      followFocused();
      paintConflicts();
      selection.paint();
    } finally {
      drawing = false;
    }
  }

  const textIn = (target) => {
    const el = target?.closest?.(".block-text[data-editable]");
    return el && root.contains(el) ? el : null;
  };
  const idOf = (el) => el.closest("[data-block-id]").dataset.blockId;
  const indexOf = (blockId) => sync.blocks().findIndex((b) => b.blockId === blockId);

  // Said where people see it (and screen readers hear it): an undo that was skipped, and why.
  const note = h("p", { class: "edit-note", id: "edit-note", role: "status" });
  root.before(note);
  let noteTimer = null;
  function say(message) {
    note.textContent = message;
    clearTimeout(noteTimer);
    noteTimer = setTimeout(() => (note.textContent = ""), 8000);
  }
  // Every edit of the person's goes through `edit`, which records it for undo and hands it to `sync`.
  const edit = createUndo({ sync, focus: (blockId, at) => focusText(blockId, at), onSkip: say });
  const menu = createSlashMenu({ onPick: turnInto });
  const selection = createBlockSelection(root, { sync, edit, elementOf: pageView.elementOf, focusText, mac: IS_MAC });
  createBlockDrag(root, { sync, edit });

  /** Shows the block's source in place of its formatted text, keeping the caret where it was. */
  function showSource(el, at = null) {
    if (el.dataset.raw === undefined) {
      const block = sync.block(idOf(el));
      if (!block) return;
      const shown = readText(el);
      const caret = at ?? getCaret(el)?.start ?? null;
      if (shown !== block.text || el.children.length) {
        el.textContent = block.text;
        if (caret !== null) setCaret(el, sourceOffset(shown, block.text, caret));
      }
      el.dataset.raw = "";
    }
    if (at !== null) setCaret(el, at);
  }

  /** Puts the caret into a block's text: at an offset, or `"end"`. Answers whether there was one. */
  function focusText(blockId, at) {
    const el = pageView.textOf(blockId);
    if (!el || el.getAttribute("contenteditable") !== "plaintext-only") return false;
    el.focus({ preventScroll: false });
    const block = sync.block(blockId);
    showSource(el, at === "end" ? (block?.text.length ?? 0) : at);
    return true;
  }

  /** The text the caret is in, when a merge changed its block: the new text, the caret kept near. */
  function followFocused() {
    const el = textIn(document.activeElement);
    if (!el || el.dataset.raw === undefined) return;
    const block = sync.block(idOf(el));
    if (!block || readText(el) === block.text) return;
    const caret = getCaret(el)?.start ?? 0;
    el.textContent = block.text;
    setCaret(el, Math.min(caret, block.text.length));
  }

  function paintConflicts() {
    const conflicts = sync.conflicts();
    for (const el of root.querySelectorAll(".block.is-conflict")) {
      if (conflicts.has(el.dataset.blockId)) continue;
      el.classList.remove("is-conflict");
      el.querySelector(".conflict")?.remove();
      el.querySelector(".block-text[data-editable]")?.setAttribute("contenteditable", "plaintext-only");
    }
    for (const [blockId, conflict] of conflicts) {
      const el = pageView.elementOf(blockId);
      if (!el) continue;
      el.classList.add("is-conflict");
      el.querySelector(".block-text[data-editable]")?.setAttribute("contenteditable", "false");
      const key = JSON.stringify([conflict.theirs, conflict.yours.text]);
      const old = el.querySelector(".conflict");
      if (old?.dataset.key === key) continue;
      const typing = el.contains(document.activeElement) || document.activeElement === document.body;
      const card = conflictCard(conflict, {
        keepMine: () => {
          sync.keepMine(blockId);
          focusText(blockId, "end");
        },
        takeTheirs: () => {
          sync.takeTheirs(blockId);
          if (!focusText(blockId, "end")) root.focus();
        },
      });
      card.dataset.key = key;
      old ? old.replaceWith(card) : el.append(card);
      // The person was typing here: the choice is where the keyboard is now.
      if (typing) card.focus();
    }
  }

  /** A locked block says so when the person tries to change it. */
  function sayLocked(block) {
    if (block.querySelector(".lock-note")) return;
    block.append(h("p", { class: "lock-note", role: "status" }, "This block is locked, so it can't be edited here."));
  }

  // --- Keys -----------------------------------------------------------------------------------------

  /** Enter: a new block after this one with the text after the caret (a list goes on with a new item). */
  function split(el, block) {
    const text = readText(el);
    const { start, end } = getCaret(el) ?? { start: text.length, end: text.length };
    const blocks = sync.blocks().with(indexOf(block.blockId), { ...block, text });
    const i = indexOf(block.blockId);
    if (LIST_TYPES.has(block.type) && text === "") {
      // Enter on an empty item ends the list, as editors do.
      edit.change(blocks.with(i, asParagraph(block)));
      focusText(block.blockId, 0);
      return;
    }
    const fresh = { blockId: mintBlockId(), ...continuation(block), text: text.slice(end), editable: true };
    if (start === 0 && end === 0 && text !== "") {
      // At the very start: an empty block above, the caret stays with the text.
      edit.change(blocks.toSpliced(i, 0, { ...fresh, text: "" }));
      focusText(block.blockId, 0);
      return;
    }
    edit.change(blocks.with(i, { ...block, text: text.slice(0, start) }).toSpliced(i + 1, 0, fresh));
    focusText(fresh.blockId, 0);
  }

  /** Backspace at the start: an empty block goes, a list item becomes text, other text joins the one before. */
  function backspace(el, block) {
    const text = readText(el);
    const i = indexOf(block.blockId);
    const blocks = sync.blocks();
    if (text === "" && blocks.length > 1) {
      const before = neighbour(i, -1);
      const next = neighbour(i, 1);
      edit.change(blocks.toSpliced(i, 1));
      if (!(before && focusText(before.blockId, "end")) && next) focusText(next.blockId, 0);
      return;
    }
    if (LIST_TYPES.has(block.type) || (text === "" && block.type !== "paragraph")) {
      edit.change(blocks.with(i, { ...asParagraph(block), text }));
      focusText(block.blockId, 0);
      return;
    }
    const previous = blocks[i - 1];
    if (!joinable(previous)) return;
    edit.change(blocks.with(i - 1, { ...previous, text: previous.text + text }).toSpliced(i, 1));
    focusText(previous.blockId, previous.text.length);
  }

  /** Delete at the end: the next block's text joins this one. */
  function joinNext(el, block) {
    const text = readText(el);
    const i = indexOf(block.blockId);
    const blocks = sync.blocks();
    const next = blocks[i + 1];
    if (!joinable(next)) return;
    edit.change(blocks.with(i, { ...block, text: text + next.text }).toSpliced(i + 1, 1));
    focusText(block.blockId, text.length);
  }

  /** The "/" menu picked `kind` for the block of `el`, whose "/…" is `from…to`: one change, the "/…" gone. */
  function turnInto(kind, el, from, to) {
    const blockId = idOf(el);
    const block = sync.block(blockId);
    if (!block) return;
    const text = readText(el);
    const rest = text.slice(0, from) + text.slice(to);
    const i = indexOf(blockId);
    const blocks = sync.blocks();
    if (kind.type === "divider") {
      // A divider goes above an empty block (the caret stays in it to write on), below one with text.
      const divider = { blockId: mintBlockId(), type: "divider", text: "", editable: true };
      edit.change(blocks.with(i, { ...block, text: rest }).toSpliced(rest.trim() ? i + 1 : i, 0, divider));
    } else edit.change(blocks.with(i, retype(block, kind, rest)));
    focusText(blockId, from);
  }

  /** A Markdown marker just typed at the start of the block (`# `, `- `, …): the block's new type, in one change. */
  function shortcut(el) {
    const blockId = idOf(el);
    const block = sync.block(blockId);
    const caret = getCaret(el);
    if (!block || !caret || caret.start !== caret.end) return false;
    const next = markdownShortcut(block, readText(el), caret.start);
    if (!next) return false;
    edit.change(sync.blocks().with(indexOf(blockId), next));
    focusText(blockId, 0);
    return true;
  }

  /** Ctrl+B, Ctrl+I, Ctrl+K: the block's source with the mark or link toggled, the same words selected. */
  function format(el, block, key) {
    const text = readText(el);
    const { start, end } = getCaret(el) ?? { start: text.length, end: text.length };
    const out = key === "k" ? toggleLink(text, start, end) : toggleMark(text, start, end, key === "b" ? "bold" : "italic");
    edit.change(sync.blocks().with(indexOf(block.blockId), { ...block, text: out.text }));
    if (focusText(block.blockId, out.start)) setSelection(pageView.textOf(block.blockId), out.start, out.end);
  }

  /** Several pasted lines: the blocks they read as (Markdown), after this one or in place of it when empty. */
  async function paste(el, text) {
    const blockId = idOf(el);
    const pasted = await pastedBlocks(text, { page: sync.view(), mintBlockId });
    const i = indexOf(blockId);
    const block = sync.block(blockId);
    if (!pasted.length || i < 0 || !block) return;
    const empty = block.text === "";
    const next = empty ? sync.blocks().toSpliced(i, 1, { ...pasted[0], blockId }, ...pasted.slice(1)) : sync.blocks().toSpliced(i + 1, 0, ...pasted);
    edit.change(next);
    const last = next[(empty ? i : i + 1) + pasted.length - 1];
    focusText(last.blockId, "end");
  }

  const joinable = (block) => block && TEXT_TYPES.has(block.type) && block.editable !== false && !sync.conflicts().has(block.blockId);

  /** The nearest block in direction `step` whose text the person can edit. */
  function neighbour(i, step) {
    const blocks = sync.blocks();
    for (let j = i + step; j >= 0 && j < blocks.length; j += step) if (joinable(blocks[j])) return blocks[j];
    return null;
  }

  function onKey(event) {
    const el = textIn(event.target);
    if (!el) {
      const locked = event.target.closest?.(".block.is-locked");
      if (locked && !root.dataset.pick && (event.key.length === 1 || event.key === "Enter" || event.key === "Backspace")) {
        event.preventDefault();
        sayLocked(locked);
      }
      return;
    }
    if (event.isComposing || event.keyCode === 229 || event.defaultPrevented) return;
    const block = sync.block(idOf(el));
    if (!block || sync.conflicts().has(block.blockId)) return;
    const mod = (IS_MAC ? event.metaKey : event.ctrlKey) && !event.altKey;
    const key = event.key.toLowerCase();
    if (mod && (key === "z" || (key === "y" && !event.shiftKey))) {
      event.preventDefault();
      void (key === "y" || event.shiftKey ? edit.redo() : edit.undo());
      return;
    }
    if (mod && !event.shiftKey && ["b", "i", "k"].includes(key)) {
      event.preventDefault();
      if (block.type !== "code") format(el, block, key);
      return;
    }
    const turnKey = (IS_MAC ? event.metaKey : event.ctrlKey) && event.altKey && TURN_INTO_KEYS[event.code?.replace("Digit", "")];
    if (turnKey) {
      event.preventDefault();
      const at = getCaret(el)?.start ?? 0;
      edit.change(sync.blocks().with(indexOf(block.blockId), retype(block, kindOf(turnKey), readText(el))));
      focusText(block.blockId, at);
      return;
    }
    const text = readText(el);
    const caret = getCaret(el);
    const collapsed = caret && caret.start === caret.end;
    const atStart = collapsed && caret.start === 0;
    const atEnd = collapsed && caret.end === text.length;
    const plain = !event.shiftKey && !event.altKey;
    // Shift+arrow past the first or last line of a block selects blocks (js/block-selection.js).
    const edgeUp = event.key === "ArrowUp" && caret?.start === 0 && onEdgeLine(el, "up");
    const edgeDown = event.key === "ArrowDown" && caret?.end === text.length && onEdgeLine(el, "down");
    if (event.shiftKey && !event.altKey && !mod && (edgeUp || edgeDown)) {
      event.preventDefault();
      selection.extend(block.blockId, edgeUp ? -1 : 1);
      return;
    }
    const i = indexOf(block.blockId);
    let handled = true;
    // Tab moves a list item in or out; where it cannot (or outside a list), Tab moves the focus as ever.
    const indented = event.key === "Tab" && !mod && !event.altKey ? indent(sync.blocks(), i, event.shiftKey ? -1 : 1) : null;
    if (indented) {
      edit.change(indented);
      focusText(block.blockId, caret?.start ?? 0);
    } else if (event.key === "Enter" && !event.shiftKey && (block.type !== "code" || event.ctrlKey || event.metaKey)) split(el, block);
    else if (event.key === "Backspace" && atStart && plain) backspace(el, block);
    else if (event.key === "Delete" && atEnd && plain) joinNext(el, block);
    else if (plain && ((event.key === "ArrowUp" && onEdgeLine(el, "up")) || (event.key === "ArrowLeft" && atStart))) {
      const before = neighbour(i, -1);
      handled = Boolean(before && focusText(before.blockId, "end"));
    } else if (plain && ((event.key === "ArrowDown" && onEdgeLine(el, "down")) || (event.key === "ArrowRight" && atEnd))) {
      const next = neighbour(i, 1);
      handled = Boolean(next && focusText(next.blockId, 0));
    } else if (event.key === "Escape") el.blur();
    else handled = false;
    if (handled) event.preventDefault();
  }

  // --- Events ---------------------------------------------------------------------------------------

  root.addEventListener("focusin", (event) => {
    for (const note of root.querySelectorAll(".lock-note")) if (!note.parentElement.contains(event.target)) note.remove();
    const el = textIn(event.target);
    // After the browser has placed the caret where the person clicked.
    if (el) setTimeout(() => document.activeElement === el && showSource(el));
  });
  // Typing into the formatted text would lose its Markdown: the source comes first. The browser's own undo
  // (its Edit menu) is this editor's.
  root.addEventListener("beforeinput", (event) => {
    const el = textIn(event.target);
    if (!el) return;
    if (event.inputType === "historyUndo" || event.inputType === "historyRedo") {
      event.preventDefault();
      void (event.inputType === "historyUndo" ? edit.undo() : edit.redo());
      return;
    }
    showSource(el);
  });
  root.addEventListener("input", (event) => {
    const el = textIn(event.target);
    if (!el) return;
    edit.setText(idOf(el), readText(el));
    if (event.inputType === "insertText" && !menu.isOpen() && shortcut(el)) return;
    menu.typed(el, event.inputType);
  });
  root.addEventListener("paste", (event) => {
    const el = textIn(event.target);
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (!el || !isMultiLine(text)) return;
    event.preventDefault();
    void paste(el, text);
  });
  root.addEventListener("focusout", (event) => {
    const el = event.target.closest?.(".block-text[data-editable]");
    if (!el || el.dataset.raw === undefined || drawing || !root.contains(el)) return;
    const blockId = idOf(el);
    edit.setText(blockId, readText(el));
    edit.endRun();
    delete el.dataset.raw;
    draw();
    if (root.contains(el) && el !== document.activeElement) pageView.redraw(blockId);
    void sync.flush();
  });
  root.addEventListener("keydown", onKey);
  root.addEventListener("click", (event) => {
    if (root.dataset.pick) return;
    const box = event.target.closest("button.checkbox");
    if (box) {
      const blockId = box.closest("[data-block-id]").dataset.blockId;
      const block = sync.block(blockId);
      if (!block || sync.conflicts().has(blockId)) return;
      const attrs = { ...block.attrs, checked: !block.attrs?.checked };
      edit.change(sync.blocks().with(indexOf(blockId), { ...block, attrs }));
      pageView.elementOf(blockId)?.querySelector("button.checkbox")?.focus();
      return;
    }
    const locked = event.target.closest(".block.is-locked");
    if (locked && editable) sayLocked(locked);
  });

  return { draw, focusText };
}

/** The block Enter starts after `block`: a list goes on with an item of its kind, anything else a paragraph. */
function continuation(block) {
  if (!LIST_TYPES.has(block.type)) return { type: "paragraph" };
  const depth = block.attrs?.depth;
  const attrs = { ...(block.type === "todo" ? { checked: false } : {}), ...(depth ? { depth } : {}) };
  return { type: block.type, ...(Object.keys(attrs).length ? { attrs } : {}) };
}

function asParagraph(block) {
  const { attrs, ...rest } = block;
  return { ...rest, type: "paragraph" };
}
