// The web demo's "Undo this run" (issue 33 item 5b) in headless Chromium against the Worker under
// `wrangler dev`: a Hermes run (tool calls with a runId, applied in yolo mode) rewrote two blocks and a
// person edited a third; the review panel shows the run's change with "Undo this run", which puts the two
// blocks back and keeps the person's edit, and says so (role=status). When a person edited a block of the
// run afterwards, the undo shows the server's preview first and writes only on "Undo anyway".
// Screenshots at desktop and phone widths.
//
//   node --test --test-concurrency=1 tests/e2e/browser_run_undo.test.mjs
import { after, before, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { shoot, startDemo } from "./lib/demo.mjs";
import { TOOL_VARS, fresh, toolCall } from "./lib/mnote.mjs";

let demo;

const BLOCKS = [
  { blockId: "p_1", type: "paragraph", text: "第一版计划，周五发布。" },
  { blockId: "p_2", type: "paragraph", text: "The API is a draft." },
  { blockId: "p_3", type: "paragraph", text: "Notes" },
];

before(
  async () => {
    demo = await startDemo({ vars: TOOL_VARS, profile: { reviewMode: "yolo", tools: { disabled: [] } } });
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

/** A page whose Hermes run rewrote `writes` ({blockId: text}, one tool call each); answers ids and revision. */
async function pageWithRun(prefix, writes) {
  const doc = fresh(prefix).replaceAll(".", "_");
  const made = await demo.send("PUT", `/api/documents/${doc}`, { title: "Run undo", blocks: BLOCKS });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const runId = fresh("run_demo").replaceAll(".", "_");
  let revision = made.body.revision;
  const sessions = [];
  for (const [blockId, text] of Object.entries(writes)) {
    const args = { documentId: doc, baseRevision: revision, dryRun: false, idempotencyKey: fresh("k"), operations: [{ op: "update", blockId, text }] };
    const res = await toolCall(demo.worker.url, "doc_apply_block_ops", args, { runId });
    assert.equal(res.status, 200, res.text);
    revision = res.body.result.newRevision;
    sessions.push(res.body.reviewSession.sessionId);
  }
  return { doc, runId, revision, sessions };
}

const personEdits = async (doc, revision, blockId, text) => {
  const res = await demo.send("PATCH", `/api/documents/${doc}/blocks`, { baseRevision: revision, operations: [{ op: "update", blockId, text }], idempotencyKey: fresh("k") });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.newRevision;
};

/** Opens the demo on `doc` at `viewport` and shows the run's session `sessionId` in the review panel. */
async function openRun(viewport, doc, sessionId) {
  const tab = await demo.open(viewport, `/?doc=${doc}`);
  if (viewport === PHONE) await tab.page.click("#tabbar [data-tab=review]");
  await tab.page.click(`#review-list [data-session-id="${sessionId}"]`);
  await tab.page.waitForSelector(`#review-session[data-session-id="${sessionId}"] #run-undo-button`);
  return tab;
}

/**
 * Scrolls `selector` to the middle of its scroller, as the element is now: the panel paints itself again
 * as the live channel and the page reload arrive, so a node found earlier may be gone.
 */
const scrollTo = (page, selector) => page.evaluate((s) => document.querySelector(s)?.scrollIntoView({ block: "center" }), selector);

const texts = async (doc) => (await demo.storedPage(doc)).blocks.map((b) => b.text);

test("Undo this run puts the run's blocks back, keeps a person's edit elsewhere, and says so", async () => {
  const run = await pageWithRun("demo_undo", { p_1: "第二版计划，周五发布。", p_2: "The API is final." });
  const revision = await personEdits(run.doc, run.revision, "p_3", "Notes by a person");
  const { page, problems } = await openRun(DESKTOP, run.doc, run.sessions[1]);
  assert.equal(await page.locator("#run-undo").getAttribute("data-run-id"), run.runId);

  await page.click("#run-undo-button");
  await page.waitForSelector("#run-undo-status.status-ok");
  assert.match(await page.locator("#run-undo-status").innerText(), /^Run undone: 2 blocks back as before the run · revision \d+\. Other changes stay\.$/);
  assert.equal(await page.locator("#run-undo-status").getAttribute("role"), "status");
  assert.deepEqual(await texts(run.doc), ["第一版计划，周五发布。", "The API is a draft.", "Notes by a person"]);
  assert.equal((await demo.storedPage(run.doc)).revision, revision + 1, "one write");
  // The page and the panel follow: the blocks read as before the run, the session is undone.
  await page.waitForSelector("#review-session[data-state=reverted]");
  await page.waitForFunction(() => document.querySelector('#page-blocks [data-block-id="p_2"]')?.textContent.includes("The API is a draft."));
  assert.equal(await page.locator("#run-undo-button").count(), 0, "nothing left to undo");
  assert.equal(await page.locator("#run-undo > p.subtle").innerText(), "This run's changes were undone.");
  await page.waitForSelector('#audit-list .audit-entry[data-action="review.undo_run"]');
  await scrollTo(page, "#run-undo-status");
  await shoot(page, "run-undo-desktop");
  assert.deepEqual(problems, []);
  await page.close();
});

test("after a person's later edit on the run's block, the undo previews and writes only when confirmed", async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const run = await pageWithRun("demo_undo_confirm", { p_1: "第二版计划，周五发布。", p_2: "The API is final." });
    const revision = await personEdits(run.doc, run.revision, "p_2", "The API is final, says legal.");
    const { page, problems } = await openRun(viewport, run.doc, run.sessions[0]);
    const width = viewport === PHONE ? "phone" : "desktop";

    await page.click("#run-undo-button");
    await page.waitForSelector("#run-undo-preview");
    assert.match(await page.locator("#run-undo-status").innerText(), /^Nothing was written yet: p_2 changed after the run wrote it\.$/);
    assert.deepEqual(await page.locator("#run-undo-preview .review-block").evaluateAll((els) => els.map((e) => e.dataset.blockId).sort()), ["p_1", "p_2"]);
    assert.match(await page.locator('#run-undo-preview .review-block[data-block-id="p_2"] del').allInnerTexts().then((t) => t.join(" ")), /legal/);
    assert.equal((await demo.storedPage(run.doc)).revision, revision, "a preview writes nothing");
    await scrollTo(page, "#run-undo-preview");
    await shoot(page, `run-undo-preview-${width}`);

    await page.click("#run-undo-confirm");
    await page.waitForSelector("#run-undo-status.status-ok");
    assert.deepEqual(await texts(run.doc), BLOCKS.map((b) => b.text));
    assert.equal((await demo.storedPage(run.doc)).revision, revision + 1);
    await page.waitForSelector("#review-session[data-state=reverted]");
    await page.waitForSelector('#audit-list .audit-entry[data-action="review.undo_run"]', { state: "attached" });
    await scrollTo(page, "#run-undo-status");
    await shoot(page, `run-undo-done-${width}`);
    assert.deepEqual(problems, []);
    await page.close();
  }
});
