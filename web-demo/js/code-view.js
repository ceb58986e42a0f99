// Read-only code views of a context: page XML and JSON with light syntax colouring, built from text nodes
// (never innerHTML), so whatever the page contains is displayed, not interpreted.

import { h } from "./dom.js";

const TAG = /<(\/?)([\w-]+)((?:\s+[\w-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
const ATTR = /\s+([\w-]+)="([^"]*)"/g;

/** The page XML, one block per line (the text itself is shown exactly as it is in the view). */
export function xmlView(xml) {
  const out = [];
  for (const m of xml.matchAll(TAG)) {
    const [, close, name, attrs, selfClose, text] = m;
    if (text !== undefined) {
      out.push(h("span", { class: "tok-text" }, text));
      continue;
    }
    if (name === "block" && !close) out.push("\n  ");
    if (name === "page" && close) out.push("\n");
    out.push(h("span", { class: "tok-punct" }, close ? "</" : "<"), h("span", { class: "tok-tag" }, name));
    for (const a of (attrs ?? "").matchAll(ATTR)) {
      out.push(" ", h("span", { class: "tok-attr" }, a[1]), h("span", { class: "tok-punct" }, "="));
      out.push(h("span", { class: "tok-string" }, `"${a[2]}"`));
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
