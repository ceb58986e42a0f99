// End-to-end: workspaces and roles on every route (issue 18, items 2 and 3, finding 2). Users sign in with
// signed tokens made by the test: ana owns ws_a, bob owns ws_b, eve edits ws_a, vic views ws_a. Another
// workspace's page answers exactly as a missing one; a viewer reads and proposes, never writes or
// accepts; Hermes' tool calls (reads and writes) act for the person whose context they name, and every AI
// write names one.
//
//   node --test --test-concurrency=1 tests/e2e/workspaces.test.mjs

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { makeKeys } from './lib/identity.mjs';
import { bearers, peopleSuite } from './lib/people.mjs';
import { fetchJson, fresh, mcp, replaceArgs, sendJson, toolCall } from './lib/mnote.mjs';
import { assertCodedError } from './lib/wrangler.mjs';

const keys = makeKeys();
const USERS = bearers(keys, {
  ana: ['user_ana', { ws_a: 'owner' }],
  bob: ['user_bob', { ws_b: 'owner' }],
  eve: ['user_eve', { ws_a: 'editor' }],
  vic: ['user_vic', { ws_a: 'viewer' }],
});

const HERMES_KEY = 'hk-workspaces-e2e-0123456789abcdef';

let url;
let hermes; // the scripted Hermes double (tests/hermes/double.mjs)
let as; // as(user, method, path, body)
peopleSuite({ keys, hermesKey: HERMES_KEY, users: USERS }, (ready) => ({ url, hermes, as } = ready));


const paragraphs = (texts) => texts.map((text, i) => ({ blockId: `p_${i + 1}`, type: 'paragraph', text }));

/** A page `user` makes (in their only workspace); answers its id. */
async function pageOf(user, texts = ['The plan is short.', 'Risks follow.']) {
  const id = fresh(`ws_${user}`).replaceAll('.', '_');
  const res = await as(user, 'PUT', `/api/documents/${id}`, { blocks: paragraphs(texts) });
  assert.equal(res.status, 200, res.text);
  return id;
}

/** A context frozen for `user` on `doc` (a page-AI command that hands off to Hermes): its id. */
async function contextOf(user, doc) {
  const res = await as(user, 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'what is this page about?', scope: { type: 'full' } });
  assert.equal(res.status, 200, res.text);
  assert.ok(res.body.contextId, res.text);
  return res.body.contextId;
}

const text = async (doc, user = 'ana') => (await as(user, 'GET', `/api/documents/${doc}`)).body.blocks.map((b) => b.text);

describe('two users in two workspaces', () => {
  test('a page belongs to the workspace it was made in, and records its maker as the audit actor', async () => {
    const doc = await pageOf('ana');
    const page = await as('ana', 'GET', `/api/documents/${doc}`);
    assert.equal(page.body.workspaceId, 'ws_a');
    const log = await as('ana', 'GET', `/api/documents/${doc}/audit`);
    assert.equal(log.body.entries.at(-1).actor, 'user_ana');
    const moved = await as('ana', 'PUT', `/api/documents/${doc}`, { workspaceId: 'ws_b', blocks: paragraphs(['x']) });
    assertCodedError(moved, 400, 'mnote_invalid_arguments');
  });

  test("every route answers another workspace's page exactly as a missing one", async () => {
    const doc = await pageOf('ana');
    const missing = fresh('never_made').replaceAll('.', '_');
    const context = await contextOf('ana', doc);
    const routes = (id) => [
      ['GET', `/api/documents/${id}`],
      ['PUT', `/api/documents/${id}`, { blocks: paragraphs(['taken over']) }],
      ['PATCH', `/api/documents/${id}/blocks`, { baseRevision: 1, idempotencyKey: fresh('k'), operations: [{ op: 'update', blockId: 'p_1', text: 'x' }] }],
      ['GET', `/api/documents/${id}/audit`],
      ['GET', `/api/documents/${id}/audit/verify`],
      ['GET', `/api/documents/${id}/events`],
      ['GET', `/api/documents/${id}/review-sessions`],
      ['POST', '/api/page-ai/command', { documentId: id, prompt: 'replace "plan" with "roadmap"', scope: { type: 'full' } }],
    ];
    const [theirs, none] = [routes(doc), routes(missing)];
    for (let i = 0; i < theirs.length; i++) {
      const [method, path, body] = theirs[i];
      const got = await as('bob', method, path, body);
      // A PUT of a missing page makes it, so the "missing" twin of a PUT is not compared.
      if (method === 'PUT') {
        assertCodedError(got, 404, 'mnote_document_not_found');
        continue;
      }
      const twin = await as('bob', none[i][0], none[i][1], none[i][2]);
      assertCodedError(got, 404, 'mnote_document_not_found');
      assertCodedError(twin, 404, 'mnote_document_not_found');
      assert.equal(got.body.message.replace(doc, 'ID'), twin.body.message.replace(missing, 'ID'), `${method} ${path}`);
    }
    // Her review sessions and the context's writes stay hers.
    const held = await toolCall(url, 'doc_apply_block_ops', replaceArgs(doc, 1, { blockId: 'p_1', matchText: 'plan', content: 'roadmap', dryRun: true, contextId: context }));
    assert.equal(held.status, 200, held.text);
    const sessionId = held.body.reviewSession.sessionId;
    assertCodedError(await as('bob', 'GET', `/api/page-ai/review-sessions/${sessionId}`), 404, 'mnote_document_not_found');
    assertCodedError(await as('bob', 'POST', `/api/page-ai/review-sessions/${sessionId}/accept`, { idempotencyKey: fresh('k') }), 404, 'mnote_document_not_found');
    assert.deepEqual(await text(doc), ['The plan is short.', 'Risks follow.']);
  });

  test("the tool route and MCP act for the context's person: another user's context opens nothing", async () => {
    const docA = await pageOf('ana');
    const docB = await pageOf('bob');
    const bobs = await contextOf('bob', docB);
    const anas = await contextOf('ana', docA);
    const write = (doc, contextId) => replaceArgs(doc, 1, { blockId: 'p_1', matchText: 'plan', content: 'HIJACKED', contextId });
    for (const contextId of [bobs, anas + '_forged']) {
      assertCodedError(await toolCall(url, 'doc_apply_block_ops', write(docA, contextId)), 404, 'mnote_document_not_found');
      const viaMcp = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: write(docA, contextId) });
      assert.equal(viaMcp.body.result?.isError, false, viaMcp.text);
      assert.equal(viaMcp.body.result.structuredContent.code, 'mnote_document_not_found');
      assert.match(viaMcp.text, /mnote_document_not_found/);
    }
    // Without a context, the tool token reaches only the single user's workspace.
    assertCodedError(await toolCall(url, 'doc_fetch', { documentId: docA, scope: { type: 'full' } }), 404, 'mnote_document_not_found');
    // Her own context writes (held for review: the profile's default mode).
    const own = await toolCall(url, 'doc_apply_block_ops', { ...write(docA, anas), dryRun: true });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.reviewSession.state, 'awaiting_user');
    assert.deepEqual(await text(docA), ['The plan is short.', 'Risks follow.']);
    assert.deepEqual(await text(docB, 'bob'), ['The plan is short.', 'Risks follow.']);
  });

  test("a read naming the run's context acts for its person: the tool route and MCP read another workspace's page", async () => {
    const docA = await pageOf('ana');
    const docB = await pageOf('bob');
    const anas = await contextOf('ana', docA);
    const bobs = await contextOf('bob', docB);
    const reads = (doc, contextId) => [
      ['doc_fetch', { documentId: doc, scope: { type: 'full' }, contextId }],
      ['block_fetch', { documentId: doc, blockIds: ['p_1'], contextId }],
      ['doc_search', { documentId: doc, query: 'plan', contextId }],
    ];
    for (const [name, args] of reads(docA, anas)) {
      const viaRoute = await toolCall(url, name, args);
      assert.equal(viaRoute.status, 200, `${name}: ${viaRoute.text}`);
      assert.match(JSON.stringify(viaRoute.body.result), /The plan is short\./, name);
      const viaMcp = await mcp(url, 'tools/call', { name, arguments: args });
      assert.equal(viaMcp.body.result?.isError, false, viaMcp.text);
      assert.match(viaMcp.body.result.content[0].text, /The plan is short\./, name);
    }
    // The context her read froze is hers too: a write naming it is held for her (the default review mode).
    const fetched = await toolCall(url, 'doc_fetch', { documentId: docA, scope: { type: 'full' }, contextId: anas });
    const held = await toolCall(url, 'doc_apply_block_ops', replaceArgs(docA, 1, { blockId: 'p_1', matchText: 'plan', content: 'roadmap', dryRun: true, contextId: fetched.body.result.contextId }));
    assert.equal(held.status, 200, held.text);
    assert.equal(held.body.reviewSession.state, 'awaiting_user');
    // Bob's context (of his page in ws_b), or a forged one, opens nothing of ws_a: the page answers as if
    // it did not exist, exactly as a write naming the same context gets.
    for (const contextId of [bobs, anas + '_forged']) {
      for (const [name, args] of reads(docA, contextId)) {
        assertCodedError(await toolCall(url, name, args), 404, 'mnote_document_not_found');
        const viaMcp = await mcp(url, 'tools/call', { name, arguments: args });
        assert.equal(viaMcp.body.result?.isError, false, viaMcp.text);
        assert.match(viaMcp.text, /mnote_document_not_found/);
      }
    }
    // Without a context, reads act as today: the single user, who has no role in ws_a.
    assertCodedError(await toolCall(url, 'block_fetch', { documentId: docA, blockIds: ['p_1'] }), 404, 'mnote_document_not_found');
    // On the single user's page a context it never froze is refused with the write's code.
    const single = fresh('single_read').replaceAll('.', '_');
    assert.equal((await sendJson(`${url}/api/documents/${single}`, 'PUT', { blocks: paragraphs(['The plan is short.']) })).status, 200);
    assert.equal((await toolCall(url, 'doc_fetch', { documentId: single, scope: { type: 'full' } })).status, 200, 'an old call stays valid');
    const unknown = await toolCall(url, 'doc_fetch', { documentId: single, scope: { type: 'full' }, contextId: anas });
    assertCodedError(unknown, 404, 'mnote_context_not_found');
    const write = await toolCall(url, 'doc_apply_block_ops', replaceArgs(single, 1, { blockId: 'p_1', matchText: 'plan', content: 'x', dryRun: true, contextId: anas }));
    assertCodedError(write, 404, 'mnote_context_not_found');
    assert.deepEqual(await text(docA), ['The plan is short.', 'Risks follow.']);
  });

  test('an AI write that names no context is refused with mnote_context_required, on both tool routes', async () => {
    const doc = fresh('single').replaceAll('.', '_');
    // The single user's page (client token), which a context-less tool call can reach.
    const made = await sendJson(`${url}/api/documents/${doc}`, 'PUT', { blocks: paragraphs(['The plan is short.']) });
    assert.equal(made.status, 200, made.text);
    const args = replaceArgs(doc, 1, { blockId: 'p_1', matchText: 'plan', content: 'roadmap' });
    assertCodedError(await toolCall(url, 'doc_apply_block_ops', args, { bare: true }), 400, 'mnote_context_required');
    const viaMcp = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: args }, { bare: true });
    assert.match(viaMcp.text, /mnote_context_required/);
    const page = await fetchJson(`${url}/api/documents/${doc}`);
    assert.deepEqual(page.body.blocks.map((b) => b.text), ['The plan is short.']);
  });
});

describe('Hermes sessions', () => {
  test("a user's Hermes sessions are theirs: another user of the same page neither lists nor reads them", async () => {
    const doc = await pageOf('ana');
    const made = await as('ana', 'POST', '/api/hermes/client/sessions', { documentId: doc, title: 'ana asks' });
    assert.equal(made.status, 200, made.text);
    const sessionId = made.body.sessionId;
    const list = (user) => as(user, 'GET', `/api/hermes/client/sessions?documentId=${doc}`);
    assert.deepEqual((await list('ana')).body.sessions.map((s) => s.id ?? s.sessionId), [sessionId]);
    const eves = await list('eve');
    assert.equal(eves.status, 200, eves.text);
    assert.deepEqual(eves.body.sessions, [], 'eve edits the page, but the session is not hers');
    assert.equal((await as('ana', 'GET', `/api/hermes/client/sessions/${sessionId}`)).status, 200);
    assertCodedError(await as('eve', 'GET', `/api/hermes/client/sessions/${sessionId}`), 400, 'hermes_client_bad_request');
    const run = { documentId: doc, sessionId, message: 'hello' };
    assertCodedError(await as('eve', 'POST', '/api/hermes/client/runs', run), 400, 'hermes_client_bad_request');
    // Bob does not see the page at all.
    assertCodedError(await list('bob'), 404, 'mnote_document_not_found');
    assertCodedError(await as('bob', 'POST', '/api/hermes/client/sessions', { documentId: doc }), 404, 'mnote_document_not_found');
    // Nor can he run in a session of it: none is his, and he cannot make one.
    assertCodedError(await as('bob', 'POST', '/api/hermes/client/runs', run), 400, 'hermes_client_bad_request');
    assertCodedError(await as('bob', 'POST', '/api/hermes/client/runs', { ...run, sessionId: sessionId.replace(/_[^_]+$/, '_bobs') }), 400, 'hermes_client_bad_request');
  });
});

describe('viewer, editor and owner', () => {
  test('what each role may do with a page', async () => {
    const doc = await pageOf('ana');
    const put = (user) => as(user, 'PUT', `/api/documents/${doc}`, { blocks: paragraphs(['The plan is short.', 'Risks follow.']) });
    const patch = (user, rev) =>
      as(user, 'PATCH', `/api/documents/${doc}/blocks`, { baseRevision: rev, idempotencyKey: fresh('k'), operations: [{ op: 'update', blockId: 'p_2', text: `Risks, by ${user}.` }] });
    for (const user of ['vic', 'eve', 'ana']) {
      for (const path of ['', '/audit', '/audit/verify', '/events', '/review-sessions']) {
        assert.equal((await as(user, 'GET', `/api/documents/${doc}${path}`)).status, 200, `${user} reads ${path}`);
      }
    }
    const refused = assertCodedError(await put('vic'), 403, 'mnote_role_forbidden');
    assert.deepEqual(refused.details, { act: 'write', role: 'viewer' });
    assertCodedError(await patch('vic', 1), 403, 'mnote_role_forbidden');
    assert.equal((await put('eve')).status, 200);
    const edited = await patch('eve', 2);
    assert.equal(edited.status, 200, edited.text);
    assert.equal((await put('ana')).status, 200);
    const log = (await as('ana', 'GET', `/api/documents/${doc}/audit`)).body.entries.map((e) => e.actor);
    assert.deepEqual(log.slice(-3), ['user_eve', 'user_eve', 'user_ana'], 'the audit names each person');
  });

  test("a viewer's AI writes are proposals that never land; an editor accepts them", async () => {
    // In yolo mode (ws_a's profile, set by its owner) an editor's AI write lands at once; a viewer's never does.
    const yolo = await as('ana', 'PUT', '/api/profile?workspaceId=ws_a', { tools: { disabled: [] }, reviewMode: 'yolo' });
    assert.equal(yolo.status, 200, yolo.text);
    const doc = await pageOf('ana');
    const edited = await toolCall(url, 'doc_apply_block_ops', replaceArgs(doc, 1, { blockId: 'p_2', matchText: 'Risks', content: 'Known risks', contextId: await contextOf('eve', doc) }));
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.result.blocked, false, edited.text);
    assert.deepEqual(await text(doc), ['The plan is short.', 'Known risks follow.']);
    const context = await contextOf('vic', doc);
    const write = await toolCall(url, 'doc_apply_block_ops', replaceArgs(doc, 2, { blockId: 'p_1', matchText: 'plan', content: 'roadmap', contextId: context }));
    assert.equal(write.status, 200, write.text);
    assert.equal(write.body.result.blocked, true, write.text);
    assert.equal(write.body.reviewSession.state, 'awaiting_user');
    const shortcut = await as('vic', 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'replace "risks" with "dangers"', scope: { type: 'full' }, mode: 'yolo' });
    assert.equal(shortcut.status, 200, shortcut.text);
    assert.notEqual(shortcut.body.outcome, 'applied', shortcut.text);
    assert.deepEqual(await text(doc), ['The plan is short.', 'Known risks follow.'], 'nothing landed');
    const sessionId = write.body.reviewSession.sessionId;
    const accept = (user) => as(user, 'POST', `/api/page-ai/review-sessions/${sessionId}/accept`, { idempotencyKey: fresh('k') });
    assertCodedError(await accept('vic'), 403, 'mnote_role_forbidden');
    assert.equal((await as('vic', 'GET', `/api/page-ai/review-sessions/${sessionId}`)).status, 200, 'a viewer still reads it');
    const accepted = await accept('eve');
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(await text(doc), ['The roadmap is short.', 'Known risks follow.']);
    const last = (await as('ana', 'GET', `/api/documents/${doc}/audit`)).body.entries.at(-1);
    assert.equal(last.actor, 'user_eve', 'the accepting person is the actor');
  });

  test('only an owner of the profile’s workspace changes the profile', async () => {
    const current = (await as('ana', 'GET', '/api/profile')).body.profile;
    for (const user of ['vic', 'eve']) assertCodedError(await as(user, 'PUT', '/api/profile', current), 403, 'mnote_role_forbidden');
    // Each owner changes their own workspace's (tests/e2e/workspace_profiles.test.mjs covers the rest).
    assert.equal((await as('ana', 'PUT', '/api/profile', current)).status, 200);
    assertCodedError(await as('bob', 'PUT', '/api/profile?workspaceId=ws_a', current), 404, 'mnote_workspace_not_found');
    // The single user owns the implicit workspace whose profile it is.
    assert.equal((await sendJson(`${url}/api/profile`, 'PUT', current)).status, 200);
  });
});
