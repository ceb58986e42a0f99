//! What a prompt is, when it is not a direct command: a question, an open rewrite, or something the page AI
//! does not do. Keyword lists look only at the text outside quotes, so quoted words never trigger them.

use crate::vocab::Intent;

/// Requests outside what page tools can do at all.
const UNSUPPORTED: &[&str] = &[
    "发邮件",
    "发送邮件",
    "发个邮件",
    "邮件",
    "email",
    "e-mail",
    "打电话",
    "发短信",
    "网上",
    "互联网",
    "上网",
    "from the internet",
    "from the web",
    "online",
    "下载",
    "download",
    "删除整个页面",
    "分享到",
    "日历",
    "image from",
    "picture from",
    "photo from",
    "删除这个页面",
    "删除本页",
    "删掉整个页面",
    "删除整页",
    "删掉这一页",
    "删除这一页",
    "删掉本页",
    "delete the whole page",
    "delete this page",
    "delete the page",
    "delete the entire page",
    "remove the whole page",
    "打印",
    "print ",
    "分享给",
    "share it",
    "share this",
    "订机票",
    "订酒店",
    "订饭店",
    "订房",
    "book a",
    "book me",
    "天气",
    "weather",
    "提醒我",
    "remind me",
    "闹钟",
    "alarm",
    "日历",
    "calendar",
    "schedule a",
    "画一",
    "画个",
    "draw ",
    "generate an image",
    "生成图片",
    "生成一张图",
    "play ",
    "播放",
    "tweet",
    "发到",
    "post it",
    "post this",
    "slack",
    "微信",
    "撤销",
    "undo",
    "redo",
    "deploy",
    "部署",
    "git push",
    "清空页面",
    "清空整个",
    "删除所有内容",
    "删掉所有内容",
    "delete everything",
    "delete all blocks",
    "delete every block",
    "clear the page",
    "wipe the page",
];

/// Openers that book something in the world (`订淺草的飯店`).
const BOOKING_STARTS: &[&str] = &["订", "预订", "预定"];

/// Attempts to override the page AI's rules: never an edit command, whatever follows.
const OVERRIDES: &[&str] = &[
    "ignore previous instructions",
    "ignore all previous",
    "ignore your instructions",
    "ignore the rules",
    "ignore all rules",
    "disregard previous",
    "disregard your",
    "system prompt",
    "developer mode",
    "admin mode",
    "jailbreak",
    "忽略之前",
    "忽略所有",
    "忽略以上",
    "忽略上面",
    "无视规则",
    "系统提示",
    "管理员模式",
    "开发者模式",
];

/// Open requests that need a model: rewriting, summarizing, translating, cross-page work.
const COMPLEX: &[&str] = &[
    "润色",
    "改写",
    "重写",
    "总结",
    "概括",
    "摘要",
    "翻译",
    "译成",
    "扩写",
    "缩写",
    "精简",
    "优化",
    "改得",
    "更专业",
    "更正式",
    "更简洁",
    "更通顺",
    "更口语",
    "续写",
    "生成",
    "写一段",
    "写一篇",
    "写个",
    "整理",
    "梳理",
    "提炼",
    "归纳",
    "校对",
    "语法",
    "改进",
    "丰富",
    "完善",
    "调整",
    "语气",
    "换个说法",
    "其他页面",
    "另一个页面",
    "另一页",
    "所有页面",
    "其它页面",
    "别的页面",
    "每一页",
    "错别字",
    "通顺",
    "排版",
    "重新组织",
    "合并",
    "拆分",
    "对比",
    "分析",
    "解释",
    "rewrite",
    "re-write",
    "polish",
    "summarize",
    "summarise",
    "summary",
    "translate",
    "improve",
    "make it more",
    "make this more",
    "more professional",
    "more formal",
    "more concise",
    "more casual",
    "friendlier",
    "shorten",
    "expand",
    "rephrase",
    "paraphrase",
    "grammar",
    "proofread",
    "tone",
    "clean up",
    "tidy up",
    "restructure",
    "reorganize",
    "reorganise",
    "simplify",
    "elaborate",
    "other page",
    "another page",
    "all pages",
    "across pages",
    "every page",
    "typos",
    "spelling",
    "reword",
    "condense",
    "outline for",
    "analyze",
    "analyse",
    "compare",
    "merge",
    "split",
    "flesh out",
    "punch up",
    "sound",
    "better",
];

const QUESTION_STARTS: &[&str] = &[
    "什么",
    "为什么",
    "怎么",
    "如何",
    "是否",
    "有没有",
    "多少",
    "几个",
    "哪",
    "谁",
    "这一页",
    "这页",
    "本页",
    "这篇",
    "这个页面",
    "页面上",
    "文中",
    "告诉我",
    "what",
    "why",
    "how",
    "who",
    "when",
    "where",
    "which",
    "is ",
    "are ",
    "does ",
    "do ",
    "did ",
    "should ",
    "was ",
    "were ",
    "has ",
    "have ",
    "tell me",
    "check whether ",
    "check if ",
    "check that ",
    "list ",
    "show me",
    "find ",
    "search ",
    "查找",
    "找一下",
    "找出",
    "列出",
    "统计",
    "explain",
    "解释",
    "还剩",
    "一共",
    "总共",
];

const QUESTION_PARTS: &[&str] = &[
    "是什么",
    "讲了什么",
    "说了什么",
    "讲的是",
    "有几个",
    "有多少",
    "多少",
    "几个",
    "几次",
    "几件",
    "几条",
    "哪些",
    "哪个",
    "哪里",
    "哪儿",
    "什么时候",
    "什么",
    "吗",
    "呢",
    "?",
];

/// Asking for a summary is reading: the answer goes to the user, not into the page, unless the prompt says
/// where on the page to put it (then it is an open rewrite).
const SUMMARY: &[&str] = &[
    "总结",
    "概括",
    "摘要",
    "归纳",
    "summarize",
    "summarise",
    "summary",
    "tl;dr",
    "tldr",
    "recap",
    "gist",
    "sum up",
    "sum it up",
    "overview",
];

/// Words that put a prompt's result on the page.
const ONTO_THE_PAGE: &[&str] = &[
    "放在",
    "放到",
    "放进",
    "写成",
    "写到",
    "写进",
    "写在",
    "加到",
    "加在",
    "加一",
    "插入",
    "添加",
    "追加",
    "替换",
    "改成",
    "贴到",
    "作为",
    "生成",
    "开头",
    "末尾",
    "结尾",
    "最前",
    "最后",
    "put it",
    "put this",
    "put the",
    "add it",
    "add a",
    "add the",
    "insert",
    "append",
    "at the top",
    "at the end",
    "to the top",
    "to the end",
    "into the page",
    "on the page",
    "to the page",
    "replace",
    "as a paragraph",
    "as a new",
    "write it",
    "write a",
    "below the",
    "above the",
    "after the",
    "before the",
    "in place",
    "turn it into",
    "make it",
    "paste",
    "translate",
    "翻译",
];

/// What a prompt that is not a direct command asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Class {
    /// Reads only: a question about the page.
    Question,
    /// Reads only: a summary for the user, not for the page.
    Summary,
    /// An open edit that needs a model.
    Complex,
    /// Not something the page AI does.
    Unsupported,
}

/// Things no page tool does, whatever else the prompt says.
const UNSUPPORTED_STRONG: &[&str] = &[
    "导出",
    "export",
    "publish",
    "发布到",
    "发到",
    "发给",
    "发送给",
    "发邮件",
    "解锁",
    "unlock",
    "jira",
    "ticket",
    "工单",
    "审批流",
];

/// Verbs that start an edit: a prompt that starts with one is an edit request, even when it can't run directly.
/// Verbs that open an edit request.
const EDIT_STARTS: &[&str] = &[
    "replace", "change", "swap", "rename", "update", "把", "将", "替换", "修改", "改", "delete", "remove", "删",
    "去掉", "add", "insert", "append", "加", "添加", "插入", "make", "turn", "convert",
];

/// Classifies a normalized, courtesy-stripped prompt, or `None` when no keyword decides. `asked` is true when
/// the prompt ended with a question mark.
pub(super) fn classify(s: &str, asked: bool) -> Option<Class> {
    let starts_question = QUESTION_STARTS.iter().any(|k| s.starts_with(k));
    if starts_question && !COMPLEX_STARTS.iter().any(|k| s.starts_with(k)) {
        return Some(Class::Question);
    }
    if UNSUPPORTED_STRONG.iter().chain(OVERRIDES).any(|k| s.contains(k))
        || BOOKING_STARTS.iter().any(|k| s.starts_with(k))
    {
        return Some(Class::Unsupported);
    }
    // "email" can be the text being edited (`change … to email the vendor`); the rest never is.
    let edit = EDIT_STARTS.iter().any(|k| s.starts_with(k));
    let mailish = |k: &&str| matches!(*k, "email" | "e-mail" | "邮件");
    if UNSUPPORTED.iter().any(|k| s.contains(k) && (!edit || !mailish(k))) {
        return Some(Class::Unsupported);
    }
    let other_work = COMPLEX.iter().any(|k| s.contains(k) && !SUMMARY.contains(k));
    if SUMMARY.iter().any(|k| s.contains(k)) && !other_work && !ONTO_THE_PAGE.iter().any(|k| s.contains(k)) {
        return Some(Class::Summary);
    }
    if COMPLEX.iter().any(|k| s.contains(k)) {
        return Some(Class::Complex);
    }
    if !edit && (asked || QUESTION_PARTS.iter().any(|k| s.contains(k))) {
        return Some(Class::Question);
    }
    None
}

/// Openers that are requests even though they look like questions (`explain …` is a question; `what if you
/// rewrite …` is not worth special-casing).
const COMPLEX_STARTS: &[&str] = &["总结", "概括", "翻译", "润色", "改写"];

/// The edit kind of a prompt that names a concrete edit but could not run directly (`帮我把 image cache 那句删掉`,
/// `replace the crash numbers with …`). Open transformations (`按优先级排个序`) are not edits of this kind.
pub(super) fn edit_intent(s: &str) -> Option<Intent> {
    let deletes = ["删掉", "删除", "删了", "去掉", "delete", "remove"].iter().any(|k| s.contains(k));
    if deletes && ["把", "删", "delete", "remove", "去掉"].iter().any(|k| s.starts_with(k)) {
        return Some(Intent::DirectDelete);
    }
    let replaces = (s.starts_with("replace ") && s.contains(" with "))
        || (["change ", "rename ", "update ", "edit "].iter().any(|v| s.starts_with(v)) && s.contains(" to "));
    if replaces {
        return Some(Intent::DirectReplace);
    }
    // Checking a todo or moving a block keeps the text: the v1 intents call that a type change.
    let structural =
        ["check off ", "tick off ", "cross off ", "uncheck ", "untick ", "move "].iter().any(|v| s.starts_with(v))
            || (s.starts_with("mark ") && [" done", " complete", " finished"].iter().any(|k| s.contains(k)))
            || [
                "移到",
                "挪到",
                "移动到",
                "勾选",
                "勾上",
                "打勾",
                "标记为完成",
                "标为完成",
                "往上挪",
                "往下挪",
                "上移",
                "下移",
            ]
            .iter()
            .any(|k| s.contains(k));
    structural.then_some(Intent::DirectTypeChange)
}
