//! The policy: whether a tool may run here, and whether an AI write applies, waits for review or replays.
//!
//! It owns one function, [`decide`], and the answers it gives: [`Unavailable`] (read-only document, tool
//! disabled in the profile, capability scope not granted, each with its human message) and [`Decision`]
//! (run, replay, preview, propose, apply, or hold with a [`Hold`] reason). Nothing else in the workspace
//! re-derives these rules:
//!
//! - the executor ([`crate::executor`]) asks at [`Stage::Run`] for a read, at [`Stage::Submitted`] for a
//!   write's idempotent replay and at [`Stage::Planned`] once the operations engine has planned the write;
//!   an [`Unavailable`] becomes its coded error through [`Unavailable::error`];
//! - the manifest ([`crate::manifest::unavailable_reason`]) and the command router ([`crate::route`]) ask at
//!   [`Stage::Run`] for availability, and the router names the refusal from the typed [`Unavailable`];
//! - review sessions ([`crate::review::submit`]) ask at [`Stage::Submitted`] whether an AI write goes
//!   straight through the executor (a replay, a `yolo` preview) or through a review session, which is what
//!   the Worker's tool and command services run.
//!
//! The review table for AI callers (`hermes`, `shortcut`; people are never held by the mode):
//!
//! | mode | low / medium risk | high risk | `plan_update` |
//! |---|---|---|---|
//! | `required` | hold | hold | hold |
//! | `review` | hold | hold | hold |
//! | `yolo` | apply | hold | hold |
//!
//! ```
//! use pageai_core::executor::Origin;
//! use pageai_core::manifest::Tool;
//! use pageai_core::ops::Risk;
//! use pageai_core::page::Permission;
//! use pageai_core::policy::{self, Ask, Decision, Hold, Stage, Unavailable};
//! use pageai_core::profile::{Profile, ReviewMode};
//!
//! let profile = Profile { review_mode: ReviewMode::Yolo, ..Profile::default() };
//! let ask = Ask {
//!     tool: Tool::DocApplyBlockOps,
//!     origin: Origin::Hermes,
//!     profile: &profile,
//!     grants: None,
//!     permission: Permission::Edit,
//!     role: policy::Role::Editor,
//! };
//! assert_eq!(policy::decide(&ask, Stage::Planned { risk: Risk::Low }), Ok(Decision::Apply));
//! assert_eq!(policy::decide(&ask, Stage::Planned { risk: Risk::High }), Ok(Decision::Hold(Hold::HighRisk)));
//! let read_only = Ask { permission: Permission::Read, ..ask };
//! assert_eq!(policy::decide(&read_only, Stage::Run), Err(Unavailable::ReadOnly));
//! ```

use alloc::string::String;
use core::fmt;

use crate::error::Error;
use crate::executor::Origin;
use crate::manifest::{Tool, ToolRisk};
use crate::ops::Risk;
use crate::page::Permission;
use crate::profile::{Profile, ReviewMode};

mod role;

pub use role::{Act, Grants, Role};

/// The facts a decision reads: the tool, who calls it, and where.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    /// The tool called.
    pub tool: Tool,
    /// Who is asking. AI callers are held to the review mode; people are not.
    pub origin: Origin,
    /// Disabled tools and the review mode.
    pub profile: &'a Profile,
    /// Granted capability scopes; `None` grants all.
    pub grants: Option<&'a [String]>,
    /// The document's permission for this caller.
    pub permission: Permission,
    /// The role, in the document's workspace, of the person the call acts for: a write for a viewer is
    /// held ([`Hold::Role`]), never applied.
    pub role: Role,
}

/// How far a call has got when the policy is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Before anything runs: may the tool run here at all? (A read, the manifest, the router.)
    Run,
    /// A write as submitted, before the operations engine sees it. `dry_run` is what the call asked for
    /// (always true for a tool that only proposes); `stored` is true when an applied write already answered
    /// its idempotency key. Availability is not checked here: the executor checks it after the plan, so
    /// the engine's errors come first.
    Submitted {
        /// The call asked for a preview.
        dry_run: bool,
        /// An applied write already answered its idempotency key.
        stored: bool,
    },
    /// A write the operations engine has planned, with the plan's risk.
    Planned {
        /// The plan's risk (before the tool's own risk is added; see [`risk_of`]).
        risk: Risk,
    },
}

/// What the policy allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The tool may run ([`Stage::Run`]).
    Run,
    /// The stored answer is replayed byte for byte (or the key conflicts); nothing is written.
    Replay,
    /// A `yolo` dry-run: a plain preview, nothing is held.
    Preview,
    /// The write goes through a review session, which holds it (or, in `yolo`, applies it when its preview
    /// is not held).
    Propose,
    /// The planned write may apply directly.
    Apply,
    /// The planned write waits for a person.
    Hold(Hold),
}

/// Why a tool cannot run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unavailable {
    /// The tool writes and the document is read-only.
    ReadOnly,
    /// The profile switches the tool off for AI callers (Hermes, the shortcut).
    Disabled,
    /// The caller was not granted the tool's capability scope.
    ScopeNotGranted {
        /// The scope the tool needs, e.g. `doc.write`.
        scope: &'static str,
    },
}

/// Why a write waits for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// The tool only proposes (`plan_update`).
    ProposalOnly,
    /// The profile's mode is `required`.
    Required,
    /// The profile's mode is `review`.
    Review,
    /// A high-risk write under `yolo`.
    HighRisk,
    /// The person the call acts for may not write here (a viewer): the write is only a proposal.
    Role,
}

/// The one policy decision for `ask` at `stage`. See the module docs for who calls it and the table.
pub fn decide(ask: &Ask<'_>, stage: Stage) -> Result<Decision, Unavailable> {
    match stage {
        Stage::Run => available(ask).map(|()| Decision::Run),
        Stage::Submitted { dry_run, stored } => Ok(submitted(ask, dry_run, stored)),
        Stage::Planned { risk } => {
            available(ask)?;
            Ok(planned(ask, risk_of(ask.tool, risk)).map_or(Decision::Apply, Decision::Hold))
        }
    }
}

/// Every AI write is bound to a frozen context: without a `contextId` it could touch any block of the
/// page, and act for no one in particular. `mnote_context_required` otherwise. A person's own writes (block
/// edits, accepts) need none.
pub fn check_bound(tool: Tool, origin: Origin, context_id: Option<&str>) -> Result<(), Error> {
    match (origin.is_ai(), context_id) {
        (true, None) => Err(Error::ContextRequired { tool: tool.spec().name.into() }),
        _ => Ok(()),
    }
}

/// [`check_bound`] for a call as sent, given what its parse answered (`parsed`) and the `contextId` it
/// names: a write whose arguments are bad and name no `contextId` is refused for every bad field at once,
/// the missing `contextId` listed with them, so a model fixes its call in one go rather than learning of
/// one mistake per call. Called by the parse ([`crate::executor::SentCall`]).
pub fn check_call_bound(
    tool: Tool,
    origin: Origin,
    context_id: Option<&str>,
    parsed: Result<(), Error>,
) -> Result<(), Error> {
    let bound = check_bound(tool, origin, context_id);
    match (parsed, bound) {
        (Ok(()), bound) => bound,
        (Err(Error::InvalidArguments { pointer, reason, mut more }), Err(_)) => {
            more.push(crate::error::FieldError {
                pointer: "/contextId".into(),
                reason: "every AI write names the frozen context of its run: the contextId doc_fetch answered".into(),
            });
            Err(Error::InvalidArguments { pointer, reason, more })
        }
        (Err(error), _) => Err(error),
    }
}

/// A write's risk: the plan's, or high for a tool that is high-risk by nature (`page.save`).
pub fn risk_of(tool: Tool, planned: Risk) -> Risk {
    match tool.spec().risk {
        ToolRisk::HighRiskWrite => Risk::High,
        ToolRisk::Read | ToolRisk::Write => planned,
    }
}

fn available(ask: &Ask<'_>) -> Result<(), Unavailable> {
    let spec = ask.tool.spec();
    if ask.tool.writes() && ask.permission == Permission::Read {
        return Err(Unavailable::ReadOnly);
    }
    // The profile's switches are about what the page AI may use; a person's own edits and accepts are not
    // the AI's tool calls, so they pass (read-only pages and scopes still bind everyone).
    if ask.origin.is_ai() && ask.profile.disables(spec.name) {
        return Err(Unavailable::Disabled);
    }
    if !scope_granted(ask.grants, spec.capability_scope) {
        return Err(Unavailable::ScopeNotGranted { scope: spec.capability_scope });
    }
    Ok(())
}

/// Whether `granted` covers `required`. A write scope covers the read scope of the same prefix.
pub fn scope_granted(granted: Option<&[String]>, required: &str) -> bool {
    let Some(granted) = granted else { return true };
    granted.iter().any(|g| {
        g == required || required.strip_suffix(".read").is_some_and(|prefix| g.strip_suffix(".write") == Some(prefix))
    })
}

fn submitted(ask: &Ask<'_>, dry_run: bool, stored: bool) -> Decision {
    if stored && !dry_run {
        return Decision::Replay;
    }
    if ask.profile.review_mode == ReviewMode::Yolo && dry_run && !ask.tool.spec().always_dry_run {
        return Decision::Preview;
    }
    Decision::Propose
}

fn planned(ask: &Ask<'_>, risk: Risk) -> Option<Hold> {
    if ask.tool.spec().always_dry_run {
        return Some(Hold::ProposalOnly);
    }
    if !ask.role.permits(Act::Write) {
        return Some(Hold::Role);
    }
    if !ask.origin.is_ai() {
        return None;
    }
    match (ask.profile.review_mode, risk) {
        (ReviewMode::Required, _) => Some(Hold::Required),
        (ReviewMode::Review, _) => Some(Hold::Review),
        (ReviewMode::Yolo, Risk::High) => Some(Hold::HighRisk),
        (ReviewMode::Yolo, Risk::Low | Risk::Medium) => None,
    }
}

impl Unavailable {
    /// The coded error a call gets: `mnote_tool_disabled` (read-only, disabled) or `mnote_scope_denied`.
    pub fn error(self, tool: Tool) -> Error {
        let name = tool.spec().name.into();
        match self {
            Unavailable::ReadOnly | Unavailable::Disabled => {
                Error::ToolDisabled { tool: name, reason: alloc::string::ToString::to_string(&self) }
            }
            Unavailable::ScopeNotGranted { scope } => Error::ScopeDenied { tool: name, required: scope.into() },
        }
    }
}

/// The human reason, as the manifest's `unsupportedReason` and the error's reason show it.
impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::ReadOnly => f.write_str("document is read-only"),
            Unavailable::Disabled => f.write_str("disabled in the profile"),
            Unavailable::ScopeNotGranted { scope } => write!(f, "capability scope {scope} is not granted"),
        }
    }
}

impl Hold {
    /// The `blockedReason` of a held write's preview.
    pub fn message(self) -> &'static str {
        match self {
            Hold::ProposalOnly => "proposals only apply through a review session",
            Hold::Required => "the profile requires review of every AI write",
            Hold::Review => "the profile reviews every AI write",
            Hold::HighRisk => "high-risk writes need review even in yolo mode",
            Hold::Role => "a viewer's writes are proposals: an editor or owner of the workspace decides",
        }
    }
}

#[cfg(test)]
mod tests;
