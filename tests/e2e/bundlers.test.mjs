// The npm package in the apps people build with it: the packed tarball installed into a throwaway project,
// one small app bundled by esbuild, Vite and webpack, each bundle loaded in headless Chromium. In each, the
// app inits the editor and the Markdown module, routes and previews a command, round-trips a page through
// Markdown, and follows a live channel to `live`; what it computes must equal what the Node build computes.
//
// esbuild does not rewrite `new URL("…_bg.wasm", import.meta.url)`, so the esbuild app does what the
// package README says: import the `.wasm` files with `--loader:.wasm=file` and pass their URLs to `init`.
// Vite and webpack need no step. The test prints the bytes (and gzip bytes) each bundle ships.
//
//   node --test --test-concurrency=1 tests/e2e/bundlers.test.mjs

import assert from 'node:assert/strict';
import { createReadStream, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

import * as esbuild from 'esbuild';
import webpack from 'webpack';
import { build as viteBuild } from 'vite';
import { WebSocketServer } from 'ws';

import { fixtures, installPacked } from '../../wasm/tests/lib/packed.mjs';
import { launchBrowser, newTab } from './lib/browser.mjs';

const PAGE = {
  workspaceId: 'ws_bundle',
  documentId: 'doc_bundle',
  title: 'Release notes',
  revision: 7,
  blocks: [
    { blockId: 'h_1', type: 'heading', attrs: { level: 1 }, text: 'Release notes' },
    { blockId: 'p_1', type: 'paragraph', text: 'Draft v1 of the notes.' },
    { blockId: 'p_2', type: 'paragraph', text: 'Ships on Friday.' },
  ],
};
const PROMPT = '把「Friday」替换为「Monday」';
const CONTEXT_REQUEST = { scope: { type: 'full' }, formats: ['json'] };
const ROUTE_OPTIONS = { idempotencyKey: 'idem_bundle', contextId: 'ctx_bundle' };
const PREVIEW_OPTIONS = { origin: 'user', actor: 'bundle', at: '2026-12-03T08:00:00Z', toolCallId: 'call_bundle' };

/** The app, the same for every bundler; `wasmImports` is how it finds the `.wasm` files (esbuild only). */
const app = ({ wasmImports }) => `
import init, { PageSession } from "@mnote/pageai";
import initMarkdown, { markdownToPage, pageToMarkdown } from "@mnote/pageai/markdown";
import { connectLive } from "@mnote/pageai/live";
${wasmImports ? 'import pageaiWasm from "@mnote/pageai/web/pageai_bg.wasm";\nimport markdownWasm from "@mnote/pageai/web/markdown_bg.wasm";' : ''}

const PAGE = ${JSON.stringify(PAGE)};
async function run() {
  await init(${wasmImports ? '{ module_or_path: pageaiWasm }' : ''});
  await initMarkdown(${wasmImports ? '{ module_or_path: markdownWasm }' : ''});
  const session = new PageSession(PAGE);
  session.context(${JSON.stringify(CONTEXT_REQUEST)}, "ctx_bundle");
  const route = session.route(${JSON.stringify(PROMPT)}, ${JSON.stringify(ROUTE_OPTIONS)});
  const preview = session.preview(route.recommendedToolCall, ${JSON.stringify(PREVIEW_OPTIONS)});
  const markdown = pageToMarkdown(PAGE);
  const roundTrip = markdownToPage(markdown, { workspaceId: PAGE.workspaceId, documentId: PAGE.documentId, title: PAGE.title });
  const live = await new Promise((resolve, reject) => {
    const connection = connectLive({
      documentId: PAGE.documentId,
      session,
      pingIntervalMs: 0,
      onStatus: (status) => {
        if (status.state === "live") {
          connection.close();
          resolve({ seq: status.seq, revision: status.revision });
        }
        if (status.state === "waiting") reject(new Error("live channel closed: " + status.code));
      },
    });
  });
  session.free();
  return { route, preview, markdown, roundTrip, live };
}
run().then(
  (result) => { window.__result = result; },
  (error) => { window.__result = { error: String(error && error.stack || error) }; },
);
`;

const HTML = (script) =>
  `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bundle</title></head><body>${script}</body></html>`;

const BUNDLERS = {
  async esbuild(dir, out) {
    writeFileSync(join(dir, 'main.js'), app({ wasmImports: true }));
    await esbuild.build({
      absWorkingDir: dir,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      outdir: out,
      loader: { '.wasm': 'file' },
      logLevel: 'silent',
    });
    writeFileSync(join(out, 'index.html'), HTML('<script type="module" src="./main.js"></script>'));
  },
  async vite(dir, out) {
    writeFileSync(join(dir, 'main.js'), app({ wasmImports: false }));
    writeFileSync(join(dir, 'index.html'), HTML('<script type="module" src="/main.js"></script>'));
    await viteBuild({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      build: { outDir: out, emptyOutDir: true, target: 'es2022' },
    });
  },
  async webpack(dir, out) {
    writeFileSync(join(dir, 'main.js'), app({ wasmImports: false }));
    const stats = await promisify(webpack)({
      mode: 'production',
      context: dir,
      entry: './main.js',
      output: { path: out, filename: 'main.js' },
      performance: { hints: false },
    });
    if (stats.hasErrors()) throw new Error(stats.toString({ all: false, errors: true }));
    writeFileSync(join(out, 'index.html'), HTML('<script src="./main.js"></script>'));
  },
};

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

/** Serves `root` on 127.0.0.1, with a live channel at /api/documents/{id}/live that says `hello`. */
async function serve(root, hello) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^\/+/, '');
    const file = join(root, path === '' ? 'index.html' : path);
    if (relative(root, file).startsWith('..') || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  const wss = new WebSocketServer({ server, path: `/api/documents/${PAGE.documentId}/live` });
  wss.on('connection', (socket) => socket.send(JSON.stringify(hello)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Every file a bundle ships, with its bytes and gzip bytes. */
function sizes(out) {
  const files = readdirSync(out, { recursive: true })
    .map(String)
    .filter((f) => /\.(js|wasm)$/.test(f));
  return files.map((f) => {
    const bytes = readFileSync(join(out, f));
    return { file: f, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
}

let packed;
let browser;
let expected;
let hello;

before(async () => {
  packed = installPacked();
  browser = await launchBrowser();
  // What the Node build of the same package computes for the same calls.
  const markdown = packed.require('@mnote/pageai/markdown');
  const session = new packed.pageai.PageSession(PAGE);
  session.context(CONTEXT_REQUEST, 'ctx_bundle');
  const route = session.route(PROMPT, ROUTE_OPTIONS);
  const preview = session.preview(route.recommendedToolCall, PREVIEW_OPTIONS);
  const md = markdown.pageToMarkdown(PAGE);
  const roundTrip = markdown.markdownToPage(md, { workspaceId: PAGE.workspaceId, documentId: PAGE.documentId, title: PAGE.title });
  session.free();
  expected = { route, preview, markdown: md, roundTrip, live: { seq: 3, revision: PAGE.revision } };
  // The channel's hello, as the Worker sends it (a golden fixture's), at the page's revision.
  const fixtureHello = fixtures('live_event.')
    .flatMap((f) => f.output?.messages ?? [])
    .find((m) => m.kind === 'hello');
  hello = { ...fixtureHello, documentId: PAGE.documentId, seq: 3, revision: PAGE.revision };
});

after(async () => {
  await browser?.close();
  packed?.remove();
});

describe('the packed package in bundled apps, in Chromium', { timeout: 300_000 }, () => {
  for (const [name, bundle] of Object.entries(BUNDLERS)) {
    test(`${name}: init, route, preview, Markdown and live work, equal to the Node build`, async () => {
      const dir = join(packed.project, `app-${name}`);
      const out = join(dir, 'dist');
      mkdirSync(dir, { recursive: true });
      await bundle(dir, out);
      const shipped = sizes(out);
      assert.ok(shipped.some((f) => f.file.endsWith('.wasm')), `${name} ships the .wasm: ${JSON.stringify(shipped)}`);
      const total = shipped.reduce((a, f) => ({ bytes: a.bytes + f.bytes, gzip: a.gzip + f.gzip }), { bytes: 0, gzip: 0 });
      console.log(
        `${name} bundle: ${shipped.map((f) => `${f.file} ${f.bytes} B (${f.gzip} B gzip)`).join(', ')}; ` +
          `total ${total.bytes} B, ${total.gzip} B gzip`,
      );

      const server = await serve(out, hello);
      const { context, page, problems } = await newTab(browser);
      try {
        await page.goto(`${server.url}/index.html`);
        const result = await (await page.waitForFunction(() => window.__result)).jsonValue();
        assert.equal(result.error, undefined, result.error);
        assert.equal(result.route.intent, 'direct_replace');
        assert.deepEqual(result, expected);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
        await server.close();
      }
    });
  }
});
