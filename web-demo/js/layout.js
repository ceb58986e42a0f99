// The layout: on a wide screen the page and the Page AI panels sit side by side (the sidebar is sticky, so
// the command box stays in reach beside a long page); on a narrow one (a phone) one section shows at a
// time and a tab bar at the bottom switches between them, so the command box is one tap away instead of
// below the whole document. CSS does the hiding (body[data-tab]); this module keeps the tabs' state and
// lets a panel bring another one into view ("turn the tool back on in Tools").

const WIDE = "(min-width: 900px)";

/**
 * @param {HTMLElement} body the document's body: `data-tab` names the section shown on a phone
 * @param {HTMLElement} tabbar the `<nav>` with one `button[data-tab]` per section
 */
export function createLayout(body, tabbar) {
  const wide = matchMedia(WIDE);
  const tabs = [...tabbar.querySelectorAll("button[data-tab]")];

  function show(tab) {
    body.dataset.tab = tab;
    for (const button of tabs) {
      if (button.dataset.tab === tab) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
  }

  for (const button of tabs) {
    button.addEventListener("click", () => {
      show(button.dataset.tab);
      window.scrollTo({ top: 0 });
    });
  }
  show(body.dataset.tab || "page");

  return {
    /** Whether the page and the panels are side by side (so scrolling the page moves no panel). */
    isWide: () => wide.matches,

    /**
     * Brings a section into view: its tab on a phone, a scroll on a wide screen. `focus` (a selector inside
     * the section) is focused after.
     */
    reveal(tab, { focus } = {}) {
      const section = document.querySelector(`[data-tab-panel="${tab}"]`);
      if (!section) return;
      if (wide.matches) {
        section.scrollIntoView({ block: "nearest", behavior: "smooth" });
      } else {
        show(tab);
        window.scrollTo({ top: 0 });
      }
      const target = focus ? section.querySelector(focus) : null;
      target?.focus({ preventScroll: !wide.matches });
      target?.closest("[data-tool]")?.classList.add("is-called-out");
    },

    /** A count on a tab (open reviews); 0 hides it. */
    setBadge(tab, n) {
      const button = tabs.find((b) => b.dataset.tab === tab);
      const badge = button?.querySelector(".tab-badge");
      if (!badge) return;
      badge.hidden = !n;
      badge.textContent = n ? String(n) : "";
    },
  };
}
