//! Who is asking ([`Origin`], core's vocabulary) and what an AI caller owes before its write is read: the
//! frozen context of its run.

use serde_json::Value;

use crate::error::{Error, FieldError};
use crate::policy;
pub use crate::vocab::Origin;
use crate::vocab::Tool;

/// [`policy::check_bound`] for a call's JSON arguments, after checking them: a write whose arguments are
/// bad and name no `contextId` is refused for every bad field at once, the missing `contextId` listed with
/// them, so a model fixes its call in one go rather than learning of one mistake per call.
pub fn check_call_bound(tool: Tool, origin: Origin, args: &Value) -> Result<(), Error> {
    let context_id = args.get("contextId").and_then(Value::as_str);
    let bound = policy::check_bound(tool, origin, context_id);
    match (super::check_arguments(tool, args), bound) {
        (Ok(()), bound) => bound,
        (Err(Error::InvalidArguments { pointer, reason, mut more }), Err(_)) => {
            more.push(FieldError {
                pointer: "/contextId".into(),
                reason: "every AI write names the frozen context of its run: the contextId doc_fetch answered".into(),
            });
            Err(Error::InvalidArguments { pointer, reason, more })
        }
        (Err(error), _) => Err(error),
    }
}
