// The web demo in headless Chromium, served by the Worker under `wrangler dev`: the seeded `welcome` page
// renders as addressable blocks, and contexts are computed by the WASM package in the browser, byte for
// byte what the Node build of the same package computes. Screenshots go to tests/artifacts/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { ROOT, startWorker } from "./lib/wrangler.mjs";

const ARTIFACTS = join(ROOT, "tests", "artifacts");
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let worker;
let browser;
let page; // one tab, walked through the demo step by step
let welcome; // the seeded page, as the API serves it
let pageai; // the Node build of the same package: the reference answers
const problems = []; // console errors, page errors, failed requests

before(
  async () => {
    // The Worker serves web-demo/pkg, which the package build writes (a no-op when up to date).
    execFileSync(join(ROOT, "scripts", "build-wasm"), { stdio: "inherit" });
    pageai = createRequire(import.meta.url)(join(ROOT, "wasm", "pkg", "node", "pageai.js"));
    mkdirSync(ARTIFACTS, { recursive: true });

    worker = await startWorker({ vars: { MNOTE_DEV_AUTO_LOGIN: "true" } }); // the demo signs itself in
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
    const context = await browser.newContext({ viewport: { width: 1440, height: 960 }, deviceScaleFactor: 1 });
    page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));

    const res = await fetch(`${worker.url}/api/documents/welcome`, { headers: worker.auth });
    assert.equal(res.status, 200);
    welcome = await res.json();
  },
  { timeout: 300_000 },
);

after(async () => {
  await browser?.close();
  await worker?.stop();
});

/** Block ids in the order they appear in the context output (a page XML view). */
const idsInOutput = async () =>
  [...(await page.locator("#context-output").innerText()).matchAll(/<block id="([^"]+)"/g)].map((m) => m[1]);

const chipIds = () => page.locator("#context-targets [data-block-id]").evaluateAll((els) => els.map((e) => e.dataset.blockId));

const reference = (request) => pageai.buildContext(welcome, request, "ctx_ref");

async function shoot(name) {
  await page.waitForTimeout(250); // let the highlight transitions settle
  await page.screenshot({ path: join(ARTIFACTS, name) });
}

describe("web demo", () => {
  test("renders the seeded page as blocks with ids and types", async () => {
    await page.goto(`${worker.url}/`);
    await page.waitForSelector("body[data-state=ready]", { timeout: 30_000 });

    assert.ok(welcome.blocks.length >= 25, `the welcome page has ~30 blocks, got ${welcome.blocks.length}`);
    const rendered = await page
      .locator("#page-blocks [data-block-id]")
      .evaluateAll((els) => els.map((e) => ({ id: e.dataset.blockId, type: e.dataset.blockType, title: e.title })));
    assert.deepEqual(
      rendered.map((b) => [b.id, b.type]),
      welcome.blocks.map((b) => [b.blockId, b.type]),
    );
    for (const b of rendered) assert.ok(b.title.includes(b.id), `hover title of ${b.id}: ${b.title}`);
    assert.equal(await page.locator("#doc-title").innerText(), welcome.title);

    // Hovering shows the block's type and id.
    const target = welcome.blocks.find((b) => b.type === "paragraph");
    const block = page.locator(`#page-blocks [data-block-id="${target.blockId}"]`);
    await block.hover();
    const badge = block.locator(".block-badge");
    await page.waitForFunction((el) => getComputedStyle(el).opacity === "1", await badge.elementHandle());
    assert.match(await badge.innerText(), new RegExp(`Paragraph\\s+${target.blockId}`));
  });

  test("the browser's WASM build answers byte for byte like the Node build", async () => {
    const requests = [
      { scope: { type: "full" } },
      { scope: { type: "outline" }, formats: ["json", "page_xml"] },
      { scope: { type: "keyword", query: "ＨＥＲＭＥＳ" } },
      { scope: { type: "full" }, budget: { maxChars: 200 } },
    ];
    const inBrowser = await page.evaluate(
      async ({ doc, requests }) => {
        const { buildContext } = await import("/pkg/pageai.js");
        return requests.map((r) => JSON.stringify(buildContext(doc, r, "ctx_ref")));
      },
      { doc: welcome, requests },
    );
    assert.deepEqual(inBrowser, requests.map((r) => JSON.stringify(reference(r))));
  });

  test("the full scope is shown on load, computed in the browser", async () => {
    const expected = reference({ scope: { type: "full" } });
    assert.equal(await page.locator("#context-panel").getAttribute("data-status"), "ready");
    assert.deepEqual(await chipIds(), expected.allowedTargetBlockIds);
    assert.deepEqual(await idsInOutput(), welcome.blocks.map((b) => b.blockId));
    assert.ok((await page.locator("#context-meta").innerText()).includes(expected.conflictDetectionKey));
    await shoot("demo-full.png");
  });

  test("the outline scope lists the headings and allows no target", async () => {
    await page.click("#scope-tabs [data-scope=outline]");
    const headings = welcome.blocks.filter((b) => b.type === "heading").map((b) => b.blockId);
    assert.deepEqual(await idsInOutput(), headings);
    assert.deepEqual(await chipIds(), []);
    assert.match(await page.locator("#context-targets").innerText(), /read-only/);
    const painted = await page
      .locator("#page-blocks .in-context")
      .evaluateAll((els) => els.map((e) => e.dataset.blockId));
    assert.deepEqual(painted, headings);
    const blocksStat = page.locator("#context-stats .stat").first();
    assert.equal(await blocksStat.locator("dd").innerText(), String(headings.length));
  });

  test("the keyword scope matches case- and width-insensitively", async () => {
    await page.click("#scope-tabs [data-scope=keyword]");
    assert.equal(await page.locator("#context-panel").getAttribute("data-status"), "empty");
    await page.fill("#keyword-input", "hermes");
    const expected = reference({ scope: { type: "keyword", query: "hermes" } });
    assert.ok(expected.allowedTargetBlockIds.length >= 2, "the sample page mentions Hermes more than once");
    assert.deepEqual(await chipIds(), expected.allowedTargetBlockIds);
    assert.deepEqual(await idsInOutput(), expected.blocks.map((b) => b.blockId));

    // The full-width suggestion ｙｏｌｏ finds the half-width "yolo".
    await page.click(".suggestion >> text=ｙｏｌｏ");
    const yolo = reference({ scope: { type: "keyword", query: "yolo" } });
    assert.ok(yolo.allowedTargetBlockIds.length > 0);
    assert.deepEqual(await chipIds(), yolo.allowedTargetBlockIds);

    await page.fill("#keyword-input", "hermes");
    await page.hover(`#page-blocks [data-block-id="${expected.allowedTargetBlockIds[0]}"]`);
    await shoot("demo.png");
  });

  test("a small budget truncates, and next chunk walks the whole page", async () => {
    await page.click("#scope-tabs [data-scope=full]");
    await page.check("#budget-enabled");
    await page.fill("#budget-input", "300");
    const panel = page.locator("#context-panel");
    assert.equal(await panel.getAttribute("data-truncated"), "true");
    assert.equal(await panel.getAttribute("data-chunk"), "1");
    const first = reference({ scope: { type: "full" }, budget: { maxChars: 300 } });
    assert.ok((await page.locator("#context-chunk .token").innerText()).length > 0, "the continuation is shown");
    assert.deepEqual(await idsInOutput(), first.blocks.map((b) => b.blockId));

    const seen = [...(await idsInOutput())];
    for (let chunk = 2; (await panel.getAttribute("data-truncated")) === "true"; chunk++) {
      assert.ok(chunk < 40, "the continuation ends");
      await page.click("#next-chunk");
      assert.equal(await panel.getAttribute("data-chunk"), String(chunk));
      if (chunk === 2) await shoot("demo-budget.png");
      for (const id of await idsInOutput()) if (seen.at(-1) !== id) seen.push(id); // a cut block continues
    }
    assert.deepEqual(seen, welcome.blocks.map((b) => b.blockId));
    assert.equal(await page.locator("#next-chunk").count(), 0);

    await page.click("#restart-chunks");
    assert.equal(await panel.getAttribute("data-chunk"), "1");
    assert.deepEqual(await idsInOutput(), first.blocks.map((b) => b.blockId));
    await page.uncheck("#budget-enabled");
    assert.equal(await panel.getAttribute("data-truncated"), "false");
  });

  test("the selection scope takes blocks clicked in the page", async () => {
    await page.click("#scope-tabs [data-scope=selection]");
    const picks = welcome.blocks.filter((b) => b.type === "todo").slice(0, 2).map((b) => b.blockId);
    for (const id of picks) await page.click(`#page-blocks [data-block-id="${id}"]`);
    const expected = reference({ scope: { type: "selection", blockIds: picks } });
    assert.deepEqual(await chipIds(), expected.allowedTargetBlockIds);
    assert.deepEqual(await idsInOutput(), expected.blocks.map((b) => b.blockId));
    const neighbours = expected.blocks.filter((b) => b.contextOnly).map((b) => b.blockId);
    assert.ok(neighbours.length > 0);
    const painted = await page
      .locator("#page-blocks .is-context-only")
      .evaluateAll((els) => els.map((e) => e.dataset.blockId));
    assert.deepEqual(painted, neighbours);
    await shoot("demo-selection.png");
  });

  test("nothing went wrong in the browser", () => {
    assert.deepEqual(problems, []);
  });
});
