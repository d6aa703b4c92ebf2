//! Stage `validate`: the arguments every later stage (the approver, the hooks, the tool) sees.
//! Strict-mode `null`s of optional parameters are dropped, the value is validated against the
//! exact schema the model was given, integers written as floats are normalized, and declared
//! defaults are filled in.

use super::{audit, CallState, Entry, Step};
use crate::codes;
use crate::envelope::{Envelope, Status};
use crate::validate::{self, Valid};
use serde_json::Value;

/// Stage `validate`; the audit trail keeps the digest of the validated arguments (for the
/// record of a call dropped later).
pub(super) fn run(trail: &audit::AuditTrail, call: &mut CallState<'_>) -> Step {
    let Some(mut args) = call.args.take() else {
        return Step::Continue;
    };
    let result = arguments(call.entry(), &mut args);
    call.args = Some(args);
    match result {
        Ok(()) => {
            audit::remember_args(trail, call);
            Step::Continue
        }
        Err(env) => Step::refuse(env),
    }
}

/// Cleans, validates and completes decoded arguments in place: the one point where a call's
/// arguments are checked against its tool.
#[allow(clippy::result_large_err)]
pub(super) fn arguments(entry: &Entry, args: &mut Value) -> Result<(), Envelope> {
    checked(entry, args).map_err(invalid_arguments)
}

/// [`arguments`], the problems found as they are (for `Toolbox::check_arguments`).
pub(crate) fn checked(entry: &Entry, args: &mut Value) -> Result<(), Vec<validate::ArgError>> {
    let spec = entry.tool.spec();
    // Strict-mode clients (OpenAI) send null for an optional parameter they leave out.
    if contains_null(args) {
        validate::strip_null_optionals(&spec.input_schema, args);
    }
    match entry.validator.validate(args)? {
        Valid::AsIs => {}
        Valid::NormalizeIntegers => validate::normalize_integers(args),
    }
    if entry.tool.is_generated() {
        apply_defaults(&spec.input_schema, args);
    }
    Ok(())
}

/// Fills in the declared default of every absent top-level parameter, as the generated
/// executor's decoding does, so the approver and the hooks see what the tool will run with.
fn apply_defaults(schema: &Value, args: &mut Value) {
    let (Some(props), Value::Object(map)) =
        (schema.get("properties").and_then(Value::as_object), args)
    else {
        return;
    };
    for (name, prop) in props {
        if let Some(default) = prop.get("default") {
            if !map.contains_key(name) {
                map.insert(name.clone(), default.clone());
            }
        }
    }
}

fn contains_null(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(items) => items.iter().any(contains_null),
        Value::Object(map) => map.values().any(contains_null),
        _ => false,
    }
}

/// The answer to arguments that the typed fast path decoded and whose every parameter but
/// `name` passed its checks ([`crate::typed::Decoded::OneInvalid`]): the validator's problems
/// with that one value, which are those of the whole arguments. `None` when the validator
/// cannot tell from the one value (the general path then decides).
pub(super) fn one_parameter(entry: &Entry, name: &str, value: &Value) -> Option<Envelope> {
    let errors = entry.validator.parameter_errors(name, value)?;
    Some(invalid_arguments(errors))
}

fn invalid_arguments(errors: Vec<validate::ArgError>) -> Envelope {
    let code = errors.first().map_or(codes::INVALID_ARGUMENT, |e| e.code);
    let message = errors
        .iter()
        .map(|e| e.message.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let mut env = Envelope::error(Status::InvalidInput, code, message);
    if errors.len() > 1 {
        let list: Vec<Value> = errors
            .iter()
            .map(|e| serde_json::json!({"path": e.path, "code": e.code, "message": e.message}))
            .collect();
        env.data = Some(serde_json::json!({ "errors": list }));
    }
    env
}
