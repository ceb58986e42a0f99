// The Worker's /mcp through MCP clients nobody here wrote, each the registry's package pinned in
// package.json or scripts/setup: the MCP TypeScript SDK over Streamable HTTP, and the MCP Python SDK (the
// `mcp` package, in .venv/mcp) in both protocol eras (the initialize handshake, and the stateless
// 2026-07-28). Each lists the tools, reads, writes, and is refused in every way a model gets refused; the
// caller must receive each refusal as a coded result (never an SDK exception), and every
// structuredContent must validate against the tool's outputSchema under ajv 2020 strict.
//
// Also: the Worker's tools/list is the package's mcpToolsList() for the same profile (one function in
// core), and a protocol fault's coded body names its request.
//
//   node --test tests/e2e/mcp_clients.test.mjs      (build first: make wasm worker; setup: scripts/setup)

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv2020 from 'ajv/dist/2020.js';

import { ROOT, startWorker } from './lib/wrangler.mjs';
import { TOOL_TOKEN, TOOL_VARS, command, fresh, mcp, putPage, setProfile } from './lib/mnote.mjs';

const PYTHON = join(ROOT, '.venv', 'mcp', 'bin', 'python');
const catalog = createRequire(import.meta.url)(join(ROOT, 'wasm', 'pkg', 'node', 'catalog.js'));
const PROFILE = { tools: { disabled: ['mnote.block.fetch'] }, reviewMode: 'yolo' };
const PARAGRAPHS = { p_a: 'Our plan is rough.', p_b: 'The team ships weekly.', p_c: 'Risks are unknown.' };

let worker;
let profile;
let validators; // tool name → ajv 2020 strict validator of its outputSchema

before(async () => {
  worker = await startWorker({ vars: TOOL_VARS });
  profile = await setProfile(worker.url, PROFILE);
});

after(async () => {
  await worker?.stop();
});

/** A fresh page and the context of a full fetch of it (through the raw JSON-RPC helper). */
async function freshPage() {
  const doc = fresh('mcpdoc');
  await putPage(worker.url, doc, PARAGRAPHS);
  const fetched = await mcp(worker.url, 'tools/call', { name: 'doc_fetch', arguments: { documentId: doc, scope: { type: 'full' }, formats: ['json'] } });
  const context = fetched.body.result.structuredContent;
  const selection = await command(worker.url, { documentId: doc, prompt: 'polish the selected paragraph', scope: { type: 'selection', blockIds: ['p_a'] } });
  assert.equal(selection.body.outcome, 'hermes', selection.text);
  return { doc, contextId: context.contextId, revision: context.revision, selectionId: selection.body.contextId };
}

/**
 * The calls every client makes, in order: a read, a write, then each kind of refusal (`code`), the last
 * ones refused because of the write before them.
 */
function plan({ doc, contextId, revision, selectionId }) {
  const key = fresh('key');
  const write = (extra) => ({ documentId: doc, contextId, baseRevision: revision, dryRun: false, idempotencyKey: fresh('key'), ...extra });
  const replace = (blockId, matchText, content) => [{ op: 'replace', blockId, matchText, content }];
  return [
    { label: 'a read', name: 'doc_search', arguments: { documentId: doc, query: 'team' }, schema: 'mnote.doc_search.v1' },
    { label: 'a write', name: 'doc_apply_block_ops', arguments: write({ idempotencyKey: key, operations: replace('p_a', 'rough', 'taking shape') }), schema: 'mnote.tool_result.v1' },
    { label: 'a stale write', name: 'doc_apply_block_ops', arguments: write({ operations: replace('p_a', 'plan', 'roadmap') }), code: 'mnote_revision_conflict' },
    { label: 'a reused key', name: 'doc_apply_block_ops', arguments: write({ idempotencyKey: key, operations: replace('p_b', 'team', 'crew') }), code: 'mnote_idempotency_conflict' },
    { label: 'bad fields and no context', name: 'doc_apply_block_ops', arguments: { documentId: doc, baseRevision: 'three', dryRun: 1, idempotencyKey: 'k', operations: [] }, code: 'mnote_invalid_arguments' },
    { label: 'no context', name: 'doc_apply_block_ops', arguments: { ...write({ operations: replace('p_b', 'team', 'crew') }), contextId: undefined }, code: 'mnote_context_required' },
    { label: 'out of scope', name: 'doc_apply_block_ops', arguments: write({ contextId: selectionId, baseRevision: revision + 1, dryRun: true, operations: replace('p_c', 'Risks', 'Dangers') }), code: 'mnote_block_target_out_of_scope' },
    { label: 'no such text', name: 'doc_apply_block_ops', arguments: write({ baseRevision: revision + 1, dryRun: true, operations: replace('p_b', 'nowhere', 'x') }), code: 'mnote_match_not_found' },
    { label: 'no such page', name: 'doc_fetch', arguments: { documentId: fresh('missing'), scope: { type: 'full' } }, code: 'mnote_document_not_found' },
    { label: 'no documentId', name: 'doc_search', arguments: { query: 'team' }, code: 'mnote_invalid_arguments' },
    { label: 'a disabled tool', name: 'block_fetch', arguments: { documentId: doc, blockIds: ['p_a'] }, code: 'mnote_tool_disabled' },
    { label: 'an unknown tool', name: 'doc_frobnicate', arguments: { documentId: doc }, code: 'mnote_unknown_tool' },
  ].map((call) => ({ ...call, arguments: JSON.parse(JSON.stringify(call.arguments)) }));
}

/** Asserts what a client received for `call`: its answer, or its coded refusal as an ordinary result. */
function assertReceived(call, result, client) {
  const label = `${client}: ${call.label}`;
  assert.ok(!result.raised, `${label}: the SDK raised ${result.raised}`);
  assert.equal(result.isError, false, `${label}: ${JSON.stringify(result).slice(0, 400)}`);
  const structured = result.structuredContent;
  const text = JSON.parse(result.content[0].text);
  assert.deepEqual(text, structured, `${label}: the text alone carries the whole answer`);
  const validate = validators.get(call.name);
  if (validate) assert.ok(validate(structured), `${label}: ${JSON.stringify(validate.errors)}`);
  if (call.schema) {
    assert.equal(structured.schema, call.schema, `${label}: ${result.content[0].text.slice(0, 300)}`);
    return;
  }
  assert.equal(structured.ok, false, label);
  assert.equal(structured.code, call.code, `${label}: ${result.content[0].text.slice(0, 400)}`);
  for (const field of ['message', 'hint', 'traceId']) assert.ok(structured[field].length > 0, `${label}: ${field}`);
  assert.equal(typeof structured.details, 'object', label);
  assert.match(structured.requestId, /^req_[a-z2-7]{16}$/, label);
  assert.doesNotMatch(structured.message, /\b(u64|u32|usize|struct|sequence)\b/, `${label}: words an API user knows`);
}

/** What a refusal's details must carry for a model to fix its call. */
function assertRetryable(results, calls) {
  const by = (label) => results[calls.findIndex((c) => c.label === label)].structuredContent;
  const conflict = by('a stale write');
  assert.equal(conflict.details.currentRevision, calls[1].arguments.baseRevision + 1);
  assert.deepEqual(conflict.details.blocks.map((b) => b.blockId), ['p_a']);
  const bad = by('bad fields and no context');
  const pointers = bad.details.errors.map((e) => e.pointer);
  for (const pointer of ['/baseRevision', '/dryRun', '/contextId']) assert.ok(pointers.includes(pointer), `${pointer} in ${pointers}`);
  assert.equal(by('out of scope').details.blockId, 'p_c');
  assert.equal(by('no documentId').details.pointer, '/documentId');
}

/**
 * Runs the Python MCP client on `input` (JSON on its stdin) and answers what it prints. Asynchronously: a
 * synchronous run blocks this process's event loop for seconds, in which the Worker may close an idle
 * keep-alive connection unseen, and the next fetch then meets a closed socket ("fetch failed" under load).
 */
function pythonClient(input) {
  return new Promise((resolve, reject) => {
    const child = execFile(PYTHON, [join(ROOT, 'tests', 'e2e', 'mcp_python_client.py')], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { message: `${error.message}\n${stderr}` })) : resolve(stdout),
    );
    child.stdin.end(input);
  });
}

describe('MCP clients', () => {
  test("the Worker's tools/list is the package's mcpToolsList() for the same profile", async () => {
    const listed = await mcp(worker.url, 'tools/list', {});
    assert.deepEqual(listed.body.result.tools, catalog.mcpToolsList(profile));
    const functions = catalog.openaiFunctions(profile);
    assert.deepEqual(functions.map((f) => f.function.parameters), listed.body.result.tools.map((t) => t.inputSchema));
    for (const tool of listed.body.result.tools) assert.ok(tool.inputSchema.required.includes('documentId'), tool.name);
    // Every published schema compiles under ajv 2020 strict, with no warning.
    const warnings = [];
    const logger = { log: () => {}, warn: (...m) => warnings.push(m.join(' ')), error: (...m) => warnings.push(m.join(' ')) };
    validators = new Map();
    for (const tool of listed.body.result.tools) {
      new Ajv2020({ strict: true, allErrors: true, logger }).compile(tool.inputSchema);
      validators.set(tool.name, new Ajv2020({ strict: true, allErrors: true, logger }).compile(tool.outputSchema));
    }
    assert.deepEqual(warnings, []);
  });

  test('the MCP TypeScript SDK reads every answer and every refusal', async () => {
    assert.ok(validators, 'the list test ran first');
    const client = new Client({ name: 'mnote-e2e-ts', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${TOOL_TOKEN}` } } });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), catalog.mcpToolsList(profile).map((t) => t.name));
      const calls = plan(await freshPage());
      const results = [];
      for (const call of calls) {
        const result = await client.callTool({ name: call.name, arguments: call.arguments }).catch((e) => ({ raised: `${e.name}: ${e.message}` }));
        assertReceived(call, result, 'ts');
        results.push(result);
      }
      assertRetryable(results, calls);
    } finally {
      await client.close();
    }
  });

  for (const mode of ['legacy', '2026-07-28']) {
    test(`the MCP Python SDK (${mode}) reads every answer and every refusal`, async () => {
      assert.ok(existsSync(PYTHON), `the MCP Python SDK venv is missing (${PYTHON}); run scripts/setup`);
      assert.ok(validators, 'the list test ran first');
      const calls = plan(await freshPage());
      const input = JSON.stringify({ url: `${worker.url}/mcp`, token: TOOL_TOKEN, mode, calls });
      const out = JSON.parse(await pythonClient(input));
      assert.deepEqual(out.tools.map((t) => t.name), catalog.mcpToolsList(profile).map((t) => t.name));
      calls.forEach((call, i) => assertReceived(call, out.results[i], `python ${mode}`));
      assertRetryable(out.results, calls);
    });
  }

  test("a protocol fault's coded body names the trace and the request", async () => {
    const res = await fetch(`${worker.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${TOOL_TOKEN}`, 'content-type': 'application/json' }, body: '{not json' });
    const body = await res.json();
    assert.equal(body.error.code, -32700);
    assert.equal(body.error.data.code, 'mnote_invalid_body');
    assert.equal(body.error.data.requestId, res.headers.get('x-request-id'));
    assert.equal(body.error.data.traceId, res.headers.get('x-trace-id'));
  });
});
