// Clients for the mnote page-AI routes of a running Worker (see wrangler.mjs for starting one): the tool
// route, MCP, the profile, pages, commands and review sessions. Shared by the e2e tests, the real-Hermes
// test and the benchmark.

import { TEST_CLIENT_TOKEN, fetchJson as rawFetchJson } from './wrangler.mjs';

/**
 * The browser routes need a signed-in user: these wrappers send the test client token as
 * `Authorization: Bearer` unless the call brings its own `authorization` or `cookie` header. The tool
 * routes (`/mcp`, `/api/hermes/tools/…`) get nothing added: they take only the tool token.
 */
function withUser(url, headers = {}) {
  const path = new URL(url).pathname;
  const own = Object.keys(headers).some((h) => ['authorization', 'cookie'].includes(h.toLowerCase()));
  if (own || path === '/mcp' || path.startsWith('/api/hermes/tools/')) return headers;
  return { authorization: `Bearer ${TEST_CLIENT_TOKEN}`, ...headers };
}

/** `fetchJson` as a signed-in user (see `withUser`). */
export function fetchJson(url, init = {}) {
  return rawFetchJson(url, { ...init, headers: withUser(url, init.headers ?? {}) });
}

/** `sendJson` as a signed-in user (see `withUser`). */
export function sendJson(url, method, value, headers = {}) {
  return fetchJson(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof value === 'string' ? value : JSON.stringify(value),
  });
}

/** The tool token every test worker is started with (`MNOTE_TOOL_TOKEN`). */
export const TOOL_TOKEN = 'mnote-e2e-tool-token-0123456789';

/** `startWorker` vars that enable the tool routes. */
export const TOOL_VARS = { MNOTE_TOOL_TOKEN: TOOL_TOKEN };

export const bearer = (token = TOOL_TOKEN) => ({ authorization: `Bearer ${token}` });

let seq = 0;
/** A fresh id with a prefix, unique within this process. */
export const fresh = (prefix) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${++seq}`;

const READ_TOOLS = new Set(['doc_fetch', 'block_fetch', 'doc_search', 'mnote.doc.fetch', 'mnote.block.fetch', 'mnote.doc.search']);

/**
 * Every AI write names a frozen context (`mnote_context_required` otherwise), as Hermes' do: a write these
 * helpers send without one first fetches the whole page (`doc_fetch`) and names that context. `bare: true`
 * sends the arguments exactly as given.
 */
async function withContext(url, toolName, args, headers, bare) {
  const plain = args && typeof args === 'object' && !Array.isArray(args);
  if (bare || READ_TOOLS.has(toolName) || !plain || !args.documentId || 'contextId' in args) return args;
  const body = { toolName: 'doc_fetch', args: { documentId: args.documentId, scope: { type: 'full' } }, toolCallId: fresh('call'), traceId: fresh('tr') };
  const fetched = await sendJson(`${url}/api/hermes/tools/mnote/call`, 'POST', body, headers);
  const contextId = fetched.body?.result?.contextId;
  // Kept on the caller's arguments, so sending them again (a replay) names the same context.
  if (contextId) args.contextId = contextId;
  return args;
}

/** `POST /api/hermes/tools/mnote/call`; a write without a contextId gets one (see `withContext`). */
export async function toolCall(url, toolName, args, { headers = bearer(), runId, toolCallId = fresh('call'), traceId = fresh('tr'), bare = false } = {}) {
  const body = { toolName, args: await withContext(url, toolName, args, headers, bare), toolCallId, traceId };
  if (runId) body.runId = runId;
  return sendJson(`${url}/api/hermes/tools/mnote/call`, 'POST', body, headers);
}

/** One JSON-RPC request to `/mcp`; a `tools/call` write without a contextId gets one (see `withContext`). */
export async function mcp(url, method, params = {}, { id = ++seq, headers = bearer(), bare = false } = {}) {
  if (method === 'tools/call' && params?.arguments) {
    params = { ...params, arguments: await withContext(url, params.name, params.arguments, headers, bare) };
  }
  return sendJson(`${url}/mcp`, 'POST', { jsonrpc: '2.0', id, method, params }, headers);
}

/** `PUT /api/profile`; answers the stored profile. */
export async function setProfile(url, profile, { workspaceId, headers } = {}) {
  const query = workspaceId ? `?workspaceId=${encodeURIComponent(workspaceId)}` : '';
  const res = await sendJson(`${url}/api/profile${query}`, 'PUT', profile, headers);
  if (res.status !== 200) throw new Error(`PUT /api/profile: ${res.status} ${res.text}`);
  return res.body.profile;
}

/** Stores a page of paragraphs `{id: text}` (JSON PUT); answers it. */
export async function putPage(url, documentId, paragraphs) {
  const blocks = Object.entries(paragraphs).map(([blockId, text]) => ({ blockId, type: 'paragraph', text }));
  const res = await sendJson(`${url}/api/documents/${documentId}`, 'PUT', { blocks });
  if (res.status !== 200) throw new Error(`PUT ${documentId}: ${res.status} ${res.text}`);
  return res.body;
}

export const getPage = async (url, documentId) => (await fetchJson(`${url}/api/documents/${documentId}`)).body;

export const command = (url, body) => sendJson(`${url}/api/page-ai/command`, 'POST', body);

/** `PATCH /api/documents/{id}/blocks`: a person's block edits `{baseRevision, operations, idempotencyKey, revisionRefs?}`. */
export const editBlocks = (url, documentId, body, headers = {}) =>
  sendJson(`${url}/api/documents/${documentId}/blocks`, 'PATCH', body, headers);

export const session = (url, id) => fetchJson(`${url}/api/page-ai/review-sessions/${id}`);

export const review = (url, id, verb, body) =>
  sendJson(`${url}/api/page-ai/review-sessions/${id}/${verb}`, 'POST', body === undefined ? '' : body);

export const audit = (url, documentId) => fetchJson(`${url}/api/documents/${documentId}/audit`);

export const verifyAudit = (url, documentId) => fetchJson(`${url}/api/documents/${documentId}/audit/verify`);

export const events = (url, documentId, runId) =>
  fetchJson(`${url}/api/documents/${documentId}/events${runId ? `?runId=${encodeURIComponent(runId)}` : ''}`);

/** `apply_block_ops` arguments for one replace. */
export function replaceArgs(documentId, baseRevision, { blockId, matchText, content, dryRun = false, key = fresh('k'), contextId } = {}) {
  const args = {
    documentId,
    baseRevision,
    dryRun,
    idempotencyKey: key,
    operations: [{ op: 'replace', ...(blockId ? { blockId } : {}), matchText, content }],
  };
  if (contextId) args.contextId = contextId;
  return args;
}
