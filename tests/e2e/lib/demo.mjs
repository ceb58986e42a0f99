// Shared steps of the web demo's browser suites: a Worker with the demo signed in, tabs at the two widths,
// the stored page and profile over the API, and screenshots under tests/artifacts/screens/ (git-ignored).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { launchBrowser, newTab } from "./browser.mjs";
import { ROOT, startWorker } from "./wrangler.mjs";

/** Where the screenshots of the main states, at both widths, go. */
export const SCREENS = join(ROOT, "tests", "artifacts", "screens");

/**
 * Builds the package's web build (a no-op when up to date), starts a Worker that signs the demo in (plus
 * `vars`) and Chromium, and stores `profile` (the workspace's page-AI profile) when given. `stop()` ends both.
 */
export async function startDemo({ vars = {}, profile } = {}) {
  // The Worker serves web-demo/pkg, which the package build writes.
  execFileSync(join(ROOT, "scripts", "build-wasm"), { stdio: "inherit" });
  mkdirSync(SCREENS, { recursive: true });
  const worker = await startWorker({ vars: { MNOTE_DEV_AUTO_LOGIN: "true", ...vars } });
  let browser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    await worker.stop();
    throw error;
  }
  const api = async (path, init = {}) => {
    const res = await fetch(`${worker.url}${path}`, { ...init, headers: { ...worker.auth, ...init.headers } });
    return res.json();
  };
  const demo = {
    worker,
    browser,
    api,
    /** `method path` with a JSON body, as the demo's signed-in person: `{status, body}` (body parsed). */
    async send(method, path, body) {
      const res = await fetch(`${worker.url}${path}`, {
        method,
        headers: { "content-type": "application/json", ...worker.auth },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    /** The stored page of a document. */
    storedPage: (documentId = "welcome") => api(`/api/documents/${documentId}`),
    /** A tab at `viewport` on the demo (`path`, default the welcome page), once it is ready. */
    async open(viewport, path = "/") {
      const tab = await newTab(browser, { viewport });
      await tab.page.goto(`${worker.url}${path}`).catch((error) => {
        // A page load that never ends: say which requests it still waited for.
        throw new Error(`${error.message}\nstill pending: ${tab.pending().join(", ") || "nothing"}\nproblems: ${tab.problems.join("; ")}`);
      });
      await tab.page.waitForSelector("body[data-state=ready], body[data-state=error]", { timeout: 30_000 });
      return tab;
    },
    async stop() {
      await browser?.close();
      await worker.stop();
    },
  };
  if (profile) {
    const res = await demo.send("PUT", "/api/profile", profile).catch((error) => ({ status: 0, body: String(error) }));
    if (res.status !== 200) {
      await demo.stop();
      assert.fail(`the demo's profile was not stored: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  return demo;
}

/**
 * A screenshot of the tab's viewport as tests/artifacts/screens/{name}.png, once transitions settled and
 * any smooth scroll has come to rest.
 */
export async function shoot(page, name) {
  await transitionsDone(page);
  await scrollAtRest(page);
  await page.screenshot({ path: join(SCREENS, `${name}.png`) });
}

/**
 * Resolves once every finite CSS transition and animation running on the page has finished (a highlight
 * fading in, a panel sliding), however long the machine takes; endless ones (a spinner) are not waited for.
 */
export async function transitionsDone(page) {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
        .map((animation) => animation.finished.catch(() => {})),
    ),
  );
}

/** Resolves once the page has not scrolled for 150 ms (a smooth scroll has come to rest), however long that takes. */
export async function scrollAtRest(page) {
  await page.waitForFunction(
    () =>
      new Promise((resolve) => {
        const at = scrollY;
        setTimeout(() => resolve(scrollY === at), 150);
      }),
  );
}

/** Clicks Apply (or Hold for review) and waits for its success. */
export async function applyCommand(page) {
  await page.click("#command-apply");
  await page.waitForSelector("#command-status.status-ok");
}

/** Types `prompt` into the command box and waits for the router's decision (`direct` or `hermes`). */
export async function command(page, prompt, status) {
  await page.fill("#command-input", prompt);
  await page.waitForSelector(`#command-panel[data-status=${status}]`);
}

/** Picks a review mode and waits until the profile is stored. */
export async function reviewMode(page, mode) {
  await page.click(`#review-mode [data-mode=${mode}]`);
  await page.waitForFunction(() => !document.querySelector("#tool-list input:disabled"));
}

/** The shown review session's buttons: `[verb, disabled, title]` each, in order. */
export const reviewButtons = (page) =>
  page.locator("#review-session .review-actions button").evaluateAll((els) => els.map((b) => [b.dataset.action, b.disabled, b.title]));

/** Whether the element's box lies inside the viewport. */
export async function inViewport(locator) {
  const box = await locator.boundingBox();
  const size = locator.page().viewportSize();
  assert.ok(box, "the element is rendered");
  return box.y >= 0 && box.x >= 0 && box.y + box.height <= size.height && box.x + box.width <= size.width;
}
