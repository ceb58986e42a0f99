// Headless Chromium (Debian's /usr/bin/chromium, which scripts/setup installs) through playwright-core, for
// the end-to-end tests of the web demo. Offline: no background networking, no component updates.
import { chromium } from "playwright-core";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The two widths the demo is checked and photographed at: a desktop window and a phone. */
export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** Launches Chromium. Close with `browser.close()`. */
export function launchBrowser() {
  return chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
}

/**
 * Opens a tab of `browser` in a fresh context with `viewport` (a phone viewport also gets touch and the
 * mobile meta-viewport handling). `problems` collects console errors, page errors, failed requests and HTTP
 * errors, so a test can assert that nothing went wrong. The clipboard is allowed, for the Copy buttons.
 */
export async function newTab(browser, { viewport = { width: 1440, height: 960 } } = {}) {
  const phone = viewport.width < 600;
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, isMobile: phone, hasTouch: phone });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  // A bound for every wait, not a timing: a loaded two-core machine (a build beside the suite) can take
  // well over Playwright's default 30 s to render what a test awaits.
  context.setDefaultTimeout(60_000);
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  // The requests not yet finished, for a wait that times out to name what it still waited for.
  const inFlight = new Set();
  page.on("request", (r) => inFlight.add(r));
  page.on("requestfinished", (r) => inFlight.delete(r));
  page.on("requestfailed", (r) => inFlight.delete(r));
  const pending = () => [...inFlight].map((r) => `${r.method()} ${r.url()}`);
  return { context, page, problems, pending };
}

/** Launches Chromium and opens one tab (1440×960). Close with `browser.close()`. */
export async function openTab(options) {
  const browser = await launchBrowser();
  const { page, problems } = await newTab(browser, options);
  return { browser, page, problems };
}
