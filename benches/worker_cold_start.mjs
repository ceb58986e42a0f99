// Benchmark: the Worker's cold start under `wrangler dev`, and the size of what starts.
//
//   node benches/worker_cold_start.mjs                      # or: make bench
//   BENCH_N=10 BENCH_BEFORE=/tmp/old/build node benches/worker_cold_start.mjs
//
// Each start is a fresh `wrangler dev` (fresh state folder) on the Worker as built (worker/build.sh). Two
// figures per start: from the spawn until wrangler prints "Ready on" (workerd has loaded the script and
// compiled its wasm), and the first request after that (`GET /health`, the isolate's first answer). The
// median of BENCH_N (default 10) starts is printed for each.
//
// BENCH_BEFORE names another bundle folder (a `build/` of worker-build: index.js, index_bg.wasm, …), e.g.
// main's, built in a separate clone: its starts are interleaved with this one's (one of each per round), so
// both see the same stretch of a shared machine, and the table gives the ratio. Results also go to
// tests/artifacts/bench-worker-cold-start.json.

import { readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

import { ROOT, startWorker } from '../tests/e2e/lib/wrangler.mjs';

const N = Number(process.env.BENCH_N ?? 10);
const BEFORE = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : null;
const WORKER_DIR = join(ROOT, 'worker');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** worker/wrangler.toml without [build], with `main` at `bundle`'s index.js, written next to it. */
async function configFor(bundle, name) {
  const toml = await readFile(join(WORKER_DIR, 'wrangler.toml'), 'utf8');
  const stripped = toml.replace(/^\[build\]\n(?:(?!\[).*\n)*/m, '');
  const main = join(bundle, 'index.js');
  const text = stripped.replace(/^main = .*$/m, `main = ${JSON.stringify(main)}`);
  if (text === stripped) throw new Error('worker/wrangler.toml has no main line');
  const path = join(WORKER_DIR, `wrangler.${name}.toml`);
  await writeFile(path, `# Written by benches/worker_cold_start.mjs; do not edit.\n${text}`);
  return path;
}

/** The bundle's wasm, raw and gzip -9 (what the size limits count), in bytes. */
function sizeOf(bundle) {
  const wasm = join(bundle, 'index_bg.wasm');
  return { raw: statSync(wasm).size, gzip: gzipSync(readFileSync(wasm), { level: 9 }).length };
}

/** One cold start: ms from spawn to "Ready on", and of the first `GET /health`. */
async function coldStart(config) {
  const spawned = performance.now();
  const worker = await startWorker({ config, ready: 'log' });
  try {
    const ready = performance.now() - spawned;
    const start = performance.now();
    const res = await fetch(`${worker.url}/health`);
    await res.arrayBuffer();
    const first = performance.now() - start;
    if (res.status !== 200) throw new Error(`first GET /health: ${res.status}`);
    return { ready, first };
  } finally {
    await worker.stop();
  }
}

// Brings worker/build up to date (a no-op when it is) before the first timed start.
await (await startWorker()).stop();
const builds = [{ name: 'this tree', bundle: join(WORKER_DIR, 'build'), config: undefined }];
if (BEFORE) builds.push({ name: `before (${BEFORE})`, bundle: BEFORE, config: await configFor(BEFORE, 'before') });
const samples = new Map(builds.map((b) => [b.name, []]));
try {
  for (let round = 0; round < N; round++) {
    for (const build of round % 2 ? [...builds].reverse() : builds) samples.get(build.name).push(await coldStart(build.config));
  }
} finally {
  if (BEFORE) await rm(join(WORKER_DIR, 'wrangler.before.toml'), { force: true });
}

const rows = builds.map((build) => {
  const list = samples.get(build.name);
  const size = sizeOf(build.bundle);
  return {
    build: build.name,
    'wasm KB': Math.round(size.raw / 1024),
    'wasm gzip -9 KB': Math.round(size.gzip / 1024),
    'spawn → ready ms (median)': Math.round(median(list.map((s) => s.ready))),
    'first request ms (median)': Number(median(list.map((s) => s.first)).toFixed(1)),
  };
});
console.log(`worker cold start: median of ${N} fresh \`wrangler dev\` starts each${BEFORE ? ', interleaved with the other build' : ''}`);
console.table(rows);
if (rows.length === 2) {
  const [now, before] = rows;
  const ratio = (key) => (now[key] / before[key]).toFixed(2);
  console.log(
    `  this tree ÷ before: wasm gzip ${ratio('wasm gzip -9 KB')}×, spawn → ready ${ratio('spawn → ready ms (median)')}×, ` +
      `first request ${ratio('first request ms (median)')}×`,
  );
}
const out = join(ROOT, 'tests/artifacts');
await mkdir(out, { recursive: true });
await writeFile(join(out, 'bench-worker-cold-start.json'), `${JSON.stringify({ n: N, at: new Date().toISOString(), rows, samples: Object.fromEntries(samples) }, null, 2)}\n`);
