// The caret in an editable block's text, as an offset into the block's text: text nodes count their
// characters, a <br> counts as one line break. The editor reads and places the caret through these, so it
// never depends on how the browser split the text into nodes while the person typed.

/** The element's text as the person typed it (text nodes, and a line break per <br>). */
export function readText(el) {
  let text = "";
  walk(el, (node) => {
    text += node.nodeType === Node.TEXT_NODE ? node.data : "\n";
  });
  // A trailing <br> only holds an empty last line open; it is not text.
  return el.lastChild?.nodeName === "BR" ? text.slice(0, -1) : text;
}

/** The selection in `el` as `{start, end}` offsets, or null when the selection is not inside `el`. */
export function getCaret(el) {
  const selection = getSelection();
  if (!selection?.rangeCount) return null;
  const range = selection.getRangeAt(0);
  if (!el.contains(range.startContainer) || !el.contains(range.endContainer)) return null;
  return { start: offsetOf(el, range.startContainer, range.startOffset), end: offsetOf(el, range.endContainer, range.endOffset) };
}

/** Places a collapsed caret at `offset` in `el` (clamped to its text). */
export function setCaret(el, offset) {
  setSelection(el, offset, offset);
}

/** Selects `start…end` in `el` (offsets into its text, clamped to it). */
export function setSelection(el, start, end) {
  const range = document.createRange();
  const [startNode, startAt] = pointAt(el, start);
  const [endNode, endAt] = pointAt(el, Math.max(start, end));
  range.setStart(startNode, startAt);
  range.setEnd(endNode, endAt);
  const selection = getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

/** The DOM position of text offset `offset` in `el`: `[node, offset]` (the end of `el` past its text). */
function pointAt(el, offset) {
  let left = Math.max(0, offset);
  let point = null;
  walk(el, (node) => {
    if (point) return;
    const size = node.nodeType === Node.TEXT_NODE ? node.data.length : 1;
    if (left <= size && node.nodeType === Node.TEXT_NODE) point = [node, left];
    else if (left < size) point = [node.parentNode, [...node.parentNode.childNodes].indexOf(node)];
    else left -= size;
  });
  return point ?? [el, el.childNodes.length];
}

/** Whether the caret sits on the first (`up`) or last (`down`) visual line of `el`. */
export function onEdgeLine(el, direction) {
  const selection = getSelection();
  if (!selection?.rangeCount) return true;
  const range = selection.getRangeAt(0).cloneRange();
  range.collapse(direction === "up");
  const rects = range.getClientRects();
  const caret = rects[0] ?? range.getBoundingClientRect();
  const box = el.getBoundingClientRect();
  // An empty line has no rect; it is then the element's only line.
  if (!caret || (caret.top === 0 && caret.bottom === 0)) return true;
  const line = parseFloat(getComputedStyle(el).lineHeight) || caret.height || 20;
  return direction === "up" ? caret.top - box.top < line * 0.8 : box.bottom - caret.bottom < line * 0.8;
}

/**
 * Where `rendered` offset `at` (in the formatted text a block shows, Markdown markers hidden) falls in the
 * block's source `source`: the formatted text is the source with markers left out, so walking both in order
 * pairs each shown character with its source character.
 */
export function sourceOffset(rendered, source, at) {
  let j = 0;
  for (let i = 0; i < at && j < source.length; i++) {
    while (j < source.length && source[j] !== rendered[i]) j++;
    j++;
  }
  return Math.min(j, source.length);
}

function offsetOf(el, container, offset) {
  if (container.nodeType === Node.TEXT_NODE) return before(el, container) + offset;
  // An offset into an element counts its first `offset` children.
  const child = container.childNodes[offset];
  if (child) return before(el, child);
  let total = 0;
  walk(container === el ? el : container, (node) => {
    total += node.nodeType === Node.TEXT_NODE ? node.data.length : 1;
  });
  return container === el ? total : before(el, container) + total;
}

/** Characters before `target` in `el`. */
function before(el, target) {
  let total = 0;
  let done = false;
  walk(el, (node) => {
    if (done) return;
    if (node === target || target.contains?.(node)) {
      done = true;
      return;
    }
    total += node.nodeType === Node.TEXT_NODE ? node.data.length : 1;
  });
  return total;
}

/** Calls `visit` with every text node and <br> under `el`, in document order. */
function walk(el, visit) {
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, {
    acceptNode: (node) => (node.nodeType === Node.TEXT_NODE || node.nodeName === "BR" ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP),
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) visit(node);
}
