// End-to-end: no lost update. 20 clients × 50 writes each race on one document through the tool route,
// each applying with the baseRevision it just read. The document's Durable Object serializes them: every
// accepted write is in the final page, the revision counts exactly the accepted writes, and every refused
// write was refused with `mnote_revision_conflict`.
//
//   node --test --test-concurrency=1 tests/e2e/concurrency.test.mjs

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startWorker } from './lib/wrangler.mjs';
import { TOOL_VARS, getPage, putPage, setProfile, toolCall, verifyAudit } from './lib/mnote.mjs';

const CLIENTS = 20;
const WRITES = 50;
const DOC = 'race_doc';

let worker;

before(async () => {
  worker = await startWorker({ vars: TOOL_VARS });
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  await putPage(worker.url, DOC, { anchor: 'Writes land after this block.' });
});

after(async () => {
  await worker?.stop();
});

test(`${CLIENTS} clients × ${WRITES} writes: every write lands or is a revision conflict`, { timeout: 600_000 }, async (t) => {
  const start = (await getPage(worker.url, DOC)).revision;
  const accepted = [];
  const refused = [];
  const unexpected = [];

  const client = async (c) => {
    for (let w = 0; w < WRITES; w++) {
      const text = `client ${c} write ${w}`;
      const page = await getPage(worker.url, DOC);
      const res = await toolCall(worker.url, 'mnote.doc.apply_block_ops', {
        documentId: DOC,
        baseRevision: page.revision,
        dryRun: false,
        idempotencyKey: `race_${c}_${w}`,
        operations: [{ op: 'insert_after', afterBlockId: 'anchor', block: { type: 'paragraph', text } }],
      });
      if (res.status === 200) accepted.push({ text, revision: res.body.result.newRevision });
      else if (res.body?.code === 'mnote_revision_conflict') refused.push(text);
      else unexpected.push(`${res.status} ${res.text.slice(0, 200)}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  const seconds = (performance.now() - t0) / 1000;

  assert.deepEqual(unexpected, [], 'only revision conflicts may refuse a write');
  assert.equal(accepted.length + refused.length, CLIENTS * WRITES);
  assert.ok(accepted.length >= WRITES, `at least one client's worth landed (${accepted.length})`);

  const final = await getPage(worker.url, DOC);
  assert.equal(final.revision, start + accepted.length, 'revision == number of accepted writes');
  const texts = new Set(final.blocks.map((b) => b.text));
  for (const { text } of accepted) assert.ok(texts.has(text), `accepted write missing: ${text}`);
  for (const text of refused) assert.ok(!texts.has(text), `refused write present: ${text}`);
  assert.equal(final.blocks.length, 1 + accepted.length);
  // Each accepted write got its own revision.
  const revisions = accepted.map((a) => a.revision).sort((a, b) => a - b);
  assert.deepEqual(revisions, Array.from({ length: accepted.length }, (_, i) => start + 1 + i));
  assert.equal((await verifyAudit(worker.url, DOC)).body.entries, 1 + accepted.length, 'one audit entry per write');

  t.diagnostic(
    `concurrency: ${CLIENTS}×${WRITES} attempts in ${seconds.toFixed(1)} s: ${accepted.length} accepted, ` +
      `${refused.length} revision conflicts, ${((CLIENTS * WRITES * 2) / seconds).toFixed(0)} requests/s`,
  );
});
