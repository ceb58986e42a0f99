// End-to-end: a review session's scope under a whole-page context is stored by reference to that context
// (issue 29: a write under a 10,000-block context no longer writes its 10,000 ids a second time), and
// nothing a person or a client sees changes: the session answers the context's list, in page order, after
// the context expired and its expired peers were purged, and after a restart (when the object's memory no
// longer holds the context); a retry still refuses a block outside that list, and an accept still lands.
//
//   node --test --test-concurrency=1 tests/e2e/review_scope.test.mjs

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { startWorker } from './lib/wrangler.mjs';
import { TOOL_VARS, fresh, getPage, putPage, review, session, setProfile, toolCall } from './lib/mnote.mjs';

const DOC = 'scope_doc';
// A context lasts a second here, so the test can outlive one.
const TTL_SECONDS = 1;
const VARS = { ...TOOL_VARS, MNOTE_CONTEXT_TTL_SECONDS: String(TTL_SECONDS) };
let worker;
let state;

after(async () => {
  await worker?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

/**
 * Waits for the context made before `madeBy` (the moment its fetch answered) to pass its TTL, plus a second
 * of rounding (the clock passing its expiry is the event awaited), then checks that a dry-run bound to it
 * answers that it is gone.
 */
async function untilExpired(url, contextId, revision, madeBy) {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, madeBy + (TTL_SECONDS + 1) * 1000 - Date.now())));
  const args = {
    documentId: DOC,
    contextId,
    baseRevision: revision,
    dryRun: true,
    idempotencyKey: fresh('k_probe'),
    operations: [{ op: 'update', blockId: 'p_9', text: 'probe' }],
  };
  const res = await toolCall(url, 'mnote.doc.apply_block_ops', args);
  assert.equal(res.status === 200 ? null : res.body.code, 'mnote_context_not_found', res.text);
}

test('a session keeps its whole-page scope past its context and a restart, and it still binds', { timeout: 300_000 }, async () => {
  state = await mkdtemp(join(tmpdir(), 'mnote-scope-'));
  worker = await startWorker({ persistTo: state, vars: VARS });
  let url = worker.url;
  await setProfile(url, { reviewMode: 'review' });
  // Page order is not sorted order: the session keeps the context's order.
  await putPage(url, DOC, { p_9: 'nine', p_10: 'ten', h_x: 'ex' });
  const context = (await toolCall(url, 'mnote.doc.fetch', { documentId: DOC, scope: { type: 'full' } })).body.result;
  const madeBy = Date.now();
  assert.deepEqual(context.allowedTargetBlockIds, ['p_9', 'p_10', 'h_x']);
  const held = await toolCall(url, 'mnote.doc.apply_block_ops', {
    documentId: DOC,
    contextId: context.contextId,
    baseRevision: context.revision,
    dryRun: false,
    idempotencyKey: fresh('k_held'),
    operations: [{ op: 'update', blockId: 'p_10', text: 'TEN' }],
  });
  assert.equal(held.status, 200, held.text);
  const id = held.body.reviewSession.sessionId;
  const first = (await session(url, id)).body;
  assert.equal(first.state, 'awaiting_user');
  assert.deepEqual(first.base.allowedTargetBlockIds, context.allowedTargetBlockIds, 'the context list, as it is');

  // A person adds a block the context never showed; the context expires, and a new fetch purges the
  // expired contexts that no session names.
  await putPage(url, DOC, { p_9: 'nine', p_10: 'ten', h_x: 'ex', p_new: 'new' });
  await untilExpired(url, context.contextId, 2, madeBy);
  await toolCall(url, 'mnote.doc.fetch', { documentId: DOC, scope: { type: 'block', blockId: 'p_9' } });
  assert.deepEqual((await session(url, id)).body, first, 'the same session, whole');

  // After a restart the object's memory holds no context: the list comes from the context's row.
  await worker.stop();
  worker = await startWorker({ persistTo: state, vars: VARS });
  url = worker.url;
  assert.deepEqual((await session(url, id)).body, first, 'the same session after a restart');

  // The scope still binds exactly: the new block is outside it, the old ones inside.
  const outside = await review(url, id, 'retry', { toolCallId: fresh('call_out'), operations: [{ op: 'update', blockId: 'p_new', text: 'NEW' }] });
  assert.equal(outside.body.state, 'failed', outside.text);
  assert.equal(outside.body.error.code, 'mnote_block_target_out_of_scope', outside.text);
  assert.deepEqual(outside.body.base.allowedTargetBlockIds, context.allowedTargetBlockIds);
  const inside = await review(url, id, 'retry', { toolCallId: fresh('call_in'), operations: [{ op: 'update', blockId: 'p_10', text: 'TEN' }] });
  assert.equal(inside.body.state, 'awaiting_user', inside.text);
  const accepted = await review(url, id, 'accept', { idempotencyKey: fresh('k_accept') });
  assert.equal(accepted.body.state, 'applied', accepted.text);
  const page = await getPage(url, DOC);
  assert.deepEqual(page.blocks.map((b) => [b.blockId, b.text]), [['p_9', 'nine'], ['p_10', 'TEN'], ['h_x', 'ex'], ['p_new', 'new']]);
  assert.deepEqual((await session(url, id)).body.base.allowedTargetBlockIds, context.allowedTargetBlockIds, 'kept once applied');
});
