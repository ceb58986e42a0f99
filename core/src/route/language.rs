//! The command language, described once, as data.
//!
//! Every word the router reads as part of a direct command is in a table here: the verbs of each intent in
//! both languages, the words between a command's slots, the words naming blocks and block types, and the
//! wrappers that carry no meaning. The grammar (`grammar::{en, zh}`) is the structure only: it reads a
//! clause as a sequence of slots and looks each word up in these tables. Adding a synonym is one line in
//! one table, and nothing else; the generated corpus split (`core/tests/router_corpus.rs`) reads the same
//! tables, so a new word is measured in every form it can take.
//!
//! ## The forms
//!
//! `Q` is a quoted text (any pair of [`QUOTE_PAIRS`]), `BLOCK` a block reference, `WHERE` a position.
//!
//! | intent | English | Chinese |
//! |---|---|---|
//! | replace, old text first | [`en::REPLACE`] `Q` [`en::REPLACE_SEPARATORS`] `Q` | 把 `Q` [`zh::REPLACE`] `Q` |
//! | replace, new text first | [`en::NEW_FIRST_VERBS`] `Q` [`en::NEW_FIRST_CONNECTORS`] `Q` | [`zh::NEW_FIRST_OPENERS`] `Q` [`zh::NEW_FIRST_VERBS`] `Q` |
//! | delete a text or a block | [`en::DELETE`] `Q` / `BLOCK` | [`zh::DELETE_BEFORE`] `Q` / `BLOCK`, 把 `Q` / `BLOCK` [`zh::DELETE_AFTER`] |
//! | insert | [`en::INSERT`] `Q` `WHERE` | 在 `WHERE` [`zh::INSERT`] `Q` |
//! | change type | [`en::SET_TYPE`] `BLOCK` (into) `TYPE` ([`en::BLOCK_TYPES`]) | 把 `BLOCK` [`zh::SET_TYPE`] `TYPE` ([`zh::BLOCK_TYPES`]) |
//! | check a to-do | [`en::CHECK`] / [`en::UNCHECK`] `BLOCK`, mark `BLOCK` as [`en::DONE`] / [`en::OPEN`] | [`zh::CHECK`] / [`zh::UNCHECK`] `BLOCK` |
//! | move | [`en::MOVE`] `BLOCK` `WHERE` | 把 `BLOCK` [`zh::MOVE`] `WHERE` |
//!
//! A block reference is the selection (`these`, 选中的), a position (`the third paragraph`, `paragraph 3`,
//! 第三段, 倒数第二个标题), the one block of a kind (`the quote`, 引用), a kind and its text (`the todo "X"`,
//! 「X」那个待办), or every block of a kind (`all the todos`, 所有待办). Several commands join with
//! [`JOINERS`]. Wrappers ([`WRAPPER_PREFIXES`], [`WRAPPER_SUFFIXES`]) are stripped before any of this.
//!
//! ## Adding a synonym
//!
//! To read `expunge "A"` as a delete, add one line to [`en::DELETE`]:
//!
//! ```text
//! pub const DELETE: &[&str] = &[
//!     "delete",
//!     …
//!     "expunge",
//! ];
//! ```
//!
//! The router then reads `expunge "A"`, `please expunge the third paragraph`, `expunge the bullet "X" for
//! me, thanks` and every other form a delete verb takes, and the generated split measures them.
//!
//! ## What is refused
//!
//! A clause with a word in no table is not a direct command, so negation (`don't …`, 不要 …), questions,
//! conditions (`if …`, 如果 …), open rewrites and text spanning blocks all go to Hermes; `classify` then
//! names why (its keyword tables).

use crate::page::BlockType;

/// Quote pairs: an opening char and its closing char. Text between them is taken verbatim.
pub const QUOTE_PAIRS: &[(char, char)] = &[
    ('「', '」'),
    ('『', '』'),
    ('“', '”'),
    ('‘', '’'),
    ('《', '》'),
    ('"', '"'),
    ('\'', '\''),
    ('`', '`'),
    ('＂', '＂'),
    ('＇', '＇'),
    ('«', '»'),
];

/// Words that join two commands: `再`, `然后`, `and then`, `also`.
pub const JOINERS: &[&str] = &[
    "然后再",
    "然后",
    "并且",
    "同时",
    "另外",
    "还有",
    "再",
    "并",
    "and then ",
    "and also ",
    "then ",
    "also ",
    "and ",
    "plus ",
];

/// Polite openers, removed from the front of a normalized clause (lowercase, half-width).
pub const WRAPPER_PREFIXES: &[&str] = &[
    "请你帮我",
    "请帮我",
    "请帮忙",
    "麻烦你帮我",
    "麻烦帮我",
    "麻烦你",
    "麻烦",
    "帮我",
    "帮忙",
    "请你",
    "请",
    "能不能",
    "能否",
    "可以",
    "你能",
    "给我",
    "我想",
    "我要",
    "希望",
    "拜托你",
    "拜托",
    "劳驾",
    "帮个忙",
    "如果可以的话",
    "如果方便的话",
    "可以的话",
    "方便的话",
    "if you could,",
    "if you could ",
    "if you can,",
    "if you don't mind,",
    "if you don't mind ",
    "would you be so kind as to ",
    "please could you ",
    "please can you ",
    "please,",
    "please ",
    "pls,",
    "pls ",
    "plz ",
    "can you please ",
    "could you please ",
    "would you please ",
    "would you mind ",
    "could i ask you to ",
    "i need you to ",
    "i'd like to ",
    "let's ",
    "quick fix:",
    "quick one:",
    "small fix:",
    "one more thing:",
    "hey,",
    "hi,",
    "ok,",
    "okay,",
    "so,",
    "thanks,",
    "can you ",
    "could you ",
    "would you ",
    "will you ",
    "kindly ",
    "hey ",
    "hi ",
    "ok ",
    "okay ",
    "i want you to ",
    "i'd like you to ",
    "help me ",
    "go ahead and ",
    "now ",
    "just ",
];

/// Closers, removed from the end: punctuation of either width (already folded), thanks, `for me`, particles.
pub const WRAPPER_SUFFIXES: &[&str] = &[
    ".",
    "。",
    "!",
    "?",
    "吗",
    "~",
    ",",
    ";",
    " please",
    " pls",
    " thanks",
    " thank you",
    " thanks a lot",
    " thx",
    " ty",
    " cheers",
    " for me",
    " if you can",
    " if possible",
    " when you can",
    " asap",
    "...",
    "…",
    ":)",
    "多谢",
    "感谢",
    "辛苦了",
    "好不好",
    "行不行",
    "谢谢",
    "谢啦",
    "谢了",
    "好吗",
    "可以吗",
    "行吗",
    "吧",
    "一下",
    "呗",
    "哈",
    "啊",
    "呀",
    "哦",
    "嘛",
];

/// English courtesy words that may touch Chinese text directly (`please把「A」改成「B」`): stripped only
/// before one of [`GLUED_BEFORE`].
pub const GLUED_PREFIXES: &[&str] = &["please", "pls", "can you", "could you", "能", "可否", "可不可以"];

/// The chars a glued courtesy word must be followed by.
pub const GLUED_BEFORE: &[char] = &['把', '将', '帮', '给', '删', '在'];

/// The English words of the language (lowercase; a multi-word entry is matched word by word).
pub mod en {
    use crate::page::BlockType;

    /// Verbs that put one text in place of another, the old text first: `replace "A" with "B"`.
    pub const REPLACE: &[&str] = &[
        "replace",
        "change",
        "swap",
        "switch",
        "substitute",
        "rename",
        "update",
        "correct",
        "fix",
        "turn",
        "modify",
        "edit",
        "amend",
        "alter",
        "revise",
    ];

    /// Words between a replace's old and new text (`as` only after `rename`).
    pub const REPLACE_SEPARATORS: &[&str] = &["with", "to", "into", "by", "for", "as", ">", "->", "=>"];

    /// Words after a replace verb that say nothing: `swap out "A" for "B"`, `change it from "A" to "B"`.
    pub const REPLACE_PARTICLES: &[&str] = &["out", "it", "from"];

    /// Words after the separator that say nothing: `edit "A" to read "B"`.
    pub const REPLACE_NEW_PARTICLES: &[&str] = &["read", "say"];

    /// Verbs that may open the new-text-first form; the form also stands without one (`"B" instead of "A"`).
    pub const NEW_FIRST_VERBS: &[&str] = &["use", "write", "put", "say", "have", "type"];

    /// Words between the new and the old text: `use "B" instead of "A"`.
    pub const NEW_FIRST_CONNECTORS: &[&str] = &["instead of", "in place of", "in lieu of", "rather than"];

    /// Verbs that remove a text or a block.
    pub const DELETE: &[&str] =
        &["delete", "remove", "erase", "drop", "cut", "strike", "kill", "get rid of", "take out", "scrap"];

    /// Verbs that add a block.
    pub const INSERT: &[&str] = &["append", "add", "insert", "write", "put", "include", "paste"];

    /// Verbs that add a block at the end when no place is given.
    pub const INSERT_AT_END: &[&str] = &["append"];

    /// Words of the new block's noun phrase that say nothing: `add a new line saying "X"`.
    pub const INSERT_FILLER: &[&str] = &[
        "a",
        "an",
        "another",
        "new",
        "one",
        "the",
        "following",
        "text",
        "line",
        "sentence",
        "paragraph",
        "saying",
        "that",
        "says",
        "with",
        "reading",
        "which",
        "reads",
        "of",
        ":",
    ];

    /// Verbs that change a block's type.
    pub const SET_TYPE: &[&str] = &["make", "turn", "convert", "change", "set", "format", "transform", "switch"];

    /// Words between the blocks and their new type: `turn the second paragraph into a quote`.
    pub const SET_TYPE_PARTICLES: &[&str] = &["into", "to", "as"];

    /// Verbs that check a todo: `check off the first todo`, `tick "X"`.
    pub const CHECK: &[&str] = &["check off", "tick off", "cross off", "strike off", "check", "tick"];

    /// Verbs that uncheck a todo.
    pub const UNCHECK: &[&str] = &["uncheck", "untick"];

    /// Verbs that set a todo's state named after the todo: `mark "X" as done`.
    pub const MARK: &[&str] = &["mark", "set"];

    /// States that mean checked.
    pub const DONE: &[&str] = &["done", "complete", "completed", "finished", "checked", "resolved", "ticked"];

    /// States that mean unchecked.
    pub const OPEN: &[&str] = &["undone", "incomplete", "unchecked", "open", "pending", "unfinished", "todo"];

    /// Verbs that move blocks.
    pub const MOVE: &[&str] = &["move", "bring", "shift", "relocate", "put"];

    /// Block types by name, with the heading level they imply (after `a`/`an` and a trailing `block` or
    /// `item(s)` are dropped). `heading N`, `hN`, `level N heading` are read as levels 1 to 6 besides.
    pub const BLOCK_TYPES: &[(&str, BlockType, Option<u8>)] = &[
        ("heading", BlockType::Heading, Some(2)),
        ("header", BlockType::Heading, Some(2)),
        ("subheading", BlockType::Heading, Some(2)),
        ("section heading", BlockType::Heading, Some(2)),
        ("headings", BlockType::Heading, Some(2)),
        ("title", BlockType::Heading, Some(1)),
        ("main heading", BlockType::Heading, Some(1)),
        ("top-level heading", BlockType::Heading, Some(1)),
        ("level three heading", BlockType::Heading, Some(3)),
        ("subsubheading", BlockType::Heading, Some(3)),
        ("todo", BlockType::Todo, None),
        ("to-do", BlockType::Todo, None),
        ("todos", BlockType::Todo, None),
        ("to-dos", BlockType::Todo, None),
        ("task", BlockType::Todo, None),
        ("tasks", BlockType::Todo, None),
        ("checklist", BlockType::Todo, None),
        ("checkbox", BlockType::Todo, None),
        ("checkboxes", BlockType::Todo, None),
        ("todo list", BlockType::Todo, None),
        ("to-do list", BlockType::Todo, None),
        ("task list", BlockType::Todo, None),
        ("bulleted list", BlockType::BulletedListItem, None),
        ("bullet list", BlockType::BulletedListItem, None),
        ("bulleted", BlockType::BulletedListItem, None),
        ("bullet points", BlockType::BulletedListItem, None),
        ("bullet", BlockType::BulletedListItem, None),
        ("bullets", BlockType::BulletedListItem, None),
        ("bullet point", BlockType::BulletedListItem, None),
        ("list", BlockType::BulletedListItem, None),
        ("unordered list", BlockType::BulletedListItem, None),
        ("bulleted list items", BlockType::BulletedListItem, None),
        ("numbered list", BlockType::NumberedListItem, None),
        ("ordered list", BlockType::NumberedListItem, None),
        ("numbered", BlockType::NumberedListItem, None),
        ("number list", BlockType::NumberedListItem, None),
        ("numbered items", BlockType::NumberedListItem, None),
        ("numbered steps", BlockType::NumberedListItem, None),
        ("quote", BlockType::Quote, None),
        ("blockquote", BlockType::Quote, None),
        ("quotation", BlockType::Quote, None),
        ("block quote", BlockType::Quote, None),
        ("quotes", BlockType::Quote, None),
        ("blockquotes", BlockType::Quote, None),
        ("quotations", BlockType::Quote, None),
        ("block quotes", BlockType::Quote, None),
        ("callout quote", BlockType::Quote, None),
        ("paragraph", BlockType::Paragraph, None),
        ("normal paragraph", BlockType::Paragraph, None),
        ("plain paragraph", BlockType::Paragraph, None),
        ("regular paragraph", BlockType::Paragraph, None),
        ("normal text", BlockType::Paragraph, None),
        ("plain text", BlockType::Paragraph, None),
        ("body text", BlockType::Paragraph, None),
        ("regular text", BlockType::Paragraph, None),
        ("paragraphs", BlockType::Paragraph, None),
        ("text", BlockType::Paragraph, None),
        ("code", BlockType::Code, None),
        ("code block", BlockType::Code, None),
        ("code blocks", BlockType::Code, None),
        ("code snippet", BlockType::Code, None),
    ];
}

/// The Chinese words of the language (Simplified: Traditional words arrive mapped).
pub mod zh {
    use crate::page::BlockType;

    /// Verbs between the old and the new text: `把「A」替换为「B」`. `全部` / `都` before the verb (read by the
    /// phrase words) make it every occurrence.
    pub const REPLACE: &[&str] = &[
        "替换成为",
        "替换为",
        "替换成",
        "换成",
        "换为",
        "改成",
        "改为",
        "修改为",
        "修改成",
        "更改为",
        "更改成",
        "更换为",
        "更换成",
        "替换成了",
        "更正为",
        "订正为",
        "变成",
        "变为",
        "改作",
        "写成",
        "调整为",
        "->",
        ">",
    ];

    /// The replace verbs an unquoted literal may take (`把 100 元改成 200 元`); fewer, the form being a guess.
    pub const REPLACE_UNQUOTED: &[&str] = &["替换为", "替换成", "换成", "改成", "改为", "修改为", "更改为"];

    /// Openers of the new-text-first form: `用「B」替换「A」`.
    pub const NEW_FIRST_OPENERS: &[&str] = &["用", "以", "拿"];

    /// Verbs of the new-text-first form.
    pub const NEW_FIRST_VERBS: &[&str] = &["替换掉", "替换", "代替", "取代", "替代", "换掉"];

    /// Delete verbs before the target: `删除「A」`.
    pub const DELETE_BEFORE: &[&str] =
        &["删除掉", "删除", "删掉", "删去", "去掉", "去除", "移除", "delete", "remove", "删", "清除", "抹掉"];

    /// Delete verbs after the target: `把「A」删掉`.
    pub const DELETE_AFTER: &[&str] = &[
        "删除掉",
        "删除",
        "删掉",
        "删去",
        "去掉",
        "去除",
        "移除",
        "给删了",
        "删了",
        "拿掉",
        "不要了",
        "delete掉",
        "delete",
        "清除",
        "抹掉",
        "干掉",
    ];

    /// Words a delete may add after the target: `第三个待办不要了，删掉`.
    pub const DELETE_AFTER_REASONS: &[&str] = &["不要了", "没用了", "不需要了"];

    /// Verbs that add a block: `在末尾添加「B」`.
    pub const INSERT: &[&str] = &[
        "添加", "加上", "加入", "追加", "插入", "补充", "新增", "增加", "增添", "写上", "写入", "补上", "附上", "添上",
        "放上", "补", "加", "插",
    ];

    /// Measure words of the new block that say nothing: `加一段「B」`.
    pub const INSERT_MEASURES: &[&str] =
        &["段话", "段文字", "段", "行字", "行", "句话", "句", "个段落", "段落", "新段落", "个新段落"];

    /// The type of an inserted block, by its noun (`个待办`, `条引用`).
    pub const INSERT_KINDS: &[(&str, BlockType)] = &[
        ("个待办事项", BlockType::Todo),
        ("个待办", BlockType::Todo),
        ("条待办", BlockType::Todo),
        ("待办事项", BlockType::Todo),
        ("待办", BlockType::Todo),
        ("个任务", BlockType::Todo),
        ("个todo", BlockType::Todo),
        ("todo", BlockType::Todo),
        ("个有序列表项", BlockType::NumberedListItem),
        ("条有序列表项", BlockType::NumberedListItem),
        ("个编号项", BlockType::NumberedListItem),
        ("条编号项", BlockType::NumberedListItem),
        ("有序列表项", BlockType::NumberedListItem),
        ("编号项", BlockType::NumberedListItem),
        ("个列表项", BlockType::BulletedListItem),
        ("条列表项", BlockType::BulletedListItem),
        ("列表项", BlockType::BulletedListItem),
        ("个要点", BlockType::BulletedListItem),
        ("要点", BlockType::BulletedListItem),
        ("个无序列表项", BlockType::BulletedListItem),
        ("无序列表项", BlockType::BulletedListItem),
        ("条", BlockType::BulletedListItem),
        ("个bullet", BlockType::BulletedListItem),
        ("bullet", BlockType::BulletedListItem),
        ("个引用", BlockType::Quote),
        ("段引用", BlockType::Quote),
        ("条引用", BlockType::Quote),
        ("引用", BlockType::Quote),
        ("个小标题", BlockType::Heading),
        ("个标题", BlockType::Heading),
        ("小标题", BlockType::Heading),
        ("标题", BlockType::Heading),
    ];

    /// Verbs that change a block's type (or, before a quote, its whole text): `把第二段改成标题`.
    pub const SET_TYPE: &[&str] = &[
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
        "change成",
        "设成",
        "转化为",
        "调整为",
        "弄成",
        "做成",
    ];

    /// Words after a type that say nothing: `改成引用格式`.
    pub const TYPE_SUFFIXES: &[&str] = &["格式", "样式"];

    /// Block types by name, with the heading level they imply (after `一个`, `个`, `条` are dropped).
    pub const BLOCK_TYPES: &[(&str, BlockType, Option<u8>)] = &[
        ("标题", BlockType::Heading, Some(2)),
        ("小标题", BlockType::Heading, Some(2)),
        ("二级标题", BlockType::Heading, Some(2)),
        ("h2", BlockType::Heading, Some(2)),
        ("一级标题", BlockType::Heading, Some(1)),
        ("大标题", BlockType::Heading, Some(1)),
        ("主标题", BlockType::Heading, Some(1)),
        ("h1", BlockType::Heading, Some(1)),
        ("三级标题", BlockType::Heading, Some(3)),
        ("h3", BlockType::Heading, Some(3)),
        ("四级标题", BlockType::Heading, Some(4)),
        ("h4", BlockType::Heading, Some(4)),
        ("五级标题", BlockType::Heading, Some(5)),
        ("h5", BlockType::Heading, Some(5)),
        ("六级标题", BlockType::Heading, Some(6)),
        ("h6", BlockType::Heading, Some(6)),
        ("待办", BlockType::Todo, None),
        ("待办事项", BlockType::Todo, None),
        ("待办项", BlockType::Todo, None),
        ("todo", BlockType::Todo, None),
        ("任务", BlockType::Todo, None),
        ("任务项", BlockType::Todo, None),
        ("复选框", BlockType::Todo, None),
        ("勾选框", BlockType::Todo, None),
        ("清单", BlockType::Todo, None),
        ("待办清单", BlockType::Todo, None),
        ("列表", BlockType::BulletedListItem, None),
        ("无序列表", BlockType::BulletedListItem, None),
        ("项目符号列表", BlockType::BulletedListItem, None),
        ("项目符号", BlockType::BulletedListItem, None),
        ("圆点列表", BlockType::BulletedListItem, None),
        ("列表项", BlockType::BulletedListItem, None),
        ("要点", BlockType::BulletedListItem, None),
        ("无序列表项", BlockType::BulletedListItem, None),
        ("有序列表", BlockType::NumberedListItem, None),
        ("编号列表", BlockType::NumberedListItem, None),
        ("数字列表", BlockType::NumberedListItem, None),
        ("序号列表", BlockType::NumberedListItem, None),
        ("有序列表项", BlockType::NumberedListItem, None),
        ("编号项", BlockType::NumberedListItem, None),
        ("引用", BlockType::Quote, None),
        ("引用块", BlockType::Quote, None),
        ("引文", BlockType::Quote, None),
        ("正文", BlockType::Paragraph, None),
        ("段落", BlockType::Paragraph, None),
        ("普通段落", BlockType::Paragraph, None),
        ("普通文本", BlockType::Paragraph, None),
        ("正文段落", BlockType::Paragraph, None),
        ("普通正文", BlockType::Paragraph, None),
        ("代码块", BlockType::Code, None),
        ("代码", BlockType::Code, None),
    ];

    /// Measure words before a type name that say nothing: `改成一个标题`.
    pub const TYPE_MEASURES: &[&str] = &["一个", "一条", "一段", "个", "条"];

    /// Verbs that check a todo, longest first where one starts another.
    pub const CHECK: &[&str] = &[
        "标记为已完成",
        "标记成已完成",
        "标记为完成",
        "标记成完成",
        "标记已完成",
        "标记完成",
        "标为已完成",
        "标为完成",
        "设置为已完成",
        "设为已完成",
        "设为完成",
        "改为已完成",
        "改成已完成",
        "改成完成",
        "打上勾",
        "打个勾",
        "勾选上",
        "勾选",
        "勾上",
        "打勾",
        "打钩",
        "打√",
    ];

    /// Verbs that uncheck a todo.
    pub const UNCHECK: &[&str] = &[
        "标记为未完成",
        "标记成未完成",
        "标为未完成",
        "设为未完成",
        "改为未完成",
        "改成未完成",
        "恢复为未完成",
        "恢复成未完成",
        "取消勾选",
        "去掉勾选",
        "取消打勾",
        "去掉勾",
        "取消勾",
        "取消完成",
    ];

    /// Verbs that move blocks: `把代码块移到最后`.
    pub const MOVE: &[&str] = &["移动到", "移到", "挪到", "移至", "挪至", "调到", "放到", "搬到", "拖到"];

    /// Places: the end of the page.
    pub const PLACE_END: &[&str] = &[
        "末尾",
        "结尾",
        "最后",
        "最后面",
        "文末",
        "页面末尾",
        "页面最后",
        "文档末尾",
        "最下面",
        "底部",
        "页尾",
        "最底部",
        "最底下",
        "页面底部",
        "最后边",
        "末端",
    ];

    /// Places: the start of the page.
    pub const PLACE_START: &[&str] =
        &["开头", "最前面", "顶部", "文首", "页面开头", "最上面", "页首", "最顶部", "最前边", "页面顶部", "最开始"];

    /// Words after a block that put the new one after it: `在第二段后面`.
    pub const PLACE_AFTER: &[&str] = &["的后面", "的下面", "后面", "之后", "后边", "下面", "下方", "底下", "后"];

    /// Words after a block that put the new one before it: `在第二段前面`.
    pub const PLACE_BEFORE: &[&str] = &["的前面", "的上面", "前面", "之前", "前边", "上面", "上方", "前"];
}

/// The block type and heading level `name` names in `table`.
pub(crate) fn block_type(table: &[(&str, BlockType, Option<u8>)], name: &str) -> Option<(BlockType, Option<u8>)> {
    table.iter().find(|(n, _, _)| *n == name).map(|(_, t, level)| (*t, *level))
}
