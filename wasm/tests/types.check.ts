// Type-level test of the packed package's public surface. package.test.mjs compiles it with `tsc --noEmit`
// against the installed tarball three times: as ESM and as CommonJS under `nodenext` (the node types), and
// under `bundler` resolution (the web types). A line marked @ts-expect-error must stay an error.
// Named *.check.ts, not *.test.ts: `node --test` on Node versions that strip types would run it as a test.
import {
  PageSession,
  buildContext,
  errorCodes,
  isPageAiError,
  markdownToPage,
  pageToMarkdown,
  type Block,
  type BlockType,
  type ContextBlockV1,
  type ContextRequest,
  type ContextScope,
  type Page,
  type PageAiContextV1,
  type PageAiError,
  type PageAiErrorCode,
  type PageInput,
} from "@mnote/pageai";

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
session.free();

// Markdown.
const markdown: string = pageToMarkdown(page);
const imported: Page = markdownToPage(markdown, { workspaceId: "ws_1", documentId: "doc_2", title: "Plan" });

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

void [schema, scopeName, revision, allowed, xml, next, truncated, revisionRef, warning, sessionRevision];
void [documentId, kind, permission, outline, imported, codes, badCode, badScope, badFormat, badBlock];
