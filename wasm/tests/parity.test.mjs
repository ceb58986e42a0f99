// Parity: the packed package computes what the native core computes, byte for byte. Every golden wire
// fixture the package can compute (tests/fixtures/wire/v1/: contexts, tool results, manifests, MCP and
// OpenAI exports) and every line of the router corpus (tests/fixtures/router/corpus.jsonl, whose native
// answers come from `cargo run -p pageai-wasm --example route_corpus`) must give the same JSON text.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

import { assertSameError, fixtures, fixturesDir, installPacked, root, thrown } from "./lib/packed.mjs";

let installed;
let pageai;
let catalog; // @mnote/pageai/catalog

before(() => {
  installed = installPacked();
  pageai = installed.pageai;
  catalog = installed.catalog;
});

after(() => installed?.remove());

/** What this file checks; `every fixture is exercised` fails on a fixture of these kinds that nobody reads. */
const KINDS = [
  "page_ai_context.",
  "tool_result.",
  "page_ai_command_route.",
  "ai_tool_manifest.",
  "mcp_tools_list.",
  "openai_functions.",
];
const exercised = new Set();

const GOLDEN_IDS = Array.from({ length: 8 }, (_, i) => `b_golden${i + 1}`);

describe("golden wire fixtures", () => {
  test("page_ai_context.*: buildContext, JSON text and a session's context() give the stored bytes", () => {
    const all = fixtures("page_ai_context.");
    assert.ok(all.length >= 9, `found ${all.length}`);
    for (const { name, input, output, error } of all) {
      const { page, request, contextId } = input;
      if (output !== undefined) {
        const expected = JSON.stringify(output);
        assert.equal(JSON.stringify(pageai.buildContext(page, request, contextId)), expected, name);
        const text = pageai.buildContext(JSON.stringify(page), JSON.stringify(request), contextId);
        assert.equal(JSON.stringify(text), expected, `${name} (JSON text)`);
        const session = new pageai.PageSession(page);
        assert.equal(JSON.stringify(session.context(request, contextId)), expected, `${name} (session)`);
        session.free();
      } else {
        assertSameError(pageai, thrown(() => pageai.buildContext(page, request, contextId)), error, name);
      }
      exercised.add(name);
    }
  });

  for (const [kind, fn] of [
    ["ai_tool_manifest.", "manifest"],
    ["mcp_tools_list.", "mcpToolsList"],
    ["openai_functions.", "openaiFunctions"],
  ]) {
    test(`${kind}*: ${fn}(profile, grants, permission) gives the stored bytes`, () => {
      const all = fixtures(kind);
      assert.ok(all.length >= 2, `found ${all.length}`);
      for (const { name, input, output } of all) {
        const got = catalog[fn](input.profile, input.grants, input.permission);
        assert.equal(JSON.stringify(got), JSON.stringify(output), name);
        exercised.add(name);
      }
    });
  }

  test("the catalog's optional arguments default to core's defaults", () => {
    const [fixture] = fixtures("ai_tool_manifest.default");
    assert.deepEqual(fixture.input, { profile: {}, grants: null, permission: "edit" });
    assert.equal(JSON.stringify(catalog.manifest()), JSON.stringify(fixture.output));
    assert.equal(JSON.stringify(catalog.manifest(null, null, "edit")), JSON.stringify(fixture.output));
  });

  test("page_ai_command_route.*: PageSession.route over the fixture's context gives the stored bytes", () => {
    const all = fixtures("page_ai_command_route.");
    assert.ok(all.length >= 8, `found ${all.length}`);
    for (const { name, input, output } of all) {
      const { page, profile, prompt, scope, selection, contextId, idempotencyKey } = input;
      const session = new pageai.PageSession(page);
      try {
        // The context the Worker's command route freezes: the scope, in its text view.
        session.context({ scope, formats: ["text"] }, contextId);
        const route = session.route(prompt, { contextId, idempotencyKey, selection, profile });
        assert.equal(JSON.stringify(route), JSON.stringify(output), name);
      } finally {
        session.free();
      }
      exercised.add(name);
    }
  });

  test("tool_result.*: PageSession.preview and validateOps give the stored bytes (and errors)", () => {
    const all = fixtures("tool_result.");
    assert.ok(all.length >= 6, `found ${all.length}`);
    for (const { name, input, output, error } of all) {
      const { page, profile, call } = input;
      const options = { origin: call.origin, actor: call.actor, at: call.at, toolCallId: call.toolCallId, profile };
      const toolCall = { toolName: call.toolName, args: call.args };
      const session = new pageai.PageSession(page);
      if (call.args.dryRun === false) {
        // An apply: the browser previews it (the same answer, as a dry-run) and follows it with applyLocal.
        assert.ok(output, `${name}: applies`);
        const { newRevision, inverse, ...rest } = output;
        const asPreview = { ...rest, dryRun: true };
        const preview = session.preview({ ...toolCall, args: { ...call.args, dryRun: true } }, { ...options, blockIds: GOLDEN_IDS });
        assert.equal(JSON.stringify(preview), JSON.stringify(asPreview), `${name} (as a dry-run)`);
        assert.ok(Array.isArray(inverse));
        assert.equal(session.applyLocal(output), newRevision);
        const after = session.page();
        assert.equal(after.revision, newRevision);
        for (const change of output.changedBlocks) {
          const block = after.blocks.find((b) => b.blockId === change.blockId);
          assert.equal(block?.text ?? null, change.after, `${name}: ${change.blockId} after applyLocal`);
        }
      } else if (output !== undefined) {
        assert.equal(JSON.stringify(session.preview(toolCall, options)), JSON.stringify(output), name);
      } else {
        assertSameError(pageai, thrown(() => session.preview(toolCall, options)), error, name);
      }
      // The stateless path, for the plain apply_block_ops dry-runs.
      const { args } = call;
      const plain = ["baseRevision", "documentId", "dryRun", "idempotencyKey", "operations", "allowedTargetBlockIds"];
      if (/apply_block_ops$/.test(call.toolName) && args.dryRun && Object.keys(args).every((k) => plain.includes(k))) {
        const validate = () =>
          pageai.validateOps(page, args.operations, {
            ...options,
            baseRevision: args.baseRevision,
            idempotencyKey: args.idempotencyKey,
            ...(args.allowedTargetBlockIds ? { allowedTargetBlockIds: args.allowedTargetBlockIds } : {}),
          });
        if (output !== undefined) assert.equal(JSON.stringify(validate()), JSON.stringify(output), `${name} (validateOps)`);
        else assertSameError(pageai, thrown(validate), error, `${name} (validateOps)`);
      }
      session.free();
      exercised.add(name);
    }
  });

  test("every fixture of these kinds is exercised", () => {
    const names = readdirSync(fixturesDir).filter((n) => KINDS.some((k) => n.startsWith(k)));
    assert.ok(names.length >= 20);
    for (const name of names) assert.ok(exercised.has(name), `${name} is not checked`);
  });
});

describe("router corpus", () => {
  test("every line routes, and every recommendation previews, byte for byte like native core", { timeout: 900_000 }, () => {
    // Native answers: a tiny example of the wasm crate that runs core directly (a debug build). It is built
    // with the package set of `make test-rust`, so features unify the same way and that run's build is reused
    // (built for pageai-wasm alone, core's features differ and everything recompiles).
    execFileSync(
      "cargo",
      ["build", "-q", "-p", "pageai-core", "-p", "pageai-worker", "-p", "pageai-wasm", "--example", "route_corpus"],
      { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
    );
    const native = new Map(
      execFileSync(join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), "debug", "examples", "route_corpus"), [], {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
        stdio: ["ignore", "pipe", "inherit"],
      })
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .map((r) => [r.id, r]),
    );
    const dir = join(root, "tests", "fixtures", "router");
    const pages = Object.fromEntries(
      readdirSync(join(dir, "pages")).map((f) => [f.replace(/\.json$/, ""), readFileSync(join(dir, "pages", f), "utf8")]),
    );
    const lines = readFileSync(join(dir, "corpus.jsonl"), "utf8").split("\n").filter((l) => l.trim());
    assert.ok(lines.length >= 300, `the corpus has ${lines.length} lines`);
    let direct = 0;
    for (const raw of lines) {
      const line = JSON.parse(raw);
      const expected = native.get(line.id);
      assert.ok(expected, `${line.id}: no native answer`);
      const page = { ...JSON.parse(pages[line.page]), permission: line.permission === "read" ? "read" : "edit" };
      const session = new pageai.PageSession(page);
      session.context({ scope: { type: "full" }, formats: ["json"] }, "ctx_corpus");
      const profile = { tools: { disabled: line.profile.disabled }, reviewMode: line.profile.reviewMode };
      const route = session.route(line.prompt, {
        selection: line.selection,
        profile,
        idempotencyKey: "idem_corpus",
        contextId: "ctx_corpus",
      });
      assert.equal(JSON.stringify(route), expected.route, `${line.id}: route of ${line.prompt}`);
      if (route.recommendedToolCall) {
        direct += 1;
        const options = {
          origin: "shortcut",
          actor: "corpus",
          at: "2026-11-30T08:00:00Z",
          toolCallId: "call_corpus",
          profile,
          blockIds: Array.from({ length: 8 }, (_, i) => `b_corpus${i + 1}`),
        };
        const run = () => session.preview(route.recommendedToolCall, options);
        if (expected.preview !== null) {
          assert.equal(JSON.stringify(run()), expected.preview, `${line.id}: preview`);
        } else {
          assertSameError(pageai, thrown(run), JSON.parse(expected.previewError), `${line.id}: preview error`);
        }
      } else {
        assert.equal(expected.preview, null, `${line.id}: native previews, WASM does not`);
      }
      session.free();
    }
    assert.ok(direct >= 100, `only ${direct} direct recommendations were previewed`);
    console.log(`router corpus parity: ${lines.length} routes and ${direct} previews identical to native core`);
  });
});
