//! Undo of a Hermes run: `run_undo.*.json` under `tests/fixtures/wire/v1/`.
//!
//! Input `{page, profile, sessions, steps}`: each session is a Hermes write (`sessionId, runId,
//! operations`), held for review and then accepted, in order. Each step is `{action: edit, operations}`
//! (a person writes the page) or `{action: undo, runId, idempotencyKey, confirmRevision?}`. The output is
//! the answers of the undo steps, in order, each an `mnote.run_undo.v1`; a step that fails ends the case
//! with its coded error.

use pageai_core::executor::{Call, Origin, execute};
use pageai_core::json::from_value;
use pageai_core::page::Page;
use pageai_core::profile::Profile;
use pageai_core::review::{self, AcceptRequest, ProposeRequest, Stamp, UndoRunRequest};
use serde_json::{Value, json};

use crate::support::{self, Case, Layout, array, pretty_keep_order, with_env};

const OWNED: [&str; 1] = ["run_undo."];
const AT0: &str = "2026-11-30T08:00:00Z";
const AT1: &str = "2026-11-30T08:01:00Z";

fn write(page: &Page, key: &str, operations: &Value) -> Value {
    json!({
        "documentId": page.document_id, "baseRevision": page.revision, "dryRun": false,
        "idempotencyKey": key, "operations": operations,
    })
}

fn run(input: &Value) -> (&'static str, String) {
    let mut page: Page = from_value(input["page"].clone()).unwrap();
    let profile: Profile = from_value(input["profile"].clone()).unwrap();
    let stamp = Stamp { actor: "user_editor", at: AT1 };
    let outcome = with_env(&profile, &page.clone(), |env| {
        let mut sessions = Vec::new();
        for s in input["sessions"].as_array().unwrap() {
            let id = s["sessionId"].as_str().unwrap();
            let args = write(&page, &format!("idem_{id}"), &s["operations"]);
            let call = Call {
                tool_name: "mnote.doc.apply_block_ops",
                args: &args,
                origin: Origin::Hermes,
                actor: "hermes",
                at: AT0,
                tool_call_id: id,
                new_context_id: "",
            };
            let typed = call.typed()?;
            let request = ProposeRequest {
                session_id: id,
                run_id: s["runId"].as_str().unwrap(),
                trace_id: "trace_golden",
                call: &typed,
            };
            let mut session = review::propose(&mut page, &request, env)?;
            let accept = AcceptRequest { block_ids: None, idempotency_key: format!("idem_accept_{id}") };
            review::accept(&mut session, &mut page, &accept, &stamp, env)?;
            sessions.push(session);
        }
        let mut answers = Vec::new();
        for step in input["steps"].as_array().unwrap() {
            match step["action"].as_str().unwrap() {
                "edit" => {
                    let args = write(&page, &format!("idem_edit_{}", page.revision), &step["operations"]);
                    let call = Call {
                        tool_name: "mnote.doc.apply_block_ops",
                        args: &args,
                        origin: Origin::User,
                        actor: "user_other",
                        at: AT1,
                        tool_call_id: "call_edit",
                        new_context_id: "",
                    };
                    execute(&mut page, &call, env)?;
                }
                "undo" => {
                    let request = UndoRunRequest {
                        idempotency_key: step["idempotencyKey"].as_str().unwrap().into(),
                        confirm_revision: step["confirmRevision"].as_u64(),
                    };
                    let run_id = step["runId"].as_str().unwrap();
                    let undo = review::undo_run(run_id, &mut sessions, &mut page, &request, &stamp, env)?;
                    answers.push(pretty_keep_order(&undo.json));
                }
                other => panic!("unknown step {other}"),
            }
        }
        Ok::<_, pageai_core::Error>(answers)
    });
    match outcome {
        Ok(answers) => ("output", array(&answers)),
        Err(e) => support::error(&e),
    }
}

fn cases() -> Vec<Case> {
    let mut page = support::weekly_page();
    page["blocks"].as_array_mut().unwrap().push(json!({"blockId": "p_4", "type": "paragraph", "text": "Next steps"}));
    let input = |steps: Value| {
        json!({
            "page": page, "profile": {"reviewMode": "review"},
            "sessions": [
                {"sessionId": "rs_plan", "runId": "run_golden", "operations": [
                    {"op": "replace", "blockId": "p_1", "matchText": "第一版", "content": "第二版"}]},
                {"sessionId": "rs_other_run", "runId": "run_other", "operations": [
                    {"op": "update", "blockId": "h_1", "text": "周报 Weekly (draft)"}]},
                {"sessionId": "rs_risks", "runId": "run_golden", "operations": [
                    {"op": "update", "blockId": "p_2", "text": "Risks: the API is final."}]},
            ],
            "steps": steps,
        })
    };
    let person_elsewhere =
        json!({"action": "edit", "operations": [{"op": "update", "blockId": "p_4", "text": "Next steps: ship"}]});
    let person_on_p2 = json!({"action": "edit", "operations": [{"op": "update", "blockId": "p_2", "text": "Risks: the API is final, per legal."}]});
    let undo = |key: &str| json!({"action": "undo", "runId": "run_golden", "idempotencyKey": key});
    [
        ("undone", input(json!([person_elsewhere, undo("idem_undo"), undo("idem_undo")]))),
        ("needs_confirm", input(json!([person_on_p2, undo("idem_undo")]))),
        (
            "confirmed",
            input(json!([person_on_p2, undo("idem_undo"),
                {"action": "undo", "runId": "run_golden", "idempotencyKey": "idem_undo", "confirmRevision": 8}])),
        ),
        (
            "stale_confirm",
            input(json!([person_on_p2, person_elsewhere,
                {"action": "undo", "runId": "run_golden", "idempotencyKey": "idem_undo", "confirmRevision": 8}])),
        ),
        ("already_undone", input(json!([undo("idem_undo"), undo("idem_undo_again")]))),
        ("unknown_run", input(json!([{"action": "undo", "runId": "run_missing", "idempotencyKey": "idem_undo"}]))),
    ]
    .into_iter()
    .map(|(name, input)| Case::new(format!("run_undo.{name}.json"), input, run))
    .collect()
}

#[test]
fn run_undos_match_their_golden_fixtures() {
    let cases = cases();
    support::check("v1", &cases, Layout::Ordered);
    support::exercised("v1", &OWNED, &cases);
}
