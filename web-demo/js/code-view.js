// Read-only code views of a context: page XML and JSON with light syntax colouring, built from text nodes
// (never innerHTML), so whatever the page contains is displayed, not interpreted. Copy copies the view as
// the package produced it.

import { h } from "./dom.js";

const TAG = /<(\/?)([\w-]+)((?:\s+[\w-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
const ATTR = /\s+([\w-]+)="([^"]*)"/g;
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d+)|#x([0-9a-f]+));/gi;
const NAMED = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** The characters an XML escape stands for. */
const unescape = (text) =>
  text.replace(ENTITY, (all, name, dec, hex) => {
    if (name) return NAMED[name.toLowerCase()];
    const code = Number.parseInt(dec ?? hex, dec ? 10 : 16);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });

// Shown escaped once, and only where XML needs it: `&` and `<` in text, and also `"` in attribute values.
// Core's view escapes more (quotes in text too); it is the same XML, but `&quot;` in a sentence reads badly.
const textForm = (text) => unescape(text).replaceAll("&", "&amp;").replaceAll("<", "&lt;");
const attrForm = (value) => textForm(value).replaceAll('"', "&quot;");

/** The page XML, one block per line, each escape written once and only where XML needs it. */
export function xmlView(xml) {
  const out = [];
  for (const m of xml.matchAll(TAG)) {
    const [, close, name, attrs, selfClose, text] = m;
    if (text !== undefined) {
      out.push(h("span", { class: "tok-text" }, textForm(text)));
      continue;
    }
    if (name === "block" && !close) out.push("\n  ");
    if (name === "page" && close) out.push("\n");
    out.push(h("span", { class: "tok-punct" }, close ? "</" : "<"), h("span", { class: "tok-tag" }, name));
    for (const a of (attrs ?? "").matchAll(ATTR)) {
      out.push(" ", h("span", { class: "tok-attr" }, a[1]), h("span", { class: "tok-punct" }, "="));
      out.push(h("span", { class: "tok-string" }, `"${attrForm(a[2])}"`));
    }
    out.push(h("span", { class: "tok-punct" }, selfClose ? "/>" : ">"));
  }
  return out;
}

const JSON_TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([{}[\],])|(\s+)/g;

/** A value as indented JSON. */
export function jsonView(value) {
  const text = JSON.stringify(value, null, 2);
  const out = [];
  for (const m of text.matchAll(JSON_TOKEN)) {
    const [all, string, colon, literal, number, punct] = m;
    if (string !== undefined) {
      out.push(h("span", { class: colon ? "tok-key" : "tok-string" }, string));
      if (colon) out.push(h("span", { class: "tok-punct" }, colon));
    } else if (literal !== undefined) {
      out.push(h("span", { class: "tok-literal" }, literal));
    } else if (number !== undefined) {
      out.push(h("span", { class: "tok-number" }, number));
    } else if (punct !== undefined) {
      out.push(h("span", { class: "tok-punct" }, punct));
    } else {
      out.push(all);
    }
  }
  return out;
}
