// A long page in the web demo, in headless Chromium (issue 33's speed goal): a 3,000-block page shows its
// top first and draws the rest in later steps (`data-drawn` "partial", then "all"), every block ends up
// drawn once and in order, with the context's marks; the person can type in the first block while the rest
// is still being drawn, and the save is one write; the context panel shows the first targets and the
// beginning of its views, with the rest one click away (Copy copies everything); a target chip far down the
// page scrolls to its block. The time it takes is a benchmark (benches/page_open.mjs), not a test.
//
//   node --test --test-concurrency=1 --experimental-websocket tests/e2e/browser_long_page.test.mjs
import { after, before, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP } from "./lib/browser.mjs";
import { shoot, startDemo } from "./lib/demo.mjs";

const BLOCKS = 3_000;
let demo;

before(
  async () => {
    demo = await startDemo({ profile: { tools: { disabled: [] }, reviewMode: "review" } });
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

/** A page of BLOCKS blocks, a bulleted list across the first step's edge (blocks 195 to 205). */
async function longPage(id) {
  const blocks = Array.from({ length: BLOCKS }, (_, i) =>
    i >= 195 && i <= 205
      ? { blockId: `l_${i}`, type: "bulleted_list_item", text: `Item ${i}` }
      : { blockId: `p_${i}`, type: "paragraph", text: `Paragraph ${i} of the long page.` },
  );
  const res = await demo.send("PUT", `/api/documents/${id}`, { title: "A long page", blocks });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { id, blocks, revision: res.body.revision };
}

test("a 3,000-block page shows its top first, then every block in order, and takes typing meanwhile", { timeout: 300_000 }, async () => {
  const { id, blocks, revision } = await longPage(`long_${process.pid}`);
  const { page, problems } = await demo.open(DESKTOP, `/?doc=${id}`);
  // Typed into at once, while the page may still be drawing.
  const first = page.locator('#page-blocks [data-block-id="p_0"] .block-text');
  await first.click();
  await page.keyboard.press("End");
  await page.keyboard.type(" Typed early.");

  await page.waitForSelector("#page-blocks[data-drawn=all]");
  const drawn = await page.locator("#page-blocks > .block").evaluateAll((els) => els.map((e) => e.dataset.blockId));
  assert.deepEqual(drawn, blocks.map((b) => b.blockId), "every block drawn once, in page order");
  // Blocks drawn in later steps carry the context's marks as the first ones do (a full-page context: all
  // are write targets).
  await page.waitForFunction((n) => document.querySelectorAll("#page-blocks > .block.is-target").length === n, BLOCKS);
  // The list across the first step's edge is one list of 11 items.
  const lists = await page.locator("#page-blocks > .block-list").evaluateAll((els) => els.map((e) => e.getAttribute("aria-owns").split(" ").length));
  assert.deepEqual(lists, [11]);

  await page.waitForSelector("#save-status[data-state=saved]");
  const stored = await demo.storedPage(id);
  assert.equal(stored.revision, revision + 1, "the typing is one write");
  assert.equal(stored.blocks[0].text, "Paragraph 0 of the long page. Typed early.");
  assert.equal(stored.blocks.length, BLOCKS);
  assert.deepEqual(problems, []);
});

test("the context panel shows the first targets and the start of its views; the rest is a click away", { timeout: 300_000 }, async () => {
  const { id } = await longPage(`long_ctx_${process.pid}`);
  const { page, problems } = await demo.open(DESKTOP, `/?doc=${id}`);
  await page.waitForSelector("#context-panel[data-status=ready]");
  const chips = page.locator("#context-targets [data-block-id]");
  assert.equal(await chips.count(), 200, "the first 200 targets");
  const showAll = page.locator('#context-targets [data-show-all="targets"]');
  assert.equal((await showAll.textContent()).trim(), "Show all 3,000");
  await page.locator('#context-panel .view-tab[data-view="text"]').click();
  const output = page.locator("#context-output");
  const shown = await output.evaluate((el) => el.textContent.length);
  assert.ok(shown < 25_000, `the text view shows its beginning (${shown} characters)`);
  await page.locator('#context-output [data-show-all="view"]').click();
  await page.waitForFunction(() => document.querySelector("#context-output").textContent.includes("Paragraph 2999 of the long page."));

  await showAll.click();
  await page.waitForFunction(() => document.querySelectorAll("#context-targets [data-block-id]").length === 3000);
  // A chip far down the page scrolls its block into view.
  await page.locator('#context-targets [data-block-id="p_2990"]').click();
  await page.waitForFunction(() => {
    const box = document.querySelector('#page-blocks [data-block-id="p_2990"]').getBoundingClientRect();
    return box.top >= 0 && box.bottom <= innerHeight;
  });
  await shoot(page, "long-page-desktop");
  assert.deepEqual(problems, []);
});
