// The last Hermes run in the command box: its prompt, the answer as it streams, the tools it calls (in
// people's words: "Read the page", not `mcp__mnote__doc_fetch`) and how it ended. While it runs, Stop
// (or Esc) asks the server to abort it (`POST /api/hermes/client/runs/{runId}/abort`); the stream then
// ends with `run.cancelled`, shown as "Cancelled".
//
// mnote's own tool events for the run (`mnote.tool_event.v1` on the document's live channel, tied to the
// run through its frozen context) say more than Hermes' stream: each call as it starts and as it ends, with
// what it wrote or that it waits for review. Once one arrives, the run's mnote calls are shown from those,
// and Hermes' own lines for them are left out (its lines for other tools stay).

import { h, replace } from "./dom.js";
import { errorWords, reviewStateLabel, toolLabel } from "./labels.js";

const STATUS = { starting: "Starting…", streaming: "Streaming", stopping: "Stopping…", completed: "Done", cancelled: "Cancelled", failed: "Failed" };
// Hermes names MCP tools `mcp__<server>__<tool>`; mnote's server is `mnote`.
const MNOTE_TOOL = /^mcp__mnote__(.+)$/;

/**
 * @param {HTMLElement} root the run's container (hidden until the first run)
 * @param {{ vocabulary: { toolNames: string[], mcpToolNames: string[] },
 *   onStop: (run: {runId: string, sessionId: string}) => Promise<void>, onChange: () => void }} deps
 *   `onChange` is called when the run starts or ends (the command box repaints its buttons)
 */
export function createRunView(root, { vocabulary, onStop, onChange }) {
  let run = null;

  /** A Hermes tool name in words: mnote's tools by their label, others as Hermes names them. */
  function toolWords(name) {
    const mcp = MNOTE_TOOL.exec(String(name))?.[1];
    const at = mcp ? vocabulary.mcpToolNames.indexOf(mcp) : -1;
    return at >= 0 ? toolLabel(vocabulary.toolNames[at]) : String(name);
  }

  /** The run's tool calls: mnote's events once the channel brought one, Hermes' for the rest. */
  function shownTools() {
    const live = run.tools.some((t) => t.source === "mnote");
    return live ? run.tools.filter((t) => t.source === "mnote" || !MNOTE_TOOL.test(String(t.tool))) : run.tools;
  }

  /** mnote's event of one of the run's tool calls (`mnote.tool_event.v1`), as the live channel sent it. */
  function toolEvent(e) {
    if (!run?.runId || e.runId !== run.runId) return;
    const at = vocabulary.toolNames.indexOf(e.toolName);
    const tool = at >= 0 ? `mcp__mnote__${vocabulary.mcpToolNames[at]}` : e.toolName;
    const entry = run.tools.find((t) => t.source === "mnote" && t.toolCallId === e.toolCallId);
    const next = { source: "mnote", toolCallId: e.toolCallId, tool, ...callState(e) };
    if (entry) Object.assign(entry, next);
    else run.tools.push(next);
    if (run.status === "starting") run.status = "streaming";
    paint();
  }

  function paint() {
    root.hidden = !run;
    if (!run) return;
    root.dataset.status = run.status;
    const words = run.error ? errorWords(run.error) : null;
    replace(
      root,
      h(
        "div",
        { class: "hermes-run-head" },
        h("span", { class: "run-label" }, "Hermes"),
        h("span", { class: "hermes-run-prompt", title: run.prompt }, run.prompt),
        h("span", { class: `hermes-run-status status-${run.status}`, id: "hermes-status" }, STATUS[run.status] ?? run.status),
      ),
      run.tools.length
        ? h(
            "ul",
            { class: "hermes-events", id: "hermes-events" },
            shownTools().map((t) =>
              h("li", { class: `tool-event tool-${t.status}`, "data-tool": t.tool }, h("span", { class: "tool-event-name" }, toolWords(t.tool)), ` · ${t.detail}`),
            ),
          )
        : null,
      h("p", { class: "hermes-answer", id: "hermes-answer" }, run.text),
      words
        ? h(
            "div",
            { class: "message message-error" },
            h("div", { class: "error-message" }, words.text),
            words.hint ? h("div", { class: "error-hint" }, words.hint) : null,
            run.error.code ? h("div", { class: "error-code" }, run.error.code) : null,
          )
        : null,
    );
  }

  /** One Hermes event: the answer grows, a tool starts or completes. */
  function event(e) {
    if (!run) return;
    if (e.event === "message.delta") run.text += e.delta ?? "";
    else if (e.event === "tool.started") run.tools.push({ source: "hermes", tool: e.tool, status: "started", detail: "running…" });
    else if (e.event === "tool.completed") {
      const open = run.tools.findLast((t) => t.source === "hermes" && t.tool === e.tool && t.status === "started");
      const ms = typeof e.duration === "number" ? ` in ${Math.round(e.duration * 1000)} ms` : "";
      const done = { source: "hermes", tool: e.tool, status: e.error ? "failed" : "completed", detail: e.error ? "failed" : `done${ms}` };
      if (open) Object.assign(open, done);
      else run.tools.push(done);
    }
    if (run.status === "starting") run.status = "streaming";
    paint();
  }

  return {
    /** A new run for `prompt`, not started yet. */
    begin(prompt) {
      run = { prompt, status: "starting", text: "", tools: [], error: null, runId: null, sessionId: null, stopWanted: false };
      paint();
      onChange();
    },

    /** The server started it: from now on it can be stopped. A Stop pressed before this is sent now. */
    started({ runId, sessionId }) {
      if (!run) return;
      Object.assign(run, { runId, sessionId });
      if (run.stopWanted) this.stop();
    },

    event,
    toolEvent,

    /** How it ended: `{status, text?, error?}`. */
    end({ status, text, error }) {
      if (!run) return;
      run.status = status;
      if (typeof text === "string") run.text = text;
      run.error = error ?? null;
      paint();
      onChange();
    },

    /** Whether a run is under way (Stop and Esc apply). */
    active: () => Boolean(run) && ["starting", "streaming", "stopping"].includes(run.status),

    /** Asks the server to abort the run; the stream's `run.cancelled` ends it. */
    async stop() {
      if (!this.active() || (run.status === "stopping" && !run.stopWanted)) return;
      if (!run.runId) {
        run.stopWanted = true; // not started yet: stop as soon as it is
        run.status = "stopping";
        paint();
        return;
      }
      run.stopWanted = false;
      run.status = "stopping";
      paint();
      onChange();
      try {
        await onStop(run);
      } catch (error) {
        // A server's refusal keeps its code; anything else is only words.
        run.error = { code: error.code ?? null, message: error.message, hint: error.hint, unanswered: error.unanswered };
        paint();
      }
    },
  };
}

/** Where one mnote tool call is, in words, from its event: running, what it did, or why it failed. */
function callState(e) {
  const summary = e.summary ?? {};
  if (e.event === "tool.started") return { status: "started", detail: "running…" };
  if (e.event === "tool.failed" || summary.ok === false) return { status: "failed", detail: summary.errorCode ? `failed (${summary.errorCode})` : "failed" };
  if (e.event === "review.updated") return { status: "completed", detail: `review: ${reviewStateLabel(summary.reviewState).toLowerCase()}` };
  if (summary.blocked) return { status: "completed", detail: "waiting for your review" };
  if (Number.isInteger(summary.newRevision)) {
    const n = summary.changedBlockCount ?? 0;
    return { status: "completed", detail: `changed ${n} block${n === 1 ? "" : "s"} · revision ${summary.newRevision}` };
  }
  return { status: "completed", detail: summary.dryRun ? "previewed" : "done" };
}
