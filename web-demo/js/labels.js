// People-facing words for core's names. Which names exist is not decided here: the panels iterate the
// package's `vocabulary()` (or the values core answers) and look the words up by name, so a name core adds
// shows up under a fallback label instead of going missing.

const INTENTS = {
  direct_replace: "Replace",
  direct_delete: "Delete",
  direct_insert: "Insert",
  direct_type_change: "Change type",
  read_only_question: "Question",
  complex_rewrite: "Open request",
  unsupported: "Unsupported",
};

const REASON_CODES = {
  match_not_found: "match not found",
  match_ambiguous: "match ambiguous",
  target_not_found: "target not found",
  out_of_selection: "outside the selection",
  not_editable: "the block is locked",
  tool_disabled: "the write tool is off",
  read_only_document: "the page is read-only",
  question: "a question",
  complex: "needs a model",
  unsupported: "not supported",
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
  accept: { label: "Accept all", primary: true },
  reject: { label: "Reject" },
  retry: { label: "Retry" },
  abort: { label: "Abort" },
  revert: { label: "Revert", primary: true },
};

/** A name without words of its own: `awaiting_user` reads "awaiting user". */
const fallback = (name) => String(name).replaceAll("_", " ");
const capitalized = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export const intentLabel = (intent) => INTENTS[intent] ?? capitalized(fallback(intent));
export const reasonLabel = (code) => REASON_CODES[code] ?? fallback(code);
export const reviewModeWords = (mode) => REVIEW_MODES[mode] ?? { label: capitalized(fallback(mode)), hint: "" };
export const reviewStateLabel = (state) => REVIEW_STATES[state] ?? capitalized(fallback(state));
export const reviewVerbWords = (verb) => REVIEW_VERBS[verb] ?? { label: capitalized(fallback(verb)) };
