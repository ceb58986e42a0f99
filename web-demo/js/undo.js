// Undo and redo of this person's own edits, and of nothing else. Every edit the editor makes (typing, Enter's
// new block, a deletion, a type, a checkbox, a paste) goes through here on its way to the page's edits
// (js/edit-sync.js), which records each block's version before and after; a change that another tab, Hermes
// or the assistant made reaches the page through the live channel's merge and is never recorded. Undo
// puts the recorded blocks back as one ordinary edit (saved like any other); when a block it would put
// back has changed since (someone else wrote it), the step is skipped and `onSkip` says so, rather than
// overwriting their change. Typing in one block, without a pause, is one step.
//
// The stack is @rocicorp/undo (Replicache's undo manager, for apps whose data also changes under other
// people's hands: each entry is an undo and a redo function), copied into web-demo/vendor/ by
// scripts/build-wasm.

import { UndoManager } from "../vendor/undo.js";
import { same } from "./edit-sync.js";

/** A pause longer than this ends a run of typing: the next keystroke starts a new undo step. */
export const TYPING_PAUSE_MS = 1000;

/**
 * @param {object} deps
 * @param {ReturnType<import("./edit-sync.js").createEditSync>} deps.sync
 * @param {(blockId: string, at: number | "end") => void} deps.focus puts the caret back after an undo
 * @param {(message: string) => void} deps.onSkip an undo or redo was skipped: says why, where people see it
 */
export function createUndo({ sync, focus, onSkip }) {
  const manager = new UndoManager({ maxSize: 500 });
  /** The typing run the next keystroke joins: `{blockId, change, at}`. */
  let run = null;

  function push(changes) {
    void manager.add({ undo: () => apply(changes, "to", "from"), redo: () => apply(changes, "from", "to") });
  }

  /**
   * Puts every recorded block into its `want` version, when each is still in its `have` version (else the
   * step is skipped, and said). One change of the page: one write.
   */
  function apply(changes, have, want) {
    run = null;
    const model = sync.blocks();
    const byId = new Map(model.map((b) => [b.blockId, b]));
    const changed = changes.filter((c) => {
      const now = byId.get(c.blockId);
      return sync.conflicts().has(c.blockId) || (c[have] ? !now || !same(now, c[have].block) : Boolean(now));
    });
    if (changed.length) {
      const what = changes.length > 1 ? "these blocks" : "this block";
      onSkip(`${have === "to" ? "Undo" : "Redo"} skipped: someone else changed ${what} since. Nothing was overwritten.`);
      return;
    }
    const placed = new Set(changes.filter((c) => !c[want] || !c[have] || c.moved).map((c) => c.blockId));
    const wanted = new Map(changes.filter((c) => c[want]).map((c) => [c.blockId, c[want].block]));
    let next = model.filter((b) => !placed.has(b.blockId)).map((b) => wanted.get(b.blockId) ?? b);
    const toPlace = changes.filter((c) => c[want] && placed.has(c.blockId)).sort((a, b) => a[want].index - b[want].index);
    for (const c of toPlace) {
      const after = c[want].after === null ? -1 : next.findIndex((b) => b.blockId === c[want].after);
      const at = after >= 0 || c[want].after === null ? after + 1 : Math.min(c[want].index, next.length);
      next = next.toSpliced(at, 0, c[want].block);
    }
    sync.change(next);
    caretAfter(changes, have, want);
  }

  /** The caret goes where the undone change was: the end of what changed in the first block that has text. */
  function caretAfter(changes, have, want) {
    const shown = changes.filter((c) => c[want] && typeof c[want].block.text === "string").sort((a, b) => a[want].index - b[want].index);
    const first = shown[0];
    if (first) {
      const before = textOf(first[have]);
      const now = first[want].block.text;
      let suffix = 0;
      while (suffix < before.length && suffix < now.length && before.at(-1 - suffix) === now.at(-1 - suffix)) suffix++;
      return focus(first.blockId, Math.max(0, now.length - suffix));
    }
    const gone = changes.find((c) => c[have]?.after);
    if (gone) focus(gone[have].after, "end");
  }

  return {
    /** The person typed in a block: recorded as part of the running step, or as a new one after a pause. */
    setText(blockId, text) {
      const before = sync.blocks();
      const i = before.findIndex((b) => b.blockId === blockId);
      if (i < 0 || before[i].text === text) return;
      sync.setText(blockId, text);
      const block = sync.block(blockId);
      const now = performance.now();
      if (run?.blockId === blockId && now - run.at < TYPING_PAUSE_MS) {
        run.change.to = { ...run.change.to, block };
        run.at = now;
        return;
      }
      const change = { blockId, from: snapshot(before, i), to: snapshot(sync.blocks(), i), moved: false };
      run = { blockId, change, at: now };
      push([change]);
    },

    /** A change of the page's blocks (Enter, Backspace, a type, a paste, a checkbox): one step of its own. */
    change(next) {
      const before = sync.blocks();
      sync.change(next);
      run = null;
      const changes = difference(before, sync.blocks());
      if (changes.length) push(changes);
    },

    /** Ends the running step of typing (the caret left the block, or something else happened). */
    endRun() {
      run = null;
    },

    undo: () => manager.undo(),
    redo: () => manager.redo(),
  };
}

const textOf = (version) => (typeof version?.block.text === "string" ? version.block.text : "");

/** A block's version in a page: the block, the block before it and its index. */
function snapshot(blocks, i) {
  return { block: blocks[i], after: blocks[i - 1]?.blockId ?? null, index: i };
}

/**
 * What changed from `before` to `after`, block by block: each block that was added, deleted, changed or
 * moved (its neighbour among the blocks both pages have is another), with its two versions (null for none).
 */
function difference(before, after) {
  const b = new Map(before.map((block, i) => [block.blockId, i]));
  const a = new Map(after.map((block, i) => [block.blockId, i]));
  const previousIn = (blocks, other) => {
    const out = new Map();
    let previous = null;
    for (const block of blocks) {
      if (!other.has(block.blockId)) continue;
      out.set(block.blockId, previous);
      previous = block.blockId;
    }
    return out;
  };
  const wasAfter = previousIn(before, a);
  const isAfter = previousIn(after, b);
  const changes = [];
  for (const id of new Set([...a.keys(), ...b.keys()])) {
    const from = b.has(id) ? snapshot(before, b.get(id)) : null;
    const to = a.has(id) ? snapshot(after, a.get(id)) : null;
    const moved = Boolean(from && to && wasAfter.get(id) !== isAfter.get(id));
    if (!from || !to || moved || !same(from.block, to.block)) changes.push({ blockId: id, from, to, moved });
  }
  return changes;
}
