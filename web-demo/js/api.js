// Requests to the Worker. Failures become ApiError with the server's coded body ({code, message, hint}).

/**
 * An answer that was not 2xx, or no answer at all. `code` is the server's (core's error codes) and nothing
 * else: no answer (`unanswered`, status 0) or an answer without a coded body (something in front of the
 * Worker) is a state of this page, shown in words, never a made-up code.
 */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `request failed with status ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.code = typeof body?.code === "string" ? body.code : null;
    this.unanswered = status === 0;
    this.hint = body?.hint ?? (status === 0 ? "is the Worker running? start it with make dev" : "");
    this.details = body?.details ?? {};
  }
}

// Every API route needs a session. Under `make dev` (MNOTE_DEV_AUTO_LOGIN=true) the Worker signs this
// same-origin page in without a token; elsewhere sign in with POST /api/auth/login {token} first.
let signedIn = null;
/** `localDev`: this page was signed in by `make dev`'s dev-login, so set-up hints can name make dev's variables. */
export const signInState = { localDev: false };
const signIn = () =>
  (signedIn ??= fetch("/api/auth/dev-login", { method: "POST", credentials: "same-origin" })
    // Read the body: an unread one stays open, and leaving the page would abort it mid-load.
    .then((r) => {
      signInState.localDev = r.ok;
      return r.text();
    })
    .catch(() => null));

async function request(path, init = {}) {
  return (await exchange(path, init)).body;
}

// Reads started before their reader asks (readPanelsAhead): the first GET of the same path takes the answer,
// once; any later one reads anew.
const ahead = new Map();

/**
 * Starts the first reads of the page's panels (its suggestions, review sessions, audit head and its
 * workspace's profile) at once, as soon as the page is found: the page is drawn meanwhile, and each panel
 * takes its answer when it asks. Started after the page's own read, so none is older than the page the live
 * channel resumes from.
 */
export function readPanelsAhead(documentId, workspaceId) {
  for (const path of [suggestionsPath(documentId), reviewListPath(documentId), auditHeadPath(documentId), profilePath(workspaceId)]) {
    if (ahead.has(path)) continue;
    const answer = exchange(path);
    answer.catch(() => {}); // a failure is met by the reader that takes it
    ahead.set(path, answer);
  }
}

/** One request: the answer's JSON body and its headers. */
async function exchange(path, init = {}) {
  if ((init.method ?? "GET") === "GET" && ahead.has(path)) {
    const answer = ahead.get(path);
    ahead.delete(path);
    return answer;
  }
  await signIn();
  let response;
  try {
    response = await fetch(path, {
      credentials: "same-origin",
      ...init,
      headers: { accept: "application/json", ...init.headers },
    });
  } catch {
    throw new ApiError(0, null);
  }
  // The body's bytes are kept for a reader that hands them on as they came: the WASM session reads a page
  // fastest from its UTF-8 bytes (a string is encoded again on its way in).
  const bytes = new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  let body = null;
  try {
    body = JSON.parse(utf8.decode(bytes));
  } catch {}
  if (!response.ok) throw new ApiError(response.status, body);
  return { body, bytes, headers: response.headers };
}
const utf8 = new TextDecoder();

/** Stores a new page under `documentId` (`PUT /api/documents/{id}`): `{title, blocks}`. */
export const createDocument = (documentId, page) =>
  request(`/api/documents/${encodeURIComponent(documentId)}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(page),
  });

/** The page of a document, as JSON. */
export const fetchDocument = (documentId) => request(`/api/documents/${encodeURIComponent(documentId)}`);

/**
 * The page of a document, the signed-in person's role in its workspace (`viewer`, `editor` or `owner`),
 * which the Worker names in the `x-mnote-role` header of the page's GET, and their user id (`x-mnote-user`):
 * the WASM session previews writes for that role, so a viewer's preview says "held" where the server would
 * hold the write, and the id tells the person's own suggestions (theirs to withdraw) from others'.
 * `pageBytes` is the page's JSON as the server sent it (UTF-8), for the session to read: faster than an
 * object or a string.
 */
export async function fetchDocumentAndRole(documentId) {
  const { body, bytes, headers } = await exchange(`/api/documents/${encodeURIComponent(documentId)}`);
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

// The paths the page's first reads share with readPanelsAhead, spelled once.
const suggestionsPath = (documentId) => `/api/documents/${encodeURIComponent(documentId)}/suggestions`;
const reviewListPath = (documentId, cursor = null) =>
  `/api/documents/${encodeURIComponent(documentId)}/review-sessions?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
const auditHeadPath = (documentId) => `/api/documents/${encodeURIComponent(documentId)}/audit?limit=1`;

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

/** The profile route of `workspaceId` (each workspace has its own profile; none named: the caller's default). */
const profilePath = (workspaceId) => (workspaceId ? `/api/profile?workspaceId=${encodeURIComponent(workspaceId)}` : "/api/profile");

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
export const fetchReviewSession = (sessionId) => request(`/api/page-ai/review-sessions/${encodeURIComponent(sessionId)}`);

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

/** The newest `n` entries of the document's audit log, oldest first, and its head `{seq, hash}`. */
export async function fetchRecentAudit(documentId, n = 10) {
  const path = `/api/documents/${encodeURIComponent(documentId)}/audit`;
  const { head } = await request(auditHeadPath(documentId));
  const after = Math.max(0, (head?.seq ?? 0) - n);
  const { entries } = await request(`${path}?after=${after}&limit=${n}`);
  return { entries, head };
}

/** Checks the document's audit hash chain: `{ok, verified, entries, head}`, or a coded error. */
export const verifyAudit = (documentId) => request(`/api/documents/${encodeURIComponent(documentId)}/audit/verify`);
