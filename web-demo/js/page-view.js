// The page as blocks. Each block is an element with `data-block-id` and `data-block-type`; hovering shows
// its id and type in a label above the block (never over its text). The view also paints what a context
// holds (targets, context-only neighbours, blocks left out), lets the user pick blocks for the `block` and
// `selection` scopes, shows a command's preview in place (changed blocks display their diff until the
// preview is cleared), and marks where a command's text is on the page (the matches of a repeated text).
// Drawn editable, each block's text can be changed in place (js/block-editor.js handles the keys); drawing
// again keeps the element of every block that did not change and of the one the person is typing in (unless
// its type or attributes changed, which draws it anew).

import { diffSpans } from "./diff-view.js";
import { h, replace } from "./dom.js";
import { inline, lines } from "./inline.js";

const TYPE_LABELS = {
  heading: "Heading",
  paragraph: "Paragraph",
  bulleted_list_item: "Bullet",
  numbered_list_item: "Numbered",
  todo: "To-do",
  quote: "Quote",
  code: "Code",
  divider: "Divider",
  image: "Image",
  table: "Table",
};

/**
 * @param {HTMLElement} root where the blocks go
 * @param {{ onPick: (blockId: string) => void, restAfter?: Promise<unknown> }} handlers `restAfter`: a long
 *   page's blocks past its top are drawn once it settles (the page's panels have read what they show), so
 *   those steps do not stand between the panels' answers and the person
 */
export function createPageView(root, { onPick, restAfter = Promise.resolve() }) {
  let elements = new Map(); // blockId → element
  let blocks = new Map(); // blockId → [block, list number], to restore a block after a preview
  let previewed = []; // ids of blocks that show a diff now
  let marked = []; // ids of blocks whose matches are marked now
  const keys = new WeakMap(); // element → what it was drawn from
  const shapes = new WeakMap(); // element → its block's type and attributes, as drawn
  // A long page is drawn in steps: the first FIRST_DRAW blocks at once, then DRAW_STEP more per task, so
  // it shows and takes input at once while the rest follows (`drawn` blocks so far; `more` is the timer).
  let drawn = 0;
  let more = null;
  let lastDraw = null; // [page, options] of the newest render, which the next step draws
  // What painted the drawn blocks, given again to blocks drawn later: the context, the pick mode, the picks.
  let painted = { context: null, pick: null, picked: [] };
  let afterDrawing = () => {}; // what draws over the blocks once they are drawn (the pending suggestions)

  root.addEventListener("click", (event) => {
    if (!root.dataset.pick) return;
    const block = event.target.closest("[data-block-id]");
    if (!block || !root.contains(block)) return;
    event.preventDefault();
    onPick(block.dataset.blockId);
  });
  root.addEventListener("keydown", (event) => {
    if (!root.dataset.pick || (event.key !== "Enter" && event.key !== " ")) return;
    const block = event.target.closest("[data-block-id]");
    if (!block) return;
    event.preventDefault();
    onPick(block.dataset.blockId);
  });

  /** Draws a block as it is again, after a preview or marks. */
  function restore(id) {
    const el = elements.get(id);
    const [block, number, editable] = blocks.get(id) ?? [];
    if (!el || !block) return;
    el.classList.remove("is-previewed", "is-deleting");
    replace(el.querySelector(".block-body"), body(block, number, editable && !root.dataset.pick));
  }

  /** Takes a preview's diffs and the marks off the page. */
  function clearOverlays() {
    for (const id of new Set([...previewed, ...marked])) restore(id);
    for (const id of marked) elements.get(id)?.classList.remove("is-match");
    previewed = [];
    marked = [];
  }

  /** Whether the person is typing in the block (a preview or a mark must not replace its text then). */
  const typingIn = (el) => el.contains(document.activeElement) && document.activeElement.matches(".block-text");

  const view = {
    /**
     * Draws every block of `page`. With `editable`, the text of each block a person may change is
     * editable in place. A block that looks as before keeps its element, and so does the one the person
     * is typing in (the editor owns its text), so drawing again never moves the caret. A long page is
     * drawn in steps (its top at once, the rest in later tasks; `data-drawn` on the root says "partial"
     * until it is all there).
     */
    render(page, { editable = false } = {}) {
      clearOverlays();
      cancelIdleCallback(more);
      lastDraw = [page, { editable }];
      const total = page.blocks.length;
      // A long page's first drawing shows its top; an unfinished one goes on where it was.
      const upTo = Math.min(total, drawn === 0 ? FIRST_DRAW : drawn + DRAW_STEP);
      const numbering = numberer();
      const numbers = page.blocks.map((block) => numbering(block));
      // The text the person is typing in keeps its element (a focused checkbox is simply focused again).
      const focused = document.activeElement?.matches(".block-text") ? document.activeElement : null;
      const fresh = [];
      const nodes = page.blocks.slice(0, upTo).map((block, i) => {
        const key = JSON.stringify([block, numbers[i], editable]);
        const shape = JSON.stringify([block.type, block.attrs ?? {}, block.editable, editable]);
        const old = elements.get(block.blockId);
        // The focused text keeps its element while its block keeps its look; a new type, level or depth
        // draws the block anew (the editor puts the caret back).
        if (old && (keys.get(old) === key || (focused && old.contains(focused) && shapes.get(old) === shape))) {
          const marker = old.querySelector(".marker");
          if (marker && block.type === "numbered_list_item") marker.textContent = `${numbers[i] ?? 1}.`;
          keys.set(old, key);
          return old;
        }
        const el = renderBlock(block, numbers[i], editable && !root.dataset.pick);
        keys.set(el, key);
        shapes.set(el, shape);
        if (!old) fresh.push(el);
        return el;
      });
      elements = new Map(nodes.map((el) => [el.dataset.blockId, el]));
      blocks = new Map(page.blocks.map((b, i) => [b.blockId, [b, numbers[i], editable]]));
      // The lists of the last drawing go first: they hold no focus, and only blocks are then in place.
      for (const list of root.querySelectorAll(":scope > .block-list")) list.remove();
      // In order, moving only what is out of place (moving the focused element would blur it).
      // (A cursor, not root.children[i]: indexing the live list after each insert is quadratic.)
      let at = root.firstElementChild;
      for (const node of nodes) {
        if (at === node) at = at.nextElementSibling;
        else root.insertBefore(node, at);
      }
      while (at) {
        const extra = at;
        at = at.nextElementSibling;
        extra.remove();
      }
      // Each run of list items of one kind is one list to assistive tech ("list, 3 items"). The blocks stay
      // siblings (the editor and the page's order rely on it): an empty element before the run owns them.
      ownLists(page.blocks.slice(0, upTo));
      // Blocks drawn for the first time take the context, pick mode and picks the drawn ones show.
      if (fresh.length && drawn > 0) paint(fresh);
      drawn = upTo;
      afterDrawing();
      drawLater();
    },

    /** Draws the rest of a long page now (something needs a block further down). */
    drawAll() {
      while (lastDraw && drawn < lastDraw[0].blocks.length) drawMore();
    },

    /** Draws one block's body again from the last render (its text formatted, after editing it). */
    redraw(blockId) {
      restore(blockId);
      afterDrawing();
    },

    /** `fn` runs after every drawing of the blocks, to draw over them (js/suggestion-view.js). */
    afterDraw(fn) {
      afterDrawing = fn;
    },

    /** The element of a block, and the editable text in it (null when the block has none). */
    elementOf: (blockId) => elements.get(blockId) ?? null,
    textOf: (blockId) => elements.get(blockId)?.querySelector(".block-text") ?? null,

    /** Lights a block up for a moment: it just changed elsewhere (another tab, Hermes, the assistant). */
    flash(blockId) {
      const el = elements.get(blockId);
      if (!el) return;
      el.classList.remove("just-changed");
      void el.offsetWidth; // restarts the animation when it is still running
      el.classList.add("just-changed");
      el.addEventListener("animationend", () => el.classList.remove("just-changed"), { once: true });
    },

    /**
     * Shows a tool result's diff in place: each changed block displays its inline diff, deleted blocks are
     * struck through. `null` restores the page. With `reveal`, the first changed block is scrolled into
     * view (the caller says whether that may move anything it cares about, such as the command input).
     */
    showPreview(result, { reveal = false } = {}) {
      const restored = previewed.length > 0;
      for (const id of previewed) restore(id);
      previewed = [];
      // Blocks drawn back as they are get their marks again (nothing restored: nothing to mark again).
      if (!result) return restored ? afterDrawing() : undefined;
      for (const d of result.diff) {
        const el = elements.get(d.blockId);
        if (!el || typingIn(el)) continue; // an inserted block (the command panel shows it), or in use
        const change = result.changedBlocks.find((c) => c.blockId === d.blockId);
        el.classList.add(change?.op === "delete" ? "is-deleting" : "is-previewed");
        replace(el.querySelector(".block-body"), h("p", { class: "inline-diff" }, diffSpans(d.inline)));
        previewed.push(d.blockId);
      }
      // Never while the person types in a block: the page must not move under the caret.
      const typing = document.activeElement?.matches(".block-text");
      if (reveal && previewed[0] && !typing) elements.get(previewed[0]).scrollIntoView({ block: "center", behavior: "smooth" });
    },

    /**
     * Marks `text` in the blocks `blockIds` (each occurrence in the rendered text gets a <mark>; a block
     * whose occurrence spans formatting is marked as a whole). `null` clears the marks.
     */
    highlight(marks) {
      for (const id of marked) {
        if (!previewed.includes(id)) restore(id);
        elements.get(id)?.classList.remove("is-match");
      }
      marked = [];
      if (!marks) return;
      for (const id of marks.blockIds ?? []) {
        const el = elements.get(id);
        if (!el || previewed.includes(id) || typingIn(el)) continue;
        el.classList.add("is-match");
        if (marks.text) markText(el.querySelector(".block-body"), marks.text);
        marked.push(id);
      }
    },

    /** `"one"`, `"many"` or `null`: whether clicking a block picks it. */
    setPickMode(mode) {
      if (mode) root.dataset.pick = mode;
      else delete root.dataset.pick;
      painted.pick = mode;
      for (const el of elements.values()) pickMode(el, mode);
    },

    /** Marks the picked blocks. */
    setPicked(ids) {
      painted.picked = ids;
      const picked = new Set(ids);
      for (const [id, el] of elements) el.classList.toggle("is-picked", picked.has(id));
    },

    /**
     * Paints a context over the page: blocks in it, write targets, context-only neighbours. `null` clears.
     * Without the json view, membership comes from allowedTargetBlockIds and pageXml ids.
     */
    showContext(context) {
      painted.context = context && contextMarks(context);
      for (const el of elements.values()) contextClasses(el, painted.context);
    },

    /** Scrolls a block into view (drawing the rest of a long page first, when it is further down). */
    reveal(blockId) {
      if (!elements.has(blockId)) view.drawAll();
      elements.get(blockId)?.scrollIntoView({ block: "center", behavior: "smooth" });
    },
  };

  /** Says whether the page is all drawn, and asks for the next step when it is not. */
  function drawLater() {
    const partial = lastDraw !== null && drawn < lastDraw[0].blocks.length;
    root.dataset.drawn = partial ? "partial" : "all";
    // When the browser is idle (the page shown, its requests answered, no input waiting), at the latest
    // after DRAW_WAIT_MS; the first step waits for `restAfter`. A person who asks for a block further down
    // meanwhile gets the page drawn at once (`reveal`).
    if (!partial) return;
    if (settled) more = requestIdleCallback(drawMore, { timeout: DRAW_WAIT_MS });
    else rest ??= restAfter.then(settle, settle); // a page that failed to open still gets its blocks
  }
  let settled = false;
  let rest = null; // restAfter, waited on once
  const settle = () => {
    settled = true;
    drawLater();
  };

  /**
   * Draws the next DRAW_STEP blocks of the last rendered page, after the drawn ones, which are as drawn:
   * a step keeps what is shown over them (a preview, marks) and touches nothing else.
   */
  function drawMore() {
    cancelIdleCallback(more);
    const [page, { editable }] = lastDraw;
    const upTo = Math.min(page.blocks.length, drawn + DRAW_STEP);
    const numbering = numberer();
    const numbers = page.blocks.slice(0, upTo).map((block) => numbering(block));
    const fresh = [];
    for (let i = drawn; i < upTo; i++) {
      const block = page.blocks[i];
      const el = renderBlock(block, numbers[i], editable && !root.dataset.pick);
      keys.set(el, JSON.stringify([block, numbers[i], editable]));
      shapes.set(el, JSON.stringify([block.type, block.attrs ?? {}, block.editable, editable]));
      elements.set(block.blockId, el);
      fresh.push(el);
    }
    root.append(...fresh);
    // A list that runs across the step's edge is one list: the runs are owned again.
    for (const list of root.querySelectorAll(":scope > .block-list")) list.remove();
    ownLists(page.blocks.slice(0, upTo));
    paint(fresh);
    drawn = upTo;
    afterDrawing();
    drawLater();
  }

  /** Each run of list items of one kind among `drawnBlocks` is one list to assistive tech. */
  function ownLists(drawnBlocks) {
    for (const run of listRuns(drawnBlocks)) {
      const owns = run.map((id) => elements.get(id).id).filter(Boolean).join(" ");
      if (owns) root.insertBefore(h("div", { class: "block-list", role: "list", "aria-owns": owns }), elements.get(run[0]));
    }
  }

  /** Gives blocks drawn after the others what the others show: the context's marks, pick mode, picks. */
  function paint(els) {
    const picked = new Set(painted.picked);
    for (const el of els) {
      contextClasses(el, painted.context);
      if (painted.pick) pickMode(el, painted.pick);
      if (picked.has(el.dataset.blockId)) el.classList.add("is-picked");
    }
  }

  return view;
}

// How many blocks a long page draws at once, then per step, and how long a step may wait for an idle
// browser (see `render`). The first draw is a few screens (~25 blocks fill a desktop window): its text is
// laid out before the page shows, ~60 ms for 200 blocks of English and Chinese in a fresh tab.
const FIRST_DRAW = 60;
const DRAW_STEP = 500;
const DRAW_WAIT_MS = 500;

/** Whether clicking a block picks it (`mode`) or places the caret in it. */
function pickMode(el, mode) {
  if (mode) el.setAttribute("tabindex", "0");
  else if (!el.classList.contains("is-locked")) el.removeAttribute("tabindex");
  // While picking, a click picks the block instead of placing the caret in it.
  const text = el.querySelector(".block-text[data-editable]");
  if (text) text.setAttribute("contenteditable", mode ? "false" : "plaintext-only");
}

/**
 * Which blocks a context holds, as sets: in it, context-only neighbours, write targets. Without the json
 * view, membership comes from allowedTargetBlockIds and pageXml ids.
 */
function contextMarks(context) {
  const inContext = new Set();
  const contextOnly = new Set();
  for (const b of context.blocks ?? []) (b.contextOnly ? contextOnly : inContext).add(b.blockId);
  if (!context.blocks && context.pageXml) {
    for (const m of context.pageXml.matchAll(/<block id="([^"]+)"([^>]*)>/g)) {
      (/context-only="true"/.test(m[2]) ? contextOnly : inContext).add(m[1]);
    }
  }
  return { inContext, contextOnly, targets: new Set(context.allowedTargetBlockIds ?? []) };
}

/** Paints a block by the context's marks (`null`: no context). */
function contextClasses(el, marks) {
  const id = el.dataset.blockId;
  const known = marks && marks.inContext.size + marks.contextOnly.size > 0;
  el.classList.toggle("is-target", Boolean(marks?.targets.has(id)));
  el.classList.toggle("in-context", Boolean(marks?.inContext.has(id)));
  el.classList.toggle("is-context-only", Boolean(marks?.contextOnly.has(id)));
  el.classList.toggle("is-outside", Boolean(known && !marks.inContext.has(id) && !marks.contextOnly.has(id)));
}

/** Numbers consecutive numbered items per depth; any other block ends the run. */
function numberer() {
  let counters = [];
  return (block) => {
    const depth = block.attrs?.depth ?? 0;
    if (block.type === "numbered_list_item") {
      counters = counters.slice(0, depth + 1);
      counters[depth] = (counters[depth] ?? 0) + 1;
      return counters[depth];
    }
    if (block.type === "bulleted_list_item" || block.type === "todo") {
      counters = counters.slice(0, depth);
    } else {
      counters = [];
    }
    return undefined;
  };
}

const LIST_TYPES = new Set(["bulleted_list_item", "numbered_list_item", "todo"]);

/** The ids of each run of consecutive list items of one type, in page order. */
function listRuns(pageBlocks) {
  const runs = [];
  let type = null;
  for (const block of pageBlocks) {
    if (!LIST_TYPES.has(block.type)) type = null;
    else if (block.type === type) runs.at(-1).push(block.blockId);
    else {
      type = block.type;
      runs.push([block.blockId]);
    }
  }
  return runs;
}

/** Wraps each occurrence of `text` in the text nodes under `root` in a <mark>. */
function markText(root, text) {
  if (!root || !text) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
  for (const node of nodes) {
    const parts = node.data.split(text);
    if (parts.length < 2) continue;
    const pieces = parts.flatMap((part, i) => (i === 0 ? [part] : [h("mark", { class: "match" }, text), part]));
    node.replaceWith(...pieces.filter((p) => p !== ""));
  }
}

function renderBlock(block, number, editable) {
  const label = TYPE_LABELS[block.type] ?? block.type;
  const locked = block.editable === false;
  const item = LIST_TYPES.has(block.type);
  const el = h(
    "div",
    {
      class: `block block--${block.type}${locked ? " is-locked" : ""}`,
      // A list item is owned by its run's list (see render); its depth is its level in that list.
      id: item ? `block-${block.blockId}` : undefined,
      role: item ? "listitem" : undefined,
      "aria-level": item && block.attrs?.depth ? String(block.attrs.depth + 1) : undefined,
      "data-block-id": block.blockId,
      "data-block-type": block.type,
      title: `${label} · ${block.blockId}${locked ? " · locked" : ""}`,
      // A locked block can still be reached with the keyboard, to hear that it is locked.
      tabindex: locked && editable ? "0" : undefined,
      "aria-label": locked && editable ? `${label}, locked: it can't be edited` : undefined,
    },
    h("div", { class: "block-body" }, body(block, number, editable)),
    // The drag handle (js/block-drag.js): a pointer's way to move the block. The keyboard's is the block
    // selection's Alt+arrows, so the handle is no Tab stop and nothing a screen reader lists.
    editable && !locked
      ? h("span", { class: "block-handle", "aria-hidden": "true", title: "Drag to move (keyboard: Shift+↑/↓ selects, Alt+↑/↓ moves)" })
      : null,
    h(
      "span",
      { class: "block-badge", "aria-hidden": "true" },
      h("span", { class: "block-badge-type" }, label),
      h("span", { class: "block-badge-id" }, block.blockId),
      locked ? h("span", { class: "block-badge-lock" }, "locked") : null,
    ),
  );
  // Through the CSSOM, not a style attribute: a strict Content-Security-Policy allows only this.
  if (block.attrs?.depth) el.style.setProperty("--depth", String(block.attrs.depth));
  return el;
}

/**
 * The element that holds a block's text: editable in place (plain text, the block's Markdown source while
 * the caret is in it) when the person may change it.
 */
function text(tag, block, editable, children, props = {}) {
  const open = editable && block.editable !== false;
  return h(
    tag,
    {
      ...props,
      class: `block-text${props.class ? ` ${props.class}` : ""}`,
      contenteditable: open ? "plaintext-only" : undefined,
      "data-editable": open ? true : undefined,
      spellcheck: open && block.type !== "code" ? "true" : undefined,
    },
    children,
  );
}

function body(block, number, editable = false) {
  const source = block.text ?? "";
  const attrs = block.attrs ?? {};
  const open = editable && block.editable !== false;
  switch (block.type) {
    case "heading":
      return text(`h${Math.min(Math.max(attrs.level ?? 2, 1), 4)}`, block, editable, inline(source));
    case "bulleted_list_item":
      return h("div", { class: "list-item" }, h("span", { class: "marker" }, "•"), text("div", block, editable, inline(source)));
    case "numbered_list_item":
      return h("div", { class: "list-item" }, h("span", { class: "marker" }, `${number ?? 1}.`), text("div", block, editable, inline(source)));
    case "todo": {
      // The checkbox is named by its to-do ("Done: Run make test"), read from the text as it is now, so the
      // name follows what the person types: its own label, then the text (aria-labelledby naming itself).
      const box = `todo-box-${block.blockId}`;
      const label = `todo-text-${block.blockId}`;
      return h(
        "div",
        { class: `list-item todo${attrs.checked ? " is-done" : ""}` },
        open
          ? h("button", {
              type: "button",
              class: "checkbox",
              id: box,
              role: "checkbox",
              "aria-checked": String(Boolean(attrs.checked)),
              "aria-label": "Done:",
              "aria-labelledby": `${box} ${label}`,
            })
          : h("span", { class: "checkbox", role: "img", "aria-label": attrs.checked ? "done" : "open" }),
        text("div", block, editable, inline(source), { id: label }),
      );
    }
    case "quote":
      return text("blockquote", block, editable, lines(source));
    case "code":
      return h(
        "figure",
        { class: "code" },
        attrs.language ? h("figcaption", {}, attrs.language) : null,
        h("pre", {}, text("code", block, editable, source)),
      );
    case "divider":
      return h("hr");
    case "image":
      return h("img", { src: attrs.src ?? "", alt: attrs.alt ?? "", loading: "lazy" });
    case "table":
      return table(source);
    default:
      return text("p", block, editable, lines(source));
  }
}

/** A GFM table from its source: header row, delimiter row, body rows. */
function table(source) {
  const rows = source
    .split("\n")
    .filter((line) => line.trim() !== "")
    .filter((line) => !/^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/.test(line))
    .map(cells);
  const [head = [], ...rest] = rows;
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, inline(c))))),
      h("tbody", {}, rest.map((r) => h("tr", {}, r.map((c) => h("td", {}, inline(c)))))),
    ),
  );
}

function cells(line) {
  const trimmed = line.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((c) => c.trim().replaceAll("\\|", "|"));
}
