// What a batch of block operations does, in people's words: a short label ("Move", "Check", "Replace all")
// and a sentence ("Moves p_draft after p_updated."). Presentation only: the operations are core's (a route's
// recommended call, a dry-run's `operations`, a review session's proposal); nothing here decides whether
// they may run. The router names todo checks and moves `direct_type_change`; the label says what the
// operation actually does.

import { listWords, quoted } from "./labels.js";

const TYPES = {
  heading: "a heading",
  paragraph: "a paragraph",
  bulleted_list_item: "a bullet",
  numbered_list_item: "a numbered item",
  todo: "a to-do",
  quote: "a quote",
  code: "a code block",
  divider: "a divider",
  image: "an image",
  table: "a table",
};

const typeWords = (type) => TYPES[type] ?? `a ${String(type).replaceAll("_", " ")}`;

/** What one operation does: `{kind, label, sentence}`. */
export function describeOperation(op) {
  switch (op.op) {
    case "replace":
      return op.occurrence === "all"
        ? { kind: "replace_all", label: "Replace all", sentence: `Replaces every ${quoted(op.matchText)} with ${quoted(op.content)}${op.blockId ? ` in ${op.blockId}` : ""}` }
        : { kind: "replace", label: "Replace", sentence: `Replaces ${quoted(op.matchText)} with ${quoted(op.content)}${op.blockId ? ` in ${op.blockId}` : ""}` };
    case "delete":
      return { kind: "delete", label: "Delete", sentence: `Deletes ${op.blockId}` };
    case "insert_after":
      return { kind: "insert", label: "Insert", sentence: `Adds ${typeWords(op.block?.type)} after ${op.afterBlockId}` };
    case "insert_before":
      return { kind: "insert", label: "Insert", sentence: `Adds ${typeWords(op.block?.type)} before ${op.beforeBlockId}` };
    case "move":
      return { kind: "move", label: "Move", sentence: op.afterBlockId ? `Moves ${op.blockId} after ${op.afterBlockId}` : `Moves ${op.blockId} to the top` };
    case "update":
      return describeUpdate(op);
    default:
      return { kind: String(op.op), label: String(op.op).replaceAll("_", " "), sentence: `Changes ${op.blockId ?? "the page"}` };
  }
}

function describeUpdate(op) {
  if (op.type) return { kind: "type_change", label: "Change type", sentence: `Turns ${op.blockId} into ${typeWords(op.type)}` };
  if (typeof op.attrs?.checked === "boolean" && op.text === undefined) {
    return op.attrs.checked
      ? { kind: "check", label: "Check", sentence: `Checks off the to-do ${op.blockId}` }
      : { kind: "uncheck", label: "Uncheck", sentence: `Unchecks the to-do ${op.blockId}` };
  }
  if (op.text !== undefined) return { kind: "edit", label: "Edit", sentence: `Rewrites ${op.blockId}` };
  return { kind: "update", label: "Update", sentence: `Changes ${op.blockId}` };
}

/**
 * What a batch does: `{kind, label, sentence}`, one label per kind of operation in it ("Replace", or
 * "Delete + Insert"), the sentences joined. `fallback` labels an empty batch.
 */
export function describeOperations(operations = [], fallback = "Change") {
  const each = operations.map(describeOperation);
  if (!each.length) return { kind: "none", label: fallback, sentence: "" };
  const labels = [...new Set(each.map((d) => d.label))];
  const sentences = [...new Set(each.map((d) => d.sentence))];
  const shown = sentences.length > 3 ? [...sentences.slice(0, 3), `${sentences.length - 3} more changes`] : sentences;
  const joined = listWords(shown.map((s, i) => (i ? s.charAt(0).toLowerCase() + s.slice(1) : s)));
  return { kind: labels.length === 1 ? each[0].kind : "mixed", label: labels.join(" + "), sentence: `${joined}.` };
}
