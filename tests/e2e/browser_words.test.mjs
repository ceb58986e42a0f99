// The web demo in headless Chromium, as a person reads and drives it: why a command goes to Hermes (text
// missing or repeated, with the matches marked and the way to ask for all), what a recommendation does
// (move, check, type change), the keyboard (Enter, Shift+Enter, names for every control, one Tab stop for
// the target chips), people's wording everywhere, and the small layout slips (hover label, stat tiles,
// budget chunks, Copy, word-level English diffs, one clear error for an unknown document).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { command, inViewport, reviewMode, shoot, startDemo } from "./lib/demo.mjs";

let demo;
let page;
let problems;

before(
  async () => {
    demo = await startDemo();
    ({ page, problems } = await demo.open(DESKTOP));
    await reviewMode(page, "yolo");
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

const text = (selector) => page.locator(selector).innerText();
/** No write request went out (`writes` records them) and the run view stayed closed. */
async function assertNoRun(writes) {
  assert.deepEqual(writes, [], "nothing was sent");
  assert.equal(await page.locator("#hermes-run").isVisible(), false, "no run started");
}
const ids = (selector) => page.locator(selector).evaluateAll((els) => els.map((e) => e.dataset.blockId));
/** The in-page diff of a block: its deletions and insertions, in order. */
const spans = (blockId) =>
  page
    .locator(`#page-blocks [data-block-id="${blockId}"] .inline-diff`)
    .locator("ins, del")
    .evaluateAll((els) => els.map((e) => [e.tagName === "INS" ? "insert" : "delete", e.textContent]));

// Developer words a person must never read, in text or tooltips. The page's own text (its blocks, and the
// context views that quote them) may say anything: the welcome page documents the tool arguments.
const JARGON = [/matchText/, /`continuation`/, /mcp__mnote__/, /&quot;/, /create the document with PUT/, /allowed now/, /mark_stale/, /self dry-run/];
async function assertNoJargon(where) {
  const shown = await page.evaluate(() => {
    const own = (el) => el.closest("#page-blocks, #context-output");
    const texts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!own(node.parentElement)) texts.push(node.data);
    for (const el of document.querySelectorAll("[title]")) if (!own(el)) texts.push(el.title);
    return texts.join("\n");
  });
  for (const word of JARGON) assert.doesNotMatch(shown, word, `${where}: ${word}`);
}

describe("why a command goes to Hermes", () => {
  test("missing text says it is not on the page, not just “medium risk”", async () => {
    await command(page, "把「火星」改成「木星」", "hermes");
    assert.equal(await text("#decision-reason"), "「火星」 is not on this page.");
    assert.equal(await page.locator("#decision-risk").count(), 0, "no risk of a write that will not happen");
    assert.doesNotMatch(await text("#command-decision"), /medium risk/i);
    await assertNoJargon("missing text");
  });

  test("a near miss offers the router's did-you-mean", async () => {
    await command(page, 'replace "numbres check" with "finance review"', "hermes");
    assert.equal(await text("#decision-reason"), "“numbres check” is not on this page.");
    assert.equal(await text("#decision-detail"), "Did you mean “numbers check” (in p_draft)?");
    assert.deepEqual(await ids("#page-blocks .is-match"), ["p_draft"]);
    await page.click("#decision-use");
    await page.waitForSelector("#command-panel[data-status=direct]");
    assert.equal(await page.inputValue("#command-input"), 'replace "numbers check" with "finance review"');
  });

  test("repeated text is highlighted in the page, with the way to say all", async () => {
    await command(page, "把「第一版」改成「第二版」", "hermes");
    assert.equal(await text("#decision-reason"), "「第一版」 appears 4 times on this page (in p_intro, n_type, code_example and p_draft); the matches are highlighted in the page.");
    assert.match(await text("#decision-hint"), /To change every one, say 把所有「第一版」改成「…」/);
    assert.deepEqual(await ids("#page-blocks .is-match"), ["p_intro", "n_type", "code_example", "p_draft"]);
    const marks = await page.locator("#page-blocks mark.match").allInnerTexts();
    assert.ok(marks.length >= 4 && marks.every((m) => m === "第一版"), JSON.stringify(marks));

    // In English, the English form; the highlight follows the command.
    await command(page, 'replace "Hermes" with "H"', "hermes");
    assert.match(await text("#decision-hint"), /To change every one, say replace all "Hermes" with "…"/);
    assert.deepEqual(await ids("#page-blocks .is-match"), ["li_hermes", "li_secrets"]);

    // A repeated delete offers the whole command, and it is a direct one.
    await command(page, "删除「第一版」", "hermes");
    await page.click("#decision-try");
    await page.waitForSelector("#command-panel[data-status=direct]");
    assert.equal(await page.inputValue("#command-input"), "删除所有「第一版」");
    await page.fill("#command-input", "");
    assert.equal(await page.locator("#page-blocks .is-match").count(), 0, "the marks go with the command");
  });

  test("the decision label is a label; the only button is Send to Hermes", async () => {
    await command(page, "帮我把这一页润色得更专业", "hermes");
    const label = page.locator("#decision-route");
    assert.equal(await label.innerText(), "GOES TO HERMES");
    const style = await label.evaluate((el) => {
      const s = getComputedStyle(el);
      return { tag: el.tagName, background: s.backgroundColor, border: s.borderTopStyle, cursor: s.cursor };
    });
    assert.deepEqual(style, { tag: "SPAN", background: "rgba(0, 0, 0, 0)", border: "none", cursor: "default" });
    assert.equal(await page.locator("#command-decision button").count(), 0);
    assert.equal(await text("#command-hermes"), "Send to Hermes");
  });
});

describe("what a recommendation does", () => {
  for (const [prompt, label, sentence] of [
    ["把最后一个待办勾上", "Check", "Checks off the to-do t_hermes."],
    ["把第三段移到最后", "Move", "Moves p_draft after p_updated."],
    ["把第二段改成引用", "Change type", "Turns p_review into a quote."],
    ['replace all "Hermes" with "H"', "Replace all", "Replaces every “Hermes” with “H”."],
  ]) {
    test(`${prompt} reads “${label}”`, async () => {
      await command(page, prompt, "direct");
      assert.equal(await text("#decision-intent"), label);
      assert.equal(await text("#decision-reason"), sentence);
    });
  }
});

describe("keyboard", () => {
  test("Enter applies, Shift+Enter adds a line, and the box says so", async () => {
    await page.fill("#command-input", "");
    assert.equal(await page.locator("#command-keys").isVisible(), true);
    await command(page, "把「第二季度」改成「第三季度」", "direct");
    assert.equal(await text("#command-keys"), "Enter applies · Shift+Enter new line");

    // An input method composing (CJK typing) keeps its Enter.
    const writes = [];
    const record = (r) => r.method() !== "GET" && writes.push(r.url());
    page.on("request", record);
    await page.locator("#command-input").evaluate((el) => el.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", isComposing: true, bubbles: true, cancelable: true })));
    await page.locator("#command-input").press("Shift+Enter");
    assert.equal(await page.inputValue("#command-input"), "把「第二季度」改成「第三季度」\n");
    assert.deepEqual(writes, [], "neither applied anything");
    page.off("request", record);

    await page.locator("#command-input").press("Enter");
    await page.waitForSelector("#command-status.status-ok");
    assert.match(await text("#command-status"), /^Applied · revision \d+$/);
    assert.match((await demo.storedPage()).blocks.find((b) => b.blockId === "p_updated").text, /第三季度/);
  });

  test("Enter never starts a model run for a command the box explained as not on the page", async () => {
    const writes = [];
    const record = (r) => r.method() !== "GET" && writes.push(r.url());
    page.on("request", record);
    try {
      // A typo: Enter takes the box's correction (the default button), not a Hermes run.
      await command(page, 'replace "numbres check" with "finance review"', "hermes");
      assert.equal(await text("#command-keys"), "Enter uses “numbers check” · Shift+Enter new line · Send to Hermes by its button");
      assert.match(await page.locator("#decision-use").getAttribute("class"), /\bprimary\b/);
      assert.doesNotMatch(await page.locator("#command-hermes").getAttribute("class"), /\bprimary\b/);
      await page.locator("#command-input").press("Enter");
      await page.waitForSelector("#command-panel[data-status=direct]");
      assert.equal(await page.inputValue("#command-input"), 'replace "numbers check" with "finance review"');
      await assertNoRun(writes);

      // Not on the page and nothing near it, and a block the page does not have: Enter sends nothing.
      for (const prompt of ["把「火星」改成「木星」", "删除第九十九段"]) {
        await command(page, prompt, "hermes");
        assert.match(await text("#command-keys"), /^Enter sends nothing · Shift\+Enter new line · Send to Hermes by its button$/);
        await page.locator("#command-input").press("Enter");
        assert.equal(await page.inputValue("#command-input"), prompt);
        assert.equal(await page.locator("#command-panel").getAttribute("data-status"), "hermes");
        await assertNoRun(writes);
      }
    } finally {
      page.off("request", record);
    }

    // Send to Hermes still starts a run, by its button (no Hermes here: the run view says so).
    await page.click("#command-hermes");
    await page.waitForSelector("#hermes-run[data-status=failed]");
    assert.match(await page.locator("#hermes-run .error-code").innerText(), /^hermes_client_unconfigured$/);
    await page.fill("#command-input", "");
    // An open request is still Enter's to send.
    await command(page, "帮我把这一页润色得更专业", "hermes");
    assert.equal(await text("#command-keys"), "Enter sends to Hermes · Shift+Enter new line");
    await page.fill("#command-input", "");
  });

  test("quick review-mode clicks end on the last one, stored and shown", async () => {
    await command(page, 'replace "numbers check" with "finance review"', "direct");
    // Slow profile stores: the second click comes while the first is still on its way.
    const slow = async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await route.continue();
    };
    // The demo names the page's workspace in the query: match the path only.
    const profileRoute = (u) => u.pathname === "/api/profile";
    await page.route(profileRoute, slow);
    try {
      await page.click("#review-mode [data-mode=required]");
      await page.click("#review-mode [data-mode=review]");
      await page.click("#review-mode [data-mode=yolo]");
      await page.waitForFunction(() => !document.querySelector("#tool-list input:disabled"));
    } finally {
      // Waits for a store still held by `slow`, so none is continued after the route is gone.
      await page.unrouteAll({ behavior: "wait" });
    }
    assert.equal(await page.locator("#review-mode [aria-pressed=true]").getAttribute("data-mode"), "yolo");
    assert.match(await text("#command-decision"), /applies directly/);
    assert.equal((await demo.api("/api/profile")).profile.reviewMode, "yolo");
    await page.fill("#command-input", "");
  });

  test("every control has an accessible name, the budget switch too", async () => {
    assert.equal(await page.getByRole("switch", { name: "Limit the context to a character budget" }).count(), 1);
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll("input, textarea, button, select")]
        .filter((el) => el.getClientRects().length)
        .filter((el) => {
          const by = el.getAttribute("aria-labelledby");
          const name = el.getAttribute("aria-label") || (by && document.getElementById(by)?.textContent) || el.labels?.[0]?.textContent || el.textContent || el.title;
          return !name?.trim();
        })
        .map((el) => el.outerHTML.slice(0, 120)),
    );
    assert.deepEqual(unnamed, []);
  });

  test("the target chips are one Tab stop; arrow keys move between them", async () => {
    const chips = page.locator("#context-targets [data-block-id]");
    assert.ok((await chips.count()) > 20);
    assert.equal(await page.locator("#context-targets [tabindex='0']").count(), 1);
    const focused = () => page.evaluate(() => (document.activeElement?.closest("#context-targets") ? document.activeElement.dataset.blockId : "outside"));

    await chips.first().focus();
    await page.keyboard.press("ArrowRight");
    const second = await chips.nth(1).getAttribute("data-block-id");
    assert.equal(await focused(), second);
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "outside", "one Tab leaves the whole group");
    await page.keyboard.press("Shift+Tab");
    assert.equal(await focused(), second, "and Shift+Tab comes back to the chip last used");
    await page.keyboard.press("End");
    assert.equal(await focused(), await chips.last().getAttribute("data-block-id"));
  });
});

describe("screen readers", () => {
  test("the first Tab stop is a visible skip link to the command box", async () => {
    const tab = await demo.open(DESKTOP);
    try {
      await tab.page.keyboard.press("Tab");
      const skip = tab.page.locator("#skip-to-command");
      assert.equal(await tab.page.evaluate(() => document.activeElement?.id), "skip-to-command");
      assert.equal(await skip.innerText(), "Skip to the command box");
      assert.ok(await inViewport(skip), "shown while it has the focus");
      await shoot(tab.page, "desktop-skip-link");
      await tab.page.keyboard.press("Enter");
      await tab.page.waitForFunction(() => document.activeElement?.id === "command-input");
      assert.equal(await inViewport(skip), false, "hidden again once the focus moved on");
      assert.deepEqual(tab.problems, []);
    } finally {
      await tab.context.close();
    }
  });

  test("each to-do checkbox is named by its to-do", async () => {
    assert.equal(await page.locator("#page-blocks").getByRole("checkbox").count(), 4);
    for (const name of ["Done: Run the end-to-end suite against the real hermes-agent 0.19", "Done: 完成 Markdown 导入导出的往返测试"]) {
      assert.equal(await page.getByRole("checkbox", { name, exact: true }).count(), 1, name);
    }
    assert.equal(await page.getByRole("checkbox", { name: "Done", exact: true }).count(), 0);
    assert.equal(await page.getByRole("checkbox", { name: /^Done: One Durable Object/, checked: true }).count(), 1);
  });

  test("lists are exposed as lists of their items", async () => {
    const lists = page.locator("#page-blocks").getByRole("list");
    assert.equal(await lists.count(), 4);
    // What a screen reader hears: Chromium's own accessibility tree, each list with its items in order.
    const cdp = await page.context().newCDPSession(page);
    try {
      const { nodes } = await cdp.send("Accessibility.getFullAXTree");
      const byId = new Map(nodes.map((n) => [n.nodeId, n]));
      const { result } = await cdp.send("Runtime.evaluate", { expression: 'document.querySelector("#page-blocks")' });
      const { nodes: inPage } = await cdp.send("Accessibility.queryAXTree", { objectId: result.objectId, role: "list" });
      const items = (n) => (byId.get(n.nodeId)?.childIds ?? []).map((id) => byId.get(id)?.role?.value);
      assert.deepEqual(inPage.map(items), [5, 4, 4, 2].map((n) => Array(n).fill("listitem")));
    } finally {
      await cdp.detach();
    }
    const bullets = await page.locator("#page-blocks").getByRole("listitem").evaluateAll((els) => els.map((e) => e.dataset.blockId));
    assert.deepEqual(bullets.slice(0, 5), ["li_context", "li_conflict", "li_router", "li_hermes", "li_dryrun"]);
    assert.equal(await page.locator('#page-blocks [data-block-id="li_conflict"]').getAttribute("aria-level"), "2");
  });
});

describe("people's wording", () => {
  test("the XML view escapes once, and only where XML needs it", async () => {
    const hostile = { documentId: "xml-words", title: "XML", blocks: [{ blockId: "p_1", type: "paragraph", text: 'a < b & "c" </block> <page' }] };
    const res = await fetch(`${demo.worker.url}/api/documents/xml-words`, {
      method: "PUT",
      headers: { ...demo.worker.auth, "content-type": "application/json", origin: demo.worker.url },
      body: JSON.stringify(hostile),
    });
    assert.equal(res.status, 200, await res.text());
    const tab = await demo.open(DESKTOP, "/?doc=xml-words");
    try {
      const xml = await tab.page.locator("#context-output").innerText();
      assert.match(xml, /<block id="p_1" type="paragraph">a &lt; b &amp; "c" &lt;\/block> &lt;page<\/block>/);
      assert.doesNotMatch(xml, /&quot;|&amp;lt;/);
      assert.deepEqual(tab.problems, []);
    } finally {
      await tab.context.close();
    }
    // The welcome page's code block keeps its quotes as quotes.
    assert.match(await text("#context-output"), /"toolName": "mnote.doc.apply_block_ops"/);
  });

  test("nothing a person reads is developer wording", async () => {
    for (const prompt of ["把「火星」改成「木星」", "把「第一版」改成「第二版」", "帮我把这一页润色得更专业", 'replace "numbers check" with "finance review"']) {
      await page.fill("#command-input", prompt);
      await assertNoJargon(prompt);
    }
    await page.check("#budget-enabled");
    await page.fill("#budget-input", "300");
    assert.match(await text("#context-chunk .warnings"), /The budget was reached/);
    await assertNoJargon("a budget chunk");
    await page.uncheck("#budget-enabled");
  });
});

describe("layout slips", () => {
  test("the hover label never covers the block's own text", async () => {
    for (const id of ["p_intro", "li_router", "h_what", "t_partial", "p_draft"]) {
      const block = page.locator(`#page-blocks [data-block-id="${id}"]`);
      await block.hover();
      const badge = block.locator(".block-badge");
      await page.waitForFunction((el) => getComputedStyle(el).opacity === "1", await badge.elementHandle());
      // The label's box against the boxes of the block's text (its lines, not its padding).
      const overlap = await block.evaluate((el) => {
        const b = el.querySelector(".block-badge").getBoundingClientRect();
        const walker = document.createTreeWalker(el.querySelector(".block-body"), NodeFilter.SHOW_TEXT);
        const rects = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const range = document.createRange();
          range.selectNodeContents(node);
          rects.push(...range.getClientRects());
        }
        return rects.some((r) => r.width > 0 && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top);
      });
      assert.equal(overlap, false, `the label over ${id} covers its text`);
    }
  });

  for (const viewport of [DESKTOP, { width: 1100, height: 900 }, PHONE]) {
    test(`the stat tiles keep to one line at ${viewport.width} px`, async () => {
      const tab = await demo.open(viewport);
      try {
        if (await tab.page.locator("#tabbar").isVisible()) await tab.page.click("#tabbar [data-tab=context]");
        const tiles = await tab.page.locator("#context-stats dd").evaluateAll((els) =>
          els.map((dd) => {
            const range = document.createRange();
            range.selectNodeContents(dd.firstChild);
            const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
            return { text: dd.textContent, lines, fits: dd.scrollWidth <= dd.clientWidth };
          }),
        );
        for (const tile of tiles) assert.deepEqual([tile.lines, tile.fits], [1, true], JSON.stringify(tile));
      } finally {
        await tab.context.close();
      }
    });
  }

  test("a budget chunk's tiles count what the chunk holds", async () => {
    await page.check("#budget-enabled");
    await page.fill("#budget-input", "300");
    await page.click("#next-chunk");
    const inChunk = [...(await text("#context-output")).matchAll(/<block id="([^"]+)"/g)].map((m) => m[1]);
    const welcome = await demo.storedPage();
    const editable = inChunk.filter((id) => welcome.blocks.find((b) => b.blockId === id)?.editable !== false);
    const tile = (n) => page.locator("#context-stats dd").nth(n).evaluate((dd) => dd.firstChild.textContent);
    assert.equal(await tile(0), String(new Set(inChunk).size));
    assert.equal(await tile(1), String(editable.length));
    assert.match(await page.locator("#context-stats dd").nth(1).innerText(), /of 30 in all/);
    await page.uncheck("#budget-enabled");
  });

  test("Copy says it copied, and the clipboard holds the view", async () => {
    await page.click("#view-tabs [data-view=page_xml]");
    await page.click("#context-copy");
    await page.waitForSelector("#context-copy[data-copied=true]");
    assert.equal(await text("#context-copy"), "Copied");
    assert.equal(await text("#context-copy-status"), "Copied to the clipboard");
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, /^<page id="welcome"/);
  });

  test("English diffs read word by word, CJK character by character", async () => {
    await command(page, 'replace "Durable Object" with "DO"', "direct");
    assert.deepEqual(await spans("t_storage"), [["delete", "Durable Object"], ["insert", "DO"]]);
    await command(page, 'replace "numbers check" with "finance review"', "direct");
    assert.deepEqual(await spans("p_draft"), [["delete", "numbers check"], ["insert", "finance review"]]);
    await command(page, "把「第三季度」改成「第四季度」", "direct");
    assert.deepEqual(await spans("p_updated"), [["delete", "三"], ["insert", "四"]]);
    await page.fill("#command-input", "");
  });

  test("an unknown document shows one clear error, not empty panels", async () => {
    const tab = await demo.open(DESKTOP, "/?doc=nope");
    try {
      assert.equal(await tab.page.locator("body").getAttribute("data-state"), "error");
      const visible = await tab.page.locator(".panel, .message").evaluateAll((els) => els.filter((e) => e.getClientRects().length).map((e) => e.id || e.className));
      assert.deepEqual(visible, ["fatal-error"]);
      assert.equal(await tab.page.locator("#fatal-error h1").innerText(), "There is no document called “nope”.");
      assert.doesNotMatch(await tab.page.locator("body").innerText(), /PUT/);
      assert.equal(await tab.page.locator("#fatal-error a").getAttribute("href"), "/");
    } finally {
      await tab.context.close();
    }
  });
});

describe("a page that does not exist", () => {
  test("says so without waiting on the live channel, and is made from there", async () => {
    const id = `made_${Date.now().toString(36)}`;
    const tab = await demo.open(DESKTOP, `/?doc=${id}`);
    try {
      const { page: missing } = tab;
      assert.equal(await missing.locator("body").getAttribute("data-state"), "error");
      assert.equal(await missing.locator("#doc-title").innerText(), "Not found");
      // Nothing to hear on a page that is not there: no "Connecting…" for ever.
      assert.equal(await missing.locator("#live-status").isVisible(), false);
      const create = missing.getByRole("button", { name: `Create “${id}”` });
      await shoot(missing, "desktop-missing-page");
      const seen = tab.problems.length; // the 404 that said the page is missing, and its console line
      await create.click();
      // The page is stored, and the tab opens it: its heading is its name, then a paragraph to type in.
      await missing.waitForSelector("body[data-state=ready]");
      const stored = await demo.storedPage(id);
      assert.deepEqual(stored.blocks.map((b) => [b.type, b.text]), [["heading", id], ["paragraph", ""]]);
      assert.equal(await missing.locator("#page-blocks .block-text").first().innerText(), id);
      await missing.waitForSelector("#live-status[data-state=live]");
      // Nothing went wrong once the page was made.
      assert.deepEqual(tab.problems.slice(seen), []);
    } finally {
      await tab.context.close();
    }
  });
});

test("nothing went wrong in the browser", () => {
  assert.deepEqual(problems, []);
});
