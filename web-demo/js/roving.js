// A roving tabindex (WAI-ARIA toolbar pattern): a group of buttons is one Tab stop. The arrow keys, Home
// and End move between them; the button last focused keeps the group's tabindex=0, so Tab returns to it.

/**
 * Makes the buttons inside `group` one Tab stop. Call again after the buttons were replaced (`sync`): the
 * focused id (its `data-key`) survives a repaint when the same button is drawn again.
 */
export function rovingGroup(group, { selector = "button", label } = {}) {
  group.setAttribute("role", "toolbar");
  if (label) group.setAttribute("aria-label", label);
  let current = null; // data-key of the button holding tabindex=0

  const items = () => [...group.querySelectorAll(selector)];

  function sync() {
    const all = items();
    const keep = all.find((el) => el.dataset.key === current) ?? all[0];
    for (const el of all) el.tabIndex = el === keep ? 0 : -1;
    current = keep?.dataset.key ?? null;
  }

  function focus(el) {
    for (const other of items()) other.tabIndex = other === el ? 0 : -1;
    current = el.dataset.key ?? null;
    el.focus();
  }

  group.addEventListener("keydown", (event) => {
    const all = items();
    const at = all.indexOf(document.activeElement);
    if (at < 0) return;
    const next = {
      ArrowRight: at + 1,
      ArrowDown: at + 1,
      ArrowLeft: at - 1,
      ArrowUp: at - 1,
      Home: 0,
      End: all.length - 1,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    focus(all[(next + all.length) % all.length]);
  });
  group.addEventListener("focusin", (event) => {
    if (!items().includes(event.target)) return;
    for (const other of items()) other.tabIndex = other === event.target ? 0 : -1;
    current = event.target.dataset.key ?? null;
  });

  return { sync };
}
