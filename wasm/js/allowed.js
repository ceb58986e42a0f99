// The JS half of wasm/src/contexts.rs. A full-page context of a long page allows thousands of block ids; a
// route's recommendation repeats them and its preview sends them back. Instead of crossing the boundary as
// JSON both ways, they stay in JS: a context's ids are one JS array, each recommendation gets a copy of it,
// and a tool call whose list is that array element for element crosses without it.

/** Puts a copy of `ids` where WASM left `null`: the recommendation's `args.allowedTargetBlockIds`. */
export function giveIds(route, ids) {
  route.recommendedToolCall.args.allowedTargetBlockIds = ids.slice();
  return route;
}

/** The `args.contextId` of a tool call given as an object, if it names one. */
export function contextIdOf(call) {
  const id = typeof call === "object" ? call?.args?.contextId : undefined;
  return typeof id === "string" ? id : undefined;
}

const plain = (value) => Object.getPrototypeOf(value) === Object.prototype && value.toJSON === undefined;

/**
 * `JSON.stringify(call)` without `args.allowedTargetBlockIds`, when that list is `ids` element for element;
 * otherwise `undefined`. Only plain objects, so that the text is exactly what `JSON.stringify` gives.
 */
export function callTextWithout(call, ids) {
  const args = call.args;
  const list = args.allowedTargetBlockIds;
  if (!Array.isArray(list) || list.length !== ids.length || !plain(call) || !plain(args)) return undefined;
  for (let i = 0; i < ids.length; i++) {
    if (list[i] !== ids[i]) return undefined;
  }
  const { allowedTargetBlockIds: _, ...rest } = args;
  return JSON.stringify({ ...call, args: rest });
}
