// End-to-end: the shared wire fixtures (tests/fixtures/wire/v1, written by core's golden tests) against the
// Worker under wrangler dev: what `/mcp` lists is the mcp_tools_list fixtures (those without grants), and the AI tool calls of the
// tool_result fixtures get the fixtures' coded error bodies from the tool route. The native side of the same
// check is worker/src/services/wire_fixtures_tests.rs.
//
//   node --test --test-concurrency=1 tests/e2e/wire_fixtures.test.mjs

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT, startWorker } from './lib/wrangler.mjs';
import { TOOL_VARS, fresh, mcp, sendJson, setProfile, toolCall } from './lib/mnote.mjs';

const DIR = join(ROOT, 'tests', 'fixtures', 'wire', 'v1');

/** The v1 fixtures whose names start with `prefix`, as `[name, {input, output|error}]`, in name order. */
function fixtures(prefix) {
  const found = readdirSync(DIR)
    .filter((file) => file.startsWith(prefix) && file.endsWith('.json'))
    .sort()
    .map((file) => [file.slice(0, -'.json'.length), JSON.parse(readFileSync(join(DIR, file), 'utf8'))]);
  assert.ok(found.length > 0, `no fixture starts with ${prefix}`);
  return found;
}

let worker;
let url;

before(async () => {
  worker = await startWorker({ vars: TOOL_VARS });
  url = worker.url;
});

after(async () => {
  await worker?.stop();
});

describe('the wire fixtures under wrangler dev', () => {
  test('tools/list answers the mcp_tools_list fixtures under their profiles', async () => {
    let checked = 0;
    for (const [name, fixture] of fixtures('mcp_tools_list.')) {
      // The tool token carries no grants: a list narrowed by grants is the package's and core's to check.
      if (fixture.input.grants !== null) continue;
      assert.equal(fixture.input.permission, 'edit', name);
      await setProfile(url, { reviewMode: 'review', tools: { disabled: [] }, ...fixture.input.profile });
      const list = await mcp(url, 'tools/list', {});
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(list.body.result.tools, fixture.output, name);
      checked += 1;
    }
    assert.ok(checked >= 1, 'no fixture without grants');
  });

  test('the AI calls of the tool_result fixtures get their coded error bodies from the tool route', async () => {
    let checked = 0;
    for (const [name, fixture] of fixtures('tool_result.')) {
      const { call, page, profile } = fixture.input;
      // A locked block is never a frozen context's target: the Worker answers out of scope first (see the
      // native test); a person's edit goes to the block-edit route.
      if (!fixture.error || call.origin !== 'hermes' || name === 'tool_result.locked') continue;
      const documentId = `fx_${name.replace(/\W/g, '_')}`;
      const put = await sendJson(`${url}/api/documents/${documentId}`, 'PUT', { title: page.title, blocks: page.blocks });
      assert.equal(put.status, 200, put.text);
      await setProfile(url, { tools: { disabled: [] }, ...profile });
      const traceId = fresh('tr');
      const args = { ...call.args, documentId, baseRevision: put.body.revision };
      const answer = await toolCall(url, call.toolName, args, { traceId });
      const { requestId, ...body } = answer.body;
      assert.equal(typeof (requestId ?? ''), 'string', name);
      assert.deepEqual(body, { ...fixture.error, traceId }, name);
      checked += 1;
    }
    assert.ok(checked >= 3, `only ${checked} fixtures checked`);
  });
});
