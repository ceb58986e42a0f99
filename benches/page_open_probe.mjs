// Where a page's open spends its time: opens the bench's 10,000-block page with 100 suggestions a few times
// under `wrangler dev` and prints, for the median open, each request's start and end, the long tasks of the
// page's main thread and the demo's own `performance.mark`s, all from navigation start.
//
//   PROBE_OPENS=5 node benches/page_open_probe.mjs
import { DESKTOP, launchBrowser, newTab } from '../tests/e2e/lib/browser.mjs';
import { startWorker } from '../tests/e2e/lib/wrangler.mjs';
import { makePage } from './lib/long_page.mjs';

const OPENS = Number(process.env.PROBE_OPENS ?? 5);
const BLOCKS = 10_000;
const SUGGESTIONS = Number(process.env.PROBE_SUGGESTIONS ?? 100);


function watch([last]) {
  const at = { drawn: 0, ready: 0, longTasks: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) at.longTasks.push([Math.round(e.startTime), Math.round(e.duration)]);
  }).observe({ type: 'longtask', buffered: true });
  window.__opened = new Promise((resolve) => {
    const frame = () => {
      const now = performance.now();
      const top = document.querySelector('#page-blocks [data-block-id]') !== null;
      const marked = document.querySelector('[data-suggestion-id]') !== null;
      if (!at.drawn && top && marked) at.drawn = now;
      if (!at.ready && top && marked && document.body?.dataset.state === 'ready') at.ready = now;
      if (at.drawn && at.ready) {
        at.resources = performance.getEntriesByType('resource').map((e) => ({
          name: e.name.replace(location.origin, ''),
          start: Math.round(e.startTime),
          reqStart: Math.round(e.requestStart),
          resStart: Math.round(e.responseStart),
          end: Math.round(e.responseEnd),
          kb: Math.round(e.encodedBodySize / 1024),
        }));
        at.marks = performance.getEntriesByType('mark').map((e) => [e.name, Math.round(e.startTime)]);
        const nav = performance.getEntriesByType('navigation')[0];
        at.nav = { resStart: Math.round(nav.responseStart), domInteractive: Math.round(nav.domInteractive), dcl: Math.round(nav.domContentLoadedEventEnd) };
        resolve(at);
      } else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
}

async function openOnce(browser, worker, doc) {
  const tab = await newTab(browser, { viewport: DESKTOP });
  try {
    await tab.context.addInitScript(watch, [`p_${BLOCKS - 1}`]);
    await tab.page.goto(`${worker.url}/?doc=${doc}`, { waitUntil: 'commit' });
    const at = await tab.page.evaluate(() => window.__opened);
    // The same page's GET again, once the tab is idle: the server's time without the open around it.
    at.again = await tab.page.evaluate(async (doc) => {
      await new Promise((r) => setTimeout(r, 300));
      const t = performance.now();
      const r = await fetch(`/api/documents/${doc}`);
      const first = performance.now() - t;
      await r.arrayBuffer();
      return [Math.round(first), Math.round(performance.now() - t)];
    }, doc);
    return at;
  } finally {
    await tab.context.close();
  }
}

const worker = await startWorker({ vars: { MNOTE_DEV_AUTO_LOGIN: 'true' } });
let browser;
try {
  browser = await launchBrowser();
  await makePage(worker, 'probe_open', { blocks: BLOCKS, suggestions: SUGGESTIONS });
  await openOnce(browser, worker, 'probe_open');
  const runs = [];
  for (let i = 0; i < OPENS; i++) runs.push(await openOnce(browser, worker, 'probe_open'));
  console.log('opens (drawn, ready):', runs.map((r) => `${Math.round(r.drawn)}/${Math.round(r.ready)}`).join('  '));
  console.log('page GET in an idle tab (headers, body) ms:', runs.map((r) => r.again.join('/')).join('  '));
  const med = [...runs].sort((a, b) => a.ready - b.ready)[Math.floor(runs.length / 2)];
  console.log(`median open: drawn ${Math.round(med.drawn)} ms, ready ${Math.round(med.ready)} ms; navigation`, med.nav);
  console.table(med.resources);
  console.log('marks', med.marks);
  console.log('long tasks [start, ms]', JSON.stringify(med.longTasks));
} finally {
  await browser?.close();
  await worker.stop();
}
