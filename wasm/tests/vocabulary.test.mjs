// Core's vocabularies as the packed package exports them: `vocabulary()` and the generated TypeScript
// unions list the same values (both come from wasm/src/vocabulary.rs, which reads core's lists), and those
// values are the ones core's other answers use. Also `reviewVerbs` (a review session's buttons, gated by its
// `actions`) and the id minting a caller uses instead of spelling ids itself.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { assertCoded, fixtures, installPacked, thrown } from "./lib/packed.mjs";

let installed;
let pageai;
let dts; // the node build's pageai.d.ts, as installed
before(() => {
  installed = installPacked();
  pageai = installed.pageai;
  dts = readFileSync(join(installed.project, "node_modules", "@mnote", "pageai", "node", "pageai.d.ts"), "utf8");
});
after(() => installed?.remove());

/** The members of the generated union `name`, in order. */
function union(name) {
  const body = dts.match(new RegExp(`export type ${name} =([^;]*);`))?.[1];
  assert.ok(body, `the types declare ${name}`);
  return [...body.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

/** `{key: type}` of a generated interface whose fields are `key: Type;` or `key: Type[];`. */
function fields(name) {
  const body = dts.match(new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`))?.[1];
  assert.ok(body, `the types declare ${name}`);
  return Object.fromEntries([...body.matchAll(/^\s*(\w+): ([^;]+);/gm)].map((m) => [m[1], m[2].replace(/\[\]$/, "")]));
}

/** Every review session in the golden fixtures. */
const sessions = () => fixtures("page_ai_review_session.").filter((f) => f.output).map((f) => f.output.session);

describe("vocabulary()", () => {
  test("each list is exactly its generated union (a list of some values, like the open states, is inside it)", () => {
    const words = pageai.vocabulary();
    const types = fields("PageAiVocabulary");
    assert.deepEqual(Object.keys(words), Object.keys(types), "the interface names every list, in order");
    const defined = new Set();
    for (const [key, type] of Object.entries(types)) {
      if (defined.has(type)) {
        for (const value of words[key]) assert.ok(union(type).includes(value), `${key}: ${value} is a ${type}`);
      } else {
        assert.deepEqual(words[key], union(type), `${key} is ${type}`);
        defined.add(type);
      }
    }
  });

  test("the lists are the names core's other answers use", () => {
    const words = pageai.vocabulary();
    const tools = installed.catalog.manifest().tools;
    assert.deepEqual(words.toolNames, tools.map((t) => t.name));
    assert.deepEqual(words.mcpToolNames, tools.map((t) => t.mcpName));
    assert.deepEqual(
      Object.entries(fields("ToolNames")),
      tools.map((t) => [t.mcpName, `"${t.name}"`]),
      "ToolNames maps each MCP name to its dotted name",
    );
    assert.deepEqual(words.errorCodes, pageai.errorCodes());
    assert.deepEqual(
      ["1", "2"].flatMap((v) => Object.entries(fields(`SchemaIdsV${v}`)).map(([name, id]) => [id, `"mnote.${name}.v${v}"`])),
      words.schemaIds.map((id) => [`"${id}"`, `"${id}"`]),
      "SchemaIdsV1 and SchemaIdsV2 key every schema id by its name",
    );
    for (const session of sessions()) {
      assert.ok(words.reviewStates.includes(session.state), session.state);
      assert.deepEqual(Object.keys(session.actions), words.reviewVerbs, "a session's actions name exactly the verbs");
      assert.ok(words.schemaIds.includes(session.schema));
      assert.ok(words.reviewModes.includes(session.mode));
    }
    assert.deepEqual(words.openReviewStates, ["awaiting_user", "stale"]);
    const session = new pageai.PageSession({ workspaceId: "w", documentId: "d", blocks: [{ blockId: "p_1", type: "paragraph", text: "Ship it" }] });
    for (const prompt of ['replace "Ship" with "Launch"', "把「不存在」改成「x」", "这一页讲了什么？"]) {
      const route = session.route(prompt);
      assert.ok(words.intents.includes(route.intent), route.intent);
      assert.ok(words.schemaIds.includes(route.schema));
      if (route.reasonCode) assert.ok(words.reasonCodes.includes(route.reasonCode), route.reasonCode);
    }
    session.free();
  });

  test("answers fresh arrays: a caller changing one does not change the next answer", () => {
    pageai.vocabulary().intents.push("made_up");
    assert.ok(!pageai.vocabulary().intents.includes("made_up"));
  });
});

describe("reviewVerbs", () => {
  test("follows each golden session's actions, with core's reason for every refused verb", () => {
    for (const session of sessions()) {
      const gates = pageai.reviewVerbs(session);
      assert.deepEqual(gates.map((g) => g.verb), pageai.vocabulary().reviewVerbs);
      for (const { verb, allowed, reason } of gates) {
        const listed = session.actions[verb];
        assert.equal(allowed, typeof listed === "boolean" ? listed : listed.allowed, `${session.state} ${verb}`);
        if (allowed) assert.equal(reason, null);
        else assert.match(reason, new RegExp(`^a review session in state ${session.state} cannot ${verb}; `));
      }
    }
  });

  test("an applied session offers only revert, and says what else is allowed", () => {
    const applied = sessions().find((s) => s.state === "applied");
    const gates = Object.fromEntries(pageai.reviewVerbs(applied).map((g) => [g.verb, g]));
    assert.equal(gates.revert.allowed, true);
    assert.deepEqual(gates.retry, { verb: "retry", allowed: false, reason: "a review session in state applied cannot retry; allowed now: revert" });
  });

  test("the actions gate, not the state: actions that refuse a verb the state allows still refuse it", () => {
    const waiting = sessions().find((s) => s.state === "awaiting_user");
    const changed = { state: waiting.state, actions: { ...waiting.actions, retry: { ...waiting.actions.retry, allowed: false } } };
    const retry = pageai.reviewVerbs(changed).find((g) => g.verb === "retry");
    assert.deepEqual(retry, {
      verb: "retry",
      allowed: false,
      reason: "a review session in state awaiting_user cannot retry; allowed now: accept, reject, abort",
    });
    assert.deepEqual(JSON.parse(JSON.stringify(pageai.reviewVerbs(JSON.stringify(changed)))), pageai.reviewVerbs(changed), "JSON text works too");
  });

  test("a state or actions core does not know is a coded error", () => {
    const waiting = sessions().find((s) => s.state === "awaiting_user");
    assertCoded(pageai, thrown(() => pageai.reviewVerbs({ ...waiting, state: "pending" })), "mnote_invalid_arguments");
    assertCoded(pageai, thrown(() => pageai.reviewVerbs({ state: "stale", actions: { reject: true } })), "mnote_invalid_arguments");
    assertCoded(pageai, thrown(() => pageai.reviewVerbs(undefined)), "mnote_invalid_arguments");
  });
});

describe("minted ids", () => {
  test("are spelled as core spells them, fresh each time", () => {
    const forms = [
      [pageai.mintContextId, /^ctx_[a-z2-7]{16}$/],
      [pageai.mintToolCallId, /^call_[a-z2-7]{16}$/],
      [pageai.mintIdempotencyKey, /^idem_[a-z2-7]{20}$/],
    ];
    for (const [mint, form] of forms) {
      const ids = Array.from({ length: 50 }, () => mint());
      for (const id of ids) assert.match(id, form);
      assert.equal(new Set(ids).size, ids.length, `${form}: no repeats`);
    }
  });

  test("block ids are b_ and ten base32 characters, never repeat, and make a page core accepts", () => {
    const ids = Array.from({ length: 5000 }, () => pageai.mintBlockId());
    for (const id of ids) assert.match(id, /^b_[a-z2-7]{10}$/);
    assert.equal(new Set(ids).size, ids.length, "no repeats");
    // Core's page validation: every id well-formed and unique on the page.
    const blocks = ids.map((blockId) => ({ blockId, type: "paragraph", text: "x" }));
    const session = new pageai.PageSession({ workspaceId: "w", documentId: "d", blocks });
    assert.deepEqual(session.page().blocks.map((b) => b.blockId), ids);
    session.free();
  });

  test("a context built without an id gets one of the same form", () => {
    const session = new pageai.PageSession({ workspaceId: "w", documentId: "d", blocks: [] });
    assert.match(session.context({ scope: { type: "full" } }).contextId, /^ctx_[a-z2-7]{16}$/);
    session.free();
  });
});
