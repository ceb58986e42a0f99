// Type-level test of the packed package's public surface. package.test.mjs compiles it with `tsc --noEmit`
// against the installed tarball three times: as ESM and as CommonJS under `nodenext` (the node types), and
// under `bundler` resolution (the web types). A line marked @ts-expect-error must stay an error.
// Named *.check.ts, not *.test.ts: `node --test` on Node versions that strip types would run it as a test.
import {
  PageSession,
  buildContext,
  diffChars,
  errorCodes,
  isPageAiError,
  mintBlockId,
  mintContextId,
  mintIdempotencyKey,
  mintToolCallId,
  reviewVerbs,
  validateOps,
  vocabulary,
  type AuditAction,
  type McpToolName,
  type PageAiVocabulary,
  type ReviewActionsV1,
  type ReviewGateInput,
  type ReviewMode,
  type Role,
  type ReviewState,
  type ReviewVerb,
  type ReviewVerbGate,
  type RouteReasonCode,
  type SchemaId,
  type SchemaIdsV1,
  type ToolNames,
  type ApplyBlockOpsArgs,
  type Block,
  type BlockConflictV1,
  type BlockEdit,
  type BlockEdits,
  type EditOptions,
  type BlockDiffV1,
  type ChangedBlockV1,
  type InlineSpanV1,
  type ManifestV1,
  type McpToolV1,
  type OpenAiFunctionV1,
  type Operation,
  type PreviewOptions,
  type Profile,
  type RecommendedCallV1,
  type Risk,
  type RouteIntent,
  type RouteOptions,
  type RouteV1,
  type ToolCall,
  type ToolDescriptorV1,
  type ToolHintV1,
  type ToolName,
  type ToolResultV1,
  type ValidateOptions,
  type BlockType,
  type ContextBlockV1,
  type ContextRequest,
  type ContextScope,
  type Page,
  type PageAiContextV1,
  type PageAiContextV2,
  type PageAiError,
  type PageAiErrorCode,
  type PageInput,
  type BlockInput,
  type MintedBlockId,
} from "@mnote/pageai";
import { markdownToPage, pageToMarkdown } from "@mnote/pageai/markdown";
import { manifest, mcpToolsList, openaiFunctions } from "@mnote/pageai/catalog";

// Inputs: defaults may be omitted; JSON text is accepted too.
const input: PageInput = {
  workspaceId: "ws_1",
  documentId: "doc_1",
  blocks: [
    { blockId: "h_1", type: "heading", text: "Plan", attrs: { level: 1 } },
    { blockId: "p_1", type: "paragraph", text: "Ship it", editable: false },
  ],
};
const request: ContextRequest = {
  scope: { type: "keyword", query: "ship" },
  formats: ["text", "page_xml", "json"],
  budget: { maxChars: 200 },
  continuation: null,
};
const scopes: ContextScope[] = [
  { type: "full" },
  { type: "outline" },
  { type: "block", blockId: "p_1" },
  { type: "selection", blockIds: ["h_1", "p_1"] },
  { type: "keyword", query: "plan" },
];

// Outputs are precise.
const context: PageAiContextV1 = buildContext(input, request, "ctx_1");
const schema: "mnote.page_ai_context.v1" = context.schema;
const scopeName: "full" | "outline" | "block" | "selection" | "keyword" = context.scope;
const revision: number = context.revision;
const allowed: string[] = context.allowedTargetBlockIds;
const xml: string | undefined = context.pageXml;
const next: string | null = context.continuation;
const truncated: boolean = context.truncated;
const first: ContextBlockV1 | undefined = context.blocks?.[0];
const revisionRef: string | undefined = first?.revisionRef;
const warning: string | undefined = context.warnings[0]?.code;
buildContext(JSON.stringify(input), JSON.stringify(request), "ctx_2");

// A session holds the page.
const session = new PageSession(input);
const sessionRevision: number = session.revision;
const documentId: string = session.documentId;
const page: Page = session.page();
const block: Block | undefined = page.blocks[0];
const kind: BlockType | undefined = block?.type;
const permission: "edit" | "read" = page.permission;
const outline: PageAiContextV1 = session.context({ scope: { type: "outline" } }, "ctx_3");
for (const scope of scopes) session.context({ scope }, "ctx_4");
const minted: string = session.context({ scope: { type: "full" } }).contextId;
session.rememberContext(outline);
// The server's fetches answer v2: its suggestions are typed, and a session remembers it too.
declare const fetched: PageAiContextV2;
const fetchedSchema: "mnote.page_ai_context.v2" = fetched.schema;
const suggestionState: "pending" | "stale" | undefined = fetched.suggestions[0]?.state;
const suggestionAuthor: "person" | "hermes" | "command" | undefined = fetched.suggestions[0]?.author.kind;
session.rememberContext(fetched);

// Routing: only the prompt (and small options) per keystroke.
const profile: Profile = { tools: { disabled: ["mnote.page.save"] }, reviewMode: "yolo" };
const routeOptions: RouteOptions = { selection: ["p_1"], profile, grants: ["doc.write"], idempotencyKey: "k", contextId: minted };
const route: RouteV1 = session.route("把「Ship」替换为「Launch」", routeOptions);
session.route("x");
const intent: RouteIntent = route.intent;
const confidence: number = route.confidence;
const routeRisk: Risk = route.risk;
const hint: ToolHintV1 | undefined = route.toolHint;
const startTool: "mnote.doc.fetch" | undefined = hint?.startWith?.toolName;
const recommended: RecommendedCallV1 | null = route.recommendedToolCall;
if (recommended) {
  const args: ApplyBlockOpsArgs = recommended.args;
  const key: string = recommended.args.idempotencyKey;
  const contextId: string = recommended.args.contextId;
  const ops: Operation[] = args.operations;
  const previewOptions: PreviewOptions = { origin: "hermes", actor: "a", at: "t", toolCallId: "c", profile, grants: null, blockIds: ["b_1"] };
  const result: ToolResultV1 = session.preview(recommended, previewOptions);
  session.preview(recommended);
  const dry: boolean = result.dryRun;
  const changed: ChangedBlockV1 | undefined = result.changedBlocks[0];
  const after: string | null | undefined = changed?.after;
  const diff: BlockDiffV1 | undefined = result.diff[0];
  const span: InlineSpanV1 | undefined = diff?.inline[0];
  const tag: "equal" | "insert" | "delete" | undefined = span?.tag;
  const toolName: ToolName = result.toolName;
  const newRevision: number | undefined = result.newRevision;
  const next: number = session.applyLocal({ ...result, dryRun: false, newRevision: result.baseRevision + 1 });
  void [key, contextId, ops, dry, after, tag, toolName, newRevision, next];
}
const editOptions: EditOptions = { idempotencyKey: "k_edit", profile };
const edit: BlockEdit = session.editBlock("p_1", "new text", editOptions);
const editBody: BlockEdits = edit.body;
const editRefs: string[] | undefined = editBody.revisionRefs;
const editPreview: ToolResultV1 = edit.preview;
session.editBlock("p_1", "newer text");
const conflict: BlockConflictV1 = { blockId: "p_1", revisionRef: null, text: null };
const exact: ApplyBlockOpsArgs = {
  documentId: "doc_1", baseRevision: 1, operations: [], dryRun: true, idempotencyKey: "k",
  revisionRefs: ["pageRev:1:block:p_1:00000000"], requireExactRevision: true,
};
void [editRefs, editPreview, conflict, exact];
const generic: ToolCall = { toolName: "block_delete", args: { documentId: "doc_1", blockId: "p_1" } };
session.preview(generic, { origin: "user" });
session.free();

// Stateless helpers.
const operations: Operation[] = [
  { op: "replace", matchText: "Ship", content: "Launch", occurrence: "all" },
  { op: "insert_after", afterBlockId: "p_1", block: { type: "todo", text: "x", attrs: { checked: false } } },
  { op: "insert_before", beforeBlockId: "p_1", block: { type: "divider" } },
  { op: "update", blockId: "p_1", type: "quote" },
  { op: "move", blockId: "p_1", afterBlockId: null },
  { op: "delete", blockId: "h_1" },
];
const validateOptions: ValidateOptions = { baseRevision: 0, allowedTargetBlockIds: ["p_1"], idempotencyKey: "k", origin: "user" };
const validated: ToolResultV1 = validateOps(input, operations, validateOptions);
validateOps(JSON.stringify(input), JSON.stringify(operations));
const spans: InlineSpanV1[] = diffChars("第一版", "第二版");
const catalog: ManifestV1 = manifest(profile, ["doc.read"], "read");
const tool: ToolDescriptorV1 | undefined = manifest().tools[0];
const enabled: boolean | undefined = tool?.availability.enabled;
const approval: string | undefined = tool?.annotations.approvalMode;
const mcp: McpToolV1[] = mcpToolsList(profile);
const readOnlyHint: boolean | undefined = mcp[0]?.annotations.readOnlyHint;
const functions: OpenAiFunctionV1[] = openaiFunctions(null, null, "edit");
void [validated, spans, catalog, enabled, approval, readOnlyHint, functions, intent, confidence, routeRisk, startTool];

// Markdown, from its own module; its pages are the main module's pages.
const markdown: string = pageToMarkdown(page);
const imported: Page = markdownToPage(markdown, { workspaceId: "ws_1", documentId: "doc_2", title: "Plan" });

// Core's vocabularies: the generated unions type the lists `vocabulary()` answers at run time
// (vocabulary.test.mjs checks that each list is exactly its union).
const words: PageAiVocabulary = vocabulary();
const toolNames: ToolName[] = words.toolNames;
const mcpToolNames: McpToolName[] = words.mcpToolNames;
const schemaIds: SchemaId[] = words.schemaIds;
const intents: RouteIntent[] = words.intents;
const reasonCodes: RouteReasonCode[] = words.reasonCodes;
const reviewModes: ReviewMode[] = words.reviewModes;
const reviewStates: ReviewState[] = words.reviewStates;
const openStates: ReviewState[] = words.openReviewStates;
const reviewVerbNames: ReviewVerb[] = words.reviewVerbs;
const auditActions: AuditAction[] = words.auditActions;
const allCodes: PageAiErrorCode[] = words.errorCodes;
// Each wire shape's `schema` and each fixed tool name is read from the generated maps.
const routeSchema: SchemaIdsV1["page_ai_command_route"] = route.schema;
const anySchema: SchemaId = catalog.schema;
const contextSchemaId: "mnote.page_ai_context.v1" = null as unknown as SchemaIdsV1["page_ai_context"];
const fetchTool: "mnote.doc.fetch" = null as unknown as ToolNames["doc_fetch"];
const reasonCode: RouteReasonCode | undefined = route.reasonCode;
const mode: ReviewMode = manifest().reviewMode;
void [toolNames, mcpToolNames, schemaIds, intents, reasonCodes, reviewModes, reviewStates, openStates];
void [reviewVerbNames, auditActions, allCodes, routeSchema, anySchema, contextSchemaId, fetchTool, reasonCode, mode];

// A review session's buttons, as its actions gate them.
const actions: ReviewActionsV1 = {
  accept: { allowed: true, requiresFreshRevision: true, requiresIdempotencyKey: true },
  reject: true,
  retry: { allowed: false, requiresNewToolCallId: true },
  abort: true,
  revert: false,
};
const gateInput: ReviewGateInput = { state: "awaiting_user", actions };
const gates: ReviewVerbGate[] = reviewVerbs(gateInput);
const gateVerb: ReviewVerb | undefined = gates[0]?.verb;
const gateAllowed: boolean | undefined = gates[0]?.allowed;
const gateReason: string | null | undefined = gates[0]?.reason;
reviewVerbs(JSON.stringify(gateInput));
void [gateVerb, gateAllowed, gateReason];

// Ids, minted as core spells them.
const mintedIds: string[] = [mintContextId(), mintToolCallId(), mintIdempotencyKey()];
const mintedBlockId: MintedBlockId = mintBlockId();
const newBlock: BlockInput = { blockId: mintedBlockId, type: "paragraph" };
// @ts-expect-error: a minted block id starts with b_
const notMinted: MintedBlockId = "p_1";
void [mintedIds, newBlock, notMinted];

// Errors narrow from unknown.
const codes: PageAiErrorCode[] = errorCodes();
try {
  buildContext(input, { scope: { type: "block", blockId: "nope" } }, "ctx_5");
} catch (error: unknown) {
  if (isPageAiError(error)) {
    const narrowed: PageAiError = error;
    const code: PageAiErrorCode = error.code;
    const hint: string = error.hint;
    const details: { [key: string]: unknown } = error.details;
    const asError: Error = error;
    void [narrowed, code, hint, details, asError];
  }
}

// What must not compile.
// @ts-expect-error: not an error code
const badCode: PageAiErrorCode = "mnote_nope";
// @ts-expect-error: a block scope names its block
const badScope: ContextRequest = { scope: { type: "block" } };
// @ts-expect-error: no such format
const badFormat: ContextRequest = { scope: { type: "full" }, formats: ["html"] };
// @ts-expect-error: no such block type
const badBlock: PageInput = { workspaceId: "w", documentId: "d", blocks: [{ blockId: "x", type: "callout" }] };
// @ts-expect-error: contextId is a string
buildContext(input, request, 42);
// @ts-expect-error: revision is read-only
session.revision = 3;
// @ts-expect-error: markdownToPage needs the ids of the new page
markdownToPage("# x");
// @ts-expect-error: no such operation
const badOp: Operation = { op: "explode", blockId: "p_1" };
// @ts-expect-error: a replace needs its content
const badReplace: Operation = { op: "replace", matchText: "a" };
// @ts-expect-error: no such review mode
const badProfile: Profile = { reviewMode: "sometimes" };
// @ts-expect-error: no such route option
const badRouteOptions: RouteOptions = { page: input };
// @ts-expect-error: no such origin
const badOrigin: PreviewOptions = { origin: "robot" };
// @ts-expect-error: not a tool
const badTool: ToolName = "mnote.doc.nope";
// @ts-expect-error: no such review state
const badState: ReviewState = "pending";
// @ts-expect-error: apply is a step of the service, not a verb a person sends
const badVerb: ReviewVerb = "apply";
// @ts-expect-error: no such intent
const badIntent: RouteIntent = "direct_explode";
// @ts-expect-error: no such reason code
const badReason: RouteReasonCode = "too_hard";
// @ts-expect-error: not a schema id (no v9 exists)
const badSchema: SchemaId = "mnote.page_ai_context.v9";
// The fetches' v2 context is one.
const contextV2: SchemaId = "mnote.page_ai_context.v2";
// @ts-expect-error: no such audit action
const badAudit: AuditAction = "review.approve";
// @ts-expect-error: no tool has this MCP name
const badToolKey: ToolNames["doc_nope"] = "mnote.doc.nope";
// @ts-expect-error: a gate input needs the session's actions
reviewVerbs({ state: "stale" });
void [badState, badVerb, badIntent, badReason, badSchema, badAudit, badToolKey];
// @ts-expect-error: the permission is edit or read
manifest(null, null, "write");
// @ts-expect-error: a prompt is a string
new PageSession(input).route(42);
// A session previews for the caller's role; there are three.
const viewing: Role = "viewer";
new PageSession(input, { role: viewing }).free();
// @ts-expect-error: no such role
new PageSession(input, { role: "admin" });
void [badOp, badReplace, badProfile, badRouteOptions, badOrigin, badTool];

void [schema, scopeName, revision, allowed, xml, next, truncated, revisionRef, warning, sessionRevision];
void [documentId, kind, permission, outline, imported, codes, badCode, badScope, badFormat, badBlock];
