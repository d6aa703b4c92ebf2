//! Linting and measuring tool lists captured from real MCP servers
//! (`tests/fixtures/catalogs/*.json` at the repository root).

use serde_json::{json, Value};
use toolsmith_lint::{
    lint_tool_list, measure, tool_definitions, Finding, LintConfig, ListError, Severity,
};

fn catalog(name: &str) -> Value {
    let path = format!(
        "{}/../tests/fixtures/catalogs/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn has(findings: &[Finding], tool: &str, rule: &str, pointer: &str, message: &str) -> bool {
    findings
        .iter()
        .any(|f| f.tool == tool && f.rule == rule && f.pointer == pointer && f.message == message)
}

fn of<'a>(findings: &'a [Finding], tool: &str, rule: &str) -> Vec<&'a Finding> {
    findings
        .iter()
        .filter(|f| f.tool == tool && f.rule == rule)
        .collect()
}

#[test]
fn filesystem_server() {
    let findings = lint_tool_list(&catalog("filesystem"), &LintConfig::default()).unwrap();

    // read_file's `path` has no description (nor do most `path` parameters of this server).
    assert!(has(
        &findings,
        "read_file",
        "described",
        "/inputSchema/properties/path/description",
        "parameter \"path\" has no description"
    ));
    assert!(has(
        &findings,
        "move_file",
        "described",
        "/inputSchema/properties/destination/description",
        "parameter \"destination\" has no description"
    ));
    // edit_file's `edits` array is undocumented, but its item fields oldText/newText are.
    let edit: Vec<&str> = of(&findings, "edit_file", "described")
        .iter()
        .map(|f| f.pointer.as_str())
        .collect();
    assert_eq!(
        edit,
        vec![
            "/inputSchema/properties/edits/description",
            "/inputSchema/properties/path/description"
        ]
    );
    // camelCase parameters.
    assert!(has(
        &findings,
        "edit_file",
        "name_style",
        "/inputSchema/properties/dryRun",
        "parameter \"dryRun\" is not snake_case; use \"dry_run\""
    ));
    assert!(has(
        &findings,
        "list_directory_with_sizes",
        "name_style",
        "/inputSchema/properties/sortBy",
        "parameter \"sortBy\" is not snake_case; use \"sort_by\""
    ));
    // directory_tree is a noun phrase.
    assert!(has(
        &findings,
        "directory_tree",
        "name_style",
        "/name",
        "name \"directory_tree\" does not start with a verb; use verb_object, e.g. \"get_directory_tree\""
    ));
    // write_file, create_directory and move_file never say what comes back.
    for tool in ["write_file", "create_directory", "move_file"] {
        assert_eq!(
            of(&findings, tool, "says_what_it_returns").len(),
            1,
            "{tool}"
        );
    }
    // ...while read_file ("Read the complete contents ...") and edit_file ("Returns a git-style diff") do.
    for tool in [
        "read_file",
        "edit_file",
        "search_files",
        "list_allowed_directories",
    ] {
        assert!(
            of(&findings, tool, "says_what_it_returns").is_empty(),
            "{tool}"
        );
    }
    // "directories always have a children array" describes; it does not steer.
    assert!(
        findings.iter().all(|f| f.rule != "no_steering"),
        "{findings:#?}"
    );
    // Every description is within chrome's 500 (the longest, read_text_file, is 457).
    assert!(findings.iter().all(|f| f.rule != "description_budget"));
    // The complete set of rules that fire on this server.
    let mut rules: Vec<&str> = findings.iter().map(|f| f.rule).collect();
    rules.sort();
    rules.dedup();
    assert_eq!(
        rules,
        vec!["described", "name_style", "says_what_it_returns"]
    );
    // list_allowed_directories takes no input and is clean.
    assert!(findings
        .iter()
        .all(|f| f.tool != "list_allowed_directories"));
}

#[test]
fn filesystem_server_under_tighter_budgets() {
    let cfg = LintConfig::from_manifest_str(
        "[package.metadata.toolsmith]\ndescription_budget = 420\ndefinition_budget = 800\n",
    )
    .unwrap();
    let findings = lint_tool_list(&catalog("filesystem"), &cfg).unwrap();
    let budget: Vec<(&str, &str, &str)> = findings
        .iter()
        .filter(|f| f.rule.ends_with("_budget"))
        .map(|f| (f.tool.as_str(), f.rule, f.message.as_str()))
        .collect();
    assert_eq!(
        budget,
        vec![
            ("read_text_file", "definition_budget", "definition is 836 characters (name, description and input schema as compact JSON); the budget is 800"),
            ("read_text_file", "description_budget", "description is 457 characters; the budget is 420"),
            ("search_files", "description_budget", "description is 424 characters; the budget is 420"),
        ]
    );
}

#[test]
fn everything_server() {
    let findings = lint_tool_list(&catalog("everything"), &LintConfig::default()).unwrap();
    // gzip-file-as-resource's outputType description runs over chrome's 150.
    assert!(has(
        &findings,
        "gzip-file-as-resource",
        "param_description_budget",
        "/inputSchema/properties/outputType/description",
        "parameter description is 161 characters; the budget is 150"
    ));
    // get-resource-reference's resourceType enum has no description.
    assert!(has(
        &findings,
        "get-resource-reference",
        "described",
        "/inputSchema/properties/resourceType/description",
        "parameter \"resourceType\" has no description"
    ));
    // kebab-case names.
    assert!(has(
        &findings,
        "get-env",
        "name_style",
        "/name",
        "name \"get-env\" is not snake_case; use \"get_env\""
    ));
    // "echo" names no object.
    assert!(has(
        &findings,
        "echo",
        "name_style",
        "/name",
        "name \"echo\" is a verb alone; add what it acts on, as in \"echo_<object>\""
    ));
    // "Toggles simulated, random-leveled logging on or off." says nothing of a result.
    assert_eq!(
        of(
            &findings,
            "toggle-simulated-logging",
            "says_what_it_returns"
        )
        .len(),
        1
    );
    assert!(of(&findings, "get-sum", "says_what_it_returns").is_empty());
    // The only error-severity findings are the two above.
    let errors: Vec<(&str, &str)> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| (f.tool.as_str(), f.rule))
        .collect();
    assert_eq!(
        errors,
        vec![
            ("get-resource-reference", "described"),
            ("gzip-file-as-resource", "param_description_budget")
        ]
    );
}

#[test]
fn findings_follow_tool_order() {
    let list = catalog("filesystem");
    let findings = lint_tool_list(&list, &LintConfig::default()).unwrap();
    let order: Vec<&str> = tool_definitions(&list)
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let positions: Vec<usize> = findings
        .iter()
        .map(|f| order.iter().position(|n| *n == f.tool).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] <= w[1]), "{positions:?}");
    // Same input, same output.
    assert_eq!(
        findings,
        lint_tool_list(&list, &LintConfig::default()).unwrap()
    );
}

#[test]
fn a_clean_hand_written_list_has_no_findings() {
    let list = json!({"tools": [
        {
            "name": "search_products",
            "description": "Search the catalog by keyword. Returns up to 20 matching products with name, price and stock.",
            "inputSchema": {"type": "object", "properties": {
                "query": {"type": "string", "description": "Words to look for, e.g. \"red shoes\"."},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 20, "description": "At most this many products, 1 to 20. Default 20."}
            }, "required": ["query"]}
        },
        {
            "name": "get_order",
            "title": "Get order",
            "description": "Get one order by id. Returns its lines, total and delivery status.",
            "inputSchema": {"type": "object", "properties": {
                "order_id": {"type": "string", "description": "Order id, e.g. \"A-1042\"."},
                "detail": {"type": "string", "enum": ["summary", "full"], "description": "How much to return."}
            }, "required": ["order_id"]}
        },
        {"name": "list_stores", "description": "Lists every store with its address and opening hours."}
    ]});
    assert_eq!(
        lint_tool_list(&list, &LintConfig::default()).unwrap(),
        vec![]
    );
}

#[test]
fn list_shapes() {
    let tool = json!({"name": "get_time", "description": "Returns the time."});
    for list in [
        json!([tool.clone()]),
        json!({"tools": [tool.clone()]}),
        json!({"tools": [tool.clone()], "nextCursor": "x"}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool.clone()]}}),
        json!({"server": "demo", "tools": [tool.clone()]}),
    ] {
        assert_eq!(tool_definitions(&list).unwrap().len(), 1, "{list}");
        assert_eq!(
            lint_tool_list(&list, &LintConfig::default()).unwrap(),
            vec![]
        );
    }
}

#[test]
fn not_a_list_is_a_clear_error() {
    let err =
        lint_tool_list(&json!({"jsonrpc": "2.0", "id": 1}), &LintConfig::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a tool list: an MCP tools/list result {\"tools\": [...]}, a JSON-RPC response \
         {\"result\": {\"tools\": [...]}}, or an array of tool definitions; found an object with keys \"jsonrpc\", \"id\""
    );
    let err = lint_tool_list(&json!({"tools": {"a": 1}}), &LintConfig::default()).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("found \"tools\" is an object with keys \"a\", not an array"),
        "{err}"
    );
    let err = lint_tool_list(&json!("tools"), &LintConfig::default()).unwrap_err();
    assert!(err.to_string().ends_with("found a string"), "{err}");
    let err = lint_tool_list(
        &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}),
        &LintConfig::default(),
    )
    .unwrap_err();
    assert!(matches!(err, ListError::RpcError { .. }));
    assert_eq!(
        err.to_string(),
        "the JSON-RPC response is an error, not a tool list: {\"code\":-32601,\"message\":\"Method not found\"}"
    );
    // A malformed entry inside a list is a finding, not an error.
    let findings = lint_tool_list(&json!([42]), &LintConfig::default()).unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(
        (findings[0].rule, findings[0].pointer.as_str()),
        ("well_formed", "")
    );
}

#[test]
fn measure_a_catalog() {
    let list = catalog("filesystem");
    let m = measure(&list).unwrap();
    let tools = tool_definitions(&list).unwrap();
    assert_eq!(m.per_tool.len(), tools.len());
    // Each figure is the compact JSON of name, description and inputSchema (title, annotations,
    // outputSchema and execution are left out).
    for ((name, chars), tool) in m.per_tool.iter().zip(tools) {
        let expected = json!({"name": tool["name"], "description": tool["description"], "inputSchema": tool["inputSchema"]});
        assert_eq!(*chars, expected.to_string().chars().count(), "{name}");
        assert_eq!(name, tool["name"].as_str().unwrap());
    }
    assert_eq!(m.per_tool[0], ("read_file".to_string(), 459));
    assert_eq!(
        m.total_chars,
        m.per_tool.iter().map(|(_, n)| n).sum::<usize>()
    );
    assert_eq!(m.total_chars, 7972);
    assert_eq!(m.estimated_tokens, 1993);
    assert!(measure(&json!({"nope": 1})).is_err());
}
