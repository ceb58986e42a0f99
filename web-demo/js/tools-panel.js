// The tool toggles: every tool of the catalog (core's manifest, as the server filters it for the stored
// profile), with its risk, and a switch that disables or enables it for Hermes. A change is a
// `PUT /api/profile`; the server answers the manifest it now yields, which is what Hermes' MCP `tools/list`,
// the run instructions and the executor's guard all read.

import { fetchProfile, putProfile } from "./api.js";
import { h, replace } from "./dom.js";

/**
 * @param {HTMLElement} root the panel's container
 * @param {{ onProfile: (profile: object) => void }} deps called with every profile the server answers
 */
export function createToolsPanel(root, { onProfile }) {
  const state = { profile: null, manifest: null, busy: false, error: null };

  async function load() {
    show(await fetchProfile());
  }

  function show({ profile, manifest }) {
    state.profile = profile;
    state.manifest = manifest;
    onProfile(profile);
    paint();
  }

  /** Stores `change` applied to the current profile. */
  async function save(change) {
    if (state.busy || !state.profile) return;
    state.busy = true;
    state.error = null;
    paint();
    try {
      show(await putProfile({ ...state.profile, ...change }));
    } catch (error) {
      state.error = error;
    } finally {
      state.busy = false;
      paint();
    }
  }

  function toggle(name, enabled) {
    const disabled = new Set(state.profile?.tools?.disabled ?? []);
    if (enabled) disabled.delete(name);
    else disabled.add(name);
    return save({ tools: { ...state.profile.tools, disabled: [...disabled].sort() } });
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
      state.error ? h("div", { class: "command-status status-error", role: "status" }, `${state.error.code}: ${state.error.message}`) : null,
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
              { class: "switch", title: tool.description },
              h("input", {
                type: "checkbox",
                role: "switch",
                checked: on,
                disabled: state.busy,
                "aria-label": `${on ? "Disable" : "Enable"} ${tool.name}`,
                onchange: (e) => toggle(tool.name, e.target.checked),
              }),
              h("span", { class: "switch-track" }),
            ),
            h("code", { class: "tool-name", title: tool.description }, tool.name),
            h("span", { class: `risk risk-${tool.annotations.risk === "read" ? "low" : tool.annotations.risk === "write" ? "medium" : "high"}` }, tool.annotations.risk),
          );
        }),
      ),
    );
  }

  return { load, save };
}
