// A scripted OpenAI-compatible model server for driving the real Hermes Agent offline. The one model server
// of the real-Hermes tests: the proxy suite (plain chat) and the MCP suite (tool calls).
//
//   const model = await startModelServer();
//   model.script = (request) => ({ toolCalls: [{ name: 'mcp__mnote__doc_fetch', arguments: {...} }] });
//   ...
//   await model.stop();
//
// It answers `POST /v1/chat/completions`, streamed (SSE `chat.completion.chunk`s, tool calls streamed in
// pieces the way OpenAI does) or not, and `GET /v1/models`. Every request body is kept in `requests`, so a
// test can assert on what Hermes sent the model: the system prompt (with mnote's injected context), the
// history of earlier turns, the `tools` it offered, the tool results it passed back.
//
// When the request offers tools and a script is set, the script sees the request and answers `{text}` or
// `{toolCalls: [{name, arguments}]}`. Otherwise (plain chat, and Hermes' own side requests such as titles)
// the answer depends on the last user message:
//   contains "[slow]"  → one piece every 250 ms for a minute (for abort)
//   anything else      → "模型回答：<the message>", in pieces of four characters `tokenGapMs` apart

import { createServer } from 'node:http';

const MODEL_ID = 'scripted-model';

export async function startModelServer({ tokenGapMs = 20 } = {}) {
  const state = { requests: [], script: null };
  let callSeq = 0;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      return json(res, 200, { object: 'list', data: [{ id: MODEL_ID, object: 'model', owned_by: 'test', context_length: 131072 }] });
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      return json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: 'not_found' } });
    }
    let body;
    try {
      body = JSON.parse(await readAll(req));
    } catch (error) {
      return json(res, 400, { error: { message: String(error), type: 'invalid_request_error' } });
    }
    state.requests.push(body);
    let answer;
    try {
      const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
      answer = hasTools && state.script ? await state.script(body) : echo(body);
    } catch (error) {
      answer = { text: `script error: ${error?.stack ?? error}` };
    }
    const toolCalls = (answer.toolCalls ?? []).map((call) => ({
      id: `call_${++callSeq}`,
      type: 'function',
      function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
    }));
    const text = answer.text ?? (toolCalls.length ? null : '');
    const finish = toolCalls.length ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
    const id = `chatcmpl_${callSeq}_${state.requests.length}`;
    const created = Math.floor(Date.now() / 1000);

    if (!body.stream) {
      const message = { role: 'assistant', content: text };
      if (toolCalls.length) message.tool_calls = toolCalls;
      return json(res, 200, { id, object: 'chat.completion', created, model: MODEL_ID, choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const chunk = (delta, finishReason = null, extra = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: MODEL_ID, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`);
    chunk({ role: 'assistant', content: '' });
    if (text) {
      const pieces = answer.pieces ?? [text];
      for (const piece of pieces) {
        if (closed) return;
        if (pieces.length > 1) await sleep(answer.gapMs ?? tokenGapMs);
        chunk({ content: piece });
      }
    }
    toolCalls.forEach((call, index) => {
      // Name first, then the arguments in two pieces, as OpenAI streams them.
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
      const args = call.function.arguments;
      const cut = Math.floor(args.length / 2);
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, cut) } }] });
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(cut) } }] });
    });
    chunk({}, finish);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: MODEL_ID, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  });

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    modelId: MODEL_ID,
    get requests() {
      return state.requests;
    },
    get script() {
      return state.script;
    },
    set script(fn) {
      state.script = fn;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** The unscripted answer: see the module docs. `pieces` is how it streams. */
function echo(body) {
  const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  const prompt = typeof lastUser?.content === 'string' ? lastUser.content : JSON.stringify(lastUser?.content ?? '');
  if (prompt.includes('[slow]')) {
    const pieces = Array.from({ length: 240 }, (_, i) => `片段${i} `);
    return { text: pieces.join(''), pieces, gapMs: 250 };
  }
  const text = `模型回答：${prompt}`;
  return { text, pieces: text.match(/.{1,4}/gsu) ?? [text] };
}

function json(res, status, value) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

async function readAll(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The tool messages of a chat request, oldest first: `[{toolCallId, content, mnote, isError}]`.
 *
 * Hermes hands an MCP result to the model as `{"result": text, "structuredContent": …}` (or
 * `{"error": text}` for `isError`), wrapped in an `<untrusted_tool_result>` block with a preamble. `mnote`
 * is the mnote tool's own JSON inside that: the structured result, or the coded error body.
 */
export function toolResults(request) {
  return (request.messages ?? [])
    .filter((m) => m.role === 'tool')
    .map((m) => {
      const content = typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('');
      const hermes = parseJson(unwrap(content));
      let mnote = null;
      let isError = false;
      if (hermes && typeof hermes === 'object') {
        if (hermes.structuredContent) mnote = hermes.structuredContent;
        else if (typeof hermes.result === 'string') mnote = parseJson(hermes.result);
        else if (typeof hermes.error === 'string') {
          isError = true;
          mnote = parseJson(hermes.error) ?? parseJson(hermes.error.slice(hermes.error.indexOf('{')));
        }
      }
      return { toolCallId: m.tool_call_id, content, mnote, isError };
    });
}

function unwrap(content) {
  const open = '<untrusted_tool_result';
  if (!content.startsWith(open)) return content;
  const start = content.indexOf('\n\n');
  const end = content.lastIndexOf('\n</untrusted_tool_result>');
  return start >= 0 && end > start ? content.slice(start + 2, end) : content;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
