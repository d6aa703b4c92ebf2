//! Stage `decode`: the arguments as sent (JSON text or a value) become one JSON value.
//! "No arguments" (`null`, empty text) becomes the empty object.

use super::{CallState, Step};
use crate::codes;
use crate::envelope::{Envelope, Status};
use crate::toolbox::Arguments;
use serde_json::Value;

pub(super) fn run(call: &mut CallState<'_>) -> Step {
    let mut args = match call.raw.take() {
        Some(Arguments::Value(v)) => v,
        Some(Arguments::Text(text)) => match parse_text(&text) {
            Ok(v) => v,
            Err(env) => return Step::Refuse(*env),
        },
        None => Value::Null,
    };
    if args.is_null() {
        // "No arguments" is sent as null by some clients.
        args = Value::Object(Default::default());
    }
    call.args = Some(args);
    Step::Continue
}

/// Parses JSON text arguments; blank text is the empty object.
pub(super) fn parse_text(text: &str) -> Result<Value, Box<Envelope>> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|e| {
        Box::new(Envelope::error(
            Status::InvalidInput,
            codes::INVALID_INPUT,
            format!(
                "The arguments are not valid JSON ({e}). Send one JSON object, e.g. {{\"name\": \"value\"}}."
            ),
        ))
    })
}
