//! Parity of the person's form and the agent's tool, checked by a real browser: every tool of the
//! three examples (and one with an optional enumeration shown as a select) is rendered by `toolsmith::ui` and loaded in Debian's Chromium with WebMCP
//! (as the WebMCP export test runs it). For each tool:
//! - a declarative form registers as a tool whose name, description and parameter descriptions
//!   are the spec's; a form that is not declarative (a parameter has no control the browser
//!   derives its type from) is registered by the page's script through the imperative API, with
//!   the spec's own WebMCP schema;
//! - the renderer reports exactly the [`Gap`]s pinned for the tool (`expected_gaps`), so a gap
//!   that appears or vanishes fails here and is looked at;
//! - on every sample argument set, the schema the browser derives from the form accepts what the
//!   spec's schema accepts, except where a pinned gap covers that parameter and keyword (for
//!   example the browser derives no `minLength`);
//! - an agent's call (`document.modelContext.executeTool`) and a person filling in the same
//!   values (typing, clicking) both produce exactly the sample arguments;
//! - a value the schema forbids is stopped by the form before submit (or cannot be typed, for a
//!   `maxlength`), unless a pinned gap says the control cannot express it, and the toolbox
//!   refuses it naming the same parameter.
//!
//! Needs chromium, node and playwright-core (`.ci/consumers.sh`); skipped with a notice unless
//! `TOOLSMITH_REQUIRE_CONSUMERS=1`.

use crate::common;

use crate::helpdesk_tools as helpdesk;
use crate::store_tools as store;
use crate::workspace_tools as workspace;

use serde_json::{json, Map, Value};
use std::path::Path;
use std::process::Command;
use toolsmith::ui::{self, FormOptions, Gap};
use toolsmith::{Status, ToolSpec, Toolbox};

/// The floor of a meeting room: more values than radio buttons show, so a select.
#[toolsmith::model]
#[serde(rename_all = "snake_case")]
#[derive(Clone, Copy, Debug)]
pub enum Floor {
    /// The ground floor.
    Ground,
    /// The first floor.
    First,
    /// The second floor.
    Second,
    /// The third floor.
    Third,
    /// The fourth floor.
    Fourth,
    /// The fifth floor.
    Fifth,
    /// The sixth floor.
    Sixth,
    /// The seventh floor.
    Seventh,
    /// The eighth floor.
    Eighth,
    /// The roof terrace.
    Roof,
}

/// Books a meeting room for today. Returns the booking id.
#[toolsmith::tool(writes)]
fn book_room(
    /// The room's name, e.g. "Fjord".
    #[arg(min_length = 2, max_length = 40)]
    room: String,
    /// The floor to book on, when it matters.
    floor: Option<Floor>,
) -> String {
    format!("booked {room} on {floor:?}")
}

/// The three examples' toolboxes (the workspace one on a fresh directory), and one whose tool
/// has an optional enumeration long enough for a select (its empty option is the absent value).
fn toolboxes(dir: &Path) -> Vec<Toolbox> {
    let customer = store::Customer {
        id: "cust-1".into(),
        purchased: Vec::new(),
    };
    std::fs::create_dir_all(dir.join("ws")).unwrap();
    vec![
        store::toolbox(store::demo_catalogue(), customer).unwrap(),
        helpdesk::toolbox(
            &helpdesk::demo_helpdesk(),
            toolsmith::approval::approve_all(),
        )
        .unwrap(),
        workspace::toolbox(
            workspace::Workspace::open(dir.join("ws")).unwrap(),
            toolsmith::approval::approve_all(),
        )
        .unwrap(),
        Toolbox::builder().tool(book_room::tool()).build().unwrap(),
    ]
}

/// Valid argument sets per tool, written as an agent would send them: the required ones only,
/// then every parameter (at a boundary where there is one).
fn valid_cases(tool: &str) -> Vec<Value> {
    match tool {
        "search_products" => vec![
            json!({"query": "tent"}),
            json!({"query": "down jacket", "category": "clothing", "max_price": 2500, "in_stock_only": true}),
            json!({"query": "ab", "category": "lighting", "max_price": 0, "in_stock_only": false}),
        ],
        "compare_products" => vec![
            json!({"skus": ["TNT-1P", "TNT-2P"]}),
            json!({"skus": ["TNT-1P", "TNT-2P", "BOOT-TROLL", "LMP-HEAD"]}),
        ],
        "add_to_cart" => vec![
            json!({"sku": "BOOT-TROLL", "quantity": 1}),
            json!({"sku": "BOOT-TROLL", "quantity": 10, "size": "42"}),
        ],
        "search_articles" => vec![json!({"query": "reset password"})],
        "create_ticket" => vec![
            json!({"subject": "Cannot log in", "body": "The page says my password is wrong.", "priority": "normal"}),
            json!({"subject": "Outage", "body": "Nothing loads since 9:00.", "priority": "high"}),
        ],
        "get_ticket_status" => vec![json!({"ticket_id": "SUP-1042"})],
        "read_file" => vec![
            json!({"path": "notes/todo.md"}),
            json!({"path": "a", "max_bytes": 200000}),
        ],
        "search_text" => vec![
            json!({"query": "TODO"}),
            json!({"query": "tent", "path": "notes", "cursor": "c1"}),
        ],
        "write_file" => vec![json!({"path": "notes/new.md", "content": "Pack the stove."})],
        "book_room" => vec![
            json!({"room": "Fjord"}),
            json!({"room": "Fjord", "floor": "roof"}),
            json!({"room": "Li", "floor": "ground"}),
        ],
        other => panic!("no cases for {other}: add them when an example gains a tool"),
    }
}

/// Argument sets the spec refuses, derived from the constraints of each parameter: one broken
/// constraint each, on top of the first valid case. Returns (parameter, keyword, arguments).
fn invalid_cases(spec: &ToolSpec, base: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    let props = spec.input_schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let with = |name: &str, v: Value| {
        let mut args = base.clone();
        args[name] = v;
        args
    };
    for (name, p) in &props {
        if let Some(min) = p["minLength"].as_u64().filter(|m| *m > 1) {
            out.push((
                name.clone(),
                "minLength".into(),
                with(name, json!("x".repeat(min as usize - 1))),
            ));
        }
        if let Some(max) = p["maxLength"].as_u64().filter(|m| *m <= 200) {
            out.push((
                name.clone(),
                "maxLength".into(),
                with(name, json!("y".repeat(max as usize + 1))),
            ));
        }
        if p.get("pattern").is_some() {
            out.push((name.clone(), "pattern".into(), with(name, json!("nope 1"))));
        }
        if let Some(min) = p["minimum"].as_i64() {
            out.push((name.clone(), "minimum".into(), with(name, json!(min - 1))));
        }
        if let Some(max) = p["maximum"].as_i64() {
            out.push((name.clone(), "maximum".into(), with(name, json!(max + 1))));
        }
    }
    out
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("schema {schema}: {e}"))
}

/// What a form submits for `args`: the same arguments, except that an optional flag set to
/// `false` whose default is not `true` is left out (an unchecked box is no value, and the tool's
/// default, false, applies: the same intent).
fn as_submitted(spec: &ToolSpec, args: &Value) -> Value {
    let mut out = args.clone();
    let required = spec.input_schema["required"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(map) = out.as_object_mut() {
        map.retain(|name, v| {
            let p = &spec.input_schema["properties"][name];
            !(p["type"] == json!("boolean")
                && *v == json!(false)
                && p["default"] != json!(true)
                && !required.contains(&json!(name)))
        });
    }
    out
}

/// The gaps each tool's form reports, as (parameter, keyword), in the order the form reports
/// them. Pinned rather than taken from the renderer, so that a gap that appears (a constraint a
/// form newly cannot carry) or vanishes (one it now carries, or no longer reports) fails the
/// tests and is looked at, instead of silently widening or narrowing what the parity checks let
/// through.
fn expected_gaps(tool: &str) -> Vec<(&'static str, &'static str)> {
    let lengths = "minLength/maxLength";
    match tool {
        "search_products" => vec![("query", lengths)],
        "compare_products" => vec![("skus", "type")],
        "add_to_cart" => vec![("sku", lengths), ("size", lengths)],
        "search_articles" => vec![("query", lengths)],
        "create_ticket" => vec![("subject", lengths), ("body", lengths)],
        "get_ticket_status" => vec![],
        "read_file" => vec![("path", lengths)],
        "search_text" => vec![("query", lengths), ("path", lengths)],
        "write_file" => vec![("path", lengths), ("content", lengths)],
        "book_room" => vec![("room", lengths), ("floor", "enum")],
        other => panic!("no pinned gaps for {other}: add them when an example gains a tool"),
    }
}

/// The gaps the renderer reports for `spec`'s form, as (parameter, keyword).
fn reported_gaps(spec: &ToolSpec) -> Vec<(String, String)> {
    ui::form(spec)
        .gaps()
        .iter()
        .map(|g: &Gap| (g.param.clone(), g.keyword.clone()))
        .collect()
}

/// A pinned gap for `param` that covers `keyword`.
fn gap_covers(gaps: &[(&str, &str)], param: &str, keyword: &str) -> bool {
    gaps.iter()
        .any(|(p, k)| *p == param && k.split('/').any(|k| k == keyword))
}

/// Every form of the examples reports exactly its pinned gaps (without a browser, so this holds
/// wherever the tests run).
#[test]
fn every_form_reports_exactly_the_pinned_gaps() {
    let dir = std::env::temp_dir().join(format!("toolsmith-ui-gaps-{}", std::process::id()));
    for tb in toolboxes(&dir) {
        for spec in tb.specs() {
            let pinned: Vec<(String, String)> = expected_gaps(&spec.name)
                .into_iter()
                .map(|(p, k)| (p.to_string(), k.to_string()))
                .collect();
            assert_eq!(
                reported_gaps(&spec),
                pinned,
                "{}: the form's gaps changed; if the change is meant, update expected_gaps",
                spec.name
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the page in Chromium; `None` when a consumer is missing (and not required).
fn run_browser(cases: &Value) -> Option<Value> {
    run_node("forms.mjs", cases)
}

/// Runs a consumer script of `toolsmith-core/tests/consumers` on `input`; `None` when a consumer is
/// missing (and not required).
fn run_node(script: &str, input: &Value) -> Option<Value> {
    let chromium = crate::common::chromium()?;
    let file = std::env::temp_dir().join(format!("toolsmith-{script}-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_vec(input).unwrap()).unwrap();
    let out = Command::new("node")
        .arg(crate::common::consumers_dir().join(script))
        .arg(&file)
        .env("TOOLSMITH_CHROMIUM", &chromium)
        .current_dir(crate::common::consumers_dir())
        .output()
        .expect("node runs");
    let _ = std::fs::remove_file(&file);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "forms.mjs failed:\n{stdout}\n{stderr}"
    );
    let value: Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("forms.mjs printed no JSON:\n{stdout}\n{stderr}"));
    println!("forms in Chromium {}", value["version"]);
    if let Ok(path) = std::env::var("TOOLSMITH_FORMS_DUMP") {
        std::fs::write(path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    }
    Some(value)
}

#[test]
fn forms_of_the_examples_match_their_tools_in_a_real_browser() {
    let dir = std::env::temp_dir().join(format!("toolsmith-ui-forms-{}", std::process::id()));
    let boxes = toolboxes(&dir);
    let specs: Vec<(usize, ToolSpec)> = boxes
        .iter()
        .enumerate()
        .flat_map(|(i, tb)| tb.specs().into_iter().map(move |s| (i, s)))
        .collect();
    let all: Vec<ToolSpec> = specs.iter().map(|(_, s)| s.clone()).collect();
    let page = ui::page("toolsmith examples", &all, &FormOptions::default());

    let mut tools = Vec::new();
    for (_, spec) in &specs {
        let valid = valid_cases(&spec.name);
        let invalid: Vec<Value> = invalid_cases(spec, &valid[0])
            .into_iter()
            .map(|(param, _, args)| json!({"param": param, "args": args}))
            .collect();
        tools.push(json!({"name": spec.name, "valid": valid, "invalid": invalid}));
    }
    let Some(seen) = run_browser(&json!({"page": page, "tools": tools})) else {
        return;
    };

    let registered: Map<String, Value> = seen["registered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_string(), t.clone()))
        .collect();
    let mut registered_count = 0;
    for (b, spec) in &specs {
        let form = ui::form(spec);
        let gaps = expected_gaps(&spec.name);
        let reported: Vec<(&str, &str)> = form
            .gaps()
            .iter()
            .map(|g| (g.param.as_str(), g.keyword.as_str()))
            .collect();
        assert_eq!(reported, gaps, "{}: the form's gaps", spec.name);
        let gaps = &gaps[..];
        let spec_check = validator(&spec.input_schema);
        let valid = valid_cases(&spec.name);

        // 1. Every tool registers with the spec's words: a declarative form by itself, any
        // other through the page's script with the spec's WebMCP schema.
        let tool = registered
            .get(&spec.name)
            .unwrap_or_else(|| panic!("{} is not registered in Chromium", spec.name));
        registered_count += 1;
        assert_eq!(
            tool["description"],
            json!(spec.description),
            "{}",
            spec.name
        );
        let derived = &tool["inputSchema"];
        if !form.is_declarative() {
            assert!(
                gaps.iter().any(|(_, k)| *k == "type"),
                "{}: not declarative without a type gap",
                spec.name
            );
            let exported =
                toolsmith::export::export_tool(spec, toolsmith::export::Target::WebMcp).unwrap();
            assert_eq!(
                *derived, exported["inputSchema"],
                "{}: the imperative tool's schema",
                spec.name
            );
        }
        let props = spec.input_schema["properties"].as_object().unwrap();
        for (name, p) in props {
            assert_eq!(
                derived["properties"][name]["description"], p["description"],
                "{}.{name}: the description the browser derives",
                spec.name
            );
        }
        assert_eq!(
            derived["properties"].as_object().unwrap().len(),
            props.len(),
            "{}: {derived}",
            spec.name
        );

        // 2. The derived schema accepts what the spec accepts, except where a gap says why.
        let derived_check = validator(derived);
        for args in &valid {
            assert!(
                spec_check.is_valid(args),
                "{}: a valid case {args}",
                spec.name
            );
            assert!(
                derived_check.is_valid(args),
                "{}: the browser's schema refuses {args}: {derived}",
                spec.name
            );
        }
        for (param, keyword, args) in invalid_cases(spec, &valid[0]) {
            assert!(!spec_check.is_valid(&args), "{}: {args}", spec.name);
            if derived_check.is_valid(&args) {
                assert!(
                    gap_covers(gaps, &param, &keyword),
                    "{}: the browser's schema accepts {args} ({param} breaks {keyword}) and no gap says why",
                    spec.name
                );
            }
        }

        // 3. The agent's call produces exactly the arguments.
        for (i, args) in valid.iter().enumerate() {
            let got = seen["agent"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["tool"] == json!(spec.name) && a["case"] == json!(i))
                .unwrap_or_else(|| panic!("{}: no agent call {i}", spec.name));
            assert_eq!(
                got["got"]["arguments"],
                as_submitted(spec, args),
                "{} case {i}: the agent's executeTool: {got}",
                spec.name
            );
        }
        check_person_and_refusals(&seen, spec, &boxes[*b], &valid, gaps);
    }
    assert_eq!(
        registered_count,
        registered.len(),
        "registered tools that no spec has: {registered:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A person's filling produces the arguments; a forbidden value is stopped by the form (or cannot
/// be typed) unless a gap says the control cannot express it, and the toolbox names the
/// parameter.
fn check_person_and_refusals(
    seen: &Value,
    spec: &ToolSpec,
    toolbox: &Toolbox,
    valid: &[Value],
    gaps: &[(&str, &str)],
) {
    for (i, args) in valid.iter().enumerate() {
        let got = seen["person"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["tool"] == json!(spec.name) && a["case"] == json!(i))
            .unwrap_or_else(|| panic!("{}: no person's call {i}", spec.name));
        assert_eq!(
            got["got"],
            as_submitted(spec, args),
            "{} case {i}: what a person's filling submits",
            spec.name
        );
    }
    let cases = invalid_cases(spec, &valid[0]);
    for (j, (param, keyword, args)) in cases.iter().enumerate() {
        let state = seen["refused"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["tool"] == json!(spec.name))
            .nth(j)
            .unwrap_or_else(|| panic!("{}: no refusal case {j}", spec.name));
        let stopped = state["valid"] == json!(false)
            && state["invalid"].as_array().unwrap().contains(&json!(param));
        let cannot_type = keyword == "maxLength"
            && state["holds"].as_str().map(|s| s.chars().count() as u64)
                == spec.input_schema["properties"][param]["maxLength"].as_u64();
        assert!(
            stopped || cannot_type || gap_covers(gaps, param, keyword),
            "{}: {param} breaking {keyword} ({args}) passes the form: {state}",
            spec.name
        );
        let env = common::call_blocking(toolbox, &spec.name, args.clone());
        assert_eq!(env.status, Status::InvalidInput, "{}: {args}", spec.name);
        let wire = common::wire(&env).to_string();
        assert!(
            wire.contains(param.as_str()),
            "{}: the toolbox's refusal of {args} names {param}: {wire}",
            spec.name
        );
    }
}

/// The forms are artifacts too: escaping holds for any text a spec carries.
#[test]
fn a_description_with_markup_renders_as_text() {
    let spec = ToolSpec::new(
        "find_notes",
        "Finds notes. <script>alert('x')</script> Returns \"all\" of them.",
        json!({"type": "object", "properties": {
            "q": {"type": "string", "description": "Words \"quoted\" <b onclick=x>bold</b>."}
        }, "required": ["q"]}),
    );
    let html = ui::page("notes <script>", &[spec], &FormOptions::default());
    let body = html.split("<script>\n").next().unwrap();
    assert!(!body.contains("<script>alert"), "{body}");
    assert!(!body.contains("<b onclick"), "{body}");
    assert!(
        body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
        "{body}"
    );
    assert!(
        body.contains("Words &quot;quoted&quot; &lt;b onclick=x&gt;bold&lt;/b&gt;."),
        "{body}"
    );
}

/// A 1×1 PNG, Base64.
const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// The same form as an MCP App in a host's sandboxed frame (MCP Apps over `postMessage`): the
/// handshake, the model's arguments filled in for the person to review, a changed value typed
/// over them, and the person's submission sent to the host as `tools/call` with exactly the
/// arguments the form shows; the host's result is shown block by block (text as text, images,
/// links). A sibling frame of the view (another frame of the host's page) that posts the app
/// other arguments, a result and a `ping` is ignored: the app reads its host's messages only.
#[test]
fn an_mcp_app_shows_the_model_s_arguments_and_calls_the_tool_through_the_host() {
    let spec = store::add_to_cart::tool().spec().clone();
    let input = json!({"sku": "BOOT-TROLL", "quantity": 1, "size": "43"});
    let case = json!({
        "html": ui::app(&spec),
        "input": input,
        "edit": {"quantity": 2},
        "result": {"content": [
            {"type": "text", "text": "Added 2 × BOOT-TROLL <b>43</b>."},
            {"type": "image", "mimeType": "image/png", "data": PIXEL},
            {"type": "resource_link", "uri": "https://shop.example/cart", "name": "cart", "title": "Your cart"},
            {"type": "resource_link", "uri": "javascript:alert(1)", "name": "trap"},
            {"type": "image", "mimeType": "text/html", "data": "PGI+eDwvYj4="}
        ]},
        "forged": [
            {"jsonrpc": "2.0", "forged": true, "method": "ui/notifications/tool-input",
             "params": {"arguments": {"sku": "TNT-4P", "quantity": 9}}},
            {"jsonrpc": "2.0", "forged": true, "method": "ui/notifications/tool-result",
             "params": {"content": [{"type": "text", "text": "FORGED result"}]}},
            {"jsonrpc": "2.0", "forged": true, "id": "forged-ping", "method": "ping"}
        ]
    });
    let Some(seen) = run_node("mcp_app.mjs", &case) else {
        return;
    };
    let methods: Vec<&str> = seen["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "ui/initialize",
            "ui/notifications/initialized",
            "tools/call"
        ],
        "{seen}"
    );
    // No answer to the sibling's ping reached the host: the three messages are the app's own.
    assert_eq!(seen["log"].as_array().unwrap().len(), 3, "{seen}");
    assert_eq!(seen["log"][0]["params"]["protocolVersion"], "2026-01-26");
    assert_eq!(
        seen["forgedSeen"], 3,
        "the sibling's messages reached the view: {seen}"
    );
    assert_eq!(
        seen["afterForged"],
        json!({"filled": input, "shown": ""}),
        "the sibling's arguments and result are ignored"
    );
    assert_eq!(
        seen["filled"], input,
        "the model's arguments, as the form shows them"
    );
    assert_eq!(
        seen["calls"],
        json!([{"name": "add_to_cart", "arguments": {"sku": "BOOT-TROLL", "quantity": 2, "size": "43"}}]),
        "{seen}"
    );
    // Text as text, never as markup; the image shown; an http(s) link as a link, any other
    // URI as text; an image block of another type left out.
    assert_eq!(
        seen["shown"],
        "Added 2 × BOOT-TROLL <b>43</b>.\n\nYour cart\ntrap (javascript:alert(1))"
    );
    assert_eq!(
        seen["images"],
        json!([format!("data:image/png;base64,{PIXEL}")])
    );
    assert_eq!(seen["links"], json!(["https://shop.example/cart"]));
    assert_eq!(seen["error"], false);
    // A result with no block to show: its structured content as JSON; an error result marked.
    let mut case = case;
    case["result"] = json!({"isError": true, "content": [], "structuredContent": {"total": 3}});
    let seen = run_node("mcp_app.mjs", &case).expect("the consumers ran a moment ago");
    assert_eq!(seen["shown"], "{\n  \"total\": 3\n}");
    assert_eq!(seen["error"], true);
    // The app's form carries no WebMCP attributes (it runs in the host's frame).
    assert!(!ui::app(&spec).contains("toolname="));
}
