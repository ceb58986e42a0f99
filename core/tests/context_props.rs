//! Properties of the context builder: budgeted chunks add up to the whole, and no text breaks `pageXml`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, missing_docs)]

use pageai_core::context::{ContextRequest, Format, Scope, build_context};
use pageai_core::page::{Block, BlockType, Page};
use pageai_core::wire::ContextBlockV1;
use proptest::prelude::*;
use quick_xml::Reader;
use quick_xml::events::Event;

fn any_text() -> impl Strategy<Value = String> {
    // Plain words, CJK, markup look-alikes and control characters.
    let pieces = prop::sample::select(vec![
        "word",
        " ",
        "第二段",
        "全角ＡＢＣ",
        "</block>",
        "<page",
        "\"",
        "'",
        "&amp;",
        "]]>",
        "\u{1}",
        "\u{7}",
        "\r",
        "\n",
        "\u{FFFF}",
        "\u{FFFE}",
        "😀",
        "<!--",
        "x",
    ]);
    prop::collection::vec(pieces, 0..12).prop_map(|v| v.concat())
}

fn any_page() -> impl Strategy<Value = Page> {
    prop::collection::vec((any_text(), any::<bool>(), 0usize..3), 0..25).prop_map(|specs| {
        let blocks = specs
            .into_iter()
            .enumerate()
            .map(|(i, (text, editable, kind))| {
                let mut b = match kind {
                    0 => Block::heading(format!("h_{i}"), 1 + (i % 3) as u8, text),
                    1 => Block::paragraph(format!("p_{i}"), text),
                    _ => Block::new(format!("q_{i}"), BlockType::Quote, text),
                };
                b.editable = editable;
                b
            })
            .collect();
        Page::new("ws", "doc<&\"", "title '&'", blocks).expect("generated pages are valid")
    })
}

fn any_scope(page: &Page) -> BoxedStrategy<Scope> {
    let ids: Vec<String> = page.blocks.iter().map(|b| b.block_id.clone()).collect();
    let mut options = vec![Just(Scope::Full).boxed(), Just(Scope::Outline).boxed()];
    if !ids.is_empty() {
        options.push(prop::sample::select(ids.clone()).prop_map(|block_id| Scope::Block { block_id }).boxed());
        options.push(
            {
                let n = ids.len();
                prop::sample::subsequence(ids, 1..=n.min(3))
            }
            .prop_map(|block_ids| Scope::Selection { block_ids })
            .boxed(),
        );
    }
    options.push(
        prop::sample::select(vec!["word", "第二", "abc", "x"]).prop_map(|q| Scope::Keyword { query: q.into() }).boxed(),
    );
    prop::strategy::Union::new(options).boxed()
}

/// Joins partial pieces of the same block back into one block.
fn merge(chunks: Vec<ContextBlockV1>) -> Vec<ContextBlockV1> {
    let mut out: Vec<ContextBlockV1> = Vec::new();
    for mut block in chunks {
        if let Some(last) = out.last_mut()
            && block.partial
            && block.offset.unwrap_or(0) > 0
            && last.block_id == block.block_id
        {
            last.text.push_str(&block.text);
            continue;
        }
        block.partial = false;
        block.offset = None;
        out.push(block);
    }
    out
}

fn parse_xml(xml: &str) -> Vec<(String, String)> {
    let mut reader = Reader::from_str(xml);
    let mut blocks = Vec::new();
    let mut current: Option<(String, String)> = None;
    let mut depth = 0;
    loop {
        match reader.read_event().expect("pageXml is well-formed XML") {
            Event::Start(e) => {
                depth += 1;
                if e.name().as_ref() == b"block" {
                    assert_eq!(depth, 2, "blocks sit directly under <page>");
                    let id = e.try_get_attribute("id").unwrap().unwrap().unescape_value().unwrap().into_owned();
                    current = Some((id, String::new()));
                }
            }
            Event::Text(t) => {
                if let Some((_, text)) = current.as_mut() {
                    text.push_str(&t.decode().unwrap());
                }
            }
            Event::GeneralRef(r) => {
                if let Some((_, text)) = current.as_mut() {
                    let name = r.decode().unwrap();
                    let ch = match name.as_ref() {
                        "amp" => "&".to_string(),
                        "lt" => "<".to_string(),
                        "gt" => ">".to_string(),
                        "quot" => "\"".to_string(),
                        "apos" => "'".to_string(),
                        other => char::from_u32(
                            u32::from_str_radix(
                                other.trim_start_matches("#x").trim_start_matches('#'),
                                if other.starts_with("#x") { 16 } else { 10 },
                            )
                            .unwrap(),
                        )
                        .unwrap()
                        .to_string(),
                    };
                    text.push_str(&ch);
                }
            }
            Event::End(e) => {
                depth -= 1;
                if e.name().as_ref() == b"block" {
                    blocks.push(current.take().unwrap());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(depth, 0);
    blocks
}

/// What an XML reader should get back for a block's text: forbidden characters became U+FFFD.
fn xml_visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            '\u{0}'..='\u{1f}' | '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn chunks_concatenate_to_the_unbudgeted_context((page, scope, budget) in any_page().prop_flat_map(|p| {
        let s = any_scope(&p);
        (Just(p), s, 1usize..60)
    })) {
        let whole = build_context(&page, &ContextRequest::new(scope.clone()), "c").unwrap();
        let mut pieces = Vec::new();
        let mut texts = Vec::new();
        let mut request = ContextRequest::new(scope.clone()).with_budget(budget);
        for _ in 0..10_000 {
            let chunk = build_context(&page, &request, "c").unwrap();
            prop_assert_eq!(&chunk.allowed_target_block_ids, &whole.allowed_target_block_ids);
            let blocks = chunk.blocks.unwrap();
            // Only a single block larger than the whole budget may exceed it.
            let used: usize = blocks.iter().map(|b| b.text.chars().count() + 1).sum();
            prop_assert!(used <= budget || blocks.len() == 1);
            texts.push(chunk.page_text.unwrap());
            pieces.extend(blocks);
            match chunk.continuation {
                Some(token) => request = request.with_continuation(token),
                None => break,
            }
        }
        prop_assert_eq!(merge(pieces), whole.blocks.unwrap());
        if !texts.is_empty() && whole.page_text.as_deref() != Some("") {
            // Without partial cuts, the text views join with the same separator.
            let joined = texts.join("\n");
            let no_partial = joined.chars().count() == whole.page_text.as_ref().unwrap().chars().count();
            if no_partial { prop_assert_eq!(Some(joined), whole.page_text); }
        }
    }

    #[test]
    fn hostile_text_never_breaks_page_xml(page in any_page()) {
        let ctx = build_context(&page, &ContextRequest::new(Scope::Full).with_formats(&[Format::PageXml]), "c").unwrap();
        let parsed = parse_xml(&ctx.page_xml.unwrap());
        let expected: Vec<(String, String)> =
            page.blocks.iter().map(|b| (b.block_id.clone(), xml_visible(&b.text))).collect();
        prop_assert_eq!(parsed, expected);
    }
}

#[test]
fn a_fifty_thousand_block_page_respects_the_budget() {
    let blocks = (0..50_000).map(|i| Block::paragraph(format!("p_{i}"), format!("段落 {i} with some text"))).collect();
    let page = Page::new("ws", "big", "Big", blocks).unwrap();
    let ctx = build_context(&page, &ContextRequest::new(Scope::Full).with_budget(8_000), "c").unwrap();
    assert!(ctx.truncated);
    assert!(ctx.page_text.unwrap().chars().count() <= 8_000);
    assert!(ctx.page_xml.unwrap().len() < 40_000);
    assert_eq!(ctx.allowed_target_block_ids.len(), 50_000);
}
