// Tests of the npm package as its users get it: `npm pack` of wasm/pkg, installed from the tarball into a
// throwaway project, then loaded with require, with import, and as the web build. Build first:
// scripts/build-wasm.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkgDir = join(root, "wasm", "pkg");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

let project; // the throwaway project that installed the tarball
let packedFiles; // paths inside the tarball
let pageai; // the package loaded with require()
let markdown; // its Markdown module, loaded with require()
let catalog; // its catalog module, loaded with require()

const run = (cmd, args, opts = {}) =>
  execFileSync(cmd, args, { cwd: project, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...opts });

before(() => {
  assert.ok(existsSync(join(pkgDir, "package.json")), "wasm/pkg is missing: run scripts/build-wasm first");
  project = mkdtempSync(join(tmpdir(), "pageai-pkg-"));
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", pkgDir, "--json", "--pack-destination", project], { encoding: "utf8" }),
  );
  packedFiles = packed.files.map((f) => f.path);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run("npm", ["install", join(project, packed.filename), "--no-audit", "--no-fund", "--offline", "--no-save"]);
  const require = createRequire(join(project, "package.json"));
  pageai = require("@mnote/pageai");
  markdown = require("@mnote/pageai/markdown");
  catalog = require("@mnote/pageai/catalog");
});

after(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** Runs `fn`, which must throw, and returns what it threw. */
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected a throw");
}

function assertCoded(error, code) {
  assert.ok(error instanceof Error, "an Error, not a bare value");
  assert.equal(error.name, "PageAiError");
  assert.equal(error.code, code, error.message);
  assert.equal(typeof error.hint, "string");
  assert.ok(error.hint.length > 0);
  assert.equal(typeof error.details, "object");
  assert.ok(pageai.isPageAiError(error));
}

const page = {
  workspaceId: "ws_1",
  documentId: "doc_1",
  title: "计划 Plan",
  revision: 3,
  blocks: [
    { blockId: "h_1", type: "heading", text: "发布 Release", attrs: { level: 1 } },
    { blockId: "p_1", type: "paragraph", text: "我们用 ＲＵＳＴ 写内核 </block><page x=\"1\">" },
    { blockId: "p_2", type: "paragraph", text: "Locked", editable: false },
    { blockId: "h_2", type: "heading", text: "Notes", attrs: { level: 2 } },
    { blockId: "l_1", type: "bulleted_list_item", text: "rust everywhere", attrs: { depth: 0 } },
  ],
};

describe("the packed tarball", () => {
  test("ships the three modules in both builds, the types, the Node ESM entries and the README, and nothing else", () => {
    for (const module of ["pageai", "markdown", "catalog"]) {
      for (const file of [
        `web/${module}.js`,
        `web/${module}.d.ts`,
        `web/${module}_bg.wasm`,
        `node/${module}.js`,
        `node/${module}.mjs`,
        `node/${module}.d.ts`,
        `node/${module}.d.mts`,
        `node/${module}_bg.wasm`,
      ]) {
        assert.ok(packedFiles.includes(file), `${file} is packed`);
      }
    }
    assert.ok(packedFiles.includes("web/live.js") && packedFiles.includes("web/live.d.ts"), "the live client");
    // The JS halves of diffChars and of the session's allowed ids (wasm/js/), which both builds import.
    for (const build of ["web", "node"]) {
      for (const snippet of ["spans.js", "allowed.js"]) {
        const shipped = packedFiles.some((f) => f.startsWith(`${build}/snippets/`) && f.endsWith(`/js/${snippet}`));
        assert.ok(shipped, `${build} ships ${snippet}`);
      }
    }
    assert.ok(packedFiles.includes("package.json") && packedFiles.includes("README.md"));
    assert.ok(!packedFiles.some((f) => f.startsWith(".")), `no dotfiles: ${packedFiles}`);
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    assert.equal(manifest.name, "@mnote/pageai");
    assert.match(manifest.version, /^\d+\.\d+\.\d+/);
  });

  test("require() and import() both load it, from the node build, with the same exports", () => {
    const script = `
      const { createRequire } = await import("node:module");
      const require = createRequire(import.meta.url);
      const cjs = require("@mnote/pageai");
      const esm = await import("@mnote/pageai");
      console.log(JSON.stringify({
        cjsPath: require.resolve("@mnote/pageai"),
        esmPath: import.meta.resolve("@mnote/pageai"),
        cjs: Object.keys(cjs).sort(),
        esm: Object.keys(esm).filter((k) => k !== "default").sort(),
        sameFunction: cjs.buildContext === esm.buildContext,
        context: esm.buildContext(${JSON.stringify(page)}, { scope: { type: "full" } }, "ctx").documentId,
      }));`;
    const out = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script]));
    assert.match(out.cjsPath, /node_modules\/@mnote\/pageai\/node\/pageai\.js$/);
    assert.match(out.esmPath, /node_modules\/@mnote\/pageai\/node\/pageai\.mjs$/);
    assert.deepEqual(out.esm, out.cjs);
    for (const name of [
      "PageSession",
      "buildContext",
      "diffChars",
      "errorCodes",
      "isPageAiError",
      "mintBlockId",
      "mintContextId",
      "mintIdempotencyKey",
      "mintToolCallId",
      "reviewVerbs",
      "validateOps",
      "vocabulary",
    ]) {
      assert.ok(out.cjs.includes(name), `${name} is exported`);
    }
    assert.ok(!out.cjs.includes("markdownToPage"), "Markdown is its own module");
    for (const name of ["manifest", "mcpToolsList", "openaiFunctions"]) {
      assert.ok(!out.cjs.includes(name), `${name} is in the catalog module`);
    }
    assert.ok(out.sameFunction, "ESM re-exports the CommonJS instance, not a second copy");
    assert.equal(out.context, "doc_1");
  });

  test("the Markdown module loads on its own, with require() and import()", () => {
    const script = `
      const { createRequire } = await import("node:module");
      const require = createRequire(import.meta.url);
      const cjs = require("@mnote/pageai/markdown");
      const esm = await import("@mnote/pageai/markdown");
      console.log(JSON.stringify({
        cjsPath: require.resolve("@mnote/pageai/markdown"),
        esmPath: import.meta.resolve("@mnote/pageai/markdown"),
        cjs: Object.keys(cjs).sort(),
        esm: Object.keys(esm).filter((k) => k !== "default").sort(),
        sameFunction: cjs.pageToMarkdown === esm.pageToMarkdown,
        markdown: esm.pageToMarkdown(${JSON.stringify(page)}).split("\\n")[0],
      }));`;
    const out = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script]));
    assert.match(out.cjsPath, /node_modules\/@mnote\/pageai\/node\/markdown\.js$/);
    assert.match(out.esmPath, /node_modules\/@mnote\/pageai\/node\/markdown\.mjs$/);
    assert.deepEqual(out.cjs, ["markdownToPage", "pageToMarkdown"]);
    assert.deepEqual(out.esm, out.cjs);
    assert.ok(out.sameFunction);
    assert.equal(out.markdown, "# 发布 Release <!-- mnote:block id=h_1 -->");
  });

  test("the catalog module loads on its own, with require() and import()", () => {
    const script = `
      const { createRequire } = await import("node:module");
      const require = createRequire(import.meta.url);
      const cjs = require("@mnote/pageai/catalog");
      const esm = await import("@mnote/pageai/catalog");
      console.log(JSON.stringify({
        cjsPath: require.resolve("@mnote/pageai/catalog"),
        esmPath: import.meta.resolve("@mnote/pageai/catalog"),
        cjs: Object.keys(cjs).sort(),
        esm: Object.keys(esm).filter((k) => k !== "default").sort(),
        sameFunction: cjs.manifest === esm.manifest,
        enabled: esm.manifest(null, ["doc.read"], "read").tools.filter((t) => t.availability.enabled),
      }));`;
    const out = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script]));
    assert.match(out.cjsPath, /node_modules\/@mnote\/pageai\/node\/catalog\.js$/);
    assert.match(out.esmPath, /node_modules\/@mnote\/pageai\/node\/catalog\.mjs$/);
    assert.deepEqual(out.cjs, ["manifest", "mcpToolsList", "openaiFunctions"]);
    assert.deepEqual(out.esm, out.cjs);
    assert.ok(out.sameFunction);
    // A read grant on a read-only page leaves the read tools only.
    assert.ok(out.enabled.length > 0 && out.enabled.every((t) => t.annotations.readonly), JSON.stringify(out.enabled));
  });

  test("the live channel's client loads with import(), with no WASM", () => {
    const script = `
      const live = await import("@mnote/pageai/live");
      console.log(JSON.stringify({
        path: import.meta.resolve("@mnote/pageai/live"),
        exports: Object.keys(live).sort(),
      }));`;
    const out = JSON.parse(run(process.execPath, ["--input-type=module", "-e", script]));
    assert.match(out.path, /node_modules\/@mnote\/pageai\/web\/live\.js$/);
    assert.deepEqual(out.exports, ["connectLive"]);
    const source = readFileSync(fileURLToPath(out.path), "utf8");
    assert.doesNotMatch(source, /^\s*import\b/m, "it imports nothing, so a page loads no .wasm for it");
  });

  test("the web build initializes from bytes and gives the same answers", async () => {
    const webEntry = join(project, "node_modules", "@mnote", "pageai", "web", "pageai.js");
    const web = await import(pathToFileURL(webEntry).href);
    web.initSync({ module: readFileSync(join(dirname(webEntry), "pageai_bg.wasm")) });
    const request = { scope: { type: "keyword", query: "rust" } };
    assert.equal(
      JSON.stringify(web.buildContext(page, request, "ctx")),
      JSON.stringify(pageai.buildContext(page, request, "ctx")),
    );
    assertCoded(thrown(() => web.buildContext(page, { scope: { type: "block", blockId: "x" } }, "c")), "mnote_block_not_found");

    // The stateful API too: the same route and the same preview.
    const sessions = [new web.PageSession(page), new pageai.PageSession(page)];
    const answers = sessions.map((s) => {
      s.context({ scope: { type: "full" } }, "ctx_same");
      const route = s.route('replace "rust everywhere" with "Rust everywhere"', { contextId: "ctx_same", idempotencyKey: "k" });
      const preview = s.preview(route.recommendedToolCall, { at: "2026-01-01T00:00:00Z", toolCallId: "call_1" });
      s.free();
      return JSON.stringify({ route, preview });
    });
    assert.equal(answers[0], answers[1]);
    assert.match(answers[0], /"recommendedToolCall":\{"toolName":"mnote.doc.apply_block_ops"/);
    assert.equal(JSON.stringify(web.diffChars("第一版", "第二版")), JSON.stringify(pageai.diffChars("第一版", "第二版")));

    // The Markdown module initializes separately, from its own bytes.
    const webMarkdown = await import(pathToFileURL(join(dirname(webEntry), "markdown.js")).href);
    webMarkdown.initSync({ module: readFileSync(join(dirname(webEntry), "markdown_bg.wasm")) });
    assert.equal(webMarkdown.pageToMarkdown(page), markdown.pageToMarkdown(page));
    const error = thrown(() => webMarkdown.markdownToPage("# x", { workspaceId: "ws" }));
    assertCoded(error, "mnote_invalid_arguments");

    // So does the catalog module.
    const webCatalog = await import(pathToFileURL(join(dirname(webEntry), "catalog.js")).href);
    webCatalog.initSync({ module: readFileSync(join(dirname(webEntry), "catalog_bg.wasm")) });
    assert.equal(JSON.stringify(webCatalog.openaiFunctions({ strict: true })), JSON.stringify(catalog.openaiFunctions({ strict: true })));
    assertCoded(thrown(() => webCatalog.manifest(null, null, "write")), "mnote_invalid_arguments");
  });

  test("README examples run", () => {
    const readme = readFileSync(join(project, "node_modules", "@mnote", "pageai", "README.md"), "utf8");
    const examples = [...readme.matchAll(/```js test\n([\s\S]*?)```/g)].map((m) => m[1]);
    assert.ok(examples.length >= 3, "the README has runnable examples");
    // console.assert only logs in Node; make a failed assertion fail the example.
    writeFileSync(
      join(project, "strict-assert.mjs"),
      "console.assert = (ok, ...m) => { if (!ok) throw new Error('README assertion failed: ' + m.join(' ')); };\n",
    );
    examples.forEach((code, i) => {
      const file = join(project, `readme-${i}.mjs`);
      writeFileSync(file, code);
      run(process.execPath, ["--import", "./strict-assert.mjs", file]);
    });
  });
});

describe("buildContext", () => {
  // Byte-for-byte parity with the golden fixtures is in parity.test.mjs.
  test("a full context addresses every block and escapes hostile text", () => {
    const ctx = pageai.buildContext(page, { scope: { type: "full" } }, "ctx_1");
    assert.equal(ctx.schema, "mnote.page_ai_context.v1");
    assert.equal(ctx.contextId, "ctx_1");
    assert.equal(ctx.revision, 3);
    assert.deepEqual(ctx.allowedTargetBlockIds, ["h_1", "p_1", "h_2", "l_1"]);
    assert.match(ctx.conflictDetectionKey, /^body:3:[0-9a-f]{16}$/);
    assert.equal(ctx.blocks.length, 5);
    assert.match(ctx.blocks[1].revisionRef, /^pageRev:3:block:p_1:[0-9a-f]{8}$/);
    assert.equal((ctx.pageXml.match(/<block /g) ?? []).length, 5, "hostile text does not open blocks");
    assert.ok(ctx.pageXml.includes("&lt;/block&gt;"));
    assert.equal(ctx.truncated, false);
    assert.equal(ctx.continuation, null);
  });

  test("keyword matching folds case and full-width forms", () => {
    const ctx = pageai.buildContext(page, { scope: { type: "keyword", query: "Rust" }, formats: ["text"] }, "c");
    assert.deepEqual(ctx.allowedTargetBlockIds, ["p_1", "l_1"]);
    assert.equal(ctx.pageXml, undefined, "only the requested views");
  });

  test("a budget truncates at block boundaries and the continuation walks every block once", () => {
    const request = { scope: { type: "full" }, formats: ["json"], budget: { maxChars: 30 } };
    const seen = [];
    let ctx = pageai.buildContext(page, request, "c");
    assert.equal(ctx.truncated, true);
    assert.equal(ctx.warnings[0].code, "context_truncated");
    for (let guard = 0; ; guard++) {
      assert.ok(guard < 20, "the continuation terminates");
      seen.push(...ctx.blocks.filter((b) => !b.partial || b.offset === 0).map((b) => b.blockId));
      if (!ctx.truncated) break;
      ctx = pageai.buildContext(page, { ...request, continuation: ctx.continuation }, "c");
    }
    assert.deepEqual([...new Set(seen)], page.blocks.map((b) => b.blockId));
  });
});

describe("errors", () => {
  test("are Errors with a code, a hint and details", () => {
    const e = thrown(() => pageai.buildContext(page, { scope: { type: "selection", blockIds: ["p_9"] } }, "c"));
    assertCoded(e, "mnote_block_not_found");
    assert.equal(e.details.blockId, "p_9");
    assert.ok(e.details.nearestBlockIds.includes("p_1"));
    assert.ok(e.hint.includes("p_1"), e.hint);
    assert.ok(e.stack.includes("PageAiError"), "the stack names the error");
    assert.deepEqual(Object.keys(e).sort(), ["code", "details", "hint"]);
  });

  test("bad requests name the field", () => {
    const unknown = thrown(() => pageai.buildContext(page, { scope: { type: "full" }, extra: 1 }, "c"));
    assertCoded(unknown, "mnote_invalid_arguments");
    assert.match(unknown.details.reason, /extra/);
    const badScope = thrown(() => pageai.buildContext(page, { scope: { type: "everything" } }, "c"));
    assertCoded(badScope, "mnote_invalid_arguments");
    assert.equal(badScope.details.pointer, "/scope/type");
    assertCoded(thrown(() => pageai.buildContext(page, "{not json", "c")), "mnote_invalid_arguments");
    assertCoded(thrown(() => pageai.buildContext(page, undefined, "c")), "mnote_invalid_arguments");
    const id = thrown(() => pageai.buildContext(page, { scope: { type: "full" } }, 42));
    assertCoded(id, "mnote_invalid_arguments");
    assert.equal(id.details.pointer, "/contextId");
    const cyclic = {};
    cyclic.self = cyclic;
    assertCoded(thrown(() => pageai.buildContext(page, cyclic, "c")), "mnote_invalid_arguments");
  });

  test("bad pages are mnote_invalid_page", () => {
    const duplicate = { ...page, blocks: [page.blocks[0], page.blocks[0]] };
    const e = thrown(() => new pageai.PageSession(duplicate));
    assertCoded(e, "mnote_invalid_page");
    assert.equal(e.details.pointer, "/blocks/1/blockId");
    const badId = { ...page, blocks: [{ blockId: "no spaces", type: "paragraph" }] };
    assertCoded(thrown(() => pageai.buildContext(badId, { scope: { type: "full" } }, "c")), "mnote_invalid_page");
  });

  test("a continuation from an older revision is mnote_context_stale", () => {
    const request = { scope: { type: "full" }, budget: { maxChars: 20 } };
    const first = pageai.buildContext(page, request, "c");
    const newer = { ...page, revision: page.revision + 1 };
    const e = thrown(() => pageai.buildContext(newer, { ...request, continuation: first.continuation }, "c"));
    assertCoded(e, "mnote_context_stale");
    assert.deepEqual(e.details, { contextRevision: 3, currentRevision: 4 });
  });

  test("isPageAiError rejects look-alikes", () => {
    assert.equal(pageai.isPageAiError(new Error("x")), false);
    assert.equal(pageai.isPageAiError(Object.assign(new Error("x"), { code: "ENOENT" })), false);
    assert.equal(pageai.isPageAiError({ code: "mnote_block_not_found" }), false);
    assert.equal(pageai.isPageAiError(undefined), false);
  });

  test("errorCodes() lists exactly the PageAiErrorCode union of the types", () => {
    const dts = readFileSync(join(project, "node_modules", "@mnote", "pageai", "node", "pageai.d.ts"), "utf8");
    const union = dts.match(/export type PageAiErrorCode =([^;]*);/)[1];
    const typed = [...union.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]);
    assert.deepEqual(typed, pageai.errorCodes());
  });
});

describe("PageSession", () => {
  test("answers like buildContext, without passing the page again", () => {
    const session = new pageai.PageSession(JSON.stringify(page));
    assert.equal(session.revision, 3);
    assert.equal(session.documentId, "doc_1");
    assert.equal(session.page().blocks.length, 5);
    for (const scope of [
      { type: "full" },
      { type: "outline" },
      { type: "block", blockId: "p_2" },
      { type: "selection", blockIds: ["p_2"] },
      { type: "keyword", query: "rust" },
    ]) {
      assert.equal(
        JSON.stringify(session.context({ scope }, "c")),
        JSON.stringify(pageai.buildContext(page, { scope }, "c")),
        scope.type,
      );
    }
    assertCoded(thrown(() => session.context({ scope: { type: "block", blockId: "zz" } }, "c")), "mnote_block_not_found");
    session.free();
  });

  test("the outline counts each heading's blocks and allows no target", () => {
    const session = new pageai.PageSession(page);
    const ctx = session.context({ scope: { type: "outline" }, formats: ["json"] }, "c");
    assert.deepEqual(ctx.blocks.map((b) => [b.blockId, b.blockCount]), [["h_1", 4], ["h_2", 1]]);
    assert.deepEqual(ctx.allowedTargetBlockIds, []);
    session.free();
  });
});

describe("Markdown", () => {
  test("imports with minted b_ ids, keeps marker ids, and round-trips", () => {
    const md = "# 计划\n\nFirst paragraph.\n\n- [ ] todo <!-- mnote:block id=t_1 -->\n\n```rust\nfn main() {}\n```\n";
    const imported = markdown.markdownToPage(md, { workspaceId: "ws", documentId: "doc", title: "计划" });
    assert.equal(imported.title, "计划");
    assert.equal(imported.revision, 0);
    assert.deepEqual(imported.blocks.map((b) => b.type), ["heading", "paragraph", "todo", "code"]);
    assert.equal(imported.blocks[2].blockId, "t_1");
    const minted = imported.blocks.filter((b) => b.blockId !== "t_1").map((b) => b.blockId);
    for (const id of minted) assert.match(id, /^b_[a-z2-7]{10}$/);
    assert.equal(new Set(minted).size, minted.length);
    const again = markdown.markdownToPage(markdown.pageToMarkdown(imported), { workspaceId: "ws", documentId: "doc", title: "计划" });
    assert.deepEqual(again, imported);
  });

  test("bad options are coded errors, the same errors the main module throws", () => {
    assertCoded(thrown(() => markdown.markdownToPage("# x", { workspaceId: "ws" })), "mnote_invalid_arguments");
    assertCoded(thrown(() => markdown.markdownToPage("# x", { workspaceId: "ws", documentId: "" })), "mnote_invalid_page");
    assertCoded(thrown(() => markdown.markdownToPage(42, { workspaceId: "ws", documentId: "d" })), "mnote_invalid_arguments");
    const bad = { ...page, blocks: [{ blockId: "", type: "paragraph", text: "x" }] };
    const fromMarkdown = thrown(() => markdown.pageToMarkdown(bad));
    const fromEditor = thrown(() => pageai.buildContext(bad, { scope: { type: "full" } }, "c"));
    assert.deepEqual(
      [fromMarkdown.code, fromMarkdown.message, fromMarkdown.details],
      [fromEditor.code, fromEditor.message, fromEditor.details],
    );
  });
});

describe("TypeScript types", () => {
  const tsconfig = (options, files) =>
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: "es2022", types: [], skipLibCheck: false, ...options },
      files,
    });

  test("compile under node10, node16, nodenext (ESM and CommonJS) and bundler resolution", { timeout: 240_000 }, () => {
    const dir = join(project, "types");
    mkdirSync(dir, { recursive: true });
    const check = (name) => join(root, "wasm", "tests", name);
    cpSync(check("types.check.ts"), join(dir, "esm.mts"));
    cpSync(check("types.check.ts"), join(dir, "cjs.cts"));
    cpSync(check("types.check.ts"), join(dir, "web.ts"));
    cpSync(check("types.check.ts"), join(dir, "node10.ts"));
    cpSync(check("types.web.check.ts"), join(dir, "web-init.ts"));
    cpSync(check("types.live.check.ts"), join(dir, "live.ts"));
    const lib = ["es2022", "esnext.disposable"];
    writeFileSync(
      join(dir, "tsconfig.node.json"),
      tsconfig({ module: "nodenext", moduleResolution: "nodenext", lib }, ["esm.mts", "cjs.cts"]),
    );
    writeFileSync(
      join(dir, "tsconfig.node16.json"),
      tsconfig({ module: "node16", moduleResolution: "node16", lib }, ["esm.mts", "cjs.cts"]),
    );
    // node10 ignores `exports`: the subpaths resolve through the package's `typesVersions`.
    writeFileSync(
      join(dir, "tsconfig.node10.json"),
      tsconfig({ module: "commonjs", moduleResolution: "node10", lib: [...lib, "dom"] }, ["node10.ts", "live.ts"]),
    );
    writeFileSync(
      join(dir, "tsconfig.web.json"),
      tsconfig({ module: "esnext", moduleResolution: "bundler", lib: [...lib, "dom"] }, ["web.ts", "web-init.ts", "live.ts"]),
    );
    for (const config of ["tsconfig.node.json", "tsconfig.node16.json", "tsconfig.node10.json", "tsconfig.web.json"]) {
      try {
        run(process.execPath, [tsc, "-p", join(dir, config)]);
      } catch (e) {
        assert.fail(`tsc -p ${config} failed:\n${e.stdout}${e.stderr}`);
      }
    }
  });
});
