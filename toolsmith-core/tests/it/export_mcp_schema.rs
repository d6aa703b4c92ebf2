//! Every MCP export validates against the official `Tool` definition of its protocol revision
//! (`tests/fixtures/specs/mcp-schema-<version>.json`), and every exported schema is a valid
//! JSON Schema (checked against its meta-schema).

use crate::fixtures;

use serde_json::json;
use toolsmith_core::export::{export, McpVersion, Target};
use toolsmith_core::ToolSpec;

use fixtures::workspace_file;

/// A validator for the `Tool` definition: the whole official document with a root `$ref` to
/// `Tool` (draft-07 files keep it under `definitions`, 2020-12 files under `$defs`; in draft-07 a
/// root `$ref` overrides its siblings, in 2020-12 `$defs` beside it is only a container).
fn tool_validator(version: McpVersion) -> jsonschema::Validator {
    let mut doc = workspace_file(&format!("tests/fixtures/specs/mcp-schema-{version}.json"));
    let defs = if doc.get("definitions").is_some() {
        "definitions"
    } else {
        "$defs"
    };
    assert!(
        doc[defs].get("Tool").is_some(),
        "no Tool definition in the {version} schema"
    );
    doc["$ref"] = json!(format!("#/{defs}/Tool"));
    jsonschema::validator_for(&doc).unwrap_or_else(|e| panic!("bad {version} schema: {e}"))
}

fn assert_valid_tools(version: McpVersion, specs: &[ToolSpec]) -> usize {
    let validator = tool_validator(version);
    let doc = export(specs, Target::Mcp(version)).unwrap_or_else(|e| panic!("{e}"));
    let tools = doc["tools"].as_array().expect("tools array");
    assert_eq!(tools.len(), specs.len());
    for tool in tools {
        let errors: Vec<String> = validator
            .iter_errors(tool)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "MCP {version} rejects {}:\n{}",
            tool["name"],
            errors.join("\n")
        );
        for key in ["inputSchema", "outputSchema"] {
            if let Some(schema) = tool.get(key) {
                if let Err(e) = jsonschema::meta::validate(schema) {
                    panic!("{key} of {} is not a valid JSON Schema: {e}", tool["name"]);
                }
            }
        }
    }
    tools.len()
}

#[test]
fn representative_specs_validate_against_every_mcp_revision() {
    for version in McpVersion::ALL {
        assert_eq!(assert_valid_tools(version, &fixtures::all()), 5);
    }
}

#[test]
fn captured_catalogs_reexport_valid_for_every_mcp_revision() {
    for file in ["everything.json", "filesystem.json"] {
        let specs = fixtures::catalog_specs(file);
        assert!(
            specs.len() > 5,
            "{file} has too few tools to be a useful fixture"
        );
        for version in McpVersion::ALL {
            assert_eq!(assert_valid_tools(version, &specs), specs.len());
        }
    }
}

/// The validator is not vacuous: it rejects what the revisions forbid.
#[test]
fn the_official_schemas_reject_broken_tools() {
    let v0618 = tool_validator(McpVersion::V2025_06_18);
    let v1125 = tool_validator(McpVersion::V2025_11_25);
    let v0728 = tool_validator(McpVersion::V2026_07_28);
    let no_object_root = json!({"name": "x", "inputSchema": {"type": "array"}});
    let array_output = json!({"name": "x", "inputSchema": {"type": "object"},
                              "outputSchema": {"type": "array", "items": {"type": "string"}}});
    let no_name = json!({"inputSchema": {"type": "object"}});
    for v in [&v0618, &v1125, &v0728] {
        assert!(!v.is_valid(&no_object_root));
        assert!(!v.is_valid(&no_name));
    }
    assert!(!v0618.is_valid(&array_output));
    assert!(!v1125.is_valid(&array_output));
    assert!(
        v0728.is_valid(&array_output),
        "2026-07-28 allows any output type"
    );
}
