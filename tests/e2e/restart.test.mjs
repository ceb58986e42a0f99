// End-to-end: state survives a restart. Stop `wrangler dev` and start it again on the same persist folder;
// the page, the review sessions, the profile, the frozen contexts, idempotency records and the audit log
// are all still there.
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
let state;
let worker;

after(async () => {
  await worker?.stop();
  if (state) await rm(state, { recursive: true, force: true });
});

test('pages, review sessions and the audit log survive a restart', { timeout: 600_000 }, async () => {
  state = await mkdtemp(join(tmpdir(), 'mnote-restart-'));
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
  const old = (blockId, matchText) => toolCall(url, 'doc_apply_block_ops', replaceArgs(DOC, 1, { blockId, matchText, content: 'x', dryRun: true }));
  assert.equal((await old('p_1', 'first')).status, 200);
  assert.deepEqual(assertCodedError(await old('p_2', '2nd'), 409, 'mnote_revision_conflict').details.blocks.map((b) => b.blockId), ['p_2']);
  // The held session only touches p_1: its late accept applies on the page as it is now.
  const late = await review(url, pending, 'accept', { idempotencyKey: 'k_restart_late' });
  assert.equal(late.body.state, 'applied', late.text);
  assert.equal(late.body.result.warnings.find((w) => w.code === 'rebased')?.message,
    'the change was made against revision 1; the blocks it touches are unchanged, so it applied on revision 2');
});
