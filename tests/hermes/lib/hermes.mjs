// Starts the real Hermes Agent (hermes-agent 0.19.0 from the project venv) as an API server, configured to
// use the mnote Worker's `/mcp` as its only toolset and a scripted model server as its model, and drives
// runs through Hermes' own `/v1/runs` API.
//
//   const hermes = await startHermes({ mcpUrl, toolToken, modelUrl, modelId });
//   const run = await hermes.run('rewrite the page');   // {runId, events, output, status}
//   await hermes.stop();

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ROOT, freePort } from '../../e2e/lib/wrangler.mjs';

export const HERMES_BIN = join(ROOT, '.venv/hermes/bin/hermes');
const READY_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 120_000;

/** Whether the Hermes venv is installed (scripts/setup builds it for `make test`). */
export function hermesInstalled() {
  return existsSync(HERMES_BIN);
}

/** The config.yaml of a Hermes home that sees only the mnote MCP server. */
export function hermesConfig({ mcpUrl, toolToken, modelUrl, modelId }) {
  // JSON is valid YAML, so the config is written without a YAML library.
  return JSON.stringify(
    {
      model: { provider: 'custom', base_url: modelUrl, default: modelId, api_key: 'sk-scripted-model' },
      security: { tirith_enabled: false },
      mcp_servers: { mnote: { url: mcpUrl, headers: { Authorization: `Bearer ${toolToken}` }, timeout: 60 } },
      platform_toolsets: { api_server: ['mnote'] },
    },
    null,
    2,
  );
}

export async function startHermes(options) {
  const home = await mkdtemp(join(tmpdir(), 'mnote-hermes-'));
  await writeFile(join(home, 'config.yaml'), hermesConfig(options));
  const port = await freePort();
  const key = 'mnote-e2e-hermes-api-key-0123456789';
  const child = spawn(HERMES_BIN, ['gateway', 'run'], {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      HERMES_HOME: home,
      API_SERVER_ENABLED: 'true',
      API_SERVER_KEY: key,
      API_SERVER_HOST: '127.0.0.1',
      API_SERVER_PORT: String(port),
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  const collect = (chunk) => {
    log = (log + chunk.toString()).slice(-64_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${key}` };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = new Promise((r) => setTimeout(() => r('timeout'), 10_000).unref());
      if ((await Promise.race([exited, timer])) === 'timeout') {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Gone.
        }
        await exited;
      }
    }
    await rm(home, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exitedEarly = null;
  exited.then((s) => {
    exitedEarly = s;
  });
  for (;;) {
    if (exitedEarly) throw new Error(`hermes exited ${JSON.stringify(exitedEarly)}:\n${log.slice(-4000)}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`hermes was not ready in ${READY_TIMEOUT_MS} ms:\n${log.slice(-4000)}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch {
      // Not yet.
    }
    await new Promise((r) => setTimeout(r, 500));
  }

  /** Starts a run and reads its event stream to the end. */
  const run = async (input, extra = {}) => {
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ input, ...extra }),
    });
    const startBody = await started.json();
    if (started.status !== 202 && started.status !== 200) {
      throw new Error(`POST /v1/runs answered ${started.status}: ${JSON.stringify(startBody)}`);
    }
    const runId = startBody.run_id;
    const events = [];
    const res = await fetch(`${url}/v1/runs/${runId}/events`, { headers: auth, signal: AbortSignal.timeout(RUN_TIMEOUT_MS) });
    const decoder = new TextDecoder();
    let buffer = '';
    let final = null;
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut;
      while ((cut = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, cut).trim();
        buffer = buffer.slice(cut + 1);
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (!data || data === '[DONE]') continue;
        const event = JSON.parse(data);
        events.push(event);
        if (['run.completed', 'run.failed', 'run.cancelled'].includes(event.event)) final = event;
      }
      if (final) break;
    }
    return { runId, events, status: final?.event, output: final?.output, error: final?.error };
  };

  return { url, key, run, stop, logs: () => log, pid: child.pid };
}
