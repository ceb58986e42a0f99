// Inline Markdown (the `text` of a block) rendered as DOM nodes: code spans, strong, emphasis,
// strikethrough and links. Only what a block page needs; anything unrecognized stays literal text.

import { h } from "./dom.js";

// Earliest match wins; at the same index, the order below decides (code before emphasis).
const RULES = [
  { re: /`([^`]+)`/, make: (m) => h("code", { class: "inline-code" }, m[1]) },
  { re: /\*\*(.+?)\*\*/, make: (m) => h("strong", {}, inline(m[1])) },
  { re: /~~(.+?)~~/, make: (m) => h("s", {}, inline(m[1])) },
  { re: /\[([^\]]+)\]\(([^)\s]+)\)/, make: (m) => link(m[1], m[2]) },
  { re: /(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])/, make: (m) => h("em", {}, inline(m[1])) },
  { re: /(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)/, make: (m) => h("em", {}, inline(m[1])) },
];

/** The nodes of one line or paragraph of inline Markdown. */
export function inline(text) {
  const out = [];
  let rest = text;
  while (rest.length > 0) {
    let best = null;
    for (const rule of RULES) {
      const m = rule.re.exec(rest);
      if (m && (best === null || m.index < best.m.index)) best = { m, rule };
    }
    if (best === null) {
      out.push(rest);
      break;
    }
    if (best.m.index > 0) out.push(rest.slice(0, best.m.index));
    out.push(best.rule.make(best.m));
    rest = rest.slice(best.m.index + best.m[0].length);
  }
  return out;
}

/** Multi-line text (quotes, table-free paragraphs): lines joined with <br>. */
export function lines(text) {
  return text.split("\n").flatMap((line, i) => (i === 0 ? inline(line) : [h("br"), ...inline(line)]));
}

function link(label, href) {
  if (!isWebLink(href)) return `[${label}](${href})`;
  return h("a", { href, target: "_blank", rel: "noopener noreferrer" }, inline(label));
}

/**
 * Whether `href` may become an anchor: an absolute `http(s)://host…` link, a path on this site (`/…`) or a
 * fragment (`#…`). Everything else stays text: `javascript:`, `data:` and other schemes in any case, and
 * what a browser would read as another host: `//evil.example` and `/\evil.example` (browsers treat `\` as
 * `/`). White space and control characters anywhere are refused too, because URL parsing drops or strips
 * them (` javascript:` is a `javascript:` link).
 */
export function isWebLink(href) {
  if (typeof href !== "string" || /[\u0000-\u0020\u007f-\u009f\\]/.test(href)) return false;
  return /^https?:\/\/[^/?#]/i.test(href) || /^\/(?!\/)/.test(href) || href.startsWith("#");
}
