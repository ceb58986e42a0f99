// Every input and output schema of the tool catalog, as clients nobody here wrote read them: ajv in its
// JSON Schema 2020-12 strict mode (the MCP TypeScript SDK and the Inspector compile schemas with ajv) and
// Python's `jsonschema` (the MCP Python SDK's validator). Also OpenAI's strict function-calling export.
// Build first: scripts/build-wasm. The Python check uses the Hermes venv that scripts/setup builds.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { installPacked, root } from "./lib/packed.mjs";

let packed;
let schemas; // [{name, schema}]: every tool's input and output schema

before(() => {
  packed = installPacked();
  schemas = packed.catalog.manifest().tools.flatMap((tool) => [
    { name: `${tool.name} input`, schema: tool.inputSchema },
    { name: `${tool.name} output`, schema: tool.outputSchema },
  ]);
});

after(() => packed?.remove());

test("the catalog has an input and an output schema for each of its 10 tools", () => {
  assert.equal(schemas.length, 20);
});

test("every schema compiles in ajv 2020 strict mode, with no warning", () => {
  const warnings = [];
  const logger = { log: () => {}, warn: (...m) => warnings.push(m.join(" ")), error: (...m) => warnings.push(m.join(" ")) };
  for (const { name, schema } of schemas) {
    const ajv = new Ajv2020({ strict: true, allErrors: true, logger });
    assert.doesNotThrow(() => ajv.compile(schema), name);
  }
  assert.deepEqual(warnings, []);
});

test("the strict validator accepts a real call and rejects a bad one", () => {
  const apply = schemas.find((s) => s.name === "mnote.doc.apply_block_ops input").schema;
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(apply);
  const call = {
    documentId: "doc",
    baseRevision: 3,
    dryRun: true,
    idempotencyKey: "k1",
    operations: [{ op: "replace", matchText: "A", content: "B" }],
  };
  assert.equal(validate(call), true, JSON.stringify(validate.errors));
  assert.equal(validate({ ...call, baseRevision: -1, extra: 1 }), false);
  assert.deepEqual(validate.errors.map((e) => e.keyword).sort(), ["additionalProperties", "minimum"]);
});

test("every schema passes Python jsonschema's Draft 2020-12 meta-schema check", () => {
  const python = join(root, ".venv", "hermes", "bin", "python");
  assert.ok(existsSync(python), "the Hermes venv is missing: run scripts/setup");
  const script = [
    "import json, sys",
    "from jsonschema import Draft202012Validator",
    "for item in json.load(sys.stdin):",
    "    Draft202012Validator.check_schema(item['schema'])",
    "    Draft202012Validator(item['schema'], format_checker=Draft202012Validator.FORMAT_CHECKER)",
    "print('ok')",
  ].join("\n");
  const out = execFileSync(python, ["-c", script], { input: JSON.stringify(schemas), encoding: "utf8" });
  assert.equal(out.trim(), "ok");
});

test("openaiFunctions({ strict: true }) marks each function strict and makes optional fields nullable", () => {
  const { openaiFunctions } = packed.catalog;
  const plain = openaiFunctions();
  const strict = openaiFunctions({ strict: true });
  assert.deepEqual(
    strict.map((f) => f.function.name),
    plain.map((f) => f.function.name),
  );
  for (const f of strict) assert.equal(f.function.strict, true);
  for (const f of plain) assert.equal(f.function.strict, undefined);
  const search = strict.find((f) => f.function.name === "doc_search").function.parameters;
  assert.deepEqual([...search.required].sort(), Object.keys(search.properties).sort());
  assert.deepEqual(search.properties.limit.type, ["integer", "null"]);
  // The options form takes the profile too, and a non-boolean strict is a coded error.
  const disabled = openaiFunctions({ strict: true, profile: { tools: { disabled: ["mnote.doc.search"] } } });
  assert.ok(!disabled.some((f) => f.function.name === "doc_search"));
  assert.throws(() => openaiFunctions({ strict: "yes" }), (e) => e.code === "mnote_invalid_arguments");
});
