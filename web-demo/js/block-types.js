// The kinds of block a person can turn a block into, in one table: the "/" menu (js/slash-menu.js) lists
// them, the Markdown shortcuts (js/block-shortcuts.js) read their markers from it, and `retype` is the one
// place that says what a block keeps when its type changes.

/**
 * Each kind: the block `type` and `attrs` it becomes, the words the menu shows and filters on, and the
 * Markdown markers that, typed at the start of a block, turn it into this kind.
 */
export const BLOCK_KINDS = [
  { key: "paragraph", label: "Text", type: "paragraph", words: "text paragraph plain", markers: [] },
  { key: "h1", label: "Heading 1", type: "heading", attrs: { level: 1 }, words: "heading title h1", markers: ["# "] },
  { key: "h2", label: "Heading 2", type: "heading", attrs: { level: 2 }, words: "heading subtitle h2", markers: ["## "] },
  { key: "h3", label: "Heading 3", type: "heading", attrs: { level: 3 }, words: "heading h3", markers: ["### "] },
  { key: "bulleted", label: "Bulleted list", type: "bulleted_list_item", words: "bullet list unordered", markers: ["- ", "* "] },
  { key: "numbered", label: "Numbered list", type: "numbered_list_item", words: "number list ordered", markers: ["1. "] },
  { key: "todo", label: "To-do", type: "todo", attrs: { checked: false }, words: "todo task checkbox", markers: ["[] ", "[ ] "] },
  { key: "done", label: "To-do, done", type: "todo", attrs: { checked: true }, words: "todo done checked", markers: ["[x] "], hidden: true },
  { key: "quote", label: "Quote", type: "quote", words: "quote blockquote citation", markers: ["> "] },
  { key: "code", label: "Code", type: "code", words: "code snippet pre", markers: ["```"] },
  { key: "divider", label: "Divider", type: "divider", words: "divider rule line separator hr", markers: [] },
];

export const LIST_TYPES = new Set(["bulleted_list_item", "numbered_list_item", "todo"]);

/** The kind of a key, or undefined. */
export const kindOf = (key) => BLOCK_KINDS.find((k) => k.key === key);

/**
 * `block` as `kind`, with `text`. Its attributes are the ones the server gives a block whose type changes
 * (core's `attrs_for`: a heading's level, a list item's depth, a to-do's box, a code block's language, each
 * kept when the old block had it) with the kind's own over them, spelled out, so the page the person sees
 * is the page the server stores and the edit is one write.
 */
export function retype(block, kind, text = block.text) {
  const old = block.attrs ?? {};
  const list = LIST_TYPES.has(kind.type);
  const attrs = {
    ...(kind.type === "heading" ? { level: old.level ?? 2 } : {}),
    ...(list ? { depth: old.depth ?? 0 } : {}),
    ...(kind.type === "todo" ? { checked: old.checked ?? false } : {}),
    ...(kind.type === "code" && old.language ? { language: old.language } : {}),
    ...(kind.attrs ?? {}),
  };
  const { attrs: _old, ...rest } = block;
  return { ...rest, type: kind.type, text, ...(Object.keys(attrs).length ? { attrs } : {}) };
}
