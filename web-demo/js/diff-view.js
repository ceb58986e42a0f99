// Inline character diffs (the `diff[].inline` spans of a preview) as DOM: deletions struck through,
// insertions highlighted. Long unchanged runs are shortened around the changes; slicing is by code point,
// so CJK text and emoji are never cut in half.
//
// The spans are a minimal character diff, which is exact but can splinter English words ("numbers" →
// "finance" shares an "n" and an "e"). For reading, equal runs that are no longer than the changes on both
// sides are folded into them, as diff-match-patch's semantic cleanup does; the texts before and after are
// unchanged, and CJK edits such as 第一版 → 第二版 keep their single-character precision.

import { h } from "./dom.js";

const CONTEXT = 28; // characters of unchanged text kept on each side of a change

const len = (text) => [...text].length;

/** The spans, with short equal runs between changes folded into the changes around them. */
export function readable(spans) {
  let items = spans.map((s) => ({ ...s }));
  for (let changed = true; changed; ) {
    changed = false;
    // Every change group (the deletes and inserts between two equal runs) as [delete, insert] lengths.
    for (let i = 1; i < items.length - 1; i++) {
      if (items[i].tag !== "equal") continue;
      const side = (from, step) => {
        let del = 0;
        let ins = 0;
        for (let j = from; j >= 0 && j < items.length && items[j].tag !== "equal"; j += step) {
          if (items[j].tag === "delete") del += len(items[j].text);
          else ins += len(items[j].text);
        }
        return Math.max(del, ins);
      };
      const before = side(i - 1, -1);
      const after = side(i + 1, 1);
      const size = len(items[i].text);
      if (before > 0 && after > 0 && size <= before && size <= after) {
        items.splice(i, 1, { tag: "delete", text: items[i].text }, { tag: "insert", text: items[i].text });
        changed = true;
        break;
      }
    }
    items = merge(items);
  }
  return items;
}

/** Each run of changes as one delete then one insert; adjacent equal runs joined. */
function merge(items) {
  const out = [];
  let del = "";
  let ins = "";
  const flush = () => {
    if (del) out.push({ tag: "delete", text: del });
    if (ins) out.push({ tag: "insert", text: ins });
    del = ins = "";
  };
  for (const item of items) {
    if (item.tag === "delete") del += item.text;
    else if (item.tag === "insert") ins += item.text;
    else {
      flush();
      const last = out.at(-1);
      if (last?.tag === "equal") last.text += item.text;
      else out.push({ ...item });
    }
  }
  flush();
  return out;
}

/** The spans as nodes. With `elide`, unchanged runs longer than twice CONTEXT keep only their edges. */
export function diffSpans(spans, { elide = false } = {}) {
  const items = readable(spans);
  return items.map((span, i) => {
    if (span.tag === "insert") return h("ins", {}, span.text);
    if (span.tag === "delete") return h("del", {}, span.text);
    if (!elide) return span.text;
    const chars = [...span.text];
    const first = i === 0;
    const last = i === items.length - 1;
    if (first && chars.length > CONTEXT) return ["…", chars.slice(-CONTEXT).join("")];
    if (last && chars.length > CONTEXT) return [chars.slice(0, CONTEXT).join(""), "…"];
    if (chars.length > CONTEXT * 2 + 1) {
      return [chars.slice(0, CONTEXT).join(""), h("span", { class: "elided" }, " … "), chars.slice(-CONTEXT).join("")];
    }
    return span.text;
  });
}
