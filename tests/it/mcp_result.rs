//! An MCP client that checks `structuredContent` against the tool's `outputSchema` accepts what
//! `export::mcp_call_result` returns, for successful and failed calls alike, in every protocol
//! version; the envelope itself travels in `_meta`, and in the text block on every outcome but an
//! `ok` whose data is the whole answer (whose text is the structured data's JSON).

use crate::store_tools as store;

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
            // A plain ok (these calls' oks carry nothing but data) is the structured data, its
            // JSON as text and no `_meta`, as MCP asks of structured output; every other outcome
            // has the whole envelope as text and, without its data, in `_meta`.
            let text: Value =
                serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
            if env.status == toolsmith::Status::Ok {
                assert_eq!(&text, structured, "{version} {name} {args}");
                assert!(result.get("_meta").is_none(), "{version} {name}: {result}");
            } else {
                assert_eq!(
                    result["content"][0]["text"],
                    Value::String(env.to_json()),
                    "{version} {name} {args}"
                );
                assert_eq!(
                    result["_meta"][ENVELOPE_META_KEY]["status"],
                    env.status.as_str()
                );
                assert_eq!(
                    result["_meta"][ENVELOPE_META_KEY]["code"],
                    env.code.as_deref().map_or(Value::Null, Value::from)
                );
            }
            if env.status == toolsmith::Status::Ok {
                assert_ne!(structured.get("status"), Some(&json!("ok")), "{structured}");
            } else {
                assert_eq!(structured, &json!({ "status": env.status.as_str() }));
            }
        }
    }
}

/// An `ok` the model must read more than data from (a note, a cut with its cursor, a reference)
/// keeps the whole envelope as its text and in `_meta`; an `ok` with data alone sends the data's
/// JSON and no `_meta`.
#[test]
fn the_text_is_the_envelope_whenever_an_ok_carries_more_than_data() {
    use toolsmith::Envelope;
    let plain = {
        let mut env = Envelope::ok(json!({"sku": "TENT-1"}));
        env.operation_id = Some("op-1".into());
        env
    };
    let with_note = {
        let mut env = plain.clone();
        env.note = Some("Only the first 10 of 42 matches; narrow the query.".into());
        env
    };
    let cut = {
        let mut env = plain.clone();
        env.truncated = true;
        env.cursor = Some("c1.abc".into());
        env
    };
    let referenced = {
        let mut env = plain.clone();
        env.reference = Some("r-1".into());
        env
    };
    for version in McpVersion::ALL {
        let result = mcp_call_result(None, &plain, version);
        assert_eq!(
            result["content"][0]["text"], r#"{"sku":"TENT-1"}"#,
            "{version}"
        );
        assert_eq!(result["isError"], false);
        assert!(result.get("_meta").is_none(), "{result}");
        for env in [&with_note, &cut, &referenced] {
            let result = mcp_call_result(None, env, version);
            assert_eq!(
                result["content"][0]["text"],
                Value::String(env.to_json()),
                "{version}"
            );
            assert_eq!(result["isError"], false);
            let meta = &result["_meta"][ENVELOPE_META_KEY];
            assert_eq!(meta["status"], "ok");
            assert_eq!(meta["operation_id"], "op-1");
            assert!(meta.get("data").is_none(), "{meta}");
        }
    }
}

/// A kept result's link, set on the parts by a server that knows the caller, is a
/// `resource_link` content block after the text, in every version; without one the content is
/// the text block alone.
#[tokio::test]
async fn a_kept_result_is_announced_as_a_resource_link_after_the_text() {
    use toolsmith::budget::{RESULT_MIME_TYPE, RESULT_URI_PREFIX};
    use toolsmith::export::mcp_call_parts;
    use toolsmith::{Caller, Effects, Tool, ToolSpec, Toolbox};
    let spec = ToolSpec::new(
        "list_numbers",
        "Lists the numbers below 1000. Returns a list.",
        json!({"type": "object", "additionalProperties": false}),
    )
    .with_effects(Effects::none().with_read_only(true))
    .with_version("1.0.0");
    let tool = Tool::from_fn(spec, |_, _| {
        Box::pin(async { Ok(json!((0..1000).collect::<Vec<_>>())) })
    });
    let toolbox = Toolbox::builder()
        .tool(tool)
        .output_budget(100)
        .build()
        .unwrap();
    let ann = Caller::new("ann");
    let env = toolbox.call_as(&ann, "list_numbers", "{}").await;
    let link = toolbox.result_resource("list_numbers", &env, &ann).unwrap();
    for version in McpVersion::ALL {
        let parts = mcp_call_parts(None, env.clone(), version);
        assert_eq!(parts.resource_link, None);
        let alone = parts.clone().into_value();
        assert_eq!(alone["content"].as_array().unwrap().len(), 1, "{alone}");
        let result = parts.with_resource_link(Some(link.clone())).into_value();
        let content = result["content"].as_array().unwrap();
        assert_eq!(content.len(), 2, "{result}");
        assert_eq!(content[0]["text"], Value::String(env.to_json()));
        let block = &content[1];
        assert_eq!(block["type"], "resource_link");
        assert!(block["uri"]
            .as_str()
            .unwrap()
            .starts_with(RESULT_URI_PREFIX));
        assert_eq!(block["uri"], link.uri.as_str());
        assert_eq!(block["name"], env.reference.as_deref().unwrap());
        assert_eq!(block["mimeType"], RESULT_MIME_TYPE);
        assert_eq!(block["title"], "Full result of list_numbers");
        assert!(
            block["description"]
                .as_str()
                .unwrap()
                .contains("full result of this call"),
            "{block}"
        );
        assert_eq!(result["isError"], false);
    }
}
