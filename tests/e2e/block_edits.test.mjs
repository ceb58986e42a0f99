// End-to-end: a person's block edits, `PATCH /api/documents/{id}/blocks`, under wrangler dev. They run
// through core's executor as origin `user`: never held for review, audited with the person as actor,
// evented like every tool call, answered with the `mnote.tool_result.v1`, and refused (409, with each
// changed block) only when a block they touch changed since the person's page was loaded. The edit itself
// comes from the npm package's `PageSession.editBlock`, as the editor builds it.
//
//   node --test --test-concurrency=1 tests/e2e/block_edits.test.mjs

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT, TEST_CLIENT_TOKEN, assertCodedError, fetchJson as rawFetchJson, startWorker } from './lib/wrangler.mjs';
import { TOOL_TOKEN, TOOL_VARS, audit, editBlocks, events, fresh, getPage, putPage, setProfile, verifyAudit } from './lib/mnote.mjs';

const pageai = createRequire(import.meta.url)(join(ROOT, 'wasm', 'pkg', 'node', 'pageai.js'));

let worker;
let url;

before(async () => {
  worker = await startWorker({ vars: TOOL_VARS });
  url = worker.url;
  // The strictest profile: every AI write is held. A person's edit never is.
  await setProfile(url, { tools: { disabled: [] }, reviewMode: 'required' });
});

after(async () => {
  await worker?.stop();
});

/** A fresh document of paragraphs; answers the stored page. */
const paragraphs = (id) => putPage(url, id, { p_a: 'alpha', p_b: 'beta', p_c: 'gamma' });

/** The edit the editor sends for a new text of one block, built by the package on `page`. */
function edit(page, blockId, text, idempotencyKey = fresh('edit')) {
  const session = new pageai.PageSession(page);
  try {
    return session.editBlock(blockId, text, { idempotencyKey });
  } finally {
    session.free();
  }
}

describe('PATCH /api/documents/{id}/blocks', () => {
  test('a person edit lands as origin user even in required mode, audited and evented, answering the tool result', async () => {
    const id = fresh('edits');
    const page = await paragraphs(id);
    const { body, preview } = edit(page, 'p_b', 'beta, edited by a person');
    const res = await editBlocks(url, id, body);
    assert.equal(res.status, 200, res.text);
    const result = res.body;
    assert.equal(result.schema, 'mnote.tool_result.v1');
    assert.equal(result.dryRun, false);
    assert.equal(result.blocked, false, 'never held for review');
    assert.equal(result.baseRevision, page.revision);
    assert.equal(result.newRevision, page.revision + 1);
    assert.deepEqual(result.changedBlocks, preview.changedBlocks, 'what the package previewed is what landed');
    assert.equal(result.audit.actor, 'user');
    const now = await getPage(url, id);
    assert.equal(now.blocks[1].text, 'beta, edited by a person');
    assert.equal(now.revision, page.revision + 1);

    const entries = (await audit(url, id)).body.entries;
    const last = entries.at(-1);
    assert.equal(last.actor, 'user');
    assert.equal(last.action, 'tool.applied');
    assert.equal(last.revision, now.revision);
    assert.equal((await verifyAudit(url, id)).body.verified, true);
    const kinds = (await events(url, id, result.audit.toolCallId)).body.events.map((e) => e.event.event);
    assert.deepEqual(kinds, ['tool.started', 'tool.completed']);
    assert.equal((await fetchSessions(id)).length, 0, 'no review session for a person');
  });

  test('an edit of another block lands on the newer page (rebased); one of the same block is a 409 with its current text', async () => {
    const id = fresh('edits');
    const loaded = await paragraphs(id);
    // Someone else saves p_a first.
    assert.equal((await editBlocks(url, id, edit(loaded, 'p_a', 'alpha by someone else').body)).status, 200);

    const other = await editBlocks(url, id, edit(loaded, 'p_c', 'gamma, mine').body);
    assert.equal(other.status, 200, other.text);
    assert.equal(other.body.baseRevision, loaded.revision + 1, 'applied on the revision it found');
    assert.equal(other.body.warnings.find((w) => w.code === 'rebased')?.message,
      `the change was made against revision ${loaded.revision}; the blocks it touches are unchanged, so it applied on revision ${loaded.revision + 1}`);

    const same = await editBlocks(url, id, edit(loaded, 'p_a', 'alpha, mine').body);
    const error = assertCodedError(same, 409, 'mnote_revision_conflict');
    const now = await getPage(url, id);
    assert.equal(error.details.baseRevision, loaded.revision);
    assert.equal(error.details.currentRevision, now.revision);
    assert.deepEqual(error.details.blocks, [{
      blockId: 'p_a',
      revisionRef: error.details.blocks[0].revisionRef,
      text: 'alpha by someone else',
      changedAtRevision: loaded.revision + 1,
    }]);
    assert.match(error.details.blocks[0].revisionRef, new RegExp(`^pageRev:${now.revision}:block:p_a:[0-9a-f]{8}$`));
    assert.equal(now.blocks[0].text, 'alpha by someone else', 'nothing lost, nothing overwritten');
    assert.equal(now.blocks[2].text, 'gamma, mine');

    // Re-planned from the conflict's details, with no fetch: the revisionRef says what was read.
    const retry = await editBlocks(url, id, {
      baseRevision: error.details.currentRevision,
      operations: [{ op: 'update', blockId: 'p_a', text: 'alpha by someone else, and mine' }],
      idempotencyKey: fresh('edit'),
      revisionRefs: [error.details.blocks[0].revisionRef],
    });
    assert.equal(retry.status, 200, retry.text);
  });

  test('the same key and body replay byte for byte; the same key with another body conflicts', async () => {
    const id = fresh('edits');
    const page = await paragraphs(id);
    const { body } = edit(page, 'p_a', 'alpha once', 'k_replay');
    const first = await editBlocks(url, id, body);
    assert.equal(first.status, 200, first.text);
    const again = await editBlocks(url, id, body);
    assert.equal(again.status, 200);
    assert.equal(again.text, first.text, 'the stored answer, byte for byte');
    assert.equal((await getPage(url, id)).revision, page.revision + 1, 'written once');
    const other = await editBlocks(url, id, { ...body, operations: [{ op: 'update', blockId: 'p_a', text: 'alpha twice' }] });
    assertCodedError(other, 409, 'mnote_idempotency_conflict');
  });

  test('bad bodies are coded and change nothing', async () => {
    const id = fresh('edits');
    const page = await paragraphs(id);
    const unknown = await editBlocks(url, id, { baseRevision: page.revision, operations: [], idempotencyKey: 'k', force: true });
    assert.equal(assertCodedError(unknown, 400, 'mnote_invalid_arguments').details.pointer, '/force');
    const missing = await editBlocks(url, id, { baseRevision: page.revision, operations: [{ op: 'delete', blockId: 'p_a' }] });
    assert.match(assertCodedError(missing, 400, 'mnote_invalid_arguments').message, /idempotencyKey/);
    const unknownBlock = await editBlocks(url, id, { baseRevision: page.revision, operations: [{ op: 'update', blockId: 'p_zz', text: 'x' }], idempotencyKey: 'k2' });
    assertCodedError(unknownBlock, 404, 'mnote_block_not_found');
    const badRef = await editBlocks(url, id, { ...edit(page, 'p_a', 'x').body, revisionRefs: ['p_a'] });
    assert.equal(assertCodedError(badRef, 400, 'mnote_invalid_arguments').details.pointer, '/revisionRefs/0');
    assertCodedError(await editBlocks(url, 'no_such_doc', edit(page, 'p_a', 'x').body), 404, 'mnote_document_not_found');
    assert.equal((await getPage(url, id)).revision, page.revision);
  });

  test('browser auth and Origin rules: a credential is needed, a cookie needs an allowed Origin', async () => {
    const id = fresh('edits');
    const page = await paragraphs(id);
    const body = () => edit(page, 'p_a', fresh('text')).body;
    const patch = (headers, value = body()) =>
      rawFetchJson(`${url}/api/documents/${id}/blocks`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(value),
      });
    assertCodedError(await patch({}), 401, 'mnote_unauthorized');
    assertCodedError(await patch({ authorization: 'Bearer wrong' }), 401, 'mnote_unauthorized');
    const login = await rawFetchJson(`${url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url },
      body: JSON.stringify({ token: TEST_CLIENT_TOKEN }),
    });
    assert.equal(login.status, 200, login.text);
    const cookie = login.headers.get('set-cookie').split(';')[0];
    assertCodedError(await patch({ cookie }), 403, 'mnote_forbidden_origin');
    assertCodedError(await patch({ cookie, origin: 'https://evil.example' }), 403, 'mnote_forbidden_origin');
    assertCodedError(await patch({ ...worker.auth, origin: 'https://evil.example' }), 403, 'mnote_forbidden_origin');
    assert.equal((await getPage(url, id)).revision, page.revision, 'no refused request wrote');
    const own = await patch({ cookie, origin: url });
    assert.equal(own.status, 200, own.text);
    // Revision moved on: a fresh edit of another block from the old page still lands.
    const script = await patch(worker.auth, edit(page, 'p_b', 'from a script').body);
    assert.equal(script.status, 200, script.text);
    // The tool token is Hermes' credential, not a person's.
    assertCodedError(await patch({ authorization: `Bearer ${TOOL_TOKEN}` }), 401, 'mnote_unauthorized');
  });
});

async function fetchSessions(id) {
  const res = await rawFetchJson(`${url}/api/documents/${id}/review-sessions`, { headers: worker.auth });
  return res.body.sessions;
}
