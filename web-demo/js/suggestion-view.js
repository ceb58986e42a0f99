// The page's pending suggestions (`mnote.suggestion.v1`, a person's and Hermes' alike), drawn where they
// apply: in the block's text, what the suggestion inserts and deletes (its `diff.segments`, from core: word
// by word in English, character by character in Chinese; nothing is diffed again here), and under the block
// a bar with its author, its reason, a stale mark and the buttons of what this person may do (accept ✓ and
// reject ✗ for an editor or owner; withdraw for the author). A new block a suggestion inserts, or one it
// deletes that the page no longer shows, appears as a ghost block where it would go. Above the page, each
// author with pending suggestions and their count, with accept all / reject all.
//
// Every decision is a request to the server, which runs core's review rules (`review::may_act`); this view
// only hides the buttons the person's role would be refused. Accepting one block of a suggestion that
// changes several accepts that block only (`blockIds`); a reject declines the whole suggestion (the review
// session is the unit), and its button says so.

import { acceptReview, reviewAction } from "./api.js";
import { h, replace } from "./dom.js";
import { errorWords } from "./labels.js";

/**
 * @param {HTMLElement} root the page's blocks
 * @param {object} deps
 * @param {ReturnType<import("./page-view.js").createPageView>} deps.pageView
 * @param {ReturnType<import("./edit-sync.js").createEditSync>} deps.sync
 * @param {HTMLElement} deps.authors where the list of authors goes (the editor's toolbar)
 * @param {string | null} deps.user the person's user id (their own suggestions are theirs to withdraw)
 * @param {boolean} deps.canDecide the person's role may accept and reject (core's `accept` act)
 * @param {{ mintIdempotencyKey: () => string, mintToolCallId: () => string }} deps.engine
 * @param {() => Promise<void>} deps.onDecided a decision was sent: read the suggestions (and the page) again
 */
export function createSuggestionView(root, { pageView, sync, authors, user, canDecide, engine, onDecided }) {
  let suggestions = [];
  let busy = false;
  let notice = null;
  let painting = false;
  /** blockId → the key of the marks drawn in its text, to draw them once. */
  const marked = new Map();

  const mine = (s) => s.author.kind === "person" && s.author.actor === user;
  const sessionSize = (s) => suggestions.filter((o) => o.sessionId === s.sessionId).length;

  /** Sends `fn` (one or more decisions), then reads everything again; a refusal is said above the page. */
  async function decide(fn) {
    if (busy) return;
    busy = true;
    notice = null;
    paintAuthors();
    try {
      notice = await fn();
    } catch (error) {
      const words = errorWords(error);
      notice = { kind: "error", text: `${words.text} ${words.hint ?? ""}`.trim() };
    } finally {
      busy = false;
    }
    await onDecided();
    paint();
  }

  const accept = (s) =>
    decide(async () => {
      // Only this block of a suggestion that changes several.
      const blockIds = sessionSize(s) > 1 ? [s.blockId] : undefined;
      const answer = await acceptReview(s.sessionId, engine.mintIdempotencyKey(), blockIds);
      if (!answer.result) return { kind: "warn", text: "The page changed since this was suggested, so nothing was written: preview it again, or reject it." };
      return null;
    });
  const reject = (s) => decide(async () => void (await reviewAction(s.sessionId, "reject")));
  const retry = (s) => decide(async () => void (await reviewAction(s.sessionId, "retry", { toolCallId: engine.mintToolCallId() })));

  /** Accepts or rejects every pending suggestion of one author, one review session at a time. */
  const decideAll = (key, verb) =>
    decide(async () => {
      const theirs = suggestions.filter((s) => authorKey(s) === key);
      const sessions = [...new Set(theirs.filter((s) => verb === "reject" || s.state === "pending").map((s) => s.sessionId))];
      let stale = 0;
      for (const sessionId of sessions) {
        if (verb === "reject") await reviewAction(sessionId, "reject");
        else if (!(await acceptReview(sessionId, engine.mintIdempotencyKey())).result) stale++;
      }
      const skipped = verb === "accept" ? theirs.filter((s) => s.state === "stale").length + stale : 0;
      return skipped ? { kind: "warn", text: `${skipped} ${skipped === 1 ? "suggestion was" : "suggestions were"} not accepted: the page changed since. Preview again, or reject.` } : null;
    });

  /** The buttons for one suggestion: what this person may do with it. */
  function actions(s) {
    const what = `${whose(authorName(s, user))} suggestion on “${snippet(s)}”`;
    const others = sessionSize(s) - 1;
    const out = [];
    const stale = s.state === "stale";
    if (canDecide && !stale)
      out.push(button("✓", "accept", `Accept ${what}`, () => accept(s), "Accept"));
    if (canDecide && stale) out.push(button("↻", "retry", `Preview ${what} again on the current page`, () => retry(s), "Preview again"));
    const withdraw = mine(s);
    if (canDecide || withdraw) {
      const also = others > 0 ? ` (and its ${others} other ${others === 1 ? "change" : "changes"})` : "";
      const verb = withdraw ? "Withdraw" : "Reject";
      out.push(button(withdraw ? "↩" : "✗", withdraw ? "withdraw" : "reject", `${verb} ${what}${also}`, () => reject(s), verb));
    }
    return out;
  }

  function button(symbol, action, name, onclick, words) {
    return h(
      "button",
      { type: "button", class: `suggestion-action suggestion-${action}`, "data-action": action, "aria-label": name, title: name, disabled: busy, onclick },
      h("span", { "aria-hidden": "true" }, symbol),
      h("span", { class: "suggestion-action-words", "aria-hidden": "true" }, words),
    );
  }

  /** The bar under a suggested block: who, why, stale, the buttons, and (`withDiff`) the change itself. */
  function bar(s, withDiff = false) {
    return h(
      "div",
      {
        class: `suggestion-bar${s.state === "stale" ? " is-stale" : ""}`,
        contenteditable: "false",
        "data-suggestion-id": s.suggestionId,
        "data-session-id": s.sessionId,
        "data-author": authorKey(s),
        "data-state": s.state,
      },
      h("span", { class: `suggestion-author author-${s.author.kind}` }, authorName(s, user)),
      h("span", { class: "suggestion-change" }, CHANGE_WORDS[s.change] ?? s.change),
      s.reason ? h("span", { class: "suggestion-reason" }, `“${s.reason}”`) : null,
      s.state === "stale" ? h("span", { class: "suggestion-stale" }, "Stale: the block changed since") : null,
      h("span", { class: "suggestion-actions" }, actions(s)),
      withDiff ? h("p", { class: "suggestion-diff" }, segments(s)) : null,
    );
  }

  /** The suggestion's segments as text with <ins> and <del>, exactly as core split them. */
  const segments = (s) =>
    s.diff.segments.map((seg) => (seg.tag === "insert" ? h("ins", { class: "suggestion-ins" }, seg.text) : seg.tag === "delete" ? h("del", { class: "suggestion-del" }, seg.text) : seg.text));

  /** Whether the block as the page shows it is the text the suggestion's marks were made on (or make). */
  function drawsOn(s, block) {
    if (typeof block?.text !== "string") return false;
    return block.text === (s.diff.before ?? null) || block.text === (s.diff.after ?? null);
  }

  /** Marks a shown block's text with the suggestion; takes the marks off a block no suggestion marks now. */
  function markText(byBlock) {
    for (const [blockId, key] of marked) {
      if (byBlock.get(blockId)?.key === key) continue;
      marked.delete(blockId);
      const text = pageView.textOf(blockId);
      if (text && text.dataset.raw === undefined) pageView.redraw(blockId);
    }
    for (const [blockId, { s, key }] of byBlock) {
      const text = pageView.textOf(blockId);
      if (!text || text.dataset.raw !== undefined || text.contains(document.activeElement)) continue;
      if (marked.get(blockId) === key && text.querySelector(".suggestion-ins, .suggestion-del")) continue;
      replace(text, segments(s));
      marked.set(blockId, key);
    }
  }

  /** A block the page does not show, as the suggestion would have it: placed where it goes. */
  function ghost(s) {
    const op = s.operations.find((o) => (o.block?.blockId ?? o.blockId) === s.blockId);
    const type = op?.block?.type ?? "paragraph";
    return h(
      "div",
      { class: `block block--${type} suggestion-ghost`, "data-suggested-block-id": s.blockId, "data-change": s.change },
      h("div", { class: "block-body" }, h("p", { class: "block-text suggestion-text" }, segments(s))),
      bar(s),
    );
  }

  /**
   * Where a ghost goes: after the block its insert names, else after its block's place on the server's page
   * (`server()`: its blocks, read out of the session once per paint, since a long page costs its length).
   */
  function placeGhost(el, s, server) {
    const op = s.operations.find((o) => (o.block?.blockId ?? o.blockId) === s.blockId);
    const at = (id) => (id ? (pageView.elementOf(id) ?? root.querySelector(`[data-suggested-block-id="${CSS.escape(id)}"]`)) : null);
    if (op?.afterBlockId && at(op.afterBlockId)) return at(op.afterBlockId).after(el);
    if (op?.beforeBlockId && at(op.beforeBlockId)) return at(op.beforeBlockId).before(el);
    const blocks = server();
    const i = blocks.findIndex((b) => b.blockId === s.blockId);
    const previous = blocks.slice(0, Math.max(i, 0)).findLast((b) => at(b.blockId));
    if (previous) at(previous.blockId).after(el);
    else root.prepend(el);
  }

  /** Draws every pending suggestion where it applies, and the authors above the page. */
  function paint() {
    if (painting) return;
    painting = true;
    try {
      // The person's blocks by id, once (a page of 10,000 blocks and 100 suggestions: no search per suggestion).
      const shown = new Map(sync.blocks().map((b) => [b.blockId, b]));
      let serverBlocks = null;
      const server = () => (serverBlocks ??= sync.session().page().blocks);
      // Ghosts: drawn again only when what they show changed (a focused button stays focused).
      const ghosts = new Map(suggestions.filter((s) => !shown.has(s.blockId)).map((s) => [s.blockId, s]));
      const ghostKey = (s) => JSON.stringify([s.suggestionId, s.state, s.diff.segments, s.reason, sessionSize(s), busy]);
      for (const el of root.querySelectorAll(".suggestion-ghost")) {
        const s = ghosts.get(el.dataset.suggestedBlockId);
        if (s && el.dataset.key === ghostKey(s)) ghosts.delete(s.blockId);
        else el.remove();
      }
      for (const s of ghosts.values()) {
        const el = ghost(s);
        el.dataset.key = ghostKey(s);
        placeGhost(el, s, server);
      }
      const bars = new Map();
      const byBlock = new Map();
      for (const s of suggestions) {
        if (!shown.has(s.blockId)) continue;
        const key = JSON.stringify([s.suggestionId, s.diff.segments]);
        if (!byBlock.has(s.blockId) && drawsOn(s, shown.get(s.blockId))) byBlock.set(s.blockId, { s, key });
        bars.set(s.blockId, [...(bars.get(s.blockId) ?? []), s]);
      }
      markText(byBlock);
      paintBars(bars, new Set([...byBlock.values()].map(({ s }) => s.suggestionId)));
      paintAuthors();
    } finally {
      painting = false;
    }
  }

  /** The bars under the shown blocks: drawn again only when what they say changed (a focused button stays). */
  function paintBars(bars, inline) {
    // Only the blocks that have a bar now or had one: a long page is not walked on every drawing.
    const els = new Set([...root.querySelectorAll(".block.has-suggestion")]);
    for (const id of bars.keys()) if (pageView.elementOf(id)) els.add(pageView.elementOf(id));
    for (const el of els) {
      const list = bars.get(el.dataset.blockId) ?? [];
      const key = JSON.stringify([list.map((s) => [s.suggestionId, s.state, s.reason, sessionSize(s), inline.has(s.suggestionId)]), busy, user]);
      const old = el.querySelector(":scope > .suggestion-bars");
      el.classList.toggle("has-suggestion", list.length > 0);
      if (old?.dataset.key === key) continue;
      if (!list.length) {
        old?.remove();
        continue;
      }
      const focused = old?.contains(document.activeElement) ? document.activeElement.dataset.action : null;
      // The block's text carries one suggestion's marks; every other one shows its change in its bar.
      const fresh = h("div", { class: "suggestion-bars", contenteditable: "false", "data-key": key }, list.map((s) => bar(s, !inline.has(s.suggestionId))));
      old ? old.replaceWith(fresh) : el.append(fresh);
      if (focused) fresh.querySelector(`[data-action="${focused}"]`)?.focus();
    }
  }

  /** Above the page: each author with pending suggestions, their count, and accept all / reject all. */
  function paintAuthors() {
    const groups = new Map();
    for (const s of suggestions) {
      const key = authorKey(s);
      if (!groups.has(key)) groups.set(key, { key, name: authorName(s, user), own: mine(s), count: 0 });
      groups.get(key).count++;
    }
    replace(
      authors,
      groups.size ? h("span", { class: "suggestion-authors-title" }, "Suggestions") : null,
      [...groups.values()].map((g) =>
        h(
          "span",
          { class: "suggestion-author-group", "data-author": g.key },
          h("span", { class: "suggestion-author-name" }, `${g.name} · ${g.count}`),
          canDecide ? authorButton("accept", `Accept all ${g.count} of ${whose(g.name)} suggestions`, "✓ All", () => decideAll(g.key, "accept")) : null,
          canDecide || g.own
            ? authorButton(g.own ? "withdraw" : "reject", `${g.own ? "Withdraw" : "Reject"} all ${g.count} of ${whose(g.name)} suggestions`, g.own ? "↩ All" : "✗ All", () => decideAll(g.key, "reject"))
            : null,
        ),
      ),
      notice ? h("span", { class: `suggestion-notice notice-${notice.kind}`, id: "suggestion-notice", role: "status" }, notice.text) : null,
    );
  }

  function authorButton(action, name, words, onclick) {
    return h("button", { type: "button", class: `suggestion-all suggestion-${action}`, "data-action": `${action}-all`, "aria-label": name, title: name, disabled: busy, onclick }, words);
  }

  return {
    /** Takes the page's pending suggestions as the server listed them, and draws them. */
    show(list) {
      suggestions = list;
      paint();
    },
    paint,
    list: () => suggestions,
    /** Who made the pending suggestion held by review session `sessionId`, in words; null when none is. */
    authorOf(sessionId) {
      const s = suggestions.find((x) => x.sessionId === sessionId);
      return s ? authorName(s, user) : null;
    },
  };
}

const CHANGE_WORDS = { replace: "replaces text", update: "edits", insert: "adds this block", delete: "deletes this block", move: "moves this block" };

/** Who made a suggestion, as one key: a person, or the Hermes run or command that proposed it. */
const authorKey = (s) => `${s.author.kind}:${s.author.actor}:${s.author.runId ?? ""}`;

/** Who made a suggestion, in words: "You", the person's id, "Hermes · run …". */
export function authorName(s, user) {
  const { kind, actor, runId } = s.author;
  if (kind === "person") return actor === user ? "You" : actor;
  const id = runId?.replace(/^run_/, "");
  const run = id ? ` · run ${id.length > 12 ? `${id.slice(0, 10)}…` : id}` : "";
  return `${kind === "hermes" ? "Hermes" : "Command"}${run}`;
}

/** "user_vic's", "Hermes · run x's", or "your". */
const whose = (name) => (name === "You" ? "your" : `${name}'s`);

/** A few words of the block a suggestion changes, to name it on a button. */
function snippet(s) {
  const text = (s.diff.before ?? s.diff.after ?? "").replace(/\s+/g, " ").trim();
  const chars = [...text];
  return chars.length > 32 ? `${chars.slice(0, 30).join("")}…` : text || s.blockId;
}
