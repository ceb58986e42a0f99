// The page-open bench (benches/page_open.mjs) as interleaved pairs: the same 10,000-block page with 100
// pending suggestions opened in turn from two Workers under `wrangler dev` on the same machine, one
// serving the demo of another checkout (BENCH_BASE_CONFIG: a wrangler config whose [assets] directory is
// that checkout's web-demo/, built; the Worker's own build is this one's), the other this checkout's. A
// before/after figure on a machine whose speed moves with its load.
//
//   BENCH_BASE_CONFIG=worker/wrangler.before.toml BENCH_OPENS=9 node benches/page_open_ab.mjs
import { resolve } from 'node:path';

import { DESKTOP, launchBrowser, newTab } from '../tests/e2e/lib/browser.mjs';
import { startWorker } from '../tests/e2e/lib/wrangler.mjs';
import { makePage } from './lib/long_page.mjs';

const OPENS = Number(process.env.BENCH_OPENS ?? 7);
const BLOCKS = 10_000;
const SUGGESTIONS = 100;
const BASE = process.env.BENCH_BASE_CONFIG && resolve(process.env.BENCH_BASE_CONFIG);
if (!BASE) throw new Error('BENCH_BASE_CONFIG names the wrangler config of the demo to compare with');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The bench's two moments (benches/page_open.mjs): drawn (top and a suggestion marked) and ready. */
function watchOpen() {
  const at = { drawn: 0, ready: 0 };
  window.__opened = new Promise((resolve) => {
    const frame = () => {
      const now = performance.now();
      const top = document.querySelector('#page-blocks [data-block-id]') !== null;
      const marked = document.querySelector('[data-suggestion-id]') !== null;
      if (!at.drawn && top && marked) at.drawn = now;
      if (!at.ready && top && marked && document.body?.dataset.state === 'ready') at.ready = now;
      if (at.drawn && at.ready) resolve(at);
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
}

async function openOnce(browser, worker) {
  const tab = await newTab(browser, { viewport: DESKTOP });
  try {
    await tab.context.addInitScript(watchOpen);
    await tab.page.goto(`${worker.url}/?doc=ab_open`, { waitUntil: 'commit' });
    const at = await tab.page.evaluate(() => window.__opened);
    if (tab.problems.length) throw new Error(tab.problems.join('; '));
    return at;
  } finally {
    await tab.context.close();
  }
}

const vars = { MNOTE_DEV_AUTO_LOGIN: 'true' };
const before = await startWorker({ vars, config: BASE });
const after = await startWorker({ vars });
let browser;
try {
  browser = await launchBrowser();
  for (const worker of [before, after]) {
    await makePage(worker, 'ab_open', { blocks: BLOCKS, suggestions: SUGGESTIONS });
    await openOnce(browser, worker);
  }
  const runs = { before: [], after: [] };
  for (let i = 0; i < OPENS; i++) {
    // Each round in the other order, so neither side always opens first.
    const order = i % 2 ? [['after', after], ['before', before]] : [['before', before], ['after', after]];
    for (const [name, worker] of order) runs[name].push(await openOnce(browser, worker));
  }
  const row = (name) => ({
    demo: name,
    'drawn (median)': `${median(runs[name].map((r) => r.drawn)).toFixed(0)} ms`,
    'ready (median)': `${median(runs[name].map((r) => r.ready)).toFixed(0)} ms`,
    opens: runs[name].map((r) => `${r.drawn.toFixed(0)}/${r.ready.toFixed(0)}`).join(' '),
  });
  console.log(`\n${BLOCKS.toLocaleString('en-US')} blocks, ${SUGGESTIONS} suggestions, ${OPENS} interleaved pairs (drawn/ready per open):`);
  console.table([row('before'), row('after')]);
} finally {
  await browser?.close();
  await before.stop();
  await after.stop();
}
