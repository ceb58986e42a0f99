// Starts the real `hermes gateway run` (hermes-agent 0.19.0 from the project venv) with its API server
// on 127.0.0.1, offline: a temporary HERMES_HOME whose config points the model at a scripted
// OpenAI-compatible server, with Tirith off and the api_server toolsets restricted.
//
//   const hermes = await startHermesGateway({ modelUrl, apiKey });   // hermes.url, hermes.stop()
//
// The process is started through the venv's own python (not the pyenv shim), in its own process group,
// so stop() ends exactly what it started, by PID.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ROOT, freePort } from '../e2e/lib/wrangler.mjs';
import { MODEL_ID } from './model_server.mjs';

export const VENV = join(ROOT, '.venv', 'hermes');
const PYTHON = join(VENV, 'bin', 'python');
const HERMES = join(VENV, 'bin', 'hermes');
const READY_TIMEOUT_MS = 90_000;

/** Whether the venv that scripts/setup builds is there. */
export const hermesInstalled = () => existsSync(PYTHON) && existsSync(HERMES);

/**
 * The config.yaml of the test gateway. `toolsets` is what the API server may offer the model: `[]`
 * offers no tool at all (the 26 host tools, terminal and files among them, stay off).
 */
export function gatewayConfig({ modelUrl, toolsets = [] }) {
  return [
    'model:',
    '  provider: custom',
    `  default: ${MODEL_ID}`,
    `  base_url: ${modelUrl}`,
    '  api_key: sk-offline-test',
    'security:',
    '  tirith_enabled: false',
    'platform_toolsets:',
    `  api_server: [${toolsets.join(', ')}]`,
    '',
  ].join('\n');
}

export async function startHermesGateway({ modelUrl, apiKey, toolsets = [] }) {
  const home = await mkdtemp(join(tmpdir(), 'mnote-hermes-home-'));
  await writeFile(join(home, 'config.yaml'), gatewayConfig({ modelUrl, toolsets }));
  const port = await freePort();
  const child = spawn(PYTHON, [HERMES, 'gateway', 'run'], {
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
  return { url, port, pid: child.pid, home, logs: () => log, stop };
}
