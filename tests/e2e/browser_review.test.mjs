// The web demo's review panel and audit log in headless Chromium, against the Worker under `wrangler dev`:
// a partial accept shows only what the server applied; the audit list follows every action (its count, its
// newest entry and the chain's verdict agree with the server); a retry that a switched-off tool refuses
// says so once, with the way back to the tool; the history names each item by its command, newest change
// first, and a message about an action stays with the item it concerns.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP } from "./lib/browser.mjs";
import { applyCommand, command, reviewMode, shoot, startDemo } from "./lib/demo.mjs";

let demo;
let page;
let problems;

before(
  async () => {
    demo = await startDemo();
    ({ page, problems } = await demo.open(DESKTOP));
    await reviewMode(page, "review");
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

/** Holds `prompt` for review and waits until the panel shows its session; answers the session id. */
async function hold(prompt) {
  await command(page, prompt, "direct");
  await applyCommand(page);
  await page.waitForSelector("#review-session[data-state=awaiting_user]");
  await page.waitForFunction((p) => document.querySelector("#review-session-name")?.textContent === p, prompt);
  return page.locator("#review-session").getAttribute("data-session-id");
}

/** Waits until the audit panel shows the server's newest entry, and its count says how many there are. */
async function auditAgrees() {
  const { head } = await demo.api("/api/documents/welcome/audit?limit=1");
  await page.waitForFunction(
    (seq) =>
      document.querySelector("#audit-list .audit-entry")?.dataset.seq === String(seq) &&
      document.querySelector("#audit-count")?.textContent === `${seq} ${seq === 1 ? "entry" : "entries"}`,
    head.seq,
    { timeout: 60_000 },
  );
  return head.seq;
}

const shownBlocks = () => page.locator("#review-session .review-block").evaluateAll((els) => els.map((e) => e.dataset.blockId));

test("after a partial accept the panel lists only the blocks the server applied", async () => {
  const before = await demo.storedPage();
  await hold("replace 'end-to-end suite' with 'e2e suite' and 'partial accept' with '部分接受'");
  assert.deepEqual((await shownBlocks()).sort(), ["t_hermes", "t_partial"]);
  await page.locator('#review-session input[data-block-id="t_partial"]').uncheck();
  await page.click('#review-session [data-action="accept"]');
  await page.waitForSelector("#review-session[data-state=applied]");

  const stored = await demo.storedPage();
  assert.match(stored.blocks.find((b) => b.blockId === "t_hermes").text, /e2e suite/);
  const text = (page, id) => page.blocks.find((b) => b.blockId === id).text;
  assert.equal(text(stored, "t_partial"), text(before, "t_partial"), "the unchecked block is untouched");
  assert.deepEqual(await shownBlocks(), ["t_hermes"], "only the applied block is listed");
  assert.equal(await page.locator("#review-applied").innerText(), "Written: 1 of 2 changes. t_partial was left as it was.");
  assert.equal(await page.locator("#review-session input[type=checkbox]").count(), 0, "nothing left to pick");
  await auditAgrees();
});

test("the audit list refreshes after every action; its count, list and verdict agree", async () => {
  const seen = [await auditAgrees()];
  const step = async (act) => {
    await act();
    seen.push(await auditAgrees());
  };
  // Hold, reject.
  await step(() => hold("把第二段改成引用"));
  await step(async () => {
    await page.click('#review-session [data-action="reject"]');
    await page.waitForSelector("#review-session[data-state=rejected]");
  });
  // Hold, retry, abort.
  await step(() => hold("把最后一个待办勾上"));
  await step(async () => {
    await page.click('#review-session [data-action="retry"]');
    await page.waitForSelector("#review-notice.status-ok");
  });
  await step(async () => {
    await page.click('#review-session [data-action="abort"]');
    await page.waitForSelector("#review-session[data-state=aborted]");
  });
  // Hold, accept, revert.
  await step(() => hold('replace "numbers check" with "finance review"'));
  await step(async () => {
    await page.click('#review-session [data-action="accept"]');
    await page.waitForSelector("#review-session[data-state=applied]");
  });
  await step(async () => {
    await page.click('#review-session [data-action="revert"]');
    await page.waitForSelector("#review-session[data-state=reverted]");
  });
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1], `every action is a new entry: ${seen}`);
  const actions = await page.locator("#audit-list .audit-entry").evaluateAll((els) => els.slice(0, 3).map((e) => e.dataset.action));
  assert.deepEqual(actions, ["review.revert", "review.accept", "review.propose"]);

  // Verify: the verdict counts the entries the list ends at.
  await page.click("#audit-verify");
  await page.waitForSelector("#audit-verdict.status-ok");
  const head = await auditAgrees();
  assert.equal(await page.locator("#audit-verdict").innerText(), `Chain verified · ${head} entries`);
  assert.equal(await page.locator("#audit-list .audit-entry").first().getAttribute("data-seq"), String(head));
});

test("a retry refused by a switched-off tool says so once, with the way back to the tool", async () => {
  const held = await hold("删除最后一段");
  const row = page.locator('#tool-list [data-tool="mnote.doc.apply_block_ops"]');
  await row.locator("input").uncheck();
  await page.waitForSelector('#tool-list [data-tool="mnote.doc.apply_block_ops"].is-off');
  try {
    await page.click(`#review-list [data-session-id="${held}"]`);
    await page.click('#review-session [data-action="retry"]');
    await page.waitForSelector("#review-session[data-state=failed]");
    // One message, in words, and no green "Previewed again" above it.
    assert.equal(await page.locator("#review-panel .status-ok").count(), 0);
    assert.equal(await page.locator("#review-panel .message-error, #review-panel .status-error").count(), 1);
    const error = page.locator("#review-error");
    assert.equal(await error.locator(".error-message").innerText(), "Edit blocks (mnote.doc.apply_block_ops) is turned off in Tools.");
    assert.equal(await error.locator(".error-hint").innerText(), "Turn it back on, then try again.");
    await shoot(page, "desktop-review-tool-off");

    // The button leads to the switch.
    await page.click("#review-open-tools");
    await page.waitForFunction(() => document.activeElement?.closest("[data-tool]")?.dataset.tool === "mnote.doc.apply_block_ops");
    assert.match(await row.getAttribute("class"), /is-called-out/);
  } finally {
    await row.locator("input").check();
    await page.waitForSelector('#tool-list [data-tool="mnote.doc.apply_block_ops"]:not(.is-off)');
  }
  // Back on: the retry previews again.
  await page.click('#review-session [data-action="retry"]');
  await page.waitForSelector("#review-session[data-state=awaiting_user]");
  assert.equal(await page.locator("#review-notice").innerText(), "Previewed again against the current page");
  await page.click('#review-session [data-action="reject"]');
  await page.waitForSelector("#review-session[data-state=rejected]");
});

test("the history names each item by its command, open ones first, each group newest change first", async () => {
  const prompts = ["把「第一版草稿」改成「初稿」", "在末尾添加「完成」", "把第二段改成待办"];
  const ids = [];
  for (const prompt of prompts) ids.push(await hold(prompt));
  // Acting on the oldest makes it the newest change.
  await page.click(`#review-list [data-session-id="${ids[0]}"]`);
  await page.waitForSelector(`#review-session[data-session-id="${ids[0]}"]`);
  await page.click('#review-session [data-action="reject"]');
  await page.waitForSelector(`#review-session[data-session-id="${ids[0]}"][data-state=rejected]`);

  const items = await page.locator("#review-list .review-item").evaluateAll((els) =>
    els.map((e) => ({ id: e.dataset.sessionId, at: e.dataset.updatedAt, open: !!e.querySelector(".state-awaiting_user, .state-stale"), name: e.querySelector(".review-item-name").textContent })),
  );
  const times = items.map((i) => i.at);
  // The open ones (held changes) first, so none is ever out of reach; then the rest, each group by time.
  const open = items.filter((i) => i.open);
  assert.deepEqual(items.slice(0, open.length), open, "the open ones first");
  for (const group of [open, items.filter((i) => !i.open)]) {
    const at = group.map((i) => i.at);
    assert.deepEqual(at, [...at].sort().reverse(), "each group newest change first");
  }
  assert.deepEqual(open.slice(0, 2).map((i) => i.id), [ids[2], ids[1]]);
  assert.deepEqual(open.slice(0, 2).map((i) => i.name), [prompts[2], prompts[1]]);
  const rejected = items.find((i) => i.id === ids[0]);
  assert.equal(rejected.name, prompts[0]);
  assert.equal(items.filter((i) => !i.open)[0].id, ids[0], "the one just acted on is the newest of the rest");
  for (const item of items) assert.doesNotMatch(item.name, /^rs\.|^[a-z0-9]{16}$/, "named, not by an id");
  // The shown times run in the same order.
  const shown = await page.locator("#review-list time").evaluateAll((els) => els.map((e) => e.getAttribute("datetime")));
  assert.deepEqual(shown, times);
  await shoot(page, "desktop-review-history");
});

test("a message about an action stays with the item it concerns", async () => {
  const [aborted, other] = await page.locator("#review-list .review-item").evaluateAll((els) =>
    els.filter((e) => e.querySelector(".state-awaiting_user")).map((e) => e.dataset.sessionId),
  );
  await page.click(`#review-list [data-session-id="${aborted}"]`);
  await page.waitForSelector(`#review-session[data-session-id="${aborted}"]`);
  await page.click('#review-session [data-action="abort"]');
  await page.waitForSelector(`#review-session[data-session-id="${aborted}"][data-state=aborted]`);
  assert.equal(await page.locator("#review-notice").innerText(), "Aborted: nothing was written");

  await page.click(`#review-list [data-session-id="${other}"]`);
  await page.waitForSelector(`#review-session[data-session-id="${other}"]`);
  assert.equal(await page.locator("#review-notice").count(), 0, "no message about another item");
  await page.click(`#review-list [data-session-id="${aborted}"]`);
  await page.waitForSelector(`#review-session[data-session-id="${aborted}"]`);
  assert.equal(await page.locator("#review-notice").innerText(), "Aborted: nothing was written");
});

test("nothing went wrong in the browser", () => {
  assert.deepEqual(problems, []);
});
