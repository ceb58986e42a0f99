// The JS half of `diffChars` (wasm/src/operations.rs). WASM computes the runs of core's character diff as
// [tag, length, tag, length, …] (tag 0 equal, 1 insert, 2 delete; lengths in UTF-16 code units), and this
// slices each run's text out of the strings the caller passed in. No span's text crosses the boundary.
// An equal or a delete run continues `before`; an insert run continues `after`; an equal run advances both.
const TAGS = ["equal", "insert", "delete"];

/**
 * The text as Rust received it: strings reach WASM through TextEncoder, which turns each lone surrogate
 * into U+FFFD (one code unit for one, so the lengths still match).
 */
function asRustReadIt(text) {
  if (typeof text.toWellFormed === "function") return text.toWellFormed();
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const paired = unit >= 0xd800 && unit < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (paired) out += text[i] + text[++i];
    else out += (unit & 0xf800) === 0xd800 ? "\uFFFD" : text[i];
  }
  return out;
}

export function decodeSpans(before, after, runs) {
  const old = asRustReadIt(before);
  const neu = asRustReadIt(after);
  const spans = new Array(runs.length >>> 1);
  let inOld = 0;
  let inNew = 0;
  for (let i = 0, j = 0; i < runs.length; i += 2, j++) {
    const tag = runs[i];
    const length = runs[i + 1];
    if (tag === 1) {
      spans[j] = { tag: TAGS[1], text: neu.slice(inNew, (inNew += length)) };
    } else {
      spans[j] = { tag: TAGS[tag], text: old.slice(inOld, (inOld += length)) };
      if (tag === 0) inNew += length;
    }
  }
  return spans;
}
