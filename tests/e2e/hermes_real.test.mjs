// End-to-end against the REAL hermes-agent 0.19.0: browser → Worker (wrangler dev) → `hermes gateway run`
// (API server) → a scripted OpenAI-compatible model server. Nothing here is a double of Hermes.
//
//   node --test --test-concurrency=1 tests/e2e/hermes_real.test.mjs
//
// It needs the venv that `scripts/setup` builds in .venv/hermes (`make test` runs it first). Assertions
// are on what the model server received: the injected page context, the history of earlier turns, and
// that Hermes offered the model no host tool (terminal, files, browser).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { hermesInstalled, startHermes } from '../hermes/lib/hermes.mjs';
import { startModelServer } from '../hermes/lib/model_server.mjs';
import { readEvents } from './lib/sse.mjs';
import { startWorker } from './lib/wrangler.mjs';

const HERMES_KEY = `hk-${randomBytes(24).toString('hex')}`;

let model;
let hermes;
let worker;
const answers = []; // every Worker answer, for the key scan

async function call(path, init = {}) {
  const res = await fetch(`${worker.url}/api/hermes/client/${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...worker.auth, ...init.headers },
  });
  const text = await res.text();
  answers.push(`${text}\n${[...res.headers].join('\n')}`);
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}
const post = (path, value) => call(path, { method: 'POST', body: JSON.stringify(value) });

async function stream(runId, sessionId, options = {}) {
  const result = await readEvents(`${worker.url}/api/hermes/client/events/${runId}?sessionId=${sessionId}`, {
    headers: worker.auth,
    timeoutMs: 90_000,
    ...options,
  });
  answers.push(result.raw);
  return result;
}

/** The chat-completion requests Hermes sent for one user message. */
const requestsFor = (text) =>
  model.requests.filter((r) => (r.messages ?? []).some((m) => m.role === 'user' && String(m.content).includes(text)));

before(
  async () => {
    assert.ok(hermesInstalled(), 'the Hermes venv is missing: run scripts/setup (make test does)');
    model = await startModelServer();
    hermes = await startHermes({ modelUrl: model.url, apiKey: HERMES_KEY });
    worker = await startWorker({ vars: { HERMES_UPSTREAM_URL: hermes.url, HERMES_API_KEY: HERMES_KEY } });
  },
  { timeout: 300_000 },
);

after(async () => {
  await worker?.stop();
  await hermes?.stop();
  await model?.stop();
});

describe('the Worker against hermes-agent 0.19.0', () => {
  let sessionId;
  let firstOutput;

  test('a session is created in Hermes', async () => {
    const res = await post('sessions', { workspaceId: 'ws_local', documentId: 'welcome', title: '当前页问答' });
    assert.equal(res.status, 200, res.text);
    sessionId = res.body.sessionId;
    const direct = await fetch(`${hermes.url}/api/sessions/${sessionId}`, { headers: { authorization: `Bearer ${HERMES_KEY}` } });
    assert.equal(direct.status, 200);
    assert.equal((await direct.json()).session.title, '当前页问答');
  });

  test('a run streams to run.completed, and the page context reached the model with no host tools', async () => {
    const run = await post('runs', { documentId: 'welcome', sessionId, message: '概括当前页面的标题' });
    assert.equal(run.status, 200, run.text);
    const result = await stream(run.body.runId, sessionId);
    assert.equal(result.status, 200, result.raw);
    const names = result.events.map((e) => e.data.event);
    assert.equal(names.at(-1), 'run.completed', names.join());
    assert.ok(names.includes('message.delta'), names.join());
    for (const { data } of result.events) assert.equal(data.session_id, sessionId);
    const done = result.events.at(-1).data;
    firstOutput = done.output;
    assert.equal(firstOutput, '模型回答：概括当前页面的标题');
    const deltas = result.events.filter((e) => e.data.event === 'message.delta').map((e) => e.data.delta).join('');
    assert.equal(deltas, firstOutput);
    assert.ok(done.usage.input_tokens > 0);

    const sent = requestsFor('概括当前页面的标题');
    assert.equal(sent.length, 1, 'one model call');
    const system = sent[0].messages.find((m) => m.role === 'system').content;
    assert.match(system, /contextId: ctx_[a-z2-7]{16}/);
    assert.match(system, /<block id="h_title" type="heading" level="1">mnote Page AI<\/block>/);
    assert.match(system, /allowedTargetBlockIds: h_title, p_intro/);
    assert.match(system, /toolHint: \{/);
    assert.match(system, /reviewMode: review/);
    for (const request of model.requests) {
      assert.ok(!request.tools?.length, `Hermes offered tools: ${request.tools?.map((t) => t.function?.name)}`);
    }
  });

  test('a second run in the session shows the first exchange to the model', async () => {
    const run = await post('runs', { documentId: 'welcome', sessionId, message: '第二个问题' });
    assert.equal(run.status, 200, run.text);
    const result = await stream(run.body.runId, sessionId);
    assert.equal(result.events.at(-1).data.event, 'run.completed');
    const [request] = requestsFor('第二个问题');
    const turns = request.messages.filter((m) => m.role !== 'system').map((m) => [m.role, m.content]);
    assert.deepEqual(turns, [
      ['user', '概括当前页面的标题'],
      ['assistant', firstOutput],
      ['user', '第二个问题'],
    ]);
  });

  test('abort stops a slow run with run.cancelled', async () => {
    const run = await post('runs', { documentId: 'welcome', sessionId, message: 'write slowly [slow]' });
    assert.equal(run.status, 200, run.text);
    let abort;
    const started = performance.now();
    const result = await stream(run.body.runId, sessionId, {
      onEvent: (event) => {
        if (event.event === 'message.delta' && !abort) {
          abort = post(`runs/${run.body.runId}/abort`, { documentId: 'welcome', sessionId });
        }
      },
    });
    const aborted = await abort;
    assert.equal(aborted.status, 200, aborted.text);
    assert.deepEqual(aborted.body.events, [{ event: 'abort.started', run_id: run.body.runId }]);
    assert.equal(result.events.at(-1).data.event, 'run.cancelled', result.raw.slice(-500));
    const deltas = result.events.filter((e) => e.data.event === 'message.delta').length;
    assert.ok(deltas < 200, `the model stream was cut (${deltas} deltas)`);
    assert.ok(performance.now() - started < 45_000, 'cancelled long before the scripted minute');
  });

  test('the session lists and reads back through the Worker', async () => {
    const list = await call('sessions?workspaceId=ws_local&documentId=welcome');
    assert.equal(list.status, 200, list.text);
    const entry = list.body.sessions.find((s) => s.sessionId === sessionId);
    assert.ok(entry, JSON.stringify(list.body));
    assert.equal(entry.title, '当前页问答');
    assert.ok(entry.messageCount >= 4, `${entry.messageCount} messages`);
    assert.equal(entry.preview, '概括当前页面的标题');

    const detail = await call(`sessions/${sessionId}?documentId=welcome`);
    assert.equal(detail.status, 200, detail.text);
    const turns = detail.body.messages.map((m) => [m.role, m.content]);
    assert.deepEqual(turns.slice(0, 4), [
      ['user', '概括当前页面的标题'],
      ['assistant', firstOutput],
      ['user', '第二个问题'],
      ['assistant', '模型回答：第二个问题'],
    ]);
    assert.ok(detail.body.usage.inputTokens > 0 && detail.body.usage.totalTokens >= detail.body.usage.inputTokens);
  });

  test('models come from Hermes', async () => {
    const res = await call('models');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.defaultModel, 'hermes-agent');
    assert.deepEqual(res.body.models[0], { id: 'hermes-agent', label: 'Hermes Agent', provider: 'hermes' });
  });

  test('the Hermes key never reached a Worker answer or log', () => {
    for (const text of answers) assert.ok(!text.includes(HERMES_KEY));
    assert.ok(!worker.logs().includes(HERMES_KEY));
  });
});
