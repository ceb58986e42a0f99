// Inline diffs (the `diff[].inline` spans of a preview, core's character-level diff) as DOM: deletions
// struck through, insertions highlighted. Long unchanged runs are shortened around the changes; slicing is
// by code point, so CJK text and emoji are never cut in half.
//
// The spans are a minimal character diff: exact, and right for CJK (no spaces, every character a word), but
// it splinters English words ("Durable Object" → "DO" keeps the "D" and the "O"). For reading, two
// presentation steps regroup them; the texts before and after stay exactly the same:
// - `byWords`: a change that starts or ends inside a Latin word takes the whole word, so English reads
//   word by word ("~~Durable Object~~ DO") while CJK keeps its single-character precision (第一版 → 第二版).
// - `readable`: equal runs no longer than the changes on both sides are folded into them, as
//   diff-match-patch's semantic cleanup does.

import { h } from "./dom.js";

const CONTEXT = 28; // characters of unchanged text kept on each side of a change

const len = (text) => [...text].length;

// A letter or digit of an alphabetic script: the characters a word boundary falls between. CJK ideographs,
// kana and hangul are left out on purpose: each of them is a unit of its own.
const WORD_CHAR = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Nd}'’_-]/u;
const isWordChar = (ch) => ch !== undefined && WORD_CHAR.test(ch);

/** The spans, with every change widened to whole Latin words. */
export function byWords(spans) {
  let items = merge(spans.map((s) => ({ ...s })));
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item.tag !== "equal") continue;
    const chars = [...item.text];
    const before = changeEdge(items, i - 1, -1);
    const after = changeEdge(items, i + 1, 1);
    // A change ends inside a word this run continues: the word's rest joins the change.
    let head = 0;
    if (before && isWordChar(before) && isWordChar(chars[0])) while (head < chars.length && isWordChar(chars[head])) head++;
    // A change starts inside a word this run began: the word's start joins the change.
    let tail = chars.length;
    if (after && isWordChar(after) && isWordChar(chars.at(-1))) while (tail > head && isWordChar(chars[tail - 1])) tail--;
    if (head === 0 && tail === chars.length) continue;
    const piece = (from, to) => chars.slice(from, to).join("");
    const out = [];
    if (head > 0) out.push({ tag: "delete", text: piece(0, head) }, { tag: "insert", text: piece(0, head) });
    if (tail > head) out.push({ tag: "equal", text: piece(head, tail) });
    if (tail < chars.length) out.push({ tag: "delete", text: piece(tail, chars.length) }, { tag: "insert", text: piece(tail, chars.length) });
    items.splice(i, 1, ...out);
    i += out.length - 1;
  }
  // The pieces moved into a change sit beside it; merge joins each run of changes into one delete and one
  // insert again, each keeping its text in order.
  return merge(items);
}

/**
 * The character at the edge of the change group next to an equal run: its last character (step -1, the
 * group before) or its first (step 1, the group after), of the deleted or the inserted text, whichever
 * is a word character. Undefined when there is no change there.
 */
function changeEdge(items, from, step) {
  let edge;
  for (let j = from; j >= 0 && j < items.length && items[j].tag !== "equal"; j += step) {
    const chars = [...items[j].text];
    const ch = step < 0 ? chars.at(-1) : chars[0];
    if (edge === undefined || isWordChar(ch)) edge = ch;
  }
  return edge;
}

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
  const items = readable(byWords(spans));
  return items.map((span, i) => {
    if (span.tag === "insert") return h("ins", {}, span.text);
    if (span.tag === "delete") return h("del", {}, span.text);
    if (!elide) return span.text;
    const chars = [...span.text];
    const first = i === 0;
    const last = i === items.length - 1;
    if (first && chars.length > CONTEXT) return ["…", tail(chars)];
    if (last && chars.length > CONTEXT) return [head(chars), "…"];
    if (chars.length > CONTEXT * 2 + 1) return [head(chars), h("span", { class: "elided" }, " … "), tail(chars)];
    return span.text;
  });
}

/** The first CONTEXT characters, not ending inside a Latin word (unless that word is all there is). */
function head(chars) {
  let end = CONTEXT;
  while (end > CONTEXT / 2 && isWordChar(chars[end - 1]) && isWordChar(chars[end])) end--;
  return chars.slice(0, end).join("");
}

/** The last CONTEXT characters, not starting inside a Latin word (unless that word is all there is). */
function tail(chars) {
  let start = chars.length - CONTEXT;
  while (start < chars.length - CONTEXT / 2 && isWordChar(chars[start - 1]) && isWordChar(chars[start])) start++;
  return chars.slice(start).join("");
}
