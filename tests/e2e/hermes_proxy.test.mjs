// End-to-end: the Hermes client proxy (/api/hermes/client/*) and browser auth of the Worker under
// wrangler dev, against the scripted Hermes double (tests/hermes/double.mjs), which follows SPEC §10.
//
//   node --test --test-concurrency=1 tests/e2e/hermes_proxy.test.mjs
//
// Every answer of the suite (bodies and headers) and the Worker's log are scanned for the Hermes key at
// the end: it must never leave the Worker.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { startHermesDouble } from '../hermes/double.mjs';
import { readEvents } from './lib/sse.mjs';
import { TEST_CLIENT_TOKEN, TEST_SESSION_SECRET, assertCodedError, startWorker } from './lib/wrangler.mjs';

const HERMES_KEY = `hk-${randomBytes(24).toString('hex')}`;
const TOOL_TOKEN = `tt-${randomBytes(24).toString('hex')}`;
const TIMEOUT_MS = 1_500;
const IDLE_MS = 2_500;
const ALLOWED = 'https://app.example';
const PROFILE = JSON.stringify({ reviewMode: 'review', tools: { disabled: ['mnote.page.save'] } });
const BEARER = { authorization: `Bearer ${TEST_CLIENT_TOKEN}` };

let double;
let worker; // configured: upstream = the double
let bare; // no upstream, no session secret
const seen = []; // every answer of the suite, for the key scan

/** fetch + read + record. Returns {status, headers, text, body}. */
async function call(url, init = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON.
  }
  seen.push({ url, status: res.status, headers: [...res.headers], text });
  return { status: res.status, headers: res.headers, text, body };
}

const api = (path) => `${worker.url}/api/hermes/client/${path}`;
const get = (path, headers = BEARER) => call(api(path), { headers });
const post = (path, value, headers = BEARER) =>
  call(api(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof value === 'string' ? value : JSON.stringify(value),
  });

async function events(runId, sessionId, options = {}) {
  const result = await readEvents(api(`events/${runId}?sessionId=${encodeURIComponent(sessionId)}`), { headers: BEARER, ...options });
  seen.push({ url: `events/${runId}`, status: result.status, headers: [...result.headers], text: result.raw });
  return result;
}

async function newSession(documentId = 'welcome', title) {
  const res = await post('sessions', { workspaceId: 'ws_local', documentId, traceId: 'trace_1', ...(title ? { title } : {}) });
  assert.equal(res.status, 200, res.text);
  return res.body.sessionId;
}

async function startRun(body) {
  const res = await post('runs', { workspaceId: 'ws_local', documentId: 'welcome', ...body });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

before(
  async () => {
    double = await startHermesDouble({ apiKey: HERMES_KEY, keepaliveMs: 400, deltaGapMs: 250 });
    worker = await startWorker({
      vars: {
        HERMES_UPSTREAM_URL: double.url,
        HERMES_API_KEY: HERMES_KEY,
        MNOTE_TOOL_TOKEN: TOOL_TOKEN,
        HERMES_TIMEOUT_MS: String(TIMEOUT_MS),
        HERMES_STREAM_IDLE_MS: String(IDLE_MS),
        MNOTE_ALLOWED_ORIGINS: `${ALLOWED}, https://other.example`,
        MNOTE_DEFAULT_PROFILE: PROFILE,
      },
    });
    bare = await startWorker({ vars: { MNOTE_SESSION_SECRET: null } });
  },
  { timeout: 300_000 },
);

after(async () => {
  await worker?.stop();
  await bare?.stop();
  await double?.close();
});

describe('auth', () => {
  test('/health is the only open route', async () => {
    assert.equal((await call(`${worker.url}/health`)).status, 200);
    const routes = [
      ['GET', 'sessions?documentId=welcome'],
      ['POST', 'sessions'],
      ['GET', 'sessions/mnote_welcome_x'],
      ['POST', 'runs'],
      ['GET', 'events/run_1?sessionId=mnote_welcome_x'],
      ['POST', 'runs/run_1/abort'],
      ['GET', 'models'],
      ['GET', 'tools'],
    ];
    for (const headers of [{}, { authorization: 'Bearer not-the-token' }, { cookie: 'mnote_session=forged' }]) {
      for (const [method, path] of routes) {
        const res = await call(api(path), { method, headers });
        assertCodedError(res, 401, 'hermes_client_unauthorized');
      }
      assertCodedError(await call(`${worker.url}/api/documents/welcome`, { headers }), 401, 'mnote_unauthorized');
    }
    assert.equal(double.requests.length, 0, 'nothing reached Hermes');
  });

  let cookie;
  test('login with the client token issues a signed HttpOnly SameSite=Strict cookie', async () => {
    const wrong = await call(`${worker.url}/api/auth/login`, { method: 'POST', body: JSON.stringify({ token: 'nope' }) });
    assertCodedError(wrong, 401, 'mnote_unauthorized');
    assert.equal(wrong.headers.get('set-cookie'), null);
    const res = await call(`${worker.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: worker.url },
      body: JSON.stringify({ token: TEST_CLIENT_TOKEN }),
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['expiresAt', 'ok', 'traceId', 'user']);
    assert.equal(res.body.user, 'user', 'the single user of the client token');
    const now = Date.now() / 1000;
    assert.ok(res.body.expiresAt > now + 3600 && res.body.expiresAt < now + 13 * 3600, `${res.body.expiresAt}`);
    const setCookie = res.headers.get('set-cookie');
    assert.match(setCookie, /^mnote_session=v2\.\d+\.[a-z2-7]+\.[A-Za-z0-9_-]+\.[0-9a-f]{64}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.ok(!setCookie.includes(TEST_CLIENT_TOKEN) && !setCookie.includes(TEST_SESSION_SECRET));
    cookie = setCookie.split(';')[0];
    const tools = await get('tools', { cookie });
    assert.equal(tools.status, 200, tools.text);
  });

  test('a tampered or re-dated cookie is refused', async () => {
    const [name, value] = cookie.split('=');
    const [v, exp, nonce, who, sig] = value.split('.');
    const later = `${name}=${v}.${Number(exp) + 86_400}.${nonce}.${who}.${sig}`;
    const flipped = `${name}=${v}.${exp}.${nonce}.${who}.${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`;
    const someoneElse = Buffer.from(JSON.stringify({ user: 'mallory', workspaces: { ws_local: 'owner' } })).toString('base64url');
    const impersonated = `${name}=${v}.${exp}.${nonce}.${someoneElse}.${sig}`;
    for (const forged of [later, flipped, impersonated, `${name}=${v}.${exp}.${nonce}.${who}`]) {
      assertCodedError(await get('tools', { cookie: forged }), 401, 'hermes_client_unauthorized');
    }
  });

  test('state-changing requests need an allowed origin', async () => {
    const body = { documentId: 'welcome' };
    const evil = await post('sessions', body, { cookie, origin: 'https://evil.example' });
    assert.equal(assertCodedError(evil, 403, 'mnote_forbidden_origin').details.origin, 'https://evil.example');
    assertCodedError(await post('sessions', body, { ...BEARER, origin: 'https://evil.example' }), 403, 'mnote_forbidden_origin');
    // A cookie without any Origin is what a forged cross-site form would look like: refused.
    assertCodedError(await post('sessions', body, { cookie }), 403, 'mnote_forbidden_origin');
    const login = await call(`${worker.url}/api/auth/login`, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      body: JSON.stringify({ token: TEST_CLIENT_TOKEN }),
    });
    assertCodedError(login, 403, 'mnote_forbidden_origin');
    for (const origin of [worker.url, ALLOWED, 'https://other.example']) {
      const res = await post('sessions', body, { cookie, origin });
      assert.equal(res.status, 200, `${origin}: ${res.text}`);
    }
    // A token holder without an Origin (a script) may write.
    assert.equal((await post('sessions', body)).status, 200);
  });

  test('logout clears the cookie; dev-login is off unless MNOTE_DEV_AUTO_LOGIN=true', async () => {
    const out = await call(`${worker.url}/api/auth/logout`, { method: 'POST', headers: { origin: worker.url } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie'), /^mnote_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/);
    const dev = await call(`${worker.url}/api/auth/dev-login`, { method: 'POST', headers: { origin: worker.url } });
    assertCodedError(dev, 401, 'mnote_unauthorized');
  });
});

describe('tools and models', () => {
  test('tools: the enabled tools of the default profile, from the core manifest', async () => {
    const res = await get('tools');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['ok', 'tools', 'traceId']);
    const names = res.body.tools.map((t) => t.name);
    assert.ok(names.includes('mnote.doc.fetch') && names.includes('mnote.doc.apply_block_ops'), names.join());
    assert.ok(!names.includes('mnote.page.save'), 'disabled by MNOTE_DEFAULT_PROFILE');
    for (const tool of res.body.tools) {
      assert.deepEqual(Object.keys(tool).sort(), ['name', 'schemaVersion', 'scope']);
      assert.equal(tool.schemaVersion, 'mnote.hermes_tool.v1');
      assert.match(tool.scope, /^(doc|block|page)\.(read|write)$/);
    }
  });

  test('models: Hermes /v1/models in the 7-5 shape', async () => {
    const res = await get('models', { ...BEARER, 'x-trace-id': 'trace-models-1' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      ok: true,
      traceId: 'trace-models-1',
      defaultModel: 'hermes-agent',
      models: [
        { id: 'hermes-agent', label: 'Hermes Agent', provider: 'hermes' },
        { id: 'fast', label: 'fast', provider: 'hermes' },
      ],
    });
    const upstream = double.last('GET /v1/models');
    assert.equal(upstream.headers.authorization, `Bearer ${HERMES_KEY}`);
    assert.equal(upstream.headers['x-trace-id'], 'trace-models-1', 'the trace id goes upstream');
    assert.equal(res.headers.get('x-trace-id'), 'trace-models-1');
  });
});

describe('sessions', () => {
  test('create mints mnote_{documentId}_{suffix} in Hermes', async () => {
    const res = await post('sessions', { workspaceId: 'ws_local', documentId: 'welcome', traceId: 'trace_1', title: '当前页问答' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['ok', 'persistence', 'sessionId', 'traceId']);
    assert.match(res.body.sessionId, /^mnote_welcome_[a-z2-7]{12}$/);
    assert.equal(res.body.persistence, 'hermes_on_first_run');
    // The body's traceId (as the 7-5 examples send it) is the request's trace, here and upstream.
    assert.equal(res.body.traceId, 'trace_1');
    assert.equal(res.headers.get('x-trace-id'), 'trace_1');
    const created = double.last('POST /api/sessions');
    assert.equal(created.headers['x-trace-id'], 'trace_1');
    assert.deepEqual(created.body, { id: res.body.sessionId, title: '当前页问答' });
    assert.equal(double.sessions.get(res.body.sessionId).title, '当前页问答');
    // Hermes titles are unique: a second one with the same title gets the suffix.
    const again = await post('sessions', { documentId: 'welcome', title: '当前页问答' });
    assert.equal(again.status, 200, again.text);
    const suffix = again.body.sessionId.split('_').at(-1);
    assert.equal(double.sessions.get(again.body.sessionId).title, `当前页问答 (${suffix})`);
  });

  test('list filters by the document, also when one id is a prefix of another', async () => {
    double.sessions.clear();
    const mine = await newSession('doc');
    await newSession('doc_1');
    await newSession('doc_1');
    const res = await get('sessions?workspaceId=ws_local&documentId=doc&limit=20');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['ok', 'sessions', 'traceId']);
    assert.deepEqual(res.body.sessions.map((s) => s.sessionId), [mine]);
    const entry = res.body.sessions[0];
    assert.deepEqual(Object.keys(entry).sort(), ['messageCount', 'model', 'preview', 'sessionId', 'title', 'toolCallCount', 'updatedAt']);
    assert.equal(typeof entry.updatedAt, 'number');
    const two = await get('sessions?documentId=doc_1&limit=1');
    assert.equal(two.body.sessions.length, 1);
    assert.match(two.body.sessions[0].sessionId, /^mnote_doc_1_/);
    assert.equal(double.last('GET /api/sessions').query.limit, '200');
  });

  test('bad list and create requests', async () => {
    assertCodedError(await get('sessions'), 400, 'hermes_client_bad_request');
    assert.equal(assertCodedError(await get('sessions?documentId=doc&limit=0'), 400, 'hermes_client_bad_request').details.pointer, '/limit');
    assert.equal(assertCodedError(await get('sessions?documentId=a.b'), 400, 'hermes_client_bad_request').details.pointer, '/documentId');
    const unknown = await post('sessions', { documentId: 'welcome', colour: 'red' });
    assert.equal(assertCodedError(unknown, 400, 'hermes_client_bad_request').details.pointer, '/colour');
    assertCodedError(await post('sessions', '{"documentId":'), 400, 'hermes_client_bad_request');
    assertCodedError(await post('sessions', {}), 400, 'hermes_client_bad_request');
    const badUtf8 = await call(api('sessions'), { method: 'POST', headers: BEARER, body: Buffer.from([0x7b, 0xff, 0x7d]) });
    assertCodedError(badUtf8, 400, 'hermes_client_bad_request');
  });
});

describe('runs and events', () => {
  let sessionId;
  let first;
  let stream;

  test('a run freezes the page and injects context, manifest, hint and policy', async () => {
    sessionId = await newSession('welcome');
    const res = await post('runs', {
      workspaceId: 'ws_local',
      documentId: 'welcome',
      sessionId,
      message: '概括当前页面标题和第一段',
      model: 'hermes-agent',
      pageContext: { title: 'untrusted', outline: [], pageOptions: { wideLayout: true } },
      selectedBlockId: null,
      selectedText: null,
      traceId: 'trace_1',
    }, { ...BEARER, 'x-trace-id': 'trace-run-1' });
    assert.equal(res.status, 200, res.text);
    first = res.body;
    assert.deepEqual(Object.keys(first).sort(), ['events', 'messageId', 'ok', 'runId', 'sessionId', 'traceId']);
    assert.deepEqual([first.ok, first.sessionId, first.messageId, first.events, first.traceId], [true, sessionId, null, [], 'trace-run-1']);
    assert.match(first.runId, /^run_[0-9a-f]{32}$/);

    const sent = double.last('POST /v1/runs');
    assert.equal(sent.headers.authorization, `Bearer ${HERMES_KEY}`);
    assert.equal(sent.headers['x-trace-id'], 'trace-run-1');
    assert.deepEqual(Object.keys(sent.body).sort(), ['conversation_history', 'input', 'instructions', 'model', 'session_id']);
    assert.equal(sent.body.input, '概括当前页面标题和第一段');
    assert.equal(sent.body.session_id, sessionId);
    assert.deepEqual(sent.body.conversation_history, []);
    const text = sent.body.instructions;
    const contextId = text.match(/contextId: (ctx_[a-z2-7]{16})/)?.[1];
    assert.ok(contextId, text.slice(0, 500));
    assert.match(text, /allowedTargetBlockIds: h_title, /);
    assert.match(text, /<page id="welcome" revision="1"/);
    assert.match(text, /<block id="h_title" type="heading" level="1">mnote Page AI<\/block>/);
    assert.ok(!text.includes('untrusted'), 'the browser page context is not trusted');
    assert.match(text, /- mnote\.doc\.fetch \(mcp__mnote__doc_fetch\): read/);
    assert.match(text, /mnote\.page\.save is unavailable: disabled in the profile/);
    assert.match(text, /toolHint: \{"readTools":\[/);
    assert.match(text, /reviewMode: review/);

    // The context is frozen in the document's Durable Object, with an expiry about an hour out.
    const frozen = frozenContexts(worker.persistTo).find((row) => row.context_id === contextId);
    assert.ok(frozen, 'a frozen_contexts row');
    assert.equal(frozen.document_id, 'welcome');
    assert.equal(frozen.scope, 'full');
    assert.deepEqual(JSON.parse(frozen.scope_detail), { type: 'full' }, 'the request\'s full scope is kept');
    assert.equal(frozen.revision, 1);
    assert.ok(JSON.parse(frozen.allowed_ids).includes('h_title'));
    const ttl = frozen.expires_at_ms - Date.now();
    assert.ok(ttl > 3_500_000 && ttl <= 3_600_000, `${ttl} ms`);
  });

  test('events are relayed as they arrive, with session_id, keepalives, and a clean end', async () => {
    stream = await events(first.runId, sessionId);
    assert.equal(stream.status, 200, stream.raw);
    assert.match(stream.headers.get('content-type'), /^text\/event-stream/);
    assert.equal(stream.headers.get('cache-control'), 'no-cache, no-transform');
    assert.ok(stream.ended, 'the stream ended');
    const names = stream.events.map((e) => e.data.event);
    assert.deepEqual(names, ['tool.started', 'tool.completed', ...Array(5).fill('message.delta'), 'run.completed']);
    for (const { data } of stream.events) {
      assert.equal(data.session_id, sessionId);
      assert.equal(data.run_id, first.runId);
    }
    const done = stream.events.at(-1).data;
    assert.equal(done.output, '当前页的标题是 mnote Page AI');
    assert.deepEqual(done.usage, { input_tokens: 120, output_tokens: 30, total_tokens: 150 });
    assert.ok(stream.comments.some((c) => c.text === ': keepalive'), `keepalive comments pass through: ${JSON.stringify(stream.raw)}`);
    assert.ok(!stream.raw.includes('stream closed'), 'nothing after the terminal event');

    // Streamed, not buffered: the first event arrived long before the double sent the last one.
    const sentAt = double.sent.get(first.runId);
    const firstArrival = stream.events[0].at;
    const lastSent = sentAt.at(-1);
    assert.ok(lastSent - firstArrival > 1_500, `first event at ${firstArrival}, last sent at ${lastSent}`);
    const arrivals = stream.events.map((e) => e.at);
    assert.ok(arrivals.at(-1) - arrivals[0] > 1_500, 'arrivals are spread like the sends');
    for (const [i, at] of arrivals.entries()) assert.ok(at >= sentAt[i] - 5, `event ${i} arrived before it was sent?`);
  });

  test('a second run in the session sends the first exchange as history', async () => {
    const second = await startRun({ sessionId, message: '第二个问题' });
    const sent = double.last('POST /v1/runs');
    assert.deepEqual(sent.body.conversation_history, [
      { role: 'user', content: '概括当前页面标题和第一段' },
      { role: 'assistant', content: '当前页的标题是 mnote Page AI' },
    ]);
    assert.ok(!('model' in sent.body), 'no model: Hermes picks its default');
    const done = await events(second.runId, sessionId);
    assert.equal(done.events.at(-1).data.event, 'run.completed');
  });

  test('the session reads back with messages and usage', async () => {
    const res = await get(`sessions/${sessionId}?workspaceId=ws_local&documentId=welcome`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['messages', 'ok', 'sessionId', 'traceId', 'usage']);
    assert.deepEqual(res.body.messages.map((m) => [m.role, m.content]), [
      ['user', '概括当前页面标题和第一段'],
      ['assistant', '当前页的标题是 mnote Page AI'],
      ['user', '第二个问题'],
      ['assistant', '当前页的标题是 mnote Page AI'],
    ]);
    const message = res.body.messages[0];
    assert.deepEqual(Object.keys(message).sort(), ['content', 'messageId', 'reasoning', 'role', 'timestamp', 'toolCallId', 'toolName']);
    assert.equal(typeof message.messageId, 'string');
    assert.equal(Number.isInteger(message.timestamp), true);
    assert.deepEqual(res.body.usage, { inputTokens: 240, outputTokens: 60, totalTokens: 300 });
    assertCodedError(await get(`sessions/${sessionId}?documentId=other`), 400, 'hermes_client_bad_request');
    assertCodedError(await get('sessions/telegram_42'), 400, 'hermes_client_bad_request');
    const missing = assertCodedError(await get('sessions/mnote_welcome_nosuchsession'), 400, 'hermes_client_bad_request');
    assert.match(missing.message, /404 session_not_found/);
  });

  test('a selected block narrows the scope and the selected text is quoted', async () => {
    const run = await startRun({ sessionId, message: '润色这一段', selectedBlockId: 'h_title', selectedText: 'mnote Page AI' });
    const text = double.last('POST /v1/runs').body.instructions;
    assert.match(text, /scope: selection/);
    assert.match(text, /allowedTargetBlockIds: h_title\n/);
    assert.match(text, /The user selected this text: "mnote Page AI"/);
    await events(run.runId, sessionId);
  });

  test('a run for a session id chosen by the client (not yet in Hermes) starts with no history', async () => {
    const run = await startRun({ sessionId: 'mnote_welcome_clientmade1', message: 'hello' });
    assert.deepEqual(double.last('POST /v1/runs').body.conversation_history, []);
    await events(run.runId, 'mnote_welcome_clientmade1');
  });

  test('bad run requests are coded and reach no Hermes run', async () => {
    const before = double.requests.filter((r) => r.path === '/v1/runs').length;
    const base = { documentId: 'welcome', sessionId, message: 'hi' };
    const cases = [
      [{ ...base, message: '  ' }, '/message'],
      [{ ...base, message: 'x'.repeat(32_001) }, '/message'],
      [{ documentId: 'welcome', sessionId }, ''],
      [{ ...base, sessionId: 'mnote_other_abc' }, '/sessionId'],
      [{ ...base, colour: 'red' }, '/colour'],
      [{ ...base, selectedBlockId: 'a b' }, '/selectedBlockId'],
      [{ ...base, documentId: 'a/b' }, '/documentId'],
    ];
    for (const [body, pointer] of cases) {
      const error = assertCodedError(await post('runs', body), 400, 'hermes_client_bad_request');
      if (pointer) assert.equal(error.details.pointer, pointer, JSON.stringify(error));
    }
    assertCodedError(await post('runs', 'not json'), 400, 'hermes_client_bad_request');
    const unknownDoc = await post('runs', { ...base, documentId: 'nope', sessionId: 'mnote_nope_abc' });
    assertCodedError(unknownDoc, 404, 'mnote_document_not_found');
    const unknownBlock = await post('runs', { ...base, selectedBlockId: 'p_missing' });
    assertCodedError(unknownBlock, 404, 'mnote_block_not_found');
    assert.equal(double.requests.filter((r) => r.path === '/v1/runs').length, before);
  });

  test('bad event requests', async () => {
    assertCodedError(await get('events/run_1'), 400, 'hermes_client_bad_request');
    assertCodedError(await get('events/run_1?sessionId=nope'), 400, 'hermes_client_bad_request');
    assertCodedError(await get('events/run%20x?sessionId=mnote_welcome_x'), 400, 'hermes_client_bad_request');
    const gone = assertCodedError(await get(`events/${first.runId}?sessionId=${sessionId}`), 400, 'hermes_client_bad_request');
    assert.match(gone.message, /run_not_found/, 'one reader per run');
    const unknown = assertCodedError(await get(`events/run_0abc?sessionId=${sessionId}`), 400, 'hermes_client_bad_request');
    assert.match(unknown.message, /404 run_not_found/);
    // The session_id stamped on events is Hermes' fact: a run of another session is refused.
    const other = await newSession('welcome');
    const run = await startRun({ sessionId: other, message: 'hi' });
    const wrong = assertCodedError(await get(`events/${run.runId}?sessionId=${sessionId}`), 400, 'hermes_client_bad_request');
    assert.equal(wrong.details.pointer, '/sessionId');
    const abort = await post(`runs/${run.runId}/abort`, { documentId: 'welcome', sessionId });
    assert.equal(assertCodedError(abort, 400, 'hermes_client_bad_request').details.pointer, '/sessionId');
    await events(run.runId, other);
  });

  test('Hermes run.failed is passed through and ends the stream', async () => {
    const run = await startRun({ sessionId, message: 'please [fail]' });
    const result = await events(run.runId, sessionId);
    assert.deepEqual(result.events.map((e) => e.data.event), ['run.failed']);
    assert.equal(result.events[0].data.error, 'the model provider refused the request');
    assert.ok(result.ended);
  });

  test('a stream dropped mid-run ends with a coded run.failed', async () => {
    const run = await startRun({ sessionId, message: 'please [drop]' });
    const result = await events(run.runId, sessionId);
    const names = result.events.map((e) => e.data.event);
    assert.deepEqual(names, ['message.delta', 'message.delta', 'run.failed']);
    const failed = result.events.at(-1).data;
    assert.equal(failed.code, 'hermes_client_upstream_unavailable');
    assert.equal(failed.session_id, sessionId);
    assert.equal(failed.run_id, run.runId);
    assert.equal(failed.timed_out, false);
    assert.ok(result.ended);
  });

  test('a silent stream ends after the idle timeout with a coded run.failed', async () => {
    const run = await startRun({ sessionId, message: 'please [stall]' });
    const result = await events(run.runId, sessionId);
    const failed = result.events.at(-1).data;
    assert.equal(failed.event, 'run.failed');
    assert.equal(failed.code, 'hermes_client_upstream_unavailable');
    assert.equal(failed.timed_out, true);
    // Not before the idle time (how much later depends on the machine's load, so no upper bound: a stream
    // that never ended would fail the test on its own bound).
    const silence = failed && result.events.at(-1).at - result.events.at(-2).at;
    assert.ok(silence >= IDLE_MS - 100, `${silence} ms`);
  });

  test('a malformed upstream event is skipped; the stream goes on', async () => {
    const run = await startRun({ sessionId, message: 'please [malformed]' });
    const result = await events(run.runId, sessionId);
    assert.deepEqual(result.events.map((e) => e.data.event), ['message.delta', 'run.completed']);
    assert.ok(!result.raw.includes('this is not json'));
  });

  test('CR, LF and CRLF all end an upstream line; the client sees only what the relay framed', async () => {
    const run = await startRun({ sessionId, message: 'please [line-endings]' });
    const result = await events(run.runId, sessionId);
    assert.equal(result.status, 200, result.raw);
    assert.ok(!result.raw.includes('\r'), `no CR reaches the client: ${JSON.stringify(result.raw)}`);
    // Every unit of the body is one the relay wrote itself: an event, or its keepalive comment.
    const units = result.raw.split('\n\n');
    assert.equal(units.pop(), '', 'the body ends with a blank line');
    for (const unit of units) assert.match(unit, /^(data: \{[^\n]*\}|: keepalive)$/, JSON.stringify(unit));
    assert.deepEqual(result.unparsed, []);
    // (Where the text is cut between deltas can move: a tail that could begin a secret waits; see below.)
    const deltas = result.events.filter((e) => e.data.event === 'message.delta');
    assert.equal(deltas.map((e) => e.data.delta).join(''), 'cr crlf after a comment');
    assert.deepEqual([...new Set(result.events.map((e) => e.data.event))], ['message.delta', 'run.completed']);
    for (const { data } of result.events) assert.equal(data.session_id, sessionId, 'every event is stamped by the relay');
    // The data line after the comment's CR is a line, for a browser reading Hermes directly too: the relay
    // stamps that run.completed and ends there, so Hermes' own run.completed is not forwarded.
    assert.equal(result.events.at(-1).data.output, undefined);
    assert.ok(result.ended);
  });

  test('the Hermes key is redacted in every relayed event, at any depth and however it is split', async () => {
    // Hermes also holds MNOTE_TOOL_TOKEN (what it presents to /mcp); the relay scrubs that one too.
    double.echoed = [TOOL_TOKEN];
    const run = await startRun({ sessionId, message: 'please [echo-key]' });
    const result = await events(run.runId, sessionId);
    double.echoed = [];
    assert.equal(result.status, 200, result.raw);
    const half = Math.floor(HERMES_KEY.length / 2);
    for (const part of [HERMES_KEY, HERMES_KEY.slice(0, half), HERMES_KEY.slice(half), TOOL_TOKEN]) {
      assert.ok(!result.raw.includes(part), `${part.length} characters of a secret reached the client`);
    }
    const named = (name) => result.events.filter((e) => e.data.event === name).map((e) => e.data);
    const text = named('message.delta').map((e) => e.delta).join('');
    assert.equal(text, 'the key is [redacted]. split: [redacted] done, and [redacted]');
    const [reasoning] = named('reasoning.available');
    assert.equal(reasoning.text, '[redacted]', 'a JSON-escaped key is still the key');
    assert.deepEqual(reasoning.meta, { list: [{ '[redacted]': '[redacted]' }] });
    assert.equal(named('tool.started')[0].preview, 'doc_fetch --token [redacted]');
    const [failed] = named('run.failed');
    assert.equal(failed.error, 'upstream said: invalid key [redacted]');
    assert.equal(result.events.at(-1).data, failed);
    for (const { data } of result.events) assert.equal(data.session_id, sessionId);
  });

  test('abort stops a slow run: abort.started, then run.cancelled on the stream', async () => {
    const run = await startRun({ sessionId, message: 'write a long essay [slow]' });
    let aborted;
    const result = await events(run.runId, sessionId, {
      onEvent: (event) => {
        if (event.event === 'message.delta' && event.delta === 'slow2 ' && !aborted) {
          aborted = post(`runs/${run.runId}/abort`, { workspaceId: 'ws_local', documentId: 'welcome', sessionId, traceId: 'trace_1' });
        }
      },
    });
    const res = await aborted;
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['events', 'ok', 'runId', 'sessionId', 'traceId']);
    assert.deepEqual(res.body.events, [{ event: 'abort.started', run_id: run.runId }]);
    assert.equal(res.body.sessionId, sessionId);
    assert.equal(result.events.at(-1).data.event, 'run.cancelled');
    assert.ok(result.events.length < 20, 'stopped early');
    assert.ok(double.last('POST /v1/runs/{id}/stop'), 'Hermes got POST /v1/runs/{id}/stop');
    const again = assertCodedError(await post(`runs/${run.runId}/abort`, {}), 400, 'hermes_client_bad_request');
    assert.match(again.message, /run_not_found/);
    const empty = await call(api(`runs/${run.runId}/abort`), { method: 'POST', headers: BEARER });
    assertCodedError(empty, 400, 'hermes_client_bad_request');
    assertCodedError(await post(`runs/${run.runId}/abort`, { sessionId: 'x' }), 400, 'hermes_client_bad_request');
  });
});

describe('upstream failures map to the contract codes', () => {
  test('401 and 403 from Hermes → 502 hermes_client_upstream_unauthorized', async () => {
    for (const status of [401, 403]) {
      double.inject('GET /v1/models', { status });
      const error = assertCodedError(await get('models'), 502, 'hermes_client_upstream_unauthorized');
      assert.equal(error.details.upstreamStatus, status);
    }
  });

  test('429 → 429 hermes_client_upstream_rate_limited with Retry-After passed through', async () => {
    const sessionId = await newSession('welcome');
    double.inject('POST /v1/runs', { status: 429, retryAfter: '7' });
    const res = await post('runs', { documentId: 'welcome', sessionId, message: 'hi' });
    const error = assertCodedError(res, 429, 'hermes_client_upstream_rate_limited');
    assert.equal(res.headers.get('retry-after'), '7');
    assert.equal(error.details.retryAfter, '7');
  });

  test('5xx → 502 hermes_client_upstream_unavailable', async () => {
    double.inject('GET /api/sessions', { status: 500 });
    const error = assertCodedError(await get('sessions?documentId=welcome'), 502, 'hermes_client_upstream_unavailable');
    assert.equal(error.details.upstreamStatus, 500);
    const sessionId = await newSession('welcome');
    const run = await startRun({ sessionId, message: 'hi' });
    double.inject('GET /v1/runs/{id}/events', { status: 503 });
    assertCodedError(await get(`events/${run.runId}?sessionId=${sessionId}`), 502, 'hermes_client_upstream_unavailable');
    double.inject('GET /v1/runs/{id}', { status: 502 });
    assertCodedError(await get(`events/${run.runId}?sessionId=${sessionId}`), 502, 'hermes_client_upstream_unavailable');
    await events(run.runId, sessionId);
  });

  test('a slow answer → 504 hermes_client_upstream_unavailable after HERMES_TIMEOUT_MS', async () => {
    // Hermes would answer only after a minute: a 504 well before that came from the Worker's own timeout,
    // however loaded the machine is.
    const UPSTREAM_DELAY_MS = 60_000;
    double.inject('GET /v1/models', { delayMs: UPSTREAM_DELAY_MS });
    const started = performance.now();
    const error = assertCodedError(await get('models'), 504, 'hermes_client_upstream_unavailable');
    const took = performance.now() - started;
    assert.equal(error.details.timedOut, true);
    assert.ok(took >= TIMEOUT_MS - 50 && took < UPSTREAM_DELAY_MS / 2, `${took} ms`);
  });

  test('malformed JSON and a non-Hermes upstream → 502 hermes_client_upstream_unavailable', async () => {
    double.inject('GET /v1/models', { malformed: true });
    assert.match(assertCodedError(await get('models'), 502, 'hermes_client_upstream_unavailable').message, /malformed JSON/);
    double.inject('GET /v1/models', { notHermes: true });
    assertCodedError(await get('models'), 502, 'hermes_client_upstream_unavailable');
  });

  test('a refused connection → 502 hermes_client_upstream_unavailable', async () => {
    await double.pause();
    try {
      const error = assertCodedError(await get('models'), 502, 'hermes_client_upstream_unavailable');
      assert.equal(error.details.timedOut, false);
      assertCodedError(await get('events/run_0abc?sessionId=mnote_welcome_x'), 502, 'hermes_client_upstream_unavailable');
    } finally {
      await double.resume();
    }
    assert.equal((await get('models')).status, 200, 'back once Hermes is');
  });

  test('an upstream message that repeats the key is redacted', async () => {
    double.inject('GET /v1/models', { echoKey: true });
    const res = await get('models');
    const error = assertCodedError(res, 400, 'hermes_client_bad_request');
    assert.match(error.message, /\[redacted\]/);
  });
});

describe('without an upstream', () => {
  test('every Hermes route but tools answers 503 hermes_client_unconfigured; the rest works', async () => {
    const auth = bare.auth;
    const url = (path) => `${bare.url}/api/hermes/client/${path}`;
    const json = { 'content-type': 'application/json', ...auth };
    const runBody = JSON.stringify({ documentId: 'welcome', sessionId: 'mnote_welcome_x', message: 'hi' });
    const cases = [
      [url('sessions?documentId=welcome'), {}],
      [url('sessions'), { method: 'POST', body: JSON.stringify({ documentId: 'welcome' }) }],
      [url('sessions/mnote_welcome_x'), {}],
      [url('runs'), { method: 'POST', body: runBody }],
      [url('events/run_1?sessionId=mnote_welcome_x'), {}],
      [url('runs/run_1/abort'), { method: 'POST', body: '{}' }],
      [url('models'), {}],
    ];
    for (const [target, init] of cases) {
      const res = await call(target, { ...init, headers: json });
      assertCodedError(res, 503, 'hermes_client_unconfigured');
    }
    assert.equal((await call(url('tools'), { headers: auth })).status, 200);
    assert.equal((await call(`${bare.url}/api/documents/welcome`, { headers: auth })).status, 200);
    // No session secret: no cookie can be issued, and the log says why.
    const login = await call(`${bare.url}/api/auth/login`, { method: 'POST', body: JSON.stringify({ token: TEST_CLIENT_TOKEN }) });
    assertCodedError(login, 401, 'mnote_unauthorized');
    // wrangler prints the Worker's console a moment after the answer.
    await bare.waitForLog(/MNOTE_SESSION_SECRET is unset/);
  });
});

test('the Hermes key never appears in any answer, header or log line', () => {
  assert.ok(seen.length > 60, `${seen.length} answers recorded`);
  for (const answer of seen) {
    const text = `${answer.text}\n${answer.headers.map(([k, v]) => `${k}: ${v}`).join('\n')}`;
    assert.ok(!text.includes(HERMES_KEY), `the key leaked in ${answer.url}`);
    assert.ok(!text.includes(TOOL_TOKEN), `the tool token leaked in ${answer.url}`);
    assert.ok(!text.includes(TEST_SESSION_SECRET), `the session secret leaked in ${answer.url}`);
  }
  for (const log of [worker.logs(), bare.logs()]) {
    assert.ok(!log.includes(HERMES_KEY), 'the key is in the Worker log');
    assert.ok(!log.includes(TOOL_TOKEN), 'the tool token is in the Worker log');
    assert.ok(!log.includes(TEST_SESSION_SECRET), 'the session secret is in the Worker log');
  }
  // The double did receive it, on every call: the key is used, just never shown.
  assert.ok(double.requests.filter((r) => r.path !== '/health').every((r) => r.headers.authorization === `Bearer ${HERMES_KEY}`));
});

/** The frozen_contexts rows of every Durable Object SQLite file under a persist folder. */
function frozenContexts(persistTo) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.sqlite')) files.push(path);
    }
  };
  walk(persistTo);
  const script = `
import json, sqlite3, sys
rows = []
for path in sys.argv[1:]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        rows += [dict(r) for r in db.execute("SELECT * FROM frozen_contexts")]
    except sqlite3.OperationalError:
        pass
print(json.dumps(rows))`;
  return JSON.parse(execFileSync('python3', ['-c', script, ...files], { encoding: 'utf8' }));
}
