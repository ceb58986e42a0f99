// End-to-end: how the Worker under wrangler dev guards signing in (issue 18, findings 1, 7, 8; issue 17,
// item 12): its own origin comes from configuration, never from the request's Host, so a DNS-rebound page
// gets no dev session; failed sign-ins lock a client out for a doubling wait; logout revokes the cookie;
// a placeholder or short secret is refused (or, short, used only in local development) with a loud
// warning in the log.
//
//   node --test --test-concurrency=1 tests/e2e/auth.test.mjs

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { TEST_CLIENT_TOKEN, assertCodedError, fetchJson, sendJson, startWorker } from './lib/wrangler.mjs';
import { TOOL_TOKEN } from './lib/mnote.mjs';

const PLACEHOLDER_TOKEN = 'replace-with-a-long-random-token';

let dev; // MNOTE_DEV_AUTO_LOGIN=true, as `make dev` runs it
let prod; // no dev login: what a deployment looks like
let weak; // secrets still as in .dev.vars.example, outside development

before(
  async () => {
    dev = await startWorker({
      vars: {
        MNOTE_DEV_AUTO_LOGIN: 'true',
        // Short: used in development, with a warning. A placeholder: never used.
        MNOTE_TOOL_TOKEN: 'short-token',
        HERMES_API_KEY: 'replace-with-at-least-16-chars',
      },
    });
    prod = await startWorker({ vars: { MNOTE_TOOL_TOKEN: TOOL_TOKEN } });
    weak = await startWorker({ vars: { MNOTE_CLIENT_TOKEN: PLACEHOLDER_TOKEN, MNOTE_TOOL_TOKEN: 'short-token' } });
  },
  { timeout: 600_000 },
);

after(async () => {
  await dev?.stop();
  await prod?.stop();
  await weak?.stop();
});

/** A raw HTTP request, so the test chooses the Host header (fetch does not let it). */
function raw(worker, path, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: worker.port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let parsed = null;
        try {
          parsed = JSON.parse(text);
        } catch {
          // Not JSON.
        }
        const headers = new Headers(Object.entries(res.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])));
        resolve({ status: res.statusCode, headers, text, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const login = (worker, token, headers = {}) =>
  sendJson(`${worker.url}/api/auth/login`, 'POST', { token }, { origin: worker.url, ...headers });
const cookieOf = (res) => res.headers.get('set-cookie')?.split(';')[0];

describe('the Worker takes its own origin from configuration, not from Host', () => {
  test('a DNS-rebound page (Host evil.example, matching Origin) gets no dev session', async () => {
    const host = `evil.example:${dev.port}`;
    const rebound = await raw(dev, '/api/auth/dev-login', { method: 'POST', headers: { host, origin: `http://${host}` } });
    assertCodedError(rebound, 403, 'mnote_forbidden_origin');
    assert.equal(rebound.headers.get('set-cookie'), null);
    // Not even with the Worker's real origin in Origin: dev-login wants a loopback Host of its own.
    const spoofed = await raw(dev, '/api/auth/dev-login', { method: 'POST', headers: { host, origin: dev.url } });
    assertCodedError(spoofed, 401, 'mnote_unauthorized');
    assert.equal(spoofed.headers.get('set-cookie'), null);
    // Nor may the rebound page write with a token it somehow had.
    const put = await raw(dev, '/api/documents/e2e_rebound', {
      method: 'PUT',
      headers: { host, origin: `http://${host}`, authorization: `Bearer ${TEST_CLIENT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ blocks: [] }),
    });
    assertCodedError(put, 403, 'mnote_forbidden_origin');
  });

  test('the demo on 127.0.0.1 still signs itself in, and a loopback host on another port does not', async () => {
    const ok = await raw(dev, '/api/auth/dev-login', { method: 'POST', headers: { origin: dev.url } });
    assert.equal(ok.status, 200, ok.text);
    const cookie = cookieOf(ok);
    assert.match(cookie, /^mnote_session=v1\./);
    assert.equal((await fetchJson(`${dev.url}/api/documents/welcome`, { headers: { cookie } })).status, 200);
    const otherPort = await raw(dev, '/api/auth/dev-login', {
      method: 'POST',
      headers: { host: `127.0.0.1:${dev.port + 1}`, origin: dev.url },
    });
    assertCodedError(otherPort, 401, 'mnote_unauthorized');
    assert.equal(otherPort.headers.get('set-cookie'), null);
  });

  test('without dev login, dev-login signs nobody in', async () => {
    const res = await raw(prod, '/api/auth/dev-login', { method: 'POST', headers: { origin: prod.url } });
    assertCodedError(res, 401, 'mnote_unauthorized');
    assert.equal(res.headers.get('set-cookie'), null);
  });
});

describe('failed sign-ins lock the client out, with backoff', () => {
  test('100 wrong logins: most answered 429 with Retry-After; the right token works after the wait', async () => {
    const client = { 'cf-connecting-ip': '203.0.113.10' };
    const counts = {};
    let last429;
    for (let i = 0; i < 100; i += 1) {
      const res = await login(prod, `wrong-token-${i}`, client);
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      assert.equal(res.headers.get('set-cookie'), null);
      if (res.status === 429) last429 = res;
      else assertCodedError(res, 401, 'mnote_unauthorized');
    }
    assert.ok(counts[429] >= 80, `most were refused unchecked: ${JSON.stringify(counts)}`);
    const body = assertCodedError(last429, 429, 'mnote_too_many_attempts');
    const wait = Number(last429.headers.get('retry-after'));
    assert.ok(Number.isInteger(wait) && wait >= 1, `Retry-After ${last429.headers.get('retry-after')}`);
    assert.equal(body.details.retryAfterSeconds, wait);

    // While locked, not even the right token is checked: a guess that happens to be right learns nothing.
    const locked = await login(prod, TEST_CLIENT_TOKEN, client);
    assertCodedError(locked, 429, 'mnote_too_many_attempts');
    assert.equal(locked.headers.get('set-cookie'), null);

    // Another client is not affected.
    assert.equal((await login(prod, TEST_CLIENT_TOKEN, { 'cf-connecting-ip': '203.0.113.11' })).status, 200);

    await sleep((Number(locked.headers.get('retry-after')) + 0.2) * 1000);
    const after = await login(prod, TEST_CLIENT_TOKEN, client);
    assert.equal(after.status, 200, after.text);
    assert.match(cookieOf(after), /^mnote_session=v1\./);

    // The success reset the count: the next wrong logins are plain 401s again.
    for (let i = 0; i < 5; i += 1) assertCodedError(await login(prod, 'wrong-again', client), 401, 'mnote_unauthorized');
  });

  test('wrong Bearer client tokens count too, and lock out the right one while they last', async () => {
    const client = { 'cf-connecting-ip': '203.0.113.20' };
    const doc = `${prod.url}/api/documents/welcome`;
    const statuses = [];
    for (let i = 0; i < 40; i += 1) {
      statuses.push((await fetchJson(doc, { headers: { ...client, authorization: `Bearer guess-${i}` } })).status);
    }
    assert.ok(statuses.filter((s) => s === 429).length >= 20, statuses.join());
    const locked = await fetchJson(doc, { headers: { ...client, authorization: `Bearer ${TEST_CLIENT_TOKEN}` } });
    assertCodedError(locked, 429, 'mnote_too_many_attempts');
    await sleep((Number(locked.headers.get('retry-after')) + 0.2) * 1000);
    const ok = await fetchJson(doc, { headers: { ...client, authorization: `Bearer ${TEST_CLIENT_TOKEN}` } });
    assert.equal(ok.status, 200, ok.text);
  });
});

describe('logout revokes the session', () => {
  test('after logout the old cookie value is refused; another session keeps working', async () => {
    const client = { 'cf-connecting-ip': '203.0.113.30' };
    const first = cookieOf(await login(prod, TEST_CLIENT_TOKEN, client));
    const second = cookieOf(await login(prod, TEST_CLIENT_TOKEN, client));
    assert.notEqual(first, second);
    const doc = `${prod.url}/api/documents/welcome`;
    assert.equal((await fetchJson(doc, { headers: { cookie: first } })).status, 200);

    const out = await fetchJson(`${prod.url}/api/auth/logout`, { method: 'POST', headers: { cookie: first, origin: prod.url } });
    assert.equal(out.status, 200, out.text);
    assert.match(out.headers.get('set-cookie'), /^mnote_session=; Max-Age=0;/);

    // The browser drops the cookie; a copy of its value (another tab, a stolen one) no longer works.
    assertCodedError(await fetchJson(doc, { headers: { cookie: first } }), 401, 'mnote_unauthorized');
    const hermes = await fetchJson(`${prod.url}/api/hermes/client/tools`, { headers: { cookie: first } });
    assertCodedError(hermes, 401, 'hermes_client_unauthorized');
    assert.equal((await fetchJson(doc, { headers: { cookie: second } })).status, 200, 'only that session is revoked');
  });
});

describe('placeholder and short secrets', () => {
  test('outside development a placeholder client token is ignored, loudly', async () => {
    assertCodedError(await login(weak, PLACEHOLDER_TOKEN), 401, 'mnote_unauthorized');
    const bearer = await fetchJson(`${weak.url}/api/documents/welcome`, { headers: { authorization: `Bearer ${PLACEHOLDER_TOKEN}` } });
    assertCodedError(bearer, 401, 'mnote_unauthorized');
    const tool = await sendJson(`${weak.url}/api/hermes/tools/mnote/call`, 'POST', {}, { authorization: 'Bearer short-token' });
    assertCodedError(tool, 401, 'mnote_unauthorized');
    const logs = weak.logs();
    assert.match(logs, /WARNING: secret MNOTE_CLIENT_TOKEN still has its placeholder value from \.dev\.vars\.example; it is IGNORED/);
    assert.match(logs, /WARNING: secret MNOTE_TOOL_TOKEN is shorter than 16 characters; it is IGNORED/);
    assert.ok(!logs.includes('short-token'), 'the value itself is never logged');
  });

  test('in development a short secret works with a warning; a placeholder never does', async () => {
    const tool = await sendJson(`${dev.url}/api/hermes/tools/mnote/call`, 'POST', {}, { authorization: 'Bearer short-token' });
    assert.notEqual(tool.status, 401, `the short tool token opens the tool route in development: ${tool.text}`);
    const logs = dev.logs();
    assert.match(logs, /WARNING: secret MNOTE_TOOL_TOKEN is shorter than 16 characters; it is used only because this is local development/);
    assert.match(logs, /WARNING: secret HERMES_API_KEY still has its placeholder value from \.dev\.vars\.example; it is IGNORED/);
    assert.ok(!logs.includes('short-token'));
  });
});
