// Browser: people suggest in the page (issue 33 items 2 and 4), in headless Chromium, typed as a person
// types. With the editor's "Suggesting" switch on, an editor's typing, Enter's new block and a deletion
// become their suggestions (POST …/suggestions), never writes: the page's revision and text stay. Every
// pending suggestion shows inline where it applies (deletions struck, insertions marked, word by word in
// English and character by character in Chinese, as core's segments say), with its author, its reason and
// buttons at the change itself; a second tab sees it arrive and go live; an owner accepts one and rejects
// another inline, and accepts all / rejects all of one author; a viewer's switch is on and locked, and they
// may withdraw their own suggestion but accept none. Screenshots at desktop and phone widths go to
// tests/artifacts/screens/suggestions-*.png.
//
//   node --test --test-concurrency=1 --experimental-websocket tests/e2e/browser_suggestions.test.mjs

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { DESKTOP, PHONE, newTab } from "./lib/browser.mjs";
import { shoot, startDemo } from "./lib/demo.mjs";
import { claims, jwkSet, jwtVars, makeKeys, sign } from "./lib/identity.mjs";
import { fresh } from "./lib/mnote.mjs";

const keys = makeKeys();
const jwt = (sub, role) => sign(keys.es, claims({ sub, workspaces: { ws_s: role } }));
const TOKENS = { owner: jwt("user_ana", "owner"), editor: jwt("user_eve", "editor"), viewer: jwt("user_vic", "viewer") };

let demo;

before(
  async () => {
    demo = await startDemo({ vars: { ...jwtVars(jwkSet(keys)), MNOTE_DEV_AUTO_LOGIN: "false", MNOTE_SIGN_IN_FREE_FAILURES: "10000" } });
  },
  { timeout: 600_000 },
);

after(async () => {
  await demo?.stop();
});

/** `method path` as the person holding `role` in ws_s: `{status, body}`. */
async function as(role, method, path, body) {
  const res = await fetch(`${demo.worker.url}${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKENS[role]}`, origin: demo.worker.url },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A fresh page in ws_s, made by its owner. */
async function makePage(blocks) {
  const doc = fresh("suggest").replaceAll(".", "_");
  const full = blocks.map((text, i) => ({ blockId: `p_${i + 1}`, type: "paragraph", text }));
  const made = await as("owner", "PUT", `/api/documents/${doc}`, { workspaceId: "ws_s", title: "Suggestions", blocks: full });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  return { doc, revision: made.body.revision };
}

const stored = async (doc) => (await as("owner", "GET", `/api/documents/${doc}`)).body;
/** What went wrong in a tab, less the dev sign-in every page tries first (off here: people sign in with tokens). */
const problems = (tab) => tab.problems.filter((p) => !/dev-login|status of 401/.test(p));
const pending = async (doc) => (await as("owner", "GET", `/api/documents/${doc}/suggestions`)).body.suggestions;

/** A tab signed in as `role`, on the page, once the demo is ready. */
async function openAs(role, doc, viewport = DESKTOP) {
  const tab = await newTab(demo.browser, { viewport });
  const url = demo.worker.url;
  const signedIn = await tab.page.context().request.post(`${url}/api/auth/session`, { headers: { authorization: `Bearer ${TOKENS[role]}`, origin: url } });
  assert.equal(signedIn.status(), 200, await signedIn.text());
  await tab.page.goto(`${url}/?doc=${doc}`);
  await tab.page.waitForSelector("body[data-state=ready], body[data-state=error]", { timeout: 30_000 });
  assert.equal(await tab.page.getAttribute("body", "data-state"), "ready");
  return tab;
}

const block = (page, id) => page.locator(`#page-blocks [data-block-id="${id}"]`);
const textOf = (page, id) => block(page, id).locator(".block-text");

/** Turns the switch on (it says so), in a tab of someone who may write. */
async function suggesting(page) {
  const toggle = page.locator("#suggest-toggle");
  if ((await toggle.getAttribute("aria-pressed")) !== "true") await toggle.click();
  await page.waitForSelector("#suggest-toggle[aria-pressed=true]");
}

/** Selects `word` in the block's text (its first occurrence) and types `text` over it, as a person does. */
async function typeOver(page, id, word, text) {
  await textOf(page, id).click();
  await page.waitForFunction((id) => document.activeElement?.closest("[data-block-id]")?.dataset.blockId === id && document.activeElement.dataset.raw !== undefined, id);
  await page.evaluate(
    ({ id, word }) => {
      const el = document.querySelector(`#page-blocks [data-block-id="${id}"] .block-text`);
      const node = el.firstChild;
      const at = node.data.indexOf(word);
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + word.length);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
    },
    { id, word },
  );
  await page.keyboard.type(text);
}

/** Leaves the block (Escape) and waits until this tab's edits are suggested. */
async function leave(page) {
  await page.keyboard.press("Escape");
  await page.waitForSelector("#save-status[data-state=suggested]", { timeout: 8000 }).catch(async (e) => {
    console.log("STATUS", await page.locator("#save-status").evaluate((el) => el.outerHTML));
    throw e;
  });
}

/** The marks drawn in a block: `[tag, text]` per run, `tag` being ins, del or text. */
const marks = (page, id) =>
  textOf(page, id).evaluate((el) =>
    [...el.childNodes].map((n) => [n.nodeType === 3 ? "text" : n.localName, n.textContent]).filter(([, t]) => t !== ""),
  );

describe("suggesting in the page", { timeout: 600_000 }, () => {
  test("with the switch on, typing is a suggestion, not a write; both tabs show it inline; an owner accepts one and rejects another", async () => {
    const { doc, revision } = await makePage(["Ship the draft on Friday.", "第一版计划", "Keep this line."]);
    const editor = await openAs("editor", doc);
    const owner = await openAs("owner", doc);
    const { page } = editor;
    assert.equal(await page.getAttribute("#suggest-toggle", "aria-pressed"), "false", "off until turned on");
    await suggesting(page);

    await page.locator("#suggest-reason").fill("the plan is final");
    await typeOver(page, "p_1", "draft", "final plan");
    await leave(page);
    const now = await stored(doc);
    assert.equal(now.revision, revision, "a suggestion writes nothing");
    assert.equal(now.blocks[0].text, "Ship the draft on Friday.");
    const [first] = await pending(doc);
    assert.deepEqual([first.blockId, first.author, first.state], ["p_1", { kind: "person", actor: "user_eve" }, "pending"]);

    // The editor's own tab marks it, word by word, with its author.
    await page.waitForSelector('#page-blocks [data-block-id="p_1"] .suggestion-ins');
    assert.deepEqual(await marks(page, "p_1"), [["text", "Ship the "], ["del", "draft"], ["ins", "final plan"], ["text", " on Friday."]]);
    assert.equal(await block(page, "p_1").locator(".suggestion-author").innerText(), "You");

    // The second tab (the owner's) hears it live and shows the same marks and who made it.
    const o = owner.page;
    await o.waitForSelector('#page-blocks [data-block-id="p_1"] .suggestion-bar');
    assert.deepEqual(await marks(o, "p_1"), [["text", "Ship the "], ["del", "draft"], ["ins", "final plan"], ["text", " on Friday."]]);
    assert.equal(await block(o, "p_1").locator(".suggestion-author").innerText(), "user_eve");
    assert.match(await block(o, "p_1").locator(".suggestion-reason").innerText(), /the plan is final/);

    // A second suggestion, in Chinese: marked character by character.
    await typeOver(page, "p_2", "一", "二");
    await leave(page);
    await o.waitForSelector('#page-blocks [data-block-id="p_2"] .suggestion-ins');
    assert.deepEqual(await marks(o, "p_2"), [["text", "第"], ["del", "一"], ["ins", "二"], ["text", "版计划"]]);
    await shoot(o, "suggestions-inline-desktop");

    // The owner accepts the first at the change itself: written; rejects the second: nothing written.
    await o.getByRole("button", { name: /^Accept user_eve's suggestion on “Ship the draft on Friday\.”/ }).click();
    await o.waitForFunction(() => !document.querySelector('#page-blocks [data-block-id="p_1"] .suggestion-bar'));
    const accepted = await stored(doc);
    assert.deepEqual([accepted.revision, accepted.blocks[0].text], [revision + 1, "Ship the final plan on Friday."]);
    await o.getByRole("button", { name: /^Reject user_eve's suggestion on “第一版计划”/ }).click();
    await o.waitForFunction(() => !document.querySelector("#page-blocks .suggestion-bar"));
    const rejected = await stored(doc);
    assert.deepEqual([rejected.revision, rejected.blocks[1].text], [revision + 1, "第一版计划"]);
    assert.deepEqual(await pending(doc), []);

    // The editor's tab follows both decisions live: the accepted text, and the rejected one's old text.
    await page.waitForFunction(() => !document.querySelector("#page-blocks .suggestion-bar"));
    await page.waitForFunction(() => document.querySelector('#page-blocks [data-block-id="p_2"] .block-text').textContent === "第一版计划");
    assert.equal(await textOf(page, "p_1").innerText(), "Ship the final plan on Friday.");
    for (const tab of [editor, owner]) assert.deepEqual(problems(tab), []);
    await page.close();
    await o.close();
  });

  test("Enter's new block and a deletion are suggestions too; Ctrl+Z takes the person's own edit back", async () => {
    const { doc, revision } = await makePage(["First line.", "Second line.", "Third line."]);
    const editor = await openAs("editor", doc);
    const owner = await openAs("owner", doc, PHONE);
    const { page } = editor;
    await suggesting(page);
    await textOf(page, "p_1").click();
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("A new line.");
    await leave(page);
    // Backspace in an emptied block deletes it: a suggested deletion.
    await textOf(page, "p_3").click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector("#save-status")?.dataset.state === "suggested" && document.querySelectorAll("#page-blocks .suggestion-bar").length >= 2);
    const now = await stored(doc);
    assert.equal(now.revision, revision);
    assert.deepEqual(now.blocks.map((b) => b.text), ["First line.", "Second line.", "Third line."]);
    const changes = (await pending(doc)).map((s) => [s.change, s.diff.before, s.diff.after]);
    assert.deepEqual(changes.filter(([c]) => c !== "delete").map(([, , a]) => a), ["A new line."]);
    assert.ok(changes.some(([c, b]) => c === "delete" && b === "Third line."), JSON.stringify(changes));

    // On the owner's phone: the new block and the deleted one show where they go, as ghosts.
    const o = owner.page;
    await o.waitForSelector('.suggestion-ghost[data-change="insert"] .suggestion-ins');
    await o.waitForSelector('#page-blocks [data-block-id="p_3"] .suggestion-del');
    assert.equal(await o.locator('.suggestion-ghost[data-change="insert"] .suggestion-ins').innerText(), "A new line.");
    const ghostAfter = await o.locator('.suggestion-ghost[data-change="insert"]').evaluate((el) => el.previousElementSibling?.dataset.blockId);
    assert.equal(ghostAfter, "p_1", "the new block shows after the block it follows");
    // Every button at the change is a finger's size, and nothing is wider than the phone.
    for (const box of await o.locator(".suggestion-action").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON())))
      assert.ok(box.height >= 44 && box.width >= 44, JSON.stringify(box));
    assert.ok(await o.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "nothing overflows the phone");
    await shoot(o, "suggestions-ghosts-phone");

    // The editor takes the deletion back with Ctrl+Z (the block, then its text): its suggestion is
    // withdrawn, the insert stays.
    await textOf(page, "p_2").click();
    await page.keyboard.press("ControlOrMeta+z");
    await page.waitForFunction(() => document.querySelector('#page-blocks [data-block-id="p_3"]'));
    await page.keyboard.press("ControlOrMeta+z");
    await page.waitForFunction(() => document.querySelector('#page-blocks [data-block-id="p_3"] .block-text')?.textContent === "Third line.");
    await leave(page);
    await o.waitForFunction(() => !document.querySelector('[data-block-id="p_3"] .suggestion-bar'));
    assert.deepEqual((await pending(doc)).map((s) => s.change), ["insert"]);
    // The owner accepts the new block at the change.
    await o.getByRole("button", { name: /^Accept user_eve's suggestion on “A new line\.”/ }).click();
    await o.waitForFunction(() => !document.querySelector(".suggestion-ghost"));
    const written = await stored(doc);
    assert.deepEqual(written.blocks.map((b) => b.text), ["First line.", "A new line.", "Second line.", "Third line."]);
    for (const tab of [editor, owner]) assert.deepEqual(problems(tab), []);
    await page.close();
    await o.close();
  });

  test("a viewer's switch is on and locked; they suggest and withdraw their own, and accept nothing; an owner accepts all / rejects all by author", async () => {
    const { doc, revision } = await makePage(["Alpha one.", "Beta two.", "Gamma three.", "Delta four."]);
    const viewer = await openAs("viewer", doc);
    const v = viewer.page;
    assert.equal(await v.getAttribute("#suggest-toggle", "aria-pressed"), "true");
    assert.equal(await v.getAttribute("#suggest-toggle", "aria-disabled"), "true");
    // Reachable from the keyboard, and it stays on.
    await v.focus("#suggest-toggle");
    await v.keyboard.press("Space");
    assert.equal(await v.getAttribute("#suggest-toggle", "aria-pressed"), "true", "a viewer cannot turn it off");
    for (const [id, word, text] of [["p_1", "one", "uno"], ["p_2", "two", "dos"], ["p_3", "three", "tres"]]) {
      await typeOver(v, id, word, text);
      await leave(v);
    }
    await v.waitForFunction(() => document.querySelectorAll("#page-blocks .suggestion-bar").length === 3);
    assert.equal(await v.locator(".suggestion-accept").count(), 0, "a viewer accepts nothing");
    assert.equal(await v.locator("#page-blocks .suggestion-withdraw").count(), 3, "their own they may withdraw");
    await shoot(v, "suggestions-viewer-desktop");
    // At a phone's width: the switch, the reason and every button are a finger's size, nothing overflows.
    await v.setViewportSize(PHONE);
    for (const box of await v.locator("#suggest-toggle, #suggest-reason, #page-blocks .suggestion-action").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON())))
      assert.ok(box.height >= 44, JSON.stringify(box));
    assert.ok(await v.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "nothing overflows the phone");
    await shoot(v, "suggestions-viewer-phone");
    await v.setViewportSize(DESKTOP);
    await v.getByRole("button", { name: /^Withdraw your suggestion on “Gamma three\.”/ }).click();
    await v.waitForFunction(() => document.querySelectorAll("#page-blocks .suggestion-bar").length === 2);
    await v.waitForFunction(() => document.querySelector('#page-blocks [data-block-id="p_3"] .block-text').textContent === "Gamma three.");

    // An editor's suggestion beside the viewer's: the viewer sees it, with no button.
    const editor = await openAs("editor", doc);
    await suggesting(editor.page);
    await typeOver(editor.page, "p_4", "four", "cuatro");
    await leave(editor.page);
    await v.waitForSelector('#page-blocks [data-block-id="p_4"] .suggestion-bar');
    assert.equal(await block(v, "p_4").locator("button").count(), 0);
    // The Review panel names whose suggestion a session holds: the editor's own is "You", the viewer's is
    // theirs (a session knows only that a person proposed it; the suggestions list knows who).
    const e = editor.page;
    // The session may be drawn before the page's suggestions list is read (it then says "A person"); the
    // label follows once the list is in. Answers the head's text once it matches, or the last one seen.
    const head = async (sessionId, expected) => {
      const at = `#review-session[data-session-id="${sessionId}"] .review-session-head .subtle`;
      const text = () => e.evaluate((sel) => document.querySelector(sel)?.textContent ?? null, at);
      return e
        .waitForFunction(([sel, source]) => new RegExp(source).test(document.querySelector(sel)?.textContent ?? ""), [at, expected.source], { timeout: 10_000 })
        .then(text, text);
    };
    const [eves, vics] = [(await pending(doc)).find((x) => x.author.actor === "user_eve"), (await pending(doc)).find((x) => x.author.actor === "user_vic")];
    await e.click(`#review-list [data-session-id="${eves.sessionId}"]`);
    assert.match(await head(eves.sessionId, /^You · /), /^You · /);
    await e.click(`#review-list [data-session-id="${vics.sessionId}"]`);
    assert.match(await head(vics.sessionId, /^user_vic · /), /^user_vic · /);

    // The owner sees both authors with their counts, accepts all of the viewer's and rejects all of the editor's.
    const owner = await openAs("owner", doc, PHONE);
    const o = owner.page;
    await o.waitForFunction(() => document.querySelectorAll("#suggestion-authors .suggestion-author-group").length === 2);
    const groups = await o.locator("#suggestion-authors .suggestion-author-name").allInnerTexts();
    assert.deepEqual(groups.sort(), ["user_eve · 1", "user_vic · 2"]);
    assert.ok(await o.evaluate(() => document.documentElement.scrollWidth <= innerWidth), "nothing overflows the phone");
    await shoot(o, "suggestions-authors-phone");
    await o.getByRole("button", { name: "Accept all 2 of user_vic's suggestions" }).click();
    await o.waitForFunction(() => document.querySelectorAll("#suggestion-authors .suggestion-author-group").length === 1);
    await o.getByRole("button", { name: "Reject all 1 of user_eve's suggestions" }).click();
    await o.waitForFunction(() => !document.querySelector("#suggestion-authors .suggestion-author-group"));
    const after = await stored(doc);
    assert.deepEqual(after.blocks.map((b) => b.text), ["Alpha uno.", "Beta dos.", "Gamma three.", "Delta four."]);
    assert.equal(after.revision, revision + 2, "one write per accepted suggestion");
    // Every tab follows: nothing pending is drawn anywhere.
    for (const p of [v, editor.page]) await p.waitForFunction(() => !document.querySelector("#page-blocks .suggestion-bar"));
    assert.equal(await textOf(editor.page, "p_4").innerText(), "Delta four.");
    for (const tab of [viewer, editor, owner]) assert.deepEqual(problems(tab), []);
    for (const p of [v, editor.page, o]) await p.close();
  });

  test("a suggestion whose block changed since says it is stale, and offers to preview it again", async () => {
    const { doc, revision } = await makePage(["The launch is in May."]);
    const editor = await openAs("editor", doc);
    const viewer = await openAs("viewer", doc);
    await suggesting(editor.page);
    await typeOver(editor.page, "p_1", "May", "June");
    await leave(editor.page);
    await typeOver(viewer.page, "p_1", "launch", "release");
    await leave(viewer.page);
    const owner = await openAs("owner", doc);
    const o = owner.page;
    await o.waitForFunction(() => document.querySelectorAll('#page-blocks [data-block-id="p_1"] .suggestion-bar').length === 2);
    await o.getByRole("button", { name: /^Accept user_eve's suggestion/ }).click();
    // The viewer's suggestion was made on the text before: stale, with no accept, and a way on.
    const stale = block(o, "p_1").locator('.suggestion-bar[data-state="stale"]');
    await stale.waitFor();
    assert.match(await stale.innerText(), /Stale: the block changed since/);
    assert.equal(await stale.locator(".suggestion-accept").count(), 0);
    await shoot(o, "suggestions-stale-desktop");
    await stale.getByRole("button", { name: /^Preview user_vic's suggestion on “The launch is in May\.” again/ }).click();
    // Previewed again on the current page: pending, on the accepted text, and acceptable.
    const fresh = block(o, "p_1").locator('.suggestion-bar[data-state="pending"]');
    await fresh.waitFor();
    await o.waitForFunction(() => document.querySelector('#page-blocks [data-block-id="p_1"] .suggestion-del'));
    // The marks are the server's segments, run for run (the demo diffs nothing itself).
    const [again] = await pending(doc);
    assert.equal(again.diff.before, "The launch is in June.");
    const tag = { equal: "text", insert: "ins", delete: "del" };
    assert.deepEqual(await marks(o, "p_1"), again.diff.segments.map((seg) => [tag[seg.tag], seg.text]));
    await fresh.locator(".suggestion-accept").click();
    await o.waitForFunction(() => !document.querySelector("#page-blocks .suggestion-bar"));
    const now = await stored(doc);
    assert.deepEqual([now.revision, now.blocks[0].text], [revision + 2, again.diff.after]);
    for (const tab of [editor, viewer, owner]) assert.deepEqual(problems(tab), []);
    for (const tab of [editor, viewer, owner]) await tab.page.close();
  });
});
