// The web demo on a phone (390×844) in headless Chromium: the command box is one tap away (a tab bar, not
// below the whole document), typing never scrolls the input away, and nothing is cut off (the budget
// control, the audit rows, the title). Then the main states photographed at both widths (first load,
// preview, review, error) into tests/artifacts/screens/; the Hermes run's are taken by hermes_browser.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { applyCommand, command, inViewport, reviewMode, scrollAtRest, shoot, startDemo } from "./lib/demo.mjs";

let demo;
let phone; // {page, problems, context}

before(
  async () => {
    demo = await startDemo();
    phone = await demo.open(PHONE);
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

const tab = (name) => phone.page.click(`#tabbar [data-tab=${name}]`);

/** The element's box fits inside `inside`'s box and the viewport, and nothing in it scrolls sideways. */
async function notCutOff(locator, inside) {
  const [box, outer] = [await locator.boundingBox(), await inside.boundingBox()];
  const width = locator.page().viewportSize().width;
  assert.ok(box.x >= outer.x - 0.5 && box.x + box.width <= outer.x + outer.width + 0.5, `inside its panel: ${JSON.stringify({ box, outer })}`);
  assert.ok(box.x + box.width <= width, "inside the screen");
  const sizes = await locator.evaluate((el) => [el.scrollWidth, el.clientWidth, el.outerHTML.slice(0, 80)]);
  assert.ok(sizes[0] <= sizes[1] + 1, `no hidden overflow: ${JSON.stringify(sizes)}`);
}

test("the command box is one tap away, not below the whole document", async () => {
  const { page } = phone;
  assert.equal(await page.locator("body").getAttribute("data-tab"), "page");
  assert.ok(await page.locator("#page-blocks").isVisible(), "the page shows first");
  assert.ok(await inViewport(page.locator("#tabbar")), "the tab bar is on screen");
  await tab("command");
  assert.equal(await page.evaluate(() => scrollY), 0);
  assert.ok(await inViewport(page.locator("#command-input")), "the input is on screen without scrolling");
  assert.equal(await page.locator("#page-blocks").isVisible(), false, "the document is not in the way");
});

test("typing on a phone never scrolls the input away", async () => {
  const { page } = phone;
  const input = page.locator("#command-input");
  await input.click();
  const before = await input.boundingBox();
  await page.evaluate(() => {
    window.__scrolled = 0;
    addEventListener("scroll", () => (window.__scrolled = Math.max(window.__scrolled, Math.abs(scrollY))));
  });
  // The previewed block (p_updated) is the page's last one.
  await page.keyboard.type('replace "Last updated" with "Updated"', { delay: 15 });
  await page.waitForSelector("#command-panel[data-status=direct]");
  assert.equal(await page.evaluate(() => window.__scrolled), 0, "the page never scrolled");
  assert.deepEqual(await input.boundingBox(), before, "the input stayed where it was");
  assert.ok(await inViewport(input));
  // The preview is in the command box; the page shows it in place when you look.
  assert.match(await page.locator("#command-diff").innerText(), /Updated/);
  await tab("page");
  assert.equal(await page.locator("#page-blocks .is-previewed").getAttribute("data-block-id"), "p_updated");
  await tab("command");
  await page.fill("#command-input", "");
});

test("on a phone, the matches of a repeated text are one tap from the explanation", async () => {
  const { page } = phone;
  await command(page, "把「第一版」改成「第二版」", "hermes");
  await page.click("#decision-show");
  assert.equal(await page.locator("body").getAttribute("data-tab"), "page");
  const first = page.locator('#page-blocks [data-block-id="p_intro"]');
  assert.match(await first.getAttribute("class"), /is-match/);
  await page.waitForFunction(() => {
    const box = document.querySelector('#page-blocks [data-block-id="p_intro"]').getBoundingClientRect();
    return box.top >= 0 && box.bottom <= innerHeight;
  });
  await tab("command");
  await page.fill("#command-input", "");
});

test("on a desktop, typing may scroll the page to the preview but never moves the input", async () => {
  const desk = await demo.open(DESKTOP);
  try {
    const input = desk.page.locator("#command-input");
    await input.click();
    const before = await input.boundingBox();
    await desk.page.keyboard.type('replace "Last updated" with "Updated"', { delay: 15 });
    await desk.page.waitForSelector("#command-panel[data-status=direct]");
    // The smooth scroll to the preview: awaited until the block is in view and the page is at rest.
    await desk.page.waitForFunction(() => {
      const box = document.querySelector('#page-blocks [data-block-id="p_updated"]')?.getBoundingClientRect();
      return box && box.top >= 0 && box.bottom <= innerHeight;
    });
    await scrollAtRest(desk.page);
    assert.deepEqual(await input.boundingBox(), before);
    assert.ok(await inViewport(desk.page.locator('#page-blocks [data-block-id="p_updated"]')), "the preview was brought into view");
  } finally {
    await desk.context.close();
  }
});

test("the budget control and the audit rows are not cut off; the title shows whole", async () => {
  const { page } = phone;
  const title = page.locator("#doc-title");
  assert.equal(await title.innerText(), "mnote Page AI");
  assert.ok(await title.evaluate((el) => el.scrollWidth <= el.clientWidth && el.clientWidth > 60), "the title is not cut to a letter");

  await tab("context");
  const panel = page.locator("#context-panel");
  for (const control of ["#budget-enabled", "#budget-input", ".control-row", "#context-stats", ".view-head"]) await notCutOff(page.locator(`#context-panel ${control}`).first(), panel);

  // Something for the audit log: a held command, made on the phone.
  await tab("command");
  await command(page, "把「第一版草稿」改成「初稿」", "direct");
  await applyCommand(page);
  assert.equal(await page.locator("#tabbar [data-tab=review] .tab-badge").innerText(), "1");
  await tab("audit");
  const rows = page.locator("#audit-list .audit-entry");
  assert.ok((await rows.count()) >= 1);
  for (let i = 0; i < (await rows.count()); i++) await notCutOff(rows.nth(i), page.locator("#audit-panel"));
  await notCutOff(page.locator("#audit-panel .panel-head"), page.locator("#audit-panel"));
  await tab("review");
  await page.click('#review-session [data-action="reject"]');
  await page.waitForSelector("#review-session[data-state=rejected]");
});

/**
 * The controls of the shown section a finger can't hit: those whose hit area is under 44 × 44 px. An input
 * inside a label is hit through the whole label (a toggle draws only its label).
 */
const tooSmall = (page) =>
  page.evaluate(() => {
    const controls = document.querySelectorAll('button, select, input[type=checkbox], input[type=radio], [role=checkbox], [role=switch], a.skip-link');
    const small = [];
    for (const el of controls) {
      if (!el.getClientRects().length || getComputedStyle(el).visibility === "hidden") continue;
      const boxes = [el.getBoundingClientRect(), el.closest("label")?.getBoundingClientRect()].filter(Boolean);
      const width = Math.max(...boxes.map((b) => b.width));
      const height = Math.max(...boxes.map((b) => b.height));
      if (width < 44 - 0.5 || height < 44 - 0.5) small.push(`${el.id || el.className || el.textContent.trim().slice(0, 20)} ${width.toFixed(1)}×${height.toFixed(1)}`);
    }
    return small;
  });

test("every control on a phone is a 44 px touch target", async () => {
  const { page } = phone;
  for (const name of ["page", "command", "review", "context", "tools", "audit"]) {
    await tab(name);
    if (name === "command") {
      // The explanation's buttons and Send to Hermes, as well as the examples and the review modes.
      await command(page, 'replace "numbres check" with "finance review"', "hermes");
      assert.ok(await page.locator("#decision-use").isVisible());
      assert.deepEqual(await tooSmall(page), [], name);
      await command(page, 'replace "numbers check" with "finance review"', "direct");
      assert.deepEqual(await tooSmall(page), [], name);
      await page.fill("#command-input", "");
    }
    assert.deepEqual(await tooSmall(page), [], name);
  }
  // The to-do checkboxes too (the box is drawn at its size inside the target: photographed).
  await tab("page");
  const checkbox = page.getByRole("checkbox", { name: "Done: 审阅面板支持部分接受（partial accept）" });
  await checkbox.scrollIntoViewIfNeeded();
  const box = await checkbox.boundingBox();
  assert.ok(box.width >= 44 && box.height >= 44, JSON.stringify(box));
  await shoot(page, "phone-todos");
});

test("on a phone the skip link opens the Command tab and focuses the box", async () => {
  const { page, problems, context } = await demo.open(PHONE);
  try {
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "skip-to-command");
    assert.ok(await inViewport(page.locator("#skip-to-command")), "shown while it has the focus");
    await shoot(page, "phone-skip-link");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "command-input");
    assert.equal(await page.locator("body").getAttribute("data-tab"), "command");
    assert.ok(await inViewport(page.locator("#command-input")));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test("the main states at both widths, photographed", async () => {
  for (const [name, viewport] of [["desktop", DESKTOP], ["phone", PHONE]]) {
    const { page, problems, context } = await demo.open(viewport);
    const show = (panel) => (name === "phone" ? page.click(`#tabbar [data-tab=${panel}]`) : page.locator(`#${panel}-panel`).scrollIntoViewIfNeeded());
    try {
      await shoot(page, `${name}-first-load`);
      if (name === "phone") await show("command");
      await reviewMode(page, "review");
      await command(page, 'replace "numbers check" with "finance review"', "direct");
      await shoot(page, `${name}-preview`);
      await command(page, "把「第一版」改成「第二版」", "hermes");
      await shoot(page, `${name}-explained`);
      await command(page, 'replace "numbers check" with "finance review"', "direct");
      await applyCommand(page);
      await show("review");
      await page.waitForSelector("#review-session[data-state=awaiting_user]");
      await shoot(page, `${name}-review`);
      await page.click('#review-session [data-action="reject"]');
      await page.waitForSelector("#review-session[data-state=rejected]");
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
    const missing = await demo.open(viewport, "/?doc=nope");
    try {
      assert.equal(await missing.page.locator("body").getAttribute("data-state"), "error");
      await shoot(missing.page, `${name}-error`);
    } finally {
      await missing.context.close();
    }
  }
});

test("nothing went wrong in the browser", () => {
  assert.deepEqual(phone.problems, []);
});
