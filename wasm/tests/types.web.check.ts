// The web build's extra surface: it must be initialized once before use. Compiled by package.test.mjs under
// `bundler` resolution, together with types.check.ts.
import init, { initSync, type InitOutput } from "@mnote/pageai";
import * as web from "@mnote/pageai/web";
import initMarkdown, { type InitOutput as MarkdownInitOutput } from "@mnote/pageai/markdown";
import initCatalog, { type InitOutput as CatalogInitOutput } from "@mnote/pageai/catalog";

export async function start(url: URL): Promise<InitOutput> {
  return init({ module_or_path: url });
}
export function startSync(bytes: ArrayBuffer): InitOutput {
  return initSync({ module: bytes });
}
const same: typeof web.buildContext = web.buildContext;
void same;

// The Markdown module initializes on its own, when the editor first needs it.
export async function startMarkdown(url: URL): Promise<MarkdownInitOutput> {
  return initMarkdown({ module_or_path: url });
}

// So does the catalog module, when something lists the tools.
export async function startCatalog(url: URL): Promise<CatalogInitOutput> {
  return initCatalog({ module_or_path: url });
}
