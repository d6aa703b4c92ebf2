//! Stage `output_contract`: in debug builds (and so in tests) the tool's result must match its
//! declared output schema, or the call is `failed` with `OUTPUT_CONTRACT` (the validation errors
//! go to the audit record only). A result nested deeper than `limits::MAX_RESULT_DEPTH` levels is
//! `failed` with `OUTPUT_NOT_ENCODABLE` (JSON readers would refuse the envelope). The reply becomes
//! the answer: its data, note and `truncated`.

use super::{CallState, Step};
use crate::codes;
use crate::envelope::Envelope;
use crate::error::ToolError;

pub(super) fn run(call: &mut CallState<'_>) -> Step {
    let Some(reply) = call.reply.take() else {
        return Step::Continue;
    };
    if let Some(v) = &call.entry().output_validator {
        if let Err(errors) = v.validate(&reply.data) {
            let detail = errors
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            call.detail = Some(format!("output contract: {detail}"));
            return Step::Answer(
                ToolError::failed(
                    codes::OUTPUT_CONTRACT,
                    "The tool returned a result that does not match its declared output, so it is not shown. Retrying will not help; tell the user the tool is not working correctly.",
                )
                .into_envelope(),
            );
        }
    }
    if crate::limits::deeper_than(&reply.data, crate::limits::MAX_RESULT_DEPTH) {
        call.detail = Some(format!(
            "result nests deeper than {} levels",
            crate::limits::MAX_RESULT_DEPTH
        ));
        return Step::Answer(too_deep());
    }
    let mut env = Envelope::ok(reply.data);
    env.note = reply.note;
    env.truncated = reply.truncated;
    Step::Answer(env)
}

/// A result too deep for JSON readers (serde_json stops at 128 levels) would reach the client as
/// an answer it cannot parse; it is replaced, like any result that cannot be encoded.
fn too_deep() -> Envelope {
    ToolError::failed(
        codes::OUTPUT_NOT_ENCODABLE,
        format!(
            "The tool produced a result nested deeper than {} levels, which JSON clients cannot read, so it is not shown. Retrying will not help; tell the user the action may have completed but its result is unavailable.",
            crate::limits::MAX_RESULT_DEPTH
        ),
    )
    .into_envelope()
}
