// Which command made which review session: the prompt a person typed, remembered in this browser by the
// ids the server answered (the session id of a held write, the run id of a shortcut or a Hermes run), so
// the review history can name its items by the command instead of by random ids. The server does not keep
// prompts; a session this browser did not start is named by what its proposal does instead.

const KEEP = 100;

/** @param {string} documentId the prompts of this document only */
export function createPromptMemory(documentId) {
  const key = `mnote.demo.prompts.${documentId}`;
  let entries = load();

  function load() {
    try {
      const stored = JSON.parse(localStorage.getItem(key) ?? "[]");
      return Array.isArray(stored) ? stored.filter((e) => typeof e?.id === "string" && typeof e?.prompt === "string") : [];
    } catch {
      return [];
    }
  }

  function save() {
    try {
      localStorage.setItem(key, JSON.stringify(entries.slice(-KEEP)));
    } catch {
      // Private mode or a full storage: the names last as long as the tab.
    }
  }

  return {
    /** Remembers that `prompt` made the sessions or runs `ids` (nullish ids are skipped). */
    remember(prompt, ...ids) {
      const known = ids.filter((id) => typeof id === "string" && id);
      if (!known.length || !prompt.trim()) return;
      entries = [...entries.filter((e) => !known.includes(e.id)), ...known.map((id) => ({ id, prompt }))].slice(-KEEP);
      save();
    },

    /** The prompt that made `session` (by its session id or run id), or null. */
    promptOf(session) {
      const ids = [session?.sessionId, session?.runId].filter(Boolean);
      return entries.findLast((e) => ids.includes(e.id))?.prompt ?? null;
    },
  };
}
