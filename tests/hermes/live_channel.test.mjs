// End-to-end with the REAL Hermes Agent (hermes-agent 0.19.0, over MCP, with a scripted model) and the
// document's live channel: a second client, watching the page's socket, sees Hermes' tool calls as they
// happen and the `doc_plan_update` proposal (`review.updated`, awaiting the user) while the run is still
// going, before `run.completed`.
//
// A run started through the Worker's proxy (`POST /api/hermes/client/runs`) has its frozen context bound
// to its run id: the MCP tool calls that name that context are told on the channel with the run's id.
//
// The scripted model gives its final answer only once the watcher's socket has the proposal, so the run
// cannot complete first: if the proposal only reached the channel after the run, the run would never end
// and the test would fail on its bound.
//
//   node --experimental-websocket --test --test-concurrency=1 tests/hermes/live_channel.test.mjs

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { TEST_CLIENT_TOKEN, freePort, startWorker } from '../e2e/lib/wrangler.mjs';
import { TOOL_TOKEN, TOOL_VARS, fresh, putPage, setProfile } from '../e2e/lib/mnote.mjs';
import { hermesInstalled, startHermes, HERMES_BIN } from './lib/hermes.mjs';
import { startModelServer, toolResults } from './lib/model_server.mjs';

const tool = (name) => `mcp__mnote__${name}`;
const WAIT_FOR_PROPOSAL_MS = 120_000;

let worker;
let model;
let hermes;

before(async () => {
  assert.ok(hermesInstalled(), `the Hermes venv is missing (${HERMES_BIN}); run scripts/setup`);
  worker = await startWorker({ vars: TOOL_VARS });
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'review' });
  model = await startModelServer();
  hermes = await startHermes({ mcp: { url: `${worker.url}/mcp`, toolToken: TOOL_TOKEN }, modelUrl: model.url, modelId: model.modelId });
});

after(async () => {
  await hermes?.stop();
  await model?.stop();
  await worker?.stop();
});

/** A watcher on the document's channel; `until(pred)` resolves with the first message that matches. */
function watch(documentId) {
  const url = new URL(`/api/documents/${documentId}/live`, worker.url.replace(/^http/, 'ws'));
  const socket = new WebSocket(url.href, { headers: { authorization: `Bearer ${TEST_CLIENT_TOKEN}` } });
  const messages = [];
  const waiters = new Set();
  socket.onmessage = (event) => {
    if (event.data === 'pong') return;
    messages.push(JSON.parse(event.data));
    for (const waiter of waiters) waiter();
  };
  const until = (pred, ms) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not on the channel: ${JSON.stringify(messages.map((m) => m.kind))}`)), ms);
      const check = () => {
        const found = messages.find(pred);
        if (!found) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(found);
      };
      waiters.add(check);
      check();
    });
  return { messages, until, close: () => socket.close(1000, 'done') };
}

test("the plan_update proposal reaches a second client's socket before run.completed", { timeout: 600_000 }, async () => {
  const doc = fresh('hermes_live');
  await putPage(worker.url, doc, { p_x: 'The person is writing this paragraph.', p_y: 'The plan is rough.' });
  const watcher = watch(doc);
  await watcher.until((m) => m.kind === 'hello', 30_000);

  let seenBeforeAnswer = null;
  model.script = async (req) => {
    const results = toolResults(req);
    if (results.length === 0) {
      return { toolCalls: [{ name: tool('doc_fetch'), arguments: { documentId: doc, scope: { type: 'full' }, formats: ['json'] } }] };
    }
    if (results.length === 1) {
      const context = results[0].mnote;
      return {
        toolCalls: [{
          name: tool('doc_plan_update'),
          arguments: {
            documentId: doc,
            contextId: context.contextId,
            baseRevision: context.revision,
            idempotencyKey: fresh('hermes_plan'),
            summary: 'Say how the plan stands.',
            operations: [{ op: 'update', blockId: 'p_y', text: 'The plan is on track.' }],
          },
        }],
      };
    }
    // The run is still going (Hermes waits for this answer): the proposal must be on the channel now.
    seenBeforeAnswer = await watcher.until((m) => m.kind === 'review.updated', WAIT_FOR_PROPOSAL_MS);
    return { text: 'I proposed an update of the plan paragraph for your review.' };
  };
  const run = await hermes.run('Make the plan paragraph say how the plan stands.');
  assert.equal(run.status, 'run.completed', `run ended ${run.status}: ${JSON.stringify(run.error ?? run.events.at(-1))}`);
  assert.ok(seenBeforeAnswer, 'the model was asked for its final answer, after the proposal was on the channel');
  assert.equal(seenBeforeAnswer.session.state, 'awaiting_user');
  assert.equal(seenBeforeAnswer.session.documentId, doc);

  // Hermes' tool calls were told as they happened, in order, each fetch and proposal started and completed.
  const told = watcher.messages.filter((m) => m.kind === 'tool.event').map((m) => [m.event.event, m.event.toolName]);
  assert.deepEqual(told, [
    ['tool.started', 'mnote.doc.fetch'],
    ['tool.completed', 'mnote.doc.fetch'],
    ['tool.started', 'mnote.doc.plan_update'],
    ['tool.completed', 'mnote.doc.plan_update'],
  ]);
  const seqs = watcher.messages.slice(1).map((m) => m.seq);
  assert.deepEqual(seqs, seqs.map((_, i) => seqs[0] + i), 'numbered without a gap');
  watcher.close();
});

test('a run started through the proxy: its MCP tool calls on its context carry its run id on the channel', { timeout: 600_000 }, async () => {
  // Hermes needs the Worker's /mcp and the Worker needs Hermes' URL: the Worker is started on a port
  // chosen first, without Hermes, then again on the same port and state with it.
  await hermes?.stop();
  await worker?.stop();
  const port = await freePort();
  const persist = await mkdtemp(join(tmpdir(), 'mnote-live-run-'));
  worker = await startWorker({ port, persistTo: persist, vars: TOOL_VARS });
  await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'review' });
  hermes = await startHermes({ mcp: { url: `${worker.url}/mcp`, toolToken: TOOL_TOKEN }, modelUrl: model.url, modelId: model.modelId });
  await worker.stop();
  worker = await startWorker({ port, persistTo: persist, vars: { ...TOOL_VARS, HERMES_UPSTREAM_URL: hermes.url, HERMES_API_KEY: hermes.key } });

  const doc = fresh('hermes_run');
  const page = await putPage(worker.url, doc, { p_y: 'The plan is rough.' });
  const watcher = watch(doc);
  await watcher.until((m) => m.kind === 'hello', 30_000);
  model.script = async (req) => {
    const results = toolResults(req);
    if (results.length > 0) return { text: 'Proposed.' };
    const said = JSON.stringify(req.messages ?? []);
    const contextId = said.match(/contextId: (ctx_[A-Za-z0-9_-]+)/)?.[1];
    return {
      toolCalls: [{
        name: tool('doc_plan_update'),
        arguments: {
          documentId: doc,
          contextId,
          baseRevision: page.revision,
          idempotencyKey: fresh('hermes_plan'),
          summary: 'Say how the plan stands.',
          operations: [{ op: 'update', blockId: 'p_y', text: 'The plan is on track.' }],
        },
      }],
    };
  };
  const post = async (path, body) => {
    const res = await fetch(`${worker.url}/api/hermes/client/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_CLIENT_TOKEN}` },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text);
  };
  const { sessionId } = await post('sessions', { workspaceId: 'ws_local', documentId: doc, title: 'live run' });
  const { runId } = await post('runs', { documentId: doc, sessionId, message: 'Make the plan paragraph say how the plan stands.' });
  const proposal = await watcher.until((m) => m.kind === 'review.updated', WAIT_FOR_PROPOSAL_MS);
  assert.equal(proposal.session.runId, runId);
  const started = watcher.messages.find((m) => m.kind === 'tool.event' && m.event.event === 'tool.started');
  assert.equal(started.event.runId, runId, 'the MCP call named the run\'s context: it is the run\'s');
  watcher.close();
  await worker.stop();
  await rm(persist, { recursive: true, force: true });
});
