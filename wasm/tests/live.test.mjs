// The live channel in the packed package: PageSession.applyRemote against the golden fixtures
// (tests/fixtures/wire/v1/live_event.*.json, the same the Rust tests read), and the client helper
// `@mnote/pageai/live` against a real WebSocket server in this process (the `ws` package), which plays the
// document's channel: resume by seq and revision, reconnect with backoff, resync, close.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { WebSocket, WebSocketServer } from "ws";
import Ajv2020 from "ajv/dist/2020.js";

import { assertCoded, fixtures, installPacked, thrown } from "./lib/packed.mjs";

let installed;
let pageai;
let connectLive;
before(async () => {
  installed = installPacked();
  pageai = installed.pageai;
  const entry = join(installed.project, "node_modules", "@mnote", "pageai", "web", "live.js");
  ({ connectLive } = await import(pathToFileURL(entry).href));
});
after(() => installed?.remove());

const fixture = (name) => fixtures(`live_event.${name}.json`)[0];
const V2 = "mnote.live_event.v2";
const coded = (fn, code) => {
  const error = thrown(fn);
  assertCoded(pageai, error, code);
  return error;
};

describe("the JSON Schema of mnote.live_event.v1 (@mnote/pageai/schemas/live_event.v1.json)", () => {
  const compile = () => {
    const path = join(installed.project, "node_modules", "@mnote", "pageai", "schemas", "live_event.v1.json");
    return new Ajv2020({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(path, "utf8")));
  };

  test("compiles in ajv 2020 strict mode and accepts every message of every fixture", () => {
    const validate = compile();
    const messages = fixtures("live_event.").flatMap((f) => (f.output?.messages ?? []).map((m) => [f.name, m]));
    const kinds = new Set(messages.map(([, m]) => m.kind));
    assert.deepEqual([...kinds].sort(), ["hello", "page.changed", "refetch", "review.updated", "snapshot", "tool.event"]);
    for (const [name, message] of messages) {
      assert.equal(validate(message), true, `${name} ${message.kind}: ${JSON.stringify(validate.errors)}`);
    }
  });

  test("refuses what the decoder refuses: another kind's payload, a second payload, an unknown field or kind", () => {
    const validate = compile();
    assert.equal(validate(fixture("kind_mismatch").input.command.message), false, "a snapshot carrying hello");
    const all = fixtures("live_event.").flatMap((f) => f.output?.messages ?? []);
    const changed = all.find((m) => m.kind === "page.changed");
    const hello = all.find((m) => m.kind === "hello");
    assert.equal(validate(changed), true);
    for (const bad of [
      { ...changed, hello: hello.hello },
      { ...changed, extra: 1 },
      { ...changed, kind: "page.deleted" },
      { ...changed, schema: "mnote.live_event.v2" },
      { ...changed, seq: -1 },
    ]) {
      assert.equal(validate(bad), false, JSON.stringify(Object.keys(bad)));
    }
  });
});

describe("the JSON Schema of mnote.live_event.v2 (@mnote/pageai/schemas/live_event.v2.json)", () => {
  const v2 = () => fixtures("live_event.", "v2");
  const compile = (version) => {
    const path = join(installed.project, "node_modules", "@mnote", "pageai", "schemas", `live_event.${version}.json`);
    return new Ajv2020({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(path, "utf8")));
  };

  test("compiles in ajv 2020 strict mode, accepts every v2 fixture message and refuses what the decoder refuses", () => {
    const validate = compile("v2");
    const messages = v2().flatMap((f) => (f.output?.messages ?? []).map((m) => [f.name, m]));
    const kinds = new Set(messages.map(([, m]) => m.kind));
    assert.deepEqual([...kinds].sort(), ["page.changed", "profile.changed", "tool.event"]);
    for (const [name, message] of messages) {
      assert.equal(message.schema, "mnote.live_event.v2", name);
      assert.equal(validate(message), true, `${name} ${message.kind}: ${JSON.stringify(validate.errors)}`);
    }
    for (const f of v2().filter((f) => f.error)) {
      assert.equal(validate(f.input.command.message), false, f.name);
    }
    // v1 knows no profile.changed, and a v2 id is not v1's.
    const profile = messages.find(([, m]) => m.kind === "profile.changed")[1];
    const v1 = compile("v1");
    assert.equal(v1(profile), false);
    assert.equal(v1({ ...profile, schema: "mnote.live_event.v1" }), false);
  });

  test("PageSession.applyRemote follows v2 messages as v1 ones; a profile change changes no page", () => {
    for (const { name, input, output } of v2().filter((f) => f.output)) {
      const session = new pageai.PageSession(input.page);
      const answers = output.messages.map((m) => session.applyRemote(m));
      assert.deepEqual(session.page(), output.page, name);
      assert.deepEqual(answers.map((a) => a.kind), output.messages.map((m) => m.kind), name);
    }
    const { input, output } = v2().find((f) => f.name === "live_event.profile_changed.json");
    const answer = new pageai.PageSession(input.page).applyRemote(output.messages[0]);
    assert.deepEqual(answer, { applied: false, revision: input.page.revision, kind: "profile.changed" });
  });
});

describe("PageSession.applyRemote", () => {
  test("following each fixture's messages from its input page gives its output page", () => {
    const all = fixtures("live_event.").filter((f) => f.output);
    assert.ok(all.length >= 5, `fixtures: ${all.map((f) => f.name)}`);
    for (const { name, input, output } of all) {
      const session = new pageai.PageSession(input.page);
      const answers = [];
      let refused = null;
      for (const message of output.messages) {
        try {
          answers.push(session.applyRemote(message));
        } catch (error) {
          refused = error;
        }
      }
      if (output.page) {
        assert.equal(refused, null, `${name}: ${refused?.message}`);
        assert.deepEqual(session.page(), output.page, name);
        assert.equal(session.revision, output.page.revision);
        assert.deepEqual(answers.map((a) => a.kind), output.messages.map((m) => m.kind), name);
      } else {
        // A change too large to send: the session cannot follow it and says so.
        assertCoded(pageai, refused, "mnote_live_resync");
      }
    }
  });

  test("answers whether the page changed; tool events and review updates change nothing", () => {
    const { input, output } = fixture("page_changed");
    const session = new pageai.PageSession(input.page);
    const answers = output.messages.map((m) => session.applyRemote(JSON.stringify(m)));
    assert.deepEqual(answers, [
      { applied: false, revision: 12, kind: "tool.event" },
      { applied: true, revision: 13, kind: "page.changed" },
      { applied: false, revision: 13, kind: "tool.event" },
    ]);
  });

  test("a gap or an old change is mnote_live_resync and leaves the page as it was", () => {
    const { input, output } = fixture("page_changed");
    const change = output.messages.find((m) => m.kind === "page.changed");
    const behind = new pageai.PageSession({ ...input.page, revision: 10 });
    const error = coded(() => behind.applyRemote(change), "mnote_live_resync");
    assert.match(error.message, /^resync: /);
    assert.match(error.hint, /\?revision=10/);
    assert.deepEqual(error.details, { revision: 10, messageRevision: 13, reason: error.details.reason });
    assert.deepEqual(behind.page().blocks, new pageai.PageSession(input.page).page().blocks);

    const current = new pageai.PageSession(input.page);
    current.applyRemote(change);
    coded(() => current.applyRemote(change), "mnote_live_resync");
    assert.equal(current.revision, 13);

    const other = new pageai.PageSession({ ...input.page, documentId: "doc_other" });
    coded(() => other.applyRemote(change), "mnote_invalid_arguments");
    const mismatch = fixture("kind_mismatch");
    coded(() => current.applyRemote(mismatch.input.command.message), mismatch.error.code);
  });

  test("a snapshot replaces the page; a hello at another revision asks for a resync", () => {
    const { input, output } = fixture("snapshot");
    const [snapshot, hello] = output.messages;
    const stale = new pageai.PageSession({ ...input.page, revision: 3, blocks: input.page.blocks.slice(0, 1) });
    coded(() => stale.applyRemote(hello), "mnote_live_resync");
    assert.deepEqual(stale.applyRemote(snapshot), { applied: true, revision: 30, kind: "snapshot" });
    assert.deepEqual(stale.page(), output.page);
    assert.equal(stale.applyRemote(hello).applied, false);
  });

  test("a route made before a remote change is recomputed against the new page", () => {
    const { input, output } = fixture("page_changed"); // replaces 周五 with 周四 in p_1
    const session = new pageai.PageSession(input.page);
    const prompt = "把「周四」替换为「周三」";
    const before = session.route(prompt, { profile: { reviewMode: "yolo" } });
    assert.equal(before.requiresHermesRun, true, "the old page has no 周四");
    for (const message of output.messages) session.applyRemote(message);
    const now = session.route(prompt, { profile: { reviewMode: "yolo" } });
    assert.equal(now.requiresHermesRun, false);
    assert.equal(now.recommendedToolCall.args.baseRevision, 13);
    const preview = session.preview(now.recommendedToolCall);
    assert.equal(preview.changedBlocks[0].after, "第一段：我们在周三发布。");
  });
});

/** A WebSocket server that plays a document's channel: `script(socket, query, n)` runs per connection; it
 * answers `GET /api/documents/{id}` with `page`. */
async function channel(script, { page } = {}) {
  const connections = [];
  const http = createServer((req, res) => {
    if (req.url === `/api/documents/${page?.documentId}`) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(page));
    } else {
      res.writeHead(404).end();
    }
  });
  const wss = new WebSocketServer({ server: http });
  wss.on("connection", (socket, req) => {
    const url = new URL(req.url, "http://x");
    connections.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    script(socket, Object.fromEntries(url.searchParams), connections.length);
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${http.address().port}`;
  const stop = async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => http.close(resolve));
  };
  return { url, connections, stop };
}

/** Resolves when `predicate(value)` holds for a value pushed to the returned list. */
function watch() {
  const seen = [];
  const waiters = [];
  const push = (value) => {
    seen.push(value);
    for (const w of [...waiters]) {
      if (w.predicate(value)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(value);
      }
    }
  };
  const until = (predicate) =>
    new Promise((resolve) => {
      const found = seen.find(predicate);
      if (found) resolve(found);
      else waiters.push({ predicate, resolve });
    });
  return { seen, push, until };
}

const helloAt = (seq, revision, documentId = "doc_golden") => ({
  schema: "mnote.live_event.v1",
  seq,
  revision,
  kind: "hello",
  at: "2027-01-15T08:00:00.000Z",
  documentId,
  hello: { replayed: 0, snapshot: false, limits: { maxSockets: 64, maxIncomingBytes: 4096, maxMessageBytes: 262144 } },
});

describe("connectLive", () => {
  const fast = { initialDelayMs: 10, maxDelayMs: 40, factor: 2, jitter: 0 };

  test("resumes by revision, keeps the session current, reconnects after a drop with the last seq", async () => {
    const { input, output } = fixture("page_changed");
    const server = await channel((socket, query, n) => {
      if (n === 1) {
        for (const m of output.messages) socket.send(JSON.stringify(m));
        socket.send(JSON.stringify(helloAt(43, 13)));
        setTimeout(() => socket.close(1011, "restarting"), 20);
      } else {
        socket.send(JSON.stringify(helloAt(43, 13)));
      }
    });
    const session = new pageai.PageSession(input.page);
    const events = watch();
    const statuses = watch();
    const live = connectLive({
      url: server.url,
      documentId: "doc_golden",
      session,
      WebSocket,
      backoff: fast,
      onEvent: (message, applied) => events.push({ message, applied }),
      onStatus: statuses.push,
    });
    try {
      await statuses.until((s) => s.state === "waiting");
      await statuses.until((s) => s.state === "live" && statuses.seen.filter((x) => x.state === "live").length === 2);
      assert.deepEqual(server.connections.map((c) => c.query), [
        { revision: "12", schema: V2 },
        { after: "43", revision: "13", schema: V2 },
      ], "it asks for mnote.live_event.v2");
      assert.equal(server.connections[0].path, "/api/documents/doc_golden/live");
      assert.deepEqual(session.page(), output.page, "the session followed the change");
      assert.equal(live.lastSeq, 43);
      const dropped = statuses.seen.find((s) => s.state === "waiting");
      assert.deepEqual([dropped.code, dropped.reason, dropped.delayMs, dropped.attempt], [1011, "restarting", 10, 1]);
      const kinds = events.seen.map((e) => e.message.kind);
      assert.deepEqual(kinds, ["tool.event", "page.changed", "tool.event", "hello", "hello"]);
      assert.equal(events.seen[1].applied.applied, true);
    } finally {
      live.close();
      await server.stop();
    }
  });

  test("reads mnote.live_event.v2: follows its page changes and passes every profile.changed on, though unnumbered", async () => {
    const changed = fixtures("live_event.page_changed.json", "v2")[0];
    const profile = fixtures("live_event.profile_changed.json", "v2")[0].output.messages[0];
    const server = await channel((socket) => {
      for (const m of changed.output.messages) socket.send(JSON.stringify(m));
      socket.send(JSON.stringify({ ...helloAt(43, 13), schema: V2 }));
      // Not stored: each carries the position the socket is at, however often it comes.
      for (const version of [7, 8]) socket.send(JSON.stringify({ ...profile, seq: 43, revision: 13, profile: { ...profile.profile, version } }));
    });
    const session = new pageai.PageSession(changed.input.page);
    const events = watch();
    const live = connectLive({ url: server.url, documentId: "doc_golden", session, WebSocket, backoff: fast, onEvent: (message) => events.push(message) });
    try {
      await events.until((m) => m.kind === "profile.changed" && m.profile.version === 8);
      assert.deepEqual(events.seen.map((m) => m.kind), ["tool.event", "page.changed", "tool.event", "hello", "profile.changed", "profile.changed"]);
      assert.deepEqual(session.page(), changed.output.page);
      assert.equal(live.lastSeq, 43);
    } finally {
      live.close();
      await server.stop();
    }
  });

  test("skips a message it already took, and backs off on a coded close", async () => {
    const { output } = fixture("page_changed");
    const server = await channel((socket, query, n) => {
      if (n === 1) {
        socket.send(JSON.stringify(output.messages[0]));
        socket.send(JSON.stringify(output.messages[0]));
        socket.send(JSON.stringify(helloAt(41, 12)));
        socket.close(4429, "mnote_live_socket_limit: the document's live channel already holds its limit");
      } else if (n === 2) {
        socket.close(4429, "mnote_live_socket_limit: still full");
      } else {
        socket.send(JSON.stringify(helloAt(41, 12)));
      }
    });
    const events = watch();
    const statuses = watch();
    const live = connectLive({ url: server.url, documentId: "doc_golden", revision: 12, WebSocket, backoff: fast, onEvent: events.push, onStatus: statuses.push });
    try {
      await statuses.until((s) => s.state === "live" && s.attempt === 0 && server.connections.length === 3);
      assert.equal(events.seen.filter((m) => m.kind === "tool.event").length, 1, "the repeated seq 41 is taken once");
      const waits = statuses.seen.filter((s) => s.state === "waiting");
      assert.deepEqual(waits.map((w) => [w.code, w.delayMs]), [[4429, 10], [4429, 20]]);
      assert.match(waits[0].reason, /^mnote_live_socket_limit: /);
      assert.deepEqual(server.connections.map((c) => c.query.after), [undefined, "41", "41"]);
    } finally {
      live.close();
      await server.stop();
    }
  });

  test("a change it cannot follow reads the page, applies it, and resumes from its revision", async () => {
    const { input, output } = fixture("page_changed");
    const fresh = { ...output.page, revision: 20 };
    const gap = structuredClone(output.messages[1]);
    gap.seq = 50;
    gap.revision = 21;
    gap.change.fromRevision = 20; // the changes to 13 … 20 never arrive
    const server = await channel(
      (socket, query, n) => {
        if (n === 1) socket.send(JSON.stringify(gap));
        else socket.send(JSON.stringify(helloAt(50, 20)));
      },
      { page: fresh },
    );
    const session = new pageai.PageSession(input.page);
    const events = watch();
    const statuses = watch();
    const live = connectLive({ url: server.url, documentId: "doc_golden", session, WebSocket, backoff: fast, onEvent: (m) => events.push(m), onStatus: statuses.push });
    try {
      await statuses.until((s) => s.state === "live");
      assert.ok(statuses.seen.some((s) => s.state === "resyncing"));
      assert.equal(session.revision, 20);
      assert.deepEqual(session.page().blocks, fresh.blocks);
      assert.deepEqual(server.connections.map((c) => c.query), [
        { revision: "12", schema: V2 },
        { revision: "20", schema: V2 },
      ]);
      assert.deepEqual(events.seen.map((m) => m.kind), ["snapshot", "hello"]);
    } finally {
      live.close();
      await server.stop();
    }
  });

  test("close() stops it: no reconnect follows", async () => {
    let opened;
    const ready = new Promise((resolve) => (opened = resolve));
    const server = await channel((socket) => {
      socket.send(JSON.stringify(helloAt(0, 12)));
      opened();
    });
    const statuses = watch();
    const live = connectLive({ url: server.url, documentId: "doc_golden", WebSocket, backoff: fast, onStatus: statuses.push });
    try {
      await ready;
      await statuses.until((s) => s.state === "live");
      live.close();
      assert.equal(live.state, "closed");
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(server.connections.length, 1);
      assert.ok(!statuses.seen.some((s) => s.state === "waiting"));
    } finally {
      await server.stop();
    }
  });

  test("refuses to start without a document or a WebSocket", () => {
    assert.throws(() => connectLive({ url: "http://127.0.0.1:1" }), TypeError);
    assert.throws(() => connectLive({ url: "http://127.0.0.1:1", documentId: "d", WebSocket: null }), TypeError);
  });
});
