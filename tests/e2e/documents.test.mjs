// End-to-end: the document routes of the Worker under wrangler dev (workerd + local Durable Objects).
//
//   node --test --test-concurrency=1 tests/e2e/documents.test.mjs

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  ROOT,
  TEST_CLIENT_TOKEN,
  assertCodedError,
  fetchJson as rawFetchJson,
  sendJson as rawSendJson,
  startWorker,
} from './lib/wrangler.mjs';

// Every document route needs a credential (SPEC §10); these helpers send the test Worker's client token.
const AUTH = { authorization: `Bearer ${TEST_CLIENT_TOKEN}` };
const fetchJson = (url, init = {}) => rawFetchJson(url, { ...init, headers: { ...AUTH, ...init.headers } });
const sendJson = (url, method, value, headers = {}) => rawSendJson(url, method, value, { ...AUTH, ...headers });

const MINTED_ID = /^b_[a-z2-7]{10}$/;
const LIMIT = 5 * 1024 * 1024;

const SAMPLE_MARKDOWN = `# 发布计划 Release plan

第一段：我们用 Rust 写内核。 <!-- mnote:block id=p_kernel -->

- 准备 Prepare
  - 检查依赖 Check dependencies
- [x] 写测试 Write tests
- [ ] 发布 Ship

1. First step

> 先写文档，再写代码。

\`\`\`rust
fn main() {}
\`\`\`

| a | b |
| --- | --- |
| 1 | 2 |

---
`;

let worker;
const doc = (id) => `${worker.url}/api/documents/${id}`;
const putMarkdown = (id, text, headers = {}) =>
  fetchJson(doc(id), { method: 'PUT', headers: { 'content-type': 'text/markdown', ...headers }, body: text });

before(async () => {
  worker = await startWorker();
});

after(async () => {
  await worker?.stop();
});

describe('health and routing', () => {
  test('GET /health answers ok with a trace id', async () => {
    const res = await fetchJson(`${worker.url}/health`);
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    assert.match(res.body.traceId, /^tr_[a-z2-7]{16}$/);
    assert.equal(res.headers.get('x-trace-id'), res.body.traceId);
  });

  test('a sane x-trace-id is echoed in the body and the header', async () => {
    const res = await fetchJson(doc('no_such_doc'), { headers: { 'x-trace-id': 'e2e-trace.1' } });
    const body = assertCodedError(res, 404, 'mnote_document_not_found');
    assert.equal(body.traceId, 'e2e-trace.1');
    assert.deepEqual(body.details, { documentId: 'no_such_doc' });
  });

  test('every answer has its own request id, and the log line of the request names it', async () => {
    const first = await fetchJson(`${worker.url}/health`, { headers: { 'x-trace-id': 'e2e-trace.2' } });
    const second = await fetchJson(`${worker.url}/health`, { headers: { 'x-trace-id': 'e2e-trace.2' } });
    const ids = [first, second].map((res) => res.headers.get('x-request-id'));
    for (const id of ids) assert.match(id, /^req_[a-z2-7]{16}$/);
    assert.notEqual(ids[0], ids[1], 'one trace, two requests');
    const failed = assertCodedError(await fetchJson(doc('no_such_doc')), 404, 'mnote_document_not_found');
    // wrangler prints the Worker's console a moment after the answer.
    const line = await worker.waitForLog(new RegExp(failed.requestId));
    assert.ok(line.includes(failed.traceId) && line.includes('GET /api/documents/no_such_doc') && line.includes('404'), line);
  });

  test('a trace id in a JSON body is honoured when no header names one, and the header wins', async () => {
    const fromBody = await sendJson(`${worker.url}/api/page-ai/command`, 'POST', { documentId: 'no_such_doc', prompt: 'x', scope: { type: 'full' }, traceId: 'body-trace.1' });
    assert.equal(assertCodedError(fromBody, 404, 'mnote_document_not_found').traceId, 'body-trace.1');
    const both = await sendJson(`${worker.url}/api/page-ai/command`, 'POST',
      { documentId: 'no_such_doc', prompt: 'x', scope: { type: 'full' }, traceId: 'body-trace.2' }, { 'x-trace-id': 'header-trace.2' });
    assert.equal(assertCodedError(both, 404, 'mnote_document_not_found').traceId, 'header-trace.2');
    // Header syntax or a flood in the body's trace is not trusted, as in the header.
    const insane = await sendJson(`${worker.url}/api/page-ai/command`, 'POST', { documentId: 'no_such_doc', prompt: 'x', scope: { type: 'full' }, traceId: 'a b\r\nx: y' });
    assert.match(assertCodedError(insane, 404, 'mnote_document_not_found').traceId, /^tr_[a-z2-7]{16}$/);
  });

  test('unknown routes and methods are coded errors', async () => {
    const route = assertCodedError(await fetchJson(`${worker.url}/api/nope`), 404, 'mnote_route_not_found');
    assert.equal(route.details.path, '/api/nope');
    assertCodedError(await fetchJson(`${worker.url}/api/documents/a/b`), 404, 'mnote_route_not_found');
    assertCodedError(await fetchJson(doc('welcome'), { method: 'DELETE' }), 405, 'mnote_method_not_allowed');
    assertCodedError(await fetchJson(`${worker.url}/health`, { method: 'POST' }), 405, 'mnote_method_not_allowed');
  });

  test('the document routes need a credential, and writes need an allowed origin', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token' }, { cookie: 'mnote_session=v1.9999999999.n.00' }]) {
      assertCodedError(await rawFetchJson(doc('welcome'), { headers }), 401, 'mnote_unauthorized');
      const put = await rawSendJson(doc('e2e_auth'), 'PUT', { blocks: [] }, headers);
      assertCodedError(put, 401, 'mnote_unauthorized');
    }
    const foreign = await sendJson(doc('e2e_auth'), 'PUT', { blocks: [] }, { origin: 'https://evil.example' });
    assert.equal(assertCodedError(foreign, 403, 'mnote_forbidden_origin').details.origin, 'https://evil.example');
    assertCodedError(await fetchJson(doc('e2e_auth')), 404, 'mnote_document_not_found');
    // The health route stays open.
    assert.equal((await rawFetchJson(`${worker.url}/health`)).status, 200);
  });

  test('a malformed document id is refused before any storage', async () => {
    const body = assertCodedError(await fetchJson(doc('a.b')), 400, 'mnote_invalid_arguments');
    assert.equal(body.details.pointer, '/documentId');
  });

  test('/ serves the web demo', { skip: !existsSync(join(ROOT, 'web-demo/index.html')) && 'web-demo/index.html not written yet' }, async () => {
    const res = await fetchJson(`${worker.url}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /text\/html/);
    assert.equal(res.text, await readFile(join(ROOT, 'web-demo/index.html'), 'utf8'));
  });
});

describe('welcome seed', () => {
  test('GET of welcome on an empty store seeds the sample page at revision 1', async () => {
    const res = await fetchJson(doc('welcome'));
    assert.equal(res.status, 200);
    const page = res.body;
    assert.equal(page.documentId, 'welcome');
    assert.equal(page.workspaceId, 'ws_local');
    assert.equal(page.title, 'mnote Page AI');
    assert.equal(page.revision, 1);
    assert.equal(page.permission, 'edit');
    assert.ok(page.blocks.length >= 28 && page.blocks.length <= 34, `${page.blocks.length} blocks`);
    const types = new Set(page.blocks.map((b) => b.type));
    for (const type of ['heading', 'paragraph', 'bulleted_list_item', 'numbered_list_item', 'todo', 'quote', 'code', 'table', 'divider']) {
      assert.ok(types.has(type), `no ${type} block`);
    }
    const todos = page.blocks.filter((b) => b.type === 'todo').map((b) => b.attrs.checked);
    assert.ok(todos.includes(true) && todos.includes(false), 'checked and unchecked todos');
    assert.ok(page.blocks.some((b) => (b.attrs?.depth ?? 0) > 0), 'a nested list item');
    assert.deepEqual(page.blocks[0], { blockId: 'h_title', type: 'heading', text: 'mnote Page AI', attrs: { level: 1 }, editable: true });
    // Ids come from the fixture's markers, so demos and browser tests can address blocks by name.
    assert.ok(page.blocks.every((b) => !MINTED_ID.test(b.blockId)));
  });

  test('the seed exports back to exactly the fixture file', async () => {
    const res = await fetchJson(`${doc('welcome')}?format=markdown`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/markdown/);
    assert.equal(res.text, await readFile(join(ROOT, 'tests/fixtures/pages/welcome.md'), 'utf8'));
  });

  test('a second GET does not seed again', async () => {
    const res = await fetchJson(doc('welcome'));
    assert.equal(res.body.revision, 1);
  });
});

describe('PUT and GET', () => {
  let stored;

  test('PUT Markdown creates the page at revision 1, titled by its first heading', async () => {
    const res = await putMarkdown('e2e_md', SAMPLE_MARKDOWN);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.revision, 1);
    assert.equal(res.body.title, '发布计划 Release plan');
    assert.equal(res.body.workspaceId, 'ws_local');
    stored = res.body;
  });

  test('GET answers the stored blocks: types, attrs, texts and ids', async () => {
    const res = await fetchJson(doc('e2e_md'));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, stored);
    const summary = res.body.blocks.map((b) => [b.type, b.text, b.attrs ?? {}]);
    assert.deepEqual(summary, [
      ['heading', '发布计划 Release plan', { level: 1 }],
      ['paragraph', '第一段：我们用 Rust 写内核。', {}],
      ['bulleted_list_item', '准备 Prepare', { depth: 0 }],
      ['bulleted_list_item', '检查依赖 Check dependencies', { depth: 1 }],
      ['todo', '写测试 Write tests', { checked: true, depth: 0 }],
      ['todo', '发布 Ship', { checked: false, depth: 0 }],
      ['numbered_list_item', 'First step', { depth: 0 }],
      ['quote', '先写文档，再写代码。', {}],
      ['code', 'fn main() {}', { language: 'rust' }],
      ['table', '| a | b |\n| --- | --- |\n| 1 | 2 |', {}],
      ['divider', '', {}],
    ]);
    const ids = res.body.blocks.map((b) => b.blockId);
    assert.equal(ids[1], 'p_kernel', 'the marker id survives');
    for (const [i, id] of ids.entries()) if (i !== 1) assert.match(id, MINTED_ID);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('PUT JSON round-trips a fetched page and bumps the revision by one', async () => {
    const page = structuredClone(stored);
    page.blocks[1].text = '第一段：我们用 Rust 写内核，并在浏览器里复用它。';
    const res = await sendJson(doc('e2e_md'), 'PUT', page);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.revision, 2);
    assert.equal(res.body.blocks[1].text, page.blocks[1].text);
    assert.deepEqual(res.body.blocks.map((b) => b.blockId), stored.blocks.map((b) => b.blockId));
    stored = res.body;
  });

  test('GET ?format=markdown and Accept: text/markdown export with block markers', async () => {
    const byQuery = await fetchJson(`${doc('e2e_md')}?format=markdown`);
    assert.equal(byQuery.status, 200);
    assert.match(byQuery.headers.get('content-type'), /^text\/markdown/);
    assert.ok(byQuery.text.startsWith('# 发布计划 Release plan <!-- mnote:block id='), byQuery.text);
    assert.ok(byQuery.text.includes('并在浏览器里复用它。 <!-- mnote:block id=p_kernel -->'));
    assert.ok(byQuery.text.includes('- [x] 写测试 Write tests'));
    const byAccept = await fetchJson(doc('e2e_md'), { headers: { accept: 'text/markdown' } });
    assert.equal(byAccept.text, byQuery.text);
    // Re-importing the export keeps every block and id.
    const again = await putMarkdown('e2e_md', byQuery.text);
    assert.equal(again.body.revision, 3);
    assert.deepEqual(again.body.blocks, stored.blocks);
    stored = again.body;
  });

  test('PUT JSON may leave out metadata; the path fills documentId and defaults fill the rest', async () => {
    const res = await sendJson(doc('e2e_json'), 'PUT', { blocks: [{ blockId: 'p_1', type: 'paragraph', text: 'hello' }] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      workspaceId: 'ws_local',
      documentId: 'e2e_json',
      title: 'e2e_json',
      revision: 1,
      permission: 'edit',
      blocks: [{ blockId: 'p_1', type: 'paragraph', text: 'hello', editable: true }],
    });
  });

  test('PUT Markdown keeps the stored title and workspace', async () => {
    // The client token signs in the single user, who holds only the implicit workspace.
    const elsewhere = await sendJson(doc('e2e_meta'), 'PUT', { workspaceId: 'ws_team', title: 'Team notes', blocks: [] });
    assertCodedError(elsewhere, 404, 'mnote_document_not_found');
    const set = await sendJson(doc('e2e_meta'), 'PUT', { workspaceId: 'ws_local', title: 'Team notes', blocks: [] });
    assert.equal(set.status, 200, set.text);
    const res = await putMarkdown('e2e_meta', '# Another heading\n\nbody\n');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.title, 'Team notes');
    assert.equal(res.body.workspaceId, 'ws_local');
    assert.equal(res.body.revision, 2);
  });

  test('PUT with Accept: text/markdown answers the stored page as Markdown', async () => {
    const res = await putMarkdown('e2e_accept', 'plain text\n', { accept: 'text/markdown' });
    assert.equal(res.status, 200);
    assert.match(res.text, /^plain text <!-- mnote:block id=b_[a-z2-7]{10} -->\n$/);
  });
});

describe('bad input gets a coded error and changes nothing', () => {
  const unchanged = async () => {
    const res = await fetchJson(doc('e2e_md'));
    assert.equal(res.status, 200);
    assert.equal(res.body.revision, 3, 'a failed PUT must not write');
  };

  test('invalid JSON syntax', async () => {
    const body = assertCodedError(await sendJson(doc('e2e_md'), 'PUT', '{"blocks": ['), 400, 'mnote_invalid_arguments');
    assert.equal(typeof body.details.pointer, 'string');
    assert.match(body.details.reason, /EOF/);
    await unchanged();
  });

  test('wrong type names the field by JSON pointer', async () => {
    const res = await sendJson(doc('e2e_md'), 'PUT', { blocks: [{ blockId: 'p_1', type: 'paragraph', text: 7 }] });
    const body = assertCodedError(res, 400, 'mnote_invalid_arguments');
    assert.equal(body.details.pointer, '/blocks/0/text');
    await unchanged();
  });

  test('unknown fields, at the top and inside a block', async () => {
    const top = assertCodedError(await sendJson(doc('e2e_md'), 'PUT', { blocks: [], color: 'red' }), 400, 'mnote_invalid_arguments');
    assert.equal(top.details.pointer, '/color');
    assert.match(top.message, /unknown field `color`/);
    const nested = await sendJson(doc('e2e_md'), 'PUT', { blocks: [{ blockId: 'p_1', type: 'paragraph', text: 'x', bold: true }] });
    assert.equal(assertCodedError(nested, 400, 'mnote_invalid_arguments').details.pointer, '/blocks/0/bold');
    const badType = await sendJson(doc('e2e_md'), 'PUT', { blocks: [{ blockId: 'p_1', type: 'banner', text: 'x' }] });
    assert.equal(assertCodedError(badType, 400, 'mnote_invalid_arguments').details.pointer, '/blocks/0/type');
    await unchanged();
  });

  test('a page that breaks a model rule', async () => {
    const dup = await sendJson(doc('e2e_md'), 'PUT', {
      blocks: [
        { blockId: 'p_1', type: 'paragraph', text: 'a' },
        { blockId: 'p_1', type: 'paragraph', text: 'b' },
      ],
    });
    assert.equal(assertCodedError(dup, 400, 'mnote_invalid_page').details.pointer, '/blocks/1/blockId');
    await unchanged();
  });

  test('a body naming another document', async () => {
    const res = await sendJson(doc('e2e_md'), 'PUT', { documentId: 'other', blocks: [] });
    assert.equal(assertCodedError(res, 400, 'mnote_invalid_arguments').details.pointer, '/documentId');
    await unchanged();
  });

  test('invalid UTF-8, as JSON and as Markdown', async () => {
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const json = await fetchJson(doc('e2e_md'), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: bytes });
    assert.match(assertCodedError(json, 400, 'mnote_invalid_body').details.reason, /UTF-8.*offset 2/);
    const md = await fetchJson(doc('e2e_md'), { method: 'PUT', headers: { 'content-type': 'text/markdown' }, body: bytes });
    assert.match(assertCodedError(md, 400, 'mnote_invalid_markdown').details.reason, /UTF-8/);
    await unchanged();
  });

  test('an unsupported content type', async () => {
    const res = await fetchJson(doc('e2e_md'), { method: 'PUT', headers: { 'content-type': 'text/html' }, body: '<p>x</p>' });
    assertCodedError(res, 400, 'mnote_invalid_body');
    await unchanged();
  });

  test('a body over 5 MiB, with Content-Length and streamed without one', async () => {
    const big = Buffer.alloc(LIMIT + 1, 'a');
    const declared = await fetchJson(doc('e2e_md'), { method: 'PUT', headers: { 'content-type': 'text/markdown' }, body: big });
    assert.deepEqual(assertCodedError(declared, 413, 'mnote_payload_too_large').details, { limitBytes: LIMIT });
    // A stream has no Content-Length, so only the count while reading can catch it.
    const chunk = Buffer.alloc(64 * 1024, 'b');
    let sent = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (sent > LIMIT) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await fetchJson(doc('e2e_md'), { method: 'PUT', headers: { 'content-type': 'text/markdown' }, body: stream, duplex: 'half' });
    assertCodedError(streamed, 413, 'mnote_payload_too_large');
    await unchanged();
  });

  test('a body under the limit is stored when its page fits the page limit, and refused as too large when not', async () => {
    const line = `${'段落 paragraph '.repeat(8)}\n\n`;
    const lines = Math.floor((LIMIT - 1024) / Buffer.byteLength(line));
    // Just under the body limit, the page's JSON (ids and types beside each text) is over the page limit,
    // which keeps every stored page small enough for its GET to be PUT back.
    const over = await putMarkdown('e2e_large', line.repeat(lines));
    assert.ok(assertCodedError(over, 413, 'mnote_page_too_large').details.bytes > LIMIT);
    assert.equal((await fetchJson(doc('e2e_large'))).status, 404, 'nothing was stored');
    const res = await putMarkdown('e2e_large', line.repeat(Math.floor(lines * 0.6)));
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.ok(res.body.blocks.length > 12_000);
    const back = await fetchJson(doc('e2e_large'));
    assert.equal(back.body.blocks.length, res.body.blocks.length);
    const again = await fetchJson(doc('e2e_large'), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: back.text });
    assert.equal(again.status, 200, again.text.slice(0, 300));
  });

  test('a single block too large to store is refused naming it (413 mnote_block_too_large), not with a 500', async () => {
    const res = await putMarkdown('e2e_md', `${'x'.repeat(1_500_000)}\n`);
    const error = assertCodedError(res, 413, 'mnote_block_too_large');
    assert.match(error.details.blockId, /^[a-z]/, JSON.stringify(error.details));
    assert.equal(error.details.limitBytes, 64 * 1024);
    await unchanged();
  });
});

test('state survives a restart on the same persist folder', async () => {
  const persistTo = await mkdtemp(join(tmpdir(), 'mnote-restart-'));
  try {
    const first = await startWorker({ persistTo });
    let page;
    try {
      const res = await fetchJson(`${first.url}/api/documents/keep_me`, {
        method: 'PUT',
        headers: { 'content-type': 'text/markdown' },
        body: '# 持久化 Persistence\n\n重启之后还在。 <!-- mnote:block id=p_keep -->\n',
      });
      assert.equal(res.status, 200, res.text);
      page = res.body;
    } finally {
      await first.stop();
    }
    await assert.rejects(fetch(`${first.url}/health`), 'stop() ended the server');

    const second = await startWorker({ persistTo });
    try {
      const res = await fetchJson(`${second.url}/api/documents/keep_me`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, page);
      assert.equal(res.body.blocks[1].blockId, 'p_keep');
    } finally {
      await second.stop();
    }
  } finally {
    await rm(persistTo, { recursive: true, force: true });
  }
});
