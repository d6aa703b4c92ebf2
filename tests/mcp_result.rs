//! An MCP client that checks `structuredContent` against the tool's `outputSchema` accepts what
//! `Envelope::to_mcp_result` returns, for successful and failed calls alike.

#[allow(dead_code)]
#[path = "../examples/store/tools.rs"]
mod store;

use serde_json::{json, Value};
use toolsmith::export::{McpVersion, Target};

#[tokio::test]
async fn structured_content_conforms_to_the_exported_output_schema() {
    let customer = store::Customer {
        id: "c-1".into(),
        purchased: Vec::new(),
    };
    let toolbox = store::toolbox(store::demo_catalogue(), customer).unwrap();
    let calls = [
        ("search_products", json!({"query": "tent"})),
        ("search_products", json!({"query": "zzzz-nothing"})),
        ("search_products", json!({"query": 7})),
        ("compare_products", json!({"skus": ["NOPE-1", "NOPE-2"]})),
        ("add_to_cart", json!({"sku": "NOPE-1", "quantity": 1})),
    ];
    for version in McpVersion::ALL {
        let export = toolbox.export(Target::Mcp(version)).unwrap();
        for (name, args) in &calls {
            let tool = export["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == *name)
                .unwrap();
            let validator = jsonschema::validator_for(&tool["outputSchema"]).unwrap();
            let env = toolbox.call(name, args.clone()).await;
            let result = env.to_mcp_result();
            let structured: &Value = &result["structuredContent"];
            let errors: Vec<String> = validator
                .iter_errors(structured)
                .map(|e| e.to_string())
                .collect();
            assert!(
                errors.is_empty(),
                "{version} {name} {args}: {errors:?}\n{structured}"
            );
            assert_eq!(result["isError"], !env.is_success());
            assert_eq!(
                result["content"][0]["text"],
                Value::String(structured.to_string())
            );
        }
    }
}
