//! The generated split's to-do checks (see `generate.rs`): a to-do checked or unchecked, named by its text.

use serde_json::json;

use pageai_core::page::{Block, BlockType};
use pageai_core::route::language::{en, zh};

use super::{Expect, Generator};

impl Generator {
    pub(super) fn checks(&mut self) {
        let mut todos: Vec<(String, String, String, usize)> = Vec::new();
        for (name, p) in &self.pages {
            let all: Vec<&Block> = p.blocks.iter().filter(|b| b.kind == BlockType::Todo).collect();
            for (i, b) in all.iter().enumerate() {
                let once = p.blocks.iter().map(|o| o.text.matches(b.text.as_str()).count()).sum::<usize>() == 1;
                if b.editable && once && b.attrs.checked == Some(false) {
                    todos.push((name.clone(), b.block_id.clone(), b.text.clone(), i + 1));
                }
            }
        }
        const EN: &[&str] = &["first", "second", "third", "fourth", "fifth"];
        const ZH: &[&str] = &["一", "二", "三", "四", "五"];
        let en_forms: Vec<String> = en::CHECK
            .iter()
            .map(|v| format!("{v} {{}}"))
            .chain(en::DONE.iter().map(|d| format!("mark {{}} as {d}")))
            .collect();
        let zh_forms: Vec<String> = zh::CHECK
            .iter()
            .map(|v| if self.rng.below(2) == 0 { format!("{v}{{}}") } else { format!("把{{}}{v}") })
            .collect();
        for (forms, cjk) in [(en_forms, false), (zh_forms, true)] {
            for form in forms {
                let (page, block, text, n) = todos[self.rng.below(todos.len())].clone();
                let q = self.quote(&text);
                let reference = match (cjk, self.rng.below(3)) {
                    (false, 0) => format!("the {} todo", EN.get(n - 1).unwrap_or(&"first")),
                    (false, 1) => format!("the todo {q}"),
                    (false, _) => q,
                    (true, 0) => format!("第{}个待办", ZH.get(n - 1).unwrap_or(&"一")),
                    (true, _) => q,
                };
                let prompt = self.wrap(&form.replace("{}", &reference), cjk);
                let changes = vec![json!({"blockId": block, "after": text, "attrs": {"checked": true, "depth": 0}})];
                self.push(
                    if cjk { "zh-check" } else { "en-check" },
                    &page,
                    &[],
                    prompt,
                    Expect::Direct { intent: "direct_type_change", changes, risk: "low" },
                );
            }
        }
    }
}
