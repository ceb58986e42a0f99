// Building DOM nodes without innerHTML: every piece of page text reaches the document as a text node, so
// hostile block text can never become markup.

/**
 * Creates an element. `props` sets attributes (`class`, `data-*`, `aria-*`, …), properties for `on*`
 * handlers and booleans; `children` are nodes, strings, numbers, or nested arrays of those (null skipped).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

/** Appends nodes, strings and (nested) arrays of them to `parent`. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces everything inside `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** Formats a count for people: 12,345. */
// Not `Intl.NumberFormat`: the page's first one loads the locale's number data, ~20–50 ms of the main
// thread while the page opens (a CPU profile of a 10,000-block page put it beside the page's drawing).
export const count = (n) => String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
