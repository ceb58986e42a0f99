/** A block's kind. The snake_case name is the wire form. */
export type BlockType =
  | "heading"
  | "paragraph"
  | "bulleted_list_item"
  | "numbered_list_item"
  | "todo"
  | "quote"
  | "code"
  | "divider"
  | "image"
  | "table";

/** Type-specific attributes; which ones a block may carry depends on its type. */
export interface BlockAttrs {
  /** Headings: 1..6. */
  level?: 1 | 2 | 3 | 4 | 5 | 6;
  /** Todos: whether it is done. */
  checked?: boolean;
  /** Code blocks: the fence's info string. */
  language?: string;
  /** Images: the URL. */
  src?: string;
  /** Images: the alternative text. */
  alt?: string;
  /** List items and todos: 0-based nesting depth. */
  depth?: number;
}

/**
 * A block id as `mintBlockId()` spells it: `b_` and 10 characters of lowercase RFC 4648 base32 (SPEC §2).
 * It is a `string`, so it goes wherever a block id does; the type only says where it came from.
 */
export type MintedBlockId = `b_${string}`;

/** One block of a page, as the package returns it. */
export interface Block {
  /** Unique within the page; matches `^[A-Za-z0-9_-]{1,64}$`. */
  blockId: string;
  type: BlockType;
  /** Inline Markdown (literal text for `code`, GFM table source for `table`). */
  text: string;
  /** Omitted when empty. */
  attrs?: BlockAttrs;
  /** `false` locks the block: no write may touch it. */
  editable: boolean;
}

/** A page as the package returns it. */
export interface Page {
  workspaceId: string;
  documentId: string;
  title: string;
  /** Increases by exactly 1 per applied write batch. */
  revision: number;
  permission: "edit" | "read";
  blocks: Block[];
}

/** A block as the package accepts it: `text`, `attrs` and `editable` have defaults. */
export interface BlockInput {
  blockId: string;
  type: BlockType;
  text?: string;
  attrs?: BlockAttrs;
  editable?: boolean;
}

/** A page as the package accepts it: `title`, `revision` and `permission` have defaults. */
export interface PageInput {
  workspaceId: string;
  documentId: string;
  title?: string;
  revision?: number;
  permission?: "edit" | "read";
  blocks: BlockInput[];
}

/** The options of `markdownToPage`. */
export interface MarkdownPageOptions {
  workspaceId: string;
  documentId: string;
  /** Empty when omitted. */
  title?: string;
}

/** Which blocks a context contains. */
export type ContextScope =
  /** Every block; every editable block is a target. */
  | { type: "full" }
  /** Headings only, each with the size of its section; nothing is a target. */
  | { type: "outline" }
  /** One block; it is the target if editable. */
  | { type: "block"; blockId: string }
  /** The selected blocks plus one context-only neighbour on each side. */
  | { type: "selection"; blockIds: string[] }
  /** Blocks whose text contains the query (case-, width- and CJK-aware). */
  | { type: "keyword"; query: string };

/** A view of the context's blocks: `pageText`, `pageXml` or `blocks`. */
export type ContextFormat = "text" | "page_xml" | "json";

/** The character budget of one context chunk. */
export interface ContextBudget {
  /** At most this many characters of the text view, cut at block boundaries. */
  maxChars: number;
}

/** What to freeze: the input of `buildContext` and `PageSession.context`. */
export interface ContextRequest {
  scope: ContextScope;
  /** All three views when omitted. */
  formats?: ContextFormat[];
  /** None means the whole scope in one answer. */
  budget?: ContextBudget | null;
  /** The `continuation` of a previous, truncated answer, sent with the same scope. */
  continuation?: string | null;
}

/** One block as a model sees it in a frozen context. */
export interface ContextBlockV1 {
  blockId: string;
  type: BlockType;
  /** The block's text, or a piece of it when `partial`. */
  text: string;
  /** `pageRev:{revision}:block:{blockId}:{h8}`. */
  revisionRef: string;
  editable: boolean;
  /** Headings: their level. */
  level?: number;
  /** Outline: how many blocks belong to this heading's section. */
  blockCount?: number;
  /** A neighbour shown for context only; never a write target. */
  contextOnly?: true;
  /** Only part of the block's text: a single block larger than the budget was cut. */
  partial?: true;
  /** For a partial piece, the char offset of `text` within the block's full text. */
  offset?: number;
}

/** A warning that does not stop the request. */
export interface ContextWarningV1 {
  code: "context_truncated" | "block_partial" | (string & {});
  message: string;
}

/** `mnote.page_ai_context.v1`: a page frozen into an addressable context. */
export interface PageAiContextV1 {
  schema: SchemaIdsV1["page_ai_context"];
  workspaceId: string;
  documentId: string;
  title: string;
  scope: ContextScope["type"];
  /** The revision this context was frozen at. */
  revision: number;
  /** `body:{revision}:{hash}` of the page at that revision. */
  conflictDetectionKey: string;
  contextId: string;
  /** The only blocks a write based on this context may target. */
  allowedTargetBlockIds: string[];
  /** The blocks the user selected (for `block` and `selection`). */
  selectedBlockIds: string[];
  /** Present when the `text` format was requested. */
  pageText?: string;
  /** Present when the `page_xml` format was requested. */
  pageXml?: string;
  /** Present when the `json` format was requested. */
  blocks?: ContextBlockV1[];
  /** True when the budget cut the context; fetch `continuation` for the rest. */
  truncated: boolean;
  warnings: ContextWarningV1[];
  /** Opaque token for the next chunk, when `truncated`. */
  continuation: string | null;
}

/**
 * `mnote.page_ai_context.v2`: v1 plus the page's pending suggestions, shown in every view and marked as not
 * the page's text (what the server's `mnote.doc.fetch` and `mnote.block.fetch` answer). `rememberContext`
 * takes it as it takes v1.
 */
export interface PageAiContextV2 extends Omit<PageAiContextV1, "schema"> {
  schema: SchemaIdsV2["page_ai_context"];
  /** The pending suggestions on this chunk's blocks, in the order the views show them. */
  suggestions: ContextSuggestionV2[];
}

/** A pending suggestion as a `mnote.page_ai_context.v2` shows it. Only a person accepts or rejects it. */
export interface ContextSuggestionV2 {
  /** `{sessionId}:{blockId}`. */
  suggestionId: string;
  /** The review session that holds it. */
  sessionId: string;
  /** The block it changes (a new block's id, for an insert). */
  blockId: string;
  /** The page block it is shown after. */
  anchorBlockId: string;
  change: "replace" | "insert" | "update" | "delete" | "move";
  author: { kind: "person" | "hermes" | "command"; actor: string; runId?: string };
  /** Why, in the author's words, when they gave one. */
  reason?: string;
  state: "pending" | "stale";
  /** The block's text now; null for an insert. */
  before: string | null;
  /** Its text if accepted; null for a delete. */
  after: string | null;
}

/** One run of a character-level diff: what a preview paints, and what `diffChars` answers. */
export interface InlineSpanV1 {
  tag: "equal" | "insert" | "delete";
  /** The characters of this run. */
  text: string;
}

/** The diff of one block in a tool result. */
export interface BlockDiffV1 {
  blockId: string;
  /** A unified line diff with `a/{blockId}` and `b/{blockId}` headers; empty when no line changed. */
  unified: string;
  /** The character-level diff, as runs. CJK text diffs per character. */
  inline: InlineSpanV1[];
}

/** What happened to one block. */
export interface ChangedBlockV1 {
  blockId: string;
  /** The strongest thing that happened to the block. */
  op: "replace" | "insert" | "update" | "delete" | "move";
  /** Its text before; null for an inserted block. */
  before: string | null;
  /** Its text after; null for a deleted block. */
  after: string | null;
  /** `pageRev:{base}:block:{id}:{h8}` of the block the change was computed against. */
  revisionRef: string;
}

/** How risky a write is. */
export type Risk = "low" | "medium" | "high";

/** A block to insert. Its id is minted when absent. */
export interface NewBlock {
  blockId?: string;
  type: BlockType;
  text?: string;
  attrs?: BlockAttrs;
}

/** One block operation; `op` names it. A batch applies all or nothing. */
export type Operation =
  /** Replace `matchText` (exact; unique unless `occurrence: "all"`) in `blockId`, or anywhere allowed. */
  | { op: "replace"; blockId?: string; matchText: string; content: string; occurrence?: "unique" | "all" }
  | { op: "insert_after"; afterBlockId: string; block: NewBlock }
  | { op: "insert_before"; beforeBlockId: string; block: NewBlock }
  /** Change text, type or attrs; a type change keeps only the attrs that fit the new type. */
  | { op: "update"; blockId: string; text?: string; type?: BlockType; attrs?: BlockAttrs }
  | { op: "delete"; blockId: string }
  /** Move after another block, or to the top with `afterBlockId: null`. */
  | { op: "move"; blockId: string; afterBlockId: string | null };

/** A warning that does not stop the request. */
export interface WarningV1 {
  /** `rebased`: a write made against an older revision landed on a newer one (the blocks it touches were
   * unchanged); `review_pending`: a held write. */
  code: "context_truncated" | "block_partial" | "proposal_only" | "rebased" | "review_pending" | (string & {});
  message: string;
}

/** Who made a write, and when. */
export interface AuditV1 {
  toolCallId: string;
  idempotencyKey: string;
  /** A user id, `hermes`, `shortcut`, … */
  actor: string;
  /** RFC 3339. */
  at: string;
}

/** `mnote.tool_result.v1`: the answer of every write tool, dry-run or applied. */
export interface ToolResultV1 {
  schema: SchemaIdsV1["tool_result"];
  ok: true;
  /** `true` when nothing was written (every preview). */
  dryRun: boolean;
  /** The dotted name of the tool that ran. */
  toolName: ToolName;
  documentId: string;
  /** The revision the batch was applied on (or previewed against). A write made against an older revision
   * whose blocks were unchanged says so with a `rebased` warning. */
  baseRevision: number;
  /** The revision after the write; absent for a dry-run. */
  newRevision?: number;
  changedBlocks: ChangedBlockV1[];
  diff: BlockDiffV1[];
  warnings: WarningV1[];
  risk: Risk;
  /** The batch is valid but this caller may not apply it directly: it needs review. */
  blocked: boolean;
  blockedReason?: string;
  /** The batch as validated, with minted block ids filled in. */
  operations: Operation[];
  /** For an applied batch: the operations that undo it, in order. */
  inverse?: Operation[];
  audit: AuditV1;
}

/**
 * The arguments of `mnote.doc.apply_block_ops`. `dryRun` and `idempotencyKey` are required.
 *
 * A write conflicts (`mnote_revision_conflict`) only when a block it touches (a target, or the anchor of an
 * insert or move) changed since the caller's read: known from the frozen context (`contextId`), then from
 * `revisionRefs`, then from `baseRevision` and the page's history. Edits to other blocks do not stop it.
 * The error's `details.blocks` lists each changed block as it is now (`BlockConflictV1`).
 */
export interface ApplyBlockOpsArgs {
  /** Binds the write to a frozen context: its allowed blocks bound the write, and its block hashes are
   * what the write read. */
  contextId?: string;
  documentId: string;
  /** The revision the operations were computed against. */
  baseRevision: number;
  operations: Operation[];
  dryRun: boolean;
  idempotencyKey: string;
  /** Narrows (never widens) the context's allowed blocks. */
  allowedTargetBlockIds?: string[];
  /** The `revisionRef`s of blocks as the caller read them (`pageRev:{rev}:block:{id}:{h8}`). */
  revisionRefs?: string[];
  /** `true` refuses the write unless the page is still at `baseRevision` (the page-level check). */
  requireExactRevision?: boolean;
}

/** One block in a `mnote_revision_conflict`'s `details.blocks`: how it is now. */
export interface BlockConflictV1 {
  blockId: string;
  /** Its current `revisionRef`; null when the block is gone. */
  revisionRef: string | null;
  /** Its current text; null when the block is gone. */
  text: string | null;
  /** The revision that last changed it, when the page's history knows. */
  changedAtRevision?: number;
}

/** The body of `PATCH /api/documents/{id}/blocks`: a person's edits, all applied or none. */
export interface BlockEdits {
  /** The revision of the page the person edited. */
  baseRevision: number;
  operations: Operation[];
  /** Required: the same key and body replay the first answer. */
  idempotencyKey: string;
  /** The edited blocks' `revisionRef`s as the person's page showed them. */
  revisionRefs?: string[];
}

/** What `PageSession.editBlock` answers. */
export interface BlockEdit {
  /** The body to send with `PATCH /api/documents/{id}/blocks`. */
  body: BlockEdits;
  /** Its dry-run on the session's page, as the server answers a person's write (`dryRun: true`). */
  preview: ToolResultV1;
}

/** The options of `new PageSession(page, options)`. */
export interface SessionOptions {
  /** The caller's role in the page's workspace (the Worker names it in the `x-mnote-role` header of
   * `GET /api/documents/{id}`); `owner` when omitted. `preview` and `editBlock` judge writes for it, as
   * the server's dry-run does for that person: a viewer's write is held (`blocked: true`), never applied. */
  role?: Role;
}

/** The options of `PageSession.editBlock`. */
export interface EditOptions {
  /** The edit's key; a fresh one when omitted. Reuse it to retry the same save. */
  idempotencyKey?: string;
  /** Disabled tools, for the local check. */
  profile?: Profile;
}

/** A tool call: what the router recommends and what `preview` dry-runs. */
export interface ToolCall {
  toolName: ToolName | McpToolName;
  /** The tool's arguments; the manifest's `inputSchema` describes them. */
  args: object;
}

/** The router's recommendation: always `mnote.doc.apply_block_ops`, with `dryRun: true`. */
export interface RecommendedCallV1 extends ToolCall {
  toolName: ToolNames["doc_apply_block_ops"];
  args: ApplyBlockOpsArgs & { contextId: string; allowedTargetBlockIds: string[] };
}

/** A call to start a Hermes run with. */
export interface StartCallV1 {
  toolName: ToolNames["doc_fetch"];
  args: { documentId: string; scope: ContextScope; formats: ContextFormat[]; budget: ContextBudget };
}

/** Where a Hermes run should start. */
export interface ToolHintV1 {
  /** The enabled read tools. */
  readTools: ToolName[];
  /** The first call to make, when `mnote.doc.fetch` is enabled. */
  startWith: StartCallV1 | null;
  /** The write tool to propose changes with, if any is enabled. */
  writeTool: ToolName | null;
  /** Blocks the prompt seems to be about. */
  candidateBlockIds: string[];
  /** The quoted text of the prompt, if any. */
  matchText: string | null;
  reviewMode: ReviewMode;
}

/** `mnote.page_ai_command_route.v1`: the deterministic router's decision for one prompt. */
export interface RouteV1 {
  schema: SchemaIdsV1["page_ai_command_route"];
  intent: RouteIntent;
  /** How sure the router is of its reading: 0.95 and 0.9 direct, 0.7 understood but blocked, … */
  confidence: number;
  /** For direct routes: the call to preview and apply, already dry-run by the router. */
  recommendedToolCall: RecommendedCallV1 | null;
  risk: Risk;
  /** The prompt goes to Hermes. */
  requiresHermesRun: boolean;
  /** A person must accept the write before it lands. */
  requiresReview: boolean;
  /** Why, in words. */
  reason: string;
  /** Why, as a stable code; only for Hermes routes. */
  reasonCode?: RouteReasonCode;
  /** Where a Hermes run should start; only for Hermes routes. */
  toolHint?: ToolHintV1;
}

/** A page-AI profile: switched-off tools and the review policy. Every field has a default. */
export interface Profile {
  tools?: { disabled?: ToolName[] };
  /** `review` when omitted. */
  reviewMode?: ReviewMode;
}

/** A document's permission. */
export type Permission = "edit" | "read";

/** A capability scope a tool needs; a write scope covers the read scope of the same prefix. */
export type CapabilityScope = "doc.read" | "doc.write" | "block.read" | "block.write" | "page.write";

/** A JSON Schema (draft 2020-12), as core's catalog generates it. */
export type JsonSchema = { [key: string]: unknown };

/** Approval facts of a tool under a profile. */
export interface ToolAnnotationsV1 {
  readonly: boolean;
  destructive: boolean;
  idempotent: boolean;
  requiresApproval: boolean;
  /** `none` for reads; the profile's review mode for writes. */
  approvalMode: "none" | ReviewMode;
  selectionEffect: "require" | "preserve" | "destroy" | "none";
  risk: "read" | "write" | "high-risk-write";
  runtimeOwner: "mnote-web";
  writeOwner: "rust-runtime-kernel";
}

/** One tool of the manifest. */
export interface ToolDescriptorV1 {
  name: ToolName;
  mcpName: McpToolName;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotationsV1;
  capabilityScope: CapabilityScope;
  availability: {
    enabled: boolean;
    /** Why not; empty when enabled. */
    unsupportedReason: string;
  };
}

/** `mnote.ai_tool_manifest.v1`: the one catalog, filtered for a profile, grants and a document. */
export interface ManifestV1 {
  schema: SchemaIdsV1["ai_tool_manifest"];
  reviewMode: ReviewMode;
  /** Every tool, enabled or not, in catalog order. */
  tools: ToolDescriptorV1[];
}

/** One tool of an MCP `tools/list` answer. */
export interface McpToolV1 {
  _meta: {
    "mnote/annotations": ToolAnnotationsV1;
    "mnote/capabilityScope": CapabilityScope;
    "mnote/name": ToolName;
  };
  annotations: {
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: false;
    readOnlyHint: boolean;
    title: ToolName;
  };
  description: string;
  inputSchema: JsonSchema;
  name: McpToolName;
  outputSchema: JsonSchema;
  title: ToolName;
}

/** One tool of an OpenAI function-calling request. */
export interface OpenAiFunctionV1 {
  /** `strict` is set (to `true`) only by `openaiFunctions({ strict: true })`. */
  function: { description: string; name: McpToolName; parameters: JsonSchema; strict?: true };
  type: "function";
}

/** The options form of `openaiFunctions`'s first argument. */
export interface OpenAiFunctionsOptions {
  /** OpenAI strict mode: every property required, optional ones nullable (`null` reads as absent). */
  strict: boolean;
  /** Disabled tools and review mode. */
  profile?: Profile | null;
  /** Granted capability scopes; all when omitted or null. */
  grants?: CapabilityScope[] | null;
  /** The document's permission; `"edit"` when omitted. */
  permission?: Permission;
}

/** The options of `PageSession.route`. Everything is optional. */
export interface RouteOptions {
  /** The user's selected block ids: selection-relative prompts ("the selected blocks") act on them, and a text to
   * find is looked for only in them (as the server's command route does with the same `selection`). */
  selection?: string[];
  /** Disabled tools and review mode; `{}` (review mode `review`) when omitted. */
  profile?: Profile;
  /** Granted capability scopes; all when omitted or null. */
  grants?: CapabilityScope[] | null;
  /** The key to put in the recommended call; a fresh `idem_…` key when omitted. */
  idempotencyKey?: string;
  /** A context this session remembers (from `context()` or `rememberContext()`); the session's own
   * full-page context when omitted. */
  contextId?: string;
}

/** Who asks for a write: AI callers are held to the review mode, people are not. */
export type Origin = "hermes" | "shortcut" | "user" | "review_accept";

/** The options of `PageSession.preview`: the caller's side of the executor. Everything is optional. */
export interface PreviewOptions {
  /** `shortcut` when omitted. */
  origin?: Origin;
  /** The audit's actor; `shortcut` when omitted. */
  actor?: string;
  /** The audit's time (RFC 3339); the JS clock when omitted. */
  at?: string;
  /** The audit's tool call id; a fresh `call_…` id when omitted. */
  toolCallId?: string;
  /** Disabled tools and review mode. */
  profile?: Profile;
  /** Granted capability scopes; all when omitted or null. */
  grants?: CapabilityScope[] | null;
  /** Ids for inserted blocks that carry none, used in order; fresh `b_…` ids after them. */
  blockIds?: string[];
}

/** The options of `validateOps`: the write's binding fields and the caller's side. */
export interface ValidateOptions extends PreviewOptions {
  /** The revision the operations were written against; the page's when omitted. */
  baseRevision?: number;
  /** Only these blocks may be targeted. */
  allowedTargetBlockIds?: string[];
  /** The key the audit shows; `validate` when omitted. */
  idempotencyKey?: string;
}

// Generated from core by wasm/build.rs: the unions of core's vocabularies (`ToolName`, `McpToolName`,
// `SchemaId`, `LiveEventKind`, `RouteIntent`, `RouteReasonCode`, `ReviewMode`, `ReviewState`, `ReviewVerb`, `AuditAction`,
// `PageAiErrorCode`), the maps `ToolNames` and `SchemaIdsV1`, and `PageAiVocabulary`.

/**
 * What every function of this package throws: a real `Error` (`instanceof Error` holds) carrying the
 * stable `code`, a `hint` that says what to do next, and machine-readable `details` (for example
 * `{pointer, reason, errors: [{pointer, reason}, …]}` for `mnote_invalid_arguments` (every bad field, the
 * first also in `pointer`), `{blockId, nearestBlockIds}` for
 * `mnote_block_not_found`). Narrow a caught value with `isPageAiError`.
 */
export interface PageAiError extends Error {
  name: "PageAiError";
  code: PageAiErrorCode;
  hint: string;
  details: { [key: string]: unknown };
}
