//! The policy table: each refusal, each review decision and the replay, for every mode, risk and origin.

use alloc::string::{String, ToString};
use alloc::vec;

use super::*;
use crate::profile::ToolsPolicy;

fn profile(mode: ReviewMode) -> Profile {
    Profile { review_mode: mode, ..Profile::default() }
}

fn ask<'a>(tool: Tool, origin: Origin, profile: &'a Profile) -> Ask<'a> {
    Ask { tool, origin, profile, grants: None, role: crate::policy::Role::Owner, permission: Permission::Edit }
}

#[test]
fn a_write_on_a_read_only_document_is_unavailable_but_a_read_is_not() {
    let profile = profile(ReviewMode::Yolo);
    let write = Ask { permission: Permission::Read, ..ask(Tool::BlockUpdate, Origin::Hermes, &profile) };
    assert_eq!(decide(&write, Stage::Run), Err(Unavailable::ReadOnly));
    assert_eq!(decide(&write, Stage::Planned { risk: Risk::Low }), Err(Unavailable::ReadOnly));
    let read = Ask { tool: Tool::DocFetch, ..write };
    assert_eq!(decide(&read, Stage::Run), Ok(Decision::Run));
}

#[test]
fn a_tool_disabled_in_the_profile_is_unavailable() {
    let profile =
        Profile { tools: ToolsPolicy { disabled: vec!["mnote.doc.search".into()] }, review_mode: ReviewMode::Yolo };
    for origin in [Origin::Hermes, Origin::Shortcut] {
        assert_eq!(decide(&ask(Tool::DocSearch, origin, &profile), Stage::Run), Err(Unavailable::Disabled));
        assert_eq!(decide(&ask(Tool::DocFetch, origin, &profile), Stage::Run), Ok(Decision::Run));
    }
}

#[test]
fn the_profile_switches_bind_the_ai_not_a_person() {
    let profile = Profile {
        tools: ToolsPolicy { disabled: vec!["mnote.doc.apply_block_ops".into()] },
        review_mode: ReviewMode::Review,
    };
    for origin in [Origin::User, Origin::ReviewAccept] {
        let edit = ask(Tool::DocApplyBlockOps, origin, &profile);
        assert_eq!(decide(&edit, Stage::Planned { risk: Risk::Low }), Ok(Decision::Apply), "{origin:?}");
        let read_only = Ask { permission: Permission::Read, ..edit };
        assert_eq!(decide(&read_only, Stage::Run), Err(Unavailable::ReadOnly), "{origin:?}");
    }
    assert_eq!(decide(&ask(Tool::DocApplyBlockOps, Origin::Hermes, &profile), Stage::Run), Err(Unavailable::Disabled));
}

#[test]
fn a_scope_not_granted_is_unavailable_and_names_the_scope() {
    let profile = profile(ReviewMode::Yolo);
    let grants = [String::from("doc.read")];
    let write = Ask { grants: Some(&grants), ..ask(Tool::DocApplyBlockOps, Origin::Hermes, &profile) };
    let scope = Tool::DocApplyBlockOps.spec().capability_scope;
    assert_eq!(decide(&write, Stage::Run), Err(Unavailable::ScopeNotGranted { scope }));
    assert_eq!(decide(&Ask { tool: Tool::DocFetch, ..write }, Stage::Run), Ok(Decision::Run));
}

#[test]
fn the_read_only_cause_wins_over_the_others() {
    let profile =
        Profile { tools: ToolsPolicy { disabled: vec!["mnote.block.delete".into()] }, review_mode: ReviewMode::Yolo };
    let grants: [String; 0] = [];
    let all_wrong =
        Ask { grants: Some(&grants), permission: Permission::Read, ..ask(Tool::BlockDelete, Origin::Hermes, &profile) };
    assert_eq!(decide(&all_wrong, Stage::Run), Err(Unavailable::ReadOnly));
    assert_eq!(decide(&Ask { permission: Permission::Edit, ..all_wrong }, Stage::Run), Err(Unavailable::Disabled));
}

#[test]
fn refusals_keep_their_messages_and_codes() {
    assert_eq!(Unavailable::ReadOnly.to_string(), "document is read-only");
    assert_eq!(Unavailable::Disabled.to_string(), "disabled in the profile");
    let scope = Unavailable::ScopeNotGranted { scope: "doc.write" };
    assert_eq!(scope.to_string(), "capability scope doc.write is not granted");

    let error = Unavailable::ReadOnly.error(Tool::BlockUpdate);
    assert_eq!(error.code().as_str(), "mnote_tool_disabled");
    assert_eq!(error.message(), "tool mnote.block.update is disabled: document is read-only");
    let error = Unavailable::Disabled.error(Tool::DocSearch);
    assert_eq!(error.message(), "tool mnote.doc.search is disabled: disabled in the profile");
    let error = scope.error(Tool::DocApplyBlockOps);
    assert_eq!(error.code().as_str(), "mnote_scope_denied");
}

#[test]
fn the_review_table_for_ai_writes() {
    use Hold::{HighRisk, Required, Review};
    let apply = Decision::Apply;
    let hold = Decision::Hold;
    let table = [
        (ReviewMode::Required, [hold(Required), hold(Required), hold(Required)]),
        (ReviewMode::Review, [hold(Review), hold(Review), hold(Review)]),
        (ReviewMode::Yolo, [apply, apply, hold(HighRisk)]),
    ];
    for origin in [Origin::Hermes, Origin::Shortcut] {
        for (mode, expected) in table {
            let profile = profile(mode);
            for (risk, want) in [Risk::Low, Risk::Medium, Risk::High].into_iter().zip(expected) {
                let got = decide(&ask(Tool::DocApplyBlockOps, origin, &profile), Stage::Planned { risk });
                assert_eq!(got, Ok(want), "{origin:?} {mode:?} {risk:?}");
            }
        }
    }
}

#[test]
fn people_are_never_held_by_the_mode() {
    for origin in [Origin::User, Origin::ReviewAccept] {
        for mode in [ReviewMode::Required, ReviewMode::Review, ReviewMode::Yolo] {
            let profile = profile(mode);
            let got = decide(&ask(Tool::DocApplyBlockOps, origin, &profile), Stage::Planned { risk: Risk::High });
            assert_eq!(got, Ok(Decision::Apply), "{origin:?} {mode:?}");
        }
    }
}

#[test]
fn a_high_risk_tool_is_high_risk_whatever_its_plan_and_proposals_always_wait() {
    let yolo = profile(ReviewMode::Yolo);
    let save = ask(Tool::PageSave, Origin::Hermes, &yolo);
    assert_eq!(risk_of(Tool::PageSave, Risk::Low), Risk::High);
    assert_eq!(risk_of(Tool::BlockUpdate, Risk::Low), Risk::Low);
    assert_eq!(decide(&save, Stage::Planned { risk: Risk::Low }), Ok(Decision::Hold(Hold::HighRisk)));
    for origin in [Origin::Hermes, Origin::User] {
        let plan = ask(Tool::DocPlanUpdate, origin, &yolo);
        assert_eq!(decide(&plan, Stage::Planned { risk: Risk::Low }), Ok(Decision::Hold(Hold::ProposalOnly)));
    }
}

/// The manifest and the router ask [`held`] without a call: it answers what the executor's decision does
/// for the same write, for every write tool, caller, mode and risk.
#[test]
fn held_answers_what_the_executor_decides() {
    for tool in Tool::ALL.into_iter().filter(|t| t.writes()) {
        for origin in [Origin::Hermes, Origin::Shortcut, Origin::User, Origin::ReviewAccept] {
            for mode in ReviewMode::ALL {
                let profile = profile(mode);
                for risk in [Risk::Low, Risk::Medium, Risk::High] {
                    let want = held(tool, origin, mode, risk).map_or(Decision::Apply, Decision::Hold);
                    let got = decide(&ask(tool, origin, &profile), Stage::Planned { risk });
                    assert_eq!(got, Ok(want), "{tool:?} {origin:?} {mode:?} {risk:?}");
                }
            }
        }
    }
}

#[test]
fn hold_reasons_keep_their_messages() {
    assert_eq!(Hold::ProposalOnly.message(), "proposals only apply through a review session");
    assert_eq!(Hold::Required.message(), "the profile requires review of every AI write");
    assert_eq!(Hold::Review.message(), "the profile reviews every AI write");
    assert_eq!(Hold::HighRisk.message(), "high-risk writes need review even in yolo mode");
}

#[test]
fn a_stored_apply_replays_whatever_the_mode_or_the_document_now_allows() {
    for mode in [ReviewMode::Required, ReviewMode::Review, ReviewMode::Yolo] {
        let profile = profile(mode);
        let ask = Ask { permission: Permission::Read, ..ask(Tool::DocApplyBlockOps, Origin::Hermes, &profile) };
        let stage = Stage::Submitted { dry_run: false, stored: true };
        assert_eq!(decide(&ask, stage), Ok(Decision::Replay), "{mode:?}");
    }
}

#[test]
fn submitted_writes_go_through_a_session_except_yolo_previews() {
    let cases = [
        // (mode, tool, dry_run, stored, decision)
        (ReviewMode::Yolo, Tool::DocApplyBlockOps, true, false, Decision::Preview),
        (ReviewMode::Yolo, Tool::DocApplyBlockOps, true, true, Decision::Preview),
        (ReviewMode::Yolo, Tool::DocApplyBlockOps, false, false, Decision::Propose),
        (ReviewMode::Yolo, Tool::DocPlanUpdate, true, false, Decision::Propose),
        (ReviewMode::Review, Tool::DocApplyBlockOps, true, false, Decision::Propose),
        (ReviewMode::Review, Tool::DocApplyBlockOps, true, true, Decision::Propose),
        (ReviewMode::Review, Tool::DocApplyBlockOps, false, false, Decision::Propose),
        (ReviewMode::Required, Tool::BlockDelete, false, false, Decision::Propose),
    ];
    for (mode, tool, dry_run, stored, want) in cases {
        let profile = profile(mode);
        let got = decide(&ask(tool, Origin::Hermes, &profile), Stage::Submitted { dry_run, stored });
        assert_eq!(got, Ok(want), "{mode:?} {tool:?} dryRun:{dry_run} stored:{stored}");
    }
}

#[test]
fn a_write_for_a_viewer_is_held_in_every_mode_and_for_every_caller() {
    for mode in [ReviewMode::Yolo, ReviewMode::Review, ReviewMode::Required] {
        let profile = profile(mode);
        for origin in [Origin::Hermes, Origin::Shortcut, Origin::User] {
            let viewer = Ask { role: Role::Viewer, ..ask(Tool::BlockUpdate, origin, &profile) };
            assert_eq!(decide(&viewer, Stage::Run), Ok(Decision::Run), "a viewer's run may still propose");
            assert_eq!(
                decide(&viewer, Stage::Planned { risk: Risk::Low }),
                Ok(Decision::Hold(Hold::Role)),
                "{mode:?} {origin:?}"
            );
            let editor = Ask { role: Role::Editor, ..viewer };
            assert_ne!(decide(&editor, Stage::Planned { risk: Risk::Low }), Ok(Decision::Hold(Hold::Role)));
        }
    }
    assert!(Hold::Role.message().contains("viewer"));
}
