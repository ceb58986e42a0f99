// Which operations one suggestion of the person's sends. The person's page differs from the server's in two
// ways while they suggest: changes already held by their pending suggestions (`held`), and changes made
// since (`fresh`, the difference against the server's page with the held blocks as suggested). A batch
// sends the fresh changes and, for each suggestion of theirs they touch, every block that suggestion held
// (it is withdrawn and suggested again as a whole, so one editing streak stays one suggestion); a new block
// placed after a block that another of their suggestions inserts brings that suggestion along, since the
// server does not have its anchor.

/** The block an operation is about (a new block's own id for an insert). */
export const blockOf = (op) => op.block?.blockId ?? op.blockId;

/** The block an operation needs on the server page besides its own (an insert's or a move's anchor). */
const anchorOf = (op) => op.afterBlockId ?? op.beforeBlockId ?? null;

/**
 * @param {{ fresh: object[], all: {operations: object[], revisionRefs: string[]}, held: Map<string, {sessionId: string}> }} input
 *   `fresh`: the operations of the changes not yet suggested; `all`: the difference against the server's
 *   page (every change, held or not), with its revision refs
 * @returns {{ operations: object[], revisionRefs: string[], blocks: Set<string>, superseded: string[] }}
 *   the operations to suggest (none when the person undid the held change), the blocks they hold, and the
 *   person's suggestions to withdraw first
 */
export function suggestionBatch({ fresh, all, held }) {
  const blocks = new Set(fresh.map(blockOf));
  const superseded = new Set();
  // Until nothing more joins: a held block brings its suggestion's other blocks, an anchor its suggestion.
  for (let grew = true; grew; ) {
    grew = false;
    const wanted = [...blocks, ...all.operations.filter((op) => blocks.has(blockOf(op))).map(anchorOf)];
    for (const id of wanted) {
      const sessionId = id && held.get(id)?.sessionId;
      if (!sessionId || superseded.has(sessionId)) continue;
      superseded.add(sessionId);
      for (const [other, h] of held) if (h.sessionId === sessionId) blocks.add(other);
      grew = true;
    }
  }
  const operations = all.operations.filter((op) => blocks.has(blockOf(op)));
  const sent = new Set(operations.filter((op) => op.op === "update").map(blockOf));
  const revisionRefs = all.revisionRefs.filter((ref) => [...sent].some((id) => ref.includes(`:block:${id}:`)));
  return { operations, revisionRefs, blocks, superseded: [...superseded] };
}
