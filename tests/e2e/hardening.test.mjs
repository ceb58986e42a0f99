// End-to-end: security headers and the demo's link filter (issue 18, finding 10). Every static asset (from
// web-demo/_headers) and every Worker answer carries a Content-Security-Policy, X-Frame-Options,
// X-Content-Type-Options and Referrer-Policy; the demo runs in headless Chromium under its policy with no
// violation; and page text cannot make a link to another host or to a script.
//
//   node --test --test-concurrency=1 tests/e2e/hardening.test.mjs

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { openTab } from './lib/browser.mjs';
import { ROOT, TEST_CLIENT_TOKEN, fetchJson, sendJson, startWorker } from './lib/wrangler.mjs';

const AUTH = { authorization: `Bearer ${TEST_CLIENT_TOKEN}` };

let worker;
let browser;
let page;
let problems;

before(
  async () => {
    // The Worker serves web-demo/pkg, which the package build writes (a no-op when up to date).
    execFileSync(join(ROOT, 'scripts', 'build-wasm'), { stdio: 'inherit' });
    worker = await startWorker({ vars: { MNOTE_DEV_AUTO_LOGIN: 'true' } });
    ({ browser, page, problems } = await openTab());
    // Every policy violation the page meets, as the browser reports it to the page.
    await page.addInitScript(() => {
      window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
  },
  { timeout: 300_000 },
);

after(async () => {
  await browser?.close();
  await worker?.stop();
});

function assertHardened(res, what) {
  assert.equal(res.headers.get('x-frame-options'), 'DENY', what);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer', what);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.doesNotMatch(csp, /'unsafe-eval'|script-src[^;]*'unsafe-inline'/, what);
  return csp;
}

describe('security headers', () => {
  test('every static asset of the demo carries them, with a policy the demo can run under', async () => {
    const wasm = readdirSync(join(ROOT, 'web-demo', 'pkg')).find((f) => f.endsWith('.wasm'));
    for (const path of ['/', '/index.html', '/dist/app.js', '/dist/app.css', '/app.js', '/style.css', '/js/inline.js', `/pkg/${wasm}`]) {
      const res = await fetch(`${worker.url}${path}`);
      assert.equal(res.status, 200, path);
      const csp = assertHardened(res, path);
      assert.match(csp, /default-src 'self'/, path);
      assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/, path);
      assert.match(csp, /object-src 'none'/, path);
      await res.arrayBuffer();
    }
    // The headers file configures the assets; it is not one of them.
    assert.equal((await fetch(`${worker.url}/_headers`)).status, 404);
  });

  test('every Worker answer carries them: health, data, coded errors, the event stream', async () => {
    const answers = [
      ['/health', {}],
      ['/api/documents/welcome', { headers: AUTH }],
      ['/api/documents/welcome', {}],
      ['/api/nope', { headers: AUTH }],
      ['/nope.html', {}],
      ['/api/documents/welcome/events', { headers: AUTH }],
      ['/mcp', { method: 'POST', body: '{}' }],
    ];
    for (const [path, init] of answers) {
      const res = await fetchJson(`${worker.url}${path}`, init);
      const csp = assertHardened(res, `${init.method ?? 'GET'} ${path} (${res.status})`);
      assert.match(csp, /default-src 'none'/, path);
    }
    const locked = await sendJson(`${worker.url}/api/documents/e2e_hardening`, 'PUT', { blocks: [] }, { ...AUTH, origin: 'https://evil.example' });
    assert.equal(locked.status, 403);
    assertHardened(locked, 'a refused write');
  });
});

describe('the demo under its policy', () => {
  test('loads its modules and its WASM with no policy violation', async () => {
    await page.goto(`${worker.url}/`);
    await page.waitForSelector('body[data-state=ready]', { timeout: 30_000 });
    // The engine compiled the .wasm: typing a command previews it in the page.
    await page.fill('#command-input', '把「第一版草稿」改成「初稿」');
    await page.waitForSelector('#decision-risk', { timeout: 60_000 });
    assert.ok((await page.locator('#page-blocks [data-block-id]').count()) > 10, 'the page rendered');
    assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
    assert.deepEqual(problems, []);
  });

  test('page links to another host or to a script stay text', async () => {
    const links = [
      ['web', 'https://example.com/a'],
      ['path', '/docs/start'],
      ['fragment', '#b_2'],
      ['protocol-relative', '//evil.example/x'],
      ['backslash', '\\\\evil.example'],
      ['slash-backslash', '/\\evil.example'],
      ['javascript', 'javascript:alert(1)'],
      ['mixed-case', 'JaVaScRiPt:alert(1)'],
      ['data', 'data:text/html,<b>x</b>'],
      ['control', '\u0001javascript:alert(1)'],
      ['vbscript', 'vbscript:msgbox(1)'],
      ['no-slashes', 'https:evil.example'],
      ['triple-slash', 'https:///evil.example'],
    ];
    const text = links.map(([label, href]) => `[${label}](${href})`).join(' · ');
    const put = await sendJson(`${worker.url}/api/documents/e2e_links`, 'PUT', { title: 'Links', blocks: [{ blockId: 'p_links', type: 'paragraph', text }] }, AUTH);
    assert.equal(put.status, 200, put.text);

    await page.goto(`${worker.url}/?doc=e2e_links`);
    await page.waitForSelector('body[data-state=ready]', { timeout: 30_000 });
    const anchors = await page.locator('#page-blocks a').evaluateAll((els) => els.map((a) => [a.textContent, a.getAttribute('href')]));
    assert.deepEqual(anchors, [
      ['web', 'https://example.com/a'],
      ['path', '/docs/start'],
      ['fragment', '#b_2'],
    ]);
    const shown = await page.locator('#page-blocks').innerText();
    for (const [label, href] of links.slice(3)) {
      assert.ok(shown.includes(`[${label}](`), `${label} (${href}) is shown as text: ${shown}`);
    }
    assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
  });
});
