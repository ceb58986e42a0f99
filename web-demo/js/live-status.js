// The document's live channel (GET /api/documents/{id}/live) through the package's client,
// `@mnote/pageai/live`, served under /pkg like the rest of the package, and the small indicator in the
// top bar that says whether this page hears other tabs' and Hermes' changes as they happen.

import { connectLive } from "/pkg/live.js";

// The client's states in words: connected, or on its way back.
const WORDS = {
  connecting: ["Connecting…", "Connecting to the live updates of this page."],
  open: ["Connecting…", "Connecting to the live updates of this page."],
  live: ["Live", "Changes made in other tabs, by Hermes or by the assistant show here as they happen."],
  waiting: ["Reconnecting…", "The live updates were cut off; trying again. What you type is still saved."],
  resyncing: ["Catching up…", "Reading the page again to catch up with changes made meanwhile."],
  closed: ["Offline", "This page no longer hears changes made elsewhere; reload it to see them."],
};

/**
 * Connects to the live channel of `documentId` and shows its state in `root`.
 * @param {HTMLElement} root the indicator
 * @param {{ documentId: string, session: object, after?: number, onEvent: (message: object, applied: object | null) => void }} deps
 *   `session` is what follows the page (`{revision, applyRemote}`); `after`, the channel's `seq` to resume
 *   from (else the session's revision); `onEvent` gets every message
 */
export function connectLiveStatus(root, { documentId, session, after, onEvent }) {
  const show = ({ state }) => {
    const [text, title] = WORDS[state] ?? WORDS.connecting;
    root.dataset.state = state;
    root.title = title;
    root.textContent = text;
  };
  show({ state: "connecting" });
  const connection = connectLive({
    documentId,
    session,
    after,
    onEvent,
    onStatus: show,
    // A message this page could not follow is not the person's problem: the client catches up by itself.
    onError: (error) => console.warn("mnote live:", error),
  });
  addEventListener("pagehide", () => connection.close());
  return connection;
}
