//! Golden tests of generated specs, and the schema hygiene rules checked one by one.
//!
//! Each tool's spec, serialized pretty, is compared exactly with `tests/golden/schemas/<tool>.json`.
//! Run with `TOOLSMITH_UPDATE_SNAPSHOTS=1` to rewrite the files, then review the diff.

use crate::common;

use common::validation_tools::Colour;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use toolsmith::{model, tool, tools, Status, Tool, ToolError, Toolbox};

// ---------------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------------

/// Room types.
#[model]
#[serde(rename_all = "snake_case")]
#[derive(Clone, Copy)]
pub enum Room {
    /// One bed, one guest.
    Single,
    /// One wide bed, up to two guests.
    Double,
    /// Two rooms, up to four guests.
    Suite,
}

/// A booking request.
#[model]
pub struct Booking {
    /// The room type, e.g. "double".
    pub room: Room,
    /// Number of guests, e.g. 2.
    pub guests: u8,
    /// Wishes for the stay, e.g. "late arrival".
    pub notes: Option<String>,
    /// A second choice of room, e.g. "single".
    pub fallback: Option<Room>,
    /// Paint colour wished for, e.g. "blue".
    pub colour: Option<Colour>,
}

/// A confirmed booking.
#[model]
pub struct Confirmation {
    /// Booking reference, e.g. "BK-1042".
    pub reference: String,
    /// The room booked.
    pub room: Room,
    /// A note from the hotel, if any.
    pub note: Option<String>,
    /// A free upgrade, if any.
    pub upgrade: Option<Room>,
}

/// A postal address.
#[model]
pub struct Address {
    /// Street and number, e.g. "Storgata 1".
    pub street: String,
    /// Postal code, e.g. "0155".
    pub postcode: String,
}

/// A parcel to ship.
#[model]
pub struct Parcel {
    /// Weight in grams, e.g. 1200.
    pub grams: u32,
    /// Whether the contents are fragile, e.g. false.
    #[serde(default)]
    pub fragile: bool,
}

/// A shipping receipt.
#[model]
pub struct Receipt {
    /// Tracking number, e.g. "TRK-88".
    pub tracking: String,
    /// Price in NOK, e.g. 149.
    pub price_nok: u32,
}

/// A directory tree.
#[model]
pub struct TreeNode {
    /// Entry name, e.g. "src".
    pub name: String,
    /// Entries inside.
    pub children: Vec<TreeNode>,
}

/// A shape to cut.
#[model]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A circle.
    Circle {
        /// Radius in cm, e.g. 4.5.
        radius: f64,
    },
    /// A square.
    Square {
        /// Side in cm, e.g. 10.
        side: f64,
    },
}

/// A loan of a book.
#[model]
pub struct Loan {
    /// The ISBN, e.g. "978-0131103627".
    pub isbn: String,
    /// Days until it is due, e.g. 21.
    pub days: u16,
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

/// Reports the server's clock. Returns the time as HH:MM.
#[tool(read_only)]
pub fn get_server_time() -> String {
    "12:00".into()
}

/// Echoes text after a pause. Returns the same text.
#[tool(read_only)]
#[allow(clippy::result_large_err)] // ToolError is large; see the report on result_large_err.
pub async fn echo_text(
    /// Text to echo, e.g. "hello".
    text: String,
) -> Result<String, ToolError> {
    Ok(text)
}

/// Lists files in a directory. Returns the file names.
#[tool(read_only)]
pub fn list_files(
    /// Directory to list, e.g. "docs". Defaults to the workspace root.
    dir: Option<String>,
    /// Most names to return, e.g. 50.
    limit: Option<u32>,
    /// Whether to include hidden files, e.g. false.
    hidden: Option<bool>,
) -> Vec<String> {
    let _ = (dir, limit, hidden);
    vec!["a.txt".into()]
}

/// Creates a user account. Returns nothing; the account exists afterwards.
#[tool(writes, idempotent)]
#[allow(clippy::result_large_err, clippy::too_many_arguments)]
pub fn create_user(
    /// Login name, e.g. "ada_l".
    #[arg(min_length = 3, max_length = 20, pattern = "^[a-z_]+$")]
    login: String,
    /// Age in years, e.g. 36.
    #[arg(minimum = 13, maximum = 120)]
    age: u8,
    /// Trust score, e.g. 0.5.
    #[arg(exclusive_minimum = 0, exclusive_maximum = 1)]
    trust: f64,
    /// Storage quota in GB, in steps of 5, e.g. 25.
    #[arg(multiple_of = 5)]
    quota_gb: u32,
    /// Interest tags, e.g. ["maths"].
    #[arg(min_items = 1, max_items = 5, unique_items)]
    tags: Vec<String>,
    /// Sessions allowed at once, e.g. 3.
    #[arg(default = 2, minimum = 1)]
    sessions: u32,
) -> Result<(), ToolError> {
    let _ = (login, age, trust, quota_gb, tags, sessions);
    Ok(())
}

/// Books a hotel room. Returns the confirmation with its reference.
#[tool(writes, requires_approval)]
pub fn book_room(
    /// What to book.
    booking: Booking,
) -> Confirmation {
    Confirmation {
        reference: "BK-1".into(),
        room: booking.room,
        note: None,
        upgrade: None,
    }
}

/// Paints the wall. Returns nothing.
#[tool(writes)]
pub fn set_wall_colour(
    /// Paint colour, e.g. "green".
    colour: Colour,
    /// Room type whose walls to paint, e.g. "suite".
    room: Option<Room>,
) {
    let _ = (colour, room);
}

/// Ships parcels. Returns the receipt with a tracking number.
#[tool(writes, network)]
#[allow(clippy::result_large_err)]
pub async fn send_parcels(
    /// Parcels to ship, e.g. [{"grams": 1200}].
    parcels: Vec<Parcel>,
    /// Where to send them; the account's address when left out.
    to: Option<Address>,
) -> Result<Receipt, ToolError> {
    let _ = to;
    Ok(Receipt {
        tracking: "TRK-1".into(),
        price_nok: 100 * parcels.len() as u32,
    })
}

/// Copies a directory tree. Returns the copied tree.
#[tool(writes)]
pub fn copy_tree(
    /// The tree to copy, e.g. {"name": "src", "children": []}.
    tree: TreeNode,
) -> TreeNode {
    tree
}

/// Cuts a shape. Returns the area cut in square cm.
#[tool(writes)]
pub fn create_cutout(
    /// The shape, e.g. {"kind": "circle", "radius": 2}.
    shape: Shape,
) -> f64 {
    match shape {
        Shape::Circle { radius } => std::f64::consts::PI * radius * radius,
        Shape::Square { side } => side * side,
    }
}

/// Stores assorted values. Returns how many were stored.
#[tool(writes)]
pub fn store_values(
    /// A pair of small numbers, e.g. [1, 2].
    pair: (u8, u8),
    /// Counts by name, e.g. {"apples": 3}.
    counts: HashMap<String, u32>,
    /// One letter, e.g. "a".
    initial: char,
    /// A large count, e.g. 10000000000.
    big: u64,
    /// A signed change, e.g. -4.
    delta: i64,
    /// A ratio, e.g. 0.25.
    ratio: f32,
    /// Any JSON value, e.g. {"k": 1}.
    extra: Value,
) -> usize {
    let _ = (pair, counts, initial, big, delta, ratio, extra);
    7
}

/// Sets the speaker volume. Returns the volume set.
#[tool(writes, idempotent)]
pub fn set_volume(
    /// Volume from 1 to 255, e.g. 80.
    // Bounds outside a primitive's range are compile errors; a type the macro cannot see into
    // keeps the runtime rule that a looser declared bound never widens the type's own.
    #[arg(minimum = -10, maximum = 1000)]
    volume: std::num::NonZeroU8,
    /// Balance from left (-1) to right (1), e.g. 0.
    #[arg(minimum = -1, maximum = 1)]
    balance: Option<f32>,
) -> u8 {
    let _ = balance;
    volume.get()
}

/// A lending library.
pub struct Library {
    books: usize,
}

#[tools]
impl Library {
    /// Borrows a book. Returns the loan with its due date in days.
    #[tool(writes)]
    #[allow(clippy::result_large_err)]
    fn check_out_book(
        &self,
        /// The book's ISBN, e.g. "978-0131103627".
        #[arg(min_length = 10)]
        isbn: String,
    ) -> Result<Loan, ToolError> {
        Ok(Loan { isbn, days: 21 })
    }

    /// Counts the books on the shelves. Returns the count.
    #[tool(read_only)]
    fn count_books(&self) -> usize {
        self.books
    }
}

fn all_tools() -> Vec<Tool> {
    let mut tools = vec![
        get_server_time::tool(),
        echo_text::tool(),
        list_files::tool(),
        create_user::tool(),
        book_room::tool(),
        set_wall_colour::tool(),
        send_parcels::tool(),
        copy_tree::tool(),
        create_cutout::tool(),
        store_values::tool(),
        set_volume::tool(),
    ];
    tools.extend(Library::tools());
    tools
}

// ---------------------------------------------------------------------------------------------
// Golden files
// ---------------------------------------------------------------------------------------------

fn golden_dir() -> PathBuf {
    crate::workspace().join("tests/golden/schemas")
}

#[test]
fn golden_specs() {
    let update = toolsmith::export::update_requested();
    let dir = golden_dir();
    let mut mismatches = Vec::new();
    for tool in all_tools() {
        let spec = tool.spec();
        let actual = serde_json::to_string_pretty(spec).expect("a spec serializes") + "\n";
        let path = dir.join(format!("{}.json", spec.name));
        if update {
            std::fs::create_dir_all(&dir).expect("create the golden directory");
            std::fs::write(&path, &actual).expect("write a golden file");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => mismatches.push(format!(
                "{}: the spec differs from the golden file\n--- expected\n{expected}\n+++ actual\n{actual}",
                path.display()
            )),
            Err(e) => mismatches.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n\nIf the change is intended, rerun with TOOLSMITH_UPDATE_SNAPSHOTS=1 and review the diff.",
        mismatches.join("\n\n")
    );
}

#[test]
fn every_golden_file_belongs_to_a_tool() {
    let names: Vec<String> = all_tools()
        .iter()
        .map(|t| format!("{}.json", t.spec().name))
        .collect();
    let Ok(entries) = std::fs::read_dir(golden_dir()) else {
        return; // golden_specs reports the missing directory
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().to_string();
        assert!(
            names.contains(&file),
            "tests/golden/schemas/{file} has no tool; delete it"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Hygiene rules
// ---------------------------------------------------------------------------------------------

/// Calls `f` on every subschema of `schema` (itself included), with its JSON pointer.
fn walk(schema: &Value, pointer: &str, f: &mut dyn FnMut(&str, &serde_json::Map<String, Value>)) {
    let Value::Object(obj) = schema else { return };
    f(pointer, obj);
    for (key, value) in obj {
        let here = format!("{pointer}/{key}");
        match key.as_str() {
            "properties" | "$defs" | "patternProperties" => {
                if let Value::Object(m) = value {
                    for (k, s) in m {
                        walk(s, &format!("{here}/{k}"), f);
                    }
                }
            }
            "prefixItems" | "oneOf" | "anyOf" | "allOf" => {
                if let Value::Array(items) = value {
                    for (i, s) in items.iter().enumerate() {
                        walk(s, &format!("{here}/{i}"), f);
                    }
                }
            }
            "items" | "additionalProperties" | "not" | "if" | "then" | "else" | "contains" => {
                walk(value, &here, f)
            }
            _ => {}
        }
    }
}

fn input(tool: Tool) -> Value {
    tool.spec().input_schema.clone()
}

fn schemas_of(tool: &Tool) -> Vec<(&'static str, &Value)> {
    let spec = tool.spec();
    let mut out = vec![("inputSchema", &spec.input_schema)];
    if let Some(o) = &spec.output_schema {
        out.push(("outputSchema", o));
    }
    out
}

fn admits_null(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return schema == &Value::Bool(true);
    };
    let in_type = match obj.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "null"),
        _ => false,
    };
    let in_enum = obj
        .get("enum")
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(Value::is_null));
    let in_branch = ["anyOf", "oneOf"].iter().any(|k| {
        obj.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|bs| bs.iter().any(|b| b.get("type") == Some(&json!("null"))))
    });
    in_type || in_enum || in_branch || obj.get("const") == Some(&Value::Null)
}

#[test]
fn no_schema_keyword_no_root_title_only_standard_formats() {
    for tool in all_tools() {
        for (which, schema) in schemas_of(&tool) {
            let name = &tool.spec().name;
            assert!(
                schema.get("title").is_none(),
                "{name} {which}: the root has a title"
            );
            walk(schema, "", &mut |at, obj| {
                assert!(
                    !obj.contains_key("$schema"),
                    "{name} {which}{at}: has $schema"
                );
                assert!(
                    !obj.contains_key("definitions"),
                    "{name} {which}{at}: has definitions"
                );
                assert!(
                    !obj.contains_key("nullable"),
                    "{name} {which}{at}: has nullable"
                );
                if let Some(f) = obj.get("format") {
                    let f = f.as_str().unwrap_or_default();
                    assert!(
                        toolsmith_spec::schema::STANDARD_FORMATS.contains(&f),
                        "{name} {which}{at}: non-standard format {f:?}"
                    );
                }
                if let Some(r) = obj.get("$ref") {
                    let target = r
                        .as_str()
                        .and_then(|r| r.strip_prefix('#'))
                        .and_then(|p| schema.pointer(p));
                    assert!(
                        target.is_some(),
                        "{name} {which}{at}: $ref {r} does not resolve"
                    );
                }
            });
        }
    }
}

#[test]
fn integer_types_have_no_format_but_keep_their_range() {
    let spec = store_values::tool().spec().clone();
    let props = &spec.input_schema["properties"];
    assert_eq!(props["big"]["type"], "integer");
    assert!(
        props["big"].get("format").is_none(),
        "u64 has no uint64 format"
    );
    assert_eq!(props["big"]["minimum"], 0);
    assert!(
        props["delta"].get("format").is_none(),
        "i64 has no int64 format"
    );
    assert!(
        props["ratio"].get("format").is_none(),
        "f32 has no float format"
    );
    let age = input(create_user::tool())["properties"]["age"].clone();
    assert!(age.get("format").is_none(), "u8 has no uint8 format");
    // Declared bounds tighter than the type's own (0..=255 for u8) replace them...
    assert_eq!(age["minimum"], 13);
    assert_eq!(age["maximum"], 120);
    // ...looser ones do not: the schema never admits a value the type cannot decode.
    let volume = input(set_volume::tool())["properties"]["volume"].clone();
    assert_eq!(volume["minimum"], 1);
    assert_eq!(volume["maximum"], 255);
    let balance = input(set_volume::tool())["properties"]["balance"].clone();
    assert_eq!(balance["minimum"], -1);
    assert_eq!(balance["maximum"], 1);
}

#[test]
fn input_root_is_a_closed_object() {
    for tool in all_tools() {
        let s = &tool.spec().input_schema;
        let name = &tool.spec().name;
        assert_eq!(s["type"], "object", "{name}");
        assert_eq!(s["additionalProperties"], false, "{name}");
        // Every parameter is described.
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            for (p, schema) in props {
                assert!(
                    schema
                        .get("description")
                        .and_then(Value::as_str)
                        .is_some_and(|d| !d.is_empty()),
                    "{name}.{p} has no description"
                );
            }
        }
    }
    // No parameters: no properties, no required.
    let s = input(get_server_time::tool());
    assert_eq!(s, json!({"type": "object", "additionalProperties": false}));
}

#[test]
fn optional_params_are_absent_from_required_and_do_not_admit_null() {
    for tool in all_tools() {
        let spec = tool.spec();
        let required: Vec<&str> = spec.input_schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (which, schema) in schemas_of(&tool) {
            walk(schema, "", &mut |at, obj| {
                let req = common::required_of(obj);
                if let Some(Value::Object(props)) = obj.get("properties") {
                    for (p, s) in props {
                        if !req.contains(&p.as_str()) {
                            assert!(
                                !admits_null(s),
                                "{} {which}{at}/properties/{p}: optional yet admits null",
                                spec.name
                            );
                        }
                    }
                }
            });
        }
        let _ = required;
    }
    let s = input(list_files::tool());
    assert!(s.get("required").is_none(), "all-optional: no required");
    assert_eq!(s["properties"]["dir"]["type"], "string");
    assert_eq!(s["properties"]["limit"]["type"], "integer");
    let s = input(set_wall_colour::tool());
    assert_eq!(s["required"], json!(["colour"]));
    let s = input(send_parcels::tool());
    assert_eq!(s["required"], json!(["parcels"]));
    assert_eq!(s["properties"]["to"]["type"], "object");
    // A defaulted parameter is optional and carries its default.
    let s = input(create_user::tool());
    assert_eq!(
        s["required"],
        json!(["login", "age", "trust", "quota_gb", "tags"])
    );
    assert_eq!(s["properties"]["sessions"]["default"], 2);
}

#[test]
fn defs_only_for_recursive_types() {
    for tool in all_tools() {
        for (which, schema) in schemas_of(&tool) {
            let name = &tool.spec().name;
            let recursive = name == "copy_tree";
            assert_eq!(
                schema.get("$defs").is_some(),
                recursive,
                "{name} {which}: $defs present: {}",
                schema.get("$defs").is_some()
            );
            let mut refs = 0;
            walk(schema, "", &mut |_, obj| {
                refs += usize::from(obj.contains_key("$ref"))
            });
            assert_eq!(refs > 0, recursive, "{name} {which}: {refs} $ref(s)");
        }
    }
    let s = input(copy_tree::tool());
    assert_eq!(s["properties"]["tree"]["$ref"], "#/$defs/TreeNode");
    assert_eq!(
        s["$defs"]["TreeNode"]["properties"]["children"]["items"]["$ref"],
        "#/$defs/TreeNode"
    );
}

#[test]
fn enums() {
    // Documented variants: oneOf of const + title.
    let booking = input(book_room::tool())["properties"]["booking"].clone();
    assert_eq!(
        booking["properties"]["room"]["oneOf"],
        json!([
            {"const": "single", "title": "One bed, one guest."},
            {"const": "double", "title": "One wide bed, up to two guests."},
            {"const": "suite", "title": "Two rooms, up to four guests."}
        ])
    );
    // Undocumented: a plain enum.
    let colour = input(set_wall_colour::tool())["properties"]["colour"].clone();
    assert_eq!(colour["enum"], json!(["red", "green", "blue"]));
    assert!(colour.get("oneOf").is_none());
}

#[test]
fn output_schema_presence_follows_the_return_type() {
    let has_output = |t: Tool| t.spec().output_schema.is_some();
    assert!(has_output(get_server_time::tool()), "plain T");
    assert!(has_output(echo_text::tool()), "Result<T, ToolError>");
    assert!(!has_output(create_user::tool()), "Result<(), ToolError>");
    assert!(!has_output(set_wall_colour::tool()), "()");
    assert!(
        has_output(Library::tools().remove(0)),
        "method Result<T, _>"
    );
}

/// What a tool returns must satisfy its own output schema (a strict client checks it).
#[test]
fn outputs_satisfy_their_output_schema() {
    let toolbox = Toolbox::builder()
        .tools(all_tools())
        .context(Library { books: 3 })
        // book_room requires approval; a host with no approver denies it.
        .approver(toolsmith::approval::ApproveAll)
        .build()
        .expect("the toolbox builds");
    let calls = [
        ("get_server_time", json!({})),
        ("echo_text", json!({"text": "hi"})),
        ("list_files", json!({})),
        (
            "book_room",
            json!({"booking": {"room": "double", "guests": 2}}),
        ),
        ("send_parcels", json!({"parcels": [{"grams": 100}]})),
        (
            "copy_tree",
            json!({"tree": {"name": "a", "children": [{"name": "b", "children": []}]}}),
        ),
        (
            "create_cutout",
            json!({"shape": {"kind": "square", "side": 2}}),
        ),
        (
            "store_values",
            json!({"pair": [1, 2], "counts": {"a": 1}, "initial": "x", "big": 10_000_000_000_u64, "delta": -4, "ratio": 0.25, "extra": null}),
        ),
        ("check_out_book", json!({"isbn": "978-0131103627"})),
        ("count_books", json!({})),
    ];
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut failures = Vec::new();
    for (name, args) in calls {
        let env = rt.block_on(toolbox.call(name, args.clone()));
        assert_eq!(env.status, Status::Ok, "{name} {args}: {}", env.to_json());
        let spec = toolbox.spec(name).expect("registered");
        let schema = spec.output_schema.expect("an output schema");
        let data = env.data.unwrap_or(Value::Null);
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the output schema compiles");
        let errors: Vec<String> = validator
            .iter_errors(&data)
            .map(|e| e.to_string())
            .collect();
        if !errors.is_empty() {
            failures.push(format!(
                "{name}: {data} fails its output schema: {errors:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
