// The npm package as its users get it: `npm pack` of wasm/pkg, installed from the tarball into a throwaway
// project. Every test file installs its own copy, so files stay independent. Build first: scripts/build-wasm.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const pkgDir = join(root, "wasm", "pkg");
export const fixturesDir = join(root, "tests", "fixtures", "wire", "v1");

/**
 * Packs and installs the package; answers the project folder, the packed paths, the CommonJS build of the
 * main module (`pageai`) and of the catalog module (`catalog`), and a `require` from the project.
 */
export function installPacked() {
  assert.ok(existsSync(join(pkgDir, "package.json")), "wasm/pkg is missing: run scripts/build-wasm first");
  const project = mkdtempSync(join(tmpdir(), "pageai-pkg-"));
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", pkgDir, "--json", "--pack-destination", project], { encoding: "utf8" }),
  );
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  execFileSync("npm", ["install", join(project, packed.filename), "--no-audit", "--no-fund", "--offline", "--no-save"], {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const require = createRequire(join(project, "package.json"));
  return {
    project,
    packedFiles: packed.files.map((f) => f.path),
    pageai: require("@mnote/pageai"),
    catalog: require("@mnote/pageai/catalog"),
    require,
    remove: () => rmSync(project, { recursive: true, force: true }),
  };
}

/** The golden fixtures whose name starts with `prefix`: `{name, input, output | error}`. */
export function fixtures(prefix, version = "v1") {
  const dir = join(fixturesDir, "..", version);
  return readdirSync(dir)
    .filter((n) => n.startsWith(prefix) && n.endsWith(".json"))
    .sort()
    .map((name) => ({ name, ...JSON.parse(readFileSync(join(dir, name), "utf8")) }));
}

/** Runs `fn`, which must throw, and returns what it threw. */
export function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected a throw");
}

/** Asserts a package error: a real Error named PageAiError, with the code, a hint and details. */
export function assertCoded(pageai, error, code) {
  assert.ok(error instanceof Error, `an Error, not ${typeof error}: ${error}`);
  assert.equal(error.name, "PageAiError", error.message);
  assert.equal(error.code, code, error.message);
  assert.equal(typeof error.hint, "string");
  assert.ok(error.hint.length > 0);
  assert.equal(typeof error.details, "object");
  assert.ok(pageai.isPageAiError(error));
}

/** Asserts that a thrown package error carries exactly a golden error body's code, message, hint, details. */
export function assertSameError(pageai, error, body, label) {
  assertCoded(pageai, error, body.code);
  assert.equal(error.message, body.message, label);
  assert.equal(error.hint, body.hint, label);
  assert.equal(JSON.stringify(error.details), JSON.stringify(body.details), label);
}
