// The web demo's block editor does what people expect of one, in headless Chromium, typed as a person
// types: Markdown shortcuts at the start of a block (`# `, `- `, `1. `, `[] `, `> `, three backticks), Tab and
// Shift+Tab in a list, Ctrl+B / Ctrl+I / Ctrl+K, several pasted lines (a real paste from the clipboard) as
// blocks, the "/" menu (keys, mouse, a tap on a phone), several blocks selected (Shift+arrows, Shift+click)
// to copy, move, turn into another type and delete, a block dragged by its handle, and Ctrl+Z /
// Ctrl+Shift+Z / Ctrl+Y that undo and redo the person's own edits only; and the caret stays in a block whose
// type someone else changes. Each test reads the page back from the server, and where a feature is one
// write, checks the page's revision moved by one. Screenshots of the menu, a shortcut's result, a pasted
// list (at both widths) and a block selection go to tests/artifacts/screens/.
//
//   node --test --test-concurrency=1 --experimental-websocket tests/e2e/browser_blocks.test.mjs
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { shoot, startDemo } from "./lib/demo.mjs";

let demo;
let seq = 0;

before(
  async () => {
    // The assistant's commands apply at once (for the undo tests' writes by someone else).
    demo = await startDemo({ profile: { tools: { disabled: [] }, reviewMode: "yolo" } });
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

const send = (method, path, body) => demo.send(method, path, body);

/** A fresh document of `blocks` (paragraphs from strings). */
async function freshDocument(blocks) {
  const id = `blocks_${process.pid}_${++seq}`;
  const full = blocks.map((b, i) => (typeof b === "string" ? { blockId: `p_${i}`, type: "paragraph", text: b } : b));
  const res = await send("PUT", `/api/documents/${id}`, { title: "Blocks", blocks: full });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return id;
}

const stored = (documentId) => demo.storedPage(documentId);
const blockOf = (page, blockId) => page.blocks.find((b) => b.blockId === blockId);
const textEl = (page, blockId) => page.locator(`#page-blocks [data-block-id="${blockId}"] .block-text`);
async function saved(page) {
  await page.waitForSelector("#save-status[data-state=saved]", { timeout: 60_000 });
}
/** The id of the block the caret is in, and the caret's offset in its text. */
const caret = (page) =>
  page.evaluate(() => {
    const el = document.activeElement.closest("[data-block-id]");
    const range = getSelection().getRangeAt(0);
    const before = document.createRange();
    before.selectNodeContents(document.activeElement);
    before.setEnd(range.startContainer, range.startOffset);
    return { blockId: el?.dataset.blockId, offset: before.toString().length, selected: range.toString() };
  });

async function open(documentId, viewport = DESKTOP) {
  const tab = await demo.open(viewport, `/?doc=${documentId}`);
  assert.equal(await tab.page.locator("body").getAttribute("data-state"), "ready");
  return tab;
}

/** Clicks into a block's text and puts the caret at its start or end. */
async function caretIn(page, blockId, where = "end") {
  await textEl(page, blockId).click();
  await page.keyboard.press(where === "end" ? "End" : "Home");
}

/** Waits until the server's page has moved past `revision`, then answers it. */
async function writtenAfter(page, id, revision) {
  await saved(page);
  const now = await stored(id);
  assert.ok(now.revision > revision, "the edit was written");
  return now;
}

describe("Markdown shortcuts", () => {
  const cases = [
    ["# ", "heading", { level: 1 }],
    ["## ", "heading", { level: 2 }],
    ["### ", "heading", { level: 3 }],
    ["- ", "bulleted_list_item", {}],
    ["* ", "bulleted_list_item", {}],
    ["1. ", "numbered_list_item", {}],
    ["[] ", "todo", { checked: false }],
    ["[ ] ", "todo", { checked: false }],
    ["> ", "quote", {}],
    ["```", "code", {}],
  ];

  test("each marker typed at the start of a block changes its type in one write; the marker goes, the caret stays", async () => {
    const id = await freshDocument(cases.map(([marker]) => `Block for ${marker.trim()}`));
    const { page, problems } = await open(id);
    for (const [i, [marker, type, attrs]] of cases.entries()) {
      const blockId = `p_${i}`;
      const { revision } = await stored(id);
      await caretIn(page, blockId, "start");
      await page.keyboard.type(marker, { delay: 10 });
      const now = await writtenAfter(page, id, revision);
      assert.equal(now.revision, revision + 1, `${marker}: one write`);
      const block = blockOf(now, blockId);
      assert.deepEqual([block.type, block.text], [type, `Block for ${marker.trim()}`], marker);
      for (const [k, v] of Object.entries(attrs)) assert.equal(block.attrs?.[k], v, `${marker}: ${k}`);
      assert.equal(await page.locator(`#page-blocks [data-block-id="${blockId}"]`).getAttribute("data-block-type"), type);
      assert.deepEqual(await caret(page), { blockId, offset: 0, selected: "" }, `${marker}: the caret stays where it was`);
    }
    // Typing goes on where the caret is; a marker inside text, or in a code block, is text.
    await page.keyboard.type("# not a heading ", { delay: 10 });
    await caretIn(page, "p_0", "end");
    await page.keyboard.type(" - still text", { delay: 10 });
    await page.keyboard.press("Escape");
    await saved(page);
    const now = await stored(id);
    assert.deepEqual([blockOf(now, "p_9").type, blockOf(now, "p_9").text], ["code", "# not a heading Block for ```"]);
    assert.deepEqual([blockOf(now, "p_0").type, blockOf(now, "p_0").text], ["heading", "Block for # - still text"]);
    await page.locator('#page-blocks [data-block-id="p_4"]').scrollIntoViewIfNeeded();
    await shoot(page, "blocks-shortcuts-desktop");
    assert.deepEqual(problems, []);
  });

  test("on a phone: `- ` in a new block starts a list, Enter goes on with it", async () => {
    const id = await freshDocument(["Shopping"]);
    const { page, problems } = await open(id, PHONE);
    await caretIn(page, "p_0", "end");
    await page.keyboard.press("Enter");
    await page.keyboard.type("- Milk", { delay: 10 });
    await page.keyboard.press("Enter");
    await page.keyboard.type("Bread", { delay: 10 });
    await page.keyboard.press("Escape");
    await saved(page);
    const now = await stored(id);
    assert.deepEqual(
      now.blocks.map((b) => [b.type, b.text]),
      [["paragraph", "Shopping"], ["bulleted_list_item", "Milk"], ["bulleted_list_item", "Bread"]],
    );
    await shoot(page, "blocks-shortcuts-phone");
    assert.deepEqual(problems, []);
  });
});

test("Tab and Shift+Tab indent and outdent a list item; where it cannot move, Tab moves the focus on", async () => {
  const bullets = ["One", "Two", "Three"].map((text, i) => ({ blockId: `l_${i}`, type: "bulleted_list_item", text }));
  const id = await freshDocument(["Intro", ...bullets, "After"]);
  const { page, problems } = await open(id);
  const depth = async (blockId) => blockOf(await stored(id), blockId).attrs?.depth ?? 0;
  let { revision } = await stored(id);
  await caretIn(page, "l_1", "end");
  await page.keyboard.press("Tab");
  await writtenAfter(page, id, revision);
  assert.equal(await depth("l_1"), 1);
  assert.equal(await page.locator('#page-blocks [data-block-id="l_1"]').getAttribute("aria-level"), "2");
  assert.deepEqual(await caret(page), { blockId: "l_1", offset: 3, selected: "" }, "the caret stays");
  // Three goes one level below Two at most, and back out.
  ({ revision } = await stored(id));
  await caretIn(page, "l_2", "end");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Shift+Tab");
  await writtenAfter(page, id, revision);
  assert.deepEqual([await depth("l_1"), await depth("l_2")], [1, 1]);
  assert.equal((await caret(page)).blockId, "l_2");
  // One cannot go deeper (nothing above it is a list item): Tab leaves the block, as it does in a paragraph.
  await caretIn(page, "l_0", "end");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.closest?.('[data-block-id="l_0"]') !== null), false, "not trapped");
  await caretIn(page, "p_0", "end");
  await page.keyboard.press("Tab");
  assert.equal((await caret(page)).blockId !== "p_0", true, "Tab in a paragraph moves on");
  await saved(page);
  assert.equal(await depth("l_0"), 0);
  assert.deepEqual(problems, []);
});

test("Ctrl+B, Ctrl+I and Ctrl+K wrap the selection in the block's Markdown, and take it off again", async () => {
  const id = await freshDocument(["Make this word bold", "Read the docs"]);
  const { page, problems } = await open(id);
  const selectBack = async (n) => {
    for (let i = 0; i < n; i++) await page.keyboard.press("Shift+ArrowLeft");
  };
  await caretIn(page, "p_0", "end");
  await selectBack(4);
  await page.keyboard.press("Control+b");
  assert.equal((await caret(page)).selected, "bold", "the same word stays selected");
  assert.equal(await textEl(page, "p_0").innerText(), "Make this word **bold**");
  await saved(page);
  assert.equal(blockOf(await stored(id), "p_0").text, "Make this word **bold**");
  await page.keyboard.press("Control+b");
  assert.equal(await textEl(page, "p_0").innerText(), "Make this word bold", "Ctrl+B again takes it off");
  await page.keyboard.press("Control+i");
  await page.keyboard.press("Escape");
  await saved(page);
  assert.equal(blockOf(await stored(id), "p_0").text, "Make this word _bold_");
  // The block shows it formatted once the caret has left.
  assert.equal(await page.locator('#page-blocks [data-block-id="p_0"] em').innerText(), "bold");

  // A link around the selection, "url" selected to type over; with no selection, `[text](url)`.
  await caretIn(page, "p_1", "end");
  await selectBack(4);
  await page.keyboard.press("Control+k");
  assert.deepEqual(await caret(page), { blockId: "p_1", offset: "Read the [docs](".length, selected: "url" });
  await page.keyboard.type("https://example.com/docs", { delay: 5 });
  await page.keyboard.press("End");
  await page.keyboard.type(" or ", { delay: 5 });
  await page.keyboard.press("Control+k");
  assert.equal((await caret(page)).selected, "url");
  await page.keyboard.press("Escape");
  await saved(page);
  assert.equal(blockOf(await stored(id), "p_1").text, "Read the [docs](https://example.com/docs) or [text](url)");
  assert.equal(await page.locator('#page-blocks [data-block-id="p_1"] a').first().getAttribute("href"), "https://example.com/docs");
  assert.deepEqual(problems, []);
});

describe("pasting several lines", () => {
  const markdown = "## Packing list\n\n- Passport\n- Charger\n- [ ] Book the taxi\n\nSee you there.\n";

  for (const [viewport, name] of [[DESKTOP, "desktop"], [PHONE, "phone"]]) {
    test(`makes blocks of them, read as Markdown, after the current block in one write (${name})`, async () => {
      const id = await freshDocument(["Trip notes", "Last line"]);
      const { page, problems } = await open(id, viewport);
      await page.evaluate((text) => navigator.clipboard.writeText(text), markdown);
      const { revision } = await stored(id);
      await caretIn(page, "p_0", "end");
      await page.keyboard.press("Control+v");
      const now = await writtenAfter(page, id, revision);
      assert.equal(now.revision, revision + 1, "one write");
      assert.deepEqual(
        now.blocks.map((b) => [b.type, b.text]),
        [
          ["paragraph", "Trip notes"],
          ["heading", "Packing list"],
          ["bulleted_list_item", "Passport"],
          ["bulleted_list_item", "Charger"],
          ["todo", "Book the taxi"],
          ["paragraph", "See you there."],
          ["paragraph", "Last line"],
        ],
      );
      assert.equal(now.blocks[1].attrs.level, 2);
      assert.equal(new Set(now.blocks.map((b) => b.blockId)).size, now.blocks.length, "every block has its own id");
      const there = await caret(page);
      assert.deepEqual([there.blockId, there.offset], [now.blocks[5].blockId, "See you there.".length], "the caret ends the paste");
      await page.keyboard.press("Escape");
      await shoot(page, `blocks-paste-${name}`);
      // One line pastes into the block as text.
      await page.evaluate(() => navigator.clipboard.writeText(" (pasted)"));
      await caretIn(page, "p_1", "end");
      await page.keyboard.press("Control+v");
      await page.keyboard.press("Escape");
      await saved(page);
      assert.equal(blockOf(await stored(id), "p_1").text, "Last line (pasted)");
      assert.deepEqual(problems, []);
    });
  }
});

describe("the / menu", () => {
  const menu = (page) => page.locator("#slash-menu");
  const shownOptions = (page) => page.locator("#slash-menu [role=option]:visible").evaluateAll((els) => els.map((e) => e.textContent));

  test("/ in an empty block opens it; typing filters, the arrows and Enter pick, in one write", async () => {
    const id = await freshDocument(["Notes"]);
    const { page, problems } = await open(id);
    await caretIn(page, "p_0", "end");
    await page.keyboard.press("Enter");
    const fresh = (await caret(page)).blockId;
    await saved(page);
    const { revision } = await stored(id);
    await page.keyboard.type("/", { delay: 10 });
    await menu(page).waitFor();
    const text = textEl(page, fresh);
    assert.equal(await text.getAttribute("role"), "combobox");
    assert.equal(await text.getAttribute("aria-expanded"), "true");
    assert.equal(await text.getAttribute("aria-controls"), "slash-menu");
    assert.equal(await menu(page).getAttribute("role"), "listbox");
    assert.equal(await text.getAttribute("aria-activedescendant"), "slash-option-paragraph", "the first option is chosen");
    await shoot(page, "blocks-slash-menu-desktop");
    await page.keyboard.type("head", { delay: 10 });
    assert.deepEqual(await shownOptions(page), ["Heading 1#", "Heading 2##", "Heading 3###"]);
    await page.keyboard.press("ArrowDown");
    assert.equal(await text.getAttribute("aria-activedescendant"), "slash-option-h2");
    assert.equal(await page.locator("#slash-option-h2").getAttribute("aria-selected"), "true");
    await page.keyboard.press("Enter");
    await menu(page).waitFor({ state: "hidden" });
    const now = await writtenAfter(page, id, revision);
    assert.equal(now.revision, revision + 1, "one write");
    assert.deepEqual([blockOf(now, fresh).type, blockOf(now, fresh).attrs.level, blockOf(now, fresh).text], ["heading", 2, ""]);
    assert.equal(now.blocks.length, 2, "Enter picked, it made no new block");
    // The caret is in the heading: typing writes its text.
    await page.keyboard.type("Agenda", { delay: 10 });
    await page.keyboard.press("Escape");
    await saved(page);
    assert.equal(blockOf(await stored(id), fresh).text, "Agenda");
    assert.equal(await text.getAttribute("role"), null, "no combobox once the menu closed");
    assert.deepEqual(problems, []);
  });

  test("Escape closes it and leaves the /; after a space it opens too, and a click picks", async () => {
    const id = await freshDocument(["Fractions like 1/2 stay text", "Quote me"]);
    const { page, problems } = await open(id);
    await caretIn(page, "p_0", "end");
    await page.keyboard.type(" and/or", { delay: 10 });
    assert.equal(await menu(page).isVisible(), false, "a / inside a word opens nothing");
    await caretIn(page, "p_1", "end");
    await page.keyboard.type(" /", { delay: 10 });
    await menu(page).waitFor();
    await page.keyboard.press("Escape");
    await menu(page).waitFor({ state: "hidden" });
    assert.equal(await textEl(page, "p_1").innerText(), "Quote me /");
    assert.equal((await caret(page)).blockId, "p_1", "the caret is still in the block");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("/quo", { delay: 10 });
    await menu(page).waitFor();
    assert.deepEqual(await shownOptions(page), ["Quote>"]);
    await page.click("#slash-option-quote");
    await menu(page).waitFor({ state: "hidden" });
    await saved(page);
    const now = await stored(id);
    assert.deepEqual([blockOf(now, "p_1").type, blockOf(now, "p_1").text], ["quote", "Quote me "]);
    assert.equal(blockOf(now, "p_0").text, "Fractions like 1/2 stay text and/or");
    assert.deepEqual(problems, []);
  });

  test("on a phone it fits the screen, each option is a 44 px target, and a tap picks", async () => {
    const id = await freshDocument(["Groceries", ""]);
    const { page, problems } = await open(id, PHONE);
    await textEl(page, "p_1").tap();
    await page.keyboard.type("/", { delay: 10 });
    await menu(page).waitFor();
    const box = await menu(page).boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `inside the screen: ${JSON.stringify(box)}`);
    for (const option of await page.locator("#slash-menu [role=option]").all()) {
      const { height } = await option.boundingBox();
      assert.ok(height >= 44, `a 44 px target: ${height}`);
    }
    await shoot(page, "blocks-slash-menu-phone");
    await page.locator("#slash-option-todo").tap();
    await menu(page).waitFor({ state: "hidden" });
    await page.keyboard.type("Eggs", { delay: 10 });
    await page.keyboard.press("Escape");
    await saved(page);
    const block = blockOf(await stored(id), "p_1");
    assert.deepEqual([block.type, block.text, block.attrs.checked], ["todo", "Eggs", false]);
    assert.deepEqual(problems, []);
  });
});

describe("undo and redo", () => {
  const aiCommand = async (documentId, prompt) => {
    const res = await send("POST", "/api/page-ai/command", { documentId, prompt, scope: { type: "full" } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.outcome, "applied", JSON.stringify(res.body));
  };
  const texts = async (id) => (await stored(id)).blocks.map((b) => [b.type, b.text]);

  test("Ctrl+Z undoes typing, Enter's new block and a shortcut, step by step; Ctrl+Shift+Z and Ctrl+Y redo", async () => {
    const id = await freshDocument(["First", "Second"]);
    const { page, problems } = await open(id);
    await caretIn(page, "p_0", "end");
    await page.keyboard.type(" line", { delay: 10 });
    await page.keyboard.press("Enter");
    await page.keyboard.type("- item", { delay: 10 });
    await saved(page);
    assert.deepEqual(await texts(id), [["paragraph", "First line"], ["bulleted_list_item", "item"], ["paragraph", "Second"]]);

    await page.keyboard.press("Control+z"); // the typing of "item"
    await saved(page);
    assert.deepEqual(await texts(id), [["paragraph", "First line"], ["bulleted_list_item", ""], ["paragraph", "Second"]]);
    await page.keyboard.press("Control+z"); // the shortcut: back to a paragraph with its "- "
    await saved(page);
    assert.deepEqual(await texts(id), [["paragraph", "First line"], ["paragraph", "- "], ["paragraph", "Second"]]);
    await page.keyboard.press("Control+z"); // "- "
    await page.keyboard.press("Control+z"); // Enter's new block
    await saved(page);
    assert.deepEqual(await texts(id), [["paragraph", "First line"], ["paragraph", "Second"]]);
    assert.deepEqual(await caret(page), { blockId: "p_0", offset: "First line".length, selected: "" });
    await page.keyboard.press("Control+z"); // " line"
    await saved(page);
    assert.deepEqual(await texts(id), [["paragraph", "First"], ["paragraph", "Second"]]);
    assert.deepEqual(await caret(page), { blockId: "p_0", offset: "First".length, selected: "" });

    await page.keyboard.press("Control+Shift+z");
    await page.keyboard.press("Control+y");
    await saved(page);
    assert.deepEqual((await texts(id)).map(([, t]) => t), ["First line", "", "Second"]);
    // Typing after an undo starts over: there is nothing left to redo.
    await page.keyboard.type("New", { delay: 10 });
    await page.keyboard.press("Control+y");
    await page.keyboard.press("Escape");
    await saved(page);
    assert.deepEqual((await texts(id)).map(([, t]) => t), ["First line", "New", "Second"]);
    assert.deepEqual(problems, []);
  });

  test("undo never touches what someone else wrote, and skips with a message a block they changed since", async () => {
    const id = await freshDocument(["Mine to write", "Stay hungry", "Shared paragraph"]);
    const { page, problems } = await open(id);
    await caretIn(page, "p_0", "end");
    await page.keyboard.type(" (mine)", { delay: 10 });
    await saved(page);
    // The assistant writes another block; the person's undo takes back only their own typing.
    await aiCommand(id, 'replace "Stay hungry" with "Stay curious"');
    await page.waitForFunction(() => document.querySelector('[data-block-id="p_1"] .block-text').innerText === "Stay curious");
    await page.keyboard.press("Control+z");
    await saved(page);
    assert.deepEqual((await texts(id)).map(([, t]) => t), ["Mine to write", "Stay curious", "Shared paragraph"]);

    // The person edits a block, the assistant rewrites the same block: undo would overwrite it, so it is skipped.
    await caretIn(page, "p_2", "end");
    await page.keyboard.type(" (edited)", { delay: 10 });
    await page.keyboard.press("Escape");
    await saved(page);
    await aiCommand(id, 'replace "Shared paragraph (edited)" with "Rewritten by the assistant"');
    await page.waitForFunction(() => document.querySelector('[data-block-id="p_2"] .block-text').innerText === "Rewritten by the assistant");
    const { revision } = await stored(id);
    await caretIn(page, "p_2", "end");
    await page.keyboard.press("Control+z");
    await page.waitForSelector("#edit-note:not(:empty)");
    assert.match(await page.locator("#edit-note").innerText(), /Undo skipped: someone else changed this block since/);
    assert.equal(await page.locator("#edit-note").getAttribute("role"), "status");
    await saved(page);
    const now = await stored(id);
    assert.equal(now.revision, revision, "nothing was written");
    assert.equal(blockOf(now, "p_2").text, "Rewritten by the assistant");
    assert.deepEqual(problems, []);
  });
});

describe("several blocks at once", () => {
  const order = async (id) => (await stored(id)).blocks.map((b) => b.blockId);
  const picked = (page) => page.locator("#page-blocks > .block.is-selected").evaluateAll((els) => els.map((e) => e.dataset.blockId));

  test("Shift+arrows select blocks; copy takes their text without labels; Alt+arrow moves, Ctrl+Alt+2 retypes, Backspace deletes, each one write", async () => {
    const id = await freshDocument(["One", "Two", "Three", "Four", "Five"]);
    const { page, problems } = await open(id);
    await caretIn(page, "p_1", "end");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    assert.deepEqual(await picked(page), ["p_1", "p_2", "p_3"]);
    assert.equal(await page.locator("#page-blocks").getAttribute("aria-label"), "3 blocks selected");
    await page.keyboard.press("Control+c");
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "Two\nThree\nFour", "their text, no hover labels");

    let { revision } = await stored(id);
    await page.keyboard.press("Alt+ArrowUp");
    let now = await writtenAfter(page, id, revision);
    assert.equal(now.revision, revision + 1, "a move is one write");
    assert.deepEqual(await order(id), ["p_1", "p_2", "p_3", "p_0", "p_4"]);
    assert.deepEqual(await picked(page), ["p_1", "p_2", "p_3"], "still selected");

    ({ revision } = now);
    await page.keyboard.press("Control+Alt+Digit2");
    now = await writtenAfter(page, id, revision);
    assert.equal(now.revision, revision + 1, "a new type is one write");
    assert.deepEqual(now.blocks.map((b) => [b.type, b.attrs?.level ?? null]).slice(0, 4), [["heading", 2], ["heading", 2], ["heading", 2], ["paragraph", null]]);
    await shoot(page, "blocks-selection-desktop");

    ({ revision } = now);
    await page.keyboard.press("Backspace");
    now = await writtenAfter(page, id, revision);
    assert.equal(now.revision, revision + 1, "a deletion of three blocks is one write");
    assert.deepEqual(await order(id), ["p_0", "p_4"]);
    assert.equal((await caret(page)).blockId, "p_0", "the caret goes to the block before");
    // One undo step brings the three back where they were.
    await page.keyboard.press("Control+z");
    await saved(page);
    assert.deepEqual(await order(id), ["p_1", "p_2", "p_3", "p_0", "p_4"]);
    assert.deepEqual((await stored(id)).blocks.map((b) => b.text), ["Two", "Three", "Four", "One", "Five"]);
    assert.deepEqual(problems, []);
  });

  test("Shift+click selects from the block with the caret to the clicked one; Escape goes back to typing", async () => {
    const id = await freshDocument(["One", "Two", "Three", "Four"]);
    const { page, problems } = await open(id);
    await caretIn(page, "p_0", "end");
    await textEl(page, "p_2").click({ modifiers: ["Shift"] });
    assert.deepEqual(await picked(page), ["p_0", "p_1", "p_2"]);
    await page.keyboard.press("Shift+ArrowUp");
    assert.deepEqual(await picked(page), ["p_0", "p_1"]);
    await page.keyboard.press("Escape");
    assert.deepEqual(await picked(page), []);
    assert.equal((await caret(page)).blockId, "p_1", "the caret is back in the last selected block");
    await page.keyboard.type(" more", { delay: 5 });
    await page.keyboard.press("Escape");
    await saved(page);
    assert.equal(blockOf(await stored(id), "p_1").text, "Two more");
    assert.deepEqual(problems, []);
  });
});

test("a block dragged by its handle lands where the line shows, in one write; Escape puts it back", async () => {
  const id = await freshDocument(["One", "Two", "Three", "Four"]);
  const { page, problems } = await open(id);
  const handle = page.locator('#page-blocks [data-block-id="p_0"] .block-handle');
  const drag = async (toBlockId, { cancel = false } = {}) => {
    await page.locator('#page-blocks [data-block-id="p_0"]').hover();
    const from = await handle.boundingBox();
    const to = await page.locator(`#page-blocks [data-block-id="${toBlockId}"]`).boundingBox();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, to.y + to.height - 3, { steps: 8 });
    if (cancel) await page.keyboard.press("Escape");
    else assert.equal(await page.locator("#page-blocks .drop-before, #page-blocks .drop-after").count(), 1, "a line shows where it lands");
    await page.mouse.up();
  };
  const { revision } = await stored(id);
  await drag("p_2", { cancel: true });
  assert.equal(await page.locator("#page-blocks .is-dragged").count(), 0);
  await drag("p_2");
  const now = await writtenAfter(page, id, revision);
  assert.equal(now.revision, revision + 1, "one write (the cancelled drag wrote nothing)");
  assert.deepEqual(now.blocks.map((b) => b.blockId), ["p_1", "p_2", "p_0", "p_3"]);
  assert.deepEqual(await page.locator("#page-blocks > .block").evaluateAll((els) => els.map((e) => e.dataset.blockId)), ["p_1", "p_2", "p_0", "p_3"]);
  // The handles are not read out; a copy of the page's text leaves them and the hover labels out.
  assert.equal(await handle.getAttribute("aria-hidden"), "true");
  await page.evaluate(() => {
    const range = document.createRange();
    range.selectNodeContents(document.querySelector("#page-blocks"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    document.execCommand("copy");
  });
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(copied, /Two[\s\S]*Three[\s\S]*One[\s\S]*Four/);
  assert.doesNotMatch(copied, /Paragraph|p_0|Drag/, `no labels: ${JSON.stringify(copied)}`);
  assert.deepEqual(problems, []);
});

test("when someone else turns the block with the caret into another type, it is drawn anew and the caret stays", async () => {
  const id = await freshDocument(["Intro", "Second paragraph", "Third"]);
  const { page, problems } = await open(id);
  await caretIn(page, "p_1", "end");
  await page.keyboard.type(" edited", { delay: 10 });
  await saved(page);
  const res = await send("POST", "/api/page-ai/command", { documentId: id, prompt: "turn the second paragraph into a quote", scope: { type: "full" } });
  assert.equal(res.body.outcome, "applied", JSON.stringify(res.body));
  await page.waitForSelector('#page-blocks [data-block-id="p_1"] blockquote.block-text');
  assert.deepEqual(await caret(page), { blockId: "p_1", offset: "Second paragraph edited".length, selected: "" });
  await page.keyboard.type("!", { delay: 10 });
  await page.keyboard.press("Escape");
  await saved(page);
  const block = blockOf(await stored(id), "p_1");
  assert.deepEqual([block.type, block.text], ["quote", "Second paragraph edited!"]);
  assert.deepEqual(problems, []);
});
