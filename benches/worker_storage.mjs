// Benchmark of what one write costs the document's Durable Object as the page grows, under `wrangler dev`
// (workerd, local SQLite Durable Objects), over HTTP from this process, one caller at a time.
//
// For pages of 30, 1,000 and 10,000 blocks it measures, in the same run and interleaved (each round runs
// every step on every page once, so all figures share the same stretch of time):
// - `GET /health`: the floor of one request through the Worker (no Durable Object);
// - `GET /api/documents/{id}`: one document-object round trip that answers the whole page;
// - the same `update` as a dry-run (yolo: a plain preview, nothing committed), which separates the
//   executor's cost from the commit's;
// - apply one `update` of one block through the tool route (`mnote.doc.apply_block_ops`, yolo), each on the
//   revision the previous one produced; and one `insert_after` (a new block between two others);
// - every write names a frozen context, as an AI write must (`mnote_context_required`): the block's own
//   (`mnote.doc.fetch` with scope `block`), read just before the write and not timed, so the figure is the
//   write's alone. (The e2e helpers' default, a full-page `doc_fetch` before each write, would time a
//   10,000-block read with every write.) The same update is also timed bound to a full-page context
//   (`update (full ctx)`), as a Hermes run that read the whole page writes: the write then also checks
//   against that context, which the object keeps in memory (issue 29: ≤ 1.3× the block-context update).
// - with BENCH_CONTROL=1, a control: the block-context update right after an untimed full-page read, which
//   shows whether what a full-page read leaves behind (a 10,000-block answer to collect) slows the next
//   write (it did not: 0.97-1.01× the plain block-context update).
// - rows written per apply, as the document object reports them (`x-mnote-rows-written`, counted by its SQL
//   layer from what SQLite says each statement wrote).
//
//   node benches/worker_storage.mjs            # or: make bench
//   BENCH_N=400 BENCH_SIZES=30,1000 node benches/worker_storage.mjs
//   BENCH_CONFIG=worker/wrangler.before.toml node benches/worker_storage.mjs   # another build's Worker
//
// Targets (issue 15): apply p50 ≤ 2× `GET` of the same page; the 10,000-block apply within 1.3× of the
// 30-block apply; rows per apply the same at every size. Issue 29: the update under a full-page context
// ≤ 1.3× the same update under a block context, at every size. Results also go to
// tests/artifacts/bench-worker-storage.json.

import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { ROOT, startWorker } from '../tests/e2e/lib/wrangler.mjs';
import { TOOL_VARS, getPage, putPage, setProfile, toolCall } from '../tests/e2e/lib/mnote.mjs';
import { TEST_CLIENT_TOKEN } from '../tests/e2e/lib/wrangler.mjs';

const N = Number(process.env.BENCH_N ?? 200);
const SIZES = (process.env.BENCH_SIZES ?? '30,1000,10000').split(',').map(Number);
const WARMUP = 30;
const FULL_CONTEXT_TARGET = 1.3;
const ROWS_HEADER = 'x-mnote-rows-written';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** p50, p99 and calls per second (one caller: calls ÷ the time spent in them). */
function stats(durations) {
  const sorted = [...durations].sort((a, b) => a - b);
  const spent = durations.reduce((a, b) => a + b, 0);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), perSecond: (durations.length / spent) * 1000 };
}

async function plain(url) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${TEST_CLIENT_TOKEN}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
}

function expectOk(res, what) {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

/** The rows the object reports for one answer, or null when it does not report them. */
function rowsOf(res) {
  const value = res.headers.get(ROWS_HEADER);
  return value === null ? null : Number(value);
}

function rowsSummary(rows) {
  if (rows.some((r) => r === null)) return 'n/a';
  const min = Math.min(...rows);
  const max = Math.max(...rows);
  return min === max ? String(min) : `${min}–${max}`;
}

/** A page of `size` paragraphs with the block the bench edits in the middle. */
function pageOf(size) {
  const paragraphs = {};
  for (let i = 0; i < size; i++) {
    if (i === Math.floor(size / 2)) paragraphs.p_counter = 'counter 0';
    else paragraphs[`p_${i}`] = `Paragraph ${i}: 一段普通的文字, with some English words in it.`;
  }
  return paragraphs;
}

/** Stores the page of `size` blocks and answers the steps measured on it, and the rows its writes report. */
async function prepare(url, size) {
  const doc = `bench_storage_${size}`;
  await putPage(url, doc, pageOf(size));
  let revision = (await getPage(url, doc)).revision;
  const rows = { update: [], full: [], control: [], insert: [], counting: false };
  /**
   * One write, bound to a fresh context (of the block it touches, or of the whole page when `full`);
   * answers how long the write took.
   */
  const write = async (what, i, operation, dryRun, full = false, afterFullRead = false) => {
    if (afterFullRead) {
      const whole = { documentId: doc, scope: { type: 'full' }, formats: ['text'] };
      expectOk(await toolCall(url, 'mnote.doc.fetch', whole), `${what} full read`);
    }
    const scope = full ? { type: 'full' } : { type: 'block', blockId: 'p_counter' };
    const read = { documentId: doc, scope, formats: ['text'] };
    const contextId = expectOk(await toolCall(url, 'mnote.doc.fetch', read), `${what} context`).body.result.contextId;
    const start = performance.now();
    const res = expectOk(
      await toolCall(url, 'mnote.doc.apply_block_ops', {
        documentId: doc,
        contextId,
        baseRevision: revision,
        dryRun,
        idempotencyKey: `bench_${what}_${size}_${i}`,
        operations: [operation],
      }),
      what,
    );
    const elapsed = performance.now() - start;
    if (!dryRun) {
      revision = res.body.result.newRevision;
      if (rows.counting) rows[what].push(rowsOf(res));
    }
    return elapsed;
  };
  const steps = {
    health: () => plain(`${url}/health`),
    // The same call as a dry-run (yolo: a plain preview): everything an apply does but the commit.
    dry: (i) => write('dry', i, { op: 'update', blockId: 'p_counter', text: `preview ${i}` }, true),
    apply: (i) => write('update', i, { op: 'update', blockId: 'p_counter', text: `counter ${i}` }, false),
    applyFull: (i) => write('full', i, { op: 'update', blockId: 'p_counter', text: `full ${i}` }, false, true),
    applyAfterFull: process.env.BENCH_CONTROL
      ? (i) => write('control', i, { op: 'update', blockId: 'p_counter', text: `control ${i}` }, false, false, true)
      : undefined,
    // Each insert lands right after the edited block, before the block the previous insert added.
    insert: (i) =>
      write('insert', i, { op: 'insert_after', afterBlockId: 'p_counter', block: { type: 'paragraph', text: `inserted ${i}` } }, false),
    // Last: the runtime's work after a large answer (GC of a 10,000-block page's JSON) then falls on the
    // next page's `GET /health`, not on this page's writes.
    get: () => plain(`${url}/api/documents/${doc}`),
  };
  if (!steps.applyAfterFull) delete steps.applyAfterFull;
  return { size, steps, rows };
}

/**
 * Every step of every size once per round, for `rounds` rounds numbered from `first` (each write's
 * idempotency key). Interleaved, all figures are taken over the same stretch of time, so a machine shared
 * with other work (and the runtime warming up) shifts them alike, and their ratios hold.
 */
async function rounds(pages, count, first) {
  const durations = pages.map((page) => Object.fromEntries(Object.keys(page.steps).map((name) => [name, []])));
  for (let i = first; i < first + count; i++) {
    for (const [p, page] of pages.entries()) {
      for (const [name, step] of Object.entries(page.steps)) {
        // A step may answer the part of it that counts (a write, without the read before it).
        const start = performance.now();
        const counted = await step(i);
        durations[p][name].push(typeof counted === 'number' ? counted : performance.now() - start);
      }
    }
  }
  return durations.map((d) => Object.fromEntries(Object.entries(d).map(([name, list]) => [name, stats(list)])));
}

const fmt = (ms) => Number(ms.toFixed(2));

// BENCH_CONFIG: another wrangler.toml (e.g. one whose `main` is an older build), to compare builds.
const worker = await startWorker({ vars: TOOL_VARS, config: process.env.BENCH_CONFIG && resolve(process.env.BENCH_CONFIG) });
let measured;
try {
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  const pages = [];
  for (const size of SIZES) pages.push(await prepare(worker.url, size));
  await rounds(pages, WARMUP, 1_000_000);
  for (const page of pages) page.rows.counting = true;
  const figures = await rounds(pages, N, 0);
  measured = pages.map((page, p) => ({ size: page.size, ...figures[p], updateRows: page.rows.update, insertRows: page.rows.insert }));
} finally {
  await worker.stop();
}

const first = measured[0];
const table = measured.map((m) => ({
  blocks: m.size,
  'GET /health p50 ms': fmt(m.health.p50),
  'GET page p50 ms': fmt(m.get.p50),
  'dry-run p50 ms': fmt(m.dry.p50),
  'update p50 ms': fmt(m.apply.p50),
  'update p99 ms': fmt(m.apply.p99),
  'updates/s': Number(m.apply.perSecond.toFixed(1)),
  'update ÷ GET page': Number((m.apply.p50 / m.get.p50).toFixed(2)),
  [`update ÷ update@${first.size}`]: Number((m.apply.p50 / first.apply.p50).toFixed(2)),
  'rows/update': rowsSummary(m.updateRows),
  'update (full ctx) p50 ms': fmt(m.applyFull.p50),
  'full ctx ÷ block ctx': Number((m.applyFull.p50 / m.apply.p50).toFixed(2)),
  'insert p50 ms': fmt(m.insert.p50),
  'rows/insert': rowsSummary(m.insertRows),
}));
console.log(
  `worker storage: ${N} calls per figure, one caller, writes bound to a block context (and a full-page one), ` +
    `targets: update ÷ GET page ≤ 2, update ÷ update@${first.size} ≤ 1.3, rows constant, full ctx ÷ block ctx ≤ ${FULL_CONTEXT_TARGET}`,
);
console.table(table);
const largest = measured[measured.length - 1];
const fullRatio = largest.applyFull.p50 / largest.apply.p50;
if (largest.applyAfterFull) {
  console.log(`  control: block-context update right after a full-page read ${fmt(largest.applyAfterFull.p50)} ms (÷ block ctx ${(largest.applyAfterFull.p50 / largest.apply.p50).toFixed(2)})`);
}
console.log(
  `  update at ${largest.size} blocks: full-page context ${fmt(largest.applyFull.p50)} ms, block context ${fmt(largest.apply.p50)} ms, ` +
    `ratio ${fullRatio.toFixed(2)} (target ≤ ${FULL_CONTEXT_TARGET}: ${fullRatio <= FULL_CONTEXT_TARGET ? 'met' : 'not met'})`,
);
const out = join(ROOT, 'tests/artifacts');
await mkdir(out, { recursive: true });
await writeFile(join(out, 'bench-worker-storage.json'), `${JSON.stringify({ n: N, at: new Date().toISOString(), table }, null, 2)}\n`);
