// Benchmark of what one write costs the document's Durable Object as the page grows, under `wrangler dev`
// (workerd, local SQLite Durable Objects), over HTTP from this process, one caller at a time.
//
// For pages of 30, 1,000 and 10,000 blocks it measures, in the same run:
// - `GET /health`: the floor of one request through the Worker (no Durable Object);
// - `GET /api/documents/{id}`: one document-object round trip that answers the whole page;
// - apply one `update` of one block through the tool route (`mnote.doc.apply_block_ops`, yolo), each on the
//   revision the previous one produced; and one `insert_after` (a new block between two others);
// - rows written per apply, as the document object reports them (`x-mnote-rows-written`, counted by its SQL
//   layer from what SQLite says each statement wrote).
//
//   node benches/worker_storage.mjs            # or: make bench
//   BENCH_N=400 BENCH_SIZES=30,1000 node benches/worker_storage.mjs
//
// Targets (issue 15): apply p50 ≤ 2× `GET` of the same page; the 10,000-block apply within 1.3× of the
// 30-block apply; rows per apply the same at every size. Results also go to
// tests/artifacts/bench-worker-storage.json.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ROOT, startWorker } from '../tests/e2e/lib/wrangler.mjs';
import { TOOL_VARS, getPage, putPage, setProfile, toolCall } from '../tests/e2e/lib/mnote.mjs';
import { TEST_CLIENT_TOKEN } from '../tests/e2e/lib/wrangler.mjs';

const N = Number(process.env.BENCH_N ?? 200);
const SIZES = (process.env.BENCH_SIZES ?? '30,1000,10000').split(',').map(Number);
const WARMUP = 20;
const ROWS_HEADER = 'x-mnote-rows-written';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function stats(durations, wallMs) {
  const sorted = [...durations].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), perSecond: (durations.length / wallMs) * 1000 };
}

async function timed(n, once) {
  const durations = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await once(i);
    durations.push(performance.now() - start);
  }
  return stats(durations, performance.now() - t0);
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

async function measure(url, size) {
  const doc = `bench_storage_${size}`;
  await putPage(url, doc, pageOf(size));
  const health = await timed(WARMUP + N, () => plain(`${url}/health`));
  const get = await timed(N, () => plain(`${url}/api/documents/${doc}`));

  let revision = (await getPage(url, doc)).revision;
  const updateRows = [];
  const update = async (i) => {
    const res = expectOk(
      await toolCall(url, 'mnote.doc.apply_block_ops', {
        documentId: doc,
        baseRevision: revision,
        dryRun: false,
        idempotencyKey: `bench_update_${size}_${i}`,
        operations: [{ op: 'update', blockId: 'p_counter', text: `counter ${i + 1}` }],
      }),
      'update',
    );
    revision = res.body.result.newRevision;
    updateRows.push(rowsOf(res));
  };
  await timed(WARMUP, (i) => update(1_000_000 + i));
  updateRows.length = 0;
  const apply = await timed(N, update);

  // Each insert lands right after the edited block, between it and the block the previous insert added.
  const insertRows = [];
  const insert = async (i) => {
    const res = expectOk(
      await toolCall(url, 'mnote.doc.apply_block_ops', {
        documentId: doc,
        baseRevision: revision,
        dryRun: false,
        idempotencyKey: `bench_insert_${size}_${i}`,
        operations: [{ op: 'insert_after', afterBlockId: 'p_counter', block: { type: 'paragraph', text: `inserted ${i}` } }],
      }),
      'insert',
    );
    revision = res.body.result.newRevision;
    insertRows.push(rowsOf(res));
  };
  const inserted = await timed(N, insert);
  return { size, health, get, apply, updateRows, inserted, insertRows };
}

const fmt = (ms) => Number(ms.toFixed(2));

const worker = await startWorker({ vars: TOOL_VARS });
const measured = [];
try {
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  for (const size of SIZES) measured.push(await measure(worker.url, size));
} finally {
  await worker.stop();
}

const first = measured[0];
const table = measured.map((m) => ({
  blocks: m.size,
  'GET /health p50 ms': fmt(m.health.p50),
  'GET page p50 ms': fmt(m.get.p50),
  'update p50 ms': fmt(m.apply.p50),
  'update p99 ms': fmt(m.apply.p99),
  'updates/s': Number(m.apply.perSecond.toFixed(1)),
  'update ÷ GET page': Number((m.apply.p50 / m.get.p50).toFixed(2)),
  [`update ÷ update@${first.size}`]: Number((m.apply.p50 / first.apply.p50).toFixed(2)),
  'rows/update': rowsSummary(m.updateRows),
  'insert p50 ms': fmt(m.inserted.p50),
  'rows/insert': rowsSummary(m.insertRows),
}));
console.log(`worker storage: ${N} calls per figure, one caller, targets: update ÷ GET page ≤ 2, update ÷ update@${first.size} ≤ 1.3, rows constant`);
console.table(table);
const out = join(ROOT, 'tests/artifacts');
await mkdir(out, { recursive: true });
await writeFile(join(out, 'bench-worker-storage.json'), `${JSON.stringify({ n: N, at: new Date().toISOString(), table }, null, 2)}\n`);
