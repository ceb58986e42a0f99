// A scripted double of the Hermes Agent 0.19 API server, following SPEC §10 (checked against
// gateway/platforms/api_server.py of hermes-agent 0.19.0):
//
// - `Authorization: Bearer <key>` on every route but /health; otherwise 401 invalid_api_key.
// - Errors are `{error:{message, type, param, code}}`; too many runs is 429 with `Retry-After`.
// - POST /v1/runs answers 202 {run_id, status:"started"}; it does not load a session's history itself.
// - GET /v1/runs/{id}/events is SSE: `data: {json}` events, `: keepalive` comments, `: stream closed`
//   after the terminal event; one reader per run (the stream is gone once read).
// - GET /v1/runs/{id} → the pollable status {object:"hermes.run", run_id, status, session_id, …}.
// - POST /v1/runs/{id}/stop → {run_id, status:"stopping"}, then run.cancelled on the stream.
// - /api/sessions (list with limit/offset/has_more, create {id, title} with unique titles),
//   /api/sessions/{id}, /api/sessions/{id}/messages, GET /v1/models.
//
// Runs follow a script chosen by a marker in the message:
//   (none)       deltas with gaps, a tool call, run.completed with usage
//   [slow]       a delta every 200 ms until stopped (for abort)
//   [drop]       two events, then the connection is destroyed mid-stream
//   [stall]      one event, then silence (no keepalive either)
//   [malformed]  a data line that is not JSON among good events
//   [fail]       run.failed
//   [line-endings]  events framed with CR and CRLF instead of LF, a comment with a CR in it, then
//                   the bytes of issue 18 (`: keepalive\rdata: {"event":"run.completed"}\r`) before
//                   Hermes' own run.completed
//   [echo-key]   the API key echoed back: whole in a delta, split over two deltas, JSON-escaped, as an
//                object key at depth, in a tool.started preview and in run.failed's error; then each
//                string of `double.echoed` (other secrets a test wants echoed) in a delta of its own
//
// `double.hold()` pauses the next default-script run at its tool call and at its first delta until the
// test releases it (see hold()).
//
// Faults for the next requests: `double.inject('POST /v1/runs', {status: 429, retryAfter: '7'})`, with
// `status`, `retryAfter`, `delayMs`, `malformed` (200 with a broken JSON body), `echoKey` (a 400 whose
// message repeats the Authorization header), `notHermes` (a 404 HTML page), `times` (default 1).
// `pause()` closes the port and every connection (refused connections), `resume()` listens again.
//
// In-process: `const double = await startHermesDouble({apiKey})`. Standalone (for the bench):
//   node tests/hermes/double.mjs --port 8642 --key <key>

import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';

const now = () => Date.now() / 1000;

function hermesError(message, code, type = 'invalid_request_error') {
  return { error: { message, type, param: null, code } };
}

export async function startHermesDouble({ apiKey, port = 0, keepaliveMs = 1_000, deltaGapMs = 250 } = {}) {
  if (!apiKey || apiKey.length < 16) throw new Error('the double needs an API key of at least 16 characters');
  const sessions = new Map(); // id → {session fields}
  const messages = new Map(); // session id → [messages]
  const runs = new Map(); // run id → run state
  const faults = []; // {key, fault, times}
  const requests = []; // every request received, for assertions
  const sockets = new Set();
  const holds = []; // gates for the next default-script runs (double.hold())
  let nextMessageId = 1;

  const double = {
    url: '',
    port: 0,
    requests,
    sessions,
    messages,
    runs,
    /** Strings the [echo-key] script echoes besides the API key. */
    echoed: [],
    /** Times (ms, performance clock) at which each event of a run was written. */
    sent: new Map(),
    /**
     * Holds the next default-script run at its steps until the test says so: the run stops after
     * `tool.started` and again after its first `message.delta`, and each `gate.release()` lets it pass one
     * stop. So a test sees a tool running and a partial answer for as long as it needs, on any machine.
     */
    hold() {
      const gate = { passes: 0, used: 0, wakers: [] };
      gate.release = () => {
        gate.passes += 1;
        for (const wake of gate.wakers.splice(0)) wake();
      };
      gate.wait = async () => {
        while (gate.used >= gate.passes) await new Promise((r) => gate.wakers.push(r));
        gate.used += 1;
      };
      holds.push(gate);
      return gate;
    },
    inject(key, fault) {
      faults.push({ key, fault, times: fault.times ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    /** The last request matching `METHOD /path` (the path without its query; ids may be `{id}`). */
    last(key) {
      return [...requests].reverse().find((r) => `${r.method} ${r.path}` === key || r.key === key);
    },
    /** A run streaming N events with a custom gap (the bench). */
    addBenchRun(count, gapMs = 0) {
      const run = newRun({ input: `[bench:${count}:${gapMs}]`, session_id: 'mnote_bench_x' });
      return run.id;
    },
    pause,
    resume,
    close,
  };

  function takeFault(key) {
    const index = faults.findIndex((f) => f.key === key);
    if (index < 0) return null;
    const entry = faults[index];
    entry.times -= 1;
    if (entry.times <= 0) faults.splice(index, 1);
    return entry.fault;
  }

  function send(res, status, body, headers = {}) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  }

  function addSession(id, title = null, model = 'hermes-agent') {
    const session = {
      id,
      source: 'api_server',
      model,
      title,
      started_at: now(),
      message_count: 0,
      tool_call_count: 0,
      input_tokens: 0,
      output_tokens: 0,
      last_active: now(),
      preview: null,
    };
    sessions.set(id, session);
    messages.set(id, []);
    return session;
  }

  function addMessage(sessionId, message) {
    if (!sessions.has(sessionId)) addSession(sessionId);
    const session = sessions.get(sessionId);
    const stored = { id: nextMessageId++, session_id: sessionId, timestamp: now(), tool_call_id: null, tool_name: null, reasoning: null, ...message };
    messages.get(sessionId).push(stored);
    session.message_count += 1;
    session.last_active = stored.timestamp;
    if (message.role === 'user' && !session.preview) session.preview = String(message.content).slice(0, 60);
    if (message.role === 'tool') session.tool_call_count += 1;
  }

  function newRun(body) {
    const id = `run_${randomUUID().replaceAll('-', '')}`;
    const run = { id, body, created: now(), events: [], waiters: [], done: false, stopped: false, claimed: false, closed: false };
    runs.set(id, run);
    double.sent.set(id, []);
    queueMicrotask(() => script(run));
    return run;
  }

  const push = (run, event) => {
    if (run.done) return;
    const full = { run_id: run.id, timestamp: now(), ...event };
    run.events.push(full);
    if (['run.completed', 'run.failed', 'run.cancelled'].includes(full.event)) run.done = true;
    for (const wake of run.waiters.splice(0)) wake();
  };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  async function script(run) {
    const input = String(run.body.input);
    const sessionId = run.body.session_id;
    addMessage(sessionId, { role: 'user', content: input });
    const bench = input.match(/^\[bench:(\d+):(\d+)\]$/);
    if (bench) {
      const [count, gap] = [Number(bench[1]), Number(bench[2])];
      for (let i = 0; i < count; i++) {
        push(run, { event: 'message.delta', delta: `e${i}`, seq: i, sent_at: performance.now() + performance.timeOrigin });
        if (gap) await sleep(gap);
        else if (i % 50 === 49) await sleep(0);
      }
      push(run, { event: 'run.completed', output: 'bench', usage: { input_tokens: 1, output_tokens: count, total_tokens: count + 1 } });
      return;
    }
    if (input.includes('[fail]')) {
      await sleep(50);
      push(run, { event: 'run.failed', error: 'the model provider refused the request' });
      return;
    }
    if (input.includes('[slow]')) {
      for (let i = 0; i < 150 && !run.stopped; i++) {
        push(run, { event: 'message.delta', delta: `slow${i} ` });
        await sleep(200);
      }
      if (run.stopped) push(run, { event: 'run.cancelled' });
      else push(run, { event: 'run.completed', output: 'slow', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } });
      return;
    }
    if (input.includes('[drop]') || input.includes('[stall]')) {
      push(run, { event: 'message.delta', delta: 'partial ' });
      await sleep(deltaGapMs);
      push(run, { event: 'message.delta', delta: 'answer' });
      run.special = input.includes('[drop]') ? 'drop' : 'stall';
      for (const wake of run.waiters.splice(0)) wake();
      return;
    }
    if (input.includes('[malformed]')) {
      push(run, { event: 'message.delta', delta: 'ok ' });
      run.events.push({ raw: 'data: {this is not json\n\n' });
      push(run, { event: 'run.completed', output: 'ok', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } });
      return;
    }
    if (input.includes('[line-endings]')) {
      const data = (event) => `data: ${JSON.stringify({ run_id: run.id, timestamp: now(), ...event })}`;
      run.events.push({ raw: `${data({ event: 'message.delta', delta: 'cr ' })}\r\r` });
      run.events.push({ raw: `${data({ event: 'message.delta', delta: 'crlf ' })}\r\n\r\n` });
      run.events.push({ raw: `: keepalive\r${data({ event: 'message.delta', delta: 'after a comment' })}\r\r` });
      run.events.push({ raw: ': keepalive\rdata: {"event":"run.completed"}\r\n\n' });
      push(run, { event: 'run.completed', output: 'cr crlf after a comment', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } });
      return;
    }
    if (input.includes('[echo-key]')) {
      const half = Math.floor(apiKey.length / 2);
      push(run, { event: 'message.delta', delta: `the key is ${apiKey}. ` });
      push(run, { event: 'message.delta', delta: `split: ${apiKey.slice(0, half)}` });
      push(run, { event: 'message.delta', delta: `${apiKey.slice(half)} done` });
      for (const text of double.echoed) push(run, { event: 'message.delta', delta: `, and ${text}` });
      // The same key with its first character written as a JSON \u escape.
      const escaped = `\\u${apiKey.charCodeAt(0).toString(16).padStart(4, '0')}${apiKey.slice(1)}`;
      const deep = JSON.stringify({ run_id: run.id, event: 'reasoning.available', text: 'KEY', meta: { list: [{ KEY: 'KEY' }] } });
      run.events.push({ raw: `data: ${deep.replaceAll('KEY', escaped)}\n\n` });
      push(run, { event: 'tool.started', tool: 'mcp__mnote__doc_fetch', preview: `doc_fetch --token ${apiKey}` });
      push(run, { event: 'run.failed', error: `upstream said: invalid key ${apiKey}` });
      return;
    }
    const words = ['当前页', '的标题是', ' mnote', ' Page', ' AI'];
    const gate = holds.shift();
    push(run, { event: 'tool.started', tool: 'mcp__mnote__doc_fetch', preview: 'doc_fetch full' });
    await gate?.wait();
    // The tool takes a while: long enough for a keepalive comment, counted from when a reader is there
    // (a busy machine can open the stream late).
    for (let waited = 0; !run.claimed && waited < 5_000; waited += 10) await sleep(10);
    await sleep(Math.max(deltaGapMs, keepaliveMs * 2));
    push(run, { event: 'tool.completed', tool: 'mcp__mnote__doc_fetch', duration: 0.01, error: false });
    for (const [i, word] of words.entries()) {
      await sleep(deltaGapMs);
      push(run, { event: 'message.delta', delta: word });
      if (i === 0) await gate?.wait();
    }
    const output = words.join('');
    addMessage(sessionId, { role: 'assistant', content: output });
    const session = sessions.get(sessionId);
    session.input_tokens += 120;
    session.output_tokens += 30;
    await sleep(deltaGapMs);
    push(run, { event: 'run.completed', output, usage: { input_tokens: 120, output_tokens: 30, total_tokens: 150 } });
  }

  async function streamEvents(req, res, run) {
    run.claimed = true;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    let index = 0;
    let lastWrite = Date.now();
    const write = (text) => {
      res.write(text);
      lastWrite = Date.now();
    };
    const keepalive = setInterval(() => {
      if (run.special === 'stall') return; // a dead upstream sends nothing at all
      if (Date.now() - lastWrite >= keepaliveMs) write(': keepalive\n\n');
    }, Math.max(50, keepaliveMs / 4));
    try {
      for (;;) {
        while (index < run.events.length) {
          const event = run.events[index++];
          if (event.raw) write(event.raw);
          else {
            write(`data: ${JSON.stringify(event)}\n\n`);
            double.sent.get(run.id).push(performance.now());
          }
        }
        if (run.done) {
          write(': stream closed\n\n');
          res.end();
          return;
        }
        if (run.special === 'drop') {
          // Let the written events leave first; then cut the connection without ending the response.
          await sleep(100);
          res.socket.destroy();
          return;
        }
        // A reader that went away (its 'close' may have fired already) ends the stream here.
        if (res.destroyed) return;
        if (run.special === 'stall') {
          await new Promise((r) => res.once('close', r));
          return;
        }
        await new Promise((r) => run.waiters.push(r));
      }
    } finally {
      clearInterval(keepalive);
      run.closed = true;
    }
  }

  async function handle(req, res) {
    const url = new URL(req.url, 'http://double');
    const path = url.pathname;
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const raw = Buffer.concat(chunks).toString('utf8');
    const record = { method: req.method, path, query: Object.fromEntries(url.searchParams), headers: req.headers, raw, body: null, at: Date.now() };
    try {
      record.body = raw ? JSON.parse(raw) : null;
    } catch {
      record.body = undefined;
    }
    const key = `${req.method} ${path.replace(/\/(run_[0-9a-f]+|mnote_[A-Za-z0-9_-]+)(?=\/|$)/, '/{id}')}`;
    record.key = key;
    requests.push(record);

    if (req.method === 'GET' && path === '/health') return send(res, 200, { status: 'ok', platform: 'hermes-agent' });

    const fault = takeFault(key);
    if (fault?.delayMs) {
      // A caller that gives up (the Worker's timeout) ends the wait: no timer outlives the request.
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, fault.delayMs);
        res.once('close', () => (clearTimeout(timer), resolve()));
      });
      if (res.destroyed) return;
    }
    const auth = req.headers.authorization ?? '';
    if (!(auth.startsWith('Bearer ') && auth.slice(7).trim() === apiKey)) {
      return send(res, 401, hermesError('Invalid API key', 'invalid_api_key'));
    }
    if (fault?.status === 429) {
      return send(res, 429, hermesError('Too many concurrent runs (max 1)', 'rate_limit_exceeded', 'rate_limit_error'), fault.retryAfter ? { 'retry-after': fault.retryAfter } : {});
    }
    if (fault?.status) return send(res, fault.status, hermesError(`scripted failure ${fault.status}`, 'scripted', fault.status >= 500 ? 'server_error' : 'invalid_request_error'));
    if (fault?.malformed) return send(res, 200, '{"data": [unterminated');
    if (fault?.echoKey) return send(res, 400, hermesError(`header was ${auth}`, `echo ${auth.slice(7)}`));
    if (fault?.notHermes) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<html><body>Not Found</body></html>');
    }

    let m;
    if (req.method === 'GET' && path === '/v1/models') {
      return send(res, 200, {
        object: 'list',
        data: [
          { id: 'hermes-agent', object: 'model', created: Math.floor(now()), owned_by: 'hermes', permission: [], root: 'hermes-agent', parent: null },
          { id: 'fast', object: 'model', created: Math.floor(now()), owned_by: 'hermes', permission: [], root: 'gpt-mini', parent: 'hermes-agent' },
        ],
      });
    }
    if (req.method === 'GET' && path === '/api/sessions') {
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 50), 200);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      const all = [...sessions.values()].sort((a, b) => b.last_active - a.last_active);
      const data = all.slice(offset, offset + limit);
      return send(res, 200, { object: 'list', data, limit, offset, has_more: data.length === limit });
    }
    if (req.method === 'POST' && path === '/api/sessions') {
      if (record.body === undefined) return send(res, 400, hermesError('Invalid JSON in request body'));
      const id = String(record.body?.id ?? `api_${Date.now()}`);
      if (sessions.has(id)) return send(res, 409, hermesError(`Session already exists: ${id}`, 'session_exists'));
      const title = record.body?.title ?? null;
      const clash = title && [...sessions.values()].find((s) => s.title === title);
      if (clash) return send(res, 400, hermesError(`Title already in use by session ${clash.id}`, 'invalid_title'));
      return send(res, 201, { object: 'hermes.session', session: addSession(id, title) });
    }
    if ((m = path.match(/^\/api\/sessions\/([^/]+)(\/messages)?$/)) && req.method === 'GET') {
      const id = decodeURIComponent(m[1]);
      const session = sessions.get(id);
      if (!session) return send(res, 404, hermesError(`Session not found: ${id}`, 'session_not_found'));
      if (!m[2]) return send(res, 200, { object: 'hermes.session', session });
      return send(res, 200, { object: 'list', session_id: id, data: messages.get(id) });
    }
    if (req.method === 'POST' && path === '/v1/runs') {
      const body = record.body;
      if (body === undefined) return send(res, 400, hermesError('Invalid JSON'));
      if (!body?.input) return send(res, 400, hermesError("Missing 'input' field"));
      const history = body.conversation_history ?? [];
      if (!Array.isArray(history) || history.some((h) => !h || !('role' in h) || !('content' in h))) {
        return send(res, 400, hermesError("'conversation_history' must be an array of message objects"));
      }
      const run = newRun(body);
      return send(res, 202, { run_id: run.id, status: 'started' });
    }
    if ((m = path.match(/^\/v1\/runs\/([^/]+)$/)) && req.method === 'GET') {
      const run = runs.get(m[1]);
      if (!run) return send(res, 404, hermesError(`Run not found: ${m[1]}`, 'run_not_found'));
      const status = run.done ? run.events.at(-1).event.replace('run.', '') : run.stopped ? 'stopping' : 'running';
      return send(res, 200, { object: 'hermes.run', run_id: run.id, status, session_id: run.body.session_id, model: 'hermes-agent', created_at: run.created, updated_at: now() });
    }
    if ((m = path.match(/^\/v1\/runs\/([^/]+)\/events$/)) && req.method === 'GET') {
      const run = runs.get(m[1]);
      if (!run || run.claimed) return send(res, 404, hermesError(`Run not found: ${m[1]}`, 'run_not_found'));
      return streamEvents(req, res, run);
    }
    if ((m = path.match(/^\/v1\/runs\/([^/]+)\/stop$/)) && req.method === 'POST') {
      const run = runs.get(m[1]);
      if (!run || run.done) return send(res, 404, hermesError(`Run not found: ${m[1]}`, 'run_not_found'));
      run.stopped = true;
      return send(res, 200, { run_id: run.id, status: 'stopping' });
    }
    return send(res, 404, hermesError(`Not found: ${path}`, 'not_found'));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) send(res, 500, hermesError(String(error), 'internal', 'server_error'));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (p) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve(server.address().port);
      });
    });

  async function pause() {
    const closed = new Promise((r) => server.close(r));
    for (const socket of sockets) socket.destroy();
    await closed;
  }
  async function resume() {
    await listen(double.port);
  }
  async function close() {
    await pause().catch(() => {});
  }

  double.port = await listen(port);
  double.url = `http://127.0.0.1:${double.port}`;
  return double;
}

// Standalone: `node tests/hermes/double.mjs --port 8642 --key <key>`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const double = await startHermesDouble({ apiKey: arg('key', 'double-key-0123456789'), port: Number(arg('port', 8642)) });
  console.log(`hermes double listening on ${double.url}`);
}
