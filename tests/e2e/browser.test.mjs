// The web demo in headless Chromium, served by the Worker under `wrangler dev`: the seeded `welcome` page
// renders as addressable blocks; contexts, command routes and dry-run previews are computed by the WASM
// package in the browser, byte for byte what the Node build of the same package computes, and typing a
// command sends no request. Screenshots go to tests/artifacts/.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { openTab } from "./lib/browser.mjs";
import { transitionsDone } from "./lib/demo.mjs";
import { ROOT, startWorker } from "./lib/wrangler.mjs";

const ARTIFACTS = join(ROOT, "tests", "artifacts");

let worker;
let browser;
let page; // one tab, walked through the demo step by step
let welcome; // the seeded page, as the API serves it
let pageai; // the Node build of the same package: the reference answers
let problems; // console errors, page errors, failed requests
const wasmFetched = []; // paths of the .wasm files the tab requested, in order

before(
  async () => {
    // The Worker serves web-demo/pkg, which the package build writes (a no-op when up to date).
    execFileSync(join(ROOT, "scripts", "build-wasm"), { stdio: "inherit" });
    pageai = createRequire(import.meta.url)(join(ROOT, "wasm", "pkg", "node", "pageai.js"));
    mkdirSync(ARTIFACTS, { recursive: true });

    worker = await startWorker({ vars: { MNOTE_DEV_AUTO_LOGIN: "true" } }); // the demo signs itself in
    ({ browser, page, problems } = await openTab());
    page.on("request", (r) => r.url().endsWith(".wasm") && wasmFetched.push(new URL(r.url()).pathname));

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

/** The stored page of the demo's document. */
const storedPage = async () => (await fetch(`${worker.url}/api/documents/welcome`, { headers: worker.auth })).json();

/** Clicks Apply and waits for its success; answers the requests that were not GETs, as "METHOD /path". */
async function applyAndRecordWrites() {
  const writes = [];
  const record = (r) => r.method() !== "GET" && writes.push(`${r.method()} ${new URL(r.url()).pathname}`);
  page.on("request", record);
  await page.click("#command-apply");
  await page.waitForSelector("#command-status.status-ok");
  page.off("request", record);
  return writes;
}

/** The shown review session's buttons: `[verb, disabled, title]` each, in order. */
const reviewButtons = () =>
  page.locator("#review-session .review-actions button").evaluateAll((els) => els.map((b) => [b.dataset.action, b.disabled, b.title]));

async function shoot(name) {
  await transitionsDone(page); // the highlight transitions
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

    // Routes and previews too, for direct and Hermes prompts in both languages.
    const prompts = ["把「第一版草稿」改成「初稿」", 'replace "numbers check" with "finance review"', "删除最后一段", "把「第一版」改成「第二版」", "summarize this page"];
    const run = (pageai, doc, prompts) =>
      prompts.map((prompt) => {
        const session = new pageai.PageSession(doc);
        session.context({ scope: { type: "full" } }, "ctx_ref");
        const options = { profile: { reviewMode: "review" }, contextId: "ctx_ref", idempotencyKey: "idem_ref" };
        const route = session.route(prompt, options);
        const preview = route.recommendedToolCall
          ? session.preview(route.recommendedToolCall, { at: "2026-01-01T00:00:00Z", toolCallId: "call_ref", blockIds: ["b_ref"] })
          : null;
        session.free();
        return JSON.stringify({ route, preview });
      });
    // The same function runs in the page: sent as an expression, which Playwright evaluates outside the
    // page's script policy (the demo's CSP forbids the page itself to turn strings into code).
    const browserRoutes = await page.evaluate(
      `import("/pkg/pageai.js").then((pageai) => (${run.toString()})(pageai, ${JSON.stringify(welcome)}, ${JSON.stringify(prompts)}))`,
    );
    assert.deepEqual(browserRoutes, run(pageai, welcome, prompts));
    assert.ok(browserRoutes.filter((r) => r.includes('"recommendedToolCall":{')).length >= 3, "most prompts are direct");
  });

  test("the editor downloads only the main module; the Markdown module loads when imported", async () => {
    assert.deepEqual(wasmFetched, ["/pkg/pageai_bg.wasm"], "no Markdown parser on the preview path");
    const markdown = createRequire(import.meta.url)(join(ROOT, "wasm", "pkg", "node", "markdown.js"));
    const inBrowser = await page.evaluate(async (doc) => {
      const { default: init, markdownToPage, pageToMarkdown } = await import("/pkg/markdown.js");
      await init();
      const text = pageToMarkdown(doc);
      const again = markdownToPage(text, { workspaceId: doc.workspaceId, documentId: doc.documentId, title: doc.title });
      let error = null;
      try {
        markdownToPage("# x", { workspaceId: "ws" });
      } catch (e) {
        error = { name: e.name, code: e.code, isPageAiError: (await import("/pkg/pageai.js")).isPageAiError(e) };
      }
      return { text, ids: again.blocks.map((b) => b.blockId), error };
    }, welcome);
    assert.deepEqual(wasmFetched, ["/pkg/pageai_bg.wasm", "/pkg/markdown_bg.wasm"]);
    assert.equal(inBrowser.text, markdown.pageToMarkdown(welcome), "the same Markdown as the Node build");
    assert.deepEqual(inBrowser.ids, welcome.blocks.map((b) => b.blockId), "ids survive the round trip");
    assert.deepEqual(inBrowser.error, { name: "PageAiError", code: "mnote_invalid_arguments", isPageAiError: true });
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

  test("typing a command shows the decision, the diff and the risk while typing, with no request", async () => {
    // A fresh tab state: no scope picks, so the command has no selection.
    await page.goto(`${worker.url}/`);
    await page.waitForSelector("body[data-state=ready]", { timeout: 30_000 });
    const panel = page.locator("#command-panel");
    assert.equal(await panel.getAttribute("data-status"), "empty");

    const requests = [];
    const record = (r) => requests.push(`${r.method()} ${r.url()}`);
    page.on("request", record);
    const prompt = "把「第一版草稿」改成「初稿」";
    await page.click("#command-input");
    // Half-way through the command (no closing quote yet) the router cannot act on it.
    const half = prompt.slice(0, 6);
    await page.keyboard.type(half, { delay: 20 });
    await page.waitForFunction((text) => document.querySelector("#command-input").value === text, half);
    assert.notEqual(await panel.getAttribute("data-status"), "direct", "an unfinished command is not a direct write");
    await page.keyboard.type(prompt.slice(half.length), { delay: 20 });
    await page.waitForSelector("#command-panel[data-status=direct]");

    // The Node build's answer for the same page, prompt and profile.
    const profile = { reviewMode: "yolo" };
    const session = new pageai.PageSession(welcome);
    const route = session.route(prompt, { profile });
    const preview = session.preview(route.recommendedToolCall, { profile });
    session.free();
    assert.equal(route.intent, "direct_replace");
    assert.equal(await panel.getAttribute("data-intent"), route.intent);
    assert.equal(await panel.getAttribute("data-risk"), route.risk);
    assert.match(await page.locator("#decision-risk").innerText(), new RegExp(route.risk, "i"));
    // What the change does, in words, from the recommended operation.
    assert.equal(await page.locator("#decision-reason").innerText(), "Replaces 「第一版草稿」 with 「初稿」.");
    const [changed] = preview.changedBlocks;
    assert.deepEqual(
      await page.locator("#command-diff .diff-block").evaluateAll((els) => els.map((e) => e.dataset.blockId)),
      preview.diff.map((d) => d.blockId),
    );
    // The page itself shows the character diff in place: the same insertions and deletions, per character.
    const spans = preview.diff[0].inline.filter((s) => s.tag !== "equal").map((s) => [s.tag, s.text]);
    const inPage = page.locator(`#page-blocks [data-block-id="${changed.blockId}"] .inline-diff`);
    assert.deepEqual(
      await inPage.locator("ins, del").evaluateAll((els) => els.map((e) => [e.tagName === "INS" ? "insert" : "delete", e.textContent])),
      spans,
    );
    const text = (skip) => inPage.evaluate((el, skip) => [...el.childNodes].filter((n) => n.nodeName !== skip).map((n) => n.textContent).join(""), skip);
    assert.equal(await text("DEL"), changed.after);
    assert.equal(await text("INS"), changed.before);
    assert.ok(await page.locator("#command-apply").isEnabled());
    assert.deepEqual(requests, [], "typing sent no request");
    page.off("request", record);
    await shoot("demo-command.png");
  });

  test("an ambiguous command goes to Hermes, and the review mode decides whether a write waits", async () => {
    const requests = [];
    const record = (r) => requests.push(`${r.method()} ${r.url()}`);
    page.on("request", record);
    await page.click("#command-examples >> text=Ambiguous");
    await page.waitForSelector("#command-panel[data-status=hermes]");
    assert.match(await page.locator("#decision-reason").innerText(), /「第一版」 appears 4 times on this page/);
    assert.equal(await page.locator("#command-apply").count(), 0, "no Apply for a Hermes route");
    assert.equal(await page.locator("#page-blocks .is-previewed").count(), 0, "nothing is previewed");
    await shoot("demo-command-hermes.png");

    await page.click("#command-examples >> text=English replace");
    await page.waitForSelector("#command-panel[data-status=direct]");
    // The panel shows the stored profile's review mode: the Worker's default profile reviews every write.
    assert.equal(await page.locator("#review-mode [aria-pressed=true]").getAttribute("data-mode"), "review");
    assert.match(await page.locator("#command-decision").innerText(), /needs your review/);
    await page.click("#review-mode [data-mode=yolo]");
    assert.match(await page.locator("#command-decision").innerText(), /applies directly/);
    await page.click("#review-mode [data-mode=review]");
    assert.match(await page.locator("#command-decision").innerText(), /needs your review/);
    assert.match(await page.locator("#command-diff").innerText(), /held for review/);
    assert.equal(await page.locator("#command-apply").innerText(), "Hold for review");
    await shoot("demo-command-review.png");
    await page.click("#review-mode [data-mode=yolo]");
    await page.waitForFunction(() => document.querySelector("#tools-panel") && !document.querySelector("#tool-list input:disabled"));
    // Routing and previewing sent nothing; the review mode is the stored profile's (the open page's
    // workspace's), so picking one stores it.
    assert.deepEqual(
      requests.map((r) => r.replace(worker.url, "")),
      Array(3).fill("PUT /api/profile?workspaceId=ws_local"),
      "switching commands sent no request",
    );
    page.off("request", record);
    const stored = await (await fetch(`${worker.url}/api/profile`, { headers: worker.auth })).json();
    assert.equal(stored.profile.reviewMode, "yolo");
  });

  test("Apply sends the command to the server, which writes it; the page follows", async () => {
    const prompt = "把「第一版草稿」改成「初稿」";
    await page.fill("#command-input", prompt);
    await page.waitForSelector("#command-panel[data-status=direct]");
    const session = new pageai.PageSession(welcome);
    const preview = session.preview(session.route(prompt).recommendedToolCall);
    session.free();
    const [changed] = preview.changedBlocks;

    const writes = await applyAndRecordWrites();
    assert.deepEqual(writes, ["POST /api/page-ai/command"], "one command, routed and written by the server");
    assert.equal(await page.locator("#command-status").innerText(), `Applied · revision ${welcome.revision + 1}`);
    assert.equal(await page.locator("#doc-revision").innerText(), `Revision ${welcome.revision + 1}`);

    const stored = await (await fetch(`${worker.url}/api/documents/welcome`, { headers: worker.auth })).json();
    assert.equal(stored.revision, welcome.revision + 1);
    assert.equal(stored.blocks.find((b) => b.blockId === changed.blockId).text, changed.after);
    assert.equal(
      await page.locator(`#page-blocks [data-block-id="${changed.blockId}"] .block-body`).innerText(),
      changed.after,
      "the page shows the applied text",
    );
    // The server's write is audited and evented as a page-AI command, not as a page upload.
    const audit = await (await fetch(`${worker.url}/api/documents/welcome/audit`, { headers: worker.auth })).json();
    assert.ok(!audit.entries.some((e) => e.action === "document.put"), JSON.stringify(audit.entries.map((e) => e.action)));
    assert.ok(audit.entries.some((e) => e.toolName === "mnote.doc.apply_block_ops"), JSON.stringify(audit.entries.map((e) => e.action)));
    // The browser's session follows: the old text is gone, so the same command no longer applies.
    await page.fill("#command-input", prompt);
    await page.waitForSelector("#command-panel[data-status=hermes]");
    assert.match(await page.locator("#decision-reason").innerText(), /「第一版草稿」 is not on this page/);
    await page.fill("#command-input", "");
  });

  test("in review mode the server holds the write; the review panel accepts it, and reverts it", async () => {
    const before = await storedPage();
    await page.click("#review-mode [data-mode=review]");
    await page.click("#command-examples >> text=English replace");
    await page.waitForSelector("#command-panel[data-status=direct]");
    assert.equal(await page.locator("#command-apply").innerText(), "Hold for review");

    const writes = await applyAndRecordWrites();
    assert.deepEqual(writes, ["POST /api/page-ai/command"], "held: nothing accepted yet");
    assert.equal((await storedPage()).revision, before.revision, "nothing was written");
    await page.waitForSelector("#review-session[data-state=awaiting_user]");
    assert.equal(await page.locator("#review-open-count").innerText(), "1 open");
    const [block] = await page.locator("#review-session .review-block").evaluateAll((els) => els.map((e) => e.dataset.blockId));
    assert.match(await page.locator(`#review-session .review-block[data-block-id="${block}"] .inline-diff`).innerText(), /finance review/);
    await shoot("demo-review.png");

    await page.click('#review-session [data-action="accept"]');
    await page.waitForSelector("#review-session[data-state=applied]");
    assert.match(await page.locator("#review-notice").innerText(), new RegExp(`Applied · revision ${before.revision + 1}`));
    assert.equal(await page.locator("#doc-revision").innerText(), `Revision ${before.revision + 1}`);
    assert.match(await page.locator(`#page-blocks [data-block-id="${block}"]`).innerText(), /finance review/);
    // The audit log follows the action (its own read, beside the session's).
    await page.waitForSelector('#audit-list .audit-entry:first-child[data-action="review.accept"]');
    // Applied: every verb keeps its button; only revert is enabled, and the others say why, naming only
    // the verbs a person can use.
    assert.deepEqual(await reviewButtons(), [
      ["accept", true, "Accept is not available: this change is applied. You can revert it."],
      ["reject", true, "Reject is not available: this change is applied. You can revert it."],
      ["retry", true, "Retry is not available: this change is applied. You can revert it."],
      ["abort", true, "Abort is not available: this change is applied. You can revert it."],
      ["revert", false, ""],
    ]);

    // Undo: the applied session reverts as one write, and the page shows the old text again.
    await page.click('#review-session [data-action="revert"]');
    await page.waitForSelector("#review-session[data-state=reverted]");
    assert.equal(await page.locator("#doc-revision").innerText(), `Revision ${before.revision + 2}`);
    assert.match(await page.locator(`#page-blocks [data-block-id="${block}"]`).innerText(), /numbers check/);
    // The audit log follows the action (its own read, beside the session's).
    await page.waitForSelector('#audit-list .audit-entry:first-child[data-action="review.revert"]');
  });

  test("a held write turns stale when its block changes; retry previews it again and it applies", async () => {
    // Still in review mode: hold a change, then change the block it touches underneath it (an edit of
    // another block would not stale it: the accept would apply on the newer page).
    await page.click("#command-examples >> text=English replace");
    await page.waitForSelector("#command-panel[data-status=direct]");
    await applyAndRecordWrites();
    await page.waitForSelector("#review-session[data-state=awaiting_user]");
    const held = await page.locator("#review-session").getAttribute("data-session-id");
    await page.click("#review-mode [data-mode=yolo]");
    await page.fill("#command-input", 'replace "still needs" with "now needs"');
    await page.waitForSelector("#command-panel[data-status=direct]");
    assert.equal(await page.locator("#command-apply").innerText(), "Apply");
    await applyAndRecordWrites();
    const moved = await storedPage();
    assert.match(moved.blocks.find((b) => b.blockId === "p_draft").text, /now needs a numbers check/);

    await page.click(`#review-list [data-session-id="${held}"]`);
    await page.waitForSelector(`#review-session[data-session-id="${held}"]`);
    await page.click('#review-session [data-action="accept"]');
    await page.waitForSelector("#review-session[data-state=stale]");
    assert.match(await page.locator("#review-stale").innerText(), new RegExp(`now revision ${moved.revision}`));
    assert.equal((await storedPage()).revision, moved.revision, "a stale accept writes nothing");
    await shoot("demo-review-stale.png");

    await page.click('#review-session [data-action="retry"]');
    await page.waitForSelector("#review-session[data-state=awaiting_user]");
    await page.click('#review-session [data-action="accept"]');
    await page.waitForSelector("#review-session[data-state=applied]");
    assert.equal((await storedPage()).revision, moved.revision + 1);
  });

  test("a held write over two blocks can be accepted in part", async () => {
    await page.click("#review-mode [data-mode=review]");
    await page.fill("#command-input", "replace 'end-to-end suite' with 'e2e suite' and 'partial accept' with '部分接受'");
    await page.waitForSelector("#command-panel[data-status=direct]");
    await applyAndRecordWrites();
    await page.waitForSelector("#review-session[data-state=awaiting_user]");
    const blocks = await page.locator("#review-session .review-block").evaluateAll((els) => els.map((e) => e.dataset.blockId));
    assert.deepEqual(blocks.sort(), ["t_hermes", "t_partial"]);
    const before = await storedPage();

    await page.locator('#review-session input[data-block-id="t_partial"]').uncheck();
    assert.equal(await page.locator('#review-session [data-action="accept"]').innerText(), "Accept 1 of 2");
    await page.click('#review-session [data-action="accept"]');
    await page.waitForSelector("#review-session[data-state=applied]");
    const after = await storedPage();
    assert.equal(after.revision, before.revision + 1);
    const text = (page, id) => page.blocks.find((b) => b.blockId === id).text;
    assert.match(text(after, "t_hermes"), /e2e suite/);
    assert.equal(text(after, "t_partial"), text(before, "t_partial"), "the unchecked block is untouched");
  });

  test("reject writes nothing and closes the session", async () => {
    await page.click("#review-mode [data-mode=review]");
    await page.fill("#command-input", "把第二段改成引用");
    await page.waitForSelector("#command-panel[data-status=direct]");
    await applyAndRecordWrites();
    await page.waitForSelector("#review-session[data-state=awaiting_user]");
    const before = await storedPage();
    await page.click('#review-session [data-action="reject"]');
    await page.waitForSelector("#review-notice");
    assert.match(await page.locator("#review-notice").innerText(), /Rejected: nothing was written/);
    assert.equal((await storedPage()).revision, before.revision);
    assert.equal(await page.locator("#review-open-count").innerText(), "0 open");
    await page.click("#review-mode [data-mode=yolo]");
  });

  test("the review buttons follow the session's actions, not its state, and a refused one says why", async () => {
    await page.click("#review-mode [data-mode=review]");
    await page.fill("#command-input", "把第二段改成引用");
    await page.waitForSelector("#command-panel[data-status=direct]");
    // The server's session, except that its actions refuse a retry its state (awaiting_user) would allow.
    const sessionPath = /\/api\/page-ai\/review-sessions\/[^/]+$/;
    await page.route(sessionPath, async (route) => {
      const response = await route.fetch();
      const session = await response.json();
      session.actions.retry.allowed = false;
      await route.fulfill({ response, json: session });
    });
    try {
      await applyAndRecordWrites();
      await page.waitForSelector("#review-session[data-state=awaiting_user]");
      assert.deepEqual(await reviewButtons(), [
        ["accept", false, ""],
        ["reject", false, ""],
        ["retry", true, "Retry is not available: this change is awaiting you. You can accept, reject and abort it."],
        ["abort", false, ""],
        ["revert", true, "Revert is not available: this change is awaiting you. You can accept, reject and abort it."],
      ]);
    } finally {
      await page.unroute(sessionPath);
    }

    await page.click('#review-session [data-action="abort"]');
    await page.waitForSelector("#review-session[data-state=aborted]");
    assert.match(await page.locator("#review-notice").innerText(), /Aborted: nothing was written/);
    const finished = await reviewButtons();
    assert.deepEqual(finished.map(([verb, disabled]) => [verb, disabled]), ["accept", "reject", "retry", "abort", "revert"].map((v) => [v, true]));
    for (const [verb, , title] of finished) {
      const name = verb.charAt(0).toUpperCase() + verb.slice(1);
      assert.equal(title, `${name} is not available: this change is aborted and finished. Start a new command.`);
      assert.doesNotMatch(title, /mark_stale|allowed now/);
    }
    await page.click("#review-mode [data-mode=yolo]");
  });

  test("tool toggles store the profile, and the audit chain verifies", async () => {
    const row = page.locator('#tool-list [data-tool="mnote.doc.search"]');
    await row.locator("input").uncheck();
    await page.waitForSelector('#tool-list [data-tool="mnote.doc.search"].is-off');
    let stored = await (await fetch(`${worker.url}/api/profile`, { headers: worker.auth })).json();
    assert.deepEqual(stored.profile.tools.disabled, ["mnote.doc.search"]);
    const listed = stored.manifest.tools.find((t) => t.name === "mnote.doc.search");
    assert.equal(listed.availability.enabled, false);
    await row.locator("input").check();
    await page.waitForSelector('#tool-list [data-tool="mnote.doc.search"]:not(.is-off)');
    stored = await (await fetch(`${worker.url}/api/profile`, { headers: worker.auth })).json();
    assert.deepEqual(stored.profile.tools.disabled, []);

    await page.click("#audit-verify");
    await page.waitForSelector("#audit-verdict.status-ok");
    const verified = await (await fetch(`${worker.url}/api/documents/welcome/audit/verify`, { headers: worker.auth })).json();
    assert.equal(await page.locator("#audit-verdict").innerText(), `Chain verified · ${verified.entries} entries`);
    await shoot("demo-tools-audit.png");
  });

  test("Send to Hermes without a configured Hermes shows the coded reason, and writes nothing", async () => {
    const before = await (await fetch(`${worker.url}/api/documents/welcome`, { headers: worker.auth })).json();
    await page.click("#command-examples >> text=Open request");
    await page.waitForSelector("#command-panel[data-status=hermes]");
    await page.click("#command-hermes");
    await page.waitForSelector("#hermes-run[data-status=failed]");
    assert.match(await page.locator("#hermes-run .error-code").innerText(), /^hermes_client_unconfigured$/);
    // Signed in by make dev's dev-login: the one variable that starts Hermes with it.
    assert.match(await page.locator("#hermes-run").innerText(), /make dev was started without a model[\s\S]*Set MNOTE_MODEL_URL/);
    const after = await (await fetch(`${worker.url}/api/documents/welcome`, { headers: worker.auth })).json();
    assert.equal(after.revision, before.revision);
    await shoot("demo-hermes-unconfigured.png");
    await page.fill("#command-input", "");
  });

  test("nothing went wrong in the browser", () => {
    assert.deepEqual(problems, []);
  });
});
