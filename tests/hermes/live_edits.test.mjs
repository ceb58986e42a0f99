// End-to-end with the REAL Hermes Agent (hermes-agent 0.19.0, over MCP, with a scripted model): a person
// keeps saving edits (`PATCH /api/documents/{id}/blocks`, every 200 ms) while Hermes reads the page and
// proposes a change to another block, and then accepts the proposal.
//
// - The person edits block X, Hermes proposes an update of block Y: every save lands, Hermes' proposal is
//   made (its preview says it was rebased over the person's saves), and the accept applies at once, with
//   no conflict and no retry.
// - The person then edits block Y itself before accepting: the accept is `stale`, writes nothing, and
//   carries a fresh preview against the person's text.
//
//   node --test --test-concurrency=1 tests/hermes/live_edits.test.mjs

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startWorker } from '../e2e/lib/wrangler.mjs';
import { TOOL_TOKEN, TOOL_VARS, editBlocks, fresh, getPage, putPage, review, session, setProfile, verifyAudit } from '../e2e/lib/mnote.mjs';
import { hermesInstalled, startHermes, HERMES_BIN } from './lib/hermes.mjs';
import { startModelServer, toolResults } from './lib/model_server.mjs';

const SAVE_EVERY_MS = 200;
const HERMES_TEXT = 'The plan is on track and reviewed weekly.';
const tool = (name) => `mcp__mnote__${name}`;

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

/**
 * A person saving a new text of one block every 200 ms, each save based on the revision their last save
 * answered (the revision they have seen). `block` may be switched while saving. Every answer is kept.
 */
function person(doc, startRevision, block) {
  const state = { block, revision: startRevision, saves: [], failures: [], stopped: false, waiters: [] };
  const loop = (async () => {
    while (!state.stopped) {
      const text = `${state.block}: the person's edit ${state.saves.length + 1}`;
      const res = await editBlocks(worker.url, doc, {
        baseRevision: state.revision,
        operations: [{ op: 'update', blockId: state.block, text }],
        idempotencyKey: fresh('person'),
      });
      if (res.status === 200) {
        state.revision = res.body.newRevision;
        state.saves.push({ block: state.block, text, revision: res.body.newRevision, rebased: res.body.warnings.some((w) => w.code === 'rebased') });
      } else {
        state.failures.push(`${res.status} ${res.text.slice(0, 300)}`);
      }
      state.waiters = state.waiters.filter((w) => !w());
      await new Promise((r) => setTimeout(r, SAVE_EVERY_MS));
    }
  })();
  return {
    state,
    /** Resolves once `n` more saves have landed. */
    more(n) {
      const target = state.saves.length + n;
      return new Promise((resolve) => {
        const check = () => state.saves.length >= target && (resolve(), true);
        if (!check()) state.waiters.push(check);
      });
    },
    async stop() {
      state.stopped = true;
      await loop;
    },
  };
}

/**
 * Hermes, asked to improve block p_y: fetches the page, waits until the person saved twice more (so the
 * page moves on between its read and its proposal), then proposes the update with `doc_plan_update`.
 * Answers the held result the model was given, the revision Hermes read, and the session.
 */
async function hermesProposes(doc, editor) {
  const first = model.requests.length;
  let read = null;
  model.script = async (req) => {
    const results = toolResults(req);
    if (results.length === 0) {
      return { toolCalls: [{ name: tool('doc_fetch'), arguments: { documentId: doc, scope: { type: 'full' }, formats: ['json'] } }] };
    }
    if (results.length === 1) {
      const context = results[0].mnote;
      read = context.revision;
      await editor.more(2);
      return {
        toolCalls: [{
          name: tool('doc_plan_update'),
          arguments: {
            documentId: doc,
            contextId: context.contextId,
            baseRevision: context.revision,
            idempotencyKey: fresh('hermes_plan'),
            summary: 'Say how the plan stands.',
            operations: [{ op: 'update', blockId: 'p_y', text: HERMES_TEXT }],
          },
        }],
      };
    }
    return { text: 'I proposed an update of the plan paragraph for your review.' };
  };
  const run = await hermes.run('Make the plan paragraph say how the plan stands.');
  const requests = model.requests.slice(first).filter((r) => Array.isArray(r.tools) && r.tools.length);
  assert.equal(run.status, 'run.completed', `run ended ${run.status}: ${JSON.stringify(run.error ?? run.events.at(-1))}\n${hermes.logs().slice(-2000)}`);
  // No conflict and no retry: one fetch, one proposal, one answer.
  assert.equal(requests.length, 3, 'the model was asked exactly three times');
  assert.deepEqual(run.events.filter((e) => e.event === 'tool.completed').map((e) => [e.tool, e.error]), [
    [tool('doc_fetch'), false],
    [tool('doc_plan_update'), false],
  ]);
  const held = toolResults(requests.at(-1))[1].mnote;
  assert.equal(held.schema, 'mnote.tool_result.v1', JSON.stringify(held).slice(0, 400));
  const pending = held.warnings.find((w) => w.code === 'review_pending');
  return { held, read, sessionId: pending.message.match(/rs\.[A-Za-z0-9_-]+\.[a-z2-7]+/)[0] };
}

async function startOn(doc) {
  const page = await putPage(worker.url, doc, {
    p_x: 'The person is writing this paragraph.',
    p_y: 'The plan is rough.',
    p_z: 'Risks are tracked in the risk log.',
  });
  return { page, editor: person(doc, page.revision, 'p_x') };
}

describe('a person editing while Hermes works', () => {
  test('edits of another block: Hermes proposes, the person accepts, it applies with no conflict and no retry', async () => {
    const doc = fresh('live_other');
    const { page, editor } = await startOn(doc);
    try {
      const { held, read, sessionId } = await hermesProposes(doc, editor);
      const rebased = held.warnings.find((w) => w.code === 'rebased');
      assert.ok(rebased, `the proposal was made on a newer page than Hermes read: ${JSON.stringify(held.warnings)}`);
      assert.match(rebased.message, new RegExp(`made against revision ${read};`));
      const base = (await session(worker.url, sessionId)).body.base.revision;

      await editor.more(2); // the page moves on after the proposal too
      const accepted = await review(worker.url, sessionId, 'accept', { idempotencyKey: fresh('accept') });
      assert.equal(accepted.status, 200, accepted.text);
      assert.equal(accepted.body.state, 'applied', 'applied at the first accept');
      const result = accepted.body.result;
      assert.ok(result.baseRevision > base, `applied on ${result.baseRevision}, proposed on ${base}`);
      assert.equal(result.warnings.find((w) => w.code === 'rebased')?.message,
        `the change was made against revision ${base}; the blocks it touches are unchanged, so it applied on revision ${result.baseRevision}`);
      await editor.more(2);
    } finally {
      await editor.stop();
    }
    assert.deepEqual(editor.state.failures, [], 'every save of the person landed');
    assert.ok(editor.state.saves.length >= 6, `${editor.state.saves.length} saves`);
    assert.ok(editor.state.saves.some((s) => s.rebased), 'some saves landed on a page Hermes had moved on');
    const final = await getPage(worker.url, doc);
    assert.equal(final.blocks[0].text, editor.state.saves.at(-1).text, "the person's last save");
    assert.equal(final.blocks[1].text, HERMES_TEXT, "Hermes' accepted change");
    assert.equal(final.revision, page.revision + editor.state.saves.length + 1, 'every write counted once');
    assert.equal((await verifyAudit(worker.url, doc)).body.verified, true);
  });

  test('edits of the block Hermes proposes to change: the accept is stale, with a fresh preview of the person\'s text', async () => {
    const doc = fresh('live_same');
    const { editor } = await startOn(doc);
    try {
      const { sessionId } = await hermesProposes(doc, editor);
      // Now the person edits the very block of the proposal.
      editor.state.block = 'p_y';
      await editor.more(3);
      const before = await getPage(worker.url, doc);
      const answer = await review(worker.url, sessionId, 'accept', { idempotencyKey: fresh('accept') });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.state, 'stale');
      assert.equal(answer.body.result, null, 'nothing written');
      const fresh_ = answer.body.stale.preview;
      assert.ok(fresh_, JSON.stringify(answer.body.stale));
      assert.ok(fresh_.baseRevision >= before.revision, 'the fresh preview is of the current page');
      const change = fresh_.changedBlocks[0];
      assert.equal(change.blockId, 'p_y');
      assert.match(change.before, /^p_y: the person's edit \d+$/, "the person's text, as the accept found it");
      assert.equal(change.after, HERMES_TEXT);
    } finally {
      await editor.stop();
    }
    assert.deepEqual(editor.state.failures, [], 'every save of the person landed');
    const final = await getPage(worker.url, doc);
    assert.equal(final.blocks[1].text, editor.state.saves.at(-1).text, "the person's text stays");
  });
});
