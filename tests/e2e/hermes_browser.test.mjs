// The web demo's Send to Hermes, in headless Chromium, against the scripted Hermes double
// (tests/hermes/double.mjs) behind the Worker under `wrangler dev`: an open request typed in the command box
// goes to the server's command route, which starts a Hermes run in a new session of the document; the
// answer and the tool events stream into the page as they arrive, through the Worker's relay.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { join } from "node:path";

import { startHermesDouble } from "../hermes/double.mjs";
import { openTab } from "./lib/browser.mjs";
import { ROOT, startWorker } from "./lib/wrangler.mjs";

const HERMES_KEY = `hk-${randomBytes(24).toString("hex")}`;

let double;
let worker;
let browser;
let page;
let problems;

before(
  async () => {
    execFileSync(join(ROOT, "scripts", "build-wasm"), { stdio: "inherit" });
    double = await startHermesDouble({ apiKey: HERMES_KEY, keepaliveMs: 300, deltaGapMs: 150 });
    worker = await startWorker({
      vars: { MNOTE_DEV_AUTO_LOGIN: "true", HERMES_UPSTREAM_URL: double.url, HERMES_API_KEY: HERMES_KEY },
    });
    ({ browser, page, problems } = await openTab());
    await page.goto(`${worker.url}/`);
    await page.waitForSelector("body[data-state=ready]", { timeout: 30_000 });
  },
  { timeout: 300_000 },
);

after(async () => {
  await browser?.close();
  await worker?.stop();
  await double?.close();
});

test("Send to Hermes streams the answer and the tool events into the page", async () => {
  const prompt = "帮我把这一页润色得更专业";
  await page.fill("#command-input", prompt);
  await page.waitForSelector("#command-panel[data-status=hermes]");
  await page.click("#command-hermes");

  // Streaming: the tool event shows, and the answer grows, before the run ends.
  await page.waitForSelector("#hermes-events .tool-started");
  await page.waitForFunction(() => document.querySelector("#hermes-answer")?.textContent.length > 0);
  const partial = await page.locator("#hermes-answer").innerText();
  assert.notEqual(partial, "当前页的标题是 mnote Page AI", "the first pieces arrive before the whole answer");

  await page.waitForSelector("#hermes-run[data-status=completed]", { timeout: 30_000 });
  assert.equal(await page.locator("#hermes-answer").innerText(), "当前页的标题是 mnote Page AI");
  assert.deepEqual(
    await page.locator("#hermes-events li").evaluateAll((els) => els.map((e) => e.className)),
    ["tool-event tool-started", "tool-event tool-completed"],
  );
  assert.match(await page.locator("#hermes-events").innerText(), /mcp__mnote__doc_fetch/);

  // The run reached Hermes in a session of this document, with the frozen page in its instructions.
  const started = double.last("POST /v1/runs");
  assert.equal(started.body.input, prompt);
  assert.match(started.body.session_id, /^mnote_welcome_/);
  assert.match(started.body.instructions, /h_title/);
  assert.ok(!JSON.stringify(await page.content()).includes(HERMES_KEY), "the key never reaches the browser");
  await page.screenshot({ path: join(ROOT, "tests", "artifacts", "demo-hermes-run.png") });
});

test("nothing went wrong in the browser", () => {
  assert.deepEqual(problems, []);
});
