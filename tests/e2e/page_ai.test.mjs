// End-to-end: seed 7-12 Phase F acceptance through the page-AI routes under wrangler dev: the command
// route (shortcut, review, Hermes hand-off), review sessions (accept, partial, stale, reject, abort, retry,
// revert), the profile, and the audit chain.
//
//   node --test --test-concurrency=1 tests/e2e/page_ai.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { assertCodedError, startWorker } from './lib/wrangler.mjs';
import {
  editBlocks,
  fetchJson,
  sendJson,
  TOOL_VARS,
  audit,
  command,
  events,
  fresh,
  getPage,
  mcp,
  putPage,
  replaceArgs,
  review,
  session,
  setProfile,
  toolCall,
  verifyAudit,
} from './lib/mnote.mjs';

let worker;
let url;

const PARAGRAPHS = {
  p_1: '我们用 Rust 写内核。',
  p_2: 'The second paragraph talks about the plan.',
  p_3: 'The third paragraph lists the risks.',
  p_4: 'Closing words.',
};

before(async () => {
  worker = await startWorker({ vars: TOOL_VARS });
  url = worker.url;
});

after(async () => {
  await worker?.stop();
});

/** A fresh document with the sample paragraphs; answers its id. */
async function freshDoc(prefix = 'pa') {
  const id = fresh(prefix).replaceAll('.', '_');
  await putPage(url, id, PARAGRAPHS);
  return id;
}

describe('the profile', () => {
  test('GET answers the default profile and its manifest; PUT stores it for every reader', async () => {
    const got = await fetchJson(`${url}/api/profile`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body.profile, { tools: { disabled: [] }, reviewMode: 'review' });
    assert.equal(got.body.manifest.schema, 'mnote.ai_tool_manifest.v1');

    const stored = await sendJson(`${url}/api/profile`, 'PUT', { tools: { disabled: ['doc_search', 'mnote.page.save'] }, reviewMode: 'yolo' });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(stored.body.profile.tools.disabled, ['mnote.doc.search', 'mnote.page.save']);
    const search = stored.body.manifest.tools.find((t) => t.name === 'mnote.doc.search');
    assert.deepEqual(search.availability, { enabled: false, unsupportedReason: 'disabled in the profile' });
    const listed = (await mcp(url, 'tools/list')).body.result.tools.map((t) => t.name);
    assert.ok(!listed.includes('doc_search') && !listed.includes('page_save') && listed.includes('doc_fetch'));
    assert.deepEqual((await fetchJson(`${url}/api/profile`)).body.profile, stored.body.profile);
  });

  test('a bad profile is refused by JSON pointer and changes nothing', async () => {
    const before = (await fetchJson(`${url}/api/profile`)).body.profile;
    const unknown = await sendJson(`${url}/api/profile`, 'PUT', { tools: { disabled: ['doc_nuke'] }, reviewMode: 'yolo' });
    assert.equal(assertCodedError(unknown, 400, 'mnote_invalid_arguments').details.pointer, '/tools/disabled/0');
    const mode = await sendJson(`${url}/api/profile`, 'PUT', { tools: { disabled: [] }, reviewMode: 'sometimes' });
    assert.equal(assertCodedError(mode, 400, 'mnote_invalid_arguments').details.pointer, '/reviewMode');
    const foreign = await sendJson(`${url}/api/profile`, 'PUT', { reviewMode: 'yolo' }, { origin: 'https://evil.example' });
    assertCodedError(foreign, 403, 'mnote_forbidden_origin');
    assert.deepEqual((await fetchJson(`${url}/api/profile`)).body.profile, before);
  });
});

describe('Phase F acceptance', () => {
  test('a low-ambiguity replace is applied directly, read back, and audited', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
    const doc = await freshDoc();
    const res = await command(url, { documentId: doc, prompt: '把「Rust」替换为「Go」', scope: { type: 'full' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.outcome, 'applied');
    assert.equal(res.body.route.intent, 'direct_replace');
    assert.equal(res.body.route.risk, 'low');
    assert.equal(res.body.result.newRevision, 2);
    assert.equal(res.body.page.blocks[0].text, '我们用 Go 写内核。');
    assert.equal(res.body.reviewSession.state, 'applied');
    assert.deepEqual(await getPage(url, doc), res.body.page, 'the readback is the stored page');

    const entries = (await audit(url, doc)).body.entries;
    assert.deepEqual(entries.map((e) => e.action), ['document.put', 'tool.applied']);
    assert.equal(entries[1].actor, 'shortcut');
    assert.equal(entries[1].revision, 2);
    assert.equal((await verifyAudit(url, doc)).body.verified, true);
    // The shortcut's events have the shapes of a Hermes call's.
    const shortcut = (await events(url, doc, res.body.runId)).body.events.map((e) => e.event);
    assert.deepEqual(shortcut.map((e) => e.event), ['tool.started', 'review.updated', 'tool.completed']);
    assert.ok(shortcut.every((e) => e.schema === 'mnote.tool_event.v1' && e.toolName === 'mnote.doc.apply_block_ops'));
  });

  test('a write outside the selection is blocked', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
    const doc = await freshDoc();
    const scope = { type: 'selection', blockIds: ['p_1', 'p_2'] };
    const res = await command(url, { documentId: doc, prompt: 'replace "risks" with "dangers"', scope });
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.outcome, 'applied', 'no direct write outside the selection');
    assert.equal(res.body.route.recommendedToolCall, null);

    // A model bound to that context cannot widen it, even by naming the block or listing its own targets.
    const page = await getPage(url, doc);
    const args = replaceArgs(doc, page.revision, { blockId: 'p_3', matchText: 'risks', content: 'dangers', contextId: res.body.contextId });
    args.allowedTargetBlockIds = ['p_3'];
    const blocked = await toolCall(url, 'doc_apply_block_ops', args);
    const body = assertCodedError(blocked, 400, 'mnote_block_target_out_of_scope');
    assert.equal(body.details.blockId, 'p_3');
    assert.equal((await getPage(url, doc)).revision, page.revision);
  });

  test('a disabled tool is neither recommended nor executed', async () => {
    await setProfile(url, { tools: { disabled: ['mnote.doc.apply_block_ops'] }, reviewMode: 'yolo' });
    try {
      const doc = await freshDoc();
      const res = await command(url, { documentId: doc, prompt: '把「Rust」替换为「Go」', scope: { type: 'full' } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.outcome, 'hermes');
      assert.equal(res.body.route.recommendedToolCall, null);
      assert.equal(res.body.route.reasonCode, 'tool_disabled');
      assert.ok(!JSON.stringify(res.body.route.toolHint ?? {}).includes('apply_block_ops'), 'not hinted either');

      const page = await getPage(url, doc);
      const direct = await toolCall(url, 'doc_apply_block_ops', replaceArgs(doc, page.revision, { matchText: 'Rust', content: 'Go' }));
      assertCodedError(direct, 403, 'mnote_tool_disabled');
      const viaMcp = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: replaceArgs(doc, page.revision, { matchText: 'Rust', content: 'Go' }) });
      assert.equal(JSON.parse(viaMcp.body.result.content[0].text).code, 'mnote_tool_disabled');
      assert.ok(!(await mcp(url, 'tools/list')).body.result.tools.some((t) => t.name === 'doc_apply_block_ops'));
      assert.equal((await getPage(url, doc)).revision, page.revision);
    } finally {
      await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    }
  });

  test('accepting after an edit of another block applies on the newer page and says so', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    const doc = await freshDoc();
    const res = await command(url, { documentId: doc, prompt: 'replace "plan" with "roadmap"', scope: { type: 'full' } });
    assert.equal(res.body.outcome, 'review', res.text);
    const id = res.body.reviewSession.sessionId;
    // A person edits another block under the proposal.
    const edit = await editBlocks(url, doc, {
      baseRevision: 1, operations: [{ op: 'update', blockId: 'p_4', text: 'Closing words, edited by hand.' }], idempotencyKey: fresh('edit'),
    });
    assert.equal(edit.status, 200, edit.text);
    const accepted = await review(url, id, 'accept', { idempotencyKey: fresh('k_accept') });
    assert.equal(accepted.body.state, 'applied', accepted.text);
    assert.equal(accepted.body.result.baseRevision, 2);
    assert.equal(accepted.body.result.newRevision, 3);
    assert.equal(accepted.body.result.warnings.find((w) => w.code === 'rebased')?.message,
      'the change was made against revision 1; the blocks it touches are unchanged, so it applied on revision 2');
    const page = await getPage(url, doc);
    assert.equal(page.blocks[1].text, 'The second paragraph talks about the roadmap.');
    assert.equal(page.blocks[3].text, 'Closing words, edited by hand.', 'the person\'s edit stays');
  });

  test('accepting after an edit of the block it touches gives stale with a fresh preview', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    const doc = await freshDoc();
    const res = await command(url, { documentId: doc, prompt: 'replace "plan" with "roadmap"', scope: { type: 'full' } });
    assert.equal(res.body.outcome, 'review', res.text);
    const id = res.body.reviewSession.sessionId;
    assert.ok(id.startsWith(`rs.${doc}.`), id);
    assert.equal(res.body.reviewSession.state, 'awaiting_user');

    // The page moves on under the proposal, in the block it touches (a whole-page PUT).
    await putPage(url, doc, { ...PARAGRAPHS, p_2: `${PARAGRAPHS.p_2} (edited by hand)` });
    const key = fresh('k_accept');
    const stale = await review(url, id, 'accept', { idempotencyKey: key });
    assert.equal(stale.status, 200, stale.text);
    assert.equal(stale.body.schema, 'mnote.page_ai_review_answer.v1');
    assert.equal(stale.body.state, 'stale');
    assert.equal(stale.body.result, null);
    assert.equal(stale.body.stale.currentRevision, 2);
    assert.equal(stale.body.stale.preview.baseRevision, 2, 'a fresh preview against the current page');
    assert.equal(stale.body.stale.preview.changedBlocks[0].after, 'The second paragraph talks about the roadmap. (edited by hand)');
    assert.equal((await getPage(url, doc)).blocks[1].text, `${PARAGRAPHS.p_2} (edited by hand)`, 'never applied');
    const replay = await review(url, id, 'accept', { idempotencyKey: key });
    assert.equal(replay.text, stale.text, 'a repeated accept replays byte for byte');

    // Retry re-previews against the current page; then the accept applies.
    const retried = await review(url, id, 'retry', { toolCallId: fresh('call_retry') });
    assert.equal(retried.body.state, 'awaiting_user', retried.text);
    const accepted = await review(url, id, 'accept', { idempotencyKey: fresh('k_accept') });
    assert.equal(accepted.body.state, 'applied', accepted.text);
    assert.equal((await getPage(url, doc)).blocks[1].text, 'The second paragraph talks about the roadmap. (edited by hand)');
    const actions = (await audit(url, doc)).body.entries.map((e) => e.action);
    assert.deepEqual(actions, ['document.put', 'review.propose', 'document.put', 'review.stale', 'review.retry', 'review.accept']);
  });

  test('abort leaves no half-written content', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    const doc = await freshDoc();
    const before = await getPage(url, doc);
    const ops = [
      { op: 'replace', blockId: 'p_2', matchText: 'plan', content: 'roadmap' },
      { op: 'replace', blockId: 'p_3', matchText: 'risks', content: 'dangers' },
      { op: 'delete', blockId: 'p_4' },
    ];
    const proposed = await toolCall(url, 'doc_apply_block_ops', {
      documentId: doc, baseRevision: before.revision, operations: ops, dryRun: false, idempotencyKey: fresh('k'),
    });
    const id = proposed.body.reviewSession.sessionId;
    const aborted = await review(url, id, 'abort');
    assert.equal(aborted.status, 200, aborted.text);
    assert.equal(aborted.body.state, 'aborted');
    assert.deepEqual(await getPage(url, doc), before, 'nothing of the batch was written');
    const late = await review(url, id, 'accept', { idempotencyKey: fresh('k') });
    assert.equal(assertCodedError(late, 409, 'mnote_review_invalid_transition').details.state, 'aborted');
    assert.deepEqual(await getPage(url, doc), before);
    assert.equal((await session(url, id)).body.state, 'aborted');
  });
});

describe('review sessions', () => {
  let doc;
  let id;

  before(async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'required' });
    doc = await freshDoc();
    const page = await getPage(url, doc);
    const res = await toolCall(url, 'doc_apply_block_ops', {
      documentId: doc,
      baseRevision: page.revision,
      dryRun: true,
      idempotencyKey: fresh('k'),
      operations: [
        { op: 'replace', blockId: 'p_2', matchText: 'plan', content: 'roadmap' },
        { op: 'replace', blockId: 'p_3', matchText: 'risks', content: 'dangers' },
      ],
    });
    id = res.body.reviewSession.sessionId;
  });

  test('a partial accept applies only the chosen blocks', async () => {
    const res = await review(url, id, 'accept', { idempotencyKey: fresh('k'), blockIds: ['p_3'] });
    assert.equal(res.body.state, 'applied', res.text);
    const page = await getPage(url, doc);
    assert.equal(page.blocks[1].text, PARAGRAPHS.p_2);
    assert.equal(page.blocks[2].text, 'The third paragraph lists the dangers.');
  });

  test('revert undoes the applied change as one write', async () => {
    const key = fresh('k_revert');
    const res = await review(url, id, 'revert', { idempotencyKey: key });
    assert.equal(res.body.state, 'reverted', res.text);
    const page = await getPage(url, doc);
    assert.equal(page.blocks[2].text, PARAGRAPHS.p_3);
    assert.equal((await review(url, id, 'revert', { idempotencyKey: key })).text, res.text, 'replayed');
    assert.equal((await getPage(url, doc)).revision, page.revision);
    assert.equal((await verifyAudit(url, doc)).body.verified, true);
  });

  test('bad review requests are coded', async () => {
    assertCodedError(await session(url, 'rs.nodoc'), 404, 'mnote_review_session_not_found');
    assertCodedError(await session(url, `rs.${doc}.unknown`), 404, 'mnote_review_session_not_found');
    assertCodedError(await review(url, id, 'accept', {}), 400, 'mnote_invalid_arguments');
    assertCodedError(await review(url, id, 'accept', { idempotencyKey: 'k', extra: 1 }), 400, 'mnote_invalid_arguments');
    assertCodedError(await review(url, id, 'reject', { why: 'no' }), 400, 'mnote_invalid_arguments');
    assertCodedError(await review(url, id, 'reject', undefined), 409, 'mnote_review_invalid_transition');
    const foreign = await sendJson(`${url}/api/page-ai/review-sessions/${id}/abort`, 'POST', '', { origin: 'https://evil.example' });
    assertCodedError(foreign, 403, 'mnote_forbidden_origin');
    const list = await fetchJson(`${url}/api/documents/${doc}/review-sessions`);
    assert.equal(list.body.sessions[0].sessionId, id);
  });
});

describe('the Hermes hand-off', () => {
  test('a complex prompt returns the route, its tool hint and a frozen context; the run is not started here', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    const doc = await freshDoc();
    const res = await command(url, { documentId: doc, prompt: '把这一页润色得更专业', scope: { type: 'full' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.outcome, 'hermes');
    assert.equal(res.body.route.requiresHermesRun, true);
    assert.ok(res.body.route.toolHint.readTools.includes('mnote.doc.fetch'));
    assert.match(res.body.contextId, /^ctx_/);
    // Without HERMES_UPSTREAM_URL no run can start, and the answer says so with the contract's code.
    assert.equal(res.body.hermesRun.started, false);
    assert.equal(res.body.hermesRun.error.code, 'hermes_client_unconfigured');
    // The frozen context is real: a write bound to it is accepted (held for review).
    const page = await getPage(url, doc);
    const args = replaceArgs(doc, page.revision, { blockId: 'p_4', matchText: 'Closing', content: 'Final', contextId: res.body.contextId, dryRun: true });
    assert.equal((await toolCall(url, 'doc_apply_block_ops', args)).body.reviewSession.state, 'awaiting_user');
  });

  test('bad commands are coded', async () => {
    const missing = await command(url, { documentId: 'welcome', scope: { type: 'full' } });
    assert.equal(assertCodedError(missing, 400, 'mnote_invalid_arguments').details.pointer, '');
    const unknown = await command(url, { documentId: 'welcome', prompt: 'x', scoop: { type: 'full' } });
    assertCodedError(unknown, 400, 'mnote_invalid_arguments');
    const mode = await command(url, { documentId: 'welcome', prompt: 'x', scope: { type: 'full' }, mode: 'turbo' });
    assert.equal(assertCodedError(mode, 400, 'mnote_invalid_arguments').details.pointer, '/mode');
    assertCodedError(await command(url, { documentId: 'nope_doc', prompt: 'x', scope: { type: 'full' } }), 404, 'mnote_document_not_found');
    const sel = await command(url, { documentId: 'welcome', prompt: 'x', scope: { type: 'selection', blockIds: ['zz_missing'] } });
    assertCodedError(sel, 404, 'mnote_block_not_found');
  });
});
