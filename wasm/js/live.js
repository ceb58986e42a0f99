// @mnote/pageai/live: a small client for a document's live channel (GET /api/documents/{id}/live).
//
// Plain JavaScript, no WASM: it opens the WebSocket, resumes from the last `seq` it took (or the revision of
// the page it follows), reconnects with backoff, and, given a `PageSession`, keeps that session's page
// current with `applyRemote`. When the session cannot follow (a change went missing, or was too large to
// send) it reads the page over HTTP, applies it as a snapshot and resumes from its revision.
//
//   import { connectLive } from "@mnote/pageai/live";
//   const live = connectLive({ documentId, session, onEvent: (message) => render(message) });
//   live.close();

// The client asks for v2 (`?schema=`), which adds `profile.changed`; a server that predates v2 ignores the
// parameter and speaks v1, which the client reads alike.
const SCHEMA = "mnote.live_event.v2";
const SCHEMAS = new Set(["mnote.live_event.v1", SCHEMA]);
// Messages the channel does not store or number: they carry the position the socket is caught up to.
const UNNUMBERED = new Set(["hello", "snapshot", "profile.changed"]);
const RESYNC = "mnote_live_resync";
const DEFAULTS = { initialDelayMs: 500, maxDelayMs: 30_000, factor: 2, jitter: 0.2, pingIntervalMs: 30_000 };

/**
 * Connects to the live channel of `documentId`. See live.d.ts for every option.
 * @param {import("./live.js").LiveOptions} options
 * @returns {import("./live.js").LiveConnection}
 */
export function connectLive(options) {
  const {
    documentId,
    session = null,
    onEvent = () => {},
    onStatus = () => {},
    onError = (error) => console.error("mnote live:", error),
  } = options ?? {};
  if (typeof documentId !== "string" || documentId === "") throw new TypeError("connectLive needs a documentId");
  const base = baseUrl(options.url);
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  if (typeof Socket !== "function") throw new TypeError("connectLive needs a WebSocket (options.WebSocket in Node 20)");
  // Outside a browser: a credential in headers (`authorization: Bearer …`). A browser's WebSocket, and
  // Node's built-in one, cannot send headers, so they need a class that takes them (the `ws` package's).
  const headers = options.headers ? { ...options.headers } : null;
  if (headers && !options.WebSocket) {
    throw new TypeError("connectLive with headers needs options.WebSocket that sends them, e.g. the ws package's");
  }
  const timing = { ...DEFAULTS, ...options.backoff, pingIntervalMs: options.pingIntervalMs ?? DEFAULTS.pingIntervalMs };
  const fetchPage =
    options.fetchPage ?? (() => readPage(base, documentId, options.fetch ?? globalThis.fetch, headers ?? {}));

  let lastSeq = Number.isInteger(options.after) ? options.after : undefined;
  let revision = Number.isInteger(options.revision) ? options.revision : undefined;
  let socket = null;
  let attempt = 0;
  let state = "idle";
  let closed = false;
  let timer = null;
  let pinger = null;
  let heard = true;
  let resyncing = null;

  const status = (next, extra = {}) => {
    state = next;
    onStatus({ state: next, attempt, ...extra });
  };

  const open = () => {
    if (closed) return;
    const url = new URL(`/api/documents/${encodeURIComponent(documentId)}/live`, base);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    const followed = session ? session.revision : revision;
    if (lastSeq !== undefined) url.searchParams.set("after", String(lastSeq));
    if (followed !== undefined) url.searchParams.set("revision", String(followed));
    url.searchParams.set("schema", SCHEMA);
    status("connecting", { url: url.href });
    const ws = headers
      ? new Socket(url.href, options.protocols ?? [], { headers })
      : options.protocols
        ? new Socket(url.href, options.protocols)
        : new Socket(url.href);
    socket = ws;
    ws.onopen = () => {
      if (socket !== ws) return;
      status("open");
      startPinging(ws);
    };
    ws.onmessage = (event) => {
      if (socket !== ws) return;
      heard = true;
      if (event.data === "pong") return;
      take(ws, event.data);
    };
    const dropped = (code, reason) => {
      if (socket !== ws) return;
      socket = null;
      stopPinging();
      if (closed) return status("closed", { code, reason });
      retry({ code, reason });
    };
    // A browser follows an error with a close event; some clients (Node's) report a refused or failed
    // handshake with the error alone, so that counts as the drop too (whichever comes first).
    ws.onerror = () => dropped(1006, "connection failed");
    ws.onclose = (event) => dropped(event.code, event.reason);
  };

  const take = (ws, data) => {
    let message;
    try {
      message = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
    } catch (error) {
      onError(error);
      return;
    }
    if (!SCHEMAS.has(message?.schema)) return;
    const stored = !UNNUMBERED.has(message.kind);
    if (stored && lastSeq !== undefined && message.seq <= lastSeq) return; // already taken
    let applied = null;
    if (session) {
      try {
        applied = session.applyRemote(message);
      } catch (error) {
        if (error?.code === RESYNC) return resync(ws, message);
        onError(error);
        return;
      }
    }
    lastSeq = message.seq;
    if (applied?.applied || message.kind === "page.changed" || message.kind === "snapshot") {
      revision = message.revision;
    }
    if (message.kind === "hello") {
      attempt = 0;
      status("live", { seq: message.seq, revision: message.revision });
    }
    onEvent(message, applied);
  };

  // The session cannot follow: read the page, apply it as a snapshot, and resume from its revision.
  const resync = (ws, message) => {
    if (resyncing) return;
    status("resyncing", { seq: message.seq, revision: message.revision });
    if (socket === ws) {
      socket = null;
      stopPinging();
      ws.close(1000, "resync");
    }
    resyncing = (async () => {
      const page = await fetchPage();
      const snapshot = {
        schema: SCHEMA,
        seq: lastSeq ?? 0,
        revision: page.revision,
        kind: "snapshot",
        at: new Date().toISOString(),
        documentId,
        page,
      };
      const applied = session.applyRemote(snapshot);
      revision = page.revision;
      // Resume by revision: the replay then starts right after the page that was read.
      lastSeq = undefined;
      onEvent(snapshot, applied);
    })()
      .then(() => {
        resyncing = null;
        open();
      })
      .catch((error) => {
        resyncing = null;
        onError(error);
        retry({ reason: String(error?.message ?? error) });
      });
  };

  const retry = (why) => {
    if (closed) return;
    const delay = Math.min(timing.maxDelayMs, timing.initialDelayMs * timing.factor ** attempt);
    const delayMs = Math.round(delay * (1 + timing.jitter * (2 * Math.random() - 1)));
    attempt += 1;
    status("waiting", { ...why, delayMs });
    timer = setTimeout(() => {
      timer = null;
      open();
    }, delayMs);
  };

  const startPinging = (ws) => {
    stopPinging();
    if (!(timing.pingIntervalMs > 0)) return;
    heard = true;
    pinger = setInterval(() => {
      if (!heard) {
        // Nothing since the last ping, not even its pong: the connection is gone without a close.
        socket = null;
        stopPinging();
        ws.close(4000, "no answer to ping");
        retry({ reason: "no answer to ping" });
        return;
      }
      heard = false;
      ws.send("ping");
    }, timing.pingIntervalMs);
  };

  const stopPinging = () => {
    if (pinger !== null) clearInterval(pinger);
    pinger = null;
  };

  open();

  return {
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      stopPinging();
      const ws = socket;
      socket = null;
      if (ws) ws.close(1000, "closed by the client");
      status("closed");
    },
    get lastSeq() {
      return lastSeq;
    },
    get revision() {
      return session ? session.revision : revision;
    },
    get state() {
      return state;
    },
  };
}

function baseUrl(url) {
  if (url !== undefined) return new URL(url);
  if (globalThis.location?.origin) return new URL(globalThis.location.origin);
  throw new TypeError("connectLive needs a url outside a browser page");
}

async function readPage(base, documentId, fetchImpl, headers) {
  const res = await fetchImpl(new URL(`/api/documents/${encodeURIComponent(documentId)}`, base), {
    credentials: "include",
    headers: { ...headers, accept: "application/json" },
  });
  if (!res.ok) throw new Error(`GET /api/documents/${documentId} answered ${res.status}`);
  return res.json();
}
