// End-to-end: one meaning of selection. For every line of the router corpus that has a selection, the npm
// package's `PageSession.route(prompt, {selection})` in the browser and the server's command route
// (`POST /api/page-ai/command` with the same `selection`) give the same route for the same page and
// profile; and the case a person hit in the demo: a text found only outside the two selected blocks is
// "outside the selection" in both, and an Apply of it writes nothing and starts no Hermes run.
//
//   node --test --test-concurrency=1 tests/e2e/selection_parity.test.mjs

import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT, startWorker } from './lib/wrangler.mjs';
import { command, fresh, getPage, sendJson, setProfile } from './lib/mnote.mjs';

const pageai = createRequire(import.meta.url)(join(ROOT, 'wasm', 'pkg', 'node', 'pageai.js'));
const ROUTER = join(ROOT, 'tests', 'fixtures', 'router');

const pages = Object.fromEntries(
  readdirSync(join(ROUTER, 'pages')).map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(ROUTER, 'pages', file), 'utf8'))]),
);
const lines = readFileSync(join(ROUTER, 'corpus.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line));
// A read-only page is a permission the Worker's PUT sets too, so those lines are kept.
const withSelection = lines.filter((line) => line.selection.length > 0);

let worker;
let url;

before(async () => {
  worker = await startWorker();
  url = worker.url;
});

after(async () => {
  await worker?.stop();
});

/** Stores the corpus page `name` as a fresh document with the line's permission; answers the stored page. */
async function store(name, permission = 'edit') {
  const fixture = pages[name];
  const documentId = fresh('sel').replace(/[^a-z0-9_-]/gi, '_');
  const body = { title: fixture.title, permission, blocks: fixture.blocks };
  const res = await sendJson(`${url}/api/documents/${documentId}`, 'PUT', body);
  assert.equal(res.status, 200, res.text);
  return getPage(url, documentId);
}

/** A route with the ids each side mints (context, idempotency key) replaced by placeholders. */
function normalized(route, contextId) {
  const call = route.recommendedToolCall;
  const key = call?.args?.idempotencyKey;
  let text = JSON.stringify(route).replaceAll(contextId, '<context>');
  if (key) text = text.replaceAll(key, '<key>');
  return JSON.parse(text);
}

/** The browser's route: the package on the page the server stored, under the same profile. */
function browserRoute(page, prompt, selection, profile) {
  const session = new pageai.PageSession(page);
  try {
    const route = session.route(prompt, { selection, profile });
    return normalized(route, route.recommendedToolCall?.args?.contextId ?? route.toolHint?.contextId ?? '<none>');
  } finally {
    session.free();
  }
}

describe('PageSession.route and the command route agree on a selection', () => {
  test(`every corpus line with a selection (${withSelection.length} lines) routes the same in both`, async () => {
    assert.ok(withSelection.length >= 50, `${withSelection.length} lines`);
    const differ = [];
    for (const line of withSelection) {
      const profile = await setProfile(url, { tools: { disabled: line.profile.disabled }, reviewMode: line.profile.reviewMode });
      const page = await store(line.page, line.permission === 'read' ? 'read' : 'edit');
      const expected = browserRoute(page, line.prompt, line.selection, profile);
      // Review mode `required` holds a direct write, so the server's route is read without writing; the
      // route itself does not depend on it beyond `requiresReview`, which the profile decides on both sides.
      const res = await command(url, { documentId: page.documentId, prompt: line.prompt, selection: line.selection, runHermes: false });
      assert.equal(res.status, 200, `${line.id}: ${res.text}`);
      const got = normalized(res.body.route, res.body.contextId);
      try {
        assert.deepEqual(got, expected);
      } catch {
        differ.push(`${line.id} ${JSON.stringify(line.prompt)}\n  server  ${JSON.stringify(got)}\n  browser ${JSON.stringify(expected)}`);
      }
      assert.equal(res.body.hermesRun, undefined, `${line.id}: runHermes:false starts no run`);
    }
    assert.deepEqual(differ, [], `${differ.length} lines differ:\n${differ.join('\n')}`);
  });

  test('a text only outside the two selected blocks is outside the selection, and Apply writes nothing', async () => {
    await setProfile(url, { tools: { disabled: [] }, reviewMode: 'yolo' });
    const page = await store('zh_weekly');
    const selection = ['p_1', 'p_2'];
    const outside = page.blocks.find((b) => !selection.includes(b.blockId) && b.text.includes('Safari'));
    assert.ok(outside, 'the fixture has the text outside the selection');
    const prompt = '把「Safari」替换为「Firefox」';
    const preview = browserRoute(page, prompt, selection, { tools: { disabled: [] }, reviewMode: 'yolo' });
    assert.equal(preview.requiresHermesRun, true);
    assert.equal(preview.reasonCode, 'out_of_selection');
    assert.ok(preview.reason.includes(outside.blockId), preview.reason);

    const res = await command(url, { documentId: page.documentId, prompt, selection, runHermes: false });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.outcome, 'hermes');
    assert.equal(res.body.route.reasonCode, 'out_of_selection');
    assert.equal(res.body.hermesRun, undefined, 'no run was started');
    const after = await getPage(url, page.documentId);
    assert.equal(after.revision, page.revision, 'nothing was written');
    assert.deepEqual(after.blocks, page.blocks);

    // Without a selection the same command is a direct write, in both.
    const whole = browserRoute(page, prompt, [], { tools: { disabled: [] }, reviewMode: 'yolo' });
    assert.equal(whole.requiresHermesRun, false);
    const applied = await command(url, { documentId: page.documentId, prompt, runHermes: false });
    assert.equal(applied.body.outcome, 'applied', applied.text);
    assert.ok(applied.body.page.blocks.find((b) => b.blockId === outside.blockId).text.includes('Firefox'));
  });
});
