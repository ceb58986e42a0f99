// Shared end-to-end harness: start the Worker under `wrangler dev` (workerd, local Durable Objects) on a
// free port, and talk to it over HTTP.
//
//   import { startWorker, fetchJson, assertCodedError } from './lib/wrangler.mjs';
//   const worker = await startWorker();            // fresh, empty state
//   const res = await fetchJson(`${worker.url}/health`);
//   await worker.stop();
//
// wrangler is started as `node …/wrangler.js`, never through npx: a SIGTERM to that PID then also ends
// workerd (killing npx would leave both running). Each instance gets its own HTTP port, inspector port
// and state folder, so several can run at once.
//
// The harness builds the Worker itself (worker/build.sh, a no-op when up to date) and starts wrangler on a
// copy of worker/wrangler.toml without its [build] table. With [build], wrangler 4.86 runs the build a second
// time once its file watcher is ready and reloads the Worker; when that lands after `/health` first
// answers, a test's first request can meet the reload.

import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { captureOutput } from './output.mjs';

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js');
const WORKER_DIR = join(ROOT, 'worker');

// A cold release build of the Worker takes about a minute on two cores; wrangler runs it before listening.
const READY_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 10_000;
const LOG_TAIL_CHARS = 4_000;

/**
 * The client token every test Worker accepts (`MNOTE_CLIENT_TOKEN`) unless a test passes its own, and
 * the session secret it signs cookies with. Test values only; never used outside a test Worker.
 */
export const TEST_CLIENT_TOKEN = 'e2e-client-token-0123456789abcdef';
export const TEST_SESSION_SECRET = 'e2e-session-secret-0123456789abcdef';

/**
 * worker/wrangler.toml without its [build] table, written next to it (its paths are relative to it) as
 * worker/wrangler.no-build.toml (git-ignored), after worker/build.sh has brought the bundle up to date.
 * Once per test process.
 */
let noBuildConfig;
function workerConfig() {
  noBuildConfig ??= (async () => {
    await promisify(execFile)(join(WORKER_DIR, 'build.sh'), [], { cwd: WORKER_DIR, maxBuffer: 64 * 1024 * 1024 });
    const toml = await readFile(join(WORKER_DIR, 'wrangler.toml'), 'utf8');
    // The table runs from its header to the next header.
    const stripped = toml.replace(/^\[build\]\n(?:(?!\[).*\n)*/m, '');
    assert.ok(!/^\[build\]/m.test(stripped) && stripped !== toml, 'worker/wrangler.toml has one [build] table');
    const path = join(WORKER_DIR, 'wrangler.no-build.toml');
    const text = `# Written by tests/e2e/lib/wrangler.mjs from wrangler.toml; do not edit.\n${stripped}`;
    // wrangler watches its config and restarts the Worker when the file changes: a file that already says
    // this is left alone, so a test process starting never restarts another one's Workers. Several may
    // write it at once: each writes its own file and renames it into place.
    if ((await readFile(path, 'utf8').catch(() => null)) !== text) {
      const own = `${path}.${process.pid}`;
      await writeFile(own, text);
      await rename(own, path);
    }
    return path;
  })();
  return noBuildConfig;
}

/** Workers still running, so a crashed test run does not leave wrangler and workerd behind. */
const running = new Set();
process.on('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

/** A TCP port that is free right now on 127.0.0.1. */
export async function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * Starts the Worker and waits until `GET /health` answers 200.
 *
 * @param {object} [options]
 * @param {string} [options.persistTo] state folder; default a fresh temporary one, removed by stop().
 *   Pass the same folder to two successive workers to test that state survives a restart.
 * @param {number} [options.port] HTTP port; default a free one.
 * @param {string} [options.config] a wrangler.toml other than worker/'s (a bench's minimal Worker).
 * @param {'health'|'log'} [options.ready] `health` (default): wait until `GET /health` answers 200; `log`:
 *   only until wrangler prints "Ready on", so the caller's first request is the Worker's first (a cold
 *   start bench).
 * @param {Record<string,string>} [options.vars] Worker vars and secrets, passed as `--var NAME:VALUE`.
 *   `MNOTE_CLIENT_TOKEN` and `MNOTE_SESSION_SECRET` default to the test values above, and
 *   `MNOTE_PUBLIC_ORIGIN` to the Worker's URL; pass `null` to leave one unset.
 * @returns {Promise<{url: string, port: number, persistTo: string, pid: number, logs: () => string,
 *   waitForLog: (re: RegExp, opts?: {timeoutMs?: number}) => Promise<string>,
 *   auth: Record<string,string>, stop: () => Promise<void>}>} `auth` holds the Bearer header; `waitForLog`
 *   resolves with the first log line matching `re`.
 */
export async function startWorker(options = {}) {
  // A port free when `freePort` looked can be taken before wrangler binds it: by another wrangler or workerd
  // starting at the same time (each also picks ports of its own). wrangler then exits saying so; start again
  // on fresh ports, a few times, unless the caller chose the port.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startWorkerOnce(options);
    } catch (error) {
      const raced = error?.portTaken === true;
      if (!raced || options.port !== undefined || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** How many times [`startWorker`] tries fresh ports when the ones it picked were taken meanwhile. */
const PORT_ATTEMPTS = 3;

async function startWorkerOnce({ persistTo, port, config, vars = {}, ready = 'health' }) {
  const httpPort = port ?? (await freePort());
  // The Worker's own origin is configured, never taken from the request's Host (as scripts/dev does).
  vars = {
    MNOTE_CLIENT_TOKEN: TEST_CLIENT_TOKEN,
    MNOTE_SESSION_SECRET: TEST_SESSION_SECRET,
    MNOTE_PUBLIC_ORIGIN: `http://127.0.0.1:${httpPort}`,
    ...vars,
  };
  const ownState = persistTo === undefined;
  const stateDir = ownState ? await mkdtemp(join(tmpdir(), 'mnote-worker-')) : persistTo;
  const inspectorPort = await freePort();
  const args = [
    WRANGLER, 'dev', '--local',
    '--ip', '127.0.0.1',
    '--port', String(httpPort),
    '--inspector-port', String(inspectorPort),
    '--show-interactive-dev-session=false',
    '--persist-to', stateDir,
  ];
  args.push('--config', config ?? (await workerConfig()));
  for (const [name, value] of Object.entries(vars)) if (value !== null) args.push('--var', `${name}:${value}`);

  const child = spawn(process.execPath, args, {
    cwd: WORKER_DIR,
    env: {
      ...process.env,
      // Both would call Cloudflare, which these machines cannot reach.
      WRANGLER_SEND_METRICS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a last-resort SIGKILL can reach workerd too.
    detached: true,
  });
  running.add(child);
  const output = captureOutput(child, { keep: 64_000 });
  const exited = new Promise((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal })));
  exited.then(() => running.delete(child));

  const url = `http://127.0.0.1:${httpPort}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = new Promise((r) => setTimeout(() => r('timeout'), STOP_TIMEOUT_MS).unref());
      if ((await Promise.race([exited, timer])) === 'timeout') {
        killGroup(child, 'SIGKILL');
        await exited;
      }
    }
    if (ownState) await rm(stateDir, { recursive: true, force: true });
  };

  try {
    if (ready === 'log') await output.until(/Ready on http/, { timeoutMs: READY_TIMEOUT_MS });
    else await waitForHealth(url, exited, output.text);
  } catch (error) {
    await stop();
    // wrangler's own words, anywhere in its output (the error message keeps only its end).
    if (error instanceof Error) error.portTaken = /Address already in use/.test(output.text());
    throw error;
  }
  const auth = vars.MNOTE_CLIENT_TOKEN ? { authorization: `Bearer ${vars.MNOTE_CLIENT_TOKEN}` } : {};
  // wrangler prints the Worker's console a moment after the answer it belongs to: await the line.
  const waitForLog = (re, { timeoutMs = 60_000 } = {}) => output.until(re, { timeoutMs });
  return { url, port: httpPort, persistTo: stateDir, pid: child.pid, logs: output.text, waitForLog, auth, stop };
}

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function waitForHealth(url, exited, logs) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let early = null;
  exited.then((status) => {
    early = status;
  });
  while (Date.now() < deadline) {
    if (early) {
      throw new Error(`wrangler exited (${JSON.stringify(early)}) before it was ready:\n${tail(logs())}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`wrangler was not ready within ${READY_TIMEOUT_MS} ms:\n${tail(logs())}`);
}

function tail(text) {
  return text.length > LOG_TAIL_CHARS ? `…${text.slice(-LOG_TAIL_CHARS)}` : text;
}

/**
 * `fetch` that reads the whole answer: `{status, headers, text, body}`, where `body` is the parsed JSON
 * (or `null` when the answer is not JSON).
 */
export async function fetchJson(url, init = {}) {
  const res = await fetch(url, init);
  const text = await res.text();
  let body = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (Markdown, HTML): callers read `text`.
  }
  return { status: res.status, headers: res.headers, text, body };
}

/** `fetchJson` with a JSON request body. */
export function sendJson(url, method, value, headers = {}) {
  return fetchJson(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof value === 'string' ? value : JSON.stringify(value),
  });
}

/**
 * Asserts the shared error shape `{ok:false, code, message, hint, details, traceId}` with the given status
 * and code, and that the body's trace id is the one in the `x-trace-id` header. Returns the body.
 */
export function assertCodedError(res, status, code) {
  assert.equal(res.status, status, `status of ${res.text.slice(0, 300)}`);
  assert.ok(res.body, `a JSON body, got ${res.text.slice(0, 300)}`);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'details', 'hint', 'message', 'ok', 'requestId', 'traceId']);
  assert.equal(res.body.ok, false);
  assert.equal(res.body.code, code);
  for (const field of ['message', 'hint', 'traceId']) {
    assert.equal(typeof res.body[field], 'string', field);
    assert.ok(res.body[field].length > 0, `${field} is empty`);
  }
  assert.equal(typeof res.body.details, 'object');
  assert.equal(res.headers.get('x-trace-id'), res.body.traceId);
  // The request's own id, minted by the Worker whoever built the error (the front or a Durable Object).
  assert.match(res.body.requestId, /^req_[a-z2-7]{16}$/);
  assert.equal(res.headers.get('x-request-id'), res.body.requestId);
  return res.body;
}
