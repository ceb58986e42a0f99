// The web demo as a block editor, in headless Chromium: a person clicks into a block and types, and the
// edit is saved (`PATCH …/blocks`) with the block's revisionRef; Enter splits a block, Backspace joins or
// deletes; a locked block refuses and says so; types stay what they were; an AI write to another block
// while the person types lands beside the person's edit, and one to the same block shows the conflict view
// whose two choices do what they say (also between two tabs); the keyboard alone gets around; the command
// box previews the page as edited. Screenshots of editing and of the conflict view at both widths (and of
// a locked block's answer) go to tests/artifacts/screens/.
//
//   node --test tests/e2e/browser_editing.test.mjs
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { DESKTOP, PHONE } from "./lib/browser.mjs";
import { command, shoot, startDemo } from "./lib/demo.mjs";

let demo;
let seq = 0;

before(
  async () => {
    // AI commands apply at once (the review modes have their own suite).
    demo = await startDemo({ profile: { tools: { disabled: [] }, reviewMode: "yolo" } });
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

const send = (method, path, body) => demo.send(method, path, body);

/** A fresh document with one block of each kind the editor keeps, one of them locked. */
async function freshDocument() {
  const id = `edit_${process.pid}_${++seq}`;
  const blocks = [
    { blockId: "h_title", type: "heading", text: "Launch plan", attrs: { level: 1 } },
    { blockId: "p_one", type: "paragraph", text: "First paragraph" },
    { blockId: "p_two", type: "paragraph", text: "Second paragraph" },
    { blockId: "t_venue", type: "todo", text: "Book the venue", attrs: { checked: false } },
    { blockId: "p_legal", type: "paragraph", text: "Signed off by legal", editable: false },
    { blockId: "q_motto", type: "quote", text: "Stay hungry" },
    { blockId: "l_first", type: "bulleted_list_item", text: "First item" },
  ];
  const res = await send("PUT", `/api/documents/${id}`, { title: "Launch plan", blocks });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return id;
}

/** A direct command through the API, as another client (the assistant) sends it; it must apply. */
async function aiCommand(documentId, prompt) {
  const res = await send("POST", "/api/page-ai/command", { documentId, prompt, scope: { type: "full" } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.outcome, "applied", JSON.stringify(res.body));
  return res.body;
}

const stored = (documentId) => demo.storedPage(documentId);
const blockOf = (page, blockId) => page.blocks.find((b) => b.blockId === blockId);
const textEl = (page, blockId) => page.locator(`#page-blocks [data-block-id="${blockId}"] .block-text`);
const ids = (page) => page.locator("#page-blocks > .block").evaluateAll((els) => els.map((e) => e.dataset.blockId));
async function saved(page) {
  try {
    await page.waitForSelector("#save-status[data-state=saved]", { timeout: 60_000 });
  } catch (error) {
    throw new Error(`not saved: ${await page.locator("#save-status").evaluate((el) => el.outerHTML)}`, { cause: error });
  }
}
/** The id of the block the caret is in, and the caret's offset in its text. */
const caret = (page) =>
  page.evaluate(() => {
    const el = document.activeElement.closest("[data-block-id]");
    const range = getSelection().getRangeAt(0);
    const before = document.createRange();
    before.selectNodeContents(document.activeElement);
    before.setEnd(range.startContainer, range.startOffset);
    return { blockId: el?.dataset.blockId, offset: before.toString().length };
  });

/** The problems a tab saw, but the save the server refused with a conflict (HTTP 409, and its console line). */
const refused = (problems) => problems.filter((p) => !/HTTP 409: .*\/blocks$/.test(p) && !/status of 409 \(Conflict\)/.test(p));

/**
 * Types `text` at the end of a block while `write` (another client's write of the same block) lands first:
 * the page hears it on its live channel while the person's text is not saved yet, and the tab's save
 * waits until the write is done, so the two meet as a conflict however fast the save would be.
 */
async function typeWhile(page, blockId, text, write) {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route("**/api/documents/*/blocks", async (route) => {
    await held;
    await route.continue();
  });
  try {
    await clickToEnd(page, blockId);
    await page.keyboard.type(text, { delay: 10 });
    await write();
  } finally {
    release();
  }
}

/** Clicks into a block's text and puts the caret at its end. */
async function clickToEnd(page, blockId) {
  await textEl(page, blockId).click();
  await page.keyboard.press("End");
}

async function openDoc(documentId, viewport = DESKTOP) {
  const tab = await demo.open(viewport, `/?doc=${documentId}`);
  assert.equal(await tab.page.locator("body").getAttribute("data-state"), "ready");
  return tab;
}

describe("typing in blocks", () => {
  test("typing into a block saves it: the stored page and a reload show the text", async () => {
    const id = await freshDocument();
    const { page, problems } = await openDoc(id);
    await clickToEnd(page, "p_one");
    await page.keyboard.type(" and a second thought", { delay: 10 });
    await page.waitForSelector("#save-status[data-state=unsaved], #save-status[data-state=saving]");
    await saved(page);
    const after = await stored(id);
    assert.equal(blockOf(after, "p_one").text, "First paragraph and a second thought");
    const edit = (await send("GET", `/api/documents/${id}/audit`)).body.entries.at(-1);
    assert.equal(edit.actor, "user", "saved as the person's edit");
    await shoot(page, "editing-typing-desktop");

    await page.reload();
    await page.waitForSelector("body[data-state=ready]");
    assert.equal(await textEl(page, "p_one").innerText(), "First paragraph and a second thought");
    assert.deepEqual(problems, []);
  });

  test("Enter makes a new paragraph after the block (splitting at the caret), Backspace on an empty one removes it", async () => {
    const id = await freshDocument();
    const { page, problems } = await openDoc(id);
    const count = (await stored(id)).blocks.length;

    // At the end: a new empty paragraph, with the caret in it.
    await clickToEnd(page, "p_two");
    await page.keyboard.press("Enter");
    const fresh = await caret(page);
    assert.notEqual(fresh.blockId, "p_two");
    assert.equal(fresh.offset, 0);
    await page.keyboard.type("Third paragraph", { delay: 10 });
    await saved(page);
    let now = await stored(id);
    const at = now.blocks.findIndex((b) => b.blockId === "p_two");
    assert.deepEqual(
      [now.blocks[at + 1].blockId, now.blocks[at + 1].type, now.blocks[at + 1].text],
      [fresh.blockId, "paragraph", "Third paragraph"],
    );

    // Mid-text: the text after the caret moves to the new block, the caret to its start.
    await clickToEnd(page, "p_one");
    for (let i = 0; i < " paragraph".length; i++) await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("Enter");
    const split = await caret(page);
    assert.equal(split.offset, 0);
    await saved(page);
    now = await stored(id);
    const one = now.blocks.findIndex((b) => b.blockId === "p_one");
    assert.equal(now.blocks[one].text, "First");
    assert.deepEqual([now.blocks[one + 1].blockId, now.blocks[one + 1].text], [split.blockId, " paragraph"]);

    // Backspace at the start of a non-empty block joins it to the one before, the caret at the seam.
    await page.keyboard.press("Backspace");
    assert.deepEqual(await caret(page), { blockId: "p_one", offset: "First".length });
    await saved(page);
    assert.equal(blockOf(await stored(id), "p_one").text, "First paragraph");

    // An empty block and Backspace: it goes, the caret ends the block before.
    await clickToEnd(page, fresh.blockId);
    await page.keyboard.press("Enter");
    const empty = (await caret(page)).blockId;
    await saved(page);
    assert.ok(blockOf(await stored(id), empty), "the empty block was saved");
    await page.keyboard.press("Backspace");
    assert.deepEqual(await caret(page), { blockId: fresh.blockId, offset: "Third paragraph".length });
    await saved(page);
    now = await stored(id);
    assert.equal(blockOf(now, empty), undefined, "the empty block is gone");
    assert.equal(now.blocks.length, count + 1);
    assert.ok(!(await ids(page)).includes(empty));
    assert.deepEqual(problems, []);
  });

  test("a locked block refuses edits and says so", async () => {
    const id = await freshDocument();
    const { page, problems } = await openDoc(id);
    const { revision } = await stored(id);
    const locked = page.locator('#page-blocks [data-block-id="p_legal"]');
    assert.equal(await locked.locator(".block-text").getAttribute("contenteditable"), null);
    await locked.click();
    await page.keyboard.type("changed");
    await page.keyboard.press("Backspace");
    assert.equal(await locked.locator(".lock-note").innerText(), "This block is locked, so it can't be edited here.");
    await shoot(page, "editing-locked-desktop");
    assert.equal(await locked.locator(".block-text").innerText(), "Signed off by legal");
    const now = await stored(id);
    assert.equal(blockOf(now, "p_legal").text, "Signed off by legal");
    assert.equal(now.revision, revision, "nothing was written");
    // The keyboard reaches it too, and hears the same.
    assert.equal(await locked.getAttribute("tabindex"), "0");
    assert.match(await locked.getAttribute("aria-label"), /locked: it can't be edited/);
    assert.deepEqual(problems, []);
  });

  test("headings, to-dos, quotes and lists keep their type while their text changes; a to-do's box checks it", async () => {
    const id = await freshDocument();
    const { page, problems } = await openDoc(id);
    for (const [blockId, more] of [["h_title", " v2"], ["t_venue", " in March"], ["q_motto", ", stay foolish"], ["l_first", " on the list"]]) {
      await clickToEnd(page, blockId);
      await page.keyboard.type(more, { delay: 5 });
    }
    await page.keyboard.press("Escape");
    await saved(page);
    await page.click('#page-blocks [data-block-id="t_venue"] button.checkbox');
    await saved(page);
    const now = await stored(id);
    assert.deepEqual(
      ["h_title", "t_venue", "q_motto", "l_first"].map((b) => [blockOf(now, b).type, blockOf(now, b).text]),
      [
        ["heading", "Launch plan v2"],
        ["todo", "Book the venue in March"],
        ["quote", "Stay hungry, stay foolish"],
        ["bulleted_list_item", "First item on the list"],
      ],
    );
    assert.equal(blockOf(now, "h_title").attrs.level, 1);
    assert.equal(blockOf(now, "t_venue").attrs.checked, true);
    assert.equal(await page.locator('#page-blocks [data-block-id="t_venue"] button.checkbox').getAttribute("aria-checked"), "true");
    // Enter in a list item goes on with the list.
    await clickToEnd(page, "l_first");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Second item", { delay: 5 });
    await saved(page);
    const item = (await stored(id)).blocks.find((b) => b.text === "Second item");
    assert.equal(item?.type, "bulleted_list_item");
    assert.deepEqual(problems, []);
  });
});

describe("editing while the assistant writes", () => {
  test("an AI write to another block while the person types: both land, no conflict", async () => {
    const id = await freshDocument();
    const { page, problems } = await openDoc(id);
    await clickToEnd(page, "p_one");
    await page.keyboard.type(" by a person", { delay: 10 });
    // The assistant writes the quote while the person is still in p_one (the tab hears it live).
    await aiCommand(id, 'replace "Stay hungry" with "Stay curious"');
    await page.keyboard.type(", still typing", { delay: 10 });
    await page.keyboard.press("Escape");
    await saved(page);
    const now = await stored(id);
    assert.equal(blockOf(now, "p_one").text, "First paragraph by a person, still typing");
    assert.equal(blockOf(now, "q_motto").text, "Stay curious");
    assert.equal(await page.locator("#page-blocks .conflict").count(), 0, "no conflict");
    // The person's save landed on the assistant's revision, and the page now shows both.
    await page.waitForFunction(() => document.querySelector('[data-block-id="q_motto"] .block-text').innerText === "Stay curious");
    assert.equal(await page.locator("#doc-revision").innerText(), `Revision ${now.revision}`);
    assert.deepEqual(problems, []);
  });

  test("an AI write to the same block shows the conflict view; Keep mine saves the person's version", async () => {
    const id = await freshDocument();
    const { page, problems } = await openDoc(id);
    await typeWhile(page, "p_two", " (mine)", () => aiCommand(id, 'replace "Second paragraph" with "Second paragraph, by the assistant"'));
    const card = page.locator('#page-blocks [data-block-id="p_two"] .conflict');
    await card.waitFor();
    assert.equal(await card.locator(".conflict-title").innerText(), "This block was changed while you were editing it.");
    assert.equal(await card.locator(".conflict-theirs .conflict-text").innerText(), "Second paragraph, by the assistant");
    assert.equal(await card.locator(".conflict-yours .conflict-text").innerText(), "Second paragraph (mine)");
    assert.equal(await page.locator("#save-status").getAttribute("data-state"), "conflict");
    assert.equal(blockOf(await stored(id), "p_two").text, "Second paragraph, by the assistant", "nothing overwritten unseen");
    await shoot(page, "editing-conflict-desktop");

    await card.locator("button[data-choice=mine]").click();
    await saved(page);
    assert.equal(blockOf(await stored(id), "p_two").text, "Second paragraph (mine)");
    assert.equal(await page.locator("#page-blocks .conflict").count(), 0);
    assert.equal(await textEl(page, "p_two").innerText(), "Second paragraph (mine)");
    // The only failed request is the save the server refused.
    assert.deepEqual(refused(problems), []);
  });

  test("Take theirs drops the person's version and shows the assistant's", async () => {
    const id = await freshDocument();
    const { page, problems } = await openDoc(id);
    await typeWhile(page, "p_two", " (mine)", () => aiCommand(id, 'replace "Second paragraph" with "Second paragraph, by the assistant"'));
    const card = page.locator('#page-blocks [data-block-id="p_two"] .conflict');
    await card.waitFor();
    // The keyboard is on the choice now.
    assert.ok(await card.evaluate((el) => el.contains(document.activeElement)));
    const revision = (await stored(id)).revision;
    await card.locator("button[data-choice=theirs]").click();
    await saved(page);
    assert.equal(await page.locator("#page-blocks .conflict").count(), 0);
    assert.equal(await textEl(page, "p_two").innerText(), "Second paragraph, by the assistant");
    const now = await stored(id);
    assert.equal(now.revision, revision, "Take theirs writes nothing");
    assert.equal(blockOf(now, "p_two").text, "Second paragraph, by the assistant");
    assert.deepEqual(refused(problems), []);
  });
});

test("the same block edited in two tabs: the second sees the conflict view, and nothing is lost", async () => {
  const id = await freshDocument();
  const first = await openDoc(id);
  const second = await openDoc(id);
  // The second tab types into the block while the first one's save of it lands.
  await typeWhile(second.page, "p_two", " (second tab)", async () => {
    await clickToEnd(first.page, "p_two");
    await first.page.keyboard.type(" (first tab)", { delay: 10 });
    await first.page.keyboard.press("Escape");
    await saved(first.page);
  });
  const card = second.page.locator('#page-blocks [data-block-id="p_two"] .conflict');
  await card.waitFor();
  assert.equal(await card.locator(".conflict-theirs .conflict-text").innerText(), "Second paragraph (first tab)");
  assert.equal(await card.locator(".conflict-yours .conflict-text").innerText(), "Second paragraph (second tab)");
  assert.equal(blockOf(await stored(id), "p_two").text, "Second paragraph (first tab)");
  await card.locator("button[data-choice=mine]").click();
  await saved(second.page);
  assert.equal(blockOf(await stored(id), "p_two").text, "Second paragraph (second tab)");
  assert.deepEqual(first.problems, []);
  assert.deepEqual(refused(second.problems), []);
});

test("the keyboard alone: arrows move between blocks, Tab reaches a to-do's box and Space checks it", async () => {
  const id = await freshDocument();
  const { page, problems } = await openDoc(id);
  await clickToEnd(page, "h_title");
  await page.keyboard.press("ArrowDown");
  assert.deepEqual(await caret(page), { blockId: "p_one", offset: 0 });
  await page.keyboard.press("ArrowUp");
  assert.equal((await caret(page)).blockId, "h_title");
  await clickToEnd(page, "p_two");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.matches('[data-block-id="t_venue"] button.checkbox')), true);
  await page.keyboard.press("Space");
  await saved(page);
  assert.equal(blockOf(await stored(id), "t_venue").attrs.checked, true);
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-checked")), "true", "the box keeps the keyboard");
  assert.deepEqual(problems, []);
});

test("the command box previews the page as edited", async () => {
  const id = await freshDocument();
  const { page, problems } = await openDoc(id);
  await clickToEnd(page, "p_one");
  await page.keyboard.type(" with a fresh idea", { delay: 10 });
  await command(page, 'replace "fresh idea" with "better idea"', "direct");
  await saved(page);
  const diff = page.locator('#page-blocks [data-block-id="p_one"] .inline-diff');
  await diff.waitFor();
  assert.equal(await diff.locator("del").innerText(), "fresh");
  assert.equal(await diff.locator("ins").innerText(), "better");
  assert.deepEqual(problems, []);
});

test("on a phone: editing, and the conflict view, fit the screen", async () => {
  const id = await freshDocument();
  const { page, problems } = await openDoc(id, PHONE);
  await clickToEnd(page, "p_one");
  await page.keyboard.type(" typed on a phone", { delay: 10 });
  await saved(page);
  assert.equal(blockOf(await stored(id), "p_one").text, "First paragraph typed on a phone");
  await shoot(page, "editing-typing-phone");

  await typeWhile(page, "p_two", " (mine)", () => aiCommand(id, 'replace "Second paragraph" with "Second paragraph, by the assistant"'));
  const card = page.locator('#page-blocks [data-block-id="p_two"] .conflict');
  await card.waitFor();
  await card.scrollIntoViewIfNeeded();
  const box = await card.boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `the conflict view fits: ${JSON.stringify(box)}`);
  for (const choice of ["mine", "theirs"]) {
    const button = await card.locator(`button[data-choice=${choice}]`).boundingBox();
    assert.ok(button.height >= 32 && button.x + button.width <= PHONE.width, `${choice} is easy to tap`);
  }
  await shoot(page, "editing-conflict-phone");
  assert.deepEqual(refused(problems), []);
});
