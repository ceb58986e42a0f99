// End-to-end: security and reliability, round 3 (issue 32), under wrangler dev with the Hermes double.
// ana owns ws_a, eve edits ws_a, bob owns ws_b (signed tokens the test makes).
//
// - finding 0: held changes stay in reach: the session list puts open sessions first, pages with a
//   cursor, filters by state, counts what it lists; a failed session is not open;
// - finding 1: a person's large block edit is the same coded 413 naming the block as a tool's or MCP's,
//   never a 500 from the storage; nothing is written; one block past 64 KiB is 413 `mnote_block_too_large`
//   naming it on every path (PUT, PATCH, the tool route, MCP, a held proposal);
// - finding 2: a Hermes run belongs to whoever started it: another user (of any workspace) can neither
//   stop nor follow it, with or without a sessionId;
// - finding 3: a live socket ends with its sign-in: a logout closes the sockets its cookie opened, and a
//   socket whose token expired is closed (4401 `mnote_live_session_ended`) instead of sent the next message,
//   and one opened before the workspace's members changed (a later `mnote.epochs`) is closed with 4403
//   `mnote_live_role_changed`;
// - finding 4: one page-size limit on every write; the page a GET returns can be PUT back;
// - finding 5 (info): an `iat` in the future and `sub: "user"` are refused, a refused Bearer token does not
//   fall back to a cookie, the tool route checks `Origin` as /mcp does, a model name is one line.
//
//   node --experimental-websocket --test tests/e2e/security_round3.test.mjs

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import WebSocket from 'ws';

import { claims, makeKeys, sign } from './lib/identity.mjs';
import { TOOL_TOKEN, fetchJson, fresh, mcp, toolCall } from './lib/mnote.mjs';
import { bearers, peopleSuite } from './lib/people.mjs';
import { assertCodedError } from './lib/wrangler.mjs';

const keys = makeKeys('r3');
const USERS = bearers(keys, {
  ana: ['user_ana', { ws_a: 'owner' }],
  eve: ['user_eve', { ws_a: 'editor' }],
  bob: ['user_bob', { ws_b: 'owner' }],
});

let url;
let hermes;
let as;
peopleSuite({ keys, hermesKey: 'hk-round3-e2e-0123456789abcdef', users: USERS }, (ready) => ({ url, hermes, as } = ready));

const paragraphs = (texts) => texts.map((text, i) => ({ blockId: `p_${i + 1}`, type: 'paragraph', text }));

/** A page `user` makes in their only workspace; answers its id. */
async function pageOf(user, blocks) {
  const id = fresh(`r3_${user}`).replaceAll('.', '_');
  const res = await as(user, 'PUT', `/api/documents/${id}`, { blocks });
  assert.equal(res.status, 200, res.text.slice(0, 400));
  return id;
}

const page = async (doc, user = 'ana') => (await as(user, 'GET', `/api/documents/${doc}`)).body;

/** A session cookie for ana, as a browser gets it: her signed token posted to /api/auth/session. */
async function anasCookie() {
  const signedIn = await fetchJson(`${url}/api/auth/session`, {
    method: 'POST',
    headers: { origin: url, 'content-type': 'application/json' },
    body: JSON.stringify({ token: sign(keys.es, claims({ sub: 'user_ana', workspaces: { ws_a: 'owner' } })) }),
  });
  assert.equal(signedIn.status, 200, signedIn.text);
  return signedIn.headers.get('set-cookie').split(';')[0];
}

async function reviewMode(mode) {
  const res = await as('ana', 'PUT', '/api/profile?workspaceId=ws_a', { reviewMode: mode, tools: { disabled: [] } });
  assert.equal(res.status, 200, res.text);
}

const sessions = (doc, query = '') => as('ana', 'GET', `/api/documents/${doc}/review-sessions${query}`);

describe('finding 0: held changes stay in reach', () => {
  test('30 yolo applies around 2 held proposals: the list shows both first, pages, filters and counts them', async () => {
    const texts = Array.from({ length: 34 }, (_, i) => `item${i} text`);
    const doc = await pageOf('ana', paragraphs(texts));
    const run = async (i) => {
      const res = await as('ana', 'POST', '/api/page-ai/command', { documentId: doc, prompt: `replace "item${i} " with "done${i} "` });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    await reviewMode('review');
    const first = await run(0);
    assert.equal(first.outcome, 'review', JSON.stringify(first));
    await reviewMode('yolo');
    for (let i = 1; i <= 15; i++) assert.equal((await run(i)).outcome, 'applied');
    await reviewMode('review');
    const second = await run(16);
    assert.equal(second.outcome, 'review');
    await reviewMode('yolo');
    for (let i = 17; i <= 31; i++) assert.equal((await run(i)).outcome, 'applied');
    const held = [second.reviewSession.sessionId, first.reviewSession.sessionId];

    // A short first page still starts with both held proposals, newest first, and the counts are the list's.
    const top = await sessions(doc, '?limit=5');
    assert.equal(top.status, 200, top.text);
    assert.deepEqual(top.body.sessions.slice(0, 2).map((s) => s.sessionId), held);
    assert.deepEqual(top.body.counts, { open: 2, all: 32 });
    assert.ok(top.body.nextCursor, 'more pages');
    const open = await sessions(doc, '?state=open');
    assert.deepEqual(open.body.sessions.map((s) => s.sessionId), held);
    assert.equal(open.body.nextCursor, undefined);
    // Paging through all of it: every session once, the open ones first.
    const seen = [];
    let cursor = null;
    do {
      const res = await sessions(doc, `?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      seen.push(...res.body.sessions);
      cursor = res.body.nextCursor;
    } while (cursor);
    assert.equal(new Set(seen.map((s) => s.sessionId)).size, 32);
    assert.deepEqual(seen.slice(0, 2).map((s) => s.sessionId), held);
    assert.ok(seen.slice(2).every((s) => s.state === 'applied'));
    const applied = await sessions(doc, '?state=applied&limit=100');
    assert.equal(applied.body.sessions.length, 30);
    assertCodedError(await sessions(doc, '?state=nope'), 400, 'mnote_invalid_arguments');
    assertCodedError(await sessions(doc, '?cursor=x.1'), 400, 'mnote_invalid_arguments');
    // Another workspace's person sees none of it.
    assertCodedError(await as('bob', 'GET', `/api/documents/${doc}/review-sessions`), 404, 'mnote_document_not_found');
  });

  test('a failed session is not open', async () => {
    const doc = await pageOf('ana', paragraphs(['alpha one', 'beta two']));
    await reviewMode('review');
    const held = await as('ana', 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'replace "beta" with "gamma"' });
    assert.equal(held.body.outcome, 'review', held.text);
    const id = held.body.reviewSession.sessionId;
    // The block it changes goes away; a retry cannot preview, and the session fails.
    const current = await page(doc);
    const gone = await as('ana', 'PATCH', `/api/documents/${doc}/blocks`, {
      baseRevision: current.revision,
      operations: [{ op: 'delete', blockId: 'p_2' }],
      idempotencyKey: fresh('k'),
    });
    assert.equal(gone.status, 200, gone.text);
    const retried = await as('ana', 'POST', `/api/page-ai/review-sessions/${id}/retry`, { toolCallId: fresh('call') });
    assert.equal(retried.body.state, 'failed', retried.text);
    const listed = await sessions(doc);
    assert.deepEqual(listed.body.counts, { open: 0, all: 1 });
    assert.deepEqual((await sessions(doc, '?state=open')).body.sessions, []);
    assert.deepEqual((await sessions(doc, '?state=failed')).body.sessions.map((s) => s.sessionId), [id]);
  });
});

const KIB = 1024;
const big = (tag, kib) => `${tag} `.padEnd(kib * KIB, 'x');
const inserts = (count, kib, tag) =>
  Array.from({ length: count }, (_, i) => ({ op: 'insert_after', afterBlockId: 'p_1', block: { blockId: `${tag}_${i}`, type: 'paragraph', text: big(`${tag}${i}`, kib) } }));

/** The coded 413 of a write that could never be stored: it names the record and a block of the write. */
function assertTooLarge(res, blockIds) {
  const error = assertCodedError(res, 413, 'mnote_stored_record_too_large');
  assert.ok(blockIds.includes(error.details.blockId), JSON.stringify(error.details));
  assert.ok(error.details.bytes > error.details.limitBytes, JSON.stringify(error.details));
  return error;
}

describe('finding 1: a large write is a coded 413 on every path, never a 500', () => {
  test("a person's block edits (PATCH), the tool route and MCP refuse alike; nothing is written", async () => {
    await reviewMode('yolo');
    const doc = await pageOf('ana', paragraphs(['first', 'second']));
    const before = await page(doc);
    for (const [count, kib] of [
      [32, 60],
      [13, 50],
      [40, 20],
    ]) {
      const tag = `e${count}`;
      const operations = inserts(count, kib, tag);
      const ids = operations.map((o) => o.block.blockId);
      const res = await as('ana', 'PATCH', `/api/documents/${doc}/blocks`, { baseRevision: before.revision, operations, idempotencyKey: fresh('k') });
      assertTooLarge(res, ids);
    }
    // The same inserts from an AI, through the tool route and MCP, bound to ana's context.
    const handoff = await as('ana', 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'what is this page about?', runHermes: false });
    const contextId = handoff.body.contextId;
    assert.ok(contextId, handoff.text);
    const operations = inserts(32, 60, 't');
    const ids = operations.map((o) => o.block.blockId);
    const args = () => ({ documentId: doc, baseRevision: before.revision, dryRun: false, idempotencyKey: fresh('k'), contextId, operations });
    assertTooLarge(await toolCall(url, 'doc_apply_block_ops', args()), ids);
    const viaMcp = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: args() });
    assert.equal(viaMcp.status, 200, viaMcp.text.slice(0, 400));
    assert.match(viaMcp.text, /mnote_stored_record_too_large/);
    assert.doesNotMatch(viaMcp.text, /mnote_storage_failed/);
    // Nothing was written, and a smaller edit still lands.
    const after = await page(doc);
    assert.equal(after.revision, before.revision);
    assert.deepEqual(after.blocks.map((b) => b.blockId), ['p_1', 'p_2']);
    const small = await as('ana', 'PATCH', `/api/documents/${doc}/blocks`, { baseRevision: after.revision, operations: inserts(2, 60, 's'), idempotencyKey: fresh('k') });
    assert.equal(small.status, 200, small.text.slice(0, 400));
  });
});

describe('finding 1, the other paths: commands, accepts and reverts at the size limits', () => {
  test('a command long enough to grow a block is not a shortcut write: it goes to Hermes, and nothing is written', async () => {
    await reviewMode('yolo');
    const doc = await pageOf('ana', paragraphs(['first words', 'second words']));
    const before = await page(doc);
    const res = await as('ana', 'POST', '/api/page-ai/command', {
      documentId: doc,
      prompt: `replace "first" with "${big('grown', 170)}"`,
      runHermes: false,
    });
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(res.body.outcome, 'hermes', res.text.slice(0, 300));
    assert.equal(res.body.route.recommendedToolCall, null);
    assert.equal((await page(doc)).revision, before.revision, 'nothing was written');
  });

  test('an AI change held for review: of a block at the limit it is stored, accepted and reverted; past the record limit a coded 413', async () => {
    await reviewMode('review');
    const doc = await pageOf('ana', paragraphs(['first words', 'second words']));
    const handoff = await as('ana', 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'what is this page about?', runHermes: false });
    const { contextId } = handoff.body;
    assert.ok(contextId, handoff.text);
    const before = await page(doc);
    const write = (operations) =>
      toolCall(url, 'doc_apply_block_ops', { documentId: doc, baseRevision: before.revision, dryRun: false, idempotencyKey: fresh('k'), contextId, operations });
    // Past the limit: 32 inserts of 60 KiB, which no session record can hold.
    const operations = inserts(32, 60, 'r');
    assertTooLarge(await write(operations), operations.map((o) => o.block.blockId));
    assert.equal((await page(doc)).revision, before.revision, 'nothing was written');
    // At it: a block rewritten to the largest text a block may hold is held, then accepted and reverted.
    const held = await write([{ op: 'update', blockId: 'p_2', text: big('grown', 63) }]);
    assert.equal(held.status, 200, held.text.slice(0, 300));
    assert.equal(held.body.reviewSession.state, 'awaiting_user', held.text.slice(0, 300));
    const id = held.body.reviewSession.sessionId;
    const accepted = await as('ana', 'POST', `/api/page-ai/review-sessions/${id}/accept`, { idempotencyKey: fresh('k') });
    assert.equal(accepted.status, 200, accepted.text.slice(0, 300));
    assert.equal(accepted.body.state, 'applied', accepted.text.slice(0, 300));
    assert.equal((await page(doc)).blocks[1].text.length, 63 * KIB);
    const reverted = await as('ana', 'POST', `/api/page-ai/review-sessions/${id}/revert`, { idempotencyKey: fresh('k') });
    assert.equal(reverted.status, 200, reverted.text.slice(0, 300));
    assert.equal((await page(doc)).blocks[1].text, 'second words');
    await reviewMode('yolo');
  });
});

describe('finding 1, one block past 64 KiB: the same coded 413 naming it on every path', () => {
  /** The coded 413 of a block too large to store: it names the block, its size and the limit. */
  const assertBlockTooLarge = (res, blockId) => {
    const error = assertCodedError(res, 413, 'mnote_block_too_large');
    if (blockId) assert.equal(error.details.blockId, blockId, JSON.stringify(error.details));
    assert.equal(error.details.limitBytes, 64 * KIB);
    assert.ok(error.details.bytes > error.details.limitBytes, JSON.stringify(error.details));
    return error;
  };

  test('PUT (JSON and Markdown), PATCH, the tool route, MCP and a held proposal refuse alike; nothing is written', async () => {
    await reviewMode('yolo');
    const doc = await pageOf('ana', paragraphs(['first words', 'second words']));
    const before = await page(doc);
    const huge = big('huge', 65);
    // A person's whole-page store, as JSON and as Markdown.
    assertBlockTooLarge(await as('ana', 'PUT', `/api/documents/${doc}`, { blocks: [...before.blocks, { blockId: 'p_huge', type: 'paragraph', text: huge }] }), 'p_huge');
    const markdown = await fetchJson(`${url}/api/documents/${doc}`, {
      method: 'PUT',
      headers: { authorization: USERS.ana, origin: url, 'content-type': 'text/markdown' },
      body: `# Title\n\n${huge}\n`,
    });
    assertBlockTooLarge(markdown);
    // A person's block edits: an insert and an update.
    const patch = (operations) => as('ana', 'PATCH', `/api/documents/${doc}/blocks`, { baseRevision: before.revision, operations, idempotencyKey: fresh('k') });
    assertBlockTooLarge(await patch([{ op: 'insert_after', afterBlockId: 'p_1', block: { blockId: 'p_ins', type: 'paragraph', text: huge } }]), 'p_ins');
    assertBlockTooLarge(await patch([{ op: 'update', blockId: 'p_2', text: huge }]), 'p_2');
    // An AI's write, through the tool route and MCP, in yolo and in review mode.
    const handoff = await as('ana', 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'what is this page about?', runHermes: false });
    const { contextId } = handoff.body;
    assert.ok(contextId, handoff.text);
    const args = () => ({ documentId: doc, baseRevision: before.revision, dryRun: false, idempotencyKey: fresh('k'), contextId, operations: [{ op: 'update', blockId: 'p_1', text: huge }] });
    assertBlockTooLarge(await toolCall(url, 'doc_apply_block_ops', args()), 'p_1');
    const viaMcp = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: args() });
    assert.equal(viaMcp.status, 200, viaMcp.text.slice(0, 400));
    assert.match(viaMcp.text, /mnote_block_too_large/);
    await reviewMode('review');
    try {
      assertBlockTooLarge(await toolCall(url, 'doc_apply_block_ops', args()), 'p_1');
      const listed = await sessions(doc, '?state=open');
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.sessions.length, 0, 'no proposal was held');
    } finally {
      await reviewMode('yolo');
    }
    // Nothing was written, and a block at the limit still lands.
    const after = await page(doc);
    assert.equal(after.revision, before.revision);
    assert.deepEqual(after.blocks.map((b) => b.text), ['first words', 'second words']);
    const fits = await patch([{ op: 'update', blockId: 'p_2', text: big('fits', 63) }]);
    assert.equal(fits.status, 200, fits.text.slice(0, 300));
  });
});

describe('finding 2: a run belongs to the person who started it', () => {
  test('another user can neither stop nor follow it, with or without a sessionId; its owner can', async () => {
    const doc = await pageOf('ana', paragraphs(['The plan is short.']));
    const bobsDoc = await pageOf('bob', paragraphs(['Bob writes.']));
    const made = await as('ana', 'POST', '/api/hermes/client/sessions', { documentId: doc });
    assert.equal(made.status, 200, made.text);
    const sessionId = made.body.sessionId;
    const started = await as('ana', 'POST', '/api/hermes/client/runs', { documentId: doc, sessionId, message: 'write a long essay [slow]' });
    assert.equal(started.status, 200, started.text);
    const { runId } = started.body;
    const stops = () => hermes.requests.filter((r) => r.method === 'POST' && /\/v1\/runs\/[^/]+\/stop$/.test(r.path)).length;
    const stopsBefore = stops();
    const abort = (user, body) => as(user, 'POST', `/api/hermes/client/runs/${runId}/abort`, body);
    for (const [user, body] of [
      ['bob', {}],
      ['bob', { documentId: bobsDoc }],
      ['eve', {}],
      ['eve', { documentId: doc }],
    ]) {
      assertCodedError(await abort(user, body), 400, 'hermes_client_bad_request');
    }
    // A session id that is not theirs is refused as before.
    assertCodedError(await abort('eve', { documentId: doc, sessionId }), 400, 'hermes_client_bad_request');
    // Following it: no more than stopping it.
    for (const user of ['bob', 'eve']) {
      assertCodedError(await as(user, 'GET', `/api/hermes/client/events/${runId}`), 400, 'hermes_client_bad_request');
    }
    assert.equal(stops(), stopsBefore, 'Hermes received no stop');
    // Its owner stops it without naming the session.
    const own = await abort('ana', {});
    assert.equal(own.status, 200, own.text);
    assert.equal(stops(), stopsBefore + 1);
  });
});

describe('finding 4: one page-size limit on every write', () => {
  test('a page near the limit takes no insert past it; its GET can be PUT back', async () => {
    await reviewMode('yolo');
    // 84 blocks of 60 KiB (a block holds at most 64 KiB): about 5.17 MB, so the second insert crosses 5 MiB.
    const blocks = Array.from({ length: 84 }, (_, i) => ({ blockId: `p_${i + 1}`, type: 'paragraph', text: big(`b${i}`, 60) }));
    const doc = await pageOf('ana', blocks);
    let refused = null;
    for (let i = 0; i < 6 && !refused; i++) {
      const now = await page(doc);
      const res = await as('ana', 'PATCH', `/api/documents/${doc}/blocks`, { baseRevision: now.revision, operations: inserts(1, 60, `g${i}`), idempotencyKey: fresh('k') });
      if (res.status !== 200) refused = res;
    }
    assert.ok(refused, 'an insert past the limit is refused');
    const error = assertCodedError(refused, 413, 'mnote_page_too_large');
    assert.ok(error.details.bytes > error.details.limitBytes);
    const got = await as('ana', 'GET', `/api/documents/${doc}`);
    assert.ok(got.text.length <= error.details.limitBytes, `${got.text.length}`);
    const back = await as('ana', 'PUT', `/api/documents/${doc}`, got.body);
    assert.equal(back.status, 200, back.text.slice(0, 400));
  });
});

describe('finding 5: the info items that changed', () => {
  test('a signed token issued in the future, or naming the reserved user "user", is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const future = `Bearer ${sign(keys.es, claims({ sub: 'user_ana', workspaces: { ws_a: 'owner' }, iat: now + 3600 }))}`;
    const reserved = `Bearer ${sign(keys.es, claims({ sub: 'user', workspaces: { ws_local: 'owner' } }))}`;
    for (const authorization of [future, reserved]) {
      assertCodedError(await fetchJson(`${url}/api/profile`, { headers: { authorization } }), 401, 'mnote_unauthorized');
    }
    // Within the 30 s of clock skew it is still fine.
    const skewed = `Bearer ${sign(keys.es, claims({ sub: 'user_ana', workspaces: { ws_a: 'owner' }, iat: now + 10 }))}`;
    assert.equal((await fetchJson(`${url}/api/profile`, { headers: { authorization: skewed } })).status, 200);
  });

  test('a refused Bearer token next to a valid cookie is refused, not taken for the cookie', async () => {
    const cookie = await anasCookie();
    assert.equal((await fetchJson(`${url}/api/profile`, { headers: { cookie } })).status, 200);
    const expired = sign(keys.es, claims({ sub: 'user_ana', workspaces: { ws_a: 'owner' }, exp: Math.floor(Date.now() / 1000) - 3600 }));
    for (const token of [expired, 'not-the-client-token']) {
      const res = await fetchJson(`${url}/api/profile`, { headers: { cookie, authorization: `Bearer ${token}` } });
      assertCodedError(res, 401, 'mnote_unauthorized');
    }
  });

  test('the tool route refuses a foreign Origin, as /mcp does', async () => {
    const body = JSON.stringify({ toolName: 'doc_fetch', args: { documentId: 'welcome', scope: { type: 'full' } }, toolCallId: fresh('call'), traceId: fresh('tr') });
    const headers = { authorization: `Bearer ${TOOL_TOKEN}`, 'content-type': 'application/json', origin: 'https://evil.example' };
    for (const path of ['/api/hermes/tools/mnote/call', '/mcp']) {
      const res = await fetchJson(`${url}${path}`, { method: 'POST', headers, body });
      assertCodedError(res, 403, 'mnote_forbidden_origin');
    }
  });

  test('a model name with a line break is refused before Hermes hears of it', async () => {
    const doc = await pageOf('ana', paragraphs(['The plan is short.']));
    const made = await as('ana', 'POST', '/api/hermes/client/sessions', { documentId: doc });
    const runs = () => hermes.requests.filter((r) => r.method === 'POST' && r.path === '/v1/runs').length;
    const before = runs();
    const res = await as('ana', 'POST', '/api/hermes/client/runs', { documentId: doc, sessionId: made.body.sessionId, message: 'hi', model: 'gpt\r\n"injected": true' });
    assert.equal(assertCodedError(res, 400, 'hermes_client_bad_request').details.pointer, '/model');
    assert.equal(runs(), before);
  });
});

/** A socket on `doc`'s live channel with `headers`: its messages, `hello`, and `closed` ({code, reason}). */
function openLive(doc, headers) {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/documents/${doc}/live`, { headers });
  const messages = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  const hello = new Promise((resolve, reject) => {
    socket.on('message', (data) => JSON.parse(String(data)).kind === 'hello' && resolve());
    socket.on('unexpected-response', (_, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  // The close frame's code and reason as soon as it arrives: under `wrangler dev` the TCP connection ends
  // ~10 s after the closing handshake, and ws (8.18.0, pinned) emits 'close' only then. Its receiver's
  // 'conclude' is the close frame itself; 'close' stays the answer for a socket that ends without one.
  const closed = new Promise((resolve) => {
    socket.on('open', () => socket._receiver.once('conclude', (code, reason) => resolve({ code, reason: String(reason) })));
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) }));
  });
  /** The first message of `kind`, or why the socket closed first. */
  const next = (kind) =>
    new Promise((resolve, reject) => {
      const found = () => messages.find((m) => m.kind === kind);
      if (found()) return resolve(found());
      socket.on('message', () => found() && resolve(found()));
      closed.then((c) => reject(new Error(`closed (${c.code} ${c.reason}) before ${kind}`)));
    });
  return { socket, messages, hello, closed, next };
}

/** A one-block edit of `doc` by ana (a long-lived token). */
async function edit(doc, text) {
  const { revision } = await page(doc);
  const res = await as('ana', 'PATCH', `/api/documents/${doc}/blocks`, {
    baseRevision: revision,
    operations: [{ op: 'update', blockId: 'p_1', text }],
    idempotencyKey: fresh('edit'),
  });
  assert.equal(res.status, 200, res.text);
}

describe('finding 3: a live socket ends with its sign-in', () => {
  test("a socket opened before the workspace's members changed is closed (4403) at the next write, and cannot reopen", async () => {
    const doc = await pageOf('ana', paragraphs(['Before the change.']));
    // eve (an editor of ws_a) and ana, under tokens issued before the change (no epoch: 0).
    const eve = openLive(doc, { authorization: USERS.eve });
    const anaBefore = openLive(doc, { authorization: USERS.ana });
    // The identity provider removes eve from ws_a and raises its membership epoch in the tokens it issues.
    const anaNow = `Bearer ${sign(keys.es, claims({ sub: 'user_ana', mnote: { workspaces: { ws_a: 'owner' }, epochs: { ws_a: 1 } } }))}`;
    let anaAfter;
    try {
      await Promise.all([eve.hello, anaBefore.hello]);
      anaAfter = openLive(doc, { authorization: anaNow });
      await anaAfter.hello;
      const { revision } = await page(doc);
      const res = await fetchJson(`${url}/api/documents/${doc}/blocks`, {
        method: 'PATCH',
        headers: { authorization: anaNow, origin: url, 'content-type': 'application/json' },
        body: JSON.stringify({ baseRevision: revision, operations: [{ op: 'update', blockId: 'p_1', text: 'After the change.' }], idempotencyKey: fresh('edit') }),
      });
      assert.equal(res.status, 200, res.text);
      const change = await anaAfter.next('page.changed');
      assert.deepEqual(change.change.blocks.map((b) => b.text), ['After the change.']);
      for (const stale of [eve, anaBefore]) {
        const { code, reason } = await stale.closed;
        assert.equal(code, 4403);
        assert.match(reason, /^mnote_live_role_changed: /);
        assert.equal(stale.messages.filter((m) => m.kind === 'page.changed').length, 0, 'nothing after the change');
      }
      // The old token no longer opens the channel; the new one does.
      await assert.rejects(openLive(doc, { authorization: USERS.eve }).hello, /upgrade refused: 403/);
    } finally {
      for (const socket of [eve, anaBefore, anaAfter]) socket?.socket.terminate();
    }
  });


  test('a logout closes the sockets its cookie opened, with 4401 mnote_live_session_ended; others stay', async () => {
    const doc = await pageOf('ana', paragraphs(['Before the logout.']));
    const cookie = await anasCookie();
    const browser = openLive(doc, { cookie, origin: url });
    const service = openLive(doc, { authorization: USERS.ana });
    try {
      await Promise.all([browser.hello, service.hello]);
      const out = await fetchJson(`${url}/api/auth/logout`, { method: 'POST', headers: { cookie, origin: url } });
      assert.equal(out.status, 200, out.text);
      const { code, reason } = await browser.closed;
      assert.equal(code, 4401);
      assert.match(reason, /^mnote_live_session_ended: .*signed out/);
      // The socket opened with a token is not the cookie's: it still hears the next write.
      await edit(doc, 'After the logout.');
      const change = await service.next('page.changed');
      assert.deepEqual(change.change.blocks.map((b) => b.text), ['After the logout.']);
      assert.equal(browser.messages.filter((m) => m.kind === 'page.changed').length, 0);
      // And the copied cookie no longer opens the channel.
      const again = openLive(doc, { cookie, origin: url });
      await assert.rejects(again.hello, /upgrade refused: 401/);
    } finally {
      browser.socket.terminate();
      service.socket.terminate();
    }
  });

  test("a socket whose token expired is closed instead of sent the next write", async () => {
    const doc = await pageOf('ana', paragraphs(['Before the expiry.']));
    const exp = Math.floor(Date.now() / 1000) + 3;
    const short = `Bearer ${sign(keys.es, claims({ sub: 'user_ana', workspaces: { ws_a: 'owner' }, exp }))}`;
    const expiring = openLive(doc, { authorization: short });
    const service = openLive(doc, { authorization: USERS.ana });
    try {
      await Promise.all([expiring.hello, service.hello]);
      // The token's own expiry is the event awaited: until the clock passes it (plus a second of rounding).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, (exp + 1) * 1000 - Date.now())));
      await edit(doc, 'After the expiry.');
      await service.next('page.changed');
      const { code, reason } = await expiring.closed;
      assert.equal(code, 4401);
      assert.match(reason, /^mnote_live_session_ended: .*expired/);
      assert.equal(expiring.messages.filter((m) => m.kind === 'page.changed').length, 0, 'nothing after the expiry');
    } finally {
      expiring.socket.terminate();
      service.socket.terminate();
    }
  });
});
