// Benchmark: the live channel under `wrangler dev` (workerd, local SQLite Durable Objects).
//
// 1. Write → other client's socket: one client saves a block edit (`PATCH /api/documents/{id}/blocks`), one
//    after another; a second client watches the document's live channel. For each write: the write's own
//    latency (request sent → answer read) and the time until the watcher's socket has the `page.changed`
//    of that revision (request sent → message read), both on one clock, in the same run.
// 2. Fan-out: the same writes with 50 sockets open on the document: the time until every socket has the
//    `page.changed` (request sent → the last socket's message read), and until the first has it.
//
// Figures are medians and p99s, and their ratios to the write's own latency in the same run (absolute
// numbers move with the machine's load; the ratios are what to compare across runs).
//
//   node --experimental-websocket benches/live_fanout.mjs      # or: make bench
//   BENCH_WRITES=200 node --experimental-websocket benches/live_fanout.mjs
//
// Results also go to tests/artifacts/bench-live-fanout.json.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { ROOT, TEST_CLIENT_TOKEN, startWorker } from '../tests/e2e/lib/wrangler.mjs';
import { editBlocks, putPage } from '../tests/e2e/lib/mnote.mjs';

const WRITES = Number(process.env.BENCH_WRITES ?? 100);
const FANOUT = 50;
const USER = { authorization: `Bearer ${TEST_CLIENT_TOKEN}` };

if (typeof WebSocket !== 'function') {
  console.error('live_fanout needs a WebSocket client: run with node --experimental-websocket (Node 20)');
  process.exit(2);
}

/** A socket that records when each revision's `page.changed` arrived. */
function watcher(url, doc) {
  const socket = new WebSocket(new URL(`/api/documents/${doc}/live`, url.replace(/^http/, 'ws')).href, { headers: USER });
  const arrived = new Map();
  const waiting = new Map();
  let ready;
  const hello = new Promise((resolve, reject) => {
    ready = resolve;
    socket.onerror = () => reject(new Error('socket failed'));
  });
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.kind === 'hello') return ready();
    if (message.kind !== 'page.changed') return;
    const at = performance.now();
    arrived.set(message.revision, at);
    waiting.get(message.revision)?.(at);
  };
  const when = (revision) =>
    arrived.has(revision) ? Promise.resolve(arrived.get(revision)) : new Promise((r) => waiting.set(revision, r));
  return { hello, when, close: () => socket.close(1000, 'done') };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (v) => `${v.toFixed(2)} ms`;

/** `WRITES` edits, each waited for on every socket; answers the timings per write. */
async function writes(url, doc, sockets, startRevision, part) {
  let revision = startRevision;
  const rows = [];
  for (let i = 0; i < WRITES; i++) {
    const t0 = performance.now();
    const res = await editBlocks(url, doc, {
      baseRevision: revision,
      operations: [{ op: 'update', blockId: 'p_1', text: `edit ${i}` }],
      idempotencyKey: `bench_${doc}_${part}_${i}`,
    });
    const t1 = performance.now();
    if (res.status !== 200) throw new Error(`write ${i}: ${res.status} ${res.text}`);
    revision = res.body.newRevision;
    const seen = await Promise.all(sockets.map((s) => s.when(revision)));
    rows.push({ write: t1 - t0, first: Math.min(...seen) - t0, last: Math.max(...seen) - t0 });
  }
  return { rows, revision };
}

function summary(label, values, base) {
  const median = quantile(values, 0.5);
  const p99 = quantile(values, 0.99);
  return { label, median, p99, medianRatio: median / base.median, p99Ratio: p99 / base.p99 };
}

const worker = await startWorker();
try {
  const doc = `bench_live_${process.pid}`;
  const page = await putPage(worker.url, doc, { p_1: 'start', p_2: 'other' });

  const one = watcher(worker.url, doc);
  await one.hello;
  const single = await writes(worker.url, doc, [one], page.revision, 'one');
  one.close();

  const many = Array.from({ length: FANOUT }, () => watcher(worker.url, doc));
  await Promise.all(many.map((s) => s.hello));
  const fan = await writes(worker.url, doc, many, single.revision, 'fan');
  for (const s of many) s.close();

  const base = { median: quantile(single.rows.map((r) => r.write), 0.5), p99: quantile(single.rows.map((r) => r.write), 0.99) };
  const fanBase = { median: quantile(fan.rows.map((r) => r.write), 0.5), p99: quantile(fan.rows.map((r) => r.write), 0.99) };
  const table = [
    summary('write (1 socket open)', single.rows.map((r) => r.write), base),
    summary('write → other client\'s socket', single.rows.map((r) => r.last), base),
    summary(`write (${FANOUT} sockets open)`, fan.rows.map((r) => r.write), fanBase),
    summary(`write → first of ${FANOUT} sockets`, fan.rows.map((r) => r.first), fanBase),
    summary(`write → all ${FANOUT} sockets`, fan.rows.map((r) => r.last), fanBase),
  ];
  console.log(`live channel under wrangler dev, ${WRITES} writes each; ratios to the write's own latency in the same part`);
  console.log('| path | median | p99 | median / write | p99 / write |');
  console.log('|---|---|---|---|---|');
  for (const row of table) {
    console.log(`| ${row.label} | ${ms(row.median)} | ${ms(row.p99)} | ${row.medianRatio.toFixed(2)} | ${row.p99Ratio.toFixed(2)} |`);
  }
  const out = join(ROOT, 'tests', 'artifacts');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'bench-live-fanout.json'), JSON.stringify({ writes: WRITES, fanout: FANOUT, table }, null, 2));
} finally {
  await worker.stop();
}
