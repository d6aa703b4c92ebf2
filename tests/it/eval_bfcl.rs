//! `toolsmith_eval::bfcl`: BFCL's categories as scenario files. Hand-made lines exercise each
//! rule of the converter (dotted names, BFCL's types, `""` for optional, dictionaries of
//! alternatives, parallel and system cases skipped, earlier turns as history); the vendored
//! sample (`toolsmith-eval/data/bfcl/`, the first 50 cases of `simple_python` and `multiple`) is
//! what the converter makes of the raw lines kept beside it, byte for byte
//! (`TOOLSMITH_UPDATE_SNAPSHOTS=1` rewrites it), and every one of its expected values is one its
//! tool accepts.

use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use toolsmith::{Tool, ToolSpec, Toolbox};
use toolsmith_core::validate::Validator;
use toolsmith_eval::bfcl::{self, Converted, Source};
use toolsmith_eval::scenario::{ArgForm, Case, Expect, Role, Scenarios};

/// The commit of github.com/ShishirPatil/gorilla the vendored sample was taken from (its
/// README says the same).
const COMMIT: &str = "6ea57973c7a6097fd7c5915698c54c17c5b1b6c8";
/// BFCL's data folder in that repository.
const DATA: &str = "berkeley-function-call-leaderboard/bfcl_eval/data";
/// The vendored categories: the category's name and BFCL's file stem.
const SAMPLE: [(&str, &str); 2] = [
    ("simple", "BFCL_v4_simple_python"),
    ("multiple", "BFCL_v4_multiple"),
];

fn sample_dir() -> PathBuf {
    crate::workspace().join("toolsmith-eval/data/bfcl")
}

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn parse(converted: &Converted) -> Scenarios {
    Scenarios::parse(&converted.scenarios, "bfcl.toml")
        .unwrap_or_else(|e| panic!("{e}\n{}", converted.scenarios))
}

fn case<'a>(scenarios: &'a Scenarios, id: &str) -> &'a Case {
    scenarios
        .cases
        .iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

fn tools_of<'a>(converted: &'a Converted, id: &str) -> &'a Value {
    let file = format!("{id}.json");
    &converted
        .tools
        .iter()
        .find(|(name, _)| *name == file)
        .unwrap_or_else(|| panic!("no tool list {file}"))
        .1
}

/// One line of each shape the converter handles, and their answers.
fn hand_made() -> (String, String) {
    let route = json!({
        "name": "geo.route",
        "description": "Plans a route.",
        "parameters": {"type": "dict", "properties": {
            "start": {"type": "tuple", "items": {"type": "float"}, "description": "Where from."},
            "speed": {"type": "float", "default": 1.5, "description": "How fast."},
            "extra": {"type": "any", "description": "Anything."},
            "options": {"type": "dict", "description": "Preferences.", "properties": {
                "avoid": {"type": "array", "items": {"type": "string", "enum": ["tolls", "ferries"]}},
                "weight": {"type": "float"}
            }, "required": ["avoid"]},
            "mode": {"type": "string", "enum": ["car", "bike"], "optional": true}
        }, "required": ["start"]}
    });
    let factorial = json!({
        "name": "math.factorial",
        "description": "The factorial of a number.",
        "parameters": {"type": "dict", "properties": {
            "number": {"type": "integer", "description": "The number."},
            "exact": {"type": "boolean", "description": "Exact arithmetic."}
        }, "required": ["number"]}
    });
    let filter = json!({
        "name": "db.filter",
        "description": "Filters rows.",
        "parameters": {"type": "dict", "properties": {
            "conditions": {"type": "array", "items": {"type": "dict", "properties": {
                "field": {"type": "string"}, "op": {"type": "string"}
            }}}
        }, "required": ["conditions"]}
    });
    let user = |text: &str| json!([{"role": "user", "content": text}]);
    let questions = jsonl(&[
        json!({"id": "rules_0", "question": [user("Route from 1, 2.5.")], "function": [factorial, route]}),
        json!({"id": "turns_0", "question": [
            [{"role": "user", "content": "I need a factorial."}, {"role": "assistant", "content": "Of which number?"}],
            [{"role": "user", "content": "Of 5, the \"big\" one\nno \\ tricks"}]
        ], "function": [factorial]}),
        json!({"id": "list_0", "question": [user("Age over 25, job engineer.")], "function": [filter]}),
        json!({"id": "parallel_0", "question": [user("Factorials of 3 and 4.")], "function": [factorial]}),
        json!({"id": "system_0", "question": [[{"role": "system", "content": "Be terse."}, {"role": "user", "content": "5!"}]], "function": [factorial]}),
        json!({"id": "null_0", "question": [user("Route from nothing.")], "function": [route]}),
        json!({"id": "typed_0", "question": [user("Factorial of five.")], "function": [factorial]}),
        json!({"id": "unanswered_0", "question": [user("Factorial of 6.")], "function": [factorial]}),
        json!({"id": "bad\nid\u{7}", "question": [user("Factorial of 7.")], "function": [factorial]}),
    ]);
    let answers = jsonl(&[
        json!({"id": "rules_0", "ground_truth": [{"geo.route": {
            "start": [[1.0, 2.5]],
            "speed": [1.5, 2, ""],
            "extra": [""],
            "options": [{"avoid": [["tolls"], ["tolls", "ferries"]], "weight": ["", 0.5]}],
            "mode": ["car", "plane"]
        }}]}),
        json!({"id": "turns_0", "ground_truth": [{"math.factorial": {"number": [5]}}]}),
        json!({"id": "list_0", "ground_truth": [{"db.filter": {"conditions": [
            [{"field": ["age"], "op": [">", "gt"]}, {"field": ["job"], "op": ["="]}]
        ]}}]}),
        json!({"id": "parallel_0", "ground_truth": [
            {"math.factorial": {"number": [3]}}, {"math.factorial": {"number": [4]}}
        ]}),
        json!({"id": "system_0", "ground_truth": [{"math.factorial": {"number": [5]}}]}),
        json!({"id": "null_0", "ground_truth": [{"geo.route": {"start": [[0, 0]], "extra": [null]}}]}),
        json!({"id": "typed_0", "ground_truth": [{"math.factorial": {"number": [5, "five", [5], 5.0], "exact": ["", "yes", true]}}]}),
    ]);
    (questions, answers)
}

#[test]
fn each_rule_of_the_converter_holds_on_hand_made_lines() {
    let (questions, answers) = hand_made();
    let converted = bfcl::convert(&questions, &answers, "made", "tools").unwrap();
    let scenarios = parse(&converted);

    // Converted, in order; the rest skipped, each with its reason.
    let ids: Vec<&str> = scenarios.cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["rules_0", "turns_0", "list_0", "typed_0"]);
    let skipped: Vec<(&str, &str)> = converted
        .skipped
        .iter()
        .map(|(id, why)| (id.as_str(), why.as_str()))
        .collect();
    assert_eq!(skipped.len(), 5, "{skipped:?}");
    for (id, word) in [
        ("parallel_0", "parallel"),
        ("system_0", "system"),
        ("null_0", "null"),
        ("unanswered_0", "no possible answer"),
        ("bad\nid\u{7}", "not a safe file name"),
    ] {
        let why = skipped.iter().find(|(i, _)| *i == id).map(|(_, w)| *w);
        assert!(why.is_some_and(|w| w.contains(word)), "{id}: {why:?}");
        let listed = format!("# Skipped {}: ", id.replace(char::is_control, " "));
        assert!(
            converted.scenarios.contains(&listed),
            "the header lists {id}"
        );
    }
    assert!(converted.scenarios.starts_with("# BFCL"));
    assert!(converted.scenarios.contains(bfcl::REPOSITORY));
    assert!(converted.scenarios.contains("Apache-2.0"));

    // Dots become `_`, in the tools and in `expect`; every case has its own list and tags.
    let rules = case(&scenarios, "rules_0");
    assert_eq!(rules.expect, Expect::Tool("geo_route".into()));
    assert_eq!(
        rules.tools.as_deref(),
        Some(Path::new("tools/rules_0.json"))
    );
    assert_eq!(rules.tags, ["bfcl", "made"]);
    assert!(rules.forbid.is_empty() && rules.history.is_empty());
    assert_eq!(rules.prompt, "Route from 1, 2.5.");
    let tools = tools_of(&converted, "rules_0").as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["math_factorial", "geo_route"]);

    // BFCL's types in JSON Schema's words, at every depth; the rest kept.
    let schema = &tools[1]["inputSchema"];
    assert_eq!(tools[1]["description"], "Plans a route.");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["start"]));
    let props = &schema["properties"];
    assert_eq!(
        props["start"],
        json!({"type": "array", "items": {"type": "number"}, "description": "Where from."})
    );
    assert_eq!(
        props["speed"],
        json!({"type": "number", "default": 1.5, "description": "How fast."})
    );
    assert_eq!(props["extra"], json!({"description": "Anything."}));
    assert_eq!(props["options"]["type"], "object");
    assert_eq!(props["options"]["required"], json!(["avoid"]));
    assert_eq!(
        props["options"]["properties"]["avoid"],
        json!({"type": "array", "items": {"type": "string", "enum": ["tolls", "ferries"]}})
    );
    assert_eq!(props["options"]["properties"]["weight"]["type"], "number");
    assert_eq!(props["mode"]["enum"], json!(["car", "bike"]));
    assert_eq!(
        tools_of(&converted, "list_0")[0]["inputSchema"]["properties"]["conditions"]["items"]
            ["type"],
        "object"
    );

    // The answers: one value plain, several `one_of`, `""` optional, `[""]` absent, and a
    // dictionary's per-key alternatives expanded into whole dictionaries.
    let arg = |c: &Case, name: &str| c.args.get(name).cloned().unwrap();
    let start = arg(rules, "start");
    assert_eq!(start.form, ArgForm::Equals(json!([1.0, 2.5])));
    assert!(!start.optional);
    assert!(
        start.holds(Some(&json!([1, 2.5]))),
        "numbers compare by value"
    );
    let speed = arg(rules, "speed");
    assert_eq!(speed.form, ArgForm::OneOf(vec![json!(1.5), json!(2)]));
    assert!(speed.optional && speed.holds(None) && speed.holds(Some(&json!(2.0))));
    let extra = arg(rules, "extra");
    assert_eq!(extra.form, ArgForm::Absent);
    assert!(!extra.holds(Some(&json!("x"))));
    assert_eq!(arg(rules, "mode").form, ArgForm::Equals(json!("car")));
    let options = arg(rules, "options");
    assert_eq!(
        options.form,
        ArgForm::OneOf(vec![
            json!({"avoid": ["tolls"]}),
            json!({"avoid": ["tolls"], "weight": 0.5}),
            json!({"avoid": ["tolls", "ferries"]}),
            json!({"avoid": ["tolls", "ferries"], "weight": 0.5}),
        ])
    );
    assert!(!options.optional && !options.holds(None));
    assert!(!options.holds(Some(&json!({"avoid": ["ferries"]}))));

    // Earlier messages, of every turn, are the history; the last user message the prompt,
    // quotes, backslashes and newlines intact; a parameter the answer leaves out must be left
    // out.
    let turns = case(&scenarios, "turns_0");
    assert_eq!(turns.expect, Expect::Tool("math_factorial".into()));
    assert_eq!(turns.prompt, "Of 5, the \"big\" one\nno \\ tricks");
    let history: Vec<(Role, &str)> = turns
        .history
        .iter()
        .map(|t| (t.role, t.text.as_str()))
        .collect();
    assert_eq!(
        history,
        [
            (Role::User, "I need a factorial."),
            (Role::Assistant, "Of which number?")
        ]
    );
    assert_eq!(arg(turns, "number").form, ArgForm::Equals(json!(5)));
    assert_eq!(arg(turns, "exact").form, ArgForm::Absent);

    // An array of dictionaries: each element's alternatives expanded, in order.
    assert_eq!(
        arg(case(&scenarios, "list_0"), "conditions").form,
        ArgForm::OneOf(vec![
            json!([{"field": "age", "op": ">"}, {"field": "job", "op": "="}]),
            json!([{"field": "age", "op": "gt"}, {"field": "job", "op": "="}]),
        ])
    );

    // An acceptable value outside the parameter's type or enum is dropped, and named in the
    // header; numbers equal by value are one value.
    assert!(converted
        .scenarios
        .contains("# Dropped from rules_0, `mode`: \"plane\" (outside"));
    let typed = case(&scenarios, "typed_0");
    assert_eq!(arg(typed, "number").form, ArgForm::Equals(json!(5)));
    let exact = arg(typed, "exact");
    assert_eq!(exact.form, ArgForm::Equals(json!(true)));
    assert!(exact.optional);
    for dropped in ["`number`: \"five\"", "`number`: [5]", "`exact`: \"yes\""] {
        assert!(
            converted
                .scenarios
                .contains(&format!("# Dropped from typed_0, {dropped} (outside")),
            "{dropped}"
        );
    }

    // Without a tools folder the lists sit beside the scenario file.
    let flat = bfcl::convert(&questions, &answers, "made", "").unwrap();
    assert_eq!(
        parse(&flat).cases[0].tools.as_deref(),
        Some(Path::new("rules_0.json"))
    );
}

#[test]
fn broken_input_is_an_error_naming_its_line() {
    let q = |id: &str| {
        json!({"id": id, "question": [[{"role": "user", "content": "5!"}]],
               "function": [{"name": "f", "parameters": {"type": "dict", "properties": {}}}]})
    };
    let a = |id: &str| json!({"id": id, "ground_truth": [{"f": {}}]});
    let answers = jsonl(&[a("x"), a("y")]);

    let not_json = format!("{}\n{{not json\n", q("x"));
    let err = bfcl::convert(&not_json, &answers, "c", "tools").unwrap_err();
    assert!(err.contains("questions line 2"), "{err}");

    let twice = jsonl(&[q("x"), q("x")]);
    let err = bfcl::convert(&twice, &answers, "c", "tools").unwrap_err();
    assert!(err.contains("repeats"), "{err}");

    let unanswered = jsonl(&[q("z")]);
    let err = bfcl::convert(&unanswered, &answers, "c", "tools").unwrap_err();
    assert!(err.contains("no case could be converted"), "{err}");

    // A case that expects a call with no arguments is a case.
    let ok = bfcl::convert(&jsonl(&[q("x")]), &answers, "c", "tools").unwrap();
    assert!(parse(&ok).cases[0].args.is_empty());
    let err = bfcl::convert(&jsonl(&[q("x")]), &answers, " ", "tools").unwrap_err();
    assert!(err.contains("category"), "{err}");

    // Parameters that are not a schema object: the case is skipped with the reason, no panic.
    let odd = json!({"id": "x", "question": [[{"role": "user", "content": "5!"}]],
                     "function": [{"name": "f", "parameters": "an integer"}]});
    let converted = bfcl::convert(&jsonl(&[odd, q("y")]), &answers, "c", "tools").unwrap();
    assert_eq!(converted.skipped.len(), 1, "{:?}", converted.skipped);
    assert_eq!(converted.skipped[0].0, "x");
}

/// Converts one vendored category from its raw lines.
fn convert_sample(category: &str, stem: &str) -> Converted {
    let raw = sample_dir().join("raw");
    let read =
        |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let questions = read(raw.join(format!("{stem}.json")));
    let answers = read(raw.join(format!("possible_answer/{stem}.json")));
    let source = Source {
        commit: COMMIT,
        questions: &format!("{DATA}/{stem}.json"),
        answers: &format!("{DATA}/possible_answer/{stem}.json"),
    };
    bfcl::convert_from(&source, &questions, &answers, category, "tools").unwrap()
}

#[test]
fn the_vendored_sample_is_what_the_converter_makes_of_its_raw_lines() {
    let dir = sample_dir();
    let update = toolsmith::export::update_requested();
    if update {
        // The lists of cases no longer converted go too.
        let _ = std::fs::remove_dir_all(dir.join("tools"));
    }
    let mut expected_files = BTreeSet::new();
    for (category, stem) in SAMPLE {
        let converted = convert_sample(category, stem);
        assert!(converted.skipped.is_empty(), "{:?}", converted.skipped);
        assert_eq!(converted.tools.len(), 50);
        let scenarios = parse(&converted);
        assert_eq!(scenarios.cases.len(), 50, "{category}");
        assert!(scenarios
            .cases
            .iter()
            .all(|c| c.tags == ["bfcl", category] && c.history.is_empty()));
        let file = format!("{category}.toml");
        if update {
            converted.write(&dir, &file, "tools").unwrap();
        }
        let vendored = std::fs::read_to_string(dir.join(&file)).unwrap();
        assert!(
            vendored == converted.scenarios,
            "{file} is stale: rerun with TOOLSMITH_UPDATE_SNAPSHOTS=1 and review the diff"
        );
        for (name, tools) in &converted.tools {
            let vendored = std::fs::read_to_string(dir.join("tools").join(name)).unwrap();
            assert!(
                vendored == Converted::tool_file_text(tools),
                "tools/{name} is stale: rerun with TOOLSMITH_UPDATE_SNAPSHOTS=1"
            );
            expected_files.insert(name.clone());
        }
    }
    // No tool list that no case names.
    let on_disk: BTreeSet<String> = std::fs::read_dir(dir.join("tools"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(on_disk, expected_files);
    assert_eq!(on_disk.len(), 100);
}

/// The counts of the vendored sample: cases, tools offered, dotted names renamed, and the forms
/// of the expectations.
#[test]
fn the_vendored_sample_has_the_cases_of_the_raw_lines() {
    for (category, stem) in SAMPLE {
        let scenarios = Scenarios::load(sample_dir().join(format!("{category}.toml"))).unwrap();
        let raw = std::fs::read_to_string(sample_dir().join(format!("raw/{stem}.json"))).unwrap();
        let raw: Vec<Value> = raw
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let mut offered = 0;
        let mut dotted = 0;
        let (mut optional, mut one_of, mut args) = (0, 0, 0);
        for (case, line) in scenarios.cases.iter().zip(&raw) {
            assert_eq!(case.id, line["id"]);
            assert_eq!(case.prompt, line["question"][0][0]["content"]);
            let list: Vec<Value> = serde_json::from_str(
                &std::fs::read_to_string(case.tools.as_ref().unwrap()).unwrap(),
            )
            .unwrap();
            offered += list.len();
            let Expect::Tool(expected) = &case.expect else {
                panic!("{}: expects no tool", case.id)
            };
            assert!(list.iter().any(|t| t["name"] == expected.as_str()));
            // Renamed: no function of the raw line has the expected tool's name.
            let functions = line["function"].as_array().unwrap();
            dotted += usize::from(!functions.iter().any(|f| f["name"] == expected.as_str()));
            for a in case.args.values() {
                args += 1;
                optional += usize::from(a.optional);
                one_of += usize::from(matches!(a.form, ArgForm::OneOf(_)));
            }
        }
        let counts = (
            scenarios.cases.len(),
            offered,
            dotted,
            args,
            optional,
            one_of,
        );
        match category {
            "simple" => assert_eq!(counts, SIMPLE_COUNTS, "simple"),
            _ => assert_eq!(counts, MULTIPLE_COUNTS, "multiple"),
        }
    }
}

/// (cases, tools offered, expected tools renamed from a dotted name, arguments, optional ones,
/// `one_of`s) of the vendored `simple` and `multiple`.
const SIMPLE_COUNTS: (usize, usize, usize, usize, usize, usize) = (50, 50, 17, 137, 29, 6);
const MULTIPLE_COUNTS: (usize, usize, usize, usize, usize, usize) = (50, 127, 43, 143, 21, 25);

/// Every vendored tool list registers in a toolbox, every expected tool and argument exists, and
/// every value an expectation names is one the parameter's schema accepts (the check an
/// evaluation runs, with the toolbox's own validator).
#[test]
fn every_vendored_expectation_is_one_its_tool_accepts() {
    check_against_tools(&sample_dir());
}

/// [`every_vendored_expectation_is_one_its_tool_accepts`] over the scenario files of `dir`.
fn check_against_tools(dir: &Path) {
    for (category, _) in SAMPLE {
        let scenarios = Scenarios::load(dir.join(format!("{category}.toml"))).unwrap();
        for case in &scenarios.cases {
            let text = std::fs::read_to_string(case.tools.as_ref().unwrap()).unwrap();
            let list: Vec<Value> = serde_json::from_str(&text).unwrap();
            let specs: Vec<ToolSpec> = list
                .iter()
                .map(|t| {
                    ToolSpec::new(
                        t["name"].as_str().unwrap(),
                        t["description"].as_str().unwrap_or_default(),
                        t["inputSchema"].clone(),
                    )
                })
                .collect();
            let mut toolbox = Toolbox::builder();
            for spec in &specs {
                toolbox = toolbox.tool(unused(spec.clone()));
            }
            toolbox
                .build()
                .unwrap_or_else(|e| panic!("{}: the tools do not register: {e}", case.id));
            let one = Scenarios {
                system: None,
                cases: vec![case.clone()],
            };
            one.check(&specs, |tool, param, value| {
                accepts(&specs, tool, param, value)
            })
            .unwrap_or_else(|problems| panic!("{problems:#?}"));
        }
    }
}

fn unused(spec: ToolSpec) -> Tool {
    Tool::from_fn(spec, |_, _| {
        Box::pin(async { unreachable!("never called") })
    })
}

/// Whether the tool's schema for `param` accepts `value` (the validator a toolbox checks
/// arguments with, over that one parameter).
fn accepts(specs: &[ToolSpec], tool: &str, param: &str, value: &Value) -> Result<(), String> {
    let spec = specs.iter().find(|s| s.name == tool).unwrap();
    let schema = json!({
        "type": "object",
        "properties": {param: spec.input_schema["properties"][param].clone()},
        "required": [param]
    });
    let validator = Validator::new(&schema).map_err(|e| format!("{e:?}"))?;
    validator
        .validate(&json!({param: value}))
        .map(|_| ())
        .map_err(|problems| format!("{problems:?}"))
}
