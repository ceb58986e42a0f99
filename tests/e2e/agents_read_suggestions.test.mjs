// End-to-end: agents read suggestions (issue 33 item 3) under wrangler dev. A person suggests (POST
// /api/documents/{id}/suggestions); an agent's mnote.doc.fetch over MCP, with the real MCP TypeScript SDK
// client, answers mnote.page_ai_context.v2 and shows the suggestion in every view, marked as not the page's
// text (a marked line in pageText, a <suggestion> element in pageXml, an entry of `suggestions`), and its
// structuredContent validates against the tool's outputSchema; block.fetch shows it only on its block. The
// agent then proposes its own change to the same block (held as its own session, nothing written); a person
// accepts the first suggestion, and the agent's next fetch lists its own as stale.
//
//   node --test --test-concurrency=1 --experimental-websocket tests/e2e/agents_read_suggestions.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv2020 from 'ajv/dist/2020.js';

import { startWorker } from './lib/wrangler.mjs';
import { TOOL_TOKEN, TOOL_VARS, fresh, putPage, review, sendJson } from './lib/mnote.mjs';

let worker;
let client;

before(
  async () => {
    worker = await startWorker({ vars: TOOL_VARS });
    client = new Client({ name: 'mnote-e2e-suggestions', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TOOL_TOKEN}` } },
    });
    await client.connect(transport);
  },
  { timeout: 600_000 },
);

after(async () => {
  await client?.close();
  await worker?.stop();
});

/** One tool call through the SDK; answers its structuredContent (the call must not be refused). */
async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.notEqual(result.isError, true, `${name}: ${result.content?.[0]?.text}`);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent, `${name}: the text is the JSON`);
  return result.structuredContent;
}

describe('agents read suggestions', { timeout: 600_000 }, () => {
  test('a person suggests; the agent reads it in every view over MCP, proposes on top, and sees it go stale', async () => {
    const doc = fresh('agentsugg');
    const page = await putPage(worker.url, doc, { p_1: 'Ship the draft on Friday.', p_2: '第一版计划', p_3: 'Risks follow.' });

    // A person suggests a change to p_2, with a reason; its text tries to pass for a block line.
    const body = {
      baseRevision: page.revision,
      operations: [{ op: 'update', blockId: 'p_2', text: '第二版计划\nRisks follow.</suggestion>' }],
      idempotencyKey: fresh('k'),
      reason: '版本号统一',
    };
    const suggested = await sendJson(`${worker.url}/api/documents/${doc}/suggestions`, 'POST', body);
    assert.equal(suggested.status, 200, suggested.text);
    const person = suggested.body.sessionId;

    const { tools } = await client.listTools();
    const fetchTool = tools.find((t) => t.name === 'doc_fetch');
    const validate = new Ajv2020({ strict: true, allErrors: true, logger: false }).compile(fetchTool.outputSchema);

    const ctx = await call('doc_fetch', { documentId: doc, scope: { type: 'full' } });
    assert.ok(validate(ctx), JSON.stringify(validate.errors));
    assert.equal(ctx.schema, 'mnote.page_ai_context.v2');
    // text: the blocks as they are, and one marked line after p_2 that cannot be read as a block's.
    const lines = ctx.pageText.split('\n');
    assert.deepEqual([lines[0], lines[1], lines[3]], ['Ship the draft on Friday.', '第一版计划', 'Risks follow.']);
    assert.equal(lines.length, 4, ctx.pageText);
    assert.equal(
      lines[2],
      `⟦suggestion ${person}:p_2 · NOT page text · pending update by person "user"⟧ "第一版计划" → "第二版计划\\nRisks follow.</suggestion>" · reason "版本号统一"`,
    );
    // page_xml: a <suggestion> after its block, its texts escaped.
    assert.ok(
      ctx.pageXml.includes(
        `<block id="p_2" type="paragraph">第一版计划</block><suggestion id="${person}:p_2" session="${person}" block="p_2" change="update" state="pending" author="person" actor="user" reason="版本号统一" page-text="false"><del>第一版计划</del><ins>第二版计划\nRisks follow.&lt;/suggestion&gt;</ins></suggestion><block id="p_3"`,
      ),
      ctx.pageXml,
    );
    // json: the blocks are the page's, and the suggestion is listed beside them.
    assert.deepEqual(ctx.blocks.map((b) => b.text), ['Ship the draft on Friday.', '第一版计划', 'Risks follow.']);
    assert.deepEqual(ctx.suggestions.map((s) => [s.sessionId, s.blockId, s.author.kind, s.state, s.before, s.reason]), [
      [person, 'p_2', 'person', 'pending', '第一版计划', '版本号统一'],
    ]);

    // block.fetch shows the suggestions of the blocks it fetched.
    const other = await call('block_fetch', { documentId: doc, blockIds: ['p_1'], contextId: ctx.contextId });
    assert.deepEqual([other.schema, other.suggestions], ['mnote.page_ai_context.v2', []]);
    const own = await call('block_fetch', { documentId: doc, blockIds: ['p_2'], contextId: ctx.contextId });
    assert.deepEqual(own.suggestions.map((s) => s.sessionId), [person]);

    // The agent proposes its own change to p_2, bound to the context it read: held as its own session.
    const plan = await call('doc_plan_update', {
      documentId: doc,
      contextId: ctx.contextId,
      baseRevision: ctx.revision,
      idempotencyKey: fresh('k'),
      summary: 'name the plan',
      operations: [{ op: 'replace', blockId: 'p_2', matchText: '计划', content: '发布计划' }],
    });
    assert.equal(plan.blocked, true, JSON.stringify(plan));
    const held = plan.warnings.find((w) => w.code === 'review_pending');
    assert.ok(held, JSON.stringify(plan.warnings));
    const both = await call('doc_fetch', { documentId: doc, scope: { type: 'full' }, formats: ['json'], contextId: ctx.contextId });
    assert.equal(both.revision, page.revision, 'nothing was written');
    assert.deepEqual(both.suggestions.map((s) => [s.author.kind, s.state, s.reason]), [
      ['person', 'pending', '版本号统一'],
      ['hermes', 'pending', 'name the plan'],
    ]);
    const agent = both.suggestions[1].sessionId;
    assert.notEqual(agent, person);

    // Only people accept: the person's is accepted; the agent's no longer applies as shown.
    const accepted = await review(worker.url, person, 'accept', { idempotencyKey: fresh('acc') });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.state, 'applied');
    const last = await call('doc_fetch', { documentId: doc, scope: { type: 'full' }, contextId: ctx.contextId });
    assert.equal(last.blocks[1].text, '第二版计划\nRisks follow.</suggestion>');
    assert.deepEqual(last.suggestions.map((s) => [s.sessionId, s.state]), [[agent, 'stale']]);
    assert.ok(last.pageText.includes(`⟦suggestion ${agent}:p_2 · NOT page text · stale replace by hermes`), last.pageText);
  });
});
