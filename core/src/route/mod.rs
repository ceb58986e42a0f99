//! The command router: `mnote.page_ai_command_route.v1`.
//!
//! A deterministic parser, not a model. It turns low-ambiguity edit commands, in Chinese (Simplified or
//! Traditional) or English (`把「A」替换为「B」`, `replace "A" with "B"`, `"A" -> "B"`, `s/A/B/`, `删除第二段`,
//! `make the selected blocks a bulleted list`, `勾选第二个待办`, `move the code block to the end`), into a
//! recommended `mnote.doc.apply_block_ops` call, and sends everything else to Hermes with a reason and a hint
//! of where to start reading. A question or a summary for the reader is read-only: its route carries the
//! lowest risk and never asks for review.
//!
//! The worst failure is a wrong direct write, so the router only recommends what it has dry-run itself
//! through [`crate::executor::preview`] on the very page it routed against: a missing, ambiguous,
//! out-of-scope or locked target, a disabled tool or a read-only page all send the prompt to Hermes instead.
//!
//! ## The command language is data
//!
//! Every word of a direct command is in a table of [`language`]: the verbs of each intent in both languages,
//! the words between the slots (`with`, `instead of`, 替换为, 用 … 替换), the block types, the places, and the
//! wrappers that carry no meaning (please, 请帮我, for me, thanks, 谢谢). The grammar only says in which order
//! the slots come. Adding a synonym is one line: to read `把「A」调换成「B」` as a replace, add `"调换成",` to
//! [`language::zh::REPLACE`]; to read `expunge the third paragraph` as a delete, add `"expunge",` to
//! [`language::en::DELETE`]. The generated corpus split reads the same tables, so the new word is measured
//! in every form (wrappers, quote styles, block references) at the next `make test`.
//!
//! ## Confidence
//!
//! `confidence` says how sure the router is of its reading of the prompt, not of the model's future work:
//!
//! | value | meaning |
//! |---|---|
//! | 0.95 | direct: quoted literal text, an explicit edit verb, and a clean self dry-run |
//! | 0.90 | direct: a block named by position or selection (第二段, the selected blocks), dry-run clean |
//! | 0.85 | direct: an unquoted single-token literal or amount (`将 Rust 替换成 Go`, `change 3.5% to 4%`) that occurs exactly once, standing alone |
//! | 0.80 | direct: a quoted literal found only ignoring case and surrounding spaces, once on the page; at least medium risk, always reviewed |
//! | 0.70 | understood as an edit, but it cannot run directly (target missing, ambiguous, locked, out of the selection, tool disabled); Hermes gets the reason |
//! | 0.60 | recognized by keywords as a question, an open rewrite, or unsupported |
//! | 0.40 | no pattern matched; Hermes decides |

mod classify;
mod direct;
mod grammar;
mod hant;
mod hermes;
pub mod language;
mod literal;
mod plan;
mod prompt;
mod target;

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::executor::{FrozenContext, ToolArgs};
use crate::normalize::fold;
use crate::page::Page;
use crate::vocab::Profile;
pub use crate::vocab::{Intent, ReasonCode};
pub use crate::wire::{PAGE_AI_COMMAND_ROUTE_V1, RecommendedCallV1, RouteV1, ToolHintV1};
use classify::Class;
use direct::direct;
pub use direct::shortcut_review_mode;
use grammar::Command;
use hermes::hermes;

/// Prompts longer than this are not commands; they go to Hermes without parsing.
const MAX_COMMAND_CHARS: usize = 2_000;

/// What the router needs besides the prompt.
#[derive(Debug, Clone, Copy)]
pub struct RouteInput<'a> {
    /// The page, at the context's revision.
    pub page: &'a Page,
    /// The frozen context the recommendation binds to.
    pub context: &'a FrozenContext,
    /// The user's selection, in any order (empty when nothing is selected).
    pub selection: &'a [String],
    /// Disabled tools and review mode.
    pub profile: &'a Profile,
    /// Granted capability scopes; `None` grants all.
    pub grants: Option<&'a [String]>,
    /// The key to put in the recommended call; minted by the caller.
    pub idempotency_key: &'a str,
}

/// A route, and the typed write its recommendation carries: the very arguments the router dry-ran, with
/// the plan of that dry-run, for the caller that carries the recommendation out (the Worker's command
/// route) without parsing the wire JSON back or planning the write again. The write travels beside the
/// wire route, never on it.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed {
    /// The route as it goes on the wire.
    pub wire: RouteV1,
    /// The recommended `mnote.doc.apply_block_ops` write, typed (`dryRun:true`, as recommended) and
    /// planned: run on the page it was routed against, the executor answers it from the router's own
    /// dry-run. `None` when the route recommends none.
    pub write: Option<ToolArgs>,
}

/// Routes `prompt`. Never panics and never calls a model; any string is a valid prompt.
pub fn route(prompt: &str, input: &RouteInput<'_>) -> RouteV1 {
    routing::<false>(prompt, input, &mut Kept { write: None, mint: None })
}

/// [`route`], with the recommended write kept typed and planned ([`Routed::write`]). `mint` gives the
/// ids of the blocks the write inserts, as the write itself will: the router's dry-run is the write's plan.
pub fn routed(prompt: &str, input: &RouteInput<'_>, mint: &mut dyn FnMut() -> String) -> Routed {
    let mut kept = Kept { write: None, mint: Some(mint) };
    let wire = routing::<true>(prompt, input, &mut kept);
    Routed { wire, write: kept.write }
}

/// What [`routed`] keeps of a direct route: its write, planned with the caller's minter.
struct Kept<'m> {
    write: Option<ToolArgs>,
    /// Mints the inserted blocks' ids; `None` (the browser's [`route`]): placeholders, never written.
    mint: Option<&'m mut dyn FnMut() -> String>,
}

/// The route; with `KEEP`, the recommended write is left typed and planned in `kept`. A constant, so the
/// browser package's [`route`] carries no code for the copy it never makes.
fn routing<const KEEP: bool>(prompt: &str, input: &RouteInput<'_>, write: &mut Kept<'_>) -> RouteV1 {
    if prompt.trim().is_empty() {
        return hermes(
            input,
            Intent::Unsupported,
            ReasonCode::Unsupported,
            0.4,
            "the prompt is empty".into(),
            None,
            &[],
        );
    }
    if prompt.chars().count() > MAX_COMMAND_CHARS {
        return hermes(
            input,
            Intent::ComplexRewrite,
            ReasonCode::Complex,
            0.6,
            "too long to be a single command".into(),
            None,
            &[],
        );
    }
    if let Some(command) = grammar::sed(prompt) {
        let find = match &command {
            Command::Replace { find, .. } => Some(find.clone()),
            _ => None,
        };
        return direct::<KEEP>(input, &[command], true, find, write);
    }
    let parsed = prompt::parse(prompt);
    let first_quote = parsed.quotes.first().cloned();
    match parse_commands(&parsed) {
        Some(commands) => direct::<KEEP>(input, &commands, true, first_quote, write),
        None => {
            if parsed.quotes.is_empty()
                && let Some(command) = unquoted(prompt)
            {
                return direct::<KEEP>(input, &[command], false, None, write);
            }
            not_a_command(input, &parsed)
        }
    }
}

/// A prompt no command pattern reads: a question, a summary, an open rewrite, something the page tools
/// cannot do, or an edit whose target needs a model.
fn not_a_command(input: &RouteInput<'_>, parsed: &prompt::Prompt) -> RouteV1 {
    let stripped = prompt::strip_courtesy(&parsed.skeleton);
    let asked = parsed.skeleton.trim_end().ends_with('?');
    let (intent, code, confidence, reason) = match classify::classify(stripped, asked) {
        Some(Class::Unsupported) => {
            (Intent::Unsupported, ReasonCode::Unsupported, 0.6, "the page AI cannot do this with page tools")
        }
        Some(Class::Complex) => {
            (Intent::ComplexRewrite, ReasonCode::Complex, 0.6, "an open request that needs a model")
        }
        Some(Class::Question) => {
            (Intent::ReadOnlyQuestion, ReasonCode::Question, 0.6, "a question about the page; nothing to write")
        }
        Some(Class::Summary) => {
            (Intent::ReadOnlyQuestion, ReasonCode::Question, 0.6, "a summary for the reader; nothing to write")
        }
        None => match classify::edit_intent(stripped) {
            Some(intent) => {
                (intent, ReasonCode::Complex, 0.5, "an edit whose target can't be pinned down without a model")
            }
            None => (Intent::ComplexRewrite, ReasonCode::Complex, 0.4, "no direct command pattern matched"),
        },
    };
    hermes(input, intent, code, confidence, reason.into(), parsed.quotes.first().cloned(), &[])
}

/// Splits the skeleton into clauses and parses each; `None` unless every clause is a direct command.
fn parse_commands(p: &prompt::Prompt) -> Option<Vec<Command>> {
    let whole = prompt::strip_courtesy(&p.skeleton);
    if let Some(command) = clause(whole, &p.quotes) {
        return Some(vec![command]);
    }
    let parts: Vec<&str> = whole.split([',', ';', '.']).map(str::trim).filter(|s| !s.is_empty()).collect();
    if parts.len() < 2 {
        return english_pairs(whole, &p.quotes);
    }
    let mut commands = Vec::new();
    let mut pending = String::new();
    for part in parts {
        let part = strip_joiner(part);
        let candidate = if pending.is_empty() { String::from(part) } else { format!("{pending},{part}") };
        match clause(prompt::strip_courtesy(&candidate), &p.quotes)
            .or_else(|| english_pairs(&candidate, &p.quotes).and_then(single))
        {
            Some(command) => {
                commands.push(command);
                pending.clear();
            }
            None => match english_pairs(prompt::strip_courtesy(&candidate), &p.quotes) {
                Some(more) => {
                    commands.extend(more);
                    pending.clear();
                }
                None => pending = candidate,
            },
        }
    }
    (pending.is_empty() && !commands.is_empty()).then_some(commands)
}

fn single(mut v: Vec<Command>) -> Option<Command> {
    (v.len() == 1).then(|| v.pop()).flatten()
}

/// Words that join commands: `再`, `然后`, `and then`, `also`.
fn strip_joiner(s: &str) -> &str {
    let mut s = s.trim();
    for j in language::JOINERS {
        if let Some(rest) = s.strip_prefix(j) {
            s = rest.trim();
        }
    }
    prompt::strip_courtesy(s)
}

/// `replace "A" with "B" and "C" with "D"`: one verb, several pairs.
fn english_pairs(s: &str, quotes: &[String]) -> Option<Vec<Command>> {
    let (head, tail) = s.split_once(" and ")?;
    let command = clause(head, quotes)?;
    let Command::Replace { .. } = command else {
        return None;
    };
    let verb = head.split(' ').next()?;
    let mut commands = vec![command];
    for pair in tail.split(" and ") {
        commands.push(clause(&format!("{verb} {}", pair.trim()), quotes)?);
    }
    Some(commands)
}

fn clause(s: &str, quotes: &[String]) -> Option<Command> {
    let s = s.trim();
    if s.is_empty() {
        return None;
    }
    let cjk = s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    if cjk {
        grammar::zh(s, quotes).or_else(|| grammar::en(s, quotes, false))
    } else {
        grammar::en(s, quotes, false).or_else(|| grammar::zh(s, quotes))
    }
}

/// The unquoted forms, read from the raw prompt so the literal keeps its case and width.
fn unquoted(raw: &str) -> Option<Command> {
    let folded = hant::simplify(&fold(raw));
    let stripped = prompt::strip_courtesy(&folded);
    // `fold` keeps char counts, so the stripped range maps back onto the raw prompt char for char.
    let start = folded.get(..folded.find(stripped)?)?.chars().count();
    let len = stripped.chars().count();
    let original: String = raw.chars().skip(start).take(len).collect();
    if stripped.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
        return grammar::zh_unquoted(&original, &hant::simplify(&original));
    }
    let command = grammar::en(stripped, &[], true)?;
    // Re-read the two tokens from the raw text, so `Colour` stays `Colour`.
    let Command::Replace { find, with, all, within, .. } = command else {
        return None;
    };
    let token = |folded_token: &str| {
        let at = stripped.find(folded_token)?;
        let start = stripped.get(..at)?.chars().count();
        Some(original.chars().skip(start).take(folded_token.chars().count()).collect::<String>())
    };
    let find = token(&find)?;
    let with = stripped.rfind(with.as_str()).and_then(|at| {
        let start = stripped.get(..at)?.chars().count();
        Some(original.chars().skip(start).take(with.chars().count()).collect::<String>())
    })?;
    Some(Command::Replace { find, with, all, within, quoted: false })
}

#[cfg(test)]
mod tests;
