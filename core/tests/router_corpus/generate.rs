//! The generated split: paraphrases per intent, built from the command language's own tables
//! (`pageai_core::route::language`) crossed with real texts from the fixture pages, every quote style, the
//! wrappers, both orders of a replace's texts, and block references by position, kind plus text, and the
//! selection. Deterministic: one seeded generator, the same lines on every run.
//!
//! Every verb of every table appears at least once per form it takes; the other slots (page, text, quote
//! style, wrapper, reference) are drawn at random. Each line is labelled from the page itself: the block the
//! text is in, and what it reads afterwards. Refusals are generated too (negation, questions, conditions,
//! several steps with a rewrite, a text in two blocks, a text that spans blocks, a text only in a locked
//! block), so the split measures precision as well as recall.

use std::collections::BTreeMap;

use pageai_core::page::{Block, BlockType, Page};
use pageai_core::route::language::{self, en, zh};
use serde_json::{Value, json};

// The to-do checks and the refusals, in files of their own.
#[path = "checks.rs"]
mod checks;
#[path = "refusals.rs"]
mod refusals;

/// The seed of the one random generator; changing it draws other texts, not other forms.
const SEED: u64 = 0x2027_0027;

/// splitmix64: small, seeded, the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A text of a page that a command can name: it occurs exactly once on the whole page.
#[derive(Clone)]
struct Text {
    page: String,
    block: String,
    literal: String,
    after_delete: String,
    block_text: String,
}

/// The texts of a page, by script: Latin words of 4+ letters and runs of 2 to 4 CJK chars, each occurring
/// once on the page (locked blocks included) and never the block's whole text.
fn texts(name: &str, page: &Page, cjk: bool) -> Vec<Text> {
    let count = |s: &str| page.blocks.iter().map(|b| b.text.matches(s).count()).sum::<usize>();
    let mut out = Vec::new();
    for b in page.blocks.iter().filter(|b| b.editable && text_kind(b)) {
        let chars: Vec<char> = b.text.chars().collect();
        let mut candidates: Vec<String> = Vec::new();
        if cjk {
            for len in [2, 3, 4] {
                for w in chars.windows(len).step_by(3) {
                    if w.iter().all(|c| ('\u{4e00}'..='\u{9fff}').contains(c)) {
                        candidates.push(w.iter().collect());
                    }
                }
            }
        } else {
            for word in b.text.split(|c: char| !c.is_ascii_alphabetic()) {
                if word.len() >= 4 {
                    candidates.push(word.to_string());
                }
            }
        }
        for literal in candidates {
            if count(&literal) == 1 && b.text.trim() != literal {
                let after_delete = b.text.replacen(&literal, "", 1);
                out.push(Text {
                    page: name.into(),
                    block: b.block_id.clone(),
                    literal,
                    after_delete,
                    block_text: b.text.clone(),
                });
            }
        }
    }
    out
}

fn text_kind(b: &Block) -> bool {
    matches!(
        b.kind,
        BlockType::Paragraph
            | BlockType::Heading
            | BlockType::BulletedListItem
            | BlockType::NumberedListItem
            | BlockType::Todo
            | BlockType::Quote
    )
}

const NEW_EN: &[&str] = &["Beta", "the new plan", "v3", "Thursday", "approved"];
const NEW_ZH: &[&str] = &["第二版", "新方案", "周四", "已确认"];
const INSERT_EN: &[&str] = &["Follow up next week", "Owner: Sam", "See the appendix"];
const INSERT_ZH: &[&str] = &["下周继续跟进", "负责人：小李", "详见附录"];

/// What a generated prompt must do.
enum Expect {
    Direct { intent: &'static str, changes: Vec<Value>, risk: &'static str },
    Hermes { intent: &'static str, reason: &'static str },
}

struct Generator {
    rng: Rng,
    pages: BTreeMap<String, Page>,
    en_texts: Vec<Text>,
    zh_texts: Vec<Text>,
    lines: Vec<Value>,
}

impl Generator {
    fn quote(&mut self, s: &str) -> String {
        let (open, close) = *self.rng.pick(language::QUOTE_PAIRS);
        format!("{open}{s}{close}")
    }

    /// A prompt with wrappers drawn from the tables (some forms only: `would you mind` wants a gerund).
    fn wrap(&mut self, core: &str, cjk: bool) -> String {
        let prefixes: Vec<&str> = language::WRAPPER_PREFIXES
            .iter()
            .copied()
            .filter(|p| p.is_ascii() != cjk && !p.contains("mind") && !p.ends_with(':'))
            .collect();
        let suffixes: Vec<&str> = language::WRAPPER_SUFFIXES
            .iter()
            .copied()
            .filter(|s| !matches!(*s, "?" | "吗" | "," | ";" | "~" | ":)" | "一下" | "..." | "…"))
            .filter(|s| s.is_ascii() != cjk || s.len() == 1)
            .collect();
        let prefix = if self.rng.below(3) == 0 { "" } else { *self.rng.pick(&prefixes) };
        let suffix = if self.rng.below(3) == 0 { "" } else { *self.rng.pick(&suffixes) };
        // Full-width closing punctuation, and a capital letter, now and then.
        let suffix = match (suffix, cjk, self.rng.below(2)) {
            ("!", true, 0) => "！",
            (".", true, 0) => "。",
            (s, _, _) => s,
        };
        let mut prompt = format!("{prefix}{core}{suffix}");
        if !cjk && self.rng.below(2) == 0 {
            let mut chars = prompt.chars();
            if let Some(first) = chars.next() {
                prompt = first.to_uppercase().chain(chars).collect();
            }
        }
        prompt
    }

    fn push(&mut self, family: &str, page: &str, selection: &[String], prompt: String, expect: Expect) {
        let id = format!("gen-{family}-{:04}", self.lines.len() + 1);
        let lang = if prompt.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) { "zh" } else { "en" };
        let expect = match expect {
            Expect::Direct { intent, changes, risk } => {
                json!({"intent": intent, "route": "direct", "changes": changes, "risk": risk, "requiresReview": false})
            }
            Expect::Hermes { intent, reason } => json!({"intent": intent, "route": "hermes", "reason": reason}),
        };
        self.lines.push(json!({
            "id": id, "lang": lang, "page": page, "selection": selection, "permission": "edit",
            "profile": {"reviewMode": "yolo", "disabled": []}, "prompt": prompt, "expect": expect,
        }));
    }

    fn text(&mut self, cjk: bool) -> Text {
        let pool = if cjk { &self.zh_texts } else { &self.en_texts };
        pool[self.rng.below(pool.len())].clone()
    }

    /// The paragraph ordinal of a block, in words of either language (`None` unless it is a paragraph).
    fn ordinal(&mut self, page: &str, block: &str, cjk: bool) -> Option<String> {
        let p = &self.pages[page];
        let paragraphs: Vec<&Block> = p.blocks.iter().filter(|b| b.kind == BlockType::Paragraph).collect();
        let n = paragraphs.iter().position(|b| b.block_id == block)? + 1;
        let last = n == paragraphs.len();
        const EN: &[&str] =
            &["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
        const ZH: &[&str] = &["一", "二", "三", "四", "五", "六", "七", "八", "九", "十"];
        let form = self.rng.below(3);
        Some(match (cjk, form) {
            (true, 0) if last => "最后一段".to_string(),
            (true, 1) => format!("第 {n} 段"),
            (true, _) => format!("第{}段", ZH.get(n - 1)?),
            (false, 0) if last => "the last paragraph".to_string(),
            (false, 1) => format!("paragraph {n}"),
            (false, _) => format!("the {} paragraph", EN.get(n - 1)?),
        })
    }

    fn replace_change(t: &Text, new: &str) -> Vec<Value> {
        vec![json!({"blockId": t.block, "after": t.block_text.replacen(&t.literal, new, 1)})]
    }

    fn replaces(&mut self) {
        // English, the old text first: every verb, each with the separator it takes.
        for verb in en::REPLACE {
            for _ in 0..3 {
                let cjk_text = self.rng.below(4) == 0;
                let t = self.text(cjk_text);
                let new = *self.rng.pick(if cjk_text { NEW_ZH } else { NEW_EN });
                let (a, b) = (self.quote(&t.literal), self.quote(new));
                let core = match *verb {
                    "replace" => format!("replace {a} with {b}"),
                    "swap" => format!("swap {a} for {b}"),
                    "substitute" => format!("substitute {b} for {a}"),
                    "turn" => format!("turn {a} into {b}"),
                    "change" if self.rng.below(2) == 0 => format!("change {a} to {b}"),
                    "change" => format!("change it from {a} to {b}"),
                    v => format!("{v} {a} to {b}"),
                };
                // Now and then the block is named too: `… in the second paragraph`.
                let core = match self.ordinal(&t.page, &t.block, false) {
                    Some(o) if self.rng.below(3) == 0 => format!("{core} in {o}"),
                    _ => core,
                };
                let prompt = self.wrap(&core, false);
                let changes = Self::replace_change(&t, new);
                self.push(
                    "en-replace",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_replace", changes, risk: "low" },
                );
            }
        }
        // English, the new text first.
        for connector in en::NEW_FIRST_CONNECTORS {
            for verb in en::NEW_FIRST_VERBS.iter().chain([&""]) {
                let t = self.text(false);
                let new = *self.rng.pick(NEW_EN);
                let (a, b) = (self.quote(&t.literal), self.quote(new));
                let core = if verb.is_empty() {
                    format!("{b} {connector} {a}")
                } else {
                    format!("{verb} {b} {connector} {a}")
                };
                let prompt = self.wrap(&core, false);
                let changes = Self::replace_change(&t, new);
                self.push(
                    "en-replace-new-first",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_replace", changes, risk: "low" },
                );
            }
        }
        // Chinese, the old text first: every verb, with 把 or 将, scoped to the block now and then.
        for verb in zh::REPLACE {
            for _ in 0..3 {
                let cjk_text = self.rng.below(4) != 0;
                let t = self.text(cjk_text);
                let new = *self.rng.pick(if cjk_text { NEW_ZH } else { NEW_EN });
                let (a, b) = (self.quote(&t.literal), self.quote(new));
                let opener = *self.rng.pick(&["把", "将", ""]);
                let core = match self.ordinal(&t.page, &t.block, true) {
                    Some(o) if self.rng.below(3) == 0 => format!("{o}里{opener}{a}{verb}{b}"),
                    _ => format!("{opener}{a}{verb}{b}"),
                };
                let prompt = self.wrap(&core, true);
                let changes = Self::replace_change(&t, new);
                self.push(
                    "zh-replace",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_replace", changes, risk: "low" },
                );
            }
        }
        // Chinese, the new text first.
        for opener in zh::NEW_FIRST_OPENERS {
            for verb in zh::NEW_FIRST_VERBS {
                let t = self.text(true);
                let new = *self.rng.pick(NEW_ZH);
                let (a, b) = (self.quote(&t.literal), self.quote(new));
                let prompt = self.wrap(&format!("{opener}{b}{verb}{a}"), true);
                let changes = Self::replace_change(&t, new);
                self.push(
                    "zh-replace-new-first",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_replace", changes, risk: "low" },
                );
            }
        }
    }

    fn deletes(&mut self) {
        for verb in en::DELETE {
            for _ in 0..3 {
                let cjk_text = self.rng.below(4) == 0;
                let t = self.text(cjk_text);
                let a = self.quote(&t.literal);
                let prompt = self.wrap(&format!("{verb} {a}"), false);
                let changes = vec![json!({"blockId": t.block, "after": t.after_delete})];
                self.push(
                    "en-delete-text",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_delete", changes, risk: "low" },
                );
            }
            // A block by position, and a block by its kind plus its whole text.
            let t = self.text(false);
            if let Some(o) = self.ordinal(&t.page, &t.block, false) {
                let prompt = self.wrap(&format!("{verb} {o}"), false);
                let changes = vec![json!({"blockId": t.block, "after": null})];
                self.push(
                    "en-delete-block",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_delete", changes, risk: "medium" },
                );
            }
            if let Some((page, block, noun)) = self.whole_block(false) {
                let q = self.quote(&self.pages[&page].block(&block).map(|b| b.text.clone()).unwrap_or_default());
                let core = if self.rng.below(2) == 0 {
                    format!("{verb} the {noun} {q}")
                } else {
                    format!("{verb} the {q} {noun}")
                };
                let prompt = self.wrap(&core, false);
                let changes = vec![json!({"blockId": block, "after": null})];
                self.push(
                    "en-delete-kind-text",
                    &page,
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_delete", changes, risk: "medium" },
                );
            }
        }
        let before: Vec<&str> = zh::DELETE_BEFORE.iter().copied().filter(|v| !v.is_ascii()).collect();
        let after: Vec<&str> =
            zh::DELETE_AFTER.iter().copied().filter(|v| !v.is_ascii() && !v.contains("delete")).collect();
        for (verb, verb_first) in before.iter().map(|v| (*v, true)).chain(after.iter().map(|v| (*v, false))) {
            for _ in 0..2 {
                let cjk_text = self.rng.below(4) != 0;
                let t = self.text(cjk_text);
                let a = self.quote(&t.literal);
                let core = if verb_first { format!("{verb}{a}") } else { format!("把{a}{verb}") };
                let prompt = self.wrap(&core, true);
                let changes = vec![json!({"blockId": t.block, "after": t.after_delete})];
                self.push(
                    "zh-delete-text",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_delete", changes, risk: "low" },
                );
            }
            let t = self.text(true);
            if let Some(o) = self.ordinal(&t.page, &t.block, true) {
                let core = if verb_first { format!("{verb}{o}") } else { format!("把{o}{verb}") };
                let prompt = self.wrap(&core, true);
                let changes = vec![json!({"blockId": t.block, "after": null})];
                self.push(
                    "zh-delete-block",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_delete", changes, risk: "medium" },
                );
            }
            if let Some((page, block, _)) = self.whole_block(true) {
                let q = self.quote(&self.pages[&page].block(&block).map(|b| b.text.clone()).unwrap_or_default());
                let noun = match self.pages[&page].block(&block).map(|b| b.kind) {
                    Some(BlockType::Todo) => "待办",
                    Some(BlockType::BulletedListItem) => "列表项",
                    _ => "段落",
                };
                let core = match (verb_first, self.rng.below(2)) {
                    (true, 0) => format!("{verb}{noun}{q}"),
                    (true, _) => format!("{verb}{q}那条"),
                    (false, _) => format!("把{q}这条{verb}"),
                };
                let prompt = self.wrap(&core, true);
                let changes = vec![json!({"blockId": block, "after": null})];
                self.push(
                    "zh-delete-kind-text",
                    &page,
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_delete", changes, risk: "medium" },
                );
            }
        }
    }

    /// A todo or bulleted item whose whole text is on the page once: its page, id and English noun.
    fn whole_block(&mut self, cjk: bool) -> Option<(String, String, &'static str)> {
        let mut found = Vec::new();
        for (name, p) in &self.pages {
            for b in p.blocks.iter().filter(|b| b.editable) {
                let noun = match b.kind {
                    BlockType::Todo => "todo",
                    BlockType::BulletedListItem => "bullet",
                    _ => continue,
                };
                let is_cjk = b.text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
                let once = p.blocks.iter().map(|o| o.text.matches(b.text.as_str()).count()).sum::<usize>() == 1;
                if is_cjk == cjk
                    && once
                    && !b.text.is_empty()
                    && !b.text.contains(['"', '\'', '`', '」', '』', '”', '’', '》', '»', '＂', '＇'])
                {
                    found.push((name.clone(), b.block_id.clone(), noun));
                }
            }
        }
        (!found.is_empty()).then(|| found.swap_remove(self.rng.below(found.len())))
    }

    fn inserts(&mut self) {
        let names: Vec<String> = self.pages.keys().cloned().collect();
        for verb in en::INSERT {
            for _ in 0..3 {
                let page = self.rng.pick(&names).clone();
                let new = *self.rng.pick(INSERT_EN);
                let q = self.quote(new);
                let last = self.pages[&page].blocks.last().map(|b| b.block_id.clone()).unwrap_or_default();
                let place =
                    *self.rng.pick(&["at the end", "to the end of the page", "at the bottom", "at the very end"]);
                let prompt = self.wrap(&format!("{verb} {q} {place}"), false);
                let changes = vec![json!({"afterBlockId": last, "after": new, "type": "paragraph"})];
                self.push(
                    "en-insert-end",
                    &page,
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_insert", changes, risk: "low" },
                );
            }
            let t = self.text(false);
            if let Some(o) = self.ordinal(&t.page, &t.block, false) {
                let new = *self.rng.pick(INSERT_EN);
                let q = self.quote(new);
                let kind = *self.rng.pick(&["", "a new paragraph ", "a line saying ", "a todo ", "a bullet "]);
                let typed = match kind {
                    "a todo " => "todo",
                    "a bullet " => "bulleted_list_item",
                    _ => "paragraph",
                };
                let prompt = self.wrap(&format!("{verb} {kind}{q} after {o}"), false);
                let changes = vec![json!({"afterBlockId": t.block, "after": new, "type": typed})];
                self.push(
                    "en-insert-after",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_insert", changes, risk: "low" },
                );
            }
        }
        for verb in zh::INSERT {
            for _ in 0..2 {
                let page = self.rng.pick(&names).clone();
                let new = *self.rng.pick(INSERT_ZH);
                let q = self.quote(new);
                let last = self.pages[&page].blocks.last().map(|b| b.block_id.clone()).unwrap_or_default();
                let place = *self.rng.pick(zh::PLACE_END);
                let measure = *self.rng.pick(&["", "一段", "一行", "一句话"]);
                let prompt = self.wrap(&format!("在{place}{verb}{measure}{q}"), true);
                let changes = vec![json!({"afterBlockId": last, "after": new, "type": "paragraph"})];
                self.push(
                    "zh-insert-end",
                    &page,
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_insert", changes, risk: "low" },
                );
            }
            let t = self.text(true);
            if let Some(o) = self.ordinal(&t.page, &t.block, true) {
                let new = *self.rng.pick(INSERT_ZH);
                let q = self.quote(new);
                let after = *self.rng.pick(zh::PLACE_AFTER);
                let (kind, typed) = *self.rng.pick(&[("", "paragraph"), ("一个待办", "todo"), ("一条引用", "quote")]);
                let prompt = self.wrap(&format!("在{o}{after}{verb}{kind}{q}"), true);
                let changes = vec![json!({"afterBlockId": t.block, "after": new, "type": typed})];
                self.push(
                    "zh-insert-after",
                    &t.page.clone(),
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_insert", changes, risk: "low" },
                );
            }
        }
    }

    /// The resulting `type` and `attrs` of a paragraph turned into `kind`.
    fn typed(kind: BlockType, level: Option<u8>) -> Value {
        let attrs = match kind {
            BlockType::Heading => Some(json!({"level": level.unwrap_or(2)})),
            BlockType::Todo => Some(json!({"checked": false, "depth": 0})),
            BlockType::BulletedListItem | BlockType::NumberedListItem => Some(json!({"depth": 0})),
            _ => None,
        };
        match attrs {
            Some(attrs) => json!({"type": kind.as_str(), "attrs": attrs}),
            None => json!({"type": kind.as_str()}),
        }
    }

    fn type_changes(&mut self) {
        let names: Vec<String> = self.pages.keys().cloned().collect();
        // Every English type name, each after a verb drawn from the table (with the particle it takes).
        for (name, kind, level) in en::BLOCK_TYPES.iter().filter(|(_, k, _)| *k != BlockType::Paragraph) {
            let plural = name.ends_with('s') && !name.ends_with("ss");
            let t = self.text(false);
            let Some(o) = self.ordinal(&t.page, &t.block, false) else { continue };
            let verb = *self.rng.pick(en::SET_TYPE);
            let article = if plural || name.starts_with("numbered") && name.ends_with('s') {
                ""
            } else if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an "
            } else {
                "a "
            };
            let core = match verb {
                "make" => format!("make {o} {article}{name}"),
                "turn" | "transform" => format!("{verb} {o} into {article}{name}"),
                "format" => format!("format {o} as {article}{name}"),
                v => format!("{v} {o} to {article}{name}"),
            };
            if plural {
                // A plural names several blocks: the selection (`make these quotes`).
                let Some((page, ids)) = self.two_paragraphs(&names) else { continue };
                let these =
                    *self.rng.pick(&["these", "the selected blocks", "the selected paragraphs", "this selection"]);
                let prompt = self.wrap(&format!("make {these} {name}"), false);
                self.type_selection("en-type-selection", &page, &ids, *kind, *level, prompt);
                continue;
            }
            let prompt = self.wrap(&core, false);
            let mut change = Self::typed(*kind, *level);
            change["blockId"] = json!(t.block);
            change["after"] = json!(t.block_text);
            self.push(
                "en-type",
                &t.page.clone(),
                &[],
                prompt,
                Expect::Direct { intent: "direct_type_change", changes: vec![change], risk: "low" },
            );
        }
        // Heading levels by number.
        for level in 1..=6u8 {
            let t = self.text(false);
            let Some(o) = self.ordinal(&t.page, &t.block, false) else { continue };
            let name = self
                .rng
                .pick(&["heading {}", "an h{}", "a level {} heading", "a heading level {}"])
                .replace("{}", &level.to_string());
            let prompt = self.wrap(&format!("make {o} {name}"), false);
            let mut change = Self::typed(BlockType::Heading, Some(level));
            change["blockId"] = json!(t.block);
            change["after"] = json!(t.block_text);
            self.push(
                "en-type-level",
                &t.page.clone(),
                &[],
                prompt,
                Expect::Direct { intent: "direct_type_change", changes: vec![change], risk: "low" },
            );
        }
        // Every Chinese type name, after a verb drawn from the table.
        for (name, kind, level) in zh::BLOCK_TYPES.iter().filter(|(_, k, _)| *k != BlockType::Paragraph) {
            let t = self.text(true);
            let Some(o) = self.ordinal(&t.page, &t.block, true) else { continue };
            let verb = *self.rng.pick(zh::SET_TYPE);
            if verb.is_ascii() || verb.starts_with("change") {
                continue;
            }
            let selected = self.rng.below(4) == 0;
            if selected {
                let Some((page, ids)) = self.two_paragraphs(&names) else { continue };
                let these = *self.rng.pick(&["选中的段落", "选中的", "这几段", "这两段"]);
                let prompt = self.wrap(&format!("把{these}{verb}{name}"), true);
                self.type_selection("zh-type-selection", &page, &ids, *kind, *level, prompt);
                continue;
            }
            let measure = *self.rng.pick(&["", "", "一个"]);
            let prompt = self.wrap(&format!("把{o}{verb}{measure}{name}"), true);
            let mut change = Self::typed(*kind, *level);
            change["blockId"] = json!(t.block);
            change["after"] = json!(t.block_text);
            self.push(
                "zh-type",
                &t.page.clone(),
                &[],
                prompt,
                Expect::Direct { intent: "direct_type_change", changes: vec![change], risk: "low" },
            );
        }
    }

    /// Two neighbouring editable paragraphs of one page, for a selection.
    /// A type change of the selected blocks `ids` of `page`, pushed as one line.
    fn type_selection(
        &mut self,
        family: &str,
        page: &str,
        ids: &[String],
        kind: BlockType,
        level: Option<u8>,
        prompt: String,
    ) {
        let changes = ids
            .iter()
            .map(|id| {
                let mut c = Self::typed(kind, level);
                c["blockId"] = json!(id);
                c["after"] = json!(self.pages[page].block(id).map(|b| b.text.clone()));
                c
            })
            .collect();
        self.push(family, page, ids, prompt, Expect::Direct { intent: "direct_type_change", changes, risk: "medium" });
    }

    fn two_paragraphs(&mut self, names: &[String]) -> Option<(String, Vec<String>)> {
        for _ in 0..20 {
            let page = self.rng.pick(names).clone();
            let p = &self.pages[&page];
            let pairs: Vec<Vec<String>> = p
                .blocks
                .windows(2)
                .filter(|w| w.iter().all(|b| b.editable && b.kind == BlockType::Paragraph))
                .map(|w| w.iter().map(|b| b.block_id.clone()).collect())
                .collect();
            if !pairs.is_empty() {
                let pair = pairs[self.rng.below(pairs.len())].clone();
                return Some((page, pair));
            }
        }
        None
    }
}

/// The generated split's lines, in the corpus format.
pub fn lines(pages: &BTreeMap<String, Page>) -> Vec<Value> {
    let editable: BTreeMap<String, Page> = pages
        .iter()
        .filter(|(_, p)| p.permission != pageai_core::page::Permission::Read)
        .map(|(k, p)| (k.clone(), p.clone()))
        .collect();
    let mut en_texts = Vec::new();
    let mut zh_texts = Vec::new();
    for (name, p) in &editable {
        en_texts.extend(texts(name, p, false));
        zh_texts.extend(texts(name, p, true));
    }
    let mut g = Generator { rng: Rng(SEED), pages: editable, en_texts, zh_texts, lines: Vec::new() };
    g.replaces();
    g.deletes();
    g.inserts();
    g.type_changes();
    g.checks();
    g.refusals();
    g.lines
}
