// The tool toggles: every tool of the catalog (core's manifest, as the server filters it for the stored
// profile of the open page's workspace), by what it does in a few words and its name, with its risk, and a
// switch that disables or enables it for Hermes. (The manifest's descriptions are written for models, so they
// are not shown.) A change is a `PUT /api/profile?workspaceId=…` of that workspace (its owner's to make); the
// server answers the manifest it now yields, which is what the run instructions and the executor's guard
// read for every page of the workspace.

import { fetchProfile, putProfile } from "./api.js";
import { h, replace } from "./dom.js";
import { OWNER_ONLY, errorWords, toolLabel } from "./labels.js";

/** A tool's risk class (core's annotation) as a risk level and words. */
const RISK = {
  read: { level: "low", words: "reads" },
  write: { level: "medium", words: "writes" },
  "high-risk-write": { level: "high", words: "high risk" },
};

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ workspaceId: string, canChange?: boolean, onProfile: (profile: object) => void }} deps
 *   `workspaceId` is the open page's (the profile read and changed is that workspace's); `canChange` is
 *   whether this person may change it (an owner; others see the switches off, and why); `onProfile` is
 *   called with every profile the server answers
 */
export function createToolsPanel(root, { workspaceId, canChange = true, onProfile }) {
  const state = { profile: null, manifest: null, busy: false, error: null, pending: null };
  /** What this tab's own stores said (see `follow`). */
  const stored = [];
  /** What a profile says, as one string: its review mode and switched-off tools. */
  const said = (profile) => JSON.stringify([profile?.reviewMode, [...(profile?.tools?.disabled ?? [])].sort()]);

  /**
   * A `profile.changed` that came while this panel could not judge it (its first read not answered yet, or a
   * save under way): checked once that is over, against what is shown then. The read may have been answered
   * before the change and still be on its way (the channel says the profile right after `hello`).
   */
  let unjudged = null;

  async function load() {
    show(await fetchProfile(workspaceId));
    judgeLate();
  }

  /** Reads again when a change that came while this panel was busy says something it does not show. */
  function judgeLate() {
    const changed = unjudged;
    unjudged = null;
    if (changed && said(changed) !== said(state.profile)) void load();
  }

  function show({ profile, manifest }) {
    state.profile = profile;
    state.manifest = manifest;
    onProfile(profile);
    paint();
  }

  /**
   * Stores `change` applied to the current profile. Changes made while a save is under way are sent after
   * it, together, and only the answer to the last one is shown: quick clicks (Yolo, then Review) end on
   * the last choice, never on an older answer.
   */
  async function save(change) {
    if (!state.profile) return;
    state.pending = { ...state.pending, ...change };
    if (state.busy) return;
    state.busy = true;
    state.error = null;
    paint();
    try {
      while (state.pending) {
        const next = { ...state.profile, ...state.pending };
        state.pending = null;
        // Remembered until its echo on the live channel comes back (a few, should one never come).
        stored.push(said(next));
        stored.splice(0, stored.length - 8);
        const answer = await putProfile(next, workspaceId);
        state.profile = answer.profile;
        if (!state.pending) show(answer);
      }
    } catch (error) {
      state.error = error;
      state.pending = null;
      onProfile(state.profile); // back to what is stored
    } finally {
      state.busy = false;
      paint();
      judgeLate();
    }
  }

  function toggle(name, enabled) {
    const tools = { ...state.profile?.tools, ...state.pending?.tools };
    const disabled = new Set(tools.disabled ?? []);
    if (enabled) disabled.delete(name);
    else disabled.add(name);
    return save({ tools: { ...tools, disabled: [...disabled].sort() } });
  }

  function paint() {
    const tools = state.manifest?.tools ?? [];
    const disabled = new Set(state.profile?.tools?.disabled ?? []);
    replace(
      root,
      h(
        "header",
        { class: "panel-head" },
        h("div", {}, h("h2", {}, "Tools"), h("p", { class: "subtle" }, "What Hermes may call on this page")),
        h("span", { class: "badge badge-quiet", id: "tools-enabled-count" }, `${tools.length - disabled.size} of ${tools.length} on`),
      ),
      state.error ? h("div", { class: "command-status status-error", role: "status" }, errorWords(state.error).text) : null,
      canChange ? null : h("p", { class: "subtle", id: "tools-owner-only" }, OWNER_ONLY),
      h(
        "ul",
        { class: "tool-list", id: "tool-list" },
        tools.map((tool) => {
          const on = !disabled.has(tool.name);
          return h(
            "li",
            { class: `tool-row ${on ? "" : "is-off"}`, "data-tool": tool.name },
            h(
              "label",
              { class: "switch" },
              h("input", {
                type: "checkbox",
                role: "switch",
                checked: on,
                disabled: state.busy || !canChange,
                "aria-label": `${toolLabel(tool.name)} (${tool.name})`,
                onchange: (e) => toggle(tool.name, e.target.checked),
              }),
              h("span", { class: "switch-track" }),
            ),
            h("span", { class: "tool-name" }, h("span", { class: "tool-label" }, toolLabel(tool.name)), h("code", {}, tool.name)),
            h("span", { class: `risk risk-${RISK[tool.annotations.risk]?.level ?? "high"}` }, RISK[tool.annotations.risk]?.words ?? tool.annotations.risk),
          );
        }),
      ),
    );
  }

  /**
   * Follows a `profile.changed` of the live channel: read again only when it says something this panel
   * does not show. This tab's own store comes back on the channel too (during the save, or after its
   * answer was shown); neither needs a read.
   */
  function follow(changed) {
    const key = said(changed);
    const own = stored.indexOf(key);
    if (own >= 0) {
      stored.splice(own, 1);
      return;
    }
    if (state.busy || !state.profile) {
      unjudged = changed;
      return;
    }
    if (key === said(state.profile)) return;
    void load();
  }

  return { load, save, follow };
}
