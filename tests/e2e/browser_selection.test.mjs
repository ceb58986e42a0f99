// The web demo in headless Chromium: one meaning of selection (issue 16, item 3). With two blocks picked in
// the Context panel, a replace of a text that is only outside them previews as "outside your selection", not
// as a green direct write; nothing is sent while typing, there is no Apply, and Enter or Apply writes
// nothing: only choosing "Send to Hermes" sends it. The server reads the same command the same way.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { reviewMode, shoot, startDemo } from "./lib/demo.mjs";

let demo;

before(
  async () => {
    demo = await startDemo();
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

const PROMPT = "把「第一版草稿」改成「初稿」";
const PICKS = ["t_markdown", "t_storage"];

/** Opens the demo at `viewport`, picks the two todo blocks as the selection and types the command. */
async function selectAndType(viewport) {
  const { page, problems } = await demo.open(viewport);
  const tab = (name) => (viewport === PHONE ? page.click(`#tabbar [data-tab=${name}]`) : null);
  if (viewport !== PHONE) await reviewMode(page, "yolo");
  await tab("context");
  await page.click("#scope-tabs [data-scope=selection]");
  await tab("page");
  for (const id of PICKS) await page.click(`#page-blocks [data-block-id="${id}"]`);
  await tab("command");
  const requests = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/")) requests.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  await page.fill("#command-input", PROMPT);
  await page.waitForSelector("#command-panel[data-status=hermes]");
  return { page, problems, requests };
}

describe("a selection bounds a command in the preview as on the server", () => {
  test("a text only outside the selection says so, and Enter writes nothing", async () => {
    const before = await demo.storedPage();
    const { page, problems, requests } = await selectAndType(DESKTOP);
    const reason = await page.locator("#decision-reason").innerText();
    assert.equal(reason, "「第一版草稿」 is only outside your selection (in p_draft).");
    assert.match(await page.locator("#decision-hint").innerText(), /Select those blocks too, or clear the selection/);
    assert.equal(await page.locator("#command-apply").count(), 0, "no Apply for a write that will not happen");
    assert.deepEqual(requests, [], "typing sends nothing");
    await shoot(page, "selection-outside-desktop");

    // The server, asked the same command with the same selection, reads it the same way.
    const answer = await demo.api("/api/page-ai/command", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ documentId: "welcome", prompt: PROMPT, selection: PICKS, runHermes: false }),
    });
    assert.equal(answer.outcome, "hermes");
    assert.equal(answer.route.reasonCode, "out_of_selection");
    assert.equal(answer.hermesRun, undefined, "no run");
    const after = await demo.storedPage();
    assert.equal(after.revision, before.revision, "nothing was written");
    assert.deepEqual(problems, []);
  });

  test("only choosing Send to Hermes sends it", async () => {
    const { page, requests } = await selectAndType(DESKTOP);
    const sent = page.waitForRequest((r) => r.url().endsWith("/api/page-ai/command") && r.method() === "POST");
    await page.click("#command-hermes");
    const body = (await sent).postDataJSON();
    assert.deepEqual([body.prompt, body.selection, body.scope], [PROMPT, PICKS, undefined]);
    assert.ok(requests.includes("POST /api/page-ai/command"));
    // The demo's Worker has no Hermes: the run says so, and the page is unchanged.
    await page.waitForSelector("#hermes-run[data-status=failed]");
    assert.equal(await page.locator("#hermes-run .error-code").innerText(), "hermes_client_unconfigured");
    const stored = await demo.storedPage();
    assert.ok(stored.blocks.find((b) => b.blockId === "p_draft").text.includes("第一版草稿"));
  });

  test("at phone width too", async () => {
    const { page } = await selectAndType(PHONE);
    assert.match(await page.locator("#decision-reason").innerText(), /only outside your selection/);
    assert.equal(await page.locator("#command-apply").count(), 0);
    await shoot(page, "selection-outside-phone");
  });
});
