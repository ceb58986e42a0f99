// End-to-end with the REAL Hermes Agent (hermes-agent 0.19.0 from .venv/hermes): Hermes connects to the
// Worker's `/mcp` with the tool token (`mcp_servers.mnote`), sees only the mnote toolset
// (`platform_toolsets.api_server: [mnote]`), and talks to a scripted OpenAI-compatible model server that
// emits the tool calls. Runs are driven through Hermes' own `/v1/runs` API (the Worker's Hermes proxy
// routes live on another branch).
//
//   node --test --test-concurrency=1 tests/hermes/mcp_tools.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startWorker } from '../e2e/lib/wrangler.mjs';
import {
  TOOL_TOKEN,
  TOOL_VARS,
  audit,
  command,
  getPage,
  mcp,
  putPage,
  review,
  session,
  setProfile,
  toolCall,
  verifyAudit,
} from '../e2e/lib/mnote.mjs';
import { claims, jwkSet, jwtVars, makeKeys, sign } from '../e2e/lib/identity.mjs';
import { hermesInstalled, startHermes, HERMES_BIN } from './lib/hermes.mjs';
import { startModelServer, toolResults } from './lib/model_server.mjs';

const DOC = 'hermes_doc';
const PARAGRAPHS = { p_a: 'Our plan is rough.', p_b: 'The team ships weekly.', p_c: 'Risks are unknown.' };
const tool = (name) => `mcp__mnote__${name}`;
// Signed-in people of one workspace, for the run made for a viewer.
const keys = makeKeys();
const person = (sub, role) => ({ authorization: `Bearer ${sign(keys.es, claims({ sub, workspaces: { ws_team: role } }))}` });
const OWNER = person('user_olga', 'owner');
const VIEWER = person('user_vic', 'viewer');

let worker;
let model;
let hermes;

before(async () => {
  assert.ok(hermesInstalled(), `the Hermes venv is missing (${HERMES_BIN}); run scripts/setup`);
  worker = await startWorker({ vars: { ...TOOL_VARS, ...jwtVars(jwkSet(keys)) } });
  // Disabled before Hermes starts: Hermes lists the tools once, when it connects.
  await setProfile(worker.url, { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'review' });
  await putPage(worker.url, DOC, PARAGRAPHS);
  model = await startModelServer();
  hermes = await startHermes({ mcp: { url: `${worker.url}/mcp`, toolToken: TOOL_TOKEN }, modelUrl: model.url, modelId: model.modelId });
});

after(async () => {
  await hermes?.stop();
  await model?.stop();
  await worker?.stop();
});

/** Runs `input` through Hermes with `script` as the model; answers the run and the model requests it made. */
async function runWith(input, script) {
  const first = model.requests.length;
  model.script = script;
  const run = await hermes.run(input);
  const requests = model.requests.slice(first).filter((r) => Array.isArray(r.tools) && r.tools.length);
  assert.equal(run.status, 'run.completed', `run ended ${run.status}: ${JSON.stringify(run.error ?? run.events.at(-1))}\n${hermes.logs().slice(-2000)}`);
  return { run, requests };
}

describe('real Hermes over MCP', () => {
  test('Hermes offers the model only the enabled mnote tools', async () => {
    const { requests } = await runWith('hello', () => ({ text: 'hi' }));
    const offered = requests[0].tools.map((t) => t.function.name).sort();
    assert.ok(offered.includes(tool('doc_fetch')) && offered.includes(tool('doc_apply_block_ops')), offered.join());
    assert.ok(!offered.includes(tool('doc_search')), 'the disabled tool is not offered');
    assert.ok(offered.every((name) => name.startsWith('mcp__mnote__')), `no host tools: ${offered.join()}`);
    const apply = requests[0].tools.find((t) => t.function.name === tool('doc_apply_block_ops'));
    assert.ok(apply.function.parameters.required.includes('documentId'));
  });

  test('complex rewrite: fetch, then a dry-run write becomes a review session; accepting it applies', async () => {
    const before = await getPage(worker.url, DOC);
    const { run, requests } = await runWith('Make this page more professional.', (req) => {
      const results = toolResults(req);
      if (results.length === 0) {
        return { toolCalls: [{ name: tool('doc_fetch'), arguments: { documentId: DOC, scope: { type: 'full' }, formats: ['json'] } }] };
      }
      if (results.length === 1) {
        const context = results[0].mnote;
        return {
          toolCalls: [{
            name: tool('doc_apply_block_ops'),
            arguments: {
              documentId: DOC,
              contextId: context.contextId,
              baseRevision: context.revision,
              dryRun: true,
              idempotencyKey: 'hermes_rewrite_1',
              operations: [
                { op: 'replace', blockId: 'p_a', matchText: 'rough', content: 'taking shape' },
                { op: 'replace', blockId: 'p_c', matchText: 'unknown', content: 'tracked in the risk log' },
              ],
            },
          }],
        };
      }
      return { text: 'I proposed a rewrite for your review.' };
    });
    assert.equal(run.output, 'I proposed a rewrite for your review.');
    assert.deepEqual(run.events.filter((e) => e.event === 'tool.completed').map((e) => [e.tool, e.error]), [
      [tool('doc_fetch'), false],
      [tool('doc_apply_block_ops'), false],
    ]);

    // What the model was told: a held preview with the session id.
    const held = toolResults(requests.at(-1))[1].mnote;
    assert.equal(held.schema, 'mnote.tool_result.v1');
    assert.equal(held.blocked, true);
    const pending = held.warnings.find((w) => w.code === 'review_pending');
    const sessionId = pending.message.match(/rs\.[A-Za-z0-9_-]+\.[a-z2-7]+/)[0];

    const stored = await session(worker.url, sessionId);
    assert.equal(stored.body.state, 'awaiting_user');
    assert.equal(stored.body.source.origin, 'hermes');
    assert.deepEqual(await getPage(worker.url, DOC), before, 'the page is unchanged');

    const accepted = await review(worker.url, sessionId, 'accept', { idempotencyKey: 'user_accept_1' });
    assert.equal(accepted.body.state, 'applied', accepted.text);
    const page = await getPage(worker.url, DOC);
    assert.equal(page.revision, before.revision + 1);
    assert.equal(page.blocks[0].text, 'Our plan is taking shape.');
    assert.equal(page.blocks[2].text, 'Risks are tracked in the risk log.');
    const verified = await verifyAudit(worker.url, DOC);
    assert.equal(verified.body.verified, true, verified.text);
    const actions = (await audit(worker.url, DOC)).body.entries.map((e) => `${e.action}:${e.actor}`);
    assert.deepEqual(actions.slice(-2), ['review.propose:hermes', 'review.accept:user']);
  });

  test('selection: a write outside the frozen selection is blocked with mnote_block_target_out_of_scope', async () => {
    // The browser's command freezes the selection [p_a, p_b] and hands the run its contextId.
    const frozen = await command(worker.url, {
      documentId: DOC,
      prompt: 'polish the selected paragraphs',
      scope: { type: 'selection', blockIds: ['p_a', 'p_b'] },
    });
    assert.equal(frozen.body.outcome, 'hermes', frozen.text);
    const contextId = frozen.body.contextId;
    const before = await getPage(worker.url, DOC);
    const { requests } = await runWith(`Polish my selection. contextId=${contextId} revision=${before.revision}`, (req) => {
      const results = toolResults(req);
      if (results.length === 0) {
        return {
          toolCalls: [{
            name: tool('doc_apply_block_ops'),
            arguments: {
              documentId: DOC,
              contextId,
              baseRevision: before.revision,
              dryRun: true,
              idempotencyKey: 'hermes_out_of_scope',
              operations: [{ op: 'replace', blockId: 'p_c', matchText: 'Risks', content: 'Dangers' }],
            },
          }],
        };
      }
      return { text: 'That block is outside your selection.' };
    });
    // A refusal is an ordinary result (not isError, which Hermes' circuit breaker counts), coded.
    const [result] = toolResults(requests.at(-1));
    assert.equal(result.isError, false, result.content.slice(0, 400));
    assert.equal(result.mnote.ok, false, result.content.slice(0, 400));
    assert.equal(result.mnote.code, 'mnote_block_target_out_of_scope', result.content.slice(0, 400));
    assert.equal(result.mnote.details.blockId, 'p_c');
    assert.deepEqual(await getPage(worker.url, DOC), before);
    const sessions = (await (await fetch(`${worker.url}/api/documents/${DOC}/review-sessions`, { headers: worker.auth })).json()).sessions;
    assert.equal(sessions.length, 1, 'no session was made for the refused write');
  });

  test("a viewer's run that tries to write is refused and the page is unchanged", async () => {
    // Even in yolo mode, where an editor's write would land at once.
    await setProfile(worker.url, { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'yolo' });
    try {
      const doc = 'hermes_viewer_doc';
      const send = (path, method, body, who) =>
        fetch(`${worker.url}${path}`, { method, headers: { 'content-type': 'application/json', origin: worker.url, ...who }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const blocks = Object.entries(PARAGRAPHS).map(([blockId, text]) => ({ blockId, type: 'paragraph', text }));
      assert.equal((await send(`/api/documents/${doc}`, 'PUT', { workspaceId: 'ws_team', blocks }, OWNER)).status, 200);
      // The viewer's command freezes the context the run is for (it records the viewer and the role).
      const frozen = await send('/api/page-ai/command', 'POST', { documentId: doc, prompt: 'polish this page', scope: { type: 'full' } }, VIEWER);
      assert.equal(frozen.body.outcome, 'hermes', JSON.stringify(frozen.body));
      const contextId = frozen.body.contextId;
      const read = async () => (await fetch(`${worker.url}/api/documents/${doc}`, { headers: OWNER })).json();
      const before = await read();
      const { requests } = await runWith(`Polish the page. contextId=${contextId} revision=${before.revision}`, (req) => {
        if (toolResults(req).length === 0) {
          return {
            toolCalls: [{
              name: tool('doc_apply_block_ops'),
              arguments: {
                documentId: doc,
                contextId,
                baseRevision: before.revision,
                dryRun: false,
                idempotencyKey: 'hermes_viewer_write',
                operations: [{ op: 'replace', blockId: 'p_a', matchText: 'rough', content: 'polished' }],
              },
            }],
          };
        }
        return { text: 'I could only propose that.' };
      });
      const [result] = toolResults(requests.at(-1));
      assert.equal(result.mnote?.blocked, true, result.content.slice(0, 600));
      assert.match(result.mnote.blockedReason, /viewer/);
      assert.ok(result.mnote.warnings.some((w) => w.code === 'review_pending'));
      assert.deepEqual(await read(), before, 'the page is unchanged');
      // Nor can the viewer accept it.
      const sessionId = result.mnote.warnings.find((w) => w.code === 'review_pending').message.match(/rs\.[A-Za-z0-9_-]+\.[a-z2-7]+/)[0];
      const accept = await send(`/api/page-ai/review-sessions/${sessionId}/accept`, 'POST', { idempotencyKey: 'vic_accept' }, VIEWER);
      assert.equal(accept.status, 403);
      assert.equal(accept.body.code, 'mnote_role_forbidden');
      assert.deepEqual(await read(), before);
    } finally {
      await setProfile(worker.url, { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'review' });
    }
  });

  test('disabled tools: absent from the list, and refused when called anyway', async () => {
    // Disable a tool Hermes already listed: its call reaches the Worker, whose guard refuses it.
    await setProfile(worker.url, { tools: { disabled: ['mnote.doc.search', 'mnote.block.fetch'] }, reviewMode: 'review' });
    try {
      const { requests } = await runWith('Show me block p_a.', (req) => {
        const results = toolResults(req);
        if (results.length === 0) {
          return { toolCalls: [{ name: tool('block_fetch'), arguments: { documentId: DOC, blockIds: ['p_a'] } }] };
        }
        if (results.length === 1) {
          return { toolCalls: [{ name: tool('doc_search'), arguments: { documentId: DOC, query: 'plan' } }] };
        }
        return { text: 'Those tools are switched off.' };
      });
      const [fetched, searched] = toolResults(requests.at(-1));
      assert.equal(fetched.isError, false);
      assert.equal(fetched.mnote.code, 'mnote_tool_disabled', fetched.content.slice(0, 300));
      // Never listed, so Hermes has no such tool: 0.19 refuses it, or "repairs" the name to a listed tool
      // (seen: doc_fetch, whose arguments check then refuses the search arguments). Either way nothing
      // searched.
      assert.ok(searched.isError || searched.mnote?.ok === false, searched.content.slice(0, 300));
      assert.ok(!searched.content.includes('"hits"'), searched.content.slice(0, 300));
      const ran = (await (await fetch(`${worker.url}/api/documents/${DOC}/events`, { headers: worker.auth })).json()).events.map((e) => e.event);
      assert.ok(!ran.some((e) => e.toolName === 'mnote.doc.search' && e.event === 'tool.completed'), 'the search never ran');

      // A direct call is refused by the same guard, over MCP and over the tool route.
      const viaMcp = await mcp(worker.url, 'tools/call', { name: 'doc_search', arguments: { documentId: DOC, query: 'plan' } });
      assert.equal(JSON.parse(viaMcp.body.result.content[0].text).code, 'mnote_tool_disabled');
      const viaRoute = await toolCall(worker.url, 'mnote.doc.search', { documentId: DOC, query: 'plan' });
      assert.equal(viaRoute.status, 403);
      assert.equal(viaRoute.body.code, 'mnote_tool_disabled');
    } finally {
      await setProfile(worker.url, { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'review' });
    }
  });

  test('five refusals in a row, then a good write: the tools stay and the write lands', async () => {
    // Hermes cuts a server's tools for 60 s after three isError results in a row (tools/mcp_tool.py); a
    // refusal is an ordinary result, so a model that errs five times still has its tools.
    await setProfile(worker.url, { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'yolo' });
    try {
      const before = await getPage(worker.url, DOC);
      let context;
      const steps = [
        () => ({ name: tool('doc_fetch'), arguments: { documentId: DOC, scope: { type: 'full' }, formats: ['json'] } }),
        () => ({ name: tool('doc_apply_block_ops'), arguments: { documentId: DOC, baseRevision: context.revision, dryRun: false, idempotencyKey: 'five_1', operations: [{ op: 'replace', blockId: 'p_b', matchText: 'weekly', content: 'daily' }] } }),
        () => ({ name: tool('doc_apply_block_ops'), arguments: { documentId: DOC, contextId: context.contextId, baseRevision: context.revision, dryRun: false, idempotencyKey: 'five_2', operations: [{ op: 'replace', blockId: 'p_b', matchText: 'monthly', content: 'daily' }] } }),
        () => ({ name: tool('doc_fetch'), arguments: { documentId: 'hermes_no_such_doc', scope: { type: 'full' } } }),
        () => ({ name: tool('doc_apply_block_ops'), arguments: { documentId: DOC, contextId: context.contextId, baseRevision: 'latest', idempotencyKey: 'five_4', operations: [] } }),
        () => ({ name: tool('doc_apply_block_ops'), arguments: { documentId: DOC, contextId: context.contextId, baseRevision: context.revision, dryRun: false, idempotencyKey: 'five_5', operations: [{ op: 'replace', blockId: 'p_zz', matchText: 'weekly', content: 'daily' }] } }),
        () => ({ name: tool('doc_apply_block_ops'), arguments: { documentId: DOC, contextId: context.contextId, baseRevision: context.revision, dryRun: false, idempotencyKey: 'five_good', operations: [{ op: 'replace', blockId: 'p_b', matchText: 'weekly', content: 'every day' }] } }),
      ];
      const { run, requests } = await runWith('Make the team ship faster.', (req) => {
        const results = toolResults(req);
        if (results.length === 1) context = results[0].mnote;
        if (results.length < steps.length) return { toolCalls: [steps[results.length]()] };
        return { text: 'Done.' };
      });
      assert.equal(run.output, 'Done.');
      const results = toolResults(requests.at(-1));
      const codes = results.slice(1, 6).map((r) => r.mnote?.code ?? r.content.slice(0, 200));
      assert.deepEqual(codes, ['mnote_context_required', 'mnote_match_not_found', 'mnote_document_not_found', 'mnote_invalid_arguments', 'mnote_block_not_found']);
      for (const refused of results.slice(1, 6)) {
        assert.equal(refused.isError, false);
        assert.ok(refused.mnote.hint.length > 0 && typeof refused.mnote.details === 'object');
      }
      const landed = results[6].mnote;
      assert.equal(landed?.schema, 'mnote.tool_result.v1', results[6].content.slice(0, 400));
      assert.equal(landed.newRevision, before.revision + 1);
      const page = await getPage(worker.url, DOC);
      assert.equal(page.revision, before.revision + 1);
      assert.equal(page.blocks[1].text, 'The team ships every day.');
      assert.deepEqual(run.events.filter((e) => e.event === 'tool.completed').map((e) => e.error), Array(7).fill(false));
    } finally {
      await setProfile(worker.url, { tools: { disabled: ['mnote.doc.search'] }, reviewMode: 'review' });
    }
  });
});
