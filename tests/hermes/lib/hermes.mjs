// Starts the real Hermes Agent (`hermes gateway run`, hermes-agent 0.19.0 from the project venv) with its API
// server on 127.0.0.1, offline: a temporary HERMES_HOME whose config points the model at a scripted
// OpenAI-compatible server, with Tirith off and the api_server toolsets restricted. The one launcher of the
// real Hermes in the tests: the proxy tests (no tools at all) and the MCP tests (the mnote tools only) use it.
//
//   const hermes = await startHermes({ modelUrl });                                  // no tools offered
//   const hermes = await startHermes({ modelUrl, mcp: { url, toolToken } });         // mnote's /mcp only
//   hermes.url, hermes.key, hermes.logs(), await hermes.run('rewrite the page'), await hermes.stop()
//
// The process runs through the venv's own python (not a pyenv shim) in its own process group, so stop()
// ends exactly what it started, by PID.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ROOT, freePort } from '../../e2e/lib/wrangler.mjs';

const VENV = join(ROOT, '.venv', 'hermes');
const PYTHON = join(VENV, 'bin', 'python');
export const HERMES_BIN = join(VENV, 'bin', 'hermes');
const DEFAULT_API_KEY = 'mnote-e2e-hermes-api-key-0123456789';
const DEFAULT_MODEL_ID = 'scripted-model';
const READY_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 120_000;

/** Whether the venv that scripts/setup builds (for `make test`) is there. */
export const hermesInstalled = () => existsSync(PYTHON) && existsSync(HERMES_BIN);

/**
 * The config.yaml of a test Hermes home. Without `mcp` the API server offers the model no tool at all (the
 * host tools, terminal and files among them, stay off); with it, only the mnote MCP server's tools.
 * JSON is valid YAML, so no YAML library is needed.
 */
export function hermesConfig({ modelUrl, modelId = DEFAULT_MODEL_ID, mcp = null }) {
  const config = {
    model: { provider: 'custom', base_url: modelUrl, default: modelId, api_key: 'sk-offline-test' },
    security: { tirith_enabled: false },
    platform_toolsets: { api_server: mcp ? ['mnote'] : [] },
  };
  if (mcp) {
    config.mcp_servers = { mnote: { url: mcp.url, headers: { Authorization: `Bearer ${mcp.toolToken}` }, timeout: 60 } };
  }
  return JSON.stringify(config, null, 2);
}

export async function startHermes({ modelUrl, modelId, mcp = null, apiKey = DEFAULT_API_KEY }) {
  const home = await mkdtemp(join(tmpdir(), 'mnote-hermes-'));
  await writeFile(join(home, 'config.yaml'), hermesConfig({ modelUrl, modelId, mcp }));
  const port = await freePort();
  const child = spawn(PYTHON, [HERMES_BIN, 'gateway', 'run'], {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      HERMES_HOME: home,
      API_SERVER_ENABLED: 'true',
      API_SERVER_KEY: apiKey,
      API_SERVER_HOST: '127.0.0.1',
      API_SERVER_PORT: String(port),
      NO_COLOR: '1',
      PYTHONUNBUFFERED: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  const collect = (chunk) => {
    log = (log + chunk.toString()).slice(-200_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${apiKey}` };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = new Promise((r) => setTimeout(() => r('timeout'), 15_000).unref());
      if ((await Promise.race([exited, timer])) === 'timeout') {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
        await exited;
      }
    }
    await rm(home, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let early = null;
  exited.then((status) => {
    early = status;
  });
  for (;;) {
    if (early) {
      await stop();
      throw new Error(`hermes gateway exited (${JSON.stringify(early)}) before it was ready:\n${log.slice(-4000)}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`hermes gateway was not ready within ${READY_TIMEOUT_MS} ms:\n${log.slice(-4000)}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
      if (res.status === 200) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  /** Starts a run through Hermes' own `/v1/runs` API and reads its event stream to the end. */
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

  return { url, port, key: apiKey, pid: child.pid, home, run, stop, logs: () => log };
}
