// The web demo's Review panel keeps every held change in reach (issue 32, finding 0), in headless Chromium
// against the Worker under `wrangler dev`: 30 yolo applies around 2 held proposals, and the panel still
// lists both held ones first, its badge and the tab's count say 2 (the server's count), and each opens
// with its buttons. Screenshots at desktop and phone widths.
//
//   node --test tests/e2e/browser_review_list.test.mjs
import { after, before, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { shoot, startDemo } from "./lib/demo.mjs";

let demo;
let doc;
let held = [];

const post = (path, body, method = "POST") =>
  demo.api(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

before(
  async () => {
    demo = await startDemo();
    doc = `review_list_${process.pid}`;
    const blocks = Array.from({ length: 34 }, (_, i) => ({ blockId: `p_${i + 1}`, type: "paragraph", text: `Step ${i} is pending.` }));
    await post(`/api/documents/${doc}`, { title: "A long review day", blocks }, "PUT");
    const mode = (reviewMode) => post("/api/profile", { reviewMode, tools: { disabled: [] } }, "PUT");
    const run = (i) => post("/api/page-ai/command", { documentId: doc, prompt: `replace "Step ${i} is pending" with "Step ${i} is done"` });
    await mode("review");
    const first = await run(0);
    assert.equal(first.outcome, "review", JSON.stringify(first));
    await mode("yolo");
    for (let i = 1; i <= 15; i++) assert.equal((await run(i)).outcome, "applied");
    await mode("review");
    const second = await run(16);
    assert.equal(second.outcome, "review");
    await mode("yolo");
    for (let i = 17; i <= 31; i++) assert.equal((await run(i)).outcome, "applied");
    // The demo opens in review mode, as a person who holds changes would have it.
    await mode("review");
    held = [second.reviewSession.sessionId, first.reviewSession.sessionId];
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

/** The review list's items: `[sessionId, state]`, in the order shown. */
const listed = (page) =>
  page.locator("#review-list .review-item").evaluateAll((els) => els.map((e) => [e.dataset.sessionId, e.querySelector(".state-badge").textContent]));

test("desktop: both held proposals are listed first and open, whatever the number of applied ones", async () => {
  const { page, problems } = await demo.open(DESKTOP, `/?doc=${doc}`);
  await page.waitForSelector("#review-session[data-state=awaiting_user]");
  assert.equal(await page.locator("#review-open-count").innerText(), "2 open");
  const items = await listed(page);
  assert.deepEqual(items.slice(0, 2).map(([id]) => id), held, "the held ones first, newest first");
  assert.equal(items.length, 2 + 8, "every open one, and the 8 newest others");
  // The newest held one is shown; the older one opens from the list, with its buttons.
  assert.equal(await page.locator("#review-session").getAttribute("data-session-id"), held[0]);
  await page.click(`#review-list [data-session-id="${held[1]}"]`);
  await page.waitForFunction((id) => document.querySelector("#review-session")?.dataset.sessionId === id, held[1]);
  assert.equal(await page.locator("#review-session").getAttribute("data-state"), "awaiting_user");
  assert.equal(await page.locator('#review-session [data-action="accept"]').isDisabled(), false);
  await page.locator("#review-panel").scrollIntoViewIfNeeded();
  await shoot(page, "review-list-held-desktop");
  // Accepting the older one leaves one open, and the count follows.
  await page.click('#review-session [data-action="accept"]');
  await page.waitForSelector("#review-session[data-state=applied]");
  await page.waitForFunction(() => document.querySelector("#review-open-count")?.textContent === "1 open");
  assert.deepEqual(problems, []);
  await page.close();
});

test("phone: the Review tab's count and list agree with the server", async () => {
  const { page, problems } = await demo.open(PHONE, `/?doc=${doc}`);
  const answer = await demo.api(`/api/documents/${doc}/review-sessions?state=open`);
  assert.deepEqual(answer.sessions.map((s) => s.sessionId), [held[0]]);
  await page.waitForFunction(() => document.querySelector("#tabbar [data-tab=review] .tab-badge")?.textContent === "1");
  await page.click("#tabbar [data-tab=review]");
  await page.waitForSelector("#review-session[data-state=awaiting_user]");
  const items = await listed(page);
  assert.equal(items[0][0], held[0]);
  assert.equal(await page.locator("#review-open-count").innerText(), "1 open");
  await shoot(page, "review-list-held-phone");
  assert.deepEqual(problems, []);
  await page.close();
});
