// Types of @mnote/pageai/live, the client of a document's live channel. The message types are the
// package's own (`LiveEventV1` and its parts, in the main module).
import type { LiveEventV1, LiveEventV2, Page, PageSession, RemoteApplied } from "./pageai.js";

export type { LiveEventV1, LiveEventV2, RemoteApplied };

/**
 * Where a connection is:
 * - `connecting`: the WebSocket is opening (with `?after=` and `?revision=` to resume);
 * - `open`: it is open; the catch-up (replayed messages, or a snapshot) is arriving;
 * - `live`: `hello` arrived: caught up, and every later message arrives as it happens;
 * - `resyncing`: the session could not follow a message; the page is being read again;
 * - `waiting`: the socket closed; the next attempt starts after `delayMs`;
 * - `closed`: `close()` was called.
 */
export type LiveState = "idle" | "connecting" | "open" | "live" | "resyncing" | "waiting" | "closed";

/** What `onStatus` is told on every change of state. */
export interface LiveStatus {
  state: LiveState;
  /** Failed attempts since the channel was last live. */
  attempt: number;
  /** The WebSocket URL, for `connecting`. */
  url?: string;
  /** The close code, for `waiting` and `closed`: 4429 `mnote_live_socket_limit`, 4413
   * `mnote_live_message_too_large`, 1006 when the upgrade was refused (no credential, a foreign origin). */
  code?: number;
  /** The close reason; for a 44xx code it starts with the coded limit, e.g. `mnote_live_socket_limit: …`. */
  reason?: string;
  /** For `waiting`: how long until the next attempt. */
  delayMs?: number;
  /** For `live`: the `seq` and revision the channel is at. */
  seq?: number;
  revision?: number;
}

/** How long to wait between attempts: `initialDelayMs × factor^attempt`, at most `maxDelayMs`, ±`jitter`. */
export interface LiveBackoff {
  /** Default 500. */
  initialDelayMs?: number;
  /** Default 30 000. */
  maxDelayMs?: number;
  /** Default 2. */
  factor?: number;
  /** A fraction of the delay, default 0.2. */
  jitter?: number;
}

/** The options of `connectLive`. Only `documentId` is required in a browser page. */
export interface LiveOptions {
  /** The document. */
  documentId: string;
  /** The Worker's origin, e.g. `https://notes.example`; the page's own origin when omitted. */
  url?: string | URL;
  /** A session to keep current: every message goes through `session.applyRemote` before `onEvent`. When
   * it cannot follow, the page is read again (`fetchPage`) and applied as a snapshot, and the channel
   * resumes from its revision. */
  session?: PageSession | null;
  /** Every message, once the session followed it (`applied` is `applyRemote`'s answer, `null` without a
   * session). After a resync, the snapshot it applied is passed here too. */
  onEvent?: (message: LiveEventV1 | LiveEventV2, applied: RemoteApplied | null) => void;
  /** Every change of state. */
  onStatus?: (status: LiveStatus) => void;
  /** Errors that do not stop the connection (a message that is not JSON, a failed page read); default
   * `console.error`. */
  onError?: (error: unknown) => void;
  /** Resume after this `seq` (the `lastSeq` of an earlier connection). */
  after?: number;
  /** Without a session: the revision of the page the caller holds (with a session, its revision is used). */
  revision?: number;
  /** Outside a browser (a Node service, another server): the credential, sent with the upgrade and with the
   * default page read, e.g. `{ authorization: "Bearer <client token or session JWT>" }`. Needs `WebSocket`
   * to be a class that sends headers (the `ws` package's: `new WebSocket(url, protocols, { headers })`);
   * a browser's, and Node's built-in one, cannot, so passing `headers` without `WebSocket` throws. */
  headers?: Record<string, string>;
  /** Reads the page for a resync; default `GET {url}/api/documents/{documentId}` with the page's cookies
   * (and `headers`). */
  fetchPage?: () => Promise<Page>;
  /** The `fetch` the default `fetchPage` uses; `globalThis.fetch` when omitted. */
  fetch?: typeof fetch;
  /** The WebSocket class; `globalThis.WebSocket` when omitted (Node 20 has none by default: pass the `ws`
   * package's, or run Node with `--experimental-websocket`). */
  WebSocket?: new (url: string, protocols?: string | string[], options?: { headers: Record<string, string> }) => WebSocket;
  /** Subprotocols for the WebSocket. */
  protocols?: string | string[];
  /** Reconnect timing. */
  backoff?: LiveBackoff;
  /** How often to send `ping` (answered `pong` by the channel without waking the document); a socket that
   * answers nothing for one interval is dropped and reconnected. Default 30 000; 0 turns it off. */
  pingIntervalMs?: number;
}

/** An open (or reconnecting) live channel. */
export interface LiveConnection {
  /** Stops reconnecting and closes the socket. */
  close(): void;
  /** The `seq` of the last message taken; what a later `connectLive({after})` resumes from. */
  readonly lastSeq: number | undefined;
  /** The revision of the page followed: the session's, or the last one a message carried. */
  readonly revision: number | undefined;
  /** Where the connection is. */
  readonly state: LiveState;
}

/** Connects to the live channel of a document. */
export function connectLive(options: LiveOptions): LiveConnection;
