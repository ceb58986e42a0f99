// Benchmark of the Worker's tool paths under `wrangler dev` (workerd, local SQLite Durable Objects), one
// document, over HTTP from this process:
//
// - `mnote.doc.apply_block_ops` through the tool route: dry-run throughput (sequential, and 8 callers at
//   once) and apply throughput (sequential: each apply moves the revision the next one is based on);
// - `POST /api/page-ai/command` latency (p50/p99) for the low-risk shortcut (`把「A」替换为「B」`, yolo).
//
//   node benches/worker_tools.mjs            # or: make bench
//   BENCH_N=1000 node benches/worker_tools.mjs
//
// Figures include wrangler dev's local proxy and one Durable Object call per request (the document's
// object, which holds its own copy of the profile), so they are an upper bound on the Worker's own cost. Results also go to
// tests/artifacts/bench-worker-tools.json.
//
// Every AI write names a frozen context (`mnote_context_required`). The dry-runs share one, read before them;
// each apply reads a fresh context of the block it edits (the previous apply changed that block), and only
// the apply is timed, so its figures are the write's, not the read's.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ROOT, startWorker } from '../tests/e2e/lib/wrangler.mjs';
import { TOOL_VARS, command, getPage, putPage, setProfile, toolCall } from '../tests/e2e/lib/mnote.mjs';

const N = Number(process.env.BENCH_N ?? 400);
const DOC = 'bench_doc';
const WARMUP = 20;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function summary(name, durations, wallMs) {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    name,
    calls: durations.length,
    callsPerSecond: Number(((durations.length / wallMs) * 1000).toFixed(1)),
    p50Ms: Number(percentile(sorted, 50).toFixed(2)),
    p99Ms: Number(percentile(sorted, 99).toFixed(2)),
    maxMs: Number(sorted.at(-1).toFixed(2)),
  };
}

/**
 * Runs `once` n times on `concurrency` callers. A call may answer the milliseconds that count (a write
 * without the read before it); with one caller, the wall time is then the sum of those.
 */
async function timed(n, concurrency, once) {
  const durations = [];
  let counted = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const start = performance.now();
        const part = await once(i);
        const ms = typeof part === 'number' ? part : performance.now() - start;
        if (typeof part === 'number') counted += part;
        durations.push(ms);
      }
    }),
  );
  const wallMs = counted > 0 && concurrency === 1 ? counted : performance.now() - t0;
  return { durations, wallMs };
}

/** A fresh frozen context of one block, for the writes that follow (answers its id). */
async function contextOf(url, documentId, blockId) {
  const read = { documentId, scope: { type: 'block', blockId }, formats: ['text'] };
  return expectOk(await toolCall(url, 'mnote.doc.fetch', read), 'context').body.result.contextId;
}

function expectOk(res, what) {
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

const worker = await startWorker({ vars: TOOL_VARS });
const results = [];
try {
  const url = worker.url;
  await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  const paragraphs = { p_target: '这一段写着甲。', p_counter: 'counter 0' };
  for (let i = 0; i < 30; i++) paragraphs[`p_${i}`] = `Paragraph ${i}: 一段普通的文字, with some English words in it.`;
  await putPage(url, DOC, paragraphs);

  // Baselines: the Worker alone, and one document-object round trip.
  const plain = async (path) => {
    // Every route but /health needs a signed-in user (the bench's Worker accepts the test client token).
    const res = await fetch(`${url}${path}`, { headers: worker.auth });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  };
  await timed(WARMUP, 1, () => plain('/health'));
  let run = await timed(N, 1, () => plain('/health'));
  results.push(summary('baseline: GET /health', run.durations, run.wallMs));
  run = await timed(N, 1, () => plain(`/api/documents/${DOC}`));
  results.push(summary('baseline: GET /api/documents/{id}', run.durations, run.wallMs));

  // Dry-runs change nothing, so every call is based on the same revision.
  const base = (await getPage(url, DOC)).revision;
  const dryContext = await contextOf(url, DOC, 'p_7');
  const dryRun = (i) =>
    toolCall(url, 'mnote.doc.apply_block_ops', {
      documentId: DOC,
      contextId: dryContext,
      baseRevision: base,
      dryRun: true,
      idempotencyKey: `bench_dry_${i}`,
      operations: [{ op: 'replace', blockId: 'p_7', matchText: 'Paragraph 7', content: `Section ${i}` }],
    }).then((res) => expectOk(res, 'dry-run'));
  await timed(WARMUP, 1, dryRun);
  run = await timed(N, 1, dryRun);
  results.push(summary('apply_block_ops dry-run, 1 caller', run.durations, run.wallMs));
  run = await timed(N, 8, (i) => dryRun(N + i));
  results.push(summary('apply_block_ops dry-run, 8 callers', run.durations, run.wallMs));

  // Applies: sequential, each on the revision the previous one produced.
  let revision = (await getPage(url, DOC)).revision;
  const apply = async (i) => {
    const contextId = await contextOf(url, DOC, 'p_counter');
    const start = performance.now();
    const res = expectOk(
      await toolCall(url, 'mnote.doc.apply_block_ops', {
        documentId: DOC,
        contextId,
        baseRevision: revision,
        dryRun: false,
        idempotencyKey: `bench_apply_${i}`,
        operations: [{ op: 'update', blockId: 'p_counter', text: `counter ${i + 1}` }],
      }),
      'apply',
    );
    const elapsed = performance.now() - start;
    revision = res.body.result.newRevision;
    return elapsed;
  };
  await timed(WARMUP, 1, (i) => apply(1_000_000 + i));
  run = await timed(N, 1, apply);
  results.push(summary('apply_block_ops apply, 1 caller', run.durations, run.wallMs));

  // The command route's low-risk shortcut: route + freeze + apply + read back, alternating 甲 ⇄ 乙.
  const shortcut = async (i) => {
    const [from, to] = i % 2 === 0 ? ['甲', '乙'] : ['乙', '甲'];
    const res = expectOk(await command(url, { documentId: DOC, prompt: `把「${from}」替换为「${to}」`, scope: { type: 'full' } }), 'command');
    if (res.body.outcome !== 'applied') throw new Error(`the shortcut was not applied: ${res.text.slice(0, 300)}`);
  };
  await timed(WARMUP, 1, shortcut);
  run = await timed(N, 1, (i) => shortcut(WARMUP + i));
  results.push(summary('page-ai command (low-risk shortcut, applied)', run.durations, run.wallMs));

  console.table(results);
  const out = join(ROOT, 'tests/artifacts');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'bench-worker-tools.json'), `${JSON.stringify({ n: N, at: new Date().toISOString(), results }, null, 2)}\n`);
} finally {
  await worker.stop();
}
