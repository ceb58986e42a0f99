// Requests to the Worker. Failures become ApiError with the server's coded body ({code, message, hint}).

import {
  ApiError,
  documentPath,
  exchange,
  profilePath,
  RECENT_AUDIT,
  readRecentAudit,
  reviewListPath,
  reviewSessionPath,
  signIn,
  suggestionsPath,
} from "/js/reads.js";

// Sign-in, the requests and the reads started before the demo's code arrived live in js/reads.js, a module
// index.html loads on its own (imported here by its URL, so there is one instance of it).
export { ApiError, endReadsAhead, firstReadsSeq, openedDocumentId, signInState } from "/js/reads.js";

async function request(path, init = {}) {
  return (await exchange(path, init)).body;
}

/** Stores a new page under `documentId` (`PUT /api/documents/{id}`): `{title, blocks}`. */
export const createDocument = (documentId, page) =>
  request(documentPath(documentId), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(page),
  });

/** The page of a document, as JSON. */
export const fetchDocument = (documentId) => request(documentPath(documentId));

/**
 * The page of a document, the signed-in person's role in its workspace (`viewer`, `editor` or `owner`),
 * which the Worker names in the `x-mnote-role` header of the page's GET, and their user id (`x-mnote-user`):
 * the WASM session previews writes for that role, so a viewer's preview says "held" where the server would
 * hold the write, and the id tells the person's own suggestions (theirs to withdraw) from others'.
 * `pageBytes` is the page's JSON as the server sent it (UTF-8), for the session to read: faster than an
 * object or a string.
 */
export async function fetchDocumentAndRole(documentId) {
  const { body, bytes, headers } = await exchange(documentPath(documentId));
  const role = headers.get("x-mnote-role");
  return { page: body, pageBytes: bytes, role: ["viewer", "editor", "owner"].includes(role) ? role : "owner", user: headers.get("x-mnote-user") };
}

/**
 * Holds a person's block edits as their suggestion (`POST /api/documents/{id}/suggestions`, the body of
 * `PATCH …/blocks` and an optional `reason`): nothing is written; answers the review session that holds it.
 */
export const suggestBlocks = (documentId, body) => postJson(suggestionsPath(documentId), body);

/** The page's pending suggestions, `mnote.suggestion.v1` each, in page order. */
export const fetchSuggestions = (documentId) => request(suggestionsPath(documentId));

/**
 * Saves a person's block edits (`PATCH /api/documents/{id}/blocks`, `{baseRevision, operations,
 * idempotencyKey, revisionRefs?}`): all land or none. Answers the write's `mnote.tool_result.v1`; a block
 * someone else changed since is an ApiError `mnote_revision_conflict` (409) listing each such block.
 */
export const saveBlocks = (documentId, body) =>
  request(`/api/documents/${encodeURIComponent(documentId)}/blocks`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/**
 * Runs a page-AI command on the server (`POST /api/page-ai/command`): the Durable Object freezes a context,
 * routes the prompt with the same core as the browser, and applies the shortcut, holds it for review, or
 * hands it to Hermes. `body` is `{documentId, prompt, scope?, selection?, mode?, runHermes?}`.
 */
export const runCommand = (body) =>
  request("/api/page-ai/command", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/**
 * Reads a Hermes run's events (`GET /api/hermes/client/events/{runId}?sessionId=`, SSE) and calls `onEvent`
 * with each one until the terminal event (`run.completed`, `run.failed`, `run.cancelled`), which it answers
 * once the stream has closed.
 * Keepalive comments are skipped. A stream that ends without a terminal event is an ApiError.
 */
export async function streamRun(runId, sessionId, onEvent) {
  await signIn();
  const path = `/api/hermes/client/events/${encodeURIComponent(runId)}?sessionId=${encodeURIComponent(sessionId)}`;
  let response;
  try {
    response = await fetch(path, { credentials: "same-origin", headers: { accept: "text/event-stream" } });
  } catch {
    throw new ApiError(0, null);
  }
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (!data) continue; // a keepalive comment
      const event = JSON.parse(data);
      onEvent(event);
      if (["run.completed", "run.failed", "run.cancelled"].includes(event.event)) {
        // The Worker closes the stream after the terminal event; read to its end rather than abort it.
        const closed = (async () => {
          while (!(await reader.read()).done);
        })();
        const late = new Promise((resolve) => setTimeout(resolve, 5_000, "late"));
        if ((await Promise.race([closed.catch(() => null), late])) === "late") await reader.cancel().catch(() => {});
        return event;
      }
    }
  }
  throw new ApiError(502, { code: "hermes_client_upstream_unavailable", message: "the run's event stream ended before the run did" });
}

/**
 * Asks the server to stop a Hermes run (`POST /api/hermes/client/runs/{runId}/abort`); the run's event
 * stream then ends with `run.cancelled`.
 */
export const abortRun = (runId, { documentId, sessionId }) =>
  postJson(`/api/hermes/client/runs/${encodeURIComponent(runId)}/abort`, { documentId, sessionId });

/** Accepts a held review session: the server applies it, or answers `stale` with a fresh preview. */
export const acceptReview = (sessionId, idempotencyKey, blockIds) =>
  reviewAction(sessionId, "accept", blockIds ? { idempotencyKey, blockIds } : { idempotencyKey });

const postJson = (path, body) =>
  request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A workspace's page-AI profile and the manifest it yields: `{profile: {tools: {disabled}, reviewMode}, manifest}`. */
export const fetchProfile = (workspaceId) => request(profilePath(workspaceId));

/** Stores the workspace's profile (its owner only); answers `{profile, manifest}` as stored. */
export const putProfile = (profile, workspaceId) =>
  request(profilePath(workspaceId), { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(profile) });

/**
 * The document's review sessions worth a line: every open one (the server lists them first, so they are
 * never paged out behind applied ones), then up to `others` of the rest, each group newest first. Answers
 * `{sessions: [{sessionId, state, updatedAt}], counts: {open, all}}`, the counts the server's.
 * `onFirstPage(sessions)` is called with the first page's sessions as soon as it answers, so a reader can
 * start on what it needs from it while the later pages are read.
 */
export async function listReviewSessions(documentId, { others = 8, onFirstPage = () => {} } = {}) {
  const sessions = [];
  let counts = { open: 0, all: 0 };
  let cursor = null;
  // Pages of 50 until every open session and `others` more are in (or the list ends).
  for (let page = 0; page < 100; page++) {
    const answer = await request(reviewListPath(documentId, cursor));
    if (page === 0) counts = answer.counts;
    sessions.push(...answer.sessions);
    if (page === 0) onFirstPage(sessions);
    cursor = answer.nextCursor ?? null;
    if (!cursor || sessions.length >= counts.open + others) break;
  }
  return { sessions: sessions.slice(0, counts.open + others), counts };
}

/** One review session, `mnote.page_ai_review_session.v1`. */
export const fetchReviewSession = (sessionId) => request(reviewSessionPath(sessionId));

/**
 * A review action on a session: `accept` ({idempotencyKey, blockIds?}), `reject`, `abort`, `retry`
 * ({toolCallId}) or `revert` ({idempotencyKey}).
 */
export const reviewAction = (sessionId, action, body) =>
  postJson(`/api/page-ai/review-sessions/${encodeURIComponent(sessionId)}/${action}`, body);

/**
 * Undoes every write Hermes run `runId` applied, as one write: `{idempotencyKey, confirmRevision?}`.
 * Answers `mnote.run_undo.v1`: `undone`, or `needs_confirm` with a preview when a later edit touched
 * one of the run's blocks (send it again with `confirmRevision` to write).
 */
export const undoRun = (documentId, runId, body) =>
  postJson(`/api/documents/${encodeURIComponent(documentId)}/runs/${encodeURIComponent(runId)}/undo`, body);

/**
 * The newest `n` entries of the document's audit log, oldest first, and its head `{seq, hash}` (the panel's
 * `RECENT_AUDIT` of them were read ahead as the page opened).
 */
export const fetchRecentAudit = (documentId, n = RECENT_AUDIT) => readRecentAudit(documentId, n);

/** Checks the document's audit hash chain: `{ok, verified, entries, head}`, or a coded error. */
export const verifyAudit = (documentId) => request(`/api/documents/${encodeURIComponent(documentId)}/audit/verify`);
