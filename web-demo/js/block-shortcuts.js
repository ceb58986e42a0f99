// What the keyboard does to a block's type and place, as pure functions of the page's blocks (the editor,
// js/block-editor.js, applies their answer as one change): the Markdown shortcuts typed at the start of a
// block (`# `, `- `, `1. `, `[] `, `> `, three backticks; the markers come from js/block-types.js), and
// Tab / Shift+Tab, which indent and outdent a list item (its `depth`, as js/page-view.js draws it).

import { BLOCK_KINDS, LIST_TYPES, retype } from "./block-types.js";

/** The block types a shortcut may turn into another: text a person writes (never code, where `# ` is text). */
const SHORTCUT_FROM = new Set(["paragraph", "heading", "bulleted_list_item", "numbered_list_item", "todo", "quote"]);

/**
 * The block `block` becomes when the person has just typed a Markdown marker that ends at `caret` (the text
 * before the caret is exactly the marker), with the marker taken out; null when there is none. A list item
 * typed into a list item of the same kind changes nothing (`- ` in a bullet is text).
 */
export function markdownShortcut(block, text, caret) {
  if (!SHORTCUT_FROM.has(block.type)) return null;
  const typed = text.slice(0, caret);
  const kind = BLOCK_KINDS.find((k) => k.markers.includes(typed));
  if (!kind) return null;
  const next = retype(block, kind, text.slice(caret));
  const sameKind = next.type === block.type && sorted(next.attrs) === sorted(block.attrs);
  return sameKind ? null : next;
}

/** Attributes as a string with sorted keys, to compare two sets. */
const sorted = (attrs) => JSON.stringify(Object.entries(attrs ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));

/**
 * The page's blocks with the list item at `i` one level deeper (`step` 1) or shallower (-1); null when it
 * cannot move: not a list item, already at the top, or deeper than one level below the item before it (a
 * list has no gaps in its nesting).
 */
export function indent(blocks, i, step) {
  const block = blocks[i];
  if (!block || !LIST_TYPES.has(block.type)) return null;
  const depth = block.attrs?.depth ?? 0;
  const previous = blocks[i - 1];
  const deepest = previous && LIST_TYPES.has(previous.type) ? (previous.attrs?.depth ?? 0) + 1 : 0;
  const next = depth + step;
  if (next < 0 || next > deepest) return null;
  return blocks.with(i, { ...block, attrs: { ...block.attrs, depth: next } });
}
