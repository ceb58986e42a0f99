// The web demo in headless Chromium, signed in as a person of a workspace (a signed token exchanged for the
// session cookie, issue 18): the review-mode switch and the Tools panel show and store the profile of the
// open page's workspace, never the implicit ws_local's; a change made in one tab reaches every other tab of
// that workspace's pages over the live channel (`profile.changed`, mnote.live_event.v2), without a reload.
//
//   node --test --test-concurrency=1 tests/e2e/browser_workspace_profile.test.mjs

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { DESKTOP, PHONE, newTab } from "./lib/browser.mjs";
import { reviewMode, shoot, startDemo } from "./lib/demo.mjs";
import { claims, jwkSet, jwtVars, makeKeys, sign } from "./lib/identity.mjs";
import { TEST_CLIENT_TOKEN } from "./lib/wrangler.mjs";

const keys = makeKeys();
const ANA = sign(keys.es, claims({ sub: "user_ana", workspaces: { ws_a: "owner" } }));
const DOC = "ws_a_demo_page";

let demo;
let url;

/** A request as `token`'s user (ana's signed token, or the single user's client token). */
async function api(token, method, path, body) {
  const headers = { authorization: `Bearer ${token}`, origin: url, ...(body ? { "content-type": "application/json" } : {}) };
  const res = await fetch(`${url}${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const json = await res.json();
  assert.equal(res.status, 200, JSON.stringify(json));
  return json;
}

before(
  async () => {
    // No dev auto-login: the tab keeps the cookie of the person it signed in.
    demo = await startDemo({ vars: { ...jwtVars(jwkSet(keys)), MNOTE_DEV_AUTO_LOGIN: "false", MNOTE_SIGN_IN_FREE_FAILURES: "10000" } });
    url = demo.worker.url;
    const blocks = [{ blockId: "p_1", type: "paragraph", text: "The plan is short." }];
    await api(ANA, "PUT", `/api/documents/${DOC}`, { blocks });
    await api(ANA, "PUT", "/api/profile", { tools: { disabled: [] }, reviewMode: "required" });
  },
  { timeout: 300_000 },
);

after(async () => {
  await demo?.stop();
});

test("the profile controls act on the open page's workspace", async () => {
  const { page } = await newTab(demo.browser, { viewport: DESKTOP });
  const signedIn = await page.request.post(`${url}/api/auth/session`, { data: { token: ANA }, headers: { origin: url } });
  assert.equal(signedIn.status(), 200, await signedIn.text());
  await page.goto(`${url}/?doc=${DOC}`);
  await page.waitForSelector("body[data-state=ready], body[data-state=error]", { timeout: 30_000 });
  assert.equal(await page.getAttribute("body", "data-state"), "ready");

  // ws_a's profile is shown (required), not ws_local's (the default, review).
  assert.equal(await page.locator("#review-mode [aria-pressed=true]").getAttribute("data-mode"), "required");
  await reviewMode(page, "yolo");
  await page.click('[data-tool="mnote.doc.search"] input');
  await page.waitForFunction(() => !document.querySelector("#tool-list input:disabled"));

  const ws_a = await api(ANA, "GET", "/api/profile?workspaceId=ws_a");
  assert.deepEqual(ws_a.profile, { tools: { disabled: ["mnote.doc.search"] }, reviewMode: "yolo" });
  const ws_local = await api(TEST_CLIENT_TOKEN, "GET", "/api/profile");
  assert.deepEqual(ws_local.profile, { tools: { disabled: [] }, reviewMode: "review" }, "ws_local is untouched");
});

/** A tab signed in as ana on `DOC`, ready and live. */
async function anasTab(viewport) {
  const tab = await newTab(demo.browser, { viewport });
  const signedIn = await tab.page.request.post(`${url}/api/auth/session`, { data: { token: ANA }, headers: { origin: url } });
  assert.equal(signedIn.status(), 200, await signedIn.text());
  await tab.page.goto(`${url}/?doc=${DOC}`);
  await tab.page.waitForSelector("body[data-state=ready], body[data-state=error]", { timeout: 60_000 });
  assert.equal(await tab.page.getAttribute("body", "data-state"), "ready");
  await tab.page.waitForSelector("#live-status[data-state=live]", { timeout: 60_000 });
  return tab;
}

const shownMode = (page) => page.locator("#review-mode [aria-pressed=true]").getAttribute("data-mode");

test("a review mode or tool switched in one tab shows in the other tab at once, without a reload", async () => {
  await api(ANA, "PUT", "/api/profile?workspaceId=ws_a", { tools: { disabled: [] }, reviewMode: "review" });
  const a = await anasTab(DESKTOP);
  const b = await anasTab(PHONE);
  try {
    assert.equal(await shownMode(b.page), "review");
    const loads = [];
    b.page.on("framenavigated", (frame) => frame === b.page.mainFrame() && loads.push(frame.url()));
    await reviewMode(a.page, "required");
    await b.page.waitForFunction(() => document.querySelector("#review-mode [aria-pressed=true]")?.dataset.mode === "required");
    // And a tool switched off in tab A shows off in tab B.
    await a.page.click('[data-tool="mnote.doc.search"] input');
    await b.page.waitForFunction(() => document.querySelector('[data-tool="mnote.doc.search"] input')?.checked === false);
    assert.deepEqual(loads, [], "tab B was not reloaded");
    await a.page.locator("#review-mode").scrollIntoViewIfNeeded();
    await shoot(a.page, "profile-live-desktop");
    // On a phone the switch is on the Command tab.
    await b.page.click("#tabbar [data-tab=command]");
    await shoot(b.page, "profile-live-phone");
    const stored = await api(ANA, "GET", "/api/profile?workspaceId=ws_a");
    assert.deepEqual(stored.profile, { tools: { disabled: ["mnote.doc.search"] }, reviewMode: "required" });
    // The demo's dev sign-in is off in this suite: its probe answering 401 is expected, nothing else.
    const expected = (p) => /\/api\/auth\/dev-login$|status of 401/.test(p);
    assert.deepEqual([...a.problems, ...b.problems].filter((p) => !expected(p)), []);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

test("a change made while the tab's own profile read is on its way still shows", async () => {
  await api(ANA, "PUT", "/api/profile?workspaceId=ws_a", { tools: { disabled: [] }, reviewMode: "review" });
  const { context, page } = await newTab(demo.browser, { viewport: DESKTOP });
  try {
    const signedIn = await page.request.post(`${url}/api/auth/session`, { data: { token: ANA }, headers: { origin: url } });
    assert.equal(signedIn.status(), 200, await signedIn.text());
    // The tab's first read of the profile is answered by the server (reviewMode "review"), then held on its
    // way to the page until the change below has reached the tab over the live channel.
    let release;
    const released = new Promise((resolve) => (release = resolve));
    let answered;
    const readAnswered = new Promise((resolve) => (answered = resolve));
    let held = false;
    await page.route(/\/api\/profile\?workspaceId=ws_a$/, async (route) => {
      if (held || route.request().method() !== "GET") return route.continue();
      held = true;
      const response = await route.fetch();
      answered();
      await released;
      await route.fulfill({ response });
    });
    // Every live frame's profile, as the tab receives them.
    const changes = [];
    let sawRequired;
    const required = new Promise((resolve) => (sawRequired = resolve));
    page.on("websocket", (socket) =>
      socket.on("framereceived", ({ payload }) => {
        const message = JSON.parse(String(payload));
        if (message.kind !== "profile.changed") return;
        changes.push(message.profile.reviewMode);
        if (message.profile.reviewMode === "required") sawRequired();
      }),
    );
    await page.goto(`${url}/?doc=${DOC}`);
    await readAnswered;
    await api(ANA, "PUT", "/api/profile?workspaceId=ws_a", { tools: { disabled: [] }, reviewMode: "required" });
    await required;
    release();
    await page.waitForSelector("body[data-state=ready]", { timeout: 60_000 });
    // The held answer said "review"; the change the channel brought meanwhile says "required", and wins.
    await page.waitForFunction(() => document.querySelector("#review-mode [aria-pressed=true]")?.dataset.mode === "required");
    assert.ok(changes.includes("required"), `profile frames seen: ${changes.join(", ")}`);
  } finally {
    await context.close();
  }
});
