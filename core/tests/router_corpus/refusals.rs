//! The generated split's refusals (see `generate.rs`): the same commands negated, asked, made conditional,
//! mixed with a rewrite; and texts that are on the page twice, across two blocks, or only in a locked block.

use super::{Expect, Generator, NEW_EN, NEW_ZH};

impl Generator {
    /// Refusals: the same commands, negated, asked, made conditional, mixed with a rewrite; and texts that
    /// are on the page twice, across two blocks, or only in a locked block.
    pub(super) fn refusals(&mut self) {
        for i in 0..40 {
            let cjk = i % 2 == 0;
            let t = self.text(cjk);
            let new = *self.rng.pick(if cjk { NEW_ZH } else { NEW_EN });
            let (a, b) = (self.quote(&t.literal), self.quote(new));
            let (prompt, intent, reason) = match (cjk, i / 2 % 5) {
                (false, 0) => (format!("don't replace {a} with {b}"), "direct_replace", "complex"),
                (false, 1) => (format!("should we replace {a} with {b}?"), "read_only_question", "question"),
                (false, 2) => (format!("if the tests pass, replace {a} with {b}"), "direct_replace", "complex"),
                (false, 3) => (
                    format!("replace {a} with {b} and then rewrite the page to be shorter"),
                    "complex_rewrite",
                    "complex",
                ),
                (false, _) => (format!("never delete {a}"), "direct_delete", "complex"),
                (true, 0) => (format!("不要把{a}替换为{b}"), "direct_replace", "complex"),
                (true, 1) => (format!("为什么要把{a}替换为{b}？"), "read_only_question", "question"),
                (true, 2) => (format!("如果测试通过，就把{a}替换为{b}"), "direct_replace", "complex"),
                (true, 3) => (format!("把{a}替换为{b}，然后润色全文"), "complex_rewrite", "complex"),
                (true, _) => (format!("别删除{a}"), "direct_delete", "complex"),
            };
            self.push("refuse", &t.page.clone(), &[], prompt, Expect::Hermes { intent, reason });
        }
        // Texts the page holds twice (a locked holder counts), texts spanning two blocks, texts only locked.
        let mut twice = Vec::new();
        let mut spanning = Vec::new();
        let mut locked = Vec::new();
        for (name, p) in &self.pages {
            if p.permission == pageai_core::page::Permission::Read {
                continue;
            }
            for w in p.blocks.windows(2) {
                let (x, y) = (&w[0], &w[1]);
                let tail: String = x.text.chars().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect();
                let head: String = y.text.chars().take(4).collect();
                if !tail.trim().is_empty() && !head.trim().is_empty() && x.editable && y.editable {
                    spanning.push((name.clone(), format!("{tail} {head}")));
                }
            }
            for b in &p.blocks {
                for word in b.text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.chars().count() >= 3) {
                    let n = p.blocks.iter().map(|o| o.text.matches(word).count()).sum::<usize>();
                    if n >= 2 {
                        twice.push((name.clone(), word.to_string()));
                    }
                    if !b.editable && n == 1 {
                        locked.push((name.clone(), word.to_string()));
                    }
                }
            }
        }
        for (pool, reason, count) in
            [(twice, "match_ambiguous", 30), (spanning, "match_not_found", 16), (locked, "not_editable", 16)]
        {
            if pool.is_empty() {
                continue;
            }
            for i in 0..count {
                let (page, literal) = pool[self.rng.below(pool.len())].clone();
                if literal.contains(['"', '\'', '`']) {
                    continue;
                }
                let cjk = i % 2 == 0;
                let new = *self.rng.pick(if cjk { NEW_ZH } else { NEW_EN });
                let (a, b) = (self.quote(&literal), self.quote(new));
                let (prompt, intent) = match (cjk, i % 3) {
                    (true, 0) => (format!("把{a}替换为{b}"), "direct_replace"),
                    (true, 1) => (format!("删除{a}"), "direct_delete"),
                    (true, _) => (format!("用{b}代替{a}"), "direct_replace"),
                    (false, 0) => (format!("replace {a} with {b}"), "direct_replace"),
                    (false, 1) => (format!("delete {a}"), "direct_delete"),
                    (false, _) => (format!("use {b} instead of {a}"), "direct_replace"),
                };
                let prompt = self.wrap(&prompt, cjk);
                self.push("refuse-target", &page, &[], prompt, Expect::Hermes { intent, reason });
            }
        }
    }
}
