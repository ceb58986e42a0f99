// End-to-end: signed sign-in tokens (issue 18, item 1). Keys are made by the test (node:crypto), so nothing
// reaches a network: a Worker with a fixed JWK set (MNOTE_JWT_KEYS) checks every refusal, and two Workers
// with a JWKS URL served on 127.0.0.1 check key rotation, with and without the floor on refetching.
//
//   node --test --test-concurrency=1 tests/e2e/identity.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { AUDIENCE, ISSUER, claims, hmacWithPublicKey, jwkSet, jwtVars, makeKey, makeKeys, sign, startJwksServer, unsigned } from './lib/identity.mjs';
import { TEST_CLIENT_TOKEN, assertCodedError, fetchJson, sendJson, startWorker } from './lib/wrangler.mjs';

const keys = makeKeys();
const stranger = makeKeys('stranger'); // same kids' shape, never configured
const reader = (extra = {}) => claims({ sub: 'user_ana', workspaces: { ws_local: 'viewer' }, ...extra });

// Every refused token counts as a failed sign-in; these tests make many on purpose.
const LENIENT = { MNOTE_SIGN_IN_FREE_FAILURES: '10000' };

let fixed; // MNOTE_JWT_KEYS: one key per algorithm
let rotating; // a JWKS URL, refetched on an unknown kid at most once a second
let floored; // a JWKS URL, refetched at most once an hour
let jwks;

before(
  async () => {
    jwks = await startJwksServer();
    jwks.set('rotating', jwkSet([keys.es]));
    jwks.set('floored', jwkSet([keys.es]));
    const url = (name, floor) => ({
      MNOTE_JWT_ISSUER: ISSUER,
      MNOTE_JWT_AUDIENCE: AUDIENCE,
      MNOTE_JWT_JWKS_URL: jwks.url(name),
      MNOTE_JWT_JWKS_MIN_REFRESH_SECONDS: String(floor),
    });
    // Settled, not Promise.all: when one Worker fails to start, the ones that did are stopped too (the
    // after hook cannot reach Workers that were never assigned, and they would outlive the test).
    const started = await Promise.allSettled([
      startWorker({ vars: { ...jwtVars(jwkSet(keys)), ...LENIENT } }),
      startWorker({ vars: { ...url('rotating', 1), ...LENIENT } }),
      startWorker({ vars: { ...url('floored', 3600), ...LENIENT } }),
    ]);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      await Promise.all(started.filter((s) => s.status === 'fulfilled').map((s) => s.value.stop()));
      throw failed.reason;
    }
    [fixed, rotating, floored] = started.map((s) => s.value);
  },
  { timeout: 600_000 },
);

after(async () => {
  await Promise.all([fixed?.stop(), rotating?.stop(), floored?.stop()]);
  await jwks?.stop();
});

/** `GET /api/documents/welcome` with `Authorization: Bearer token`. */
const read = (worker, token) => fetchJson(`${worker.url}/api/documents/welcome`, { headers: { authorization: `Bearer ${token}` } });

async function refused(worker, token, what) {
  const res = await read(worker, token);
  assertCodedError(res, 401, 'mnote_unauthorized');
  assert.doesNotMatch(res.text, /eyJ/, `${what}: the answer never echoes the token`);
}

describe('a fixed key set', () => {
  test('a token signed by each configured algorithm reads the page', async () => {
    for (const key of Object.values(keys)) {
      const res = await read(fixed, sign(key, reader()));
      assert.equal(res.status, 200, `${key.alg}: ${res.text}`);
      assert.equal(res.body.documentId, 'welcome');
    }
  });

  test('expired, not yet valid, wrong audience, wrong issuer and missing claims are refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases = {
      expired: reader({ exp: now - 120 }),
      'not yet valid': reader({ nbf: now + 600 }),
      'wrong audience': reader({ aud: 'another-app' }),
      'wrong issuer': reader({ iss: 'https://evil.example' }),
      'no exp': { ...reader(), exp: undefined },
      'no sub': { ...reader(), sub: undefined },
    };
    for (const [what, payload] of Object.entries(cases)) await refused(fixed, sign(keys.es, payload), what);
    // Inside the leeway of 30 s an expiry still passes: clocks drift.
    assert.equal((await read(fixed, sign(keys.es, reader({ exp: now - 5 })))).status, 200);
  });

  test('the algorithm comes from the key: none, HS256 with the public key, and another algorithm are refused', async () => {
    await refused(fixed, unsigned(keys.es.kid, reader()), 'alg none');
    await refused(fixed, unsigned(keys.es.kid, reader()) + 'c2ln', 'alg none with a signature');
    for (const key of Object.values(keys)) {
      for (const token of hmacWithPublicKey(key, reader())) await refused(fixed, token, `HS256 with ${key.alg}'s public key`);
    }
    // An RS256 signature presented under the ES256 key's kid, and a header that lies about the algorithm.
    await refused(fixed, sign(keys.rs, reader(), { kid: keys.es.kid }), 'RS256 under the ES256 kid');
    await refused(fixed, sign(keys.es, reader(), { alg: 'ES384' }), 'a header claiming ES384');
  });

  test('an unknown kid, or a known kid with a stranger key, is refused', async () => {
    await refused(fixed, sign(stranger.es, reader()), 'unknown kid');
    await refused(fixed, sign(stranger.es, reader(), { kid: keys.es.kid }), 'a stranger key under a known kid');
    await refused(fixed, sign(keys.es, reader(), { kid: undefined }), 'no kid, several keys');
  });

  test('POST /api/auth/session trades a token for a cookie that carries the user', async () => {
    const ana = reader();
    const res = await sendJson(`${fixed.url}/api/auth/session`, 'POST', { token: sign(keys.ed, ana) }, { origin: fixed.url });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.user, 'user_ana');
    // The roles a token grants end with the token: the session (12 h by default) ends at its exp.
    assert.equal(res.body.expiresAt, ana.exp, 'the session ends when the token does');
    const maxAge = Number(/Max-Age=(\d+)/.exec(res.headers.get('set-cookie'))[1]);
    assert.ok(maxAge > 0 && maxAge <= ana.exp - ana.iat, `Max-Age ${maxAge} is within the token's life`);
    const cookie = res.headers.get('set-cookie').split(';')[0];
    assert.match(cookie, /^mnote_session=v2\./);
    const page = await fetchJson(`${fixed.url}/api/documents/welcome`, { headers: { cookie } });
    assert.equal(page.status, 200, page.text);
    // The Bearer form, with no body.
    const bare = await fetchJson(`${fixed.url}/api/auth/session`, { method: 'POST', headers: { origin: fixed.url, authorization: `Bearer ${sign(keys.rs, reader())}` } });
    assert.equal(bare.status, 200, bare.text);
    for (const token of [sign(keys.es, reader({ aud: 'x' })), unsigned(keys.es.kid, reader()), 'not-a-jwt']) {
      const bad = await sendJson(`${fixed.url}/api/auth/session`, 'POST', { token }, { origin: fixed.url });
      assertCodedError(bad, 401, 'mnote_unauthorized');
      assert.equal(bad.headers.get('set-cookie'), null);
    }
  });

  test('the client token still signs in the single user beside signed tokens', async () => {
    const res = await fetchJson(`${fixed.url}/api/documents/welcome`, { headers: { authorization: `Bearer ${TEST_CLIENT_TOKEN}` } });
    assert.equal(res.status, 200, res.text);
  });
});

describe('a JWKS URL', () => {
  test('a rotated key is fetched on its first unknown kid; a key taken out stops working', async () => {
    assert.equal((await read(rotating, sign(keys.es, reader()))).status, 200);
    const fetchedOnce = jwks.fetches('rotating');
    assert.equal((await read(rotating, sign(keys.es, reader()))).status, 200);
    assert.equal(jwks.fetches('rotating'), fetchedOnce, 'a known kid is served from the cache');
    const next = makeKey('EdDSA', 'k_rotated');
    jwks.set('rotating', jwkSet([next]));
    await sleep(1100); // past the floor of 1 s since the last fetch
    const res = await read(rotating, sign(next, reader()));
    assert.equal(res.status, 200, res.text);
    assert.equal(jwks.fetches('rotating'), fetchedOnce + 1, 'the unknown kid made one fetch');
    await sleep(1100);
    await refused(rotating, sign(keys.es, reader()), 'the retired key');
  });

  test('unknown kids refetch the set at most once per MNOTE_JWT_JWKS_MIN_REFRESH_SECONDS', async () => {
    assert.equal((await read(floored, sign(keys.es, reader()))).status, 200);
    const fetched = jwks.fetches('floored');
    const next = makeKey('ES256', 'k_too_soon');
    jwks.set('floored', jwkSet([keys.es, next]));
    for (let i = 0; i < 5; i++) await refused(floored, sign(makeKey('ES256', `k_made_up_${i}`), reader()), 'a made-up kid');
    await refused(floored, sign(next, reader()), 'a new key within the floor');
    assert.equal(jwks.fetches('floored'), fetched, 'no refetch within the floor');
  });
});
