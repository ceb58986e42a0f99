// End-to-end: the mnote tools for Hermes under wrangler dev: the plain tool route, the MCP endpoint (both
// protocol eras), the tool token, and bad input (each with its coded error, and no change).
//
//   node --test --test-concurrency=1 tests/e2e/tools.test.mjs

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT, assertCodedError, startWorker } from './lib/wrangler.mjs';
import {
  fetchJson,
  sendJson,
  TOOL_TOKEN,
  TOOL_VARS,
  bearer,
  events,
  fresh,
  getPage,
  mcp,
  putPage,
  replaceArgs,
  review,
  session,
  setProfile,
  toolCall,
  verifyAudit,
} from './lib/mnote.mjs';

const pageai = createRequire(import.meta.url)(join(ROOT, 'wasm', 'pkg', 'node', 'pageai.js'));
const DOC = 'tools_doc';
let worker;
let url;

before(async () => {
  worker = await startWorker({ vars: TOOL_VARS });
  url = worker.url;
  await putPage(url, DOC, { p_a: 'alpha one', p_b: 'beta two', p_c: 'gamma three' });
});

after(async () => {
  await worker?.stop();
});

describe('the tool route', () => {
  test('a fetch freezes a context; a write bound to it is held for review in review mode', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    const fetched = await toolCall(url, 'mnote.doc.fetch', { documentId: DOC, scope: { type: 'full' }, formats: ['json'] });
    assert.equal(fetched.status, 200, fetched.text);
    const context = fetched.body.result;
    assert.equal(fetched.body.toolName, 'mnote.doc.fetch');
    assert.match(context.contextId, /^ctx_[a-z2-7]{16}$/);
    assert.deepEqual(context.allowedTargetBlockIds, ['p_a', 'p_b', 'p_c']);

    const args = replaceArgs(DOC, context.revision, { blockId: 'p_b', matchText: 'beta', content: 'BETA', contextId: context.contextId });
    const held = await toolCall(url, 'doc_apply_block_ops', args, { runId: 'run_e2e_1' });
    assert.equal(held.status, 200, held.text);
    assert.equal(held.body.reviewSession.state, 'awaiting_user');
    assert.equal(held.body.result.blocked, true);
    assert.equal(held.body.result.warnings.at(-1).code, 'review_pending');
    assert.equal((await getPage(url, DOC)).revision, context.revision, 'never applied directly');

    const stored = await session(url, held.body.reviewSession.sessionId);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.schema, 'mnote.page_ai_review_session.v1');
    assert.equal(stored.body.source.origin, 'hermes');
    assert.equal(stored.body.runId, 'run_e2e_1');

    // tool.started, review.updated, tool.completed: all for this run.
    const runEvents = (await events(url, DOC, 'run_e2e_1')).body.events.map((e) => e.event.event);
    assert.deepEqual(runEvents, ['tool.started', 'review.updated', 'tool.completed']);
  });

  test('in yolo mode a write applies, is audited, and replays byte for byte', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
    const page = await getPage(url, DOC);
    const args = replaceArgs(DOC, page.revision, { blockId: 'p_c', matchText: 'gamma', content: 'GAMMA' });
    const applied = await toolCall(url, 'mnote.doc.apply_block_ops', args);
    assert.equal(applied.status, 200, applied.text);
    assert.equal(applied.body.result.newRevision, page.revision + 1);
    assert.equal(applied.body.reviewSession.state, 'applied', 'a session record of the same shape');
    const after = await getPage(url, DOC);
    assert.equal(after.blocks[2].text, 'GAMMA three');

    const replay = await toolCall(url, 'mnote.doc.apply_block_ops', args);
    assert.equal(replay.status, 200);
    assert.equal(JSON.stringify(replay.body.result), JSON.stringify(applied.body.result));
    assert.equal((await getPage(url, DOC)).revision, after.revision, 'a replay writes nothing');

    const verified = await verifyAudit(url, DOC);
    assert.equal(verified.status, 200, verified.text);
    assert.equal(verified.body.verified, true);
  });
});

describe('each document object runs calls under its own copy of the profile', () => {
  const docs = ['profile_doc_a', 'profile_doc_b'];
  const update = (doc, revision, text) => ({
    documentId: doc,
    baseRevision: revision,
    dryRun: false,
    idempotencyKey: fresh('k'),
    operations: [{ op: 'update', blockId: 'p_1', text }],
  });

  test('PUT /api/profile takes effect at once in every object that holds a copy', async () => {
    for (const doc of docs) await putPage(url, doc, { p_1: 'first' });
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    // Each object takes its copy (review) with its first call: a write is held.
    for (const doc of docs) {
      const held = await toolCall(url, 'mnote.doc.apply_block_ops', update(doc, 1, 'held'));
      assert.equal(held.status, 200, held.text);
      assert.equal(held.body.reviewSession.state, 'awaiting_user', `${doc} holds review`);
    }

    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
    // The very next call applies directly, on the tool route and over MCP alike.
    const direct = await toolCall(url, 'mnote.doc.apply_block_ops', update(docs[0], 1, 'applied'));
    assert.equal(direct.status, 200, direct.text);
    assert.equal(direct.body.reviewSession.state, 'applied');
    assert.equal((await getPage(url, docs[0])).blocks[0].text, 'applied');
    const overMcp = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: update(docs[1], 1, 'applied too') });
    assert.equal(overMcp.body.result.isError, false, overMcp.text);
    assert.equal((await getPage(url, docs[1])).blocks[0].text, 'applied too');

    // A tool disabled now is refused at once too.
    await setProfile(url, { tools: { disabled: ['doc_apply_block_ops'] }, reviewMode: 'yolo' });
    const refused = await toolCall(url, 'mnote.doc.apply_block_ops', update(docs[0], 2, 'refused'));
    assertCodedError(refused, 403, 'mnote_tool_disabled');
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
  });

  test('a write reports the rows it wrote, the same on a page of 3 blocks and of 2,000', async () => {
    const rows = [];
    for (const [doc, size] of [['rows_small', 3], ['rows_large', 2_000]]) {
      const paragraphs = {};
      for (let i = 0; i < size; i++) paragraphs[`p_${i}`] = `paragraph ${i}`;
      await putPage(url, doc, paragraphs);
      for (const text of ['one', 'two']) {
        const page = await getPage(url, doc);
        const res = await toolCall(url, 'mnote.doc.apply_block_ops', {
          documentId: doc,
          baseRevision: page.revision,
          dryRun: false,
          idempotencyKey: fresh('k'),
          operations: [{ op: 'update', blockId: 'p_1', text }],
        });
        assert.equal(res.status, 200, res.text);
        rows.push(Number(res.headers.get('x-mnote-rows-written')));
      }
    }
    assert.ok(rows.every((r) => r > 0), `rows written: ${rows}`);
    assert.deepEqual(rows.slice(2), rows.slice(0, 2), 'the large page costs what the small one does');

    // MCP's tools/call reports it the same way.
    const overMcp = [];
    for (const doc of ['rows_small', 'rows_large']) {
      const page = await getPage(url, doc);
      const args = { documentId: doc, baseRevision: page.revision, dryRun: false, idempotencyKey: fresh('k'), operations: [{ op: 'update', blockId: 'p_1', text: 'three' }] };
      const res = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: args });
      assert.equal(res.body.result?.isError, false, res.text);
      overMcp.push(Number(res.headers.get('x-mnote-rows-written')));
    }
    assert.ok(overMcp.every((r) => r > 0), `rows written over MCP: ${overMcp}`);
    assert.equal(overMcp[1], overMcp[0], 'over MCP too, the large page costs what the small one does');
  });
});

describe('MCP over Streamable HTTP', () => {
  test('initialize, initialized, tools/list and tools/call in the session form', async () => {
    const init = await mcp(url, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } });
    assert.equal(init.status, 200, init.text);
    assert.match(init.headers.get('content-type'), /application\/json/);
    assert.equal(init.body.result.protocolVersion, '2025-06-18');
    assert.ok(init.body.result.capabilities.tools);
    const sessionId = init.headers.get('mcp-session-id');
    assert.match(sessionId, /^mcp_/);

    const withSession = { ...bearer(), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const notified = await sendJson(`${url}/mcp`, 'POST', { jsonrpc: '2.0', method: 'notifications/initialized' }, withSession);
    assert.equal(notified.status, 202);
    assert.equal(notified.text, '');

    const list = await mcp(url, 'tools/list', {}, { headers: withSession });
    const names = list.body.result.tools.map((t) => t.name);
    assert.ok(names.includes('doc_fetch') && names.includes('doc_apply_block_ops'), names.join());
    const fetchTool = list.body.result.tools.find((t) => t.name === 'doc_fetch');
    assert.ok(fetchTool.inputSchema.required.includes('documentId'));
    assert.equal(fetchTool.annotations.readOnlyHint, true);
    assert.equal(fetchTool._meta['mnote/name'], 'mnote.doc.fetch');

    // Later requests work without the session id too.
    const call = await mcp(url, 'tools/call', { name: 'doc_search', arguments: { documentId: DOC, query: 'alpha' } });
    assert.equal(call.status, 200, call.text);
    assert.equal(call.body.result.isError, false);
    assert.equal(call.body.result.structuredContent.hits[0].blockId, 'p_a');
    assert.deepEqual(JSON.parse(call.body.result.content[0].text), call.body.result.structuredContent);
  });

  test('a refusal is an ordinary result (isError false) with the coded body in its text and structuredContent', async () => {
    const missing = await mcp(url, 'tools/call', { name: 'doc_fetch', arguments: { scope: { type: 'full' } } });
    // Clients punish isError (Hermes cuts a server's tools after three), so only server faults set it.
    assert.equal(missing.body.result.isError, false);
    const body = JSON.parse(missing.body.result.content[0].text);
    assert.equal(body.code, 'mnote_invalid_arguments');
    assert.equal(body.details.pointer, '/documentId');
    assert.deepEqual(missing.body.result.structuredContent, body);

    const page = await getPage(url, DOC);
    // An older revision whose blocks are unchanged would land; requireExactRevision keeps the page-level check.
    const stale = { ...replaceArgs(DOC, page.revision - 1, { blockId: 'p_a', matchText: 'alpha', content: 'x' }), requireExactRevision: true };
    const conflict = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: stale });
    assert.equal(conflict.body.result.isError, false);
    assert.equal(JSON.parse(conflict.body.result.content[0].text).code, 'mnote_revision_conflict');
    assert.equal((await getPage(url, DOC)).revision, page.revision);
  });

  test('a call with several bad arguments lists every one, as the browser package does', async () => {
    const page = await getPage(url, DOC);
    const args = {
      ...replaceArgs(DOC, page.revision, { blockId: 'p_a', matchText: 'alpha', content: 'x' }),
      baseRevision: 'latest',
      dryRun: 'yes',
      force: true,
    };
    args.operations = [{ op: 'rewrite', blockId: 'p_a' }, args.operations[0], { op: 'replace', blockId: 7, matchText: 'a', content: 'b' }];
    const res = await mcp(url, 'tools/call', { name: 'doc_apply_block_ops', arguments: args });
    assert.equal(res.body.result.isError, false);
    assert.equal(res.body.result.structuredContent.code, 'mnote_invalid_arguments');
    const { details } = res.body.result.structuredContent;
    const pointers = details.errors.map((e) => e.pointer);
    // An operation is read whole (it is tagged by `op`), so a bad field inside one names the operation.
    for (const expected of ['/baseRevision', '/operations/0', '/operations/2', '/dryRun', '/force']) {
      assert.ok(pointers.some((p) => p.startsWith(expected)), `${expected} in ${pointers.join(', ')}`);
    }
    assert.equal(pointers.length, 5, pointers.join(', '));
    assert.equal(details.pointer, pointers[0], 'the first stays in details.pointer');
    for (const e of details.errors) assert.equal(typeof e.reason, 'string');
    // The browser's dry-run of the same call names the same fields, in the same order.
    const session = new pageai.PageSession(page);
    try {
      session.preview({ toolName: 'mnote.doc.apply_block_ops', args });
      assert.fail('the preview refuses it');
    } catch (error) {
      assert.equal(error.code, 'mnote_invalid_arguments');
      assert.deepEqual(error.details.errors.map((e) => e.pointer.replace(/^\/toolCall\/args/, '')), pointers);
    } finally {
      session.free();
    }
    assert.equal((await getPage(url, DOC)).revision, page.revision);
  });

  test('the stateless 2026-07-28 form needs no handshake', async () => {
    const meta = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };
    const headers = { ...bearer(), 'mcp-protocol-version': '2026-07-28' };
    const discover = await mcp(url, 'server/discover', meta, { headers });
    assert.equal(discover.status, 200, discover.text);
    assert.equal(discover.body.result.resultType, 'complete');
    assert.ok(discover.body.result.supportedVersions.includes('2026-07-28'));
    assert.equal(discover.headers.get('mcp-session-id'), null);

    const list = await mcp(url, 'tools/list', meta, { headers });
    assert.equal(list.body.result.resultType, 'complete');
    const call = await mcp(url, 'tools/call', { ...meta, name: 'doc_fetch', arguments: { documentId: DOC, scope: { type: 'outline' } } }, { headers });
    assert.equal(call.body.result.resultType, 'complete');
    assert.equal(call.body.result.isError, false);

    const unsupported = await mcp(url, 'ping', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2031-01-01' } });
    assert.equal(unsupported.status, 400);
    assert.equal(unsupported.body.error.code, -32022);
  });

  test('notifications, GET, foreign origins and protocol faults', async () => {
    const get = await fetchJson(`${url}/mcp`, { headers: bearer() });
    assertCodedError(get, 405, 'mnote_method_not_allowed');
    const foreign = await mcp(url, 'ping', {}, { headers: { ...bearer(), origin: 'https://evil.example' } });
    assertCodedError(foreign, 403, 'mnote_forbidden_origin');
    const same = await mcp(url, 'ping', {}, { headers: { ...bearer(), origin: url } });
    assert.equal(same.status, 200);
    const parse = await sendJson(`${url}/mcp`, 'POST', '{"jsonrpc":', bearer());
    assert.equal(parse.status, 400);
    assert.equal(parse.body.error.code, -32700);
    const unknown = await mcp(url, 'resources/list');
    assert.equal(unknown.body.error.code, -32601);
  });
});

describe('the tool credential', () => {
  const probe = () => ({ documentId: DOC, scope: { type: 'outline' } });

  test('a missing or wrong token is refused on both tool routes', async () => {
    for (const headers of [{}, bearer('wrong-token'), { authorization: `Basic ${TOOL_TOKEN}` }, { authorization: TOOL_TOKEN }]) {
      assertCodedError(await toolCall(url, 'doc_fetch', probe(), { headers }), 401, 'mnote_unauthorized');
      const refused = await mcp(url, 'tools/list', {}, { headers });
      assertCodedError(refused, 401, 'mnote_unauthorized');
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="mnote-mcp"');
    }
  });

  test('a browser cookie is refused even next to the right token', async () => {
    const headers = { ...bearer(), cookie: 'mnote_session=v1.99999999999.n.sig' };
    assertCodedError(await toolCall(url, 'doc_fetch', probe(), { headers }), 401, 'mnote_unauthorized');
    assertCodedError(await mcp(url, 'tools/list', {}, { headers }), 401, 'mnote_unauthorized');
    assertCodedError(await toolCall(url, 'doc_fetch', probe(), { headers: { cookie: 'mnote_session=x' } }), 401, 'mnote_unauthorized');
  });

  test('no answer ever echoes the token', async () => {
    const res = await toolCall(url, 'doc_fetch', probe(), { headers: bearer('wrong-token') });
    assert.ok(!res.text.includes('wrong-token') && !res.text.includes(TOOL_TOKEN));
    for (const [, value] of res.headers) assert.ok(!value.includes(TOOL_TOKEN));
  });
});

describe('bad input gets a coded error and changes nothing', () => {
  let revision;
  const unchanged = async () => assert.equal((await getPage(url, DOC)).revision, revision, 'nothing was written');
  const route = `/api/hermes/tools/mnote/call`;

  before(async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
    revision = (await getPage(url, DOC)).revision;
  });

  test('invalid JSON', async () => {
    const res = await sendJson(`${url}${route}`, 'POST', '{"toolName": "doc_fetch", ', bearer());
    assert.match(assertCodedError(res, 400, 'mnote_invalid_arguments').details.reason, /EOF/);
    await unchanged();
  });

  test('invalid UTF-8', async () => {
    const res = await fetchJson(`${url}${route}`, {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    });
    assertCodedError(res, 400, 'mnote_invalid_body');
    await unchanged();
  });

  test('an oversize body', async () => {
    const huge = JSON.stringify({ toolName: 'doc_fetch', args: { documentId: DOC, pad: 'x'.repeat(5 * 1024 * 1024) }, toolCallId: 'c', traceId: 't' });
    const res = await sendJson(`${url}${route}`, 'POST', huge, bearer());
    assertCodedError(res, 413, 'mnote_payload_too_large');
    await unchanged();
  });

  test('unknown fields and wrong types, named by JSON pointer', async () => {
    const extra = await sendJson(`${url}${route}`, 'POST', { toolName: 'doc_fetch', args: {}, toolCallId: 'c', traceId: 't', sudo: true }, bearer());
    assert.match(assertCodedError(extra, 400, 'mnote_invalid_arguments').details.reason, /unknown field `sudo`/);
    const page = await getPage(url, DOC);
    const args = { ...replaceArgs(DOC, page.revision, { blockId: 'p_a', matchText: 'alpha', content: 'x' }), force: true };
    const unknownArg = await toolCall(url, 'doc_apply_block_ops', args);
    assert.equal(assertCodedError(unknownArg, 400, 'mnote_invalid_arguments').details.pointer, '/force');
    const wrongType = await toolCall(url, 'doc_apply_block_ops', { ...replaceArgs(DOC, page.revision, { matchText: 'a', content: 'b' }), dryRun: 'no' });
    assert.equal(assertCodedError(wrongType, 400, 'mnote_invalid_arguments').details.pointer, '/dryRun');
    const noDryRun = replaceArgs(DOC, page.revision, { matchText: 'alpha', content: 'b' });
    delete noDryRun.dryRun;
    assertCodedError(await toolCall(url, 'doc_apply_block_ops', noDryRun), 400, 'mnote_invalid_arguments');
    const badDoc = await toolCall(url, 'doc_fetch', { documentId: '../etc', scope: { type: 'full' } });
    assert.equal(assertCodedError(badDoc, 400, 'mnote_invalid_arguments').details.pointer, '/args/documentId');
    await unchanged();
  });

  test('a forged contextId', async () => {
    const args = replaceArgs(DOC, revision, { blockId: 'p_a', matchText: 'alpha', content: 'x', contextId: 'ctx_forgedforgedforge' });
    assertCodedError(await toolCall(url, 'doc_apply_block_ops', args), 404, 'mnote_context_not_found');
    // A real context of another document is no better.
    await putPage(url, 'tools_other', { o_1: 'other' });
    const other = await toolCall(url, 'doc_fetch', { documentId: 'tools_other', scope: { type: 'full' } });
    const foreign = replaceArgs(DOC, revision, { blockId: 'p_a', matchText: 'alpha', content: 'x', contextId: other.body.result.contextId });
    assertCodedError(await toolCall(url, 'doc_apply_block_ops', foreign), 404, 'mnote_context_not_found');
    await unchanged();
  });

  test('a replayed idempotency key with different arguments', async () => {
    const key = fresh('k_replay');
    const first = await toolCall(url, 'doc_apply_block_ops', replaceArgs(DOC, revision, { blockId: 'p_a', matchText: 'alpha', content: 'ALPHA', key }));
    assert.equal(first.status, 200, first.text);
    revision += 1;
    const other = replaceArgs(DOC, revision, { blockId: 'p_a', matchText: 'ALPHA', content: 'alpha', key });
    const body = assertCodedError(await toolCall(url, 'doc_apply_block_ops', other), 409, 'mnote_idempotency_conflict');
    assert.ok(JSON.stringify(body.details).includes(key), JSON.stringify(body.details));
    await unchanged();
  });

  test('unknown tools and documents', async () => {
    const unknown = await toolCall(url, 'mnote.doc.delete_everything', { documentId: DOC });
    assertCodedError(unknown, 400, 'mnote_unknown_tool');
    assertCodedError(await toolCall(url, 'doc_fetch', { documentId: 'no_such_doc', scope: { type: 'full' } }), 404, 'mnote_document_not_found');
    await unchanged();
  });

  test('failed calls are still recorded as tool.failed events', async () => {
    const runId = fresh('run_bad');
    // A write that names no frozen context (finding 2) is refused, and the refusal is on record.
    await toolCall(url, 'doc_apply_block_ops', replaceArgs(DOC, 0, { blockId: 'p_c', matchText: 'gamma', content: 'b' }), { runId, bare: true });
    const list = (await events(url, DOC, runId)).body.events.map((e) => e.event);
    assert.deepEqual(list.map((e) => e.event), ['tool.started', 'tool.failed']);
    assert.equal(list[1].summary.errorCode, 'mnote_context_required');
  });
});

describe('large blocks (finding 3)', () => {
  test('an AI edit of a ~60 KiB block is held, accepted and lands; a block past the limit is refused at PUT, naming it', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'review' });
    const doc = fresh('big').replaceAll('.', '_');
    const big = `Start of a long block. ${'Lorem ipsum dolor sit amet. '.repeat(2200)}End.`;
    assert.ok(big.length > 60 * 1024, `${big.length} characters`);
    const put = await putPage(url, doc, { p_big: big, p_small: 'A small block.' });
    assert.equal(put.revision, 1);
    const edit = await toolCall(url, 'doc_apply_block_ops', replaceArgs(doc, 1, { blockId: 'p_big', matchText: 'Start', content: 'Beginning', dryRun: true }));
    assert.equal(edit.status, 200, edit.text.slice(0, 400));
    const sessionId = edit.body.reviewSession.sessionId;
    const accepted = await review(url, sessionId, 'accept', { idempotencyKey: fresh('k') });
    assert.equal(accepted.status, 200, accepted.text.slice(0, 400));
    const page = await getPage(url, doc);
    assert.ok(page.blocks[0].text.startsWith('Beginning of a long block.'), page.blocks[0].text.slice(0, 80));
    // Past 64 KiB a block is refused when the page is stored, before any AI could fail on it.
    const huge = { blocks: [{ blockId: 'p_huge', type: 'paragraph', text: 'x'.repeat(70 * 1024) }] };
    const refused = assertCodedError(await sendJson(`${url}/api/documents/${doc}_huge`, 'PUT', huge), 413, 'mnote_block_too_large');
    assert.equal(refused.details.blockId, 'p_huge');
    assert.match(refused.message, /one block holds at most 65536/);
  });
});
