//! The MCP `tools/call` result of an mnote answer: one shape, read the same by every MCP client.
//!
//! | the call | `isError` | `structuredContent` | text |
//! |---|---|---|---|
//! | answered (a context, search hits, a `mnote.tool_result.v1`, a held or blocked write) | `false` | the answer | the answer's JSON |
//! | refused: the call can be fixed or retried by the caller (any 4xx-class code: bad arguments, no `contextId`, stale context, out of scope, not found, conflict, disabled tool) | `false` | the coded body `{ok:false, code, …}` | the body's JSON |
//! | failed on the server's side (5xx-class and 429-class codes: storage, an upstream) | `true` | the coded body | the body's JSON |
//!
//! Why refusals are ordinary results: clients punish `isError`. Hermes Agent cuts every tool of a server
//! for 60 s after three `isError` results in a row, so a model that makes three fixable mistakes in a
//! row would lose the page tools mid-run; a refusal is an answer the model acts on, like a dry-run that
//! finds a conflict. A server failure is what such a circuit breaker is for, so it stays an error.
//!
//! Every `structuredContent` validates against the tool's published `outputSchema`, which admits the
//! answer and the coded refusal (the MCP TypeScript SDK validates it even on `isError`). The text is the
//! same JSON, so a client that reads only text (Hermes renders `content`) gets the code, message, hint and
//! details too. The text is capped at [`TEXT_CAP_DEFAULT`] characters: past it, it ends with a note of how
//! much was cut and how to read in parts; `structuredContent` still carries the whole answer.

use alloc::format;
use alloc::string::String;
use serde_json::{Value, json};

use crate::error::{ErrorCode, Status};

/// The default cap on a result's text, in characters (Unicode scalar values).
pub const TEXT_CAP_DEFAULT: usize = 24_000;

/// Whether a failure with `code` is an MCP tool error (`isError:true`) rather than an ordinary refusal:
/// only when the server, not the call, is at fault.
pub fn is_tool_error(code: ErrorCode) -> bool {
    match code.status() {
        Status::Internal | Status::BadGateway | Status::Unavailable | Status::TooManyRequests => true,
        Status::BadRequest
        | Status::Unauthorized
        | Status::Forbidden
        | Status::NotFound
        | Status::MethodNotAllowed
        | Status::Conflict
        | Status::PayloadTooLarge => false,
    }
}

/// What a call came to, as the MCP result needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The tool answered.
    Answered,
    /// The call was refused or failed with this code (its coded body is the answer).
    Failed(ErrorCode),
}

/// The `tools/call` result for `answer_json` (the tool's answer, or the coded error body), its text cut at
/// `text_cap` characters.
pub fn call_result(answer_json: &str, outcome: Outcome, text_cap: usize) -> Value {
    let is_error = match outcome {
        Outcome::Answered => false,
        Outcome::Failed(code) => is_tool_error(code),
    };
    let mut result =
        json!({"content": [{"type": "text", "text": capped_text(answer_json, text_cap)}], "isError": is_error});
    if let (Ok(structured @ Value::Object(_)), Some(map)) =
        (serde_json::from_str::<Value>(answer_json), result.as_object_mut())
    {
        map.insert("structuredContent".into(), structured);
    }
    result
}

/// `text` whole when it has at most `cap` characters; else its first `cap` and a note of what was cut.
pub fn capped_text(text: &str, cap: usize) -> String {
    let Some((cut, _)) = text.char_indices().nth(cap) else { return String::from(text) };
    let total = text.chars().count();
    format!(
        "{}\n[mnote: this text was cut at {cap} of {total} characters; the whole answer is in structuredContent. \
         To read a page in parts, call doc_fetch with budget {{\"maxChars\": N}} and then with the continuation \
         it answers; or fetch fewer blocks.]",
        &text[..cut]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_answers_and_server_faults_are_errors() {
        let refused =
            call_result(r#"{"ok":false,"code":"mnote_context_stale"}"#, Outcome::Failed(ErrorCode::ContextStale), 100);
        assert_eq!(refused["isError"], false);
        assert_eq!(refused["structuredContent"]["code"], "mnote_context_stale");
        let failed = call_result(r#"{"ok":false}"#, Outcome::Failed(ErrorCode::StorageFailed), 100);
        assert_eq!(failed["isError"], true);
        for code in ErrorCode::ALL {
            let server = matches!(
                code.status(),
                Status::Internal | Status::BadGateway | Status::Unavailable | Status::TooManyRequests
            );
            assert_eq!(is_tool_error(*code), server, "{code}");
        }
    }

    #[test]
    fn the_text_is_cut_at_the_cap_on_a_char_boundary() {
        let text = "页".repeat(10);
        assert_eq!(capped_text(&text, 10), text);
        let cut = capped_text(&text, 4);
        assert!(cut.starts_with("页页页页\n[mnote: this text was cut at 4 of 10 characters"), "{cut}");
        let result = call_result(&format!("{{\"t\":\"{}\"}}", "x".repeat(50)), Outcome::Answered, 20);
        assert_eq!(result["structuredContent"]["t"].as_str().map(str::len), Some(50), "the structure is whole");
    }
}
