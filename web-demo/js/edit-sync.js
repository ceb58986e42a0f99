// The page as the person edits it, kept in step with the server.
//
// Three versions of each block meet here:
// - the server's, as this tab last knew it: the WASM `PageSession` (every preview and context is computed
//   on it, and every edit is built on it, so it is always a page the server had);
// - the person's (`model`): what the page shows, with the edits not saved yet;
// - a newer server page (after a command, a review, a Hermes run, or a save that landed on a newer
//   revision), or a change another tab, Hermes or the assistant made, as the live channel reports it
//   (`live()`: the session follows it with `applyRemote`, and the person's page merges it).
// A newer page is merged block by block against the session's: a block only they changed takes theirs, a
// block only the person changed keeps the person's, and a block both changed differently becomes a
// conflict that the person settles (Keep mine, Take theirs). Nothing is overwritten either way unseen.
//
// Saving sends the difference between the person's page and the session's (inserts, updates, deletions and
// moves) as one `PATCH …/blocks` batch
// (based on the session's revision, each text change pinned to the block's `revisionRef` through the
// package's `PageSession.editBlock`), so an edit of another block in between never stops it: the server
// answers a conflict only for a block someone else changed.
//
// While the person suggests (the editor's "Suggesting" switch), the same difference is sent as their
// suggestion instead (`POST …/suggestions`, js/suggest-batch.js), batched the same way; the page stays as
// the server has it, and the blocks the suggestion holds keep the suggested text in the person's page
// (`held`), so they can go on editing it: the next batch that touches them withdraws the suggestion that
// held them and suggests the whole change again. A suggestion that is decided (accepted, rejected,
// withdrawn elsewhere) leaves `held`, the page showing what the server has.

import { fetchDocument, reviewAction, saveBlocks, suggestBlocks } from "./api.js";
import { blockOf, suggestionBatch } from "./suggest-batch.js";

/** How long typing may pause before the block is saved. */
export const SAVE_PAUSE_MS = 700;
/** How long typing may pause before it is suggested (a suggestion sent again is withdrawn and made anew). */
export const SUGGEST_PAUSE_MS = 1500;
/** The save states, while the person suggests. */
const SUGGESTING_STATES = { saved: "suggested", saving: "suggesting", unsaved: "unsuggested" };

/**
 * @param {object} deps
 * @param {object} deps.engine the loaded WASM engine (`PageSession`, `isPageAiError`, `mintIdempotencyKey`)
 * @param {string} deps.documentId
 * @param {object} deps.page the stored page
 * @param {Uint8Array} [deps.pageBytes] the same page as the server's JSON, its UTF-8 bytes, when at hand: the
 *   session reads them as they are, without turning the object back into text or encoding a string (a
 *   10,000-block page: tens of milliseconds)
 * @param {"viewer" | "editor" | "owner"} [deps.role] the person's role in the page's workspace: the session
 *   previews writes for it (`owner` when omitted)
 * @param {() => void} deps.onModel the person's page or its conflicts changed: draw them
 * @param {() => void} deps.onSession the session moved to another server page
 * @param {(state: string, error?: Error) => void} deps.onStatus `saved`, `saving`, `unsaved`, `failed`, `conflict`
 * @param {(session: object | null) => void} [deps.onSuggested] a batch was suggested (the review session
 *   that holds it), or only withdrawn (null)
 */
export function createEditSync({ engine, documentId, page, pageBytes, role = "owner", onModel, onSession, onStatus, onSuggested }) {
  let session = new engine.PageSession(pageBytes ?? page, { role });
  let meta = metaOf(page);
  let model = page.blocks.map(copy);
  /** blockId → {theirs: Block | null, yours: Block}: blocks both sides changed, waiting for the person. */
  const conflicts = new Map();
  let timer = null;
  let running = null;
  let again = false;
  let failed = null; // {json, key, error} of the last save that did not reach the server
  let inflight = null; // what the save under way sent: blockId → block, or null for a deletion
  let status = "saved";
  let suggesting = false;
  let reason = "";
  /** blockId → {version: Block | null, sessionId, seq}: what this tab's pending suggestions hold for each block. */
  const held = new Map();
  let heldSeq = 0;
  let lastSuggested = null; // the last batch suggested, as sent

  const setStatus = (next, error) => {
    status = next;
    // Said as what happens to the person's edits: while suggesting, they are sent as suggestions.
    onStatus(suggesting ? (SUGGESTING_STATES[next] ?? next) : next, error);
  };

  /** Saves soon (after `delay` ms), or at once with 0. */
  function schedule(delay) {
    clearTimeout(timer);
    if (status !== "saving") setStatus("unsaved");
    timer = setTimeout(() => void save(), delay);
  }

  /** Saves until the person's page and the server's agree (or only conflicts are left). */
  function save() {
    clearTimeout(timer);
    if (running) {
      again = true;
      return running;
    }
    let last = null;
    running = (async () => {
      // Round after round until nothing is left to send (typing goes on during a save; a save that found
      // a conflict goes on with the other blocks).
      for (let round = 0; round < 6 && last !== "stop"; round++) {
        again = false;
        try {
          last = await saveOnce();
        } catch (error) {
          // Reading the page after a save failed (the network went away): say so, try again on the next edit.
          setStatus("failed", error);
          last = "stop";
        }
      }
    })().finally(() => {
      running = null;
      // More typing came in during the last round: save it too. Conflicts found round after round stop
      // here, said as a failed save the person can try again.
      if (last === "again") setStatus("failed", { code: "mnote_revision_conflict" });
      else if (again || last === "done") schedule(0);
    });
    return running;
  }

  async function saveOnce() {
    if (suggesting) return suggestOnce();
    const base = byId(session.page().blocks);
    const { operations, revisionRefs, sent } = difference(base);
    if (!operations.length) {
      setStatus(conflicts.size ? "conflict" : "saved");
      return "stop";
    }
    const edit = { baseRevision: session.revision, operations, ...(revisionRefs.length ? { revisionRefs } : {}) };
    const json = JSON.stringify(edit);
    // The same edit sent again keeps its key, so a save that landed unseen is not applied twice.
    const idempotencyKey = failed?.json === json ? failed.key : engine.mintIdempotencyKey();
    setStatus("saving");
    let result;
    inflight = sent;
    try {
      result = await saveBlocks(documentId, { ...edit, idempotencyKey });
    } catch (error) {
      inflight = null;
      if (error.code === "mnote_revision_conflict") {
        // Someone changed a block this edit touches: read the page and let the merge show each conflict.
        adopt(await fetchDocument(documentId), base);
        return "again";
      }
      failed = { json, key: idempotencyKey };
      setStatus("failed", error);
      return "stop";
    }
    inflight = null;
    failed = null;
    const known = overlay(base, sent);
    if (!follow(result)) adopt(await fetchDocument(documentId), known);
    else onSession();
    return "done";
  }

  /**
   * Sends the person's changes since their last suggestion as one suggestion: the blocks it changes, and
   * every block of the suggestions of theirs it supersedes (withdrawn first), against the server's page.
   */
  async function suggestOnce() {
    const server = byId(session.page().blocks);
    const fresh = difference(heldBase()).operations;
    if (!fresh.length) {
      setStatus(conflicts.size ? "conflict" : "saved");
      return "stop";
    }
    const all = difference(server);
    const batch = suggestionBatch({ fresh, all, held });
    if (!batch.operations.length && !batch.superseded.length) {
      setStatus(conflicts.size ? "conflict" : "saved");
      return "stop";
    }
    const edit = { baseRevision: session.revision, operations: batch.operations, ...(batch.revisionRefs.length ? { revisionRefs: batch.revisionRefs } : {}) };
    const json = JSON.stringify([edit, reason, batch.superseded]);
    // The same batch as the one just suggested: nothing new to send (a guard against sending it for ever).
    if (json === lastSuggested) {
      setStatus(conflicts.size ? "conflict" : "saved");
      return "stop";
    }
    const idempotencyKey = failed?.json === json ? failed.key : engine.mintIdempotencyKey();
    setStatus("saving");
    // What the suggestion holds is the page as sent: typing goes on while it is on its way.
    const shown = byId(model);
    let answer = null;
    try {
      // The suggestions it replaces go first: a failure then leaves the edit unsent, to be sent again. Their
      // blocks are not taken for decided meanwhile (settle), whatever a read of the list says.
      for (const h of held.values()) if (batch.superseded.includes(h.sessionId)) h.seq = Infinity;
      for (const sessionId of batch.superseded) await reviewAction(sessionId, "reject").catch((error) => ignoreDecided(error));
      for (const id of batch.blocks) if (batch.superseded.includes(held.get(id)?.sessionId)) held.delete(id);
      if (batch.operations.length) answer = await suggestBlocks(documentId, { ...edit, idempotencyKey, ...(reason.trim() ? { reason: reason.trim() } : {}) });
    } catch (error) {
      failed = { json, key: idempotencyKey };
      setStatus("failed", error);
      return "stop";
    }
    failed = null;
    lastSuggested = json;
    heldSeq++;
    if (answer) for (const id of new Set(batch.operations.map(blockOf))) held.set(id, { version: shown.get(id) ?? null, sessionId: answer.sessionId, seq: heldSeq });
    onSuggested?.(answer);
    return "done";
  }

  /**
   * The server's page as this tab's pending suggestions would make it, in the person's order: each held
   * block in its suggested version (gone when deleted), a new one after the block it follows here.
   */
  function heldBase() {
    let out = session
      .page()
      .blocks.filter((b) => held.get(b.blockId)?.version !== null)
      .map((b) => held.get(b.blockId)?.version ?? b);
    for (const [id, h] of held) {
      if (!h.version || out.some((b) => b.blockId === id)) continue;
      const previous = model.slice(0, Math.max(index(id), 0)).findLast((p) => out.some((o) => o.blockId === p.blockId));
      out = out.toSpliced(previous ? out.findIndex((o) => o.blockId === previous.blockId) + 1 : 0, 0, h.version);
    }
    return byId(out);
  }

  /**
   * Puts the server's version of each block back in the person's page: a suggestion of theirs that held it
   * was decided (or the person stopped suggesting).
   */
  function restore(ids) {
    const server = session.page().blocks;
    const theirs = byId(server);
    for (const id of ids) {
      held.delete(id);
      const t = theirs.get(id);
      const i = index(id);
      if (!t) {
        if (i >= 0) model = model.toSpliced(i, 1);
      } else if (i >= 0) model = model.with(i, copy(t));
      else {
        const at = server.findIndex((b) => b.blockId === id);
        const previous = server.slice(0, at).findLast((p) => index(p.blockId) >= 0);
        model = model.toSpliced(previous ? index(previous.blockId) + 1 : 0, 0, copy(t));
      }
    }
  }

  /**
   * Follows our own applied write in WASM when it is the session's next revision. The live channel may
   * have brought it first: a session already at (or past) its revision has it.
   */
  function follow(result) {
    if (Number.isInteger(result.newRevision) && result.newRevision <= session.revision) return true;
    if (result.baseRevision !== session.revision) return false;
    try {
      session.applyLocal(result);
      return true;
    } catch (error) {
      if (!engine.isPageAiError(error)) throw error;
      return false;
    }
  }

  /**
   * Makes `stored` the session's page and merges it into the person's: `base` holds each block as this
   * tab believed the server had it (the session's page, plus what it just saved).
   */
  function adopt(stored, base = byId(session.page().blocks)) {
    session.free();
    session = new engine.PageSession(stored, { role });
    meta = metaOf(stored);
    model = merge(base, stored.blocks);
    onModel();
    onSession();
    if (status !== "saving") setStatus(conflicts.size ? "conflict" : pending() ? "unsaved" : "saved");
    if (pending()) schedule(0);
  }

  /**
   * Follows one message of the live channel: the session applies it (`applyRemote`, which throws
   * `mnote_live_resync` when it cannot), and a changed page merges into the person's as `adopt` does. A
   * change the session already has (this tab's own save, followed from its answer) is skipped; the channel
   * may bring this tab's save before its answer does: a block that arrives as the save sent it counts as
   * this tab's (the person may have typed on since), not as theirs.
   */
  function applyRemote(message) {
    const known = { applied: false, revision: session.revision, kind: message?.kind };
    const behind = message?.kind === "page.changed" || message?.kind === "snapshot";
    if (behind && Number.isInteger(message.revision) && message.revision <= session.revision) return known;
    // Only a page change or a snapshot moves the page; the rest (hello, refetch, events) only check it, and
    // reading a long page out of the session costs its length.
    if (!behind) return session.applyRemote(message);
    const base = byId(session.page().blocks);
    const applied = session.applyRemote(message);
    if (!applied.applied) return applied;
    const now = session.page();
    const mine = new Set();
    for (const block of now.blocks) {
      const sent = inflight?.get(block.blockId);
      if (sent && same(sent, block)) {
        base.set(block.blockId, copy(block)); // not the object the person's page takes
        mine.add(block.blockId);
      }
    }
    meta = metaOf(now);
    model = merge(base, now.blocks);
    onModel();
    onSession();
    if (status !== "saving") setStatus(conflicts.size ? "conflict" : pending() ? "unsaved" : "saved");
    // `mine`: the blocks that came back as this tab's own save sent them.
    return { ...applied, mine };
  }

  /** The person's page, block by block against `base` and the server's `theirs`. */
  function merge(base, theirs) {
    const mine = byId(model);
    const out = [];
    for (const t of theirs) {
      const b = base.get(t.blockId);
      const m = mine.get(t.blockId);
      if (!b) out.push(t); // a block new to this tab
      else if (!m) {
        // The person deleted it: it stays deleted unless they changed it meanwhile.
        if (!same(t, b)) out.push(t);
      } else if (conflicts.has(t.blockId)) {
        conflicts.get(t.blockId).theirs = t;
        out.push(m);
      } else if (same(t, b) || same(t, m)) out.push(m);
      else if (same(m, b)) out.push(t);
      else if (held.has(t.blockId)) {
        // Written meanwhile by someone else: the page shows theirs, and the suggestion (now stale) beside it.
        held.delete(t.blockId);
        out.push(t);
      }
      else {
        conflicts.set(t.blockId, { theirs: t, yours: m });
        out.push(m);
      }
    }
    // The person's blocks the server does not have: new ones not saved yet, or ones they deleted.
    const kept = new Set(out.map((b) => b.blockId));
    for (const [i, m] of model.entries()) {
      if (kept.has(m.blockId)) continue;
      const b = base.get(m.blockId);
      if (b && same(m, b)) continue; // deleted by them, untouched here: gone
      if (b && !conflicts.has(m.blockId)) conflicts.set(m.blockId, { theirs: null, yours: m });
      else if (conflicts.has(m.blockId)) conflicts.get(m.blockId).theirs = null;
      const after = model.slice(0, i).reverse().find((p) => kept.has(p.blockId));
      out.splice(after ? out.findIndex((o) => o.blockId === after.blockId) + 1 : 0, 0, m);
      kept.add(m.blockId);
    }
    for (const id of conflicts.keys()) if (!kept.has(id)) conflicts.delete(id);
    return out;
  }

  /** The operations that turn the session's page into the person's (conflicts left out). */
  function difference(base) {
    const operations = [];
    const revisionRefs = [];
    const sent = new Map();
    const shown = new Set(model.map((b) => b.blockId));
    let previous = null;
    for (const m of model) {
      const b = base.get(m.blockId);
      if (conflicts.has(m.blockId)) {
        if (b) previous = m.blockId;
        continue;
      }
      if (!b) {
        const block = { blockId: m.blockId, type: m.type, text: m.text, ...(hasAttrs(m.attrs) ? { attrs: m.attrs } : {}) };
        const next = model.find((n) => base.has(n.blockId));
        if (previous) operations.push({ op: "insert_after", afterBlockId: previous, block });
        else if (next) operations.push({ op: "insert_before", beforeBlockId: next.blockId, block });
        else continue;
        sent.set(m.blockId, m);
        previous = m.blockId;
        continue;
      }
      if (!same(m, b)) {
        const op = { op: "update", blockId: m.blockId };
        if (m.text !== b.text) {
          op.text = m.text;
          revisionRefs.push(...refOf(m.blockId, m.text));
        }
        if (m.type !== b.type) op.type = m.type;
        if (canonical(m.attrs) !== canonical(b.attrs)) op.attrs = m.attrs ?? {};
        operations.push(op);
        sent.set(m.blockId, m);
      }
      previous = m.blockId;
    }
    for (const b of base.values()) {
      if (shown.has(b.blockId) || conflicts.has(b.blockId)) continue;
      operations.push({ op: "delete", blockId: b.blockId });
      sent.set(b.blockId, null);
    }
    operations.push(...moves(base, operations));
    return { operations, revisionRefs, sent };
  }

  /**
   * The `move` operations that put the blocks in the person's order (blocks moved, with the keyboard or a
   * drag), after the batch's inserts and deletions: the server's order is followed op by op, and each
   * block whose predecessor there is not its predecessor here moves after it.
   */
  function moves(base, operations) {
    const order = [...base.keys()];
    for (const op of operations) {
      if (op.op === "insert_after") order.splice(order.indexOf(op.afterBlockId) + 1, 0, op.block.blockId);
      else if (op.op === "insert_before") order.splice(order.indexOf(op.beforeBlockId), 0, op.block.blockId);
      else if (op.op === "delete") order.splice(order.indexOf(op.blockId), 1);
    }
    const out = [];
    let previous = null;
    for (const m of model) {
      const at = order.indexOf(m.blockId);
      if (at < 0) continue;
      const want = previous === null ? 0 : order.indexOf(previous) + 1;
      if (at !== want) {
        order.splice(at, 1);
        order.splice(previous === null ? 0 : order.indexOf(previous) + 1, 0, m.blockId);
        out.push({ op: "move", blockId: m.blockId, afterBlockId: previous });
      }
      previous = m.blockId;
    }
    return out;
  }

  /** The block's `revisionRef` as the session holds it, from the package's own edit of it. */
  function refOf(blockId, text) {
    try {
      return session.editBlock(blockId, text).body.revisionRefs ?? [];
    } catch (error) {
      if (!engine.isPageAiError(error)) throw error;
      return [];
    }
  }

  function pending() {
    return difference(heldBase()).operations.length > 0;
  }

  const index = (blockId) => model.findIndex((b) => b.blockId === blockId);

  return {
    /** The WASM session: the server's page as this tab knows it. */
    session: () => session,
    /**
     * What `connectLive` follows in place of a `PageSession` (this one is replaced when a page is adopted):
     * the session's revision, and `applyRemote`, which also merges the change into the person's page.
     */
    live: () => ({
      get revision() {
        return session.revision;
      },
      applyRemote,
    }),
    /** The page as the person sees it. */
    view: () => ({ ...meta, revision: session.revision, blocks: model }),
    block: (blockId) => model[index(blockId)] ?? null,
    blocks: () => model,
    conflicts: () => conflicts,
    status: () => status,
    lastError: () => failed,

    /** The person typed: the block's new text, saved when typing pauses. */
    setText(blockId, text) {
      const i = index(blockId);
      if (i < 0 || model[i].text === text) return;
      model = model.with(i, { ...model[i], text });
      schedule(suggesting ? SUGGEST_PAUSE_MS : SAVE_PAUSE_MS);
    },

    /** A change of the page's blocks (a split, a merge, a deletion, a type or a checkbox): saved at once. */
    change(next) {
      model = next.map(copy);
      onModel();
      schedule(0);
    },

    /** Saves now; resolves when the server has every edit (or a save failed). */
    flush: () => (status === "saved" && !timer ? Promise.resolve() : save()),

    /** Takes a server page that a command, a review or Hermes wrote (`result`: the write, when known). */
    follow(stored, result = null) {
      const base = byId(session.page().blocks);
      if (result && follow(result) && sameBlocks(session.page().blocks, stored.blocks)) {
        model = merge(base, stored.blocks);
        onModel();
        onSession();
        return;
      }
      adopt(stored, base);
    },

    /** Reads the server's page again and merges it. */
    async reload() {
      const stored = await fetchDocument(documentId);
      if (stored.revision !== session.revision) adopt(stored);
    },

    /** Settles a conflict with the person's version: saved on the current page. */
    keepMine(blockId) {
      if (!conflicts.delete(blockId)) return;
      onModel();
      schedule(0);
    },

    /** Settles a conflict with the server's version; the person's is dropped. */
    takeTheirs(blockId) {
      const conflict = conflicts.get(blockId);
      if (!conflict) return;
      conflicts.delete(blockId);
      const i = index(blockId);
      if (i >= 0) model = conflict.theirs ? model.with(i, copy(conflict.theirs)) : model.toSpliced(i, 1);
      onModel();
      setStatus(conflicts.size ? "conflict" : pending() ? "unsaved" : "saved");
    },

    /** Tries the failed save again. */
    retry: () => save(),

    /** Whether the person's edits are sent as suggestions. */
    suggesting: () => suggesting,

    /**
     * Turns suggesting on or off. What was typed before goes as it would have (saved, or suggested); off,
     * the blocks this tab's suggestions hold show the server's text again (the suggestions stay pending).
     */
    async setSuggesting(on) {
      await (status === "saved" && !timer ? Promise.resolve() : save());
      if (suggesting === on) return;
      if (!on) restore([...held.keys()]);
      suggesting = on;
      onModel();
    },

    /** The reason sent with the next suggestions ("" for none). */
    setReason(text) {
      reason = text;
    },

    /**
     * Follows the page's pending suggestions (`mnote.suggestion.v1`, read at `seq` = `heldSeq()` of when
     * the read started): a block held by a suggestion of this tab that is no longer pending shows what the
     * server has (accepted: the suggested text; rejected or withdrawn: the text before).
     */
    settle(suggestions, seq) {
      const pendingIds = new Set(suggestions.map((s) => s.sessionId));
      const ended = [...held].filter(([, h]) => h.seq <= seq && !pendingIds.has(h.sessionId)).map(([id]) => id);
      if (!ended.length) return;
      // A block the person went on editing keeps their text, to be suggested anew on the server's page.
      const untouched = (id) => {
        const now = model[index(id)] ?? null;
        const version = held.get(id).version;
        return now === null || version === null ? now === version : same(now, version);
      };
      for (const id of ended) if (!untouched(id)) held.delete(id);
      restore(ended.filter((id) => held.has(id)));
      onModel();
      if (pending()) schedule(0);
      else if (status !== "saving") setStatus(conflicts.size ? "conflict" : "saved");
    },

    /** How many batches this tab has suggested: a read of the suggestions started now knows them all. */
    heldSeq: () => heldSeq,

    /** The blocks this tab's pending suggestions hold. */
    held: () => held,
  };
}

/** A withdrawal of a suggestion that someone decided meanwhile has nothing left to do; anything else fails. */
function ignoreDecided(error) {
  if (!["mnote_review_invalid_transition", "mnote_review_session_not_found"].includes(error?.code)) throw error;
}

function metaOf(page) {
  const { blocks, ...meta } = page;
  return meta;
}

const copy = (block) => ({ ...block, ...(block.attrs ? { attrs: { ...block.attrs } } : {}) });
const byId = (blocks) => new Map(blocks.map((b) => [b.blockId, b]));
const hasAttrs = (attrs) => attrs && Object.keys(attrs).length > 0;

/** `base` with what a save sent (a block, or null for a deletion) in place of each block it touched. */
function overlay(base, sent) {
  const out = new Map(base);
  for (const [id, block] of sent) block ? out.set(id, block) : out.delete(id);
  return out;
}

/** Attributes as a string with sorted keys (an absent set is an empty one). */
function canonical(attrs) {
  const entries = Object.entries(attrs ?? {}).filter(([, v]) => v !== undefined);
  return JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Whether two versions of a block say the same. */
export function same(a, b) {
  return a.type === b.type && a.text === b.text && a.editable === b.editable && canonical(a.attrs) === canonical(b.attrs);
}

const sameBlocks = (a, b) => a.length === b.length && a.every((x, i) => x.blockId === b[i].blockId && same(x, b[i]));
