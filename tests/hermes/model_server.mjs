// A scripted OpenAI-compatible model server for running the real hermes-agent offline.
//
// `POST /v1/chat/completions` streams (`stream: true`, SSE `data:` chunks ending in `data: [DONE]`) or
// answers whole; `GET /v1/models` lists one model. Every request body is recorded, so tests can assert on
// what Hermes actually sent the model: the system prompt (with mnote's injected context), the history of
// earlier turns, and the tools offered.
//
// The answer depends on the last user message:
//   contains "[slow]"  → one token every 250 ms for a minute (for abort)
//   anything else      → "模型回答：<the message>" in a few chunks
//
//   const model = await startModelServer();   // model.url ends in /v1
//   model.requests  → [{ body, at }]

import { createServer } from 'node:http';

export const MODEL_ID = 'scripted-model';

export async function startModelServer({ port = 0, tokenGapMs = 20 } = {}) {
  const requests = [];
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const url = new URL(req.url, 'http://model');
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: MODEL_ID, object: 'model', owned_by: 'test', context_length: 131072 }] }));
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: `no route ${url.pathname}`, type: 'invalid_request_error' } }));
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: 'invalid JSON', type: 'invalid_request_error' } }));
    }
    requests.push({ body, at: Date.now() });
    const messages = body.messages ?? [];
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const prompt = typeof lastUser?.content === 'string' ? lastUser.content : JSON.stringify(lastUser?.content ?? '');
    const id = `chatcmpl-${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };

    let pieces;
    let gap = tokenGapMs;
    if (prompt.includes('[slow]')) {
      pieces = Array.from({ length: 240 }, (_, i) => `片段${i} `);
      gap = 250;
    } else {
      const answer = `模型回答：${prompt}`;
      pieces = answer.match(/.{1,4}/gsu) ?? [answer];
    }

    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: body.model ?? MODEL_ID,
        choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' }],
        usage,
      }));
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta, finish = null, extra = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model ?? MODEL_ID, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    res.write(chunk({ role: 'assistant', content: '' }));
    for (const piece of pieces) {
      if (closed) return;
      await sleep(gap);
      res.write(chunk({ content: piece }));
    }
    res.write(chunk({}, 'stop'));
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model ?? MODEL_ID, choices: [], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
  });

  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address();
  return {
    url: `http://127.0.0.1:${bound}/v1`,
    port: bound,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(resolve);
      }),
  };
}
