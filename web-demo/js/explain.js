// Why a command goes to Hermes instead of running as a shortcut, in people's words. The reasons are the
// router's (`reasonCode`, `toolHint.matchText`, `toolHint.candidateBlockIds`); for text that is missing or
// repeated, the facts behind them (how many matches and where, the nearest text) come from the executor:
// a dry-run of a replace of that text answers `mnote_match_not_found` with `details.didYouMean` or
// `mnote_match_ambiguous` with `details.count` and `details.matches`. Nothing here decides a route.

import { listWords, quoted } from "./labels.js";

const CJK = /[\u3400-\u9fff]/u;

/**
 * The explanation of a Hermes route: `{code, headline, detail, hint, tryPrompt, replaceWith, highlight,
 * tool}`. `tryPrompt` is a whole prompt a person can run instead; `replaceWith` is `{from, to}`, the nearest
 * text for a missing one; `highlight` is `{blockIds, text}` to mark in the page; `tool` a switched-off tool.
 *
 * @param {object} route the router's answer
 * @param {{ prompt: string, selection: string[], facts: (matchText: string) => object | null }} input
 *   `facts` dry-runs a replace of the text and answers the executor's error details (or null)
 */
export function explainRoute(route, { prompt, selection, facts }) {
  const hint = route.toolHint ?? {};
  const text = hint.matchText ?? null;
  const blocks = hint.candidateBlockIds ?? [];
  const chinese = CJK.test(prompt);
  switch (route.reasonCode) {
    case "match_not_found":
      return missing(text, facts(text), blocks, selection);
    case "match_ambiguous":
      return repeated(route, text, facts(text), blocks, chinese);
    case "not_editable":
      return {
        code: route.reasonCode,
        headline: text ? `${quoted(text)} is only in locked blocks (${listWords(blocks)}).` : `${listWords(blocks)} is locked.`,
        hint: "Locked blocks cannot be changed. Hermes can still read them.",
        highlight: { blockIds: blocks, text },
      };
    case "out_of_selection":
      return {
        code: route.reasonCode,
        headline: text ? `${quoted(text)} is only outside your selection (in ${listWords(blocks)}).` : `${listWords(blocks)} is outside your selection.`,
        hint: "Select those blocks too, or clear the selection in the Context panel.",
        highlight: { blockIds: blocks, text },
      };
    case "target_not_found":
      // The router's sentence names the block and what it found ("t_markdown is already checked").
      return { code: route.reasonCode, headline: `The shortcut has nothing to act on: ${route.reason}.`, hint: "Say which block you mean, or send it to Hermes." };
    case "tool_disabled":
      return { code: route.reasonCode, headline: "The shortcut's write tool is turned off.", hint: "Turn Edit blocks back on in Tools to run shortcuts.", tool: "mnote.doc.apply_block_ops" };
    case "read_only_document":
      return { code: route.reasonCode, headline: "This page is read-only: nothing can be written.", hint: "Hermes can still answer questions about it." };
    case "question":
      return { code: route.reasonCode, headline: "A question about the page.", hint: "Hermes answers it; nothing is written." };
    case "complex":
      return { code: route.reasonCode, headline: "An open request: a model has to work it out.", hint: "Hermes reads the page and proposes changes; they wait for your review." };
    case "unsupported":
      return { code: route.reasonCode, headline: "The page AI cannot do this yet.", hint: "Hermes can try." };
    default:
      return { code: route.reasonCode ?? "other", headline: "Hermes handles this one.", hint: "" };
  }
}

function missing(text, details, blocks, selection) {
  const near = details?.didYouMean;
  const where = selection.length ? "in your selection" : "on this page";
  return {
    code: "match_not_found",
    headline: `${quoted(text ?? "")} is not ${where}.`,
    detail: near ? `Did you mean ${quoted(near.text)} (in ${near.blockId})?` : null,
    hint: near ? "Copy the text exactly as the page writes it, or let Hermes look for it." : "Check the spelling, or let Hermes look for it.",
    replaceWith: near ? { from: text, to: near.text } : null,
    highlight: near ? { blockIds: [near.blockId], text: near.text } : { blockIds: blocks, text: null },
  };
}

function repeated(route, text, details, blocks, chinese) {
  const times = details?.count ?? blocks.length;
  const ids = [...new Set((details?.matches ?? []).map((m) => m.blockId))];
  const where = ids.length ? ids : blocks;
  const deleting = route.intent === "direct_delete";
  // The router reads "all" in both languages (把所有… / replace all …, 删除所有… / delete all …).
  const all = deleting
    ? chinese ? `删除所有${quoted(text)}` : `delete all "${text}"`
    : chinese ? `把所有${quoted(text)}改成「…」` : `replace all "${text}" with "…"`;
  return {
    code: "match_ambiguous",
    headline: `${quoted(text)} appears ${times} times on this page (in ${listWords(where)}); the matches are highlighted in the page.`,
    hint: deleting ? "To remove every one, say" : "To change every one, say",
    say: all,
    after: "To change just one, quote more of the text around it.",
    tryPrompt: deleting ? all : null,
    highlight: { blockIds: where, text },
  };
}
