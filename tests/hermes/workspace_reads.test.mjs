// End-to-end with the REAL Hermes Agent (hermes-agent 0.19.0, over MCP, with a scripted model): a person of
// a workspace other than the implicit one starts a run through the Worker's proxy, and Hermes reads their
// page with `doc_fetch` naming the run's `contextId` (the instructions tell it to), then writes naming the
// same context. The read acts for the person the context was made for, so it opens their page (without
// the context the tool token reaches only the implicit workspace, and the page answers as missing); the
// write carries at most their rights: in yolo mode an editor's lands, a viewer's is held for review and the
// page is unchanged (issue 18 item 3).
//
//   node --experimental-websocket --test --test-concurrency=1 tests/hermes/workspace_reads.test.mjs

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { freePort, startWorker } from '../e2e/lib/wrangler.mjs';
import { readEvents } from '../e2e/lib/sse.mjs';
import { TOOL_TOKEN, TOOL_VARS, fresh, setProfile } from '../e2e/lib/mnote.mjs';
import { claims, jwkSet, jwtVars, makeKeys, sign } from '../e2e/lib/identity.mjs';
import { hermesInstalled, startHermes, HERMES_BIN } from './lib/hermes.mjs';
import { startModelServer, toolResults } from './lib/model_server.mjs';

const tool = (name) => `mcp__mnote__${name}`;
const keys = makeKeys();
const person = (sub, role) => ({ authorization: `Bearer ${sign(keys.es, claims({ sub, workspaces: { ws_team: role } }))}` });
const OWNER = person('user_olga', 'owner');
const EDITOR = person('user_eve', 'editor');
const VIEWER = person('user_vic', 'viewer');

let worker;
let model;
let hermes;
let persist;

before(async () => {
  assert.ok(hermesInstalled(), `the Hermes venv is missing (${HERMES_BIN}); run scripts/setup`);
  // Hermes needs the Worker's /mcp and the Worker needs Hermes' URL: the Worker is started on a port
  // chosen first, without Hermes, then again on the same port and state with it.
  const port = await freePort();
  persist = await mkdtemp(join(tmpdir(), 'mnote-workspace-reads-'));
  const vars = { ...TOOL_VARS, ...jwtVars(jwkSet(keys)), MNOTE_SIGN_IN_FREE_FAILURES: '10000' };
  worker = await startWorker({ port, persistTo: persist, vars });
  // In yolo mode an editor's write lands at once: only the role can hold it.
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'yolo' }, { workspaceId: 'ws_team', headers: { ...OWNER, origin: worker.url } });
  model = await startModelServer();
  hermes = await startHermes({ mcp: { url: `${worker.url}/mcp`, toolToken: TOOL_TOKEN }, modelUrl: model.url, modelId: model.modelId });
  await worker.stop();
  worker = await startWorker({ port, persistTo: persist, vars: { ...vars, HERMES_UPSTREAM_URL: hermes.url, HERMES_API_KEY: hermes.key } });
});

after(async () => {
  await hermes?.stop();
  await model?.stop();
  await worker?.stop();
  if (persist) await rm(persist, { recursive: true, force: true });
});

/** `who`'s JSON request to the Worker. */
async function send(path, method, body, who) {
  const headers = { 'content-type': 'application/json', origin: worker.url, ...who };
  const res = await fetch(`${worker.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

/**
 * `who` asks Hermes, through the proxy, to polish paragraph p_a of `doc`; the scripted model reads the
 * page with doc_fetch naming the run's contextId (from the instructions), then replaces a word naming it.
 * Answers the tool results the model saw and the run's last event.
 */
async function polishAs(who, doc, word) {
  let contextId;
  model.script = (req) => {
    const results = toolResults(req);
    contextId ??= JSON.stringify(req.messages ?? []).match(/contextId: (ctx_[A-Za-z0-9_-]+)/)?.[1];
    if (results.length === 0) {
      return { toolCalls: [{ name: tool('doc_fetch'), arguments: { documentId: doc, contextId, scope: { type: 'full' }, formats: ['json'] } }] };
    }
    if (results.length === 1) {
      const revision = results[0].mnote?.revision ?? 0;
      return {
        toolCalls: [{
          name: tool('doc_apply_block_ops'),
          arguments: {
            documentId: doc,
            contextId,
            baseRevision: revision,
            dryRun: false,
            idempotencyKey: fresh('hermes_polish'),
            operations: [{ op: 'replace', blockId: 'p_a', matchText: 'rough', content: word }],
          },
        }],
      };
    }
    return { text: 'Done.' };
  };
  const first = model.requests.length;
  const made = await send('/api/hermes/client/sessions', 'POST', { documentId: doc, title: 'polish' }, who);
  assert.equal(made.status, 200, made.text);
  const sessionId = made.body.sessionId;
  const run = await send('/api/hermes/client/runs', 'POST', { documentId: doc, sessionId, message: 'Polish the plan paragraph.' }, who);
  assert.equal(run.status, 200, run.text);
  const events = await readEvents(`${worker.url}/api/hermes/client/events/${run.body.runId}?sessionId=${sessionId}`, {
    headers: who,
    timeoutMs: 180_000,
    stopWhen: (e) => ['run.completed', 'run.failed', 'run.cancelled'].includes(e.data?.event),
  });
  const last = events.events.at(-1);
  assert.equal(last?.data?.event, 'run.completed', `run ended ${JSON.stringify(last)}\n${hermes.logs().slice(-2000)}`);
  const requests = model.requests.slice(first).filter((r) => Array.isArray(r.tools) && r.tools.length);
  assert.ok(contextId, 'the instructions named the run\'s contextId');
  const said = JSON.stringify(requests[0].messages);
  assert.match(said, /Pass this contextId to every mnote tool call, reads/, 'the instructions ask for it on reads');
  return { results: toolResults(requests.at(-1)), contextId };
}

const texts = async (doc) => (await send(`/api/documents/${doc}`, 'GET', undefined, OWNER)).body.blocks.map((b) => b.text);

describe("real Hermes reads a page of the person's own workspace", () => {
  test("an editor's run: doc_fetch with the run's contextId reads the page, and the write lands", { timeout: 600_000 }, async () => {
    const doc = fresh('hermes_ws_editor').replaceAll('.', '_');
    const blocks = [
      { blockId: 'p_a', type: 'paragraph', text: 'Our plan is rough.' },
      { blockId: 'p_b', type: 'paragraph', text: 'The team ships weekly.' },
    ];
    assert.equal((await send(`/api/documents/${doc}`, 'PUT', { workspaceId: 'ws_team', blocks }, OWNER)).status, 200);
    const { results } = await polishAs(EDITOR, doc, 'polished');
    const [read, write] = results;
    assert.equal(read.isError, false, read.content.slice(0, 400));
    assert.equal(read.mnote.documentId, doc);
    assert.deepEqual(read.mnote.blocks.map((b) => b.text), ['Our plan is rough.', 'The team ships weekly.']);
    assert.equal(write.isError, false, write.content.slice(0, 400));
    assert.equal(write.mnote.blocked, false, write.content.slice(0, 600));
    assert.deepEqual(await texts(doc), ['Our plan is polished.', 'The team ships weekly.']);
  });

  test("a viewer's run: the same read works, and the write is only a proposal", { timeout: 600_000 }, async () => {
    const doc = fresh('hermes_ws_viewer').replaceAll('.', '_');
    const blocks = [{ blockId: 'p_a', type: 'paragraph', text: 'Our plan is rough.' }];
    assert.equal((await send(`/api/documents/${doc}`, 'PUT', { workspaceId: 'ws_team', blocks }, OWNER)).status, 200);
    const { results } = await polishAs(VIEWER, doc, 'hijacked');
    const [read, write] = results;
    assert.equal(read.isError, false, read.content.slice(0, 400));
    assert.deepEqual(read.mnote.blocks.map((b) => b.text), ['Our plan is rough.']);
    assert.equal(write.mnote?.blocked, true, write.content.slice(0, 600));
    assert.match(write.mnote.blockedReason, /viewer/);
    assert.ok(write.mnote.warnings.some((w) => w.code === 'review_pending'));
    assert.deepEqual(await texts(doc), ['Our plan is rough.'], 'the page is unchanged');
  });
});
