// People-facing words for core's names. Which names exist is not decided here: the panels iterate the
// package's `vocabulary()` (or the values core answers) and look the words up by name, so a name core adds
// shows up under a fallback label instead of going missing.

import { signInState } from "./api.js";

const INTENTS = {
  direct_replace: "Replace",
  direct_delete: "Delete",
  direct_insert: "Insert",
  direct_type_change: "Change type",
  read_only_question: "Question",
  complex_rewrite: "Open request",
  unsupported: "Unsupported",
};

const REVIEW_MODES = {
  yolo: { label: "Yolo", hint: "Low- and medium-risk shortcuts apply directly; high risk still waits for review." },
  review: { label: "Review", hint: "Every AI write waits for you." },
  required: { label: "Required", hint: "Every AI write waits for you, and nothing may opt out." },
};

const REVIEW_STATES = {
  draft: "Draft",
  planning: "Planning",
  previewing: "Previewing",
  awaiting_user: "Awaiting you",
  accepted: "Accepted",
  applying: "Applying",
  applied: "Applied",
  rejected: "Rejected",
  failed: "Failed",
  aborted: "Aborted",
  stale: "Stale",
  reverted: "Reverted",
};

/** Review verbs: the button's words, and whether it is the panel's main action. */
const REVIEW_VERBS = {
  accept: { label: "Accept all", name: "accept", primary: true },
  reject: { label: "Reject", name: "reject" },
  retry: { label: "Retry", name: "retry" },
  abort: { label: "Abort", name: "abort" },
  revert: { label: "Revert", name: "revert", primary: true },
};

/** What each tool does, in a few words: Hermes' tool events and the Tools panel show these. */
const TOOLS = {
  "mnote.doc.fetch": "Read the page",
  "mnote.block.fetch": "Read blocks",
  "mnote.doc.search": "Search the page",
  "mnote.doc.apply_block_ops": "Edit blocks",
  "mnote.doc.plan_update": "Propose changes",
  "mnote.block.insert": "Insert a block",
  "mnote.block.update": "Update a block",
  "mnote.block.delete": "Delete a block",
  "mnote.block.move": "Move a block",
  "mnote.page.save": "Replace the whole page",
};

const AUDIT_ACTIONS = {
  "document.put": "Page saved",
  "tool.applied": "Change applied",
  "review.propose": "Held for review",
  "review.accept": "Accepted",
  "review.stale": "Found stale",
  "review.revert": "Reverted",
  "review.reject": "Rejected",
  "review.abort": "Aborted",
  "review.retry": "Retried",
  "review.undo_run": "Run undone",
};

/** Warnings of a context, by code: what a person does about them. */
const WARNINGS = {
  context_truncated: "The budget was reached: this chunk holds only part of the page. Next chunk shows the rest.",
  block_partial: "One block is longer than the whole budget, so only part of it is in this chunk.",
};

/** A name without words of its own: `awaiting_user` reads "awaiting user". */
const fallback = (name) => String(name).replaceAll("_", " ");
const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export const intentLabel = (intent) => INTENTS[intent] ?? capitalized(fallback(intent));
export const reviewModeWords = (mode) => REVIEW_MODES[mode] ?? { label: capitalized(fallback(mode)), hint: "" };
export const reviewStateLabel = (state) => REVIEW_STATES[state] ?? capitalized(fallback(state));
export const reviewVerbWords = (verb) => REVIEW_VERBS[verb] ?? { label: capitalized(fallback(verb)), name: fallback(verb) };
export const toolLabel = (name) => TOOLS[name] ?? name;
export const auditActionLabel = (action) => AUDIT_ACTIONS[action] ?? capitalized(fallback(action));
export const warningText = (warning) => WARNINGS[warning.code] ?? warning.message;

/** A list for a sentence: "a", "a and b", "a, b and c". */
export function listWords(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/**
 * Why a review button is off, from the package's `reviewVerbs` gates: the state in words and the verbs a
 * person can use now (core's refusal also names internal steps, such as `mark_stale`, that no button sends).
 */
export function refusedVerbText(verb, state, gates) {
  const usable = gates.filter((g) => g.allowed).map((g) => reviewVerbWords(g.verb).name);
  const now = `${reviewVerbWords(verb).name} is not available: this change is ${reviewStateLabel(state).toLowerCase()}`;
  return usable.length ? `${capitalized(now)}. You can ${listWords(usable)} it.` : `${capitalized(now)} and finished. Start a new command.`;
}

/** Quotes text the way the page writes it: 「…」 around CJK, “…” around anything else. */
export function quoted(text) {
  return /[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]/u.test(text) ? `「${text}」` : `“${text}”`;
}

/**
 * A coded error in people's words: `{text, hint, tool?}`. `tool` names a switched-off tool a person can
 * turn back on. Codes without words of their own keep the server's message and hint, and so does a
 * failure that has no code (the page's own states: the server did not answer, a run failed in Hermes).
 */
export function errorWords(error, { documentId } = {}) {
  const details = error?.details ?? {};
  if (error?.unanswered) return { text: "The server did not answer.", hint: "Is the Worker running? Start it with make dev." };
  switch (error?.code) {
    case "mnote_tool_disabled": {
      const tool = details.toolName;
      const name = tool ? `${toolLabel(tool)} (${tool})` : "The tool";
      return { text: `${name} is turned off in Tools.`, hint: "Turn it back on, then try again.", tool };
    }
    case "mnote_document_not_found":
      return {
        text: `There is no document called “${details.documentId ?? documentId ?? "?"}”.`,
        hint: "Check the address, or open the welcome page.",
      };
    case "mnote_document_read_only":
      return { text: "This page is read-only.", hint: "Ask its owner for edit rights." };
    case "mnote_revision_conflict":
    case "mnote_context_stale":
      return { text: "The page changed in the meantime.", hint: "Look at the page again and retry." };
    case "mnote_run_already_undone":
      return { text: "This run is undone already.", hint: "Nothing more to do." };
    case "mnote_run_undo_stale":
      return { text: "The page changed again after the preview.", hint: "Ask for the undo again and read the new preview." };
    case "mnote_revert_conflict":
      return { text: "The blocks this change touched were edited since.", hint: "Undo those edits first, or change the page by hand." };
    case "hermes_client_unconfigured":
      // Under `make dev` one variable starts Hermes with the Worker; a deployed Worker is configured instead.
      return signInState.localDev
        ? {
            text: "Hermes is not running: make dev was started without a model.",
            hint: "Set MNOTE_MODEL_URL to an OpenAI-compatible model server and run make dev again, e.g. MNOTE_MODEL_URL=http://127.0.0.1:11434/v1 make dev for Ollama.",
          }
        : { text: "Hermes is not set up on this server.", hint: "The Worker needs HERMES_UPSTREAM_URL and HERMES_API_KEY (see the README)." };
    case "hermes_client_upstream_unavailable":
      return { text: "Hermes did not answer.", hint: "Check that Hermes is running, then send again." };
    case "hermes_client_upstream_rate_limited":
      return { text: "Hermes is busy with other runs.", hint: "Wait a moment and send again." };
    case "hermes_client_upstream_unauthorized":
      return { text: "Hermes refused the server's key.", hint: "The Worker's HERMES_API_KEY does not match Hermes' API_SERVER_KEY." };
    default:
      return { text: error?.message ?? "Something went wrong.", hint: error?.hint ?? "" };
  }
}

/** Why a person who is not the workspace's owner sees its profile controls switched off. */
export const OWNER_ONLY = "Only an owner of this workspace changes its tools and review mode.";

/** Why a viewer sees a review's decisions switched off. */
export const DECIDERS_ONLY = "A viewer sees this review; an editor or owner of the workspace decides it.";

/** What a viewer's held command waits for. */
export const HELD_FOR_DECIDERS = "Held for review: an editor or owner of the workspace accepts or rejects it";
