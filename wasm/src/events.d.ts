// The package's event types, beside `types.d.ts` (the page, contexts, results, tool calls and options):
// review sessions and their verbs, tool events, and the live channel's messages. Another
// `typescript_custom_section` of lib.rs; the two share one namespace in the generated `.d.ts`.

/** A review session's `actions` (`mnote.page_ai_review_session.v1`): what its state allows a person now. */
export interface ReviewActionsV1 {
  accept: { allowed: boolean; requiresFreshRevision: boolean; requiresIdempotencyKey: boolean };
  reject: boolean;
  retry: { allowed: boolean; requiresNewToolCallId: boolean };
  abort: boolean;
  revert: boolean;
}

/** What `reviewVerbs` reads of a review session; a whole `mnote.page_ai_review_session.v1` will do. */
export interface ReviewGateInput {
  state: ReviewState;
  actions: ReviewActionsV1;
}

/** One verb a person may send a review session, as its `actions` gate it now. */
export interface ReviewVerbGate {
  verb: ReviewVerb;
  /** Whether the session's `actions` allow it now. */
  allowed: boolean;
  /** Why not, in core's words (the message and hint of the refusal it would get); `null` when allowed. */
  reason: string | null;
}

/** `mnote.tool_event.v1`: one tool or review event (`tool.started`, `tool.completed`, `tool.failed`,
 * `review.updated`), as `GET /api/documents/{id}/events` and the live channel's `tool.event` carry it. */
export interface ToolEventV1 {
  schema: "mnote.tool_event.v1";
  event: "tool.started" | "tool.completed" | "tool.failed" | "review.updated";
  /** The Hermes run (bound through its frozen context), the shortcut's run, or `mcp` for an MCP call that
   * names no run's context. */
  runId: string;
  toolCallId: string;
  toolName: string;
  reviewSessionId?: string;
  traceId: string;
  at: string;
  summary: {
    ok?: boolean;
    dryRun?: boolean;
    risk?: Risk;
    changedBlockCount?: number;
    blocked?: boolean;
    newRevision?: number;
    replayed?: boolean;
    errorCode?: PageAiErrorCode;
    reviewState?: ReviewState;
  };
}

/** `mnote.page_ai_review_session.v1`, as far as a live client reads it; the rest of the session (its
 * proposal, preview, answers and transitions) comes along. */
export interface ReviewSessionV1 extends ReviewGateInput {
  schema: "mnote.page_ai_review_session.v1";
  sessionId: string;
  documentId: string;
  runId: string;
  toolCallId: string;
  preview: ToolResultV1 | null;
  [field: string]: unknown;
}

/** The limits of a document's live channel, as `hello` reports them. */
export interface LiveLimitsV1 {
  /** Sockets one document accepts at once; one more is closed with code 4429 (`mnote_live_socket_limit`). */
  maxSockets: number;
  /** Largest message a client may send; a larger one closes the socket with code 4413
   * (`mnote_live_message_too_large`). */
  maxIncomingBytes: number;
  /** Largest message the channel sends; a larger one arrives as a `refetch` notice. */
  maxMessageBytes: number;
}

/** One block a write inserted, changed or moved, as it is after the write. */
export interface LiveBlockV1 {
  blockId: string;
  /** The block right before it, or `null` when it is first. */
  afterBlockId: string | null;
  /** Its `revisionRef` at the new revision. */
  revisionRef: string;
  type: BlockType;
  text: string;
  attrs?: BlockAttrs;
  editable: boolean;
}

/** What one committed command did to the page. */
export interface PageChangeV1 {
  /** The revision it was applied on; the message's `revision` is the one it made. */
  fromRevision: number;
  origin: Origin;
  /** The actor the audit log records. */
  actor: string;
  /** The Hermes run (or shortcut run) it belongs to. */
  runId?: string;
  toolCallId?: string;
  toolName?: ToolName;
  reviewSessionId?: string;
  title: string;
  permission: Permission;
  /** How many blocks the page has after it. */
  blockCount: number;
  /** Every inserted, changed or moved block, in page order. */
  blocks: LiveBlockV1[];
  deletedBlockIds: string[];
  /** The operations as validated (minted ids filled in); empty for a whole-page store. */
  operations: Operation[];
}

/** What stands for a message too large to send. */
export interface RefetchV1 {
  /** The kind of the message it replaces. */
  skipped: LiveEventKind;
  code: "mnote_live_message_too_large";
  bytes: number;
  limitBytes: number;
  /** For a skipped `review.updated`: read it with `GET /api/page-ai/review-sessions/{id}`. */
  reviewSessionId?: string;
}

/** The envelope every `mnote.live_event.v1` message has. */
export interface LiveEnvelopeV1 {
  schema: "mnote.live_event.v1";
  /** Position in the document's channel; resume with `?after=<seq>`. `hello` and `snapshot` carry the
   * position the socket is caught up to. */
  seq: number;
  /** The page revision once this message is applied. */
  revision: number;
  /** When the command ran (or the socket connected), RFC 3339. */
  at: string;
  documentId: string;
}

/** `mnote.live_event.v1`: one message of `GET /api/documents/{id}/live`. Switch on `kind`; each kind
 * carries one payload field.
 *
 * The channel is a WebSocket opened with the browser's session cookie (or a Bearer client token) from an
 * allowed origin; the tool token is refused. On connect it sends what the socket missed (the stored
 * messages after `?after=<seq>`, or of a revision after `?revision=<rev>`, or one `snapshot` when those are
 * no longer kept), then `hello`; after that every committed command's messages, in order, each with the
 * document's next `seq`. A client sends nothing but `ping` (answered `pong`). Close codes: 4429
 * `mnote_live_socket_limit` (the document has `hello.limits.maxSockets` sockets open), 4413
 * `mnote_live_message_too_large` (a client message over `maxIncomingBytes`); the reason starts with the
 * code. Follow it with `PageSession.applyRemote`, or let `connectLive` (`@mnote/pageai/live`) do it all. */
export type LiveEventV1 =
  | (LiveEnvelopeV1 & {
      kind: "hello";
      hello: { replayed: number; snapshot: boolean; limits: LiveLimitsV1 };
    })
  | (LiveEnvelopeV1 & { kind: "page.changed"; change: PageChangeV1 })
  | (LiveEnvelopeV1 & { kind: "tool.event"; event: ToolEventV1 })
  | (LiveEnvelopeV1 & { kind: "review.updated"; session: ReviewSessionV1 })
  | (LiveEnvelopeV1 & { kind: "snapshot"; page: Page })
  | (LiveEnvelopeV1 & { kind: "refetch"; refetch: RefetchV1 });

/** The payload of `profile.changed` (v2): the page's workspace profile as it is now. */
export interface ProfileChangeV2 {
  workspaceId: string;
  /** The version it was stored at; keep the highest seen. */
  version: number;
  reviewMode: ReviewMode;
  tools: { disabled: string[] };
}

/** `mnote.live_event.v2` (asked for with `?schema=mnote.live_event.v2`, as `connectLive` does): every v1
 * kind with the v2 schema id, plus `profile.changed`, sent right after `hello` and at every profile change
 * (not stored: its `seq` is the position the socket is caught up to). Close codes besides v1's: 4401
 * `mnote_live_session_ended` (signed out, or the sign-in expired), 4403 `mnote_live_role_changed` (the
 * workspace's members changed since this sign-in). */
export type LiveEventV2 =
  | (LiveEventV1 extends infer M ? (M extends LiveEventV1 ? Omit<M, "schema"> & { schema: "mnote.live_event.v2" } : never) : never)
  | (Omit<LiveEnvelopeV1, "schema"> & { schema: "mnote.live_event.v2"; kind: "profile.changed"; profile: ProfileChangeV2 });

/** What `PageSession.applyRemote` answers. */
export interface RemoteApplied {
  /** Whether the page changed: recompute any route or preview made before. */
  applied: boolean;
  /** The session's revision now. */
  revision: number;
  /** The kind of the message it followed. */
  kind: LiveEventKind;
}
