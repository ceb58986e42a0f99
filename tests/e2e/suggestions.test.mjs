// End-to-end: people suggest (issue 33 item 2) under wrangler dev. A viewer's block edit is held as their
// suggestion (POST /api/documents/{id}/suggestions, the body of PATCH …/blocks), the page is unchanged, an
// open tab of another person hears it on the live channel (review.updated, as for a held AI write), another
// person lists it (GET …/suggestions, mnote.suggestion.v1), a viewer cannot accept it, an editor accepts it
// through the review session routes (one write, audited with the editor), and an author withdraws their own.
//
//   node --test --test-concurrency=1 --experimental-websocket tests/e2e/suggestions.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { claims, jwkSet, jwtVars, makeKeys, sign } from './lib/identity.mjs';
import { TOOL_VARS, fetchJson, fresh, sendJson } from './lib/mnote.mjs';
import { startWorker } from './lib/wrangler.mjs';

const keys = makeKeys();
const token = (sub, workspaces) => `Bearer ${sign(keys.es, claims({ sub, workspaces }))}`;
const USERS = {
  ana: token('user_ana', { ws_s: 'owner' }),
  eve: token('user_eve', { ws_s: 'editor' }),
  vic: token('user_vic', { ws_s: 'viewer' }),
  wes: token('user_wes', { ws_s: 'viewer' }),
};

let worker;
let url;

before(
  async () => {
    worker = await startWorker({ vars: { ...jwtVars(jwkSet(keys)), ...TOOL_VARS, MNOTE_SIGN_IN_FREE_FAILURES: '10000' } });
    url = worker.url;
  },
  { timeout: 600_000 },
);

after(async () => {
  await worker?.stop();
});

const headersOf = (user) => ({ authorization: USERS[user], origin: url });
const as = (user, method, path, body) =>
  body === undefined ? fetchJson(`${url}${path}`, { method, headers: headersOf(user) }) : sendJson(`${url}${path}`, method, body, headersOf(user));

/** A page in ws_s made by its owner; answers its id and revision. */
async function makePage(prefix) {
  const doc = fresh(prefix).replaceAll('.', '_');
  const blocks = [
    { blockId: 'p_1', type: 'paragraph', text: 'Ship the draft on Friday.' },
    { blockId: 'p_2', type: 'paragraph', text: '第一版计划' },
  ];
  const made = await as('ana', 'PUT', `/api/documents/${doc}`, { workspaceId: 'ws_s', blocks });
  assert.equal(made.status, 200, made.text);
  return { doc, revision: made.body.revision };
}

const edit = (revision, blockId, text, key = fresh('k')) => ({
  baseRevision: revision,
  operations: [{ op: 'update', blockId, text }],
  idempotencyKey: key,
});

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

describe('people suggest', { timeout: 600_000 }, () => {
  test('a viewer suggests, another tab hears it, a second person lists it, a viewer cannot accept, an editor does', async () => {
    const { doc, revision } = await makePage('suggest');
    const tab = openLive(doc, 'eve');
    await tab.until((m) => m.kind === 'hello');

    const body = { ...edit(revision, 'p_1', 'Ship the final plan on Friday.'), reason: 'the plan is final now' };
    const suggested = await as('vic', 'POST', `/api/documents/${doc}/suggestions`, body);
    assert.equal(suggested.status, 200, suggested.text);
    const session = suggested.body;
    assert.equal(session.schema, 'mnote.page_ai_review_session.v1');
    assert.equal(session.state, 'awaiting_user');
    assert.equal(session.source.origin, 'user');
    assert.equal(session.audit.createdBy, 'user_vic');
    // The same key and body find the same session.
    const again = await as('vic', 'POST', `/api/documents/${doc}/suggestions`, body);
    assert.equal(again.body.sessionId, session.sessionId);

    const heard = await tab.until((m) => m.kind === 'review.updated' && m.session.sessionId === session.sessionId);
    assert.equal(heard.session.state, 'awaiting_user');
    tab.close();

    const page = await as('wes', 'GET', `/api/documents/${doc}`);
    assert.equal(page.body.revision, revision, 'a suggestion writes nothing');
    assert.equal(page.body.blocks[0].text, 'Ship the draft on Friday.');

    const listed = await as('wes', 'GET', `/api/documents/${doc}/suggestions`);
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.documentId, doc);
    assert.equal(listed.body.suggestions.length, 1);
    const [suggestion] = listed.body.suggestions;
    assert.equal(suggestion.schema, 'mnote.suggestion.v1');
    assert.deepEqual([suggestion.sessionId, suggestion.blockId, suggestion.state], [session.sessionId, 'p_1', 'pending']);
    assert.deepEqual(suggestion.author, { kind: 'person', actor: 'user_vic' });
    assert.equal(suggestion.reason, 'the plan is final now');
    assert.deepEqual(suggestion.diff.segments, [
      { tag: 'equal', text: 'Ship the ' },
      { tag: 'delete', text: 'draft' },
      { tag: 'insert', text: 'final plan' },
      { tag: 'equal', text: ' on Friday.' },
    ]);

    for (const viewer of ['vic', 'wes']) {
      const refused = await as(viewer, 'POST', `/api/page-ai/review-sessions/${session.sessionId}/accept`, { idempotencyKey: fresh('acc') });
      assert.equal(refused.status, 403, refused.text);
      assert.equal(refused.body.code, 'mnote_role_forbidden');
    }
    const accepted = await as('eve', 'POST', `/api/page-ai/review-sessions/${session.sessionId}/accept`, { idempotencyKey: fresh('acc') });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.state, 'applied');
    const after = await as('wes', 'GET', `/api/documents/${doc}`);
    assert.deepEqual([after.body.revision, after.body.blocks[0].text], [revision + 1, 'Ship the final plan on Friday.']);
    const trail = await as('ana', 'GET', `/api/documents/${doc}/audit`);
    const last = trail.body.entries.at(-1);
    assert.deepEqual([last.action, last.actor, last.revision], ['review.accept', 'user_eve', revision + 1]);
    const none = await as('wes', 'GET', `/api/documents/${doc}/suggestions`);
    assert.deepEqual(none.body.suggestions, []);
  });

  test('the author withdraws their own suggestion; another viewer cannot', async () => {
    const { doc, revision } = await makePage('withdraw');
    const suggested = await as('vic', 'POST', `/api/documents/${doc}/suggestions`, edit(revision, 'p_2', '第二版计划'));
    assert.equal(suggested.status, 200, suggested.text);
    const id = suggested.body.sessionId;
    const listed = await as('eve', 'GET', `/api/documents/${doc}/suggestions`);
    assert.deepEqual(listed.body.suggestions[0].diff.segments.map((s) => [s.tag, s.text]), [['equal', '第'], ['delete', '一'], ['insert', '二'], ['equal', '版计划']]);
    const refused = await as('wes', 'POST', `/api/page-ai/review-sessions/${id}/reject`, {});
    assert.equal(refused.status, 403, refused.text);
    const withdrawn = await as('vic', 'POST', `/api/page-ai/review-sessions/${id}/reject`, {});
    assert.equal(withdrawn.status, 200, withdrawn.text);
    assert.equal(withdrawn.body.state, 'rejected');
    const page = await as('vic', 'GET', `/api/documents/${doc}`);
    assert.equal(page.body.revision, revision, 'a withdrawn suggestion wrote nothing');
    const none = await as('eve', 'GET', `/api/documents/${doc}/suggestions`);
    assert.deepEqual(none.body.suggestions, []);
  });

  test('a suggestion on a block that is not there is refused like the edit, with the coded error', async () => {
    const { doc, revision } = await makePage('refused');
    const refused = await as('vic', 'POST', `/api/documents/${doc}/suggestions`, edit(revision, 'p_9', 'x'));
    assert.equal(refused.status, 404, refused.text);
    assert.equal(refused.body.code, 'mnote_block_not_found');
    assert.equal(refused.body.ok, false);
  });
});
