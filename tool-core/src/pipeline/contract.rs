//! Stage `output_contract`: in debug builds (and so in tests) the tool's result must match its
//! declared output schema, or the call is `failed` with `OUTPUT_CONTRACT` (the validation errors
//! go to the audit record only). The reply becomes the answer: its data, note and `truncated`.

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
    let mut env = Envelope::ok(reply.data);
    env.note = reply.note;
    env.truncated = reply.truncated;
    Step::Answer(env)
}
