// The page-AI command route's Hermes hand-off: a prompt the router can't run directly starts a Hermes run
// through the proxy, in a new `mnote_{documentId}_…` session, with the frozen context and the router's tool
// hint in the instructions. Runs against the scripted Hermes double (tests/hermes/double.mjs).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';

import { startHermesDouble } from '../hermes/double.mjs';
import { readEvents } from './lib/sse.mjs';
import { TEST_CLIENT_TOKEN, startWorker } from './lib/wrangler.mjs';

const HERMES_KEY = `hk-${randomBytes(24).toString('hex')}`;
const BEARER = { authorization: `Bearer ${TEST_CLIENT_TOKEN}` };

let double;
let worker;

before(
  async () => {
    double = await startHermesDouble({ apiKey: HERMES_KEY, keepaliveMs: 400, deltaGapMs: 50 });
    worker = await startWorker({ vars: { HERMES_UPSTREAM_URL: double.url, HERMES_API_KEY: HERMES_KEY } });
  },
  { timeout: 300_000 },
);

after(async () => {
  await worker?.stop();
  await double?.close();
});

async function command(body) {
  const res = await fetch(`${worker.url}/api/page-ai/command`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...BEARER },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

test('a rewrite request starts a Hermes run with the context and the tool hint', async () => {
  const res = await command({ documentId: 'welcome', prompt: '把这一页润色得更专业一些', scope: { type: 'full' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.outcome, 'hermes');
  assert.equal(res.body.route.requiresHermesRun, true);
  assert.equal(res.body.route.intent, 'complex_rewrite');
  const run = res.body.hermesRun;
  assert.equal(run.started, true, JSON.stringify(run));
  assert.match(run.sessionId, /^mnote_welcome_[A-Za-z0-9-]+$/);

  const started = double.last('POST /v1/runs');
  assert.ok(started, 'the run reached Hermes');
  assert.equal(started.body.session_id, run.sessionId);
  assert.equal(started.body.input, '把这一页润色得更专业一些');
  const instructions = started.body.instructions;
  assert.match(instructions, /contextId/);
  assert.match(instructions, /h_title/, 'the page view reached the run');
  assert.match(instructions, /mnote\.doc\.fetch/, "the router's tool hint names the read tools");
  assert.doesNotMatch(JSON.stringify(res.body), new RegExp(HERMES_KEY), 'the key never reaches the browser');

  // The run's events stream through the proxy, tagged with the session.
  const result = await readEvents(
    `${worker.url}/api/hermes/client/events/${run.runId}?sessionId=${encodeURIComponent(run.sessionId)}`,
    { headers: BEARER },
  );
  const names = result.events.map((e) => e.data.event);
  assert.equal(names.at(-1), 'run.completed', names.join(', '));
  assert.ok(result.events.every((e) => e.data.session_id === run.sessionId));
});

test('a direct command never reaches Hermes', async () => {
  const before = double.requests.filter((r) => r.key === 'POST /v1/runs').length;
  const res = await command({ documentId: 'welcome', prompt: '把「部分接受」改成「部分采纳」', scope: { type: 'full' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.notEqual(res.body.outcome, 'hermes');
  assert.equal(res.body.hermesRun, undefined);
  assert.equal(double.requests.filter((r) => r.key === 'POST /v1/runs').length, before);
});
