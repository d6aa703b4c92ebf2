//! The typed fast path is taken when nothing needs the arguments as a JSON value, and only then.
//! Both paths give the same answers (`tests/it/differential.rs`), so only the pipeline's own trace
//! event (`toolsmith::decode`, level `trace`) tells them apart: this test fails if a change stops
//! the pipeline from taking the fast path, or takes it where a later stage reads the value.
#![cfg(feature = "tracing")]

use serde_json::json;
use toolsmith::audit::MemorySink;
use toolsmith::{model, tool, Envelope, Status, Toolbox};

/// Adds a number of units to a stock level. Returns the new level.
#[tool(read_only)]
fn add_units(
    /// The current stock level, e.g. 12.
    level: u32,
    /// How many units to add, from 1 to 100.
    #[arg(minimum = 1, maximum = 100)]
    units: u32,
) -> u32 {
    level + units
}

/// How goods are packed.
#[model]
#[serde(rename_all = "snake_case")]
#[derive(Debug)]
enum Packing {
    /// Loose boxes.
    Boxes,
    /// Whole pallets.
    Pallets,
}

/// One delivery.
#[model]
#[derive(Debug)]
struct Delivery {
    /// How many units, e.g. 4.
    units: u32,
    /// How they are packed, e.g. "boxes".
    packing: Packing,
    /// A note for the driver, e.g. "gate 3".
    note: Option<String>,
}

/// Schedules deliveries. Returns the number of units.
#[tool(read_only)]
fn schedule_delivery(
    /// The delivery.
    delivery: Delivery,
    /// More deliveries, at most two.
    #[arg(max_items = 2)]
    more: Option<Vec<Delivery>>,
) -> u32 {
    let rest: u32 = more.iter().flatten().map(|d| d.units).sum();
    delivery.units + rest
}

/// Runs one call under a subscriber that takes every `trace` event; the envelope, and whether
/// the fast path's event was seen.
fn call(toolbox: &Toolbox, args: toolsmith::Arguments) -> (Envelope, bool) {
    call_tool(toolbox, "add_units", args)
}

/// [`call`] of the named tool.
fn call_tool(toolbox: &Toolbox, name: &str, args: toolsmith::Arguments) -> (Envelope, bool) {
    call_watching(toolbox, name, args, "typed fast path")
}

/// [`call_tool`], telling whether the call was refused from one parameter's decoded value.
fn call_one_invalid(toolbox: &Toolbox, args: toolsmith::Arguments) -> (Envelope, bool) {
    call_watching(toolbox, "add_units", args, "one invalid parameter answered")
}

/// Calls the named tool under a subscriber that takes every trace event, and tells whether one
/// of them contained `event`.
fn call_watching(
    toolbox: &Toolbox,
    name: &str,
    args: toolsmith::Arguments,
    event: &str,
) -> (Envelope, bool) {
    // Not `with_default`: other modules of this binary call toolboxes on threads without a
    // subscriber at the same time (`common::capture_with` says why that matters).
    let capture = crate::common::capture_trace();
    let env = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(toolbox.call(name, args));
    let text = capture.finish();
    (env, text.contains(event))
}

#[test]
fn one_parameter_outside_its_constraints_is_answered_without_the_general_path() {
    let toolbox = plain();
    let general = Toolbox::builder()
        .tool(add_units::tool())
        .without_typed_decoding()
        .build()
        .unwrap();
    for args in [
        toolsmith::Arguments::from(r#"{"level": 12, "units": 0}"#),
        json!({"level": 12, "units": 0}).into(),
    ] {
        let (env, direct) = call_one_invalid(&toolbox, args.clone());
        assert!(direct, "{args:?}: not answered from the decoded value");
        let (expected, direct) = call_one_invalid(&general, args);
        assert!(!direct);
        let strip = |mut e: Envelope| {
            e.operation_id = None;
            e
        };
        assert_eq!(strip(env), strip(expected));
    }
    // Not when serde refuses the arguments (a wrong type, a missing parameter).
    for bad in [r#"{"level": "12", "units": 3}"#, r#"{"level": 12}"#] {
        let (env, direct) = call_one_invalid(&toolbox, bad.into());
        assert_eq!(env.status, Status::InvalidInput);
        assert!(!direct, "{bad}");
    }
}

fn plain() -> Toolbox {
    Toolbox::builder().tool(add_units::tool()).build().unwrap()
}

#[test]
fn a_valid_call_on_a_plain_toolbox_takes_the_fast_path_from_text_and_from_a_value() {
    let toolbox = plain();
    let (env, fast) = call(&toolbox, r#"{"level": 12, "units": 3}"#.into());
    assert_eq!((env.status, env.data), (Status::Ok, Some(json!(15))));
    assert!(
        fast,
        "valid text arguments did not take the typed fast path"
    );
    let (env, fast) = call(&toolbox, json!({"level": 12, "units": 3}).into());
    assert_eq!((env.status, env.data), (Status::Ok, Some(json!(15))));
    assert!(
        fast,
        "valid value arguments did not take the typed fast path"
    );
}

#[test]
fn arguments_the_fast_path_cannot_prove_valid_go_the_general_way() {
    let toolbox = plain();
    for bad in [
        r#"{"level": 12, "units": 0}"#,
        r#"{"level": 12}"#,
        r#"{"level": "12", "units": 3}"#,
        r#"{"level": 12, "units": 3, "extra": true}"#,
        "{not json",
    ] {
        let (env, fast) = call(&toolbox, bad.into());
        assert_eq!(env.status, Status::InvalidInput, "{bad}");
        assert!(
            !fast,
            "{bad}: refused arguments were reported as fast-path decoded"
        );
    }
}

#[test]
fn a_toolbox_whose_stages_read_the_arguments_as_a_value_never_takes_it() {
    // The audit stage digests the argument value.
    let audited = Toolbox::builder()
        .tool(add_units::tool())
        .audit(MemorySink::new())
        .build()
        .unwrap();
    let (env, fast) = call(&audited, r#"{"level": 12, "units": 3}"#.into());
    assert_eq!((env.status, env.data), (Status::Ok, Some(json!(15))));
    assert!(
        !fast,
        "an audited call skipped the argument value the audit digests"
    );
    // Switched off for comparisons.
    let general = Toolbox::builder()
        .tool(add_units::tool())
        .without_typed_decoding()
        .build()
        .unwrap();
    let (env, fast) = call(&general, r#"{"level": 12, "units": 3}"#.into());
    assert_eq!((env.status, env.data), (Status::Ok, Some(json!(15))));
    assert!(!fast);
}

#[test]
fn a_valid_call_with_model_parameters_takes_the_fast_path() {
    let toolbox = Toolbox::builder()
        .tool(schedule_delivery::tool())
        .build()
        .unwrap();
    let args = json!({
        "delivery": {"units": 4, "packing": "boxes", "note": null},
        "more": [{"units": 2, "packing": "pallets", "note": "gate 3"}, {"units": 1, "packing": "boxes"}],
    });
    for args in [
        toolsmith::Arguments::Text(args.to_string()),
        toolsmith::Arguments::Value(args),
    ] {
        let (env, fast) = call_tool(&toolbox, "schedule_delivery", args);
        assert_eq!((env.status, env.data), (Status::Ok, Some(json!(7))));
        assert!(
            fast,
            "a valid model-typed call did not take the typed fast path"
        );
    }
    // What serde reads and the schema does not allow, and what breaks a constraint, go the
    // general way (which refuses them).
    for bad in [
        r#"{"delivery": {"units": 4, "packing": "boxes", "extra": 1}}"#,
        r#"{"delivery": [4, "boxes", null]}"#,
        r#"{"delivery": {"units": 4, "packing": {"boxes": null}}}"#,
        r#"{"delivery": {"units": 4, "packing": "crates"}}"#,
        r#"{"delivery": {"units": 4}}"#,
        r#"{"delivery": {"units": 4, "packing": "boxes"}, "more": [{"units": 1, "packing": "boxes"}, {"units": 1, "packing": "boxes"}, {"units": 1, "packing": "boxes"}]}"#,
    ] {
        let (env, fast) = call_tool(&toolbox, "schedule_delivery", bad.into());
        assert_eq!(env.status, Status::InvalidInput, "{bad}");
        assert!(
            !fast,
            "{bad}: refused arguments were reported as fast-path decoded"
        );
    }
    // A repeated key: serde refuses it, the general path reads the last one.
    let (env, fast) = call_tool(
        &toolbox,
        "schedule_delivery",
        r#"{"delivery": {"units": 4, "units": 5, "packing": "boxes"}}"#.into(),
    );
    assert_eq!((env.status, env.data), (Status::Ok, Some(json!(5))));
    assert!(!fast);
}
