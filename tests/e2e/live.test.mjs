// End-to-end: the live channel, GET /api/documents/{id}/live (mnote.live_event.v1), under wrangler dev,
// with Node's own WebSocket client (Node 20: --experimental-websocket, which the Makefile passes).
//
// A write from one client reaches another client's socket; a reconnect with an old seq catches up with
// exactly what it missed; an upgrade without a credential, with the tool token, or from a foreign origin is
// refused; a socket over the cap and a message over the size limit are closed with their codes; and after
// wrangler dev restarts between two writes, the package's client (connectLive) reconnects and catches up.
//
//   node --experimental-websocket --test --test-concurrency=1 tests/e2e/live.test.mjs

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT, TEST_CLIENT_TOKEN, startWorker } from './lib/wrangler.mjs';
import { TOOL_TOKEN, TOOL_VARS, editBlocks, fresh, getPage, putPage, toolCall, replaceArgs } from './lib/mnote.mjs';
import { connectLive } from '../../wasm/js/live.js';
import WS from 'ws';

const pageai = createRequire(import.meta.url)(join(ROOT, 'wasm', 'pkg', 'node', 'pageai.js'));
const MAX_SOCKETS = 3;
const USER = { authorization: `Bearer ${TEST_CLIENT_TOKEN}` };

/** A socket on a document's channel that keeps every message; `until(pred)` waits for one. */
function openLive(url, documentId, { query = {}, headers = USER } = {}) {
  const target = new URL(`/api/documents/${documentId}/live`, url.replace(/^http/, 'ws'));
  for (const [k, v] of Object.entries(query)) target.searchParams.set(k, String(v));
  const socket = new WebSocket(target.href, { headers });
  const messages = [];
  const waiters = [];
  const closed = new Promise((resolve) => {
    socket.onclose = (event) => resolve({ code: event.code, reason: event.reason });
    // Node's client reports a refused handshake as an error with no close event.
    socket.onerror = () => socket.readyState !== WebSocket.OPEN && resolve({ code: 1006, reason: 'handshake refused' });
  });
  socket.onmessage = (event) => {
    if (event.data === 'pong') return;
    messages.push(JSON.parse(event.data));
    for (const waiter of [...waiters]) waiter();
  };
  const until = (pred, what = 'a message') =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = messages.find(pred);
        if (found) {
          waiters.splice(waiters.indexOf(check), 1);
          resolve(found);
        }
      };
      waiters.push(check);
      check();
      closed.then((c) => reject(new Error(`closed (${c.code} ${c.reason}) before ${what}; got ${JSON.stringify(messages.map((m) => m.kind))}`)));
    });
  const hello = until((m) => m.kind === 'hello', 'hello');
  hello.catch(() => {}); // awaited by the tests that expect it; a refused socket never says hello
  return { socket, messages, until, hello, closed, close: () => socket.close(1000, 'done') };
}

/** The status and coded body of an upgrade the front refuses (read over plain HTTP). */
function upgrade(url, documentId, headers) {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/documents/${documentId}/live`, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': Buffer.from(fresh('k').slice(0, 16).padEnd(16, 'x')).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, sock) => {
      sock.destroy();
      resolve({ status: res.statusCode, body: null });
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function signIn(url) {
  const res = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ token: TEST_CLIENT_TOKEN }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.headers.get('set-cookie').split(';')[0];
}

const edit = (url, documentId, page, blockId, text) =>
  editBlocks(url, documentId, {
    baseRevision: page.revision,
    operations: [{ op: 'update', blockId, text }],
    idempotencyKey: fresh('edit'),
  });

describe('the live channel', { timeout: 600_000 }, () => {
  let worker;
  before(async () => {
    worker = await startWorker({ vars: { ...TOOL_VARS, MNOTE_LIVE_MAX_SOCKETS: String(MAX_SOCKETS) } });
  });
  after(() => worker?.stop());

  test("a write from one client reaches a second client's socket, in order, with seq and revision", async () => {
    const doc = fresh('live_fanout');
    const page = await putPage(worker.url, doc, { p_1: 'alpha', p_2: 'beta' });
    const cookie = await signIn(worker.url);
    const writer = openLive(worker.url, doc);
    const watcher = openLive(worker.url, doc, { headers: { cookie, origin: worker.url } });
    const hello = await watcher.hello;
    assert.equal(hello.revision, page.revision);
    assert.equal(hello.hello.limits.maxSockets, MAX_SOCKETS);
    await writer.hello;

    const blockId = page.blocks[1].blockId;
    const res = await edit(worker.url, doc, page, blockId, 'BETA');
    assert.equal(res.status, 200, res.text);
    const changed = await watcher.until((m) => m.kind === 'page.changed');
    assert.equal(changed.revision, page.revision + 1);
    assert.equal(changed.change.fromRevision, page.revision);
    assert.equal(changed.change.origin, 'user');
    assert.deepEqual(changed.change.blocks.map((b) => [b.blockId, b.text]), [[blockId, 'BETA']]);
    const completed = await watcher.until((m) => m.kind === 'tool.event' && m.event.event === 'tool.completed');
    const kinds = watcher.messages.slice(1).map((m) => [m.kind, m.event?.event]);
    assert.deepEqual(kinds, [['tool.event', 'tool.started'], ['page.changed', undefined], ['tool.event', 'tool.completed']]);
    const seqs = watcher.messages.slice(1).map((m) => m.seq);
    assert.deepEqual(seqs, [hello.seq + 1, hello.seq + 2, hello.seq + 3]);
    assert.equal(completed.event.summary.newRevision, page.revision + 1);
    // Both sockets were told the same messages.
    await writer.until((m) => m.seq === completed.seq);
    assert.deepEqual(writer.messages.slice(1), watcher.messages.slice(1));
    writer.close();
    watcher.close();
  });

  test('a reconnect with an old seq catches up exactly; one with an old revision too', async () => {
    const doc = fresh('live_resume');
    let page = await putPage(worker.url, doc, { p_1: 'one', p_2: 'two' });
    const first = openLive(worker.url, doc);
    const { seq: seen } = await first.hello;
    const live = openLive(worker.url, doc); // stays open: what was sent as it happened
    await live.hello;
    first.close();
    await first.closed;
    for (const text of ['ONE', 'One!']) {
      const res = await edit(worker.url, doc, page, page.blocks[0].blockId, text);
      assert.equal(res.status, 200, res.text);
      page = await getPage(worker.url, doc);
    }
    const last = await live.until((m) => m.kind === 'tool.event' && m.event.summary?.newRevision === page.revision && m.event.event === 'tool.completed');

    const again = openLive(worker.url, doc, { query: { after: seen } });
    const hello = await again.hello;
    assert.equal(hello.seq, last.seq);
    assert.deepEqual(hello.hello.replayed, live.messages.length - 1);
    assert.deepEqual(again.messages.slice(0, -1), live.messages.slice(1), 'exactly what was missed, in order');
    again.close();
    await again.closed;

    const byRevision = openLive(worker.url, doc, { query: { revision: page.revision - 1 } });
    const helloRev = await byRevision.hello;
    const replayed = byRevision.messages.slice(0, -1);
    assert.ok(replayed.every((m) => m.revision === page.revision), JSON.stringify(replayed.map((m) => m.revision)));
    assert.equal(helloRev.hello.replayed, replayed.length);
    assert.ok(replayed.some((m) => m.kind === 'page.changed' && m.change.fromRevision === page.revision - 1));
    byRevision.close();
    await byRevision.closed;

    const ahead = openLive(worker.url, doc, { query: { after: last.seq + 100 } });
    await ahead.hello;
    assert.equal(ahead.messages[0].kind, 'snapshot', 'a seq from another store: a snapshot');
    assert.deepEqual(ahead.messages[0].page.blocks, page.blocks);
    for (const s of [live, ahead]) s.close();
  });

  test("reads name the channel's position they were answered at; a socket resuming from the oldest gets what came after", async () => {
    const doc = fresh('live_position');
    const page = await putPage(worker.url, doc, { p_1: 'one', p_2: 'two' });
    const position = async (path) => {
      const res = await fetch(`${worker.url}/api/documents/${doc}${path}`, { headers: USER });
      assert.equal(res.status, 200, await res.clone().text());
      const seq = Number(res.headers.get('x-mnote-live-seq'));
      assert.ok(Number.isInteger(seq) && res.headers.get('x-mnote-live-seq') !== null, `${path}: ${res.headers.get('x-mnote-live-seq')}`);
      return seq;
    };
    const reads = ['', '/suggestions', '/review-sessions?limit=50', '/audit?limit=1'];
    const before = await Promise.all(reads.map(position));
    assert.equal(new Set(before).size, 1, `nothing happened between the reads: ${before}`);
    // A suggestion changes no revision: only its seq says a reader has not seen it.
    const res = await fetch(`${worker.url}/api/documents/${doc}/suggestions`, {
      method: 'POST',
      headers: { ...USER, 'content-type': 'application/json' },
      body: JSON.stringify({ baseRevision: page.revision, operations: [{ op: 'update', blockId: 'p_2', text: 'TWO' }], idempotencyKey: fresh('s') }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const later = await position('');
    assert.ok(later > before[0], `${later} > ${before[0]}`);
    assert.equal((await getPage(worker.url, doc)).revision, page.revision);
    const resumed = openLive(worker.url, doc, { query: { after: before[0], revision: page.revision } });
    const update = await resumed.until((m) => m.kind === 'review.updated', 'the suggestion replayed');
    assert.equal(update.session.state, 'awaiting_user');
    assert.equal((await resumed.hello).seq, later);
    resumed.close();
    // By the revision alone (as before the reads named a position) the same socket is told nothing.
    const byRevision = openLive(worker.url, doc, { query: { revision: page.revision } });
    await byRevision.hello;
    assert.deepEqual(byRevision.messages.map((m) => m.kind), ['hello']);
    byRevision.close();
  });

  test('an upgrade without a credential, with the tool token, or from a foreign origin is refused', async () => {
    const doc = fresh('live_refused');
    await putPage(worker.url, doc, { p_1: 'x' });
    const none = await upgrade(worker.url, doc, {});
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'mnote_unauthorized');
    const tool = await upgrade(worker.url, doc, { authorization: `Bearer ${TOOL_TOKEN}` });
    assert.equal(tool.status, 401);
    assert.equal(tool.body.code, 'mnote_unauthorized');
    const cookie = await signIn(worker.url);
    const foreign = await upgrade(worker.url, doc, { cookie, origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.code, 'mnote_forbidden_origin');
    const noOrigin = await upgrade(worker.url, doc, { cookie });
    assert.equal(noOrigin.status, 403, 'a cookie alone is a browser that hid its origin');
    const own = await upgrade(worker.url, doc, { cookie, origin: worker.url });
    assert.equal(own.status, 101);
    // And Node's WebSocket sees the refusal as a failed handshake.
    const refused = openLive(worker.url, doc, { headers: {} });
    const { code } = await refused.closed;
    assert.equal(code, 1006);
    // The tool token is not a browser credential, and the tool routes keep refusing the client token.
    const res = await toolCall(worker.url, 'doc_read', { documentId: doc }, { headers: USER });
    assert.equal(res.status, 401);
  });

  test('sockets over the cap and messages over the size limit are closed with their codes', async () => {
    const doc = fresh('live_caps');
    await putPage(worker.url, doc, { p_1: 'x' });
    const open = [];
    for (let i = 0; i < MAX_SOCKETS; i += 1) {
      open.push(openLive(worker.url, doc));
      await open[i].hello;
    }
    const over = openLive(worker.url, doc);
    const closed = await over.closed;
    assert.equal(closed.code, 4429);
    assert.match(closed.reason, /^mnote_live_socket_limit: /);
    assert.equal(over.messages.length, 0, 'nothing but the close');

    open[0].socket.send('x'.repeat(5000));
    const big = await open[0].closed;
    assert.equal(big.code, 4413);
    assert.match(big.reason, /^mnote_live_message_too_large: /);
    // Its place is free again.
    const next = openLive(worker.url, doc);
    await next.hello;
    // A ping is answered and changes nothing.
    next.socket.send('ping');
    for (const s of [...open.slice(1), next]) s.close();
  });

  test('a tool call over the tool route is told on the channel with its run id', async () => {
    const doc = fresh('live_tool');
    const page = await putPage(worker.url, doc, { p_1: 'alpha' });
    const watcher = openLive(worker.url, doc);
    await watcher.hello;
    const block = page.blocks[0];
    const res = await toolCall(
      worker.url,
      'mnote.doc.apply_block_ops',
      replaceArgs(doc, page.revision, { blockId: block.blockId, matchText: 'alpha', content: 'ALPHA' }),
      { runId: 'run_live_1' },
    );
    assert.equal(res.status, 200, res.text);
    // The helper freezes a context first (a doc_fetch of its own run); the write is told with its run id.
    const started = await watcher.until((m) => m.kind === 'tool.event' && m.event.runId === 'run_live_1');
    assert.equal(started.event.runId, 'run_live_1');
    await watcher.until((m) => m.kind === 'review.updated' || m.kind === 'page.changed');
    watcher.close();
  });

  test('a Node service follows a page with connectLive, the ws package and a Bearer header; without one it is refused', async () => {
    const doc = fresh('live_ws');
    const page = await putPage(worker.url, doc, { p_1: 'one', p_2: 'two' });
    const session = new pageai.PageSession(page);
    /** connectLive with `options`, and a promise of its first status in `states`. */
    const connect = (options, states) => {
      let reached;
      const status = new Promise((resolve) => (reached = resolve));
      const events = [];
      let changed;
      const change = new Promise((resolve) => (changed = resolve));
      const client = connectLive({
        url: worker.url,
        documentId: doc,
        WebSocket: WS,
        backoff: { initialDelayMs: 60_000, jitter: 0 },
        onEvent: (m) => {
          events.push(m);
          if (m.kind === 'page.changed') changed(m);
        },
        onStatus: (s) => states.includes(s.state) && reached(s),
        ...options,
      });
      return { client, status, change, events };
    };
    const service = connect({ headers: USER, session }, ['live']);
    const anonymous = connect({ revision: page.revision }, ['waiting']);
    try {
      const live = await service.status;
      assert.equal(live.revision, page.revision);
      const res = await edit(worker.url, doc, page, 'p_2', 'two, from elsewhere');
      assert.equal(res.status, 200, res.text);
      const message = await service.change;
      assert.equal(message.revision, page.revision + 1);
      // The session followed the change: its page is the stored one.
      assert.deepEqual(session.page().blocks.map((b) => b.text), ['one', 'two, from elsewhere']);
      assert.deepEqual(session.page(), await getPage(worker.url, doc));

      const refused = await anonymous.status;
      assert.equal(refused.code, 1006, 'the upgrade without a credential is refused');
      assert.deepEqual(anonymous.events, []);
    } finally {
      service.client.close();
      anonymous.client.close();
      session.free();
    }
    // Headers need a WebSocket class that sends them; the built-in default is never handed them silently.
    assert.throws(
      () => connectLive({ url: worker.url, documentId: doc, headers: USER }),
      (e) => e instanceof TypeError && /ws package/.test(e.message),
    );
  });
});

test('after wrangler dev restarts between two writes, connectLive reconnects and catches up', { timeout: 600_000 }, async () => {
  const state = await mkdtemp(join(tmpdir(), 'mnote-live-restart-'));
  let worker = await startWorker({ persistTo: state });
  try {
    const doc = 'live_restart';
    let page = await putPage(worker.url, doc, { p_1: 'first', p_2: 'second' });
    class Authed extends WebSocket {
      constructor(url, protocols) {
        super(url, { protocols, headers: USER });
      }
    }
    const seen = [];
    const statuses = [];
    const client = connectLive({
      url: worker.url,
      documentId: doc,
      revision: page.revision,
      WebSocket: Authed,
      backoff: { initialDelayMs: 200, maxDelayMs: 1_000, jitter: 0 },
      onEvent: (m) => seen.push(m),
      onStatus: (s) => statuses.push(s.state),
    });
    const waitFor = async (pred, what) => {
      for (let i = 0; i < 600; i += 1) {
        if (pred()) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no ${what}: ${JSON.stringify(seen.map((m) => [m.kind, m.seq]))} ${statuses}`);
    };
    await waitFor(() => client.state === 'live', 'live');
    let res = await edit(worker.url, doc, page, page.blocks[0].blockId, 'FIRST');
    assert.equal(res.status, 200, res.text);
    await waitFor(() => seen.some((m) => m.kind === 'page.changed'), 'first change');
    const before = client.lastSeq;

    const port = worker.port;
    await worker.stop();
    await waitFor(() => client.state === 'waiting', 'the drop');
    worker = await startWorker({ persistTo: state, port });
    page = await getPage(worker.url, doc);
    res = await edit(worker.url, doc, page, page.blocks[1].blockId, 'SECOND');
    assert.equal(res.status, 200, res.text);
    await waitFor(() => seen.filter((m) => m.kind === 'page.changed').length === 2, 'second change');
    const changes = seen.filter((m) => m.kind === 'page.changed');
    assert.equal(changes[1].revision, page.revision + 1);
    assert.deepEqual(changes[1].change.blocks.map((b) => b.text), ['SECOND']);
    // hello, snapshot and profile.changed (v2) are not stored: they carry the position the socket is at.
    const stored = seen.filter((m) => !['hello', 'snapshot', 'profile.changed'].includes(m.kind));
    assert.deepEqual(stored.map((m) => m.seq), stored.map((_, i) => stored[0].seq + i), 'no gap, no repeat');
    assert.ok(client.lastSeq > before);
    assert.ok(statuses.filter((s) => s === 'live').length >= 2, `${statuses}`);
    client.close();
  } finally {
    await worker.stop();
    await rm(state, { recursive: true, force: true });
  }
});
