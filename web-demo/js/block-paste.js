// Pasting several lines into a block makes blocks of them: the text is read as Markdown by the package's
// Markdown module (`@mnote/pageai/markdown`, its own .wasm, loaded on the first such paste), so a pasted
// list becomes list items, `# Title` a heading, a fenced block code. One line pastes as text, as before.

/** Loads the Markdown module once; answers its `markdownToPage`. */
let loading = null;
function markdownModule() {
  loading ??= import("/pkg/markdown.js").then(async (module) => {
    await module.default({ module_or_path: new URL("/pkg/markdown_bg.wasm", location.origin) });
    return module;
  });
  return loading;
}

/** Whether pasted plain text is more than one line (a trailing line break alone does not count). */
export const isMultiLine = (text) => /\r?\n/.test(text.replace(/(\r?\n)+$/, ""));

/**
 * The blocks `text` reads as, each with a fresh id from `mintBlockId` (ids written in the text, in
 * `<!-- mnote:block id=… -->` markers, could name blocks this page already has). A text the module refuses
 * becomes one paragraph per line.
 */
export async function pastedBlocks(text, { page, mintBlockId }) {
  let blocks;
  try {
    const { markdownToPage } = await markdownModule();
    blocks = markdownToPage(text, { workspaceId: page.workspaceId, documentId: page.documentId }).blocks;
  } catch (error) {
    console.warn("paste: the Markdown module did not read the text; one paragraph per line instead", error);
    blocks = text
      .split(/\r?\n/)
      .filter((line) => line.trim() !== "")
      .map((line) => ({ type: "paragraph", text: line }));
  }
  return blocks.map(({ blockId: _minted, editable: _editable, ...block }) => ({ ...block, blockId: mintBlockId(), editable: true }));
}
