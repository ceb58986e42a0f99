//! Who is asking ([`Origin`], core's vocabulary) and what an AI caller owes before its write is read: the
//! frozen context of its run.

use crate::error::{Error, FieldError};
use crate::policy;
pub use crate::vocab::Origin;
use crate::vocab::Tool;

/// [`policy::check_bound`] for a call as sent, given what its parse answered (`parsed`) and the `contextId` it
/// names: a write whose arguments are bad and name no `contextId` is refused for every bad field at once,
/// the missing `contextId` listed with them, so a model fixes its call in one go rather than learning of
/// one mistake per call. Called by the parse ([`super::SentCall`]).
pub fn check_call_bound(
    tool: Tool,
    origin: Origin,
    context_id: Option<&str>,
    parsed: Result<(), Error>,
) -> Result<(), Error> {
    let bound = policy::check_bound(tool, origin, context_id);
    match (parsed, bound) {
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
