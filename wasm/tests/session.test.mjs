// The stateful API of the packed package: PageSession's route, preview, context, rememberContext,
// applyLocal and free, and the stateless helpers that go with them (validateOps, diffChars, the catalog).
// Byte-for-byte parity with native core is in parity.test.mjs; this file pins the behaviour a user relies on.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";

import { assertCoded, installPacked, thrown } from "./lib/packed.mjs";

let installed;
let pageai;
let catalog;
before(() => {
  installed = installPacked();
  pageai = installed.pageai;
  catalog = installed.catalog;
});
after(() => installed?.remove());

const coded = (fn, code) => {
  const error = thrown(fn);
  assertCoded(pageai, error, code);
  return error;
};

const page = () => ({
  workspaceId: "ws_1",
  documentId: "doc_1",
  title: "周报 Weekly",
  revision: 4,
  blocks: [
    { blockId: "h_1", type: "heading", text: "周报 Weekly", attrs: { level: 1 } },
    { blockId: "p_1", type: "paragraph", text: "本周完成了第一版计划，下周开始第二阶段。" },
    { blockId: "p_2", type: "paragraph", text: "Risks: the API is not final. The API may change." },
    { blockId: "p_3", type: "paragraph", text: "Signed off by legal.", editable: false },
  ],
});

const AT = { at: "2026-11-30T08:00:00Z", toolCallId: "call_1" };

describe("PageSession.route", () => {
  test("a direct command gets a recommendation bound to the session's own full-page context", () => {
    const session = new pageai.PageSession(page());
    const route = session.route("把「第一版」替换为「第二版」", { profile: { reviewMode: "yolo" } });
    assert.equal(route.schema, "mnote.page_ai_command_route.v1");
    assert.equal(route.intent, "direct_replace");
    assert.equal(route.requiresHermesRun, false);
    assert.equal(route.requiresReview, false);
    assert.equal(route.risk, "low");
    const { toolName, args } = route.recommendedToolCall;
    assert.equal(toolName, "mnote.doc.apply_block_ops");
    assert.match(args.contextId, /^ctx_[a-z2-7]{16}$/);
    assert.match(args.idempotencyKey, /^idem_[a-z2-7]{20}$/, "a fresh key is minted");
    assert.equal(args.dryRun, true);
    assert.equal(args.baseRevision, 4);
    assert.deepEqual(args.allowedTargetBlockIds, ["h_1", "p_1", "p_2"], "every editable block");
    assert.deepEqual(args.operations, [{ op: "replace", matchText: "第一版", content: "第二版" }]);

    // The same context for every prompt at this revision; a fresh key for every route.
    const again = session.route('replace "final" with "settled"');
    assert.equal(again.recommendedToolCall.args.contextId, args.contextId);
    assert.notEqual(again.recommendedToolCall.args.idempotencyKey, args.idempotencyKey);
    assert.equal(again.requiresReview, true, "the default profile reviews every AI write");
    assert.equal(session.route("x", { idempotencyKey: "mine" }).recommendedToolCall, null);
    assert.equal(session.route('replace "final" with "settled"', { idempotencyKey: "mine" }).recommendedToolCall.args.idempotencyKey, "mine");
    session.free();
  });

  test("ambiguous, locked and open requests go to Hermes with a reason and a hint", () => {
    const session = new pageai.PageSession(page());
    const ambiguous = session.route('replace "API" with "interface"');
    assert.equal(ambiguous.requiresHermesRun, true);
    assert.equal(ambiguous.recommendedToolCall, null);
    assert.equal(ambiguous.reasonCode, "match_ambiguous");
    assert.deepEqual(ambiguous.toolHint.candidateBlockIds, ["p_2"]);
    assert.equal(session.route('replace "legal" with "counsel"').reasonCode, "not_editable");
    const open = session.route("把这页翻译成英文");
    assert.equal(open.intent, "complex_rewrite");
    assert.equal(open.toolHint.startWith.toolName, "mnote.doc.fetch");
    assert.ok(open.toolHint.readTools.includes("mnote.doc.fetch"));
    session.free();
  });

  test("the selection, the profile and the grants reach the router", () => {
    const session = new pageai.PageSession(page());
    const disabled = session.route('replace "final" with "settled"', {
      profile: { tools: { disabled: ["mnote.doc.apply_block_ops"] } },
    });
    assert.equal(disabled.reasonCode, "tool_disabled");
    assert.equal(session.route('replace "final" with "settled"', { grants: ["doc.read"] }).reasonCode, "tool_disabled");
    const selected = session.route("把选中的段落改成引用", { selection: ["p_1"], profile: { reviewMode: "yolo" } });
    assert.equal(selected.intent, "direct_type_change");
    assert.deepEqual(selected.recommendedToolCall.args.allowedTargetBlockIds, ["p_1"]);
    session.free();
  });

  test("contextId binds to a context the session built or was given, at the current revision", () => {
    const session = new pageai.PageSession(page());
    const ctx = session.context({ scope: { type: "selection", blockIds: ["p_2"] } });
    assert.match(ctx.contextId, /^ctx_[a-z2-7]{16}$/, "minted when omitted");
    const bound = session.route('replace "final" with "settled"', { contextId: ctx.contextId });
    assert.equal(bound.recommendedToolCall.args.contextId, ctx.contextId);
    assert.deepEqual(bound.recommendedToolCall.args.allowedTargetBlockIds, ["p_2"]);
    // Text outside the frozen scope is out of reach.
    assert.equal(session.route("把「第一版」替换为「第二版」", { contextId: ctx.contextId }).requiresHermesRun, true);

    // A context frozen by the server.
    const server = pageai.buildContext(page(), { scope: { type: "full" } }, "ctx_server");
    session.rememberContext(server);
    assert.equal(session.route('replace "final" with "settled"', { contextId: "ctx_server" }).recommendedToolCall.args.contextId, "ctx_server");
    coded(() => session.rememberContext({ ...server, documentId: "doc_2" }), "mnote_invalid_arguments");
    coded(() => session.rememberContext({ ...server, schema: "mnote.page_ai_context.v9" }), "mnote_unsupported_schema");
    // The server's doc.fetch answers v2 (v1 plus the page's suggestions): it binds writes as v1 does.
    session.rememberContext({ ...server, schema: "mnote.page_ai_context.v2", contextId: "ctx_server_v2", suggestions: [] });
    assert.equal(session.route('replace "final" with "settled"', { contextId: "ctx_server_v2" }).recommendedToolCall.args.contextId, "ctx_server_v2");

    const missing = coded(() => session.route("x", { contextId: "ctx_nope" }), "mnote_context_not_found");
    assert.equal(missing.details.contextId, "ctx_nope");
    session.free();
  });

  test("bad arguments are coded errors that name the field", () => {
    const session = new pageai.PageSession(page());
    assert.equal(coded(() => session.route(42), "mnote_invalid_arguments").details.pointer, "/prompt");
    const bad = coded(() => session.route("x", { selection: "p_1" }), "mnote_invalid_arguments");
    assert.equal(bad.details.pointer, "/options/selection");
    assert.match(coded(() => session.route("x", { colour: 1 }), "mnote_invalid_arguments").details.reason, /colour/);
    assert.equal(session.route("x", null).schema, "mnote.page_ai_command_route.v1");
    session.free();
  });
});

describe("PageSession.preview", () => {
  test("previews the recommendation with a CJK character diff, changing nothing", () => {
    const session = new pageai.PageSession(page());
    const route = session.route("把「第一版」替换为「第二版」", { profile: { reviewMode: "yolo" } });
    const result = session.preview(route.recommendedToolCall, { ...AT, profile: { reviewMode: "yolo" } });
    assert.equal(result.schema, "mnote.tool_result.v1");
    assert.equal(result.dryRun, true);
    assert.equal(result.blocked, false);
    assert.equal(result.risk, "low");
    assert.deepEqual(result.changedBlocks.map((c) => [c.blockId, c.after]), [["p_1", "本周完成了第二版计划，下周开始第二阶段。"]]);
    assert.deepEqual(result.diff[0].inline, [
      { tag: "equal", text: "本周完成了第" },
      { tag: "delete", text: "一" },
      { tag: "insert", text: "二" },
      { tag: "equal", text: "版计划，下周开始第二阶段。" },
    ]);
    assert.deepEqual(result.audit, {
      toolCallId: "call_1",
      idempotencyKey: route.recommendedToolCall.args.idempotencyKey,
      actor: "shortcut",
      at: "2026-11-30T08:00:00Z",
    });
    assert.equal(session.page().blocks[1].text, page().blocks[1].text, "a preview changes nothing");
    assert.equal(session.revision, 4);
    session.free();
  });

  test("stamps the audit with the clock and a minted call id, and blocks what the profile reviews", () => {
    const session = new pageai.PageSession(page());
    const call = session.route('replace "final" with "settled"').recommendedToolCall;
    const result = session.preview(call);
    assert.match(result.audit.toolCallId, /^call_[a-z2-7]{16}$/);
    assert.ok(Math.abs(Date.parse(result.audit.at) - Date.now()) < 60_000, result.audit.at);
    assert.equal(result.blocked, true, "a shortcut in review mode waits for review");
    assert.equal(result.blockedReason, "the profile reviews every AI write");
    assert.equal(session.preview(call, { origin: "user" }).blocked, false, "people are not held to review");
    session.free();
  });

  test("previews for the session's role: a viewer's write is held, an editor's applies as an owner's", () => {
    const profile = { reviewMode: "yolo" };
    const previewAs = (options) => {
      const session = new pageai.PageSession(page(), options);
      const call = session.route('replace "final" with "settled"', { profile, idempotencyKey: "k_role" }).recommendedToolCall;
      const result = session.preview(call, { profile, ...AT });
      const edit = session.editBlock("p_2", "Risks: none.").preview;
      session.free();
      return { result, edit };
    };
    const owner = previewAs(undefined);
    assert.equal(owner.result.blocked, false, "a session without options previews for the owner, as before");
    assert.equal(owner.edit.blocked, false);
    assert.deepEqual(previewAs({ role: "owner" }).result, owner.result);
    assert.deepEqual(previewAs({ role: "editor" }).result, owner.result, "an editor's AI write applies in yolo mode");
    const viewer = previewAs({ role: "viewer" });
    assert.equal(viewer.result.blocked, true, "a viewer's write is only a proposal");
    assert.equal(viewer.result.blockedReason, "a viewer's writes are proposals: an editor or owner of the workspace decides");
    assert.deepEqual(viewer.result.changedBlocks, owner.result.changedBlocks, "the same change, only held");
    assert.equal(viewer.edit.blocked, true, "a viewer's own edit is held too");
    // The role is the session's: an unknown one, or one per call, is a coded error naming the field.
    assert.equal(coded(() => new pageai.PageSession(page(), { role: "admin" }), "mnote_invalid_arguments").details.pointer, "/options/role");
    assert.equal(coded(() => new pageai.PageSession(page(), { rol: "viewer" }), "mnote_invalid_arguments").details.pointer, "/options/rol");
    const session = new pageai.PageSession(page(), { role: "viewer" });
    const call = session.route('replace "final" with "settled"').recommendedToolCall;
    assert.equal(coded(() => session.preview(call, { role: "owner" }), "mnote_invalid_arguments").details.pointer, "/options/role");
    session.free();
  });

  test("may(act) answers core's role table for the session's role, the rights the Worker checks", () => {
    const rights = Object.fromEntries(
      pageai.vocabulary().roles.map((role) => {
        const session = new pageai.PageSession(page(), { role });
        assert.equal(session.role, role);
        const acts = pageai.vocabulary().acts.filter((act) => session.may(act));
        session.free();
        return [role, acts];
      }),
    );
    assert.deepEqual(rights, {
      viewer: ["read", "propose", "suggest"],
      editor: ["read", "propose", "suggest", "write", "accept"],
      owner: ["read", "propose", "suggest", "write", "accept", "change_profile"],
    });
    assert.equal(new pageai.PageSession(page()).role, "owner", "a session made without a role is the owner's");
    const session = new pageai.PageSession(page(), { role: "viewer" });
    assert.equal(coded(() => session.may("delete_everything"), "mnote_invalid_arguments").details.pointer, "/act");
    session.free();
  });

  test("a recommendation's allowed ids are the caller's to change, and the preview follows the change", () => {
    const session = new pageai.PageSession(page());
    const options = { profile: { reviewMode: "yolo" } };
    const first = session.route('replace "final" with "settled"', options).recommendedToolCall;
    const second = session.route('replace "final" with "settled"', options).recommendedToolCall;
    assert.notEqual(first.args.allowedTargetBlockIds, second.args.allowedTargetBlockIds, "a fresh array each time");
    first.args.allowedTargetBlockIds.push("p_9");
    assert.deepEqual(second.args.allowedTargetBlockIds, ["h_1", "p_1", "p_2"]);
    assert.deepEqual(session.route('replace "final" with "settled"', options).recommendedToolCall.args.allowedTargetBlockIds, ["h_1", "p_1", "p_2"]);

    // As returned, as a copy and as JSON text: the same answer, byte for byte.
    const expected = JSON.stringify(session.preview(JSON.stringify(second), AT));
    assert.equal(JSON.stringify(session.preview(second, AT)), expected);
    assert.equal(JSON.stringify(session.preview(structuredClone(second), AT)), expected);
    // A narrowed list narrows the preview; an unknown field is still refused.
    const narrowed = { ...second, args: { ...second.args, allowedTargetBlockIds: ["h_1", "p_1"] } };
    coded(() => session.preview(narrowed, AT), "mnote_match_not_found");
    const extra = { ...second, args: { ...second.args, colour: "red" } };
    assert.match(coded(() => session.preview(extra, AT), "mnote_invalid_arguments").details.reason, /colour/);
    session.free();
  });

  test("inserted blocks take the given ids, then minted ones", () => {
    const session = new pageai.PageSession(page());
    const args = {
      documentId: "doc_1",
      baseRevision: 4,
      dryRun: true,
      idempotencyKey: "k",
      operations: [
        { op: "insert_after", afterBlockId: "p_1", block: { type: "paragraph", text: "一" } },
        { op: "insert_after", afterBlockId: "p_1", block: { type: "paragraph", text: "二" } },
      ],
    };
    const result = session.preview({ toolName: "doc_apply_block_ops", args }, { blockIds: ["b_given"] });
    const ids = result.operations.map((o) => o.block.blockId);
    assert.equal(ids[0], "b_given");
    assert.match(ids[1], /^b_[a-z2-7]{10}$/);
    assert.equal(result.risk, "medium");
    session.free();
  });

  test("every executor error is coded: ambiguity, scope, locks, revisions, apply, reads", () => {
    const session = new pageai.PageSession(page());
    const call = (operations, extra = {}) => ({
      toolName: "mnote.doc.apply_block_ops",
      args: { documentId: "doc_1", baseRevision: 4, dryRun: true, idempotencyKey: "k", operations, ...extra },
    });
    const ambiguous = coded(() => session.preview(call([{ op: "replace", matchText: "API", content: "x" }])), "mnote_match_ambiguous");
    assert.equal(ambiguous.details.count, 2);
    coded(() => session.preview(call([{ op: "delete", blockId: "p_3" }])), "mnote_block_not_editable");
    coded(() => session.preview(call([{ op: "delete", blockId: "p_1" }], { allowedTargetBlockIds: ["p_2"] })), "mnote_block_target_out_of_scope");
    coded(() => session.preview(call([{ op: "delete", blockId: "p_1" }], { baseRevision: 3 })), "mnote_revision_conflict");
    coded(() => session.preview(call([{ op: "delete", blockId: "p_1" }], { contextId: "ctx_nope" })), "mnote_context_not_found");
    const apply = coded(() => session.preview(call([{ op: "delete", blockId: "p_1" }], { dryRun: false }), { origin: "user" }), "mnote_invalid_arguments");
    assert.equal(apply.details.pointer, "/dryRun");
    const read = coded(() => session.preview({ toolName: "mnote.doc.fetch", args: { scope: { type: "full" } } }), "mnote_invalid_arguments");
    assert.equal(read.details.pointer, "/toolName");
    coded(() => session.preview({ toolName: "mnote.doc.nope", args: {} }), "mnote_unknown_tool");
    coded(() => session.preview({ toolName: "mnote.doc.apply_block_ops" }), "mnote_invalid_arguments");
    session.free();
  });
});

describe("PageSession.applyLocal", () => {
  /** What the server answers for an applied write: the preview, applied. */
  const applied = (preview) => ({ ...preview, dryRun: false, newRevision: preview.baseRevision + 1 });

  test("follows a server write: same changes, next revision, fresh routing context", () => {
    const session = new pageai.PageSession(page());
    const before = session.route("把「第一版」替换为「第二版」").recommendedToolCall;
    const result = session.preview(before, { origin: "user" });
    assert.equal(session.applyLocal(applied(result)), 5);
    assert.equal(session.revision, 5);
    assert.equal(session.page().blocks[1].text, "本周完成了第二版计划，下周开始第二阶段。");
    const next = session.route('replace "final" with "settled"').recommendedToolCall.args;
    assert.equal(next.baseRevision, 5);
    assert.notEqual(next.contextId, before.args.contextId, "the old context named the old revision");
    session.free();
  });

  test("refuses, and leaves the page untouched, when the result does not follow this page", () => {
    const session = new pageai.PageSession(page());
    const call = session.route("把「第一版」替换为「第二版」").recommendedToolCall;
    const result = session.preview(call, { origin: "user" });
    const untouched = JSON.stringify(session.page());

    assert.equal(coded(() => session.applyLocal(result), "mnote_invalid_arguments").details.pointer, "/dryRun");
    assert.equal(coded(() => session.applyLocal({ ...applied(result), newRevision: 7 }), "mnote_invalid_arguments").details.pointer, "/newRevision");
    assert.equal(coded(() => session.applyLocal({ ...applied(result), documentId: "doc_2" }), "mnote_invalid_arguments").details.pointer, "/documentId");
    const stale = coded(() => session.applyLocal({ ...applied(result), baseRevision: 3, newRevision: 4 }), "mnote_revision_conflict");
    assert.deepEqual(stale.details, { baseRevision: 3, currentRevision: 4, blocks: [] });
    // Same revision, different content: the local page is not the page the server changed.
    const forked = structuredClone(applied(result));
    forked.changedBlocks[0].before = "something else";
    assert.equal(coded(() => session.applyLocal(forked), "mnote_invalid_arguments").details.pointer, "/changedBlocks/0");
    const unminted = structuredClone(applied(result));
    unminted.operations = [{ op: "insert_after", afterBlockId: "p_1", block: { type: "paragraph", text: "x" } }];
    coded(() => session.applyLocal(unminted), "mnote_invalid_arguments");
    coded(() => session.applyLocal({ ...applied(result), schema: "mnote.tool_result.v2" }), "mnote_unsupported_schema");
    assert.equal(JSON.stringify(session.page()), untouched);

    // Applied once, the same result is stale.
    session.applyLocal(applied(result));
    coded(() => session.applyLocal(applied(result)), "mnote_revision_conflict");
    const ctx = session.context({ scope: { type: "full" } });
    session.applyLocal(applied(session.preview(session.route('replace "final" with "settled"').recommendedToolCall)));
    const old = coded(() => session.route("x", { contextId: ctx.contextId }), "mnote_context_stale");
    assert.deepEqual(old.details, { contextRevision: 5, currentRevision: 6 });
    session.free();
  });
});

describe("PageSession.editBlock", () => {
  test("a person's text change is an update pinned to the block's revisionRef, previewed as the server answers it", () => {
    const session = new pageai.PageSession(page());
    const revisionRef = session.context({ scope: { type: "block", blockId: "p_2" }, formats: ["json"] }).blocks[0].revisionRef;
    const { body, preview } = session.editBlock("p_2", "Risks: none.", { idempotencyKey: "k_edit" });
    assert.deepEqual(body, {
      baseRevision: 4,
      operations: [{ op: "update", blockId: "p_2", text: "Risks: none." }],
      idempotencyKey: "k_edit",
      revisionRefs: [revisionRef],
    });
    assert.equal(preview.schema, "mnote.tool_result.v1");
    assert.equal(preview.dryRun, true);
    assert.equal(preview.blocked, false, "a person's edit is never held for review");
    assert.equal(preview.audit.actor, "user");
    assert.equal(preview.changedBlocks[0].after, "Risks: none.");
    assert.deepEqual(preview.operations, body.operations);
    assert.match(session.editBlock("p_2", "other").body.idempotencyKey, /^idem_[a-z2-7]{20}$/, "a fresh key is minted");
    // The same edit, dry-run through preview as a person's apply_block_ops call, answers the same changes.
    const again = session.preview(
      { toolName: "mnote.doc.apply_block_ops", args: { documentId: "doc_1", ...body, dryRun: true } },
      { origin: "user", actor: "user" },
    );
    assert.deepEqual(again.changedBlocks, preview.changedBlocks);
    // Following the server's answer moves the session on.
    assert.equal(session.applyLocal({ ...preview, dryRun: false, newRevision: 5 }), 5);
    assert.equal(session.page().blocks[2].text, "Risks: none.");
    session.free();
  });

  test("refuses, with coded errors, what cannot be saved", () => {
    const session = new pageai.PageSession(page());
    coded(() => session.editBlock("p_3", "x"), "mnote_block_not_editable");
    assert.deepEqual(coded(() => session.editBlock("p_9", "x"), "mnote_block_not_found").details.blockId, "p_9");
    assert.equal(coded(() => session.editBlock("p_1", page().blocks[1].text), "mnote_invalid_arguments").details.pointer, "/newText");
    assert.equal(coded(() => session.editBlock("p_1", 7), "mnote_invalid_arguments").details.pointer, "/newText");
    assert.equal(coded(() => session.editBlock("p_1", "x", { nope: 1 }), "mnote_invalid_arguments").details.pointer, "/options/nope");
    session.free();
    coded(() => session.editBlock("p_1", "x"), "mnote_invalid_arguments");
  });
});

describe("a page as fetched", () => {
  test("the JSON text's UTF-8 bytes load the page a string or an object loads; bytes that are not UTF-8 are a coded error", () => {
    const text = JSON.stringify(page());
    const bytes = new TextEncoder().encode(text);
    const fromBytes = new pageai.PageSession(bytes);
    assert.deepEqual(fromBytes.page(), new pageai.PageSession(text).page());
    assert.deepEqual(fromBytes.page(), new pageai.PageSession(page()).page());
    assert.equal(fromBytes.page().blocks[1].text, "本周完成了第一版计划，下周开始第二阶段。", "CJK text arrives whole");
    // A view into a larger buffer is read from its own offset, not from the buffer's start.
    const framed = new Uint8Array(bytes.length + 8);
    framed.set(bytes, 4);
    assert.deepEqual(new pageai.PageSession(framed.subarray(4, 4 + bytes.length)).page(), fromBytes.page());
    // The same page checks as from text: a duplicate id is the page's error.
    const twice = page();
    twice.blocks.push({ ...twice.blocks[0] });
    coded(() => new pageai.PageSession(new TextEncoder().encode(JSON.stringify(twice))), "mnote_invalid_page");
    const broken = Uint8Array.from([...bytes.subarray(0, 40), 0xff, ...bytes.subarray(40)]);
    const e = coded(() => new pageai.PageSession(broken), "mnote_invalid_arguments");
    assert.match(e.message, /UTF-8.*offset 40/);
  });
});

describe("a freed session", () => {
  test("answers every call with a coded error, not a crash", () => {
    const session = new pageai.PageSession(page());
    session.free();
    for (const [name, call] of [
      ["revision", () => session.revision],
      ["documentId", () => session.documentId],
      ["page", () => session.page()],
      ["context", () => session.context({ scope: { type: "full" } })],
      ["route", () => session.route("x")],
      ["preview", () => session.preview({ toolName: "x", args: {} })],
      ["applyLocal", () => session.applyLocal({})],
      ["rememberContext", () => session.rememberContext({})],
    ]) {
      const e = coded(call, "mnote_invalid_arguments");
      assert.equal(e.details.pointer, "/this", name);
      assert.match(e.message, /freed/, name);
    }
    session.free(); // twice is harmless
    if (Symbol.dispose) {
      const disposed = new pageai.PageSession(page());
      disposed[Symbol.dispose]();
      coded(() => disposed.route("x"), "mnote_invalid_arguments");
    }
  });
});

describe("stateless helpers", () => {
  test("validateOps dry-runs a batch against a page it is given", () => {
    const ops = [
      { op: "replace", blockId: "p_2", matchText: "not final", content: "settled", occurrence: "unique" },
      { op: "delete", blockId: "h_1" },
    ];
    const result = pageai.validateOps(page(), ops, AT);
    assert.equal(result.dryRun, true);
    assert.equal(result.toolName, "mnote.doc.apply_block_ops");
    assert.equal(result.risk, "medium");
    assert.equal(result.audit.idempotencyKey, "validate");
    assert.deepEqual(result.changedBlocks.map((c) => [c.blockId, c.op]), [["p_2", "replace"], ["h_1", "delete"]]);
    assert.deepEqual(result.operations[0], { op: "replace", blockId: "p_2", matchText: "not final", content: "settled" });
    assert.equal(JSON.stringify(pageai.validateOps(JSON.stringify(page()), JSON.stringify(ops), AT)), JSON.stringify(result));
    coded(() => pageai.validateOps(page(), ops, { baseRevision: 2 }), "mnote_revision_conflict");
    coded(() => pageai.validateOps(page(), ops, { allowedTargetBlockIds: ["p_2"] }), "mnote_block_target_out_of_scope");
    const bad = coded(() => pageai.validateOps(page(), [{ op: "explode" }]), "mnote_invalid_arguments");
    assert.equal(bad.details.pointer, "/operations/0/op");
    assert.equal(coded(() => pageai.validateOps(page(), []), "mnote_invalid_arguments").details.pointer, "/operations");
    coded(() => pageai.validateOps({ ...page(), blocks: [page().blocks[0], page().blocks[0]] }, ops), "mnote_invalid_page");
  });

  test("diffChars gives the preview's inline spans, per character for CJK", () => {
    assert.deepEqual(pageai.diffChars("第一版计划", "第二版计划"), [
      { tag: "equal", text: "第" },
      { tag: "delete", text: "一" },
      { tag: "insert", text: "二" },
      { tag: "equal", text: "版计划" },
    ]);
    assert.deepEqual(pageai.diffChars("same", "same"), [{ tag: "equal", text: "same" }]);
    assert.deepEqual(pageai.diffChars("", ""), []);
    const spans = pageai.diffChars("The API may change.", "The interface may change soon.");
    assert.equal(spans.filter((s) => s.tag !== "insert").map((s) => s.text).join(""), "The API may change.");
    assert.equal(spans.filter((s) => s.tag !== "delete").map((s) => s.text).join(""), "The interface may change soon.");
    assert.equal(coded(() => pageai.diffChars("a", 1), "mnote_invalid_arguments").details.pointer, "/after");
  });

  test("diffChars equals the preview's spans for text beyond the BMP, and for lone surrogates", () => {
    // Emoji and rare CJK are two UTF-16 units each; a lone surrogate becomes U+FFFD on its way into core.
    const pairs = [
      ["周报 😀 draft 𠀋 v1", "周报 😃 final 𠀋𠀋 v2"],
      ["😀😀😀", "😀😁😀"],
      ["ascii only", "😀 then ascii only"],
      ["lone \uD800 surrogate", "lone \uDC00 surrogate!"],
      ["\uFFFD kept", "\uFFFD kept too"],
    ];
    for (const [before, after] of pairs) {
      // A page cannot hold a lone surrogate (JSON has no way to carry one), so the preview diffs the
      // well-formed text, with U+FFFD where the surrogate was: what diffChars must give for the raw strings.
      const text = before.toWellFormed();
      const doc = { ...page(), blocks: [{ blockId: "p_1", type: "paragraph", text }] };
      const session = new pageai.PageSession(doc);
      const operations = [{ op: "update", blockId: "p_1", text: after.toWellFormed() }];
      const call = {
        toolName: "mnote.doc.apply_block_ops",
        args: { documentId: "doc_1", baseRevision: 4, dryRun: true, idempotencyKey: "idem_1", operations },
      };
      const [diff] = session.preview(call, AT).diff;
      session.free();
      assert.deepEqual(pageai.diffChars(before, after), diff.inline, JSON.stringify([before, after]));
    }
    assert.deepEqual(pageai.diffChars("a\uD800", "b"), [
      { tag: "delete", text: "a\uFFFD" },
      { tag: "insert", text: "b" },
    ]);
  });

  test("the manifest follows the profile, the grants and the permission", () => {
    const m = catalog.manifest({ tools: { disabled: ["mnote.block.fetch"] }, reviewMode: "yolo" }, ["doc.write"], "edit");
    assert.equal(m.schema, "mnote.ai_tool_manifest.v1");
    assert.equal(m.tools.length, 10);
    const byName = Object.fromEntries(m.tools.map((t) => [t.name, t]));
    assert.equal(byName["mnote.block.fetch"].availability.enabled, false);
    assert.equal(byName["mnote.doc.fetch"].availability.enabled, true, "doc.write covers doc.read");
    assert.equal(byName["mnote.page.save"].availability.enabled, false);
    const readOnly = catalog.manifest(undefined, undefined, "read");
    assert.ok(readOnly.tools.filter((t) => !t.annotations.readonly).every((t) => t.availability.unsupportedReason === "document is read-only"));
    const mcp = catalog.mcpToolsList({ tools: { disabled: ["mnote.block.fetch"] } });
    assert.ok(!mcp.some((t) => t.name === "block_fetch"));
    assert.equal(mcp[0]._meta["mnote/name"], "mnote.doc.fetch");
    assert.deepEqual(catalog.openaiFunctions().map((f) => f.function.name), catalog.manifest().tools.map((t) => t.mcpName));
    coded(() => catalog.manifest({ reviewMode: "sometimes" }), "mnote_invalid_arguments");
    coded(() => catalog.manifest(undefined, undefined, "write"), "mnote_invalid_arguments");
  });
});
