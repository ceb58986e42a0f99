// The web demo's Send to Hermes, in headless Chromium, against the scripted Hermes double
// (tests/hermes/double.mjs) behind the Worker under `wrangler dev`: an open request typed in the command box
// goes to the server's command route, which starts a Hermes run in a new session of the document; the
// answer and the tool events stream into the page as they arrive, through the Worker's relay. A running
// run stops with the Stop button or Esc. Screenshots of a streaming run at both widths go to
// tests/artifacts/screens/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";

import { startHermesDouble } from "../hermes/double.mjs";
import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { command, inViewport, shoot, startDemo } from "./lib/demo.mjs";

const HERMES_KEY = `hk-${randomBytes(24).toString("hex")}`;

let double;
let demo;
let page;
let problems;

before(
  async () => {
    double = await startHermesDouble({ apiKey: HERMES_KEY, keepaliveMs: 300, deltaGapMs: 150 });
    demo = await startDemo({ vars: { HERMES_UPSTREAM_URL: double.url, HERMES_API_KEY: HERMES_KEY } });
    ({ page, problems } = await demo.open(DESKTOP));
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
  await double?.close();
});

/** The abort requests the double received, for the run ids it was asked to stop. */
const stops = () => double.requests.filter((r) => /^POST \/v1\/runs\/[^/]+\/stop$/.test(`${r.method} ${r.path}`));

test("Send to Hermes streams the answer and the tool events into the page", async () => {
  const prompt = "帮我把这一页润色得更专业";
  // The run waits at its tool call and after its first piece until this test has seen each: streaming is
  // checked by what the page shows while the run is held, not by how fast the machine is.
  const gate = double.hold();
  await command(page, prompt, "hermes");
  await page.click("#command-hermes");

  // Streaming: the tool event shows, and the answer grows, before the run ends.
  await page.waitForSelector("#hermes-events .tool-started");
  await shoot(page, "desktop-hermes-streaming");
  gate.release();
  await page.waitForFunction(() => document.querySelector("#hermes-answer")?.textContent.length > 0);
  assert.equal(await page.locator("#hermes-answer").innerText(), "当前页", "the first piece shows before the rest is sent");
  assert.equal(await page.locator("#hermes-run").getAttribute("data-status"), "streaming");
  gate.release();

  await page.waitForSelector("#hermes-run[data-status=completed]", { timeout: 30_000 });
  assert.equal(await page.locator("#hermes-answer").innerText(), "当前页的标题是 mnote Page AI");
  // One row per tool call, in words: what the tool did, not Hermes' name for it.
  assert.deepEqual(
    await page.locator("#hermes-events li").evaluateAll((els) => els.map((e) => [e.className, e.dataset.tool])),
    [["tool-event tool-completed", "mcp__mnote__doc_fetch"]],
  );
  const events = await page.locator("#hermes-events").innerText();
  assert.match(events, /^Read the page · done in 10 ms$/);
  assert.doesNotMatch(await page.locator("#hermes-run").innerText(), /mcp__|doc_fetch/);

  // The run reached Hermes in a session of this document, with the frozen page in its instructions.
  const started = double.last("POST /v1/runs");
  assert.equal(started.body.input, prompt);
  assert.match(started.body.session_id, /^mnote_welcome_/);
  assert.match(started.body.instructions, /h_title/);
  assert.ok(!JSON.stringify(await page.content()).includes(HERMES_KEY), "the key never reaches the browser");
});

test("Stop aborts a running Hermes run, which ends as Cancelled", async () => {
  await command(page, "[slow] 帮我把这一页润色得更专业", "hermes");
  await page.click("#command-hermes");
  await page.waitForFunction(() => document.querySelector("#hermes-answer")?.textContent.includes("slow1"));
  // While it runs, the button is Stop, and the box says Esc stops it too.
  assert.equal(await page.locator("#command-stop").innerText(), "Stop");
  assert.match(await page.locator("#command-keys").innerText(), /Esc stops Hermes/);
  assert.equal(await page.locator("#command-hermes").count(), 0);
  const before = stops().length;

  await page.click("#command-stop");
  await page.waitForSelector("#hermes-run[data-status=cancelled]", { timeout: 60_000 });
  assert.equal(await page.locator("#hermes-status").innerText(), "Cancelled");
  assert.equal(stops().length, before + 1, "the server asked Hermes to stop the run");
  const stopped = double.runs.get(stops().at(-1).path.split("/")[3]);
  assert.equal(stopped.body.input, "[slow] 帮我把这一页润色得更专业", "the run the page started is the one stopped");
  // Ended: Send to Hermes is back.
  assert.ok(await page.locator("#command-hermes").isEnabled());
});

test("Esc stops a running Hermes run, wherever the focus is", async () => {
  await command(page, "[slow] 总结这一页", "hermes");
  await page.keyboard.press("Enter"); // Enter sends a Hermes route
  await page.waitForSelector("#hermes-run[data-status=streaming]");
  await page.locator("#audit-verify").focus();
  const before = stops().length;
  await page.keyboard.press("Escape");
  await page.waitForSelector("#hermes-run[data-status=cancelled]", { timeout: 60_000 });
  assert.equal(stops().length, before + 1);
});

test("on a phone the streaming run is in the Command tab, above the tab bar", async () => {
  const phone = await demo.open(PHONE);
  try {
    await phone.page.click("#tabbar [data-tab=command]");
    await command(phone.page, "[slow] 帮我把这一页润色得更专业", "hermes");
    await phone.page.click("#command-hermes");
    await phone.page.waitForFunction(() => document.querySelector("#hermes-answer")?.textContent.includes("slow2"));
    await phone.page.locator("#command-stop").scrollIntoViewIfNeeded();
    assert.ok(await inViewport(phone.page.locator("#command-stop")), "Stop is on screen");
    await shoot(phone.page, "phone-hermes-streaming");
    await phone.page.click("#command-stop");
    await phone.page.waitForSelector("#hermes-run[data-status=cancelled]", { timeout: 60_000 });
    assert.deepEqual(phone.problems, []);
  } finally {
    await phone.context.close();
  }
});

test("nothing went wrong in the browser", () => {
  assert.deepEqual(problems, []);
});
