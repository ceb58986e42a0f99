// End-to-end: a profile per workspace (issue 18, item 2: "an owner also changes that workspace's profile").
// Users sign in with signed tokens made by the test: ana owns ws_a, bob owns ws_b, eve edits ws_a, vic views
// ws_a, ida owns ws_a and views ws_b. `GET/PUT /api/profile?workspaceId=…` read and change one workspace's
// profile (no workspace named: the caller's only one, else the implicit ws_local); any role reads, only the
// owner changes it, and a workspace the caller holds no role in answers as if it did not exist. A change
// takes effect at once on every page of that workspace (tool calls, and the run a page starts in Hermes)
// and on no page of another. The single user (client token) keeps ws_local's profile as before.
//
//   node --test --test-concurrency=1 tests/e2e/workspace_profiles.test.mjs

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { makeKeys } from './lib/identity.mjs';
import { bearers, peopleSuite } from './lib/people.mjs';
import { fresh, mcp, replaceArgs, toolCall } from './lib/mnote.mjs';
import { assertCodedError } from './lib/wrangler.mjs';

const keys = makeKeys();
const USERS = bearers(keys, {
  ana: ['user_ana', { ws_a: 'owner' }],
  bob: ['user_bob', { ws_b: 'owner' }],
  eve: ['user_eve', { ws_a: 'editor' }],
  vic: ['user_vic', { ws_a: 'viewer' }],
  ida: ['user_ida', { ws_a: 'owner', ws_b: 'viewer' }],
});

const HERMES_KEY = 'hk-workspace-profiles-0123456789ab';
const REVIEW = { tools: { disabled: [] }, reviewMode: 'review' };
const YOLO = { tools: { disabled: [] }, reviewMode: 'yolo' };

let url;
let hermes; // the scripted Hermes double (tests/hermes/double.mjs)
let as; // as(user, method, path, body)
peopleSuite({ keys, hermesKey: HERMES_KEY, users: USERS }, (ready) => ({ url, hermes, as } = ready));


/** `user` stores `profile` as the profile of `workspace` (their default one when not named). */
async function setProfileOf(user, profile, workspace) {
  const res = await as(user, 'PUT', workspace ? `/api/profile?workspaceId=${workspace}` : '/api/profile', profile);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const paragraphs = (texts) => texts.map((text, i) => ({ blockId: `p_${i + 1}`, type: 'paragraph', text }));

/** A page `user` makes (in their only workspace, or `workspaceId`); answers its id. */
async function pageOf(user, workspaceId) {
  const id = fresh(`wp_${user}`).replaceAll('.', '_');
  const body = { blocks: paragraphs(['The plan is short.', 'Risks follow.']), ...(workspaceId ? { workspaceId } : {}) };
  const res = await as(user, 'PUT', `/api/documents/${id}`, body);
  assert.equal(res.status, 200, res.text);
  return id;
}

/**
 * A context frozen for `user` on `doc`: a page-AI command that hands off to Hermes (so the document object
 * takes its copy of the profile, and a run starts). Answers the context id and the run's instructions.
 */
async function runOf(user, doc) {
  const res = await as(user, 'POST', '/api/page-ai/command', { documentId: doc, prompt: 'what is this page about?', scope: { type: 'full' } });
  assert.equal(res.status, 200, res.text);
  assert.ok(res.body.contextId, res.text);
  assert.equal(res.body.hermesRun?.started, true, res.text);
  return { contextId: res.body.contextId, instructions: hermes.last('POST /v1/runs').body.instructions };
}

/**
 * An AI write (the tool route, or MCP) of `doc` naming `contextId` (none: the helper fetches one, for the
 * single user's page): answers what the call's result says, a review session's state or an error code.
 */
async function writeOutcome(doc, contextId, { overMcp = false } = {}) {
  const args = replaceArgs(doc, 1, { blockId: 'p_2', matchText: 'Risks', content: 'Known risks', contextId });
  if (overMcp) {
    const res = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: args });
    assert.equal(res.status, 200, res.text);
    const body = JSON.parse(res.body.result.content[0].text);
    // A refusal is an ordinary result with the coded body (isError is only for server faults).
    if (body.ok === false) return body.code;
    return body.reviewSession?.state ?? (body.blocked ? 'held' : 'applied');
  }
  const res = await toolCall(url, 'doc_apply_block_ops', args);
  if (res.status !== 200) return res.body.code;
  return res.body.reviewSession.state;
}

describe("an owner changes that workspace's profile, and only that one", () => {
  test('a review mode set for ws_a takes effect at once on a ws_a page, and not on a ws_b page or ws_local', async () => {
    await setProfileOf('ana', REVIEW);
    await setProfileOf('bob', REVIEW);
    await setProfileOf('single', REVIEW);
    const [docA, docB, docLocal] = [await pageOf('ana'), await pageOf('bob'), await pageOf('single')];
    // Each page's object takes its copy of its workspace's profile now: the change below is pushed to it.
    const [anas, bobs] = [await runOf('ana', docA), await runOf('bob', docB)];
    assert.match(anas.instructions, /reviewMode: review/);

    const stored = await setProfileOf('ana', YOLO);
    assert.equal(stored.profile.reviewMode, 'yolo');
    assert.equal((await as('ana', 'GET', '/api/profile?workspaceId=ws_a')).body.profile.reviewMode, 'yolo');

    assert.equal(await writeOutcome(docA, anas.contextId), 'applied', 'ws_a follows at once');
    assert.deepEqual((await as('ana', 'GET', `/api/documents/${docA}`)).body.blocks.map((b) => b.text), ['The plan is short.', 'Known risks follow.']);
    assert.equal(await writeOutcome(docB, bobs.contextId), 'awaiting_user', 'ws_b keeps its own review mode');
    assert.deepEqual((await as('bob', 'GET', `/api/documents/${docB}`)).body.blocks.map((b) => b.text), ['The plan is short.', 'Risks follow.']);
    // A context-less read of the single user's page, then its write: ws_local kept review too.
    assert.equal(await writeOutcome(docLocal, undefined), 'awaiting_user', 'ws_local keeps its own review mode');
    assert.equal((await as('single', 'GET', '/api/profile')).body.profile.reviewMode, 'review');
    assert.equal((await as('bob', 'GET', '/api/profile')).body.profile.reviewMode, 'review');

    // A run a page starts follows its workspace's profile, with no other object asked.
    assert.match((await runOf('ana', docA)).instructions, /reviewMode: yolo/);
    assert.match((await runOf('bob', docB)).instructions, /reviewMode: review/);
    await setProfileOf('ana', REVIEW);
  });

  test('a tool disabled in ws_a is refused at once on a ws_a page (tool route and MCP), and not on a ws_b page', async () => {
    await setProfileOf('ana', YOLO);
    await setProfileOf('bob', YOLO);
    const [docA, docB] = [await pageOf('ana'), await pageOf('bob')];
    const [anas, bobs] = [await runOf('ana', docA), await runOf('bob', docB)];

    await setProfileOf('ana', { tools: { disabled: ['doc_apply_block_ops'] }, reviewMode: 'yolo' });
    assert.equal(await writeOutcome(docA, anas.contextId), 'mnote_tool_disabled');
    assert.equal(await writeOutcome(docA, anas.contextId, { overMcp: true }), 'mnote_tool_disabled');
    assert.equal(await writeOutcome(docB, bobs.contextId, { overMcp: true }), 'applied', 'ws_b keeps the tool');
    assert.deepEqual((await as('ana', 'GET', `/api/documents/${docA}`)).body.blocks.map((b) => b.text), ['The plan is short.', 'Risks follow.']);

    // The tool listings of a person follow their workspace too.
    const listed = async (user) => (await as(user, 'GET', '/api/hermes/client/tools')).body.tools.map((t) => t.name);
    assert.ok(!(await listed('ana')).includes('mnote.doc.apply_block_ops'));
    assert.ok((await listed('bob')).includes('mnote.doc.apply_block_ops'));
    assert.ok(!(await listed('vic')).includes('mnote.doc.apply_block_ops'), "vic reads ws_a's");
    // A run of a ws_a page no longer offers it; one of a ws_b page does.
    assert.match((await runOf('ana', docA)).instructions, /- mnote\.doc\.apply_block_ops is unavailable/);
    assert.match((await runOf('bob', docB)).instructions, /- mnote\.doc\.apply_block_ops \(mcp__mnote__doc_apply_block_ops\)/);
    await setProfileOf('ana', REVIEW);
    await setProfileOf('bob', REVIEW);
  });
});

describe('who may read and change a workspace profile', () => {
  test('any role reads it; an editor or a viewer who changes it is refused with mnote_role_forbidden', async () => {
    const owned = await setProfileOf('ana', { tools: { disabled: ['doc_search'] }, reviewMode: 'required' });
    for (const user of ['eve', 'vic']) {
      const read = await as(user, 'GET', '/api/profile');
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.body, owned, `${user} reads ws_a's profile`);
    }
    const refused = assertCodedError(await as('eve', 'PUT', '/api/profile', YOLO), 403, 'mnote_role_forbidden');
    assert.deepEqual(refused.details, { act: 'change_profile', role: 'editor' });
    const viewer = assertCodedError(await as('vic', 'PUT', '/api/profile?workspaceId=ws_a', YOLO), 403, 'mnote_role_forbidden');
    assert.deepEqual(viewer.details, { act: 'change_profile', role: 'viewer' });
    // ida views ws_b: she reads it, and may not change it, though she owns ws_a.
    assert.equal((await as('ida', 'GET', '/api/profile?workspaceId=ws_b')).status, 200);
    assertCodedError(await as('ida', 'PUT', '/api/profile?workspaceId=ws_b', YOLO), 403, 'mnote_role_forbidden');
    assert.deepEqual((await as('ana', 'GET', '/api/profile')).body, owned, 'nothing changed');
    await setProfileOf('ana', REVIEW);
  });

  test('a workspace the caller holds no role in answers exactly as one that does not exist', async () => {
    for (const [method, body] of [['GET'], ['PUT', YOLO]]) {
      const theirs = assertCodedError(await as('bob', method, '/api/profile?workspaceId=ws_a', body), 404, 'mnote_workspace_not_found');
      const none = assertCodedError(await as('bob', method, '/api/profile?workspaceId=ws_nowhere', body), 404, 'mnote_workspace_not_found');
      assert.equal(theirs.message.replace('ws_a', 'ID'), none.message.replace('ws_nowhere', 'ID'), method);
      assert.deepEqual(theirs.details, { workspaceId: 'ws_a' });
      // Nor does the single user see another workspace's.
      assertCodedError(await as('single', method, '/api/profile?workspaceId=ws_a', body), 404, 'mnote_workspace_not_found');
    }
    assertCodedError(await as('bob', 'GET', '/api/hermes/client/tools?workspaceId=ws_a'), 404, 'mnote_workspace_not_found');
    // ida holds two workspaces: naming none means ws_local, where she holds no role.
    assertCodedError(await as('ida', 'GET', '/api/profile'), 404, 'mnote_workspace_not_found');
    assert.equal((await as('ana', 'GET', '/api/profile')).body.profile.reviewMode, 'review', 'ws_a unchanged');
  });

  test('single-user mode reads and changes the implicit workspace, as before', async () => {
    const before = await as('single', 'GET', '/api/profile');
    assert.equal(before.status, 200, before.text);
    assert.deepEqual(Object.keys(before.body).sort(), ['manifest', 'profile']);
    const changed = await setProfileOf('single', { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'required' });
    assert.deepEqual(changed.profile, { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'required' });
    assert.deepEqual((await as('single', 'GET', '/api/profile?workspaceId=ws_local')).body, changed);
    // MCP's tools/list (the tool token's own workspace) follows it; ws_a's is untouched.
    const list = await mcp(url, 'tools/list');
    assert.ok(!list.body.result.tools.some((t) => t.name === 'doc_search'), list.text);
    assert.equal((await as('ana', 'GET', '/api/profile')).body.profile.reviewMode, 'review');
    await setProfileOf('single', REVIEW);
  });
});
