// End-to-end: undo of one Hermes run (issue 33 item 5b) under wrangler dev. A run (tool calls with a
// runId, on a context frozen for its person, in yolo mode so its writes land) rewrites two blocks; a
// person edits a third; POST /api/documents/{id}/runs/{runId}/undo puts the two blocks back and keeps the
// person's edit, in one revision and one audit entry (review.undo_run), and a second tab hears it live.
// A person's later edit to a block of the run makes the undo answer a preview and write nothing until it is
// confirmed (confirmRevision); a viewer cannot undo; an unknown run is a coded 404.
//
//   node --test --test-concurrency=1 --experimental-websocket tests/e2e/run_undo.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { claims, jwkSet, jwtVars, makeKeys, sign } from './lib/identity.mjs';
import { TOOL_VARS, fetchJson, fresh, sendJson, setProfile, toolCall } from './lib/mnote.mjs';
import { startWorker } from './lib/wrangler.mjs';

const keys = makeKeys();
const token = (sub, workspaces) => `Bearer ${sign(keys.es, claims({ sub, workspaces }))}`;
const USERS = {
  ana: token('user_ana', { ws_u: 'owner' }),
  eve: token('user_eve', { ws_u: 'editor' }),
  vic: token('user_vic', { ws_u: 'viewer' }),
};

let worker;
let url;

before(
  async () => {
    worker = await startWorker({ vars: { ...jwtVars(jwkSet(keys)), ...TOOL_VARS, MNOTE_SIGN_IN_FREE_FAILURES: '10000' } });
    url = worker.url;
    // yolo: a run's unblocked writes land at once (each through an `applied` review session).
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' }, { workspaceId: 'ws_u', headers: headersOf('ana') });
  },
  { timeout: 600_000 },
);

after(async () => {
  await worker?.stop();
});

function headersOf(user) {
  return { authorization: USERS[user], origin: url };
}

const as = (user, method, path, body) =>
  body === undefined ? fetchJson(`${url}${path}`, { method, headers: headersOf(user) }) : sendJson(`${url}${path}`, method, body, headersOf(user));

const BLOCKS = [
  { blockId: 'p_1', type: 'paragraph', text: '第一版计划，周五发布。' },
  { blockId: 'p_2', type: 'paragraph', text: 'The API is a draft.' },
  { blockId: 'p_3', type: 'paragraph', text: 'Notes' },
];

/** A page in ws_u made by its owner, and a context frozen for `user` (their command hands off to Hermes). */
async function pageWithRun(prefix, user = 'ana') {
  const doc = fresh(prefix).replaceAll('.', '_');
  const made = await as('ana', 'PUT', `/api/documents/${doc}`, { workspaceId: 'ws_u', blocks: BLOCKS });
  assert.equal(made.status, 200, made.text);
  const command = await as(user, 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'what is this page about?', scope: { type: 'full' } });
  assert.equal(command.status, 200, command.text);
  return { doc, contextId: command.body.contextId, runId: fresh('run_undo').replaceAll('.', '_') };
}

/** The run writes `text` into `blockId` (one tool call, applied); answers the new revision. */
async function runWrites({ doc, contextId, runId }, revision, blockId, text) {
  const args = { documentId: doc, contextId, baseRevision: revision, dryRun: false, idempotencyKey: fresh('k'), operations: [{ op: 'update', blockId, text }] };
  const res = await toolCall(url, 'doc_apply_block_ops', args, { runId });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.result.dryRun, false, 'applied');
  return res.body.result.newRevision;
}

const personEdits = async (user, doc, revision, blockId, text) => {
  const res = await as(user, 'PATCH', `/api/documents/${doc}/blocks`, { baseRevision: revision, operations: [{ op: 'update', blockId, text }], idempotencyKey: fresh('k') });
  assert.equal(res.status, 200, res.text);
  return res.body.newRevision;
};

const undo = (user, doc, runId, body) => as(user, 'POST', `/api/documents/${doc}/runs/${runId}/undo`, body);
const texts = async (doc) => {
  const page = (await as('ana', 'GET', `/api/documents/${doc}`)).body;
  return { revision: page.revision, texts: page.blocks.map((b) => b.text) };
};
const auditOf = async (doc) => (await as('ana', 'GET', `/api/documents/${doc}/audit`)).body.entries;

/** A socket on the page's live channel for `user` that keeps what it hears; `until(pred)` waits for one. */
function openLive(doc, user) {
  const target = new URL(`/api/documents/${doc}/live`, url.replace(/^http/, 'ws'));
  const socket = new WebSocket(target.href, { headers: headersOf(user) });
  const messages = [];
  const waiters = [];
  socket.onmessage = (event) => {
    if (event.data === 'pong') return;
    messages.push(JSON.parse(event.data));
    for (const waiter of [...waiters]) waiter();
  };
  const until = (pred) =>
    new Promise((resolve) => {
      const check = () => {
        const found = messages.find(pred);
        if (found) {
          waiters.splice(waiters.indexOf(check), 1);
          resolve(found);
        }
      };
      waiters.push(check);
      check();
    });
  return { until, close: () => socket.close(1000, 'done') };
}

describe('undo of one Hermes run', { timeout: 600_000 }, () => {
  test('the run’s two blocks go back, a person’s edit elsewhere stays: one revision, one audit entry, heard live', async () => {
    const run = await pageWithRun('undo_run');
    let revision = await runWrites(run, 0, 'p_1', '第二版计划，周五发布。');
    revision = await runWrites(run, revision, 'p_2', 'The API is final.');
    revision = await personEdits('eve', run.doc, revision, 'p_3', 'Notes by Eve');
    const audited = (await auditOf(run.doc)).length;
    const tab = openLive(run.doc, 'vic');
    await tab.until((m) => m.kind === 'hello');

    const key = fresh('k_undo');
    const res = await undo('eve', run.doc, run.runId, { idempotencyKey: key });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.schema, 'mnote.run_undo.v1');
    assert.equal(res.body.outcome, 'undone');
    assert.equal(res.body.runId, run.runId);
    assert.equal(res.body.sessionIds.length, 2);
    assert.deepEqual(res.body.changedBlockIds, []);
    assert.equal(res.body.revision, revision + 1);

    const now = await texts(run.doc);
    assert.deepEqual(now.texts, ['第一版计划，周五发布。', 'The API is a draft.', 'Notes by Eve']);
    assert.equal(now.revision, revision + 1, 'one revision');
    const entries = await auditOf(run.doc);
    assert.equal(entries.length, audited + 1, 'one audit entry');
    const entry = entries.at(-1);
    assert.deepEqual([entry.action, entry.actor, entry.revision], ['review.undo_run', 'user_eve', revision + 1]);
    for (const id of res.body.sessionIds) assert.ok(entry.summary.includes(id), entry.summary);
    const verified = await as('ana', 'GET', `/api/documents/${run.doc}/audit/verify`);
    assert.equal(verified.status, 200, verified.text);

    // The other tab hears the page change and each session move to reverted.
    const changed = await tab.until((m) => m.kind === 'page.changed' && m.change.fromRevision === revision);
    assert.equal(changed.change.runId, run.runId);
    for (const id of res.body.sessionIds) {
      const heard = await tab.until((m) => m.kind === 'review.updated' && m.session.sessionId === id);
      assert.equal(heard.session.state, 'reverted');
    }
    tab.close();

    // The same key replays the same bytes; another key finds the run undone already.
    const again = await undo('eve', run.doc, run.runId, { idempotencyKey: key });
    assert.equal(again.text, res.text, 'byte for byte');
    assert.equal((await texts(run.doc)).revision, revision + 1, 'a replay writes nothing');
    const twice = await undo('eve', run.doc, run.runId, { idempotencyKey: fresh('k_undo') });
    assert.equal(twice.status, 409, twice.text);
    assert.equal(twice.body.code, 'mnote_run_already_undone');
  });

  test('a person’s later edit on a block of the run: the undo previews, writes nothing, and writes when confirmed', async () => {
    const run = await pageWithRun('undo_confirm');
    let revision = await runWrites(run, 0, 'p_1', '第二版计划，周五发布。');
    revision = await runWrites(run, revision, 'p_2', 'The API is final.');
    revision = await personEdits('eve', run.doc, revision, 'p_2', 'The API is final, says legal.');
    const audited = (await auditOf(run.doc)).length;

    const shown = await undo('ana', run.doc, run.runId, { idempotencyKey: fresh('k_undo') });
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.body.outcome, 'needs_confirm');
    assert.deepEqual(shown.body.changedBlockIds, ['p_2']);
    assert.equal(shown.body.revision, revision);
    assert.equal(shown.body.result, null);
    const p2 = shown.body.preview.changedBlocks.find((c) => c.blockId === 'p_2');
    assert.deepEqual([p2.before, p2.after], ['The API is final, says legal.', 'The API is a draft.']);
    const untouched = await texts(run.doc);
    assert.equal(untouched.revision, revision, 'a preview writes nothing');
    assert.deepEqual(untouched.texts, ['第二版计划，周五发布。', 'The API is final, says legal.', 'Notes']);
    assert.equal((await auditOf(run.doc)).length, audited, 'nor records anything');

    // A confirm of an older preview is refused; a confirm of this one writes what it showed.
    const old = await undo('ana', run.doc, run.runId, { idempotencyKey: fresh('k_undo'), confirmRevision: revision - 1 });
    assert.equal(old.status, 409, old.text);
    assert.equal(old.body.code, 'mnote_run_undo_stale');
    const done = await undo('ana', run.doc, run.runId, { idempotencyKey: fresh('k_undo'), confirmRevision: shown.body.revision });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.outcome, 'undone');
    const now = await texts(run.doc);
    assert.deepEqual(now.texts, BLOCKS.map((b) => b.text));
    assert.equal(now.revision, revision + 1);
    assert.equal((await auditOf(run.doc)).length, audited + 1);
  });

  test('a viewer cannot undo a run, and an unknown run is a coded 404', async () => {
    const run = await pageWithRun('undo_viewer');
    const revision = await runWrites(run, 0, 'p_1', '第二版计划，周五发布。');
    const refused = await undo('vic', run.doc, run.runId, { idempotencyKey: fresh('k_undo') });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.code, 'mnote_role_forbidden');
    assert.equal((await texts(run.doc)).revision, revision, 'nothing written');
    const unknown = await undo('eve', run.doc, 'run_nobody_ran', { idempotencyKey: fresh('k_undo') });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.code, 'mnote_run_not_found');
    const bad = await undo('eve', run.doc, run.runId, { idempotencyKey: fresh('k'), extra: 1 });
    assert.equal(bad.status, 400, bad.text);
  });
});
