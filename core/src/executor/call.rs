//! A tool call, typed: the one parse of a call's name and JSON arguments ([`ToolArgs::parse`], and
//! [`SentCall`] for a call that arrives over the wire), and the typed call the executor, review and the
//! Worker's access checks and audit take ([`ToolCall`]).
//!
//! A call is parsed once, where it enters: the Worker's MCP and tool routes, its command route (from the
//! router's typed write) and its people's-edits route (from core's typed [`crate::edits::BlockEdits`]).
//! Nothing below the parse reads the arguments' JSON again: the `contextId`, `documentId`,
//! `idempotencyKey`, `dryRun` and allowed blocks a layer needs come from the typed arguments.
//!
//! The idempotency fingerprint is over the arguments *as sent* (a `null` field, a float written `1.0`, the
//! keys a client added all count), so the parse keeps it: the fingerprints are taken from the JSON the parse read,
//! and a call typed by core (no JSON) fingerprints its own arguments serialized, which is what the same call
//! sent as JSON would be.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use serde_json::Value;

use super::idempotency::fingerprint_sent;
use super::{Origin, Planned, WriteArgs};
use crate::error::{Error, Result};
use crate::json::from_value_ref;
use crate::manifest::{Tool, args};

/// A read tool's arguments, typed.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadArgs {
    /// `mnote.doc.fetch`
    DocFetch(args::DocFetchArgs),
    /// `mnote.block.fetch`
    BlockFetch(args::BlockFetchArgs),
    /// `mnote.doc.search`
    DocSearch(args::DocSearchArgs),
}

/// A call's arguments, parsed into the type of its tool.
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    /// A read.
    Read(ReadArgs),
    /// A write. Boxed: write arguments are several times the size of a read's.
    Write(Box<WriteArgs>),
}

/// The fingerprints of a write's arguments as sent, taken at the parse (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prints {
    /// Of the arguments with `dryRun:false`: what an applied write is recorded under for idempotent replays.
    apply: Option<String>,
    /// Of the arguments without `dryRun`: what a review session is found again by.
    proposal: Option<String>,
}

/// A tool call's arguments, typed, with the fingerprints of the JSON they were parsed from (if any), and
/// the write's plan once one was made for them (attached by core only).
#[derive(Debug, Clone)]
pub struct ToolArgs {
    typed: Typed,
    prints: Prints,
    planned: Option<Arc<Planned>>,
}

impl PartialEq for ToolArgs {
    /// Arguments are equal when they say the same: a plan made for them is how they are answered, not what.
    fn eq(&self, other: &Self) -> bool {
        self.typed == other.typed && self.prints == other.prints
    }
}

impl ToolArgs {
    /// Parses `json` as the arguments of the tool named `tool_name` (dotted or MCP name): the one parse of
    /// a call. An unknown name is `mnote_unknown_tool` with the nearest names; bad arguments are
    /// `mnote_invalid_arguments`, every bad field by JSON pointer.
    pub fn parse(tool_name: &str, json: &Value) -> Result<Self> {
        Self::parse_tool(tool_of(tool_name)?, json, true)
    }

    /// The parse, with both fingerprints taken (`all`) or none yet.
    fn parse_tool(tool: Tool, json: &Value, all: bool) -> Result<Self> {
        let mut args = ToolArgs { typed: parse_typed(tool, json)?, prints: Prints::default(), planned: None };
        if all {
            args.take_prints(json);
        }
        Ok(args)
    }

    /// Takes both fingerprints from `json`, the JSON these arguments were parsed from.
    fn take_prints(&mut self, json: &Value) {
        let Typed::Write(write) = &self.typed else { return };
        let name = write.tool().spec().name;
        self.prints.apply = Some(fingerprint_sent(name, json, Some(false)));
        self.prints.proposal = Some(fingerprint_sent(name, json, None));
    }

    /// The typed arguments.
    pub fn typed(&self) -> &Typed {
        &self.typed
    }

    /// The tool.
    pub fn tool(&self) -> Tool {
        match &self.typed {
            Typed::Read(ReadArgs::DocFetch(_)) => Tool::DocFetch,
            Typed::Read(ReadArgs::BlockFetch(_)) => Tool::BlockFetch,
            Typed::Read(ReadArgs::DocSearch(_)) => Tool::DocSearch,
            Typed::Write(write) => write.tool(),
        }
    }

    /// The write's arguments; `None` for a read.
    pub fn write(&self) -> Option<&WriteArgs> {
        match &self.typed {
            Typed::Write(write) => Some(write),
            Typed::Read(_) => None,
        }
    }

    /// The frozen context the call names, if any.
    pub fn context_id(&self) -> Option<&str> {
        match &self.typed {
            Typed::Read(ReadArgs::DocFetch(a)) => a.context_id.as_deref(),
            Typed::Read(ReadArgs::BlockFetch(a)) => a.context_id.as_deref(),
            Typed::Read(ReadArgs::DocSearch(a)) => a.context_id.as_deref(),
            Typed::Write(write) => write.context_id(),
        }
    }

    /// The same call with `dryRun` set (a write tool that has the field; `plan_update` never writes).
    pub fn with_dry_run(&self, dry_run: bool) -> Self {
        let mut args = self.clone();
        args.set_dry_run(dry_run);
        args
    }

    /// Sets `dryRun` (a write tool that has the field). A plan made for the arguments stays theirs: a
    /// preview and an apply plan alike.
    pub fn set_dry_run(&mut self, dry_run: bool) {
        if let Typed::Write(write) = &mut self.typed {
            write.set_dry_run(dry_run);
        }
    }

    /// These arguments with the plan made for them ([`Planned`]), which the executor then answers from on
    /// the page it was made on. Only core attaches a plan, to the arguments it was made from. `None` keeps
    /// the plan they had.
    pub(crate) fn with_plan(mut self, planned: Option<Arc<Planned>>) -> Self {
        self.planned = planned.or(self.planned);
        self
    }

    /// The fingerprint a review session is found again by: the tool and the arguments without `dryRun`.
    pub fn proposal_fingerprint(&self) -> Result<String> {
        match (&self.prints.proposal, &self.typed) {
            (Some(print), _) => Ok(print.clone()),
            (None, Typed::Write(write)) => write.fingerprint(None),
            (None, Typed::Read(_)) => Ok(String::new()),
        }
    }

    /// The fingerprint an applied write is recorded under: the tool and the arguments as applied.
    #[cfg(test)]
    fn apply_fingerprint(&self) -> Option<&str> {
        self.prints.apply.as_deref()
    }

    /// Splits into the typed arguments, the apply fingerprint taken at the parse, and the plan made for them.
    pub(super) fn into_parts(self) -> (Typed, Option<String>, Option<Arc<Planned>>) {
        (self.typed, self.prints.apply, self.planned)
    }
}

impl From<WriteArgs> for ToolArgs {
    /// A write typed by core (the router's recommendation, a person's block edits): fingerprinted from its
    /// own serialization, which is the JSON the same call would be sent as.
    fn from(write: WriteArgs) -> Self {
        ToolArgs { typed: Typed::Write(Box::new(write)), prints: Prints::default(), planned: None }
    }
}

/// The tool a name names (dotted or MCP), or `mnote_unknown_tool` with the nearest names.
pub(super) fn tool_of(name: &str) -> Result<Tool> {
    Tool::from_name(name).ok_or_else(|| unknown_tool(name))
}

fn unknown_tool(name: &str) -> Error {
    Error::UnknownTool {
        name: name.into(),
        nearest: crate::error::nearest_ids(name, Tool::ALL.iter().map(|t| t.spec().mcp_name)),
    }
}

/// Every tool, one arm each: a new tool does not compile until it is parsed here.
pub(super) fn parse_typed(tool: Tool, json: &Value) -> Result<Typed> {
    Ok(match tool {
        Tool::DocFetch => Typed::Read(ReadArgs::DocFetch(from_value_ref(json)?)),
        Tool::BlockFetch => Typed::Read(ReadArgs::BlockFetch(from_value_ref(json)?)),
        Tool::DocSearch => Typed::Read(ReadArgs::DocSearch(from_value_ref(json)?)),
        Tool::DocApplyBlockOps => Typed::Write(WriteArgs::ApplyBlockOps(from_value_ref(json)?).into()),
        Tool::DocPlanUpdate => Typed::Write(WriteArgs::PlanUpdate(from_value_ref(json)?).into()),
        Tool::BlockInsert => Typed::Write(WriteArgs::BlockInsert(from_value_ref(json)?).into()),
        Tool::BlockUpdate => Typed::Write(WriteArgs::BlockUpdate(from_value_ref(json)?).into()),
        Tool::BlockDelete => Typed::Write(WriteArgs::BlockDelete(from_value_ref(json)?).into()),
        Tool::BlockMove => Typed::Write(WriteArgs::BlockMove(from_value_ref(json)?).into()),
        Tool::PageSave => Typed::Write(WriteArgs::PageSave(from_value_ref(json)?).into()),
    })
}

/// One tool call, typed: its arguments (the tool is theirs), who calls, through which origin, and the ids
/// and clock it carries. What [`super::execute_call`], [`crate::review::submit`] and
/// [`crate::review::propose`] take.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall<'a> {
    /// The arguments, parsed once.
    pub args: ToolArgs,
    /// Who is asking.
    pub origin: Origin,
    /// The actor recorded in the audit.
    pub actor: &'a str,
    /// The caller's clock, RFC 3339.
    pub at: &'a str,
    /// The tool call's id.
    pub tool_call_id: &'a str,
    /// The id to give a context this call freezes (`doc.fetch`, `block.fetch`).
    pub new_context_id: &'a str,
}

/// A tool call as a client sent it (a name and JSON arguments), parsed once where it enters: the typed
/// arguments or the coded error they earn, kept with the name and the JSON (which the front Worker forwards
/// to the document's object, whose door parses it again by this same function, [`SentCall::parse`]).
///
/// A refused call is still evented and acts for someone: the tool its name names and the `contextId` and
/// `documentId` its JSON names, read by the parse, say which.
#[derive(Debug, Clone)]
pub struct SentCall {
    name: String,
    /// `None` for a write typed by core, whose JSON is its serialization (made only if it is forwarded).
    json: Option<Value>,
    tool: Option<Tool>,
    args: Result<ToolArgs>,
    context_id: Option<String>,
    document_id: Option<String>,
    object: bool,
}

impl SentCall {
    /// Parses a call as sent: see [`ToolArgs::parse`]. Never fails: the error is the call's answer.
    pub fn parse(name: String, json: Value) -> Self {
        let tool = Tool::from_name(&name);
        let args = match tool {
            Some(tool) => ToolArgs::parse_tool(tool, &json, false),
            None => Err(unknown_tool(&name)),
        };
        let named = |key: &str| json.get(key).and_then(Value::as_str).map(String::from);
        let (context_id, document_id) = (named("contextId"), named("documentId"));
        let object = json.is_object();
        SentCall { name, json: Some(json), tool, args, context_id, document_id, object }
    }

    /// A call typed by core (the router's recommendation, a person's block edits), as if it had been sent.
    pub fn typed(args: impl Into<ToolArgs>) -> Self {
        let args: ToolArgs = args.into();
        let tool = args.tool();
        let context_id = args.context_id().map(String::from);
        let document_id = args.write().map(|w| w.document_id().to_string());
        let args = Ok(args);
        SentCall {
            name: tool.spec().name.into(),
            json: None,
            tool: Some(tool),
            args,
            context_id,
            document_id,
            object: true,
        }
    }

    /// The arguments as sent, or a typed write serialized: what the front Worker forwards.
    pub fn json(&self) -> Result<Cow<'_, Value>> {
        match (&self.json, &self.args) {
            (Some(json), _) => Ok(Cow::Borrowed(json)),
            (None, Ok(args)) => match args.write() {
                Some(write) => crate::json::to_value(write).map(Cow::Owned),
                None => Ok(Cow::Owned(Value::Null)),
            },
            (None, Err(error)) => Err(error.clone()),
        }
    }

    /// The name as sent.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tool the name names, if any.
    pub fn tool(&self) -> Option<Tool> {
        self.tool
    }

    /// The tool's dotted name, or the name as sent when it names no tool: what events and replies show.
    pub fn shown_name(&self) -> &str {
        self.tool.map_or(self.name.as_str(), |t| t.spec().name)
    }

    /// The `contextId` the arguments name, even when they are otherwise bad.
    pub fn context_id(&self) -> Option<&str> {
        self.context_id.as_deref()
    }

    /// The `documentId` the arguments name, even when they are otherwise bad.
    pub fn document_id(&self) -> Option<&str> {
        self.document_id.as_deref()
    }

    /// Whether the arguments are a JSON object.
    pub fn args_are_object(&self) -> bool {
        self.object
    }

    /// The binding rule for an AI write ([`super::check_call_bound`]): a write that names no
    /// context is refused, its bad fields (if any) listed with the missing `contextId`.
    pub fn check_bound(&self, origin: Origin) -> Result<()> {
        match self.tool.filter(|t| t.writes()) {
            Some(tool) => {
                let parsed = self.args.as_ref().map(drop).map_err(Clone::clone);
                super::check_call_bound(tool, origin, self.context_id(), parsed)
            }
            None => Ok(()),
        }
    }

    /// The typed arguments, or the coded error the call earned; an AI write that names no context is
    /// refused here ([`SentCall::check_bound`]), so no caller runs one.
    pub fn into_args(self, origin: Origin) -> Result<ToolArgs> {
        self.check_bound(origin)?;
        let mut args = self.args?;
        if let Some(json) = &self.json {
            args.take_prints(json);
        }
        Ok(args)
    }
}

impl PartialEq for SentCall {
    /// Two sent calls are equal when they were sent alike: the parse is a function of the name and JSON.
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.json == other.json && self.args == other.args
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, reason = "a failed expectation is the test's report")]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::executor::idempotency::fingerprint;

    fn args(dry_run: bool) -> Value {
        json!({"documentId": "doc_1", "baseRevision": 0, "dryRun": dry_run, "idempotencyKey": "k",
            "contextId": "ctx_1", "allowedTargetBlockIds": null,
            "operations": [{"op": "update", "blockId": "p_1", "text": "x"}]})
    }

    #[test]
    fn the_parse_keeps_the_fingerprints_of_the_arguments_as_sent() {
        let name = Tool::DocApplyBlockOps.spec().name;
        let sent = SentCall::parse("doc_apply_block_ops".into(), args(true));
        let parsed = sent.into_args(Origin::Hermes).unwrap();
        // The apply's: the JSON with dryRun:false, `null` included, exactly as the executor hashed it.
        assert_eq!(parsed.apply_fingerprint(), Some(fingerprint(name, &args(false)).as_str()));
        let mut without = args(true);
        without.as_object_mut().unwrap().remove("dryRun");
        assert_eq!(parsed.proposal_fingerprint().unwrap(), fingerprint(name, &without));
        assert_eq!(parsed.with_dry_run(false).proposal_fingerprint().unwrap(), fingerprint(name, &without));
    }

    #[test]
    fn a_write_typed_by_core_is_fingerprinted_as_the_same_call_sent() {
        let json = json!({"documentId": "doc_1", "baseRevision": 0, "dryRun": false, "idempotencyKey": "k",
            "operations": [{"op": "update", "blockId": "p_1", "text": "x"}]});
        let parsed = ToolArgs::parse("doc_apply_block_ops", &json).unwrap();
        let write = parsed.write().cloned().unwrap();
        let sent = SentCall::parse("doc_apply_block_ops".into(), json);
        let typed = SentCall::typed(write.clone()).into_args(Origin::User).unwrap();
        let sent = sent.into_args(Origin::User).unwrap();
        assert_eq!(typed.proposal_fingerprint().unwrap(), sent.proposal_fingerprint().unwrap());
        assert_eq!(write.fingerprint(Some(false)).unwrap(), sent.apply_fingerprint().unwrap_or_default());
    }

    #[test]
    fn a_refused_call_still_names_its_tool_context_and_document() {
        let sent = SentCall::parse("doc_fetchh".into(), json!({"documentId": "doc_1", "contextId": "ctx_1"}));
        assert_eq!((sent.tool(), sent.context_id(), sent.document_id()), (None, Some("ctx_1"), Some("doc_1")));
        assert_eq!(sent.shown_name(), "doc_fetchh");
        let error = sent.into_args(Origin::Hermes).unwrap_err();
        assert_eq!(error.code().as_str(), "mnote_unknown_tool");
    }

    #[test]
    fn an_ai_write_without_a_context_never_leaves_the_parse() {
        let mut unbound = args(false);
        unbound.as_object_mut().unwrap().remove("contextId");
        let sent = SentCall::parse("doc_apply_block_ops".into(), unbound);
        assert_eq!(sent.clone().into_args(Origin::Shortcut).unwrap_err().code().as_str(), "mnote_context_required");
        // A person's write needs no context.
        assert!(sent.into_args(Origin::User).is_ok());
    }
}
