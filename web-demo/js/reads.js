// The demo's first reads, started before its code has arrived. index.html loads this small module on its own
// (scripts/build-demo leaves it out of dist/app.js, which imports it by its URL, so both share one instance):
// it signs the page in and asks at once for the page named in the URL and its panels' first data, while the
// bundle, the package's modules and the `.wasm` still arrive, then for what those reads name (the audit
// entries before its head, the review session the panel shows first, the profile of the page's workspace),
// so each panel finds its data in when the page is drawn. Every other request goes through `exchange` too.

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

/** The document this tab opens: `?doc=`, else the welcome page. */
export const openedDocumentId = new URLSearchParams(location.search).get("doc") || "welcome";

// Every API route needs a session. Under `make dev` (MNOTE_DEV_AUTO_LOGIN=true) the Worker signs this
// same-origin page in without a token; elsewhere sign in with POST /api/auth/login {token} first.
let signedIn = null;
/** `localDev`: this page was signed in by `make dev`'s dev-login, so set-up hints can name make dev's variables. */
export const signInState = { localDev: false };
export const signIn = () =>
  (signedIn ??= fetch("/api/auth/dev-login", { method: "POST", credentials: "same-origin" })
    // Read the body: an unread one stays open, and leaving the page would abort it mid-load.
    .then((r) => {
      signInState.localDev = r.ok;
      return r.text();
    })
    .catch(() => null));

// Reads started before their reader asks: the first reader of the same key takes the answer, once; any later
// one reads anew. What no reader took by the time the page is open is dropped (`endReadsAhead`): an answer
// kept longer could be older than what the live channel has told the page since.
const ahead = new Map();
let reading = true;

/** Starts `read()` now, for the first reader of `key` (a GET's path, or a name for a few reads). */
function readAhead(key, read) {
  if (!reading || ahead.has(key)) return ahead.get(key);
  const answer = read();
  answer.catch(() => {}); // a failure is met by the reader that takes it
  ahead.set(key, answer);
  return answer;
}

/** The answer read ahead for `key`, or `read()` now. */
export function takeAhead(key, read) {
  const answer = ahead.get(key);
  if (!answer) return read();
  ahead.delete(key);
  return answer;
}

/** The page is open: answers no reader took are dropped, and nothing more is read ahead. */
export function endReadsAhead() {
  reading = false;
  ahead.clear();
}

/** One request: the answer's JSON body, its UTF-8 bytes and its headers; a GET read ahead is taken. */
export function exchange(path, init = {}) {
  return (init.method ?? "GET") === "GET" ? takeAhead(path, () => send(path, init)) : send(path, init);
}

async function send(path, init) {
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

// The paths the first reads share with their readers (js/api.js), spelled once.
const doc = (documentId) => `/api/documents/${encodeURIComponent(documentId)}`;
export const documentPath = doc;
export const suggestionsPath = (documentId) => `${doc(documentId)}/suggestions`;
/** How many review sessions one read of the list asks for: a page with a hundred open suggestions lists them in one. */
const REVIEW_PAGE = 200;
export const reviewListPath = (documentId, cursor = null) =>
  `${doc(documentId)}/review-sessions?limit=${REVIEW_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
export const auditHeadPath = (documentId) => `${doc(documentId)}/audit?limit=1`;
export const auditPath = (documentId, after, limit) => `${doc(documentId)}/audit?after=${after}&limit=${limit}`;
export const reviewSessionPath = (sessionId) => `/api/page-ai/review-sessions/${encodeURIComponent(sessionId)}`;
/** The profile route of `workspaceId` (each workspace has its own profile; none named: the caller's default). */
export const profilePath = (workspaceId) => (workspaceId ? `/api/profile?workspaceId=${encodeURIComponent(workspaceId)}` : "/api/profile");

/** How many of the newest audit entries the audit panel shows. */
export const RECENT_AUDIT = 10;

/**
 * The newest `n` entries of the document's audit log, oldest first, and its head `{seq, hash}`: the head,
 * then the entries before it (the log's reads count from the oldest).
 */
export const readRecentAudit = (documentId, n) =>
  takeAhead(`recent-audit ${documentId} ${n}`, async () => {
    const { body } = await exchange(auditHeadPath(documentId));
    const after = Math.max(0, (body.head?.seq ?? 0) - n);
    const { body: recent } = await exchange(auditPath(documentId, after, n));
    return { entries: recent.entries, head: body.head };
  });

/**
 * The review session a panel shows first from a list's first read: the open session changed last. The
 * server lists the open ones first (`counts.open` of them); the panel's time order is the last change.
 */
function newestOpen(first, openCount) {
  let newest = null;
  for (const s of first.slice(0, openCount)) if (!newest || String(s.updatedAt ?? "") > String(newest.updatedAt ?? "")) newest = s;
  return newest?.sessionId ?? null;
}

// The live channel's position each first read was answered at (the Worker's `x-mnote-live-seq`): null once
// one answered without it.
let positions = [];

/** A first read: its answer's live position is kept for `firstReadsSeq`. */
const firstRead = (path) =>
  send(path, {}).then((answer) => {
    const seq = Number.parseInt(answer.headers.get("x-mnote-live-seq") ?? "", 10);
    if (positions && Number.isInteger(seq)) positions.push(seq);
    else positions = null;
    return answer;
  });

/**
 * Where the live channel resumes from (`connectLive`'s `after`): the oldest position among the page's and its
 * panels' first reads, so whatever was committed after any of them (a change, a suggestion, a review moving)
 * is replayed, in whatever order the server answered them; `undefined` when one did not say (the channel then
 * resumes from the page's revision).
 */
export async function firstReadsSeq() {
  await Promise.allSettled(firstReads);
  return positions?.length ? Math.min(...positions) : undefined;
}
const firstReads = [];

/**
 * Starts the first reads of the page's panels that need only the page's id (its suggestions, review sessions
 * and the one shown, the audit log's newest entries), beside the page's own read: each panel takes its answer
 * when it asks. The server may answer them before the page; the live channel resumes from the oldest of
 * their positions (`firstReadsSeq`), so none misses what was committed in between.
 */
function readPanelsAhead(documentId) {
  const first = (path) => {
    const answer = readAhead(path, () => firstRead(path));
    firstReads.push(answer);
    return answer;
  };
  first(suggestionsPath(documentId));
  first(auditHeadPath(documentId));
  readAhead(`recent-audit ${documentId} ${RECENT_AUDIT}`, () => readRecentAudit(documentId, RECENT_AUDIT));
  first(reviewListPath(documentId))
    .then(({ body }) => {
      const id = newestOpen(body.sessions, body.counts.open);
      if (id) readAhead(reviewSessionPath(id), () => send(reviewSessionPath(id), {}));
    })
    .catch(() => {});
}

// This tab's page is asked for as soon as this module runs, and its panels' first reads beside it; the
// profile of its workspace once the page has named it.
{
  const page = readAhead(documentPath(openedDocumentId), () => firstRead(documentPath(openedDocumentId)));
  firstReads.push(page);
  readPanelsAhead(openedDocumentId);
  page
    .then(({ body }) => readAhead(profilePath(body.workspaceId), () => send(profilePath(body.workspaceId), {})))
    .catch(() => {});
}
