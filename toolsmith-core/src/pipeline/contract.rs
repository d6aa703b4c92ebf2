//! Stage `output_contract`: when the toolbox checks it (`ToolboxBuilder::check_output_contract`,
//! by default in debug builds and so in tests) the tool's result must match its declared output
//! schema, or the call is `failed` with `OUTPUT_CONTRACT` (the validation errors
//! go to the audit record only). A result nested deeper than `limits::MAX_RESULT_DEPTH` levels is
//! `failed` with `OUTPUT_NOT_ENCODABLE` (JSON readers would refuse the envelope). The reply becomes
//! the answer: its data, note and `truncated`. A result encoded as JSON text (`call_json`) is
//! written no deeper than the limit (see `__private::encode`) and kept as `data_text`.

use super::{CallState, Step};
use crate::codes;
use crate::envelope::Envelope;
use crate::error::ToolError;
use crate::reply::{Encoded, Reply};
use serde_json::Value;

pub(super) fn run(call: &mut CallState<'_>) -> Step {
    let Some(reply) = call.reply.take() else {
        return Step::Continue;
    };
    let Reply {
        data,
        note,
        truncated,
    } = reply;
    // The answer is built where the call keeps it (as `Step::Answer` would set it): an
    // envelope is not moved again.
    let env = match data {
        Encoded::Value(data) => {
            if let Some(step) = check(call, &data, || {
                crate::limits::deeper_than(&data, crate::limits::MAX_RESULT_DEPTH)
            }) {
                return step;
            }
            call.env.insert(Envelope::ok(data))
        }
        Encoded::Text {
            json: text,
            redaction_clean,
        } => {
            // `encode` writes text no deeper than the limit (a deeper result comes as a value,
            // refused above). The validator reads values: when the contract is checked, the text
            // is parsed for it.
            if call.entry().output_validator.is_some() {
                let checked = match serde_json::from_str::<Value>(&text) {
                    Ok(value) => check(call, &value, || false),
                    Err(e) => {
                        call.detail = Some(format!("result text does not parse back: {e}"));
                        Some(Step::answer(unencodable().into_envelope()))
                    }
                };
                if let Some(step) = checked {
                    return step;
                }
            }
            // `Envelope::ok` leaves a `null` result out; so does the text path.
            if text != "null" {
                call.data_text = Some(text);
                call.data_text_clean = redaction_clean;
            }
            call.env.insert(Envelope::ok(Value::Null))
        }
    };
    env.note = note;
    env.truncated = truncated;
    Step::Continue
}

/// The output schema (when checked) and the depth bound: the answer that replaces a result that
/// fails either, or `None` when it passes.
fn check(call: &mut CallState<'_>, data: &Value, too_deep: impl FnOnce() -> bool) -> Option<Step> {
    if let Some(v) = &call.entry().output_validator {
        if let Err(errors) = v.validate(data) {
            let detail = errors
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            call.detail = Some(format!("output contract: {detail}"));
            return Some(Step::answer(
                ToolError::failed(
                    codes::OUTPUT_CONTRACT,
                    "The tool returned a result that does not match its declared output, so it is not shown. Retrying will not help; tell the user the tool is not working correctly.",
                )
                .into_envelope(),
            ));
        }
    }
    too_deep().then(|| deep(call))
}

/// The answer to a result nested deeper than `limits::MAX_RESULT_DEPTH`.
fn deep(call: &mut CallState<'_>) -> Step {
    call.detail = Some(format!(
        "result nests deeper than {} levels",
        crate::limits::MAX_RESULT_DEPTH
    ));
    Step::answer(too_deep())
}

/// A result that cannot be encoded as JSON: `serde_json` refused to write it (or the text it
/// was written to does not read back).
pub(crate) fn unencodable() -> ToolError {
    ToolError::failed(
        codes::OUTPUT_NOT_ENCODABLE,
        "The tool produced a result that could not be encoded as JSON. Retrying will not help; tell the user the action may have completed but its result is unavailable.",
    )
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
