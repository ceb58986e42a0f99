// Browser: the demo previews for the signed-in person's role (issue 18 item 3). People sign in with signed
// tokens (`POST /api/auth/session`, no dev auto-login); the demo reads their role from the page's GET
// (`x-mnote-role`) and makes its WASM session with it, so in yolo mode a viewer's preview of a direct
// command says "held for review" (the server would hold it), and so do its decision and its button, while
// an editor's do not.
//
//   node --test --test-concurrency=1 tests/e2e/browser_roles.test.mjs

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { DESKTOP, newTab } from "./lib/browser.mjs";
import { command, reviewButtons, shoot, startDemo } from "./lib/demo.mjs";
import { claims, jwkSet, jwtVars, makeKeys, sign } from "./lib/identity.mjs";
import { fresh } from "./lib/mnote.mjs";

const keys = makeKeys();
const jwt = (sub, role) => sign(keys.es, claims({ sub, workspaces: { ws_a: role } }));
const TOKENS = { owner: jwt("user_ana", "owner"), editor: jwt("user_eve", "editor"), viewer: jwt("user_vic", "viewer") };

let demo;
let doc;

before(
  async () => {
    demo = await startDemo({ vars: { ...jwtVars(jwkSet(keys)), MNOTE_DEV_AUTO_LOGIN: "false", MNOTE_SIGN_IN_FREE_FAILURES: "10000" } });
    const json = { "content-type": "application/json" };
    // ws_a's profile: its owner sets it (each workspace has its own).
    const profile = await fetch(`${demo.worker.url}/api/profile?workspaceId=ws_a`, {
      method: "PUT",
      headers: { ...json, authorization: `Bearer ${TOKENS.owner}`, origin: demo.worker.url },
      body: JSON.stringify({ tools: { disabled: [] }, reviewMode: "yolo" }),
    }).then((res) => res.json());
    assert.equal(profile.profile?.reviewMode, "yolo", JSON.stringify(profile));
    doc = fresh("roles").replaceAll(".", "_");
    const res = await fetch(`${demo.worker.url}/api/documents/${doc}`, {
      method: "PUT",
      headers: { ...json, authorization: `Bearer ${TOKENS.owner}`, origin: demo.worker.url },
      body: JSON.stringify({ workspaceId: "ws_a", title: "Roles", blocks: [{ blockId: "p_1", type: "paragraph", text: "The plan is short." }] }),
    });
    assert.equal(res.status, 200, await res.text());
  },
  { timeout: 600_000 },
);

after(async () => {
  await demo?.stop();
});

/** A tab signed in as the person holding `role` in ws_a, on the page, once the demo is ready. */
async function openAs(role) {
  const tab = await newTab(demo.browser, { viewport: DESKTOP });
  const url = demo.worker.url;
  const signedIn = await tab.page.context().request.post(`${url}/api/auth/session`, { headers: { authorization: `Bearer ${TOKENS[role]}`, origin: url } });
  assert.equal(signedIn.status(), 200, await signedIn.text());
  await tab.page.goto(`${url}/?doc=${doc}`);
  await tab.page.waitForSelector("body[data-state=ready], body[data-state=error]", { timeout: 30_000 });
  assert.equal(await tab.page.getAttribute("body", "data-state"), "ready");
  return tab;
}

describe("the demo previews for the person's role", () => {
  for (const [role, held] of [["viewer", true], ["editor", false]]) {
    test(`${role}: a direct command's preview ${held ? "is" : "is not"} held for review, as the server would do`, async () => {
      const { page } = await openAs(role);
      await command(page, 'replace "plan" with "roadmap"', "direct");
      const preview = page.locator("#command-panel .diff-head");
      await preview.waitFor();
      assert.equal(await page.locator("#command-panel .diff-head .blocked").count(), held ? 1 : 0, await preview.innerText());
      // The decision and the button say the same as the preview.
      assert.match(await page.locator("#command-decision").innerText(), held ? /needs an editor's review/ : /applies directly/);
      assert.equal(await page.locator("#command-apply").innerText(), held ? "Hold for review" : "Apply");
      await shoot(page, `roles-${role}-preview`);
      await page.close();
    });
  }
});

describe("the demo offers a control only to a person the server would let use it", () => {
  /** What the signed-in person is offered: editing, the profile controls, the View only mark. */
  const offered = (page) =>
    page.evaluate(() => ({
      viewOnly: Boolean(document.querySelector("#doc-view-only")),
      editableBlocks: document.querySelectorAll("#page-blocks .block-text[contenteditable=plaintext-only]").length,
      // Editing that can only suggest (issue 33): the Suggesting switch on and locked.
      suggestOnly:
        document.querySelector("#suggest-toggle")?.getAttribute("aria-pressed") === "true" &&
        document.querySelector("#suggest-toggle")?.getAttribute("aria-disabled") === "true",
      modesOff: [...document.querySelectorAll("#review-mode [data-mode]")].every((b) => b.disabled),
      toolsOff: [...document.querySelectorAll("#tool-list input")].every((i) => i.disabled),
      toolsNote: Boolean(document.querySelector("#tools-owner-only")),
    }));

  test("a viewer reads; an editor also edits; only the owner changes the review mode and tools", async () => {
    const seen = {};
    for (const role of ["viewer", "editor", "owner"]) {
      const { page } = await openAs(role);
      await page.waitForSelector("#tool-list input");
      seen[role] = await offered(page);
      if (role === "viewer") await shoot(page, "roles-viewer-controls");
      await page.close();
    }
    // A viewer edits only as suggestions (core's role table: anyone may suggest; only editors write).
    assert.deepEqual(seen.viewer, { viewOnly: true, editableBlocks: 1, suggestOnly: true, modesOff: true, toolsOff: true, toolsNote: true });
    assert.deepEqual(seen.editor, { viewOnly: false, editableBlocks: 1, suggestOnly: false, modesOff: true, toolsOff: true, toolsNote: true });
    assert.deepEqual(seen.owner, { viewOnly: false, editableBlocks: 1, suggestOnly: false, modesOff: false, toolsOff: false, toolsNote: false });
  });

  test("a viewer's held command waits for an editor: the viewer sees its buttons off and why, the editor can accept", async () => {
    const viewer = (await openAs("viewer")).page;
    await command(viewer, 'replace "short" with "brief"', "direct");
    await viewer.click("#command-apply");
    await viewer.waitForSelector("#review-session[data-state=awaiting_user]");
    await viewer.locator("#command-status", { hasText: "an editor or owner of the workspace accepts or rejects it" }).waitFor();
    const theirs = await reviewButtons(viewer);
    assert.ok(theirs.length > 0 && theirs.every(([, disabled]) => disabled), JSON.stringify(theirs));
    assert.match(await viewer.locator("#review-viewer-note").innerText(), /an editor or owner of the workspace decides it/);
    assert.equal(await viewer.locator("#review-session .state-badge").innerText(), "Awaiting an editor");
    await shoot(viewer, "roles-viewer-review");
    await viewer.close();

    const editor = (await openAs("editor")).page;
    await editor.waitForSelector("#review-session[data-state=awaiting_user]");
    assert.equal(await editor.locator("#review-viewer-note").count(), 0);
    const accept = (await reviewButtons(editor)).find(([verb]) => verb === "accept");
    assert.deepEqual(accept?.slice(0, 2), ["accept", false]);
    await editor.click("#review-session [data-action=accept]");
    await editor.waitForFunction(() => document.querySelector("#review-session")?.dataset.state !== "awaiting_user");
    const after = editor.locator("#review-session");
    assert.equal(await after.getAttribute("data-state"), "applied", await after.innerText());
    assert.match(await editor.locator("#page-blocks").innerText(), /The plan is brief\./);
    await editor.close();
  });
});
