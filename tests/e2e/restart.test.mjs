// End-to-end: state survives a restart. Stop `wrangler dev` and start it again on the same persist folder;
// the page, the review sessions, the profile, the frozen contexts, idempotency records and the audit log
// are all still there (a frozen context, too, once the object's memory let it go). And a crash loses nothing either: wrangler and workerd killed (SIGKILL) in the
// middle of a burst of writes, every write that was answered is there after the restart, and no write is
// there by half.
//
//   node --test --test-concurrency=1 tests/e2e/restart.test.mjs

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { assertCodedError, startWorker } from './lib/wrangler.mjs';
import { TOOL_VARS, audit, getPage, putPage, replaceArgs, review, session, setProfile, toolCall, verifyAudit } from './lib/mnote.mjs';

const DOC = 'restart_doc';
const states = [];
let worker;

after(async () => {
  await worker?.stop();
  for (const state of states) await rm(state, { recursive: true, force: true });
});

async function freshState() {
  const state = await mkdtemp(join(tmpdir(), 'mnote-restart-'));
  states.push(state);
  return state;
}

/** Kills wrangler and its workerd (their process group, which the harness started them in) at once. */
async function crash(running) {
  process.kill(-running.pid, 'SIGKILL');
  for (;;) {
    try {
      process.kill(-running.pid, 0);
    } catch {
      return; // The group is gone.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('pages, review sessions and the audit log survive a restart', { timeout: 600_000 }, async () => {
  const state = await freshState();
  worker = await startWorker({ persistTo: state, vars: TOOL_VARS });
  let url = worker.url;
  await setProfile(url, { tools: { disabled: ['doc_search'] }, reviewMode: 'review' });
  await putPage(url, DOC, { p_1: 'first version', p_2: 'second block' });
  const context = (await toolCall(url, 'doc_fetch', { documentId: DOC, scope: { type: 'full' } })).body.result;
  const applyKey = 'k_restart_apply';
  const held = await toolCall(url, 'doc_apply_block_ops', replaceArgs(DOC, 1, { blockId: 'p_1', matchText: 'first', content: 'final', contextId: context.contextId }));
  const pending = held.body.reviewSession.sessionId;
  const accepted = await toolCall(url, 'doc_apply_block_ops', replaceArgs(DOC, 1, { blockId: 'p_2', matchText: 'second', content: '2nd', key: applyKey }));
  const acceptedId = accepted.body.reviewSession.sessionId;
  const acceptAnswer = await review(url, acceptedId, 'accept', { idempotencyKey: 'k_restart_accept' });
  assert.equal(acceptAnswer.body.state, 'applied', acceptAnswer.text);
  const pageBefore = await getPage(url, DOC);
  const auditBefore = (await audit(url, DOC)).body;
  assert.equal(pageBefore.revision, 2);
  assert.equal(auditBefore.entries.length, 4);

  await worker.stop();
  worker = await startWorker({ persistTo: state, vars: TOOL_VARS });
  url = worker.url;

  assert.deepEqual(await getPage(url, DOC), pageBefore, 'the page');
  assert.equal((await session(url, pending)).body.state, 'awaiting_user', 'the held session');
  assert.equal((await session(url, acceptedId)).body.state, 'applied', 'the applied session');
  assert.deepEqual((await audit(url, DOC)).body, auditBefore, 'the audit log');
  assert.equal((await verifyAudit(url, DOC)).body.verified, true);
  assert.deepEqual((await (await fetch(`${url}/api/profile`, { headers: worker.auth })).json()).profile.tools.disabled, ['mnote.doc.search']);
  // The accept's answer replays byte for byte, and the frozen context still binds writes.
  assert.equal((await review(url, acceptedId, 'accept', { idempotencyKey: 'k_restart_accept' })).text, acceptAnswer.text);
  const bound = await toolCall(url, 'doc_apply_block_ops', replaceArgs(DOC, 2, { blockId: 'p_1', matchText: 'first', content: 'x', contextId: context.contextId, dryRun: true }));
  assert.equal(bound.status, 200, bound.text);
  // The page's block history survived too: a write read at revision 1 lands on p_1 (unchanged since) and
  // conflicts on p_2 (changed at revision 2).
  // (Both name the context read at revision 1, as the model that read it would.)
  const old = (blockId, matchText) =>
    toolCall(url, 'doc_apply_block_ops', replaceArgs(DOC, 1, { blockId, matchText, content: 'x', dryRun: true, contextId: context.contextId }));
  assert.equal((await old('p_1', 'first')).status, 200);
  assert.deepEqual(assertCodedError(await old('p_2', '2nd'), 409, 'mnote_revision_conflict').details.blocks.map((b) => b.blockId), ['p_2']);
  // The held session only touches p_1: its late accept applies on the page as it is now.
  const late = await review(url, pending, 'accept', { idempotencyKey: 'k_restart_late' });
  assert.equal(late.body.state, 'applied', late.text);
  assert.equal(late.body.result.warnings.find((w) => w.code === 'rebased')?.message,
    'the change was made against revision 1; the blocks it touches are unchanged, so it applied on revision 2');
  await worker.stop();
});

test('a frozen context kept in memory still binds writes after a restart, read back from storage', { timeout: 600_000 }, async () => {
  const state = await freshState();
  const doc = 'restart_context_doc';
  worker = await startWorker({ persistTo: state, vars: TOOL_VARS });
  let url = worker.url;
  await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  await putPage(url, doc, { p_1: 'first block', p_2: 'second block' });
  const fetchArgs = { documentId: doc, scope: { type: 'block', blockId: 'p_1' } };
  const { contextId } = (await toolCall(url, 'doc_fetch', fetchArgs)).body.result;
  const write = (blockId, matchText, { dryRun = false } = {}) =>
    toolCall(url, 'doc_apply_block_ops', replaceArgs(doc, 1, { blockId, matchText, content: 'edited', contextId, dryRun }));
  // Before the restart the object answers from the context it keeps in memory: in scope passes, out is
  // refused.
  const preview = await write('p_1', 'first', { dryRun: true });
  assert.equal(preview.status, 200, preview.text);
  assertCodedError(await write('p_2', 'second'), 400, 'mnote_block_target_out_of_scope');

  await worker.stop();
  worker = await startWorker({ persistTo: state, vars: TOOL_VARS });
  url = worker.url;

  // A new object has nothing in memory: the stored context decides, the same way (twice: read back, then
  // kept again).
  for (let i = 0; i < 2; i++) {
    const refused = assertCodedError(await write('p_2', 'second'), 400, 'mnote_block_target_out_of_scope');
    assert.deepEqual(refused.details.allowedTargetBlockIds, ['p_1']);
  }
  const landed = await write('p_1', 'first');
  assert.equal(landed.status, 200, landed.text);
  assert.equal((await getPage(url, doc)).revision, 2);
  await worker.stop();
});

test('a frozen context evicted from memory still binds writes, read back from storage', { timeout: 600_000 }, async () => {
  worker = await startWorker({ persistTo: await freshState(), vars: TOOL_VARS });
  const { url } = worker;
  const doc = 'evicted_context_doc';
  await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  await putPage(url, doc, { p_1: 'first block', p_2: 'second block' });
  const read = (blockId) => toolCall(url, 'doc_fetch', { documentId: doc, scope: { type: 'block', blockId } });
  const { contextId } = (await read('p_1')).body.result;
  // The object keeps at most 32 contexts (worker/src/services/tables/context_cache.rs), least recently used
  // out first: 32 newer ones push the first out of its memory.
  for (let i = 0; i < 32; i++) assert.equal((await read('p_2')).status, 200);
  const write = (blockId, matchText) =>
    toolCall(url, 'doc_apply_block_ops', replaceArgs(doc, 1, { blockId, matchText, content: 'edited', contextId }));
  const refused = assertCodedError(await write('p_2', 'second'), 400, 'mnote_block_target_out_of_scope');
  assert.deepEqual(refused.details.allowedTargetBlockIds, ['p_1']);
  const landed = await write('p_1', 'first');
  assert.equal(landed.status, 200, landed.text);
  assert.equal((await getPage(url, doc)).revision, 2);
  await worker.stop();
});

test('killed mid-burst, every answered write is there after the restart', { timeout: 600_000 }, async (t) => {
  const state = await freshState();
  const doc = 'crash_doc';
  worker = await startWorker({ persistTo: state, vars: TOOL_VARS });
  let url = worker.url;
  await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  const start = (await putPage(url, doc, { anchor: 'Writes land after this block.' })).revision;

  const CLIENTS = 6;
  const ACKED_BEFORE_CRASH = 40;
  const acked = [];
  let crashed = false;
  let reachedTarget;
  const target = new Promise((r) => {
    reachedTarget = r;
  });
  const client = async (c) => {
    for (let w = 0; !crashed; w++) {
      const text = `client ${c} write ${w}`;
      try {
        const page = await getPage(url, doc);
        const res = await toolCall(url, 'mnote.doc.apply_block_ops', {
          documentId: doc,
          baseRevision: page.revision,
          dryRun: false,
          idempotencyKey: `crash_${c}_${w}`,
          operations: [{ op: 'insert_after', afterBlockId: 'anchor', block: { type: 'paragraph', text } }],
        });
        if (res.status === 200) acked.push({ text, revision: res.body.result.newRevision });
        if (acked.length >= ACKED_BEFORE_CRASH) reachedTarget();
      } catch {
        return; // The server went away mid-request: this write was never answered.
      }
    }
  };
  const burst = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
  await target;
  await crash(worker);
  crashed = true;
  await burst;

  worker = await startWorker({ persistTo: state, vars: TOOL_VARS });
  url = worker.url;
  const page = await getPage(url, doc);
  const texts = new Set(page.blocks.map((b) => b.text));
  for (const { text } of acked) assert.ok(texts.has(text), `an answered write is missing: ${text}`);
  // Each write that landed is whole: one block, one revision, one audit entry; none is there by half.
  const landed = page.revision - start;
  assert.ok(landed >= acked.length, `${landed} writes landed, ${acked.length} were answered`);
  assert.equal(page.blocks.length, 1 + landed, 'one block per landed write');
  const verified = await verifyAudit(url, doc);
  assert.equal(verified.body.verified, true, verified.text);
  assert.equal(verified.body.entries, 1 + landed, 'one audit entry per landed write');
  // And the object writes on from where the crash left it.
  const next = await toolCall(url, 'mnote.doc.apply_block_ops', {
    documentId: doc,
    baseRevision: page.revision,
    dryRun: false,
    idempotencyKey: 'after_the_crash',
    operations: [{ op: 'update', blockId: 'anchor', text: 'written after the restart' }],
  });
  assert.equal(next.status, 200, next.text);
  t.diagnostic(`crash: ${acked.length} writes answered before the kill, ${landed} landed`);
});
