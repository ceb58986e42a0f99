//! Chinese clauses: 把「A」替换为「B」, 删除第二段, 在末尾添加「B」, 把选中的段落改成待办.

use alloc::string::String;

use super::{BlockRef, Command, InsertAt, Within, only_quote, split_verb, strip_any, strip_any_suffix};
use crate::page::BlockType;
use crate::route::target::{zh_block_type, zh_ordinal};

const ZH_SELECTION: &[&str] = &[
    "选中的段落里的",
    "选中的段落中的",
    "选中段落里的",
    "选中段落中的",
    "选中的内容里的",
    "选中的内容中的",
    "选中的文字里的",
    "选中的文字中的",
    "选中的块里的",
    "选中的块中的",
    "选中部分的",
    "选中部分里的",
    "选中内容里的",
    "选中内容中的",
    "选中的部分里的",
    "选中的部分中的",
    "所选段落里的",
    "所选段落中的",
    "所选内容中的",
    "所选的",
    "选区里的",
    "选区中的",
    "选中的这段里的",
    "选中的这段中的",
    "选中的",
    "选中",
];

/// Scope words at the start of a Chinese left-hand side: the selection, a block by ordinal, or the page.
fn zh_within(left: &str) -> (Within, &str) {
    let (rest, selected) = strip_any(left, ZH_SELECTION);
    if selected {
        return (Within::Selection, rest);
    }
    if let Some((ordinal, rest)) = zh_ordinal(left) {
        let (rest, _) = strip_any(rest, &["里面的", "里的", "中的", "里", "中", "的"]);
        return (Within::Block(ordinal), rest);
    }
    (Within::Page, left)
}

const ZH_ALL: &[&str] = &[
    "所有的",
    "所有",
    "全部的",
    "全部",
    "全文的",
    "全文中的",
    "全文里的",
    "文中所有的",
    "文中所有",
    "页面里所有的",
    "页面中所有的",
    "每一个",
    "每个",
];
const ZH_PAGE: &[&str] = &[
    "文中的",
    "页面中的",
    "页面里的",
    "文档里的",
    "文档中的",
    "本页的",
    "这一页的",
    "这页的",
    "正文里的",
    "正文中的",
    "里面的",
];

/// `把 … 替换为 …` and its variants.
fn zh_replace(s: &str, quotes: &[String]) -> Option<Command> {
    const VERBS: &[&str] = &[
        "全部替换为",
        "全部替换成",
        "全部改成",
        "全部改为",
        "全部换成",
        "都替换为",
        "都替换成",
        "都改成",
        "都改为",
        "都换成",
        "统统改成",
        "一律改成",
        "替换成为",
        "替换为",
        "替换成",
        "替换掉为",
        "换成",
        "换为",
        "改成",
        "改为",
        "修改为",
        "修改成",
        "更改为",
        "更改成",
        "更正为",
        "订正为",
        "变成",
        "变为",
        "改作",
        "写成",
        "->",
        ">",
    ];
    let (left, verb, right) = split_verb(s, VERBS)?;
    let with = only_quote(right.trim_end_matches(['.', '!', '?']), quotes)?;
    let mut all =
        verb.starts_with("全部") || verb.starts_with("都") || verb.starts_with("统统") || verb.starts_with("一律");
    let (left, _) = strip_any(left, &["把", "将", "给", "让"]);
    let (left, any_all) = strip_any(left, ZH_ALL);
    all |= any_all;
    let (within, left) = zh_within(left);
    let (left, _) = strip_any(left, ZH_PAGE);
    let (left, any_all) = strip_any(left, ZH_ALL);
    all |= any_all;
    let (left, trailing_all) = strip_any_suffix(
        left,
        &["全部", "都", "统统", "全都", "这个词", "这几个字", "这个", "这句话", "这句", "这段话"],
    );
    all |= trailing_all && !left.ends_with("这");
    let find = only_quote(left, quotes)?;
    Some(Command::Replace { find: find.into(), with: with.into(), all, within, quoted: true })
}

/// `把 X 改成 Y` without quotes: accepted only for short, single-token literals.
fn zh_replace_unquoted(raw: &str) -> Option<Command> {
    const VERBS: &[&str] = &["替换为", "替换成", "换成", "改成", "改为", "修改为", "更改为"];
    let (left, _, right) = split_verb(raw, VERBS)?;
    let left = left.trim();
    let (left, _) = strip_any(left, &["把", "将"]);
    let (left, right) = (left.trim(), right.trim().trim_end_matches(['。', '.', '！', '!']).trim());
    let plain = |t: &str, max: usize| {
        !t.is_empty()
            && t.chars().count() <= max
            && !t.chars().any(|c| c.is_whitespace() || "，,。.、；;：:！!？?「」『』“”\"'‘’《》`的".contains(c))
    };
    // Deictic and structural words mean a block, not a literal; adjectives mean a rewrite.
    const VAGUE_LEFT: &[&str] =
        &["这", "那", "最后", "标题", "段落", "语气", "风格", "格式", "内容", "文字", "句子", "全文", "整个", "所有"];
    const VAGUE_RIGHT: &[&str] =
        &["更", "一点", "一些", "正式", "专业", "简洁", "口语", "英文", "中文", "通顺", "标题", "列表", "待办", "引用"];
    if !plain(left, 16)
        || !plain(right, 24)
        || zh_ordinal(left).is_some()
        || VAGUE_LEFT.iter().any(|w| left.contains(w))
        || VAGUE_RIGHT.iter().any(|w| right.contains(w))
    {
        return None;
    }
    Some(Command::Replace { find: left.into(), with: right.into(), all: false, within: Within::Page, quoted: false })
}

/// `删除「A」`, `把「A」删掉`, `删除第二段`, `把选中的段落删除`.
fn zh_delete(s: &str, quotes: &[String]) -> Option<Command> {
    const PRE: &[&str] = &["删除掉", "删除", "删掉", "删去", "去掉", "去除", "移除", "删"];
    const POST: &[&str] = &["删除掉", "删除", "删掉", "删去", "去掉", "去除", "移除", "给删了", "删了", "拿掉"];
    let body = if let (rest, true) = strip_any(s, PRE) {
        rest
    } else {
        let (rest, _) = strip_any(s, &["把", "将"]);
        let (rest, found) = strip_any_suffix(rest, POST);
        if !found {
            return None;
        }
        rest
    };
    let (body, all_prefix) = strip_any(body, ZH_ALL);
    let (within, body) = zh_within(body);
    let (body, _) = strip_any(body, ZH_PAGE);
    let (body, all_suffix) = strip_any_suffix(body, &["全部", "都", "统统"]);
    let all = all_prefix || all_suffix;
    if let Some(text) = only_quote(body, quotes) {
        return Some(Command::DeleteSpan { text: text.into(), all, within });
    }
    match (within, body) {
        (Within::Block(o), "") => Some(Command::DeleteBlock(BlockRef::Ordinal(o))),
        (Within::Selection, "" | "段落" | "内容" | "块" | "部分" | "文字" | "这段" | "几段") => {
            Some(Command::DeleteBlock(BlockRef::Selection))
        }
        (Within::Page, "这段" | "这一段" | "这几段" | "当前段落") => {
            Some(Command::DeleteBlock(BlockRef::Selection))
        }
        _ => None,
    }
}

fn zh_block_ref(s: &str, quotes: &[String]) -> Option<BlockRef> {
    let (s, _) = strip_any(s, &["把", "将"]);
    if let Some((o, "" | "的内容" | "内容" | "的文字" | "文字")) = zh_ordinal(s) {
        return Some(BlockRef::Ordinal(o));
    }
    let (rest, selected) = strip_any(s, &["选中的", "所选的", "选中"]);
    if selected && matches!(rest, "" | "段落" | "内容" | "块" | "这些段落" | "几段" | "文字" | "部分" | "这段")
    {
        return Some(BlockRef::Selection);
    }
    if matches!(s, "这段" | "这一段" | "这几段" | "这些段落" | "当前段落" | "这个块" | "这些块") {
        return Some(BlockRef::Selection);
    }
    let (rest, containing) = strip_any_suffix(
        s,
        &["所在的段落", "所在的那段", "所在段落", "所在的块", "那一段", "那段", "所在的行", "这一行", "那一行"],
    );
    if containing {
        return only_quote(rest, quotes).map(|q| BlockRef::Containing(q.into()));
    }
    None
}

/// `把第二段改成标题`, `把选中的段落改成待办`, `把第二段改成「新内容」`.
fn zh_set(s: &str, quotes: &[String]) -> Option<Command> {
    const VERBS: &[&str] = &[
        "转换成",
        "转换为",
        "改成",
        "变成",
        "转成",
        "转为",
        "改为",
        "设为",
        "设置为",
        "设置成",
        "换成",
        "替换为",
        "替换成",
        "改写为",
    ];
    let (left, verb, right) = split_verb(s, VERBS)?;
    let target = zh_block_ref(left, quotes)?;
    if let Some(text) = only_quote(right, quotes) {
        return (!verb.starts_with("改写")).then(|| Command::SetText { target, text: text.into() });
    }
    let (kind, level) = zh_block_type(right.trim_end_matches("格式").trim_end_matches("样式"))?;
    Some(Command::SetType { target, kind, level })
}

/// `在末尾添加「B」`, `在「A」后面加一段「B」`, `在第二段后插入「B」`.
fn zh_insert(s: &str, quotes: &[String]) -> Option<Command> {
    const VERBS: &[&str] = &["添加", "加上", "追加", "插入", "补充", "新增", "写上", "补上", "加"];
    let (place, _, what) = split_verb(s, VERBS)?;
    let (place, _) = strip_any(place, &["在", "往", "于"]);
    let place = place.trim_end_matches(['处', ',']);
    let at = match place {
        "末尾" | "结尾" | "最后" | "最后面" | "文末" | "页面末尾" | "页面最后" | "文档末尾" | "最下面" | "底部"
        | "页尾" | "最后一行" | "" => InsertAt::End,
        "开头" | "最前面" | "顶部" | "文首" | "页面开头" | "最上面" => InsertAt::Start,
        _ => {
            let (anchor, after) = if let (a, true) =
                strip_any_suffix(place, &["后面", "之后", "后边", "下面", "下方", "后", "的后面", "的下面"])
            {
                (a, true)
            } else if let (a, true) =
                strip_any_suffix(place, &["前面", "之前", "上面", "上方", "前", "的前面", "的上面"])
            {
                (a, false)
            } else {
                return None;
            };
            let anchor = anchor.trim_end_matches('的');
            let target = match only_quote(anchor, quotes) {
                Some(q) => BlockRef::Containing(q.into()),
                None => zh_block_ref(anchor, quotes)?,
            };
            if after { InsertAt::After(target) } else { InsertAt::Before(target) }
        }
    };
    let (what, _) = strip_any(
        what,
        &[
            "一段话",
            "一段文字",
            "一段",
            "一行字",
            "一行",
            "一句话",
            "一句",
            "一个段落",
            "段落",
            "新段落",
            "一个新段落",
            "一条",
        ],
    );
    let (what, kind) = match strip_any(what, &["一个待办事项", "一个待办", "一条待办", "待办事项", "待办", "一个任务"])
    {
        (rest, true) => (rest, BlockType::Todo),
        _ => match strip_any(what, &["一个列表项", "一条列表项", "列表项", "一个要点", "要点"]) {
            (rest, true) => (rest, BlockType::BulletedListItem),
            _ => match strip_any(what, &["一个引用", "引用"]) {
                (rest, true) => (rest, BlockType::Quote),
                _ => (what, BlockType::Paragraph),
            },
        },
    };
    let what = what
        .trim_start_matches([':', '：'])
        .trim_start_matches("内容")
        .trim_start_matches("文字")
        .trim_start_matches([':', '：']);
    let what = what.strip_prefix("说").unwrap_or(what);
    let text = only_quote(what, quotes)?;
    Some(Command::Insert { text: text.into(), kind, at })
}

/// Parses one Chinese clause.
pub(in crate::route) fn zh(s: &str, quotes: &[String]) -> Option<Command> {
    zh_insert(s, quotes)
        .or_else(|| zh_delete(s, quotes))
        .or_else(|| zh_set(s, quotes))
        .or_else(|| zh_replace(s, quotes))
}

/// Parses one Chinese clause written without quotes (the raw prompt, courtesy already stripped).
pub(in crate::route) fn zh_unquoted(raw: &str) -> Option<Command> {
    zh_replace_unquoted(raw)
}
