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

/**
 * Launches Chromium and opens one tab. `problems` collects console errors, page errors, failed requests and
 * HTTP errors, so a test can assert that nothing went wrong. Close with `browser.close()`.
 */
export async function openTab() {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1440, height: 960 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => r.status() >= 400 && problems.push(`HTTP ${r.status()}: ${r.url()}`));
  return { browser, page, problems };
}
