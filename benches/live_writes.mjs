// Benchmark: AI writes while a person edits, under `wrangler dev` (workerd, local SQLite Durable Objects).
//
// A person saves an edit of their block every 200 ms (`PATCH /api/documents/{id}/blocks`, each save based
// on the revision their last save answered). Meanwhile an AI writer, one write after another, reads the
// page (`mnote.doc.fetch`), thinks for 450 ms (so at least two of the person's saves land in between), and
// applies an update of one of its own blocks based on what it read (`mnote.doc.apply_block_ops`, yolo
// profile). The figure is the share of AI writes that land:
//
// - with block-level preconditions (a write conflicts only when a block it touches changed since the
//   read): the goal is 100%;
// - with `requireExactRevision: true`, the page-level check every write had before issue 13: about 0%.
//
// The person's saves never conflict either way (they touch only their own block).
//
//   node benches/live_writes.mjs            # or: make bench
//   BENCH_WRITES=50 node benches/live_writes.mjs
//
// Results also go to tests/artifacts/bench-live-writes.json.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ROOT, startWorker } from '../tests/e2e/lib/wrangler.mjs';
import { TOOL_VARS, editBlocks, getPage, putPage, setProfile, toolCall } from '../tests/e2e/lib/mnote.mjs';

const WRITES = Number(process.env.BENCH_WRITES ?? 30);
const SAVE_EVERY_MS = 200;
const THINK_MS = 450;
const AI_BLOCKS = 5;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The person: a save every 200 ms until stopped; answers how many landed and how many did not. */
function person(url, doc, revision) {
  const tally = { saved: 0, refused: 0, stop: false };
  const done = (async () => {
    for (let n = 0; !tally.stop; n++) {
      const res = await editBlocks(url, doc, {
        baseRevision: revision,
        operations: [{ op: 'update', blockId: 'p_person', text: `the person's edit ${n}` }],
        idempotencyKey: `person_${doc}_${n}`,
      });
      if (res.status === 200) {
        tally.saved += 1;
        revision = res.body.newRevision;
      } else {
        tally.refused += 1;
      }
      await sleep(SAVE_EVERY_MS);
    }
  })();
  return { tally, stop: async () => ((tally.stop = true), await done) };
}

/** The AI writer: WRITES read–think–write rounds; answers the outcomes by error code (`landed` for 200). */
async function aiWriter(url, doc, exact) {
  const outcomes = {};
  for (let i = 0; i < WRITES; i++) {
    const read = (await toolCall(url, 'mnote.doc.fetch', { documentId: doc, scope: { type: 'full' }, formats: ['text'] })).body.result;
    await sleep(THINK_MS);
    const args = {
      documentId: doc,
      contextId: read.contextId,
      baseRevision: read.revision,
      dryRun: false,
      idempotencyKey: `ai_${doc}_${i}`,
      operations: [{ op: 'update', blockId: `ai_${i % AI_BLOCKS}`, text: `the AI's write ${i}` }],
    };
    if (exact) args.requireExactRevision = true;
    const res = await toolCall(url, 'mnote.doc.apply_block_ops', args);
    const outcome = res.status === 200 ? 'landed' : (res.body?.code ?? `http_${res.status}`);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return outcomes;
}

async function round(url, exact) {
  const doc = exact ? 'bench_live_exact' : 'bench_live_blocks';
  const paragraphs = { p_person: "The person's paragraph." };
  for (let b = 0; b < AI_BLOCKS; b++) paragraphs[`ai_${b}`] = `The AI's paragraph ${b}.`;
  const page = await putPage(url, doc, paragraphs);
  const editor = person(url, doc, page.revision);
  const t0 = performance.now();
  const outcomes = await aiWriter(url, doc, exact);
  const seconds = (performance.now() - t0) / 1000;
  await editor.stop();
  const final = await getPage(url, doc);
  return {
    check: exact ? 'page-level (requireExactRevision, as before)' : 'block-level preconditions',
    aiWrites: WRITES,
    aiLanded: outcomes.landed ?? 0,
    aiLandedShare: `${(((outcomes.landed ?? 0) / WRITES) * 100).toFixed(0)}%`,
    aiRefused: Object.entries(outcomes).filter(([k]) => k !== 'landed').map(([k, v]) => `${k}: ${v}`).join(', ') || '-',
    personSaves: editor.tally.saved,
    personRefused: editor.tally.refused,
    revisions: final.revision - page.revision,
    seconds: Number(seconds.toFixed(1)),
  };
}

const worker = await startWorker({ vars: TOOL_VARS });
try {
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  const results = [await round(worker.url, false), await round(worker.url, true)];
  console.table(results);
  const out = join(ROOT, 'tests/artifacts');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'bench-live-writes.json'), `${JSON.stringify({ writes: WRITES, at: new Date().toISOString(), results }, null, 2)}\n`);
} finally {
  await worker.stop();
}
