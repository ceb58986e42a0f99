// Benchmark: what the Worker's SSE relay adds to each Hermes event.
//
//   node benches/sse_relay.mjs [events=1000] [gapMs=2] [rounds=3]
//
// The scripted Hermes double (tests/hermes/double.mjs) streams `events` message.delta events, `gapMs`
// apart, and records when it wrote each one. The same kind of run is read twice per round: directly from
// the double, and through the Worker under `wrangler dev` (GET /api/hermes/client/events/{runId}, which
// parses each event, adds session_id and re-frames it). Latency = arrival at the reader − write by the
// double, on one clock (everything runs in this process). The report gives the median and p99 of both,
// and the added latency (through the Worker − direct). A paced stream measures per-event latency; a burst
// (gap 0) round measures throughput.

import { startHermesDouble } from '../tests/hermes/double.mjs';
import { readEvents } from '../tests/e2e/lib/sse.mjs';
import { startWorker } from '../tests/e2e/lib/wrangler.mjs';

const [events = 1000, gapMs = 2, rounds = 3] = process.argv.slice(2).map(Number);
const KEY = 'bench-hermes-key-0123456789abcdef';
const SESSION = 'mnote_bench_x';

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), n: sorted.length };
};
const ms = (x) => `${x.toFixed(3)} ms`;

async function measure(double, url, headers, count, gap) {
  const runId = double.addBenchRun(count, gap);
  const started = performance.now();
  const result = await readEvents(url(runId), { headers, timeoutMs: 120_000 });
  const total = performance.now() - started;
  const deltas = result.events.filter((e) => e.data.event === 'message.delta');
  if (deltas.length !== count) throw new Error(`got ${deltas.length} of ${count} events from ${url(runId)}: ${result.raw.slice(0, 300)}`);
  const sent = double.sent.get(runId);
  return { latencies: deltas.map((e, i) => e.at - sent[i]), total };
}

const double = await startHermesDouble({ apiKey: KEY, keepaliveMs: 10_000 });
const worker = await startWorker({ vars: { HERMES_UPSTREAM_URL: double.url, HERMES_API_KEY: KEY } });
try {
  const direct = (runId) => `${double.url}/v1/runs/${runId}/events`;
  const proxied = (runId) => `${worker.url}/api/hermes/client/events/${runId}?sessionId=${SESSION}`;
  const directHeaders = { authorization: `Bearer ${KEY}` };

  // Warm both paths (JIT, connections, the Worker isolate).
  await measure(double, direct, directHeaders, 50, 0);
  await measure(double, proxied, worker.auth, 50, 0);

  const all = { direct: [], worker: [], added: [] };
  for (let round = 0; round < rounds; round++) {
    const d = await measure(double, direct, directHeaders, events, gapMs);
    const w = await measure(double, proxied, worker.auth, events, gapMs);
    all.direct.push(...d.latencies);
    all.worker.push(...w.latencies);
    const [sd, sw] = [stats(d.latencies), stats(w.latencies)];
    console.log(
      `round ${round + 1}: ${events} events ${gapMs} ms apart — direct median ${ms(sd.median)} p99 ${ms(sd.p99)}; ` +
        `through the Worker median ${ms(sw.median)} p99 ${ms(sw.p99)}`,
    );
  }
  const [sd, sw] = [stats(all.direct), stats(all.worker)];
  console.log('');
  console.log(`SSE relay, ${rounds} × ${events} events, ${gapMs} ms apart (latency = read − written)`);
  console.log(`  direct from the double   median ${ms(sd.median)}  p99 ${ms(sd.p99)}`);
  console.log(`  through the Worker       median ${ms(sw.median)}  p99 ${ms(sw.p99)}`);
  console.log(`  added by the Worker      median ${ms(sw.median - sd.median)}  p99 ${ms(sw.p99 - sd.p99)}`);

  const burstDirect = await measure(double, direct, directHeaders, events, 0);
  const burstWorker = await measure(double, proxied, worker.auth, events, 0);
  console.log(
    `  burst of ${events} events  direct ${ms(burstDirect.total)}  through the Worker ${ms(burstWorker.total)} ` +
      `(${Math.round((events / burstWorker.total) * 1000)} events/s)`,
  );
} finally {
  await worker.stop();
  await double.close();
}
