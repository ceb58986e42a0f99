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
  schema: "mnote.page_ai_context.v1";
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

// `PageAiErrorCode`, the union of every stable code, is generated from core by wasm/build.rs.
/**
 * What every function of this package throws: a real `Error` (`instanceof Error` holds) carrying the
 * stable `code`, a `hint` that says what to do next, and machine-readable `details` (for example
 * `{pointer, reason}` for `mnote_invalid_arguments`, `{blockId, nearestBlockIds}` for
 * `mnote_block_not_found`). Narrow a caught value with `isPageAiError`.
 */
export interface PageAiError extends Error {
  name: "PageAiError";
  code: PageAiErrorCode;
  hint: string;
  details: { [key: string]: unknown };
}
