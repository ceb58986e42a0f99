// Ctrl+B, Ctrl+I and Ctrl+K (⌘ on macOS) on a block's Markdown source, which the block shows while the
// caret is in it: bold (`**…**`), italic (`_…_`) and a link (`[…](url)`) around the selection, each taken
// off again when the selection already has it. Pure functions of the text and the selection: the editor
// (js/block-editor.js) writes the answer as one change and selects what they say.

const MARKS = { bold: ["**"], italic: ["_", "*"] };

/**
 * `text` with the selection `start…end` made bold or italic, or made plain again when it already is (the
 * marks just outside the selection, or at its two ends). Answers `{text, start, end}`: the new text and the
 * selection over the same words. An empty selection gets an empty pair of marks with the caret inside.
 */
export function toggleMark(text, start, end, kind) {
  const marks = MARKS[kind];
  for (const mark of marks) {
    const n = mark.length;
    const outside = text.slice(start - n, start) === mark && text.slice(end, end + n) === mark;
    // `**` around the selection is not italic's `*` twice.
    const alone = !(kind === "italic" && mark === "*" && (text[start - n - 1] === "*" || text[end + n] === "*"));
    if (outside && alone && start >= n) {
      return { text: text.slice(0, start - n) + text.slice(start, end) + text.slice(end + n), start: start - n, end: end - n };
    }
    const inner = text.slice(start, end);
    if (inner.length >= 2 * n && inner.startsWith(mark) && inner.endsWith(mark) && alone) {
      return { text: text.slice(0, start) + inner.slice(n, -n) + text.slice(end), start, end: end - 2 * n };
    }
  }
  const mark = marks[0];
  const n = mark.length;
  return { text: text.slice(0, start) + mark + text.slice(start, end) + mark + text.slice(end), start: start + n, end: end + n };
}

/**
 * Ctrl+K: the selection becomes a link's label, `[label](url)`, with "url" selected to type over; with no
 * selection, `[text](url)` goes in at the caret with "url" selected. A selection inside a link (or a link
 * selected whole) takes the link off and keeps its label.
 */
export function toggleLink(text, start, end) {
  for (const m of text.matchAll(/\[([^\]]*)\]\(([^)\s]*)\)/g)) {
    const from = m.index;
    const to = m.index + m[0].length;
    if (start >= from && end <= to && (start !== end || (start > from && end < to))) {
      const label = m[1];
      return { text: text.slice(0, from) + label + text.slice(to), start: from, end: from + label.length };
    }
  }
  const label = start === end ? "text" : text.slice(start, end);
  const link = `[${label}](url)`;
  const at = start + label.length + 3;
  return { text: text.slice(0, start) + link + text.slice(end), start: at, end: at + 3 };
}
