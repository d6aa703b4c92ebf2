//! An MCP client that checks `structuredContent` against the tool's `outputSchema` accepts what
//! `export::mcp_call_result` returns, for successful and failed calls alike, in every protocol
//! version; the envelope itself travels in the text block and in `_meta`.

#[allow(dead_code)]
#[path = "../examples/store/tools.rs"]
mod store;

use serde_json::{json, Value};
use toolsmith::export::{mcp_call_result, McpVersion, Target, ENVELOPE_META_KEY};

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
            let spec = toolbox.spec(name).unwrap();
            let result = mcp_call_result(Some(&spec), &env, version);
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
            assert_eq!(result["content"][0]["text"], Value::String(env.to_json()));
            assert_eq!(
                result["_meta"][ENVELOPE_META_KEY]["status"],
                env.status.as_str()
            );
            assert_eq!(
                result["_meta"][ENVELOPE_META_KEY]["code"],
                env.code.as_deref().map_or(Value::Null, Value::from)
            );
            if env.status == toolsmith::Status::Ok {
                assert_ne!(structured.get("status"), Some(&json!("ok")), "{structured}");
            } else {
                assert_eq!(structured, &json!({ "status": env.status.as_str() }));
            }
        }
    }
}
