// The whole suggestions story of issue 33, in headless Chromium, with the REAL Hermes Agent (hermes-agent
// 0.19.0 over MCP, behind the Worker's proxy, with a scripted model) and two people of one workspace:
//
// 1. Eve (an editor, desktop) turns Suggesting on and types in a paragraph: a suggestion, no write. Ana
//    (the owner, on a phone) sees it appear in the page, live.
// 2. Eve asks Hermes, from the command box, to build on it. Hermes reads the page with doc_fetch: the
//    suggestion is there in every view (text, page_xml, JSON), marked as not the page's text. It proposes
//    its own change to the same paragraph, on top of Eve's; the review mode holds it. Both tabs see it live.
// 3. Ana accepts Hermes' change inline and rejects Eve's (stale now) inline.
// 4. Eve edits another paragraph; her Ctrl+Z undoes that typing only (Hermes' accepted change stays), and
//    Ctrl+Shift+Z brings it back.
// 5. Ana undoes Hermes' run: the paragraph is back as it was, Eve's edit elsewhere stays.
//
// Screenshots at desktop (Eve) and phone (Ana) widths: tests/artifacts/screens/story-*.png.
//
//   node --test --test-concurrency=1 --experimental-websocket tests/hermes/suggestions_story.test.mjs

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { DESKTOP, PHONE, launchBrowser, newTab } from '../e2e/lib/browser.mjs';
import { SCREENS, shoot } from '../e2e/lib/demo.mjs';
import { claims, jwkSet, jwtVars, makeKeys, sign } from '../e2e/lib/identity.mjs';
import { TOOL_TOKEN, TOOL_VARS, fresh, setProfile } from '../e2e/lib/mnote.mjs';
import { ROOT, freePort, startWorker } from '../e2e/lib/wrangler.mjs';
import { hermesInstalled, startHermes, HERMES_BIN } from './lib/hermes.mjs';
import { startModelServer, toolResults } from './lib/model_server.mjs';

const tool = (name) => `mcp__mnote__${name}`;
const keys = makeKeys();
const token = (sub, role) => sign(keys.es, claims({ sub, workspaces: { ws_story: role } }));
const TOKENS = { ana: token('user_ana', 'owner'), eve: token('user_eve', 'editor') };

const ORIGINAL = 'Ship the draft on Friday.';
const EVE_ADDS = ' after the review';
const EVE_TEXT = 'Ship the draft on Friday after the review.';
const HERMES_TEXT = 'Ship the draft on Friday after the review, with the numbers checked by finance.';
const NOTES = '第一版计划由产品组撰写。';
const EVE_NOTE = '第一版计划由产品组撰写。请财务核对。';

let worker;
let ana; // Ana's tab: the owner's, on a phone
let model;
let hermes;
let browser;
let persist;

before(
  async () => {
    assert.ok(hermesInstalled(), `the Hermes venv is missing (${HERMES_BIN}); run scripts/setup`);
    execFileSync(join(ROOT, 'scripts', 'build-wasm'), { stdio: 'inherit' });
    mkdirSync(SCREENS, { recursive: true });
    // Hermes needs the Worker's MCP endpoint when it starts, and the Worker needs Hermes' address: the
    // Worker starts, then Hermes, then the Worker again on the same port and storage with Hermes' address.
    const port = await freePort();
    persist = await mkdtemp(join(tmpdir(), 'mnote-story-'));
    const vars = { ...TOOL_VARS, ...jwtVars(jwkSet(keys)), MNOTE_DEV_AUTO_LOGIN: 'false', MNOTE_SIGN_IN_FREE_FAILURES: '10000' };
    worker = await startWorker({ port, persistTo: persist, vars });
    const owner = { authorization: `Bearer ${TOKENS.ana}`, origin: worker.url };
    await setProfile(worker.url, { tools: { disabled: [] }, reviewMode: 'review' }, { workspaceId: 'ws_story', headers: owner });
    model = await startModelServer();
    hermes = await startHermes({ mcp: { url: `${worker.url}/mcp`, toolToken: TOOL_TOKEN }, modelUrl: model.url, modelId: model.modelId });
    await worker.stop();
    worker = await startWorker({ port, persistTo: persist, vars: { ...vars, HERMES_UPSTREAM_URL: hermes.url, HERMES_API_KEY: hermes.key } });
    browser = await launchBrowser();
  },
  { timeout: 600_000 },
);

after(async () => {
  await browser?.close();
  await hermes?.stop();
  await model?.stop();
  await worker?.stop();
  if (persist) await rm(persist, { recursive: true, force: true });
});

/** `method path` as `who`: `{status, body}`. */
async function as(who, method, path, body) {
  const res = await fetch(`${worker.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS[who]}`, origin: worker.url },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** A tab signed in as `who` on the page, once the demo is ready. */
async function openAs(who, doc, viewport) {
  const tab = await newTab(browser, { viewport });
  const signedIn = await tab.page.context().request.post(`${worker.url}/api/auth/session`, {
    headers: { authorization: `Bearer ${TOKENS[who]}`, origin: worker.url },
  });
  assert.equal(signedIn.status(), 200, await signedIn.text());
  await tab.page.goto(`${worker.url}/?doc=${doc}`);
  await tab.page.waitForSelector('body[data-state=ready], body[data-state=error]', { timeout: 60_000 });
  assert.equal(await tab.page.getAttribute('body', 'data-state'), 'ready');
  return tab;
}

/** What went wrong in a tab, less the dev sign-in the page tries first (off here: people sign in with tokens). */
const problems = (tab) => tab.problems.filter((p) => !/dev-login|status of 401/.test(p));
const texts = async (doc) => (await as('ana', 'GET', `/api/documents/${doc}`)).body.blocks.map((b) => b.text);
const pending = async (doc) => (await as('ana', 'GET', `/api/documents/${doc}/suggestions`)).body.suggestions;
const bars = (page, blockId) => page.locator(`#page-blocks [data-block-id="${blockId}"] .suggestion-bar`);
const textOf = (page, blockId) => page.locator(`#page-blocks [data-block-id="${blockId}"] .block-text`);

/**
 * Waits until the stored page's texts are `want`: Ana's tab shows them once the live channel brought the
 * committed write (the event, not a timer); then the store is read once to check.
 */
async function storedTexts(doc, want) {
  await ana.page.waitForFunction(
    (texts) => texts.every(([id, text]) => document.querySelector(`#page-blocks [data-block-id="${id}"] .block-text`)?.textContent === text),
    [['p_plan', want[1]], ['p_notes', want[2]]],
  );
  assert.deepEqual(await texts(doc), want);
}

/** Puts the caret at the end of a block's text. */
async function caretAtEnd(page, blockId) {
  await textOf(page, blockId).click();
  await page.keyboard.press('End');
}

test('a person suggests, Hermes builds on it, an owner decides inline, own typing undoes alone, the run is undone', { timeout: 900_000 }, async () => {
  const doc = fresh('story').replaceAll('.', '_');
  const blocks = [
    { blockId: 'h_1', type: 'heading', text: 'Launch plan', attrs: { level: 1 } },
    { blockId: 'p_plan', type: 'paragraph', text: ORIGINAL },
    { blockId: 'p_notes', type: 'paragraph', text: NOTES },
  ];
  const made = await as('ana', 'PUT', `/api/documents/${doc}`, { workspaceId: 'ws_story', title: 'Launch plan', blocks });
  assert.equal(made.status, 200, made.text);
  const eve = await openAs('eve', doc, DESKTOP);
  ana = await openAs('ana', doc, PHONE);

  // 1. Eve suggests: her typing is held as her suggestion, the page is not written.
  await eve.page.locator('#suggest-toggle').click();
  assert.equal(await eve.page.locator('#suggest-toggle').getAttribute('aria-pressed'), 'true');
  await caretAtEnd(eve.page, 'p_plan');
  await eve.page.keyboard.press('ArrowLeft'); // before the full stop
  await eve.page.keyboard.type(EVE_ADDS, { delay: 15 });
  await textOf(eve.page, 'h_1').click(); // the caret leaves the block: the batch is sent
  await eve.page.waitForFunction(
    () => document.querySelector('#page-blocks [data-block-id="p_plan"] .suggestion-bar[data-author^="person:user_eve"]') !== null,
  );
  const [mine] = await pending(doc);
  assert.equal(mine.author.actor, 'user_eve');
  assert.equal(mine.diff.after, EVE_TEXT);
  assert.deepEqual(await texts(doc), ['Launch plan', ORIGINAL, NOTES], 'a suggestion writes nothing');
  // Ana sees it in the page, live: the inserted words marked.
  await bars(ana.page, 'p_plan').first().waitFor();
  assert.equal((await ana.page.locator('#page-blocks [data-block-id="p_plan"] ins').allInnerTexts()).join('').trim(), EVE_ADDS.trim());
  await shoot(eve.page, 'story-suggested-desktop');

  // 2. Eve asks Hermes to build on it. The scripted model reads the page, then proposes on top.
  let contextId;
  let read;
  model.script = (req) => {
    const results = toolResults(req);
    contextId ??= JSON.stringify(req.messages ?? []).match(/contextId: (ctx_[A-Za-z0-9_-]+)/)?.[1];
    if (results.length === 0) {
      return {
        toolCalls: [{ name: tool('doc_fetch'), arguments: { documentId: doc, contextId, scope: { type: 'full' }, formats: ['text', 'page_xml', 'json'] } }],
      };
    }
    if (results.length === 1) {
      read = results[0];
      const context = read.mnote;
      const suggestion = context.suggestions?.find((s) => s.blockId === 'p_plan');
      return {
        toolCalls: [{
          name: tool('doc_plan_update'),
          arguments: {
            documentId: doc,
            contextId,
            baseRevision: context.revision,
            idempotencyKey: fresh('hermes_plan'),
            summary: 'Builds on Eve’s suggestion: say who checks the numbers.',
            operations: [{ op: 'update', blockId: 'p_plan', text: `${(suggestion?.after ?? ORIGINAL).replace(/\.$/, '')}, with the numbers checked by finance.` }],
          },
        }],
      };
    }
    return { text: 'I proposed a change on top of Eve’s suggestion, for your review.' };
  };
  await eve.page.fill('#command-input', 'Build on the pending suggestion in the plan paragraph');
  await eve.page.waitForSelector('#command-panel[data-status=hermes]');
  await eve.page.click('#command-hermes');
  await eve.page.waitForSelector('#hermes-run[data-status=completed], #hermes-run[data-status=failed]', { timeout: 300_000 });
  assert.equal(await eve.page.locator('#hermes-run').getAttribute('data-status'), 'completed', hermes.logs().slice(-2000));

  // What Hermes read: the suggestion in every view, marked as not the page's text.
  assert.ok(read && read.isError === false, `doc_fetch: ${read?.content?.slice(0, 400)}`);
  const context = read.mnote;
  assert.equal(context.schema, 'mnote.page_ai_context.v2');
  assert.deepEqual(context.suggestions.map((s) => [s.blockId, s.author.kind, s.author.actor, s.after]), [['p_plan', 'person', 'user_eve', EVE_TEXT]]);
  assert.match(context.pageText, /NOT page text/);
  assert.ok(context.pageText.includes(EVE_TEXT.replace(/"/g, '\\"')), context.pageText);
  assert.match(context.pageXml, /<suggestion [^>]*page-text="false"/);
  assert.equal(context.blocks.find((b) => b.blockId === 'p_plan').text, ORIGINAL, "the page's own text is unchanged");

  // Held for review: both tabs show Hermes' suggestion beside Eve's, live.
  for (const tab of [eve, ana]) {
    await tab.page.locator('#page-blocks [data-block-id="p_plan"] .suggestion-bar[data-author^="hermes:"]').waitFor();
    assert.equal(await bars(tab.page, 'p_plan').count(), 2);
  }
  const hermesSuggestion = (await pending(doc)).find((s) => s.author.kind === 'hermes');
  assert.equal(hermesSuggestion.diff.after, HERMES_TEXT);
  assert.equal(hermesSuggestion.reason, 'Builds on Eve’s suggestion: say who checks the numbers.');
  assert.deepEqual(await texts(doc), ['Launch plan', ORIGINAL, NOTES], 'a held proposal writes nothing');
  await shoot(ana.page, 'story-two-suggestions-phone');
  await shoot(eve.page, 'story-two-suggestions-desktop');

  // 3. Ana accepts Hermes' change inline; Eve's is stale then, and Ana rejects it inline.
  await ana.page.locator('#page-blocks [data-block-id="p_plan"] .suggestion-bar[data-author^="hermes:"] [data-action=accept]').click();
  await storedTexts(doc, ['Launch plan', HERMES_TEXT, NOTES]);
  const eveBar = ana.page.locator('#page-blocks [data-block-id="p_plan"] .suggestion-bar[data-author^="person:user_eve"]');
  await ana.page.locator('#page-blocks [data-block-id="p_plan"] .suggestion-bar[data-author^="person:user_eve"][data-state=stale]').waitFor();
  await eveBar.locator('[data-action=reject]').click();
  await bars(ana.page, 'p_plan').first().waitFor({ state: 'detached' });
  assert.deepEqual(await pending(doc), []);
  await bars(eve.page, 'p_plan').first().waitFor({ state: 'detached' });
  await eve.page.waitForFunction((t) => document.querySelector('#page-blocks [data-block-id="p_plan"] .block-text')?.textContent === t, HERMES_TEXT);

  // 4. Eve writes again (Suggesting off) in the other paragraph; Ctrl+Z undoes that typing only.
  await eve.page.locator('#suggest-toggle').click();
  assert.equal(await eve.page.locator('#suggest-toggle').getAttribute('aria-pressed'), 'false');
  await caretAtEnd(eve.page, 'p_notes');
  await eve.page.keyboard.type('请财务核对。', { delay: 15 });
  await storedTexts(doc, ['Launch plan', HERMES_TEXT, EVE_NOTE]);
  await eve.page.keyboard.press('Control+z');
  await storedTexts(doc, ['Launch plan', HERMES_TEXT, NOTES]);
  await eve.page.keyboard.press('Control+Shift+z');
  await storedTexts(doc, ['Launch plan', HERMES_TEXT, EVE_NOTE]);

  // 5. Ana undoes Hermes' run from its change in Review: the paragraph is back, Eve's edit stays.
  await ana.page.click('#tabbar [data-tab=review]');
  await ana.page.click(`#review-list [data-session-id="${hermesSuggestion.sessionId}"]`);
  await ana.page.waitForSelector(`#review-session[data-session-id="${hermesSuggestion.sessionId}"] #run-undo-button`);
  const before = (await as('ana', 'GET', `/api/documents/${doc}`)).body.revision;
  await ana.page.click('#run-undo-button');
  await ana.page.waitForSelector('#run-undo-status.status-ok');
  assert.deepEqual(await texts(doc), ['Launch plan', ORIGINAL, EVE_NOTE]);
  assert.equal((await as('ana', 'GET', `/api/documents/${doc}`)).body.revision, before + 1, 'the run is undone in one write');
  await eve.page.waitForFunction((t) => document.querySelector('#page-blocks [data-block-id="p_plan"] .block-text')?.textContent === t, ORIGINAL);
  // The panel paints itself again as the live channel and the reload arrive: scroll to it as it is now.
  await ana.page.waitForSelector('#review-session[data-state=reverted]');
  await ana.page.evaluate(() => document.querySelector('#run-undo-status')?.scrollIntoView({ block: 'center' }));
  await shoot(ana.page, 'story-run-undone-phone');
  await shoot(eve.page, 'story-run-undone-desktop');

  const audit = (await as('ana', 'GET', `/api/documents/${doc}/audit`)).body;
  const actions = (audit.entries ?? audit).map((e) => e.action);
  assert.ok(actions.includes('review.undo_run'), actions.join(', '));
  assert.deepEqual(problems(eve), []);
  assert.deepEqual(problems(ana), []);
});
