// End-to-end: `make dev` with a model named runs the whole loop (issue 28). scripts/dev is started as a
// person starts it, with only MNOTE_MODEL_URL set (the scripted OpenAI-compatible model server; the model is
// the first one it lists). It starts the Worker and the real `hermes gateway run` from .venv/hermes, with the
// configuration and the shared secrets it writes itself. In Chromium the demo sends a rewrite to Hermes; the
// tool events stream in, the proposal is held in Review, the person accepts it and the page has the new
// text. Then Ctrl-C (SIGINT to the script's process group, as a terminal sends it) leaves no process and no
// listening port behind.
//
//   node --test --test-concurrency=1 tests/e2e/hermes_dev.test.mjs

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { hermesInstalled, HERMES_BIN } from '../hermes/lib/hermes.mjs';
import { startModelServer, toolResults } from '../hermes/lib/model_server.mjs';
import { DESKTOP, launchBrowser, newTab } from './lib/browser.mjs';
import { captureOutput } from './lib/output.mjs';
import { SCREENS } from './lib/demo.mjs';
import { ROOT, freePort } from './lib/wrangler.mjs';

const READY_TIMEOUT_MS = 300_000;
const REWRITE = '把这段整理得更专业，并保留原意';
const NEW_TEXT = '第一版草稿由产品组撰写，其中的数据仍需与财务部门核对。The first draft still needs a numbers check.';
const tool = (name) => `mcp__mnote__${name}`;

let model;
let dev;
let browser;
const dirs = [];

/** The PIDs of every live descendant of `pid` (from /proc), so the test can tell that none outlives Ctrl-C. */
function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  const found = [];
  const walk = (p) => {
    for (const child of children.get(p) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    // A zombie is gone in all but name: its parent has not read its status yet.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

const listening = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Starts scripts/dev in its own process group; `line(re)` resolves with the first output line matching. */
function startDev(env) {
  const child = spawn(join(ROOT, 'scripts', 'dev'), [], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const output = captureOutput(child);
  // 'close': exited, and everything it printed has been read.
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const line = (re) => output.until(re, { timeoutMs: READY_TIMEOUT_MS });
  // Last resort on a failed test: the script's group (wrangler, workerd) and Hermes' own group.
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const hermes = descendants(child.pid);
    try {
      process.kill(-child.pid, 'SIGINT');
    } catch {
      // Already gone.
    }
    const timer = new Promise((r) => setTimeout(() => r('timeout'), 30_000).unref());
    if ((await Promise.race([exited, timer])) === 'timeout') {
      for (const pid of [child.pid, ...hermes]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      await exited;
    }
  };
  return { child, pid: child.pid, output: output.text, line, exited, kill };
}

before(async () => {
  assert.ok(hermesInstalled(), `the Hermes venv is missing (${HERMES_BIN}); run scripts/setup`);
  model = await startModelServer();
});

after(async () => {
  const results = await Promise.allSettled([browser?.close(), dev?.kill()]);
  await model?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  for (const r of results) if (r.status === 'rejected') throw r.reason;
});

test('make dev with MNOTE_MODEL_URL serves the demo with a working Hermes; Ctrl-C stops both', { timeout: 600_000 }, async () => {
  const state = mkdtempSync(join(tmpdir(), 'mnote-dev-state-'));
  const devDir = mkdtempSync(join(tmpdir(), 'mnote-dev-home-'));
  dirs.push(state, devDir);
  const port = await freePort();
  dev = startDev({ PORT: String(port), DEV_STATE: state, DEV_DIR: devDir, MNOTE_MODEL_URL: model.url });

  // One line per service, once each answers.
  const workerLine = await dev.line(/^dev: worker {2}ready on /);
  assert.match(workerLine, new RegExp(`http://127\\.0\\.0\\.1:${port} `));
  const hermesLine = await dev.line(/^dev: hermes {2}ready on /);
  assert.match(hermesLine, /model scripted-model at http:\/\/127\.0\.0\.1:\d+\/v1/, 'the first model the server lists');
  const hermesPort = Number(/127\.0\.0\.1:(\d+)/.exec(hermesLine)[1]);

  // The secrets are the script's own, kept for the next start, and never printed.
  const secrets = readFileSync(join(devDir, 'secrets.env'), 'utf8');
  assert.equal(statSync(join(devDir, 'secrets.env')).mode & 0o777, 0o600);
  for (const name of ['HERMES_API_KEY', 'MNOTE_TOOL_TOKEN']) {
    const value = new RegExp(`^${name}=(.+)$`, 'm').exec(secrets)?.[1];
    assert.ok(value && value.length >= 32, name);
    assert.ok(!dev.output().includes(value), `${name} is not in make dev's output`);
  }
  const config = JSON.parse(readFileSync(join(devDir, 'hermes', 'config.yaml'), 'utf8'));
  assert.deepEqual(config.platform_toolsets, { api_server: ['mnote'] }, 'only the mnote tools');
  assert.equal(config.mcp_servers.mnote.url, `http://127.0.0.1:${port}/mcp`);

  // The scripted model: read the page with the run's context, propose the rewrite, then answer.
  let contextSeen = null;
  model.script = async (req) => {
    const results = toolResults(req);
    if (results.length === 0) {
      contextSeen = JSON.stringify(req.messages ?? []).match(/contextId: (ctx_[A-Za-z0-9_-]+)/)?.[1] ?? null;
      return { toolCalls: [{ name: tool('doc_fetch'), arguments: { documentId: 'welcome', contextId: contextSeen, scope: { type: 'block', blockId: 'p_draft' }, formats: ['json'] } }] };
    }
    if (results.length === 1) {
      const context = results[0].mnote;
      return {
        toolCalls: [{
          name: tool('doc_plan_update'),
          arguments: {
            documentId: 'welcome',
            contextId: contextSeen,
            baseRevision: context.revision,
            idempotencyKey: `dev_plan_${Date.now()}`,
            summary: 'A more professional wording, same meaning.',
            operations: [{ op: 'update', blockId: 'p_draft', text: NEW_TEXT }],
          },
        }],
      };
    }
    return { text: '我整理了这一段的措辞，等你审阅。' };
  };

  browser = await launchBrowser();
  const { page } = await newTab(browser, { viewport: DESKTOP });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForSelector('body[data-state=ready]', { timeout: 60_000 });
  await page.fill('#command-input', REWRITE);
  await page.waitForSelector('#command-panel[data-status=hermes]');
  await page.click('#command-hermes');

  // The tool events stream in, and the proposal waits in Review. Should one never come, the failure says
  // what the model was asked, what make dev printed and the end of Hermes' own log.
  const streamed = async (selector) => {
    try {
      await page.waitForSelector(selector, { timeout: 120_000 });
    } catch (error) {
      const log = join(devDir, 'hermes', 'gateway.log');
      const tail = (text) => text.split('\n').slice(-60).join('\n');
      const last = toolResults(model.requests.at(-1) ?? {}).map((r) => ({ isError: r.isError, content: String(r.content).slice(0, 300) }));
      const status = await page.locator('#hermes-run').getAttribute('data-status').catch(() => null);
      error.message += `\nmodel requests: ${model.requests.length}; tool results in the last: ${JSON.stringify(last)}; run status: ${status}`;
      error.message += `\nmake dev's output:\n${tail(dev.output())}`;
      error.message += `\nthe end of ${log}:\n${existsSync(log) ? tail(readFileSync(log, 'utf8')) : '(none)'}`;
      throw error;
    }
  };
  await streamed('#hermes-events li[data-tool="mcp__mnote__doc_fetch"]');
  await streamed('#hermes-events li[data-tool="mcp__mnote__doc_plan_update"]');
  await streamed('#hermes-run[data-status=completed]');
  assert.ok(contextSeen, 'Hermes was given the run context in its instructions');
  await page.waitForSelector('#review-session[data-state=awaiting_user]', { timeout: 30_000 });
  await page.locator('#review-session').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENS, 'dev-hermes-review-desktop.png') });
  const readBack = () => page.evaluate(async () => (await fetch('/api/documents/welcome')).json());
  assert.notEqual((await readBack()).blocks.find((b) => b.blockId === 'p_draft').text, NEW_TEXT, 'held, not applied');

  await page.click('#review-session [data-action="accept"]');
  await page.waitForSelector('#review-session[data-state=applied]');
  assert.equal((await readBack()).blocks.find((b) => b.blockId === 'p_draft').text, NEW_TEXT);
  await browser.close();
  browser = null;

  // Ctrl-C: the terminal sends SIGINT to the foreground group, which is scripts/dev's.
  const started = [dev.pid, ...descendants(dev.pid)];
  assert.ok(started.length >= 4, `scripts/dev, wrangler, workerd and Hermes are running: ${started}`);
  process.kill(-dev.pid, 'SIGINT');
  const { code, signal } = await dev.exited;
  assert.ok(code !== null || signal !== null);
  const left = started.filter(alive);
  assert.deepEqual(left, [], `processes left after Ctrl-C:\n${dev.output().slice(-2000)}`);
  assert.equal(await listening(port), false, 'the Worker port is closed');
  assert.equal(await listening(hermesPort), false, 'the Hermes port is closed');
  assert.ok(existsSync(join(devDir, 'secrets.env')), 'the secrets stay for the next start');
});

test('a model URL that is not a URL, or a server that lists no model, is said in one line and nothing starts', async () => {
  const bad = startDev({ PORT: String(await freePort()), MNOTE_MODEL_URL: '127.0.0.1:11434' });
  assert.deepEqual(await bad.exited, { code: 2, signal: null });
  assert.match(bad.output(), /dev: MNOTE_MODEL_URL=127\.0\.0\.1:11434 is not an http\(s\) URL \(e\.g\. http:\/\/127\.0\.0\.1:11434\/v1\)/);

  const nobody = `http://127.0.0.1:${await freePort()}/v1`;
  const devDir = mkdtempSync(join(tmpdir(), 'mnote-dev-home-'));
  dirs.push(devDir);
  const silent = startDev({ PORT: String(await freePort()), DEV_DIR: devDir, MNOTE_MODEL_URL: nobody });
  assert.deepEqual(await silent.exited, { code: 1, signal: null });
  assert.match(silent.output(), new RegExp(`dev: no model listed at ${nobody.replaceAll('.', '\\.')}/models; name one: MNOTE_MODEL=<model>`));
  assert.doesNotMatch(silent.output(), /wrangler|Ready on|ready on/);
});
