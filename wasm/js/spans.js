// The JS half of `diffChars` (wasm/src/operations.rs). WASM computes the runs of core's character diff as
// [tag, length, tag, length, …] (tag 0 equal, 1 insert, 2 delete; lengths in UTF-16 code units), and this
// slices each run's text out of the strings the caller passed in. No span's text crosses the boundary.
// An equal or a delete run continues `before`; an insert run continues `after`; an equal run advances both.
const TAGS = ["equal", "insert", "delete"];

export function decodeSpans(before, after, runs) {
  const spans = new Array(runs.length >>> 1);
  let inBefore = 0;
  let inAfter = 0;
  for (let i = 0, j = 0; i < runs.length; i += 2, j++) {
    const tag = runs[i];
    const length = runs[i + 1];
    if (tag === 1) {
      spans[j] = { tag: TAGS[1], text: after.slice(inAfter, (inAfter += length)) };
    } else {
      spans[j] = { tag: TAGS[tag], text: before.slice(inBefore, (inBefore += length)) };
      if (tag === 0) inAfter += length;
    }
  }
  return spans;
}
