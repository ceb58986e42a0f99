// End-to-end: no lost update, and no needless conflict. 20 clients × 50 writes each race on one document
// through the tool route, each applying with the baseRevision it just read; the document's Durable Object
// serializes them.
//
// - Each client on its own block: a write conflicts only when a block it touches changed since its read,
//   so all 1,000 land, each on its own revision, and the audit verifies.
// - Every client on one shared block: a write whose read is older than the block's last change conflicts
//   (`mnote_revision_conflict`), as every write did before block-level preconditions; every accepted write
//   has its own revision and none is lost.
//
//   node --test --test-concurrency=1 tests/e2e/concurrency.test.mjs

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { startWorker } from './lib/wrangler.mjs';
import { TOOL_VARS, fetchJson, getPage, putPage, setProfile, toolCall, verifyAudit } from './lib/mnote.mjs';

const CLIENTS = 20;
const WRITES = 50;

let worker;

before(async () => {
  worker = await startWorker({ vars: TOOL_VARS });
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'yolo' });
});

after(async () => {
  await worker?.stop();
});

/**
 * Runs CLIENTS × WRITES updates on `doc`, client `c` writing to `blockOf(c)` with the revision it just
 * read; answers what landed, what conflicted and anything else.
 */
async function race(doc, blockOf) {
  const accepted = [];
  const refused = [];
  const unexpected = [];
  const client = async (c) => {
    for (let w = 0; w < WRITES; w++) {
      const text = `client ${c} write ${w}`;
      const page = await getPage(worker.url, doc);
      const res = await toolCall(worker.url, 'mnote.doc.apply_block_ops', {
        documentId: doc,
        baseRevision: page.revision,
        dryRun: false,
        idempotencyKey: `race_${doc}_${c}_${w}`,
        operations: [{ op: 'update', blockId: blockOf(c), text }],
      });
      if (res.status === 200) accepted.push({ c, text, revision: res.body.result.newRevision });
      else if (res.body?.code === 'mnote_revision_conflict') refused.push(text);
      else unexpected.push(`${res.status} ${res.text.slice(0, 200)}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  return { accepted, refused, unexpected, seconds: (performance.now() - t0) / 1000 };
}

/** Every accepted write got its own revision, the revision counts them, and the audit has one entry each. */
async function assertNoneLost(doc, start, accepted) {
  const final = await getPage(worker.url, doc);
  assert.equal(final.revision, start + accepted.length, 'revision == number of accepted writes');
  const revisions = accepted.map((a) => a.revision).sort((a, b) => a - b);
  assert.deepEqual(revisions, Array.from({ length: accepted.length }, (_, i) => start + 1 + i));
  const verified = (await verifyAudit(worker.url, doc)).body;
  assert.equal(verified.verified, true);
  assert.equal(verified.entries, 1 + accepted.length, 'the page put, then one audit entry per write');
  return final;
}

test(`${CLIENTS} clients × ${WRITES} writes, each on its own block: every write lands`, { timeout: 600_000 }, async (t) => {
  const doc = 'race_own';
  const blocks = Object.fromEntries(Array.from({ length: CLIENTS }, (_, c) => [`w_${c}`, `client ${c} starts`]));
  const start = (await putPage(worker.url, doc, blocks)).revision;
  const { accepted, refused, unexpected, seconds } = await race(doc, (c) => `w_${c}`);

  assert.deepEqual(unexpected, []);
  assert.deepEqual(refused, [], 'no write conflicts: no two clients touch the same block');
  assert.equal(accepted.length, CLIENTS * WRITES);
  const final = await assertNoneLost(doc, start, accepted);
  // Each client's block holds its last write; the other clients' writes went elsewhere.
  for (let c = 0; c < CLIENTS; c++) {
    assert.equal(final.blocks[c].blockId, `w_${c}`);
    assert.equal(final.blocks[c].text, `client ${c} write ${WRITES - 1}`);
  }
  t.diagnostic(
    `own blocks: ${CLIENTS}×${WRITES} attempts in ${seconds.toFixed(1)} s: ${accepted.length} accepted, ` +
      `${refused.length} revision conflicts, ${((CLIENTS * WRITES * 2) / seconds).toFixed(0)} requests/s`,
  );
});

test(`${CLIENTS} clients × ${WRITES} writes on one shared block: conflicts as before, none lost`, { timeout: 600_000 }, async (t) => {
  const doc = 'race_shared';
  const start = (await putPage(worker.url, doc, { shared: 'nobody yet', other: 'untouched' })).revision;
  const { accepted, refused, unexpected, seconds } = await race(doc, () => 'shared');

  assert.deepEqual(unexpected, [], 'only revision conflicts may refuse a write');
  assert.equal(accepted.length + refused.length, CLIENTS * WRITES);
  assert.ok(accepted.length >= WRITES, `at least one client's worth landed (${accepted.length})`);
  assert.ok(refused.length > 0, 'racing on one block conflicts');
  const final = await assertNoneLost(doc, start, accepted);
  const last = accepted.reduce((a, b) => (a.revision > b.revision ? a : b));
  assert.equal(final.blocks[0].text, last.text, 'the block holds the last accepted write');
  assert.equal(final.blocks[1].text, 'untouched');
  // Every accepted write is in the audit log, in revision order; no refused one is.
  const log = await fetchJson(`${worker.url}/api/documents/${doc}/audit?limit=5000`);
  const entries = log.body.entries.slice(1);
  assert.deepEqual(entries.map((e) => e.revision), accepted.map((a) => a.revision).sort((a, b) => a - b));
  t.diagnostic(
    `one shared block: ${CLIENTS}×${WRITES} attempts in ${seconds.toFixed(1)} s: ${accepted.length} accepted, ` +
      `${refused.length} revision conflicts`,
  );
});
