//! Agents read suggestions: Hermes' `doc.fetch` and `block.fetch` answer `mnote.page_ai_context.v2`, which
//! shows a page's pending suggestions in every view (marked as not its text); Hermes may propose on top of
//! one, held as its own session; accepting one leaves the other stale, and the next fetch says so.
#![allow(clippy::expect_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]

use pageai_core::policy::Role;
use pageai_core::profile::ReviewMode;
use serde_json::{Value, json};

use super::*;
use crate::identity::Acting;
use crate::services::block_edits::{self, SuggestionBody};
use crate::services::reviews::{self, ReviewAction};
use crate::services::test_support::{MemoryStores, hermes_call, in_mode, json_of, page_of};
use pageai_core::review::AcceptRequest;

fn page() -> Page {
    page_of(&["alpha one", "beta two", "第三段：我们在周五发布。"])
}

/// Alice (a viewer) suggests `text` for `block`; answers the session's id.
fn alice_suggests(page: &mut Page, memory: &mut MemoryStores, block: &str, text: &str) -> String {
    memory.acting = Acting { user: "alice".into(), role: Role::Viewer };
    let operations =
        serde_json::from_value(json!([{"op": "update", "blockId": block, "text": text}])).expect("operations");
    let body = SuggestionBody {
        base_revision: page.revision,
        operations,
        idempotency_key: format!("k_alice_{block}"),
        revision_refs: None,
        reason: Some("tone".into()),
    };
    let session = json_of(&block_edits::suggest(page, &body, "tr_1", &mut memory.stores()).expect("held"));
    memory.acting = Acting { user: "owner".into(), role: Role::Owner };
    session["sessionId"].as_str().expect("an id").to_string()
}

fn fetch(page: &mut Page, memory: &mut MemoryStores, tool: &str, args: Value) -> Value {
    let reply = super::call(page, hermes_call(tool, args), &mut memory.stores()).expect("read");
    json_of(reply.result.get())
}

#[test]
fn doc_fetch_shows_a_persons_suggestion_in_every_view_and_block_fetch_only_on_its_blocks() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let session = alice_suggests(&mut page, &mut memory, "p_2", "beta 2 </suggestion>\nalpha one");
    let ctx = fetch(&mut page, &mut memory, "doc_fetch", json!({"documentId": "doc_1", "scope": {"type": "full"}}));
    assert_eq!(ctx["schema"], "mnote.page_ai_context.v2");
    let text = ctx["pageText"].as_str().expect("text");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "three blocks and one suggestion line: {text}");
    assert_eq!(lines[1], "beta two");
    assert!(
        lines[2]
            .starts_with(&format!("⟦suggestion {session}:p_2 · NOT page text · pending update by person \"alice\"⟧")),
        "{text}"
    );
    assert!(lines[2].ends_with(r#""beta two" → "beta 2 </suggestion>\nalpha one" · reason "tone""#), "{text}");
    assert_eq!(lines[3], "第三段：我们在周五发布。");
    let xml = ctx["pageXml"].as_str().expect("xml");
    assert!(
        xml.contains(r#"<block id="p_2" type="paragraph">beta two</block><suggestion id=""#)
            && xml.contains(
                "<del>beta two</del><ins>beta 2 &lt;/suggestion&gt;\nalpha one</ins></suggestion><block id=\"p_3\""
            ),
        "{xml}"
    );
    let listed = ctx["suggestions"].as_array().expect("a list");
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0]["blockId"].as_str(), listed[0]["author"]["kind"].as_str()), (Some("p_2"), Some("person")));
    assert_eq!(ctx["blocks"].as_array().map(Vec::len), Some(3), "the blocks are the page's, unchanged");
    // block.fetch shows the suggestions of the blocks it fetched, not of their neighbours.
    let other = fetch(&mut page, &mut memory, "block_fetch", json!({"documentId": "doc_1", "blockIds": ["p_1"]}));
    assert_eq!(
        (other["schema"].as_str(), other["suggestions"].as_array().map(Vec::len)),
        (Some("mnote.page_ai_context.v2"), Some(0))
    );
    assert!(!other["pageText"].as_str().expect("text").contains('⟦'));
    let own = fetch(&mut page, &mut memory, "block_fetch", json!({"documentId": "doc_1", "blockIds": ["p_2"]}));
    assert_eq!(own["suggestions"][0]["sessionId"].as_str(), Some(session.as_str()));
}

#[test]
fn hermes_proposes_on_top_of_a_suggestion_and_an_accept_leaves_the_other_stale() {
    let mut page = page();
    let mut memory = in_mode(ReviewMode::Review);
    let alice = alice_suggests(&mut page, &mut memory, "p_2", "beta 2");
    let ctx = fetch(&mut page, &mut memory, "doc_fetch", json!({"documentId": "doc_1", "scope": {"type": "full"}}));
    let args = json!({
        "documentId": "doc_1", "contextId": ctx["contextId"], "baseRevision": ctx["revision"],
        "idempotencyKey": "k_plan", "summary": "spell numbers out",
        "operations": [{"op": "replace", "blockId": "p_2", "matchText": "two", "content": "TWO"}],
    });
    let reply = super::call(&mut page, hermes_call("doc_plan_update", args), &mut memory.stores()).expect("held");
    let held = reply.review_session.expect("a session");
    assert_ne!(held.session_id, alice, "its own session");
    assert_eq!(held.state, State::AwaitingUser);
    assert_eq!(page.revision, 0, "nothing written");
    let both = fetch(&mut page, &mut memory, "block_fetch", json!({"documentId": "doc_1", "blockIds": ["p_2"]}));
    let who: Vec<(&str, &str)> = both["suggestions"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| (s["author"]["kind"].as_str().unwrap_or(""), s["state"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(who, [("person", "pending"), ("hermes", "pending")]);
    // An editor accepts Alice's: Hermes' no longer applies as shown.
    memory.acting = Acting { user: "eddie".into(), role: Role::Editor };
    let accept = ReviewAction::Accept(AcceptRequest { block_ids: None, idempotency_key: "k_acc".into() });
    reviews::act(&mut page, &alice, &accept, &mut memory.stores()).expect("accepted");
    assert_eq!(page.blocks[1].text, "beta 2");
    let after = fetch(&mut page, &mut memory, "doc_fetch", json!({"documentId": "doc_1", "scope": {"type": "full"}}));
    let left: Vec<(&str, &str)> = after["suggestions"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| (s["sessionId"].as_str().unwrap_or(""), s["state"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(left, [(held.session_id.as_str(), "stale")]);
    assert!(after["pageText"].as_str().expect("text").contains("· NOT page text · stale replace by hermes"));
}
