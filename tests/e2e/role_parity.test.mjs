// End-to-end: the browser's preview says what the server will do with a person's writes, for every role
// (issue 18 item 3). The Worker names the caller's role in the page's workspace in the `x-mnote-role`
// header of `GET /api/documents/{id}`; the npm package's `PageSession` made with that role
// (`new PageSession(page, {role})`) previews a write byte for byte as the server's dry-run of the same call
// for that person (the tool route, with a context frozen for them): a viewer's write is held, an editor's
// applies. A session made without the role previews for the owner, as before, and would tell a viewer
// "applies".
//
//   node --test --test-concurrency=1 tests/e2e/role_parity.test.mjs

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { claims, jwkSet, jwtVars, makeKeys, sign } from './lib/identity.mjs';
import { TOOL_VARS, fetchJson, fresh, sendJson, setProfile, toolCall } from './lib/mnote.mjs';
import { ROOT, startWorker } from './lib/wrangler.mjs';

const pageai = createRequire(import.meta.url)(join(ROOT, 'wasm', 'pkg', 'node', 'pageai.js'));

const keys = makeKeys();
const token = (sub, workspaces) => `Bearer ${sign(keys.es, claims({ sub, workspaces }))}`;
const USERS = {
  ana: { authorization: token('user_ana', { ws_a: 'owner' }), role: 'owner' },
  eve: { authorization: token('user_eve', { ws_a: 'editor' }), role: 'editor' },
  vic: { authorization: token('user_vic', { ws_a: 'viewer' }), role: 'viewer' },
};

let worker;
let url;
let profile;

before(
  async () => {
    worker = await startWorker({ vars: { ...jwtVars(jwkSet(keys)), ...TOOL_VARS, MNOTE_SIGN_IN_FREE_FAILURES: '10000' } });
    url = worker.url;
    // In yolo mode a dry-run is a plain preview, and the role alone decides whether the write would land.
    profile = await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' }, { workspaceId: 'ws_a', headers: { authorization: USERS.ana.authorization, origin: url } });
  },
  { timeout: 600_000 },
);

after(async () => {
  await worker?.stop();
});

const headersOf = (user) => ({ authorization: USERS[user].authorization, origin: url });

/** The page as `user` reads it, and the role the Worker names for them. */
async function read(user, doc) {
  const res = await fetch(`${url}/api/documents/${doc}`, { headers: headersOf(user) });
  assert.equal(res.status, 200);
  return { page: await res.json(), role: res.headers.get('x-mnote-role') };
}

/** A context frozen for `user` (their command hands off to Hermes), then fetched through the tool route. */
async function contextFor(user, doc) {
  const command = await sendJson(`${url}/api/page-ai/command`, 'POST', { documentId: doc, prompt: 'what is this page about?', scope: { type: 'full' } }, headersOf(user));
  assert.equal(command.status, 200, command.text);
  const fetched = await toolCall(url, 'doc_fetch', { documentId: doc, scope: { type: 'full' }, contextId: command.body.contextId });
  assert.equal(fetched.status, 200, fetched.text);
  return fetched.body.result;
}

describe('the preview for a role is the server dry-run for that person', () => {
  test('viewer and editor: the package preview with the role gives the server dry-run JSON', async () => {
    const doc = fresh('role_parity').replaceAll('.', '_');
    const blocks = [
      { blockId: 'p_1', type: 'paragraph', text: '第一版计划 is rough.' },
      { blockId: 'p_2', type: 'paragraph', text: 'Risks follow.' },
    ];
    const made = await sendJson(`${url}/api/documents/${doc}`, 'PUT', { workspaceId: 'ws_a', blocks }, headersOf('ana'));
    assert.equal(made.status, 200, made.text);
    const blocked = {};
    for (const user of ['vic', 'eve', 'ana']) {
      const { page, role } = await read(user, doc);
      assert.equal(role, USERS[user].role, `the GET names ${user}'s role`);
      const context = await contextFor(user, doc);
      const args = {
        documentId: doc,
        contextId: context.contextId,
        baseRevision: page.revision,
        operations: [{ op: 'replace', blockId: 'p_1', matchText: '第一版', content: '第二版' }],
        dryRun: true,
        idempotencyKey: fresh('k'),
      };
      const server = await toolCall(url, 'doc_apply_block_ops', args);
      assert.equal(server.status, 200, server.text);
      const session = new pageai.PageSession(page, { role });
      session.rememberContext(context);
      const { actor, at, toolCallId } = server.body.result.audit;
      const stamp = { origin: 'hermes', actor, at, toolCallId, profile };
      const local = session.preview({ toolName: 'doc_apply_block_ops', args }, stamp);
      assert.equal(JSON.stringify(local), JSON.stringify(server.body.result), `${user} (${role})`);
      blocked[role] = local.blocked;
      // Without the role the session previews for the owner: for a viewer that is not what the server does.
      const unaware = new pageai.PageSession(page);
      unaware.rememberContext(context);
      const owners = unaware.preview({ toolName: 'doc_apply_block_ops', args }, stamp);
      assert.equal(JSON.stringify(owners) === JSON.stringify(server.body.result), role !== 'viewer', `${user} without the role`);
      session.free();
      unaware.free();
    }
    assert.deepEqual(blocked, { viewer: true, editor: false, owner: false });
    const stored = await fetchJson(`${url}/api/documents/${doc}`, { headers: headersOf('ana') });
    assert.deepEqual(stored.body.blocks.map((b) => b.text), blocks.map((b) => b.text), 'dry-runs wrote nothing');
  });

  test('the single user owns the implicit workspace: the GET names owner', async () => {
    const doc = fresh('role_single').replaceAll('.', '_');
    const made = await sendJson(`${url}/api/documents/${doc}`, 'PUT', { blocks: [{ blockId: 'p_1', type: 'paragraph', text: 'x' }] });
    assert.equal(made.status, 200, made.text);
    const res = await fetch(`${url}/api/documents/${doc}`, { headers: { authorization: worker.auth.authorization } });
    assert.equal(res.headers.get('x-mnote-role'), 'owner');
  });
});
