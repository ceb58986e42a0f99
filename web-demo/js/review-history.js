// The review history: the document's review sessions, the open ones first (every one of them, so a held
// change never drops out of reach), then the newest others, each group newest change first (the order of
// the times shown), each named by the command that made it. The name is the prompt when this browser remembers it
// (js/prompts.js), else what the proposal does ("Replaces “numbers check” with “finance review”.").

import { describeOperations } from "./describe.js";
import { h } from "./dom.js";
import { reviewStateLabel } from "./labels.js";

const SHOWN = 8;

// A session names its origin, not its person: "A person" may be someone else (the panel names a pending
// suggestion's author from the suggestions list instead).
const ORIGINS = { shortcut: "Shortcut", hermes: "Hermes", user: "A person", review_accept: "Review" };

/** Who proposed a session, in words. */
export const originLabel = (origin) => ORIGINS[origin] ?? String(origin ?? "?").replaceAll("_", " ");

/** The name of a session: the prompt that made it, or what its proposal does. */
export function sessionName(session, prompts) {
  const prompt = prompts.promptOf(session);
  if (prompt) return prompt;
  const what = describeOperations(session?.proposal?.operations ?? [], "A proposed change").sentence || "A proposed change";
  return session?.source?.origin === "hermes" ? `Hermes: ${what}` : what;
}

/**
 * Sessions newest change first; ISO-8601 times compare as strings, code unit by code unit (not with
 * `localeCompare`: the page's first one sets up the locale's collation, ~20 ms of a long page's open).
 */
export const byTime = (sessions) =>
  [...sessions].sort((a, b) => {
    const [x, y] = [String(a.updatedAt ?? ""), String(b.updatedAt ?? "")];
    return x < y ? 1 : x > y ? -1 : 0;
  });

/** The sessions worth a name now: the ones the list shows, every open one and `SHOWN` of the others. */
export function shownSessions(sessions, open) {
  const sorted = byTime(sessions);
  return [...sorted.filter(open), ...sorted.filter((s) => !open(s)).slice(0, SHOWN)];
}

/**
 * A time for the list: the clock time today ("08:12:05"), the date and time before ("5 Dec, 07:05"), in the
 * page's time zone, as en-GB writes them. Spelled here, not with `Intl.DateTimeFormat`: a page's first one
 * loads the locale's data (~13 ms of a long page's open, in its Review panel's first paint).
 */
export function when(iso) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso ?? "";
  const time = `${two(at.getHours())}:${two(at.getMinutes())}`;
  if (new Date().toDateString() === at.toDateString()) return `${time}:${two(at.getSeconds())}`;
  return `${at.getDate()} ${MONTHS[at.getMonth()]}, ${time}`;
}
const two = (n) => String(n).padStart(2, "0");
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec"];

/**
 * The list, as nodes.
 *
 * @param {{ sessions: object[], open: (session: object) => boolean, bodies: Map<string, object>,
 *   current: string | null, prompts: object, onPick: (sessionId: string) => void }} input `bodies` holds
 *   the sessions already read, by id; `open` says whether a session waits for a person
 */
export function historyView({ sessions, open, bodies, current, prompts, onPick }) {
  return h(
    "ul",
    { class: "review-list", id: "review-list", "aria-label": "Review history" },
    shownSessions(sessions, open).map((s) => {
      const body = bodies.get(s.sessionId);
      const name = body ? sessionName(body, prompts) : "…";
      return h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: `review-item ${s.sessionId === current ? "is-current" : ""}`,
            "data-session-id": s.sessionId,
            "data-updated-at": s.updatedAt ?? "",
            "aria-current": s.sessionId === current ? "true" : undefined,
            title: `${name}\n${s.sessionId}`,
            onclick: () => onPick(s.sessionId),
          },
          h("span", { class: `state-badge state-${s.state}` }, reviewStateLabel(s.state)),
          h("span", { class: "review-item-name" }, name),
          h("time", { class: "subtle", datetime: s.updatedAt ?? "" }, when(s.updatedAt)),
        ),
      );
    }),
  );
}
