//! One test per lowering rule and per lowering error (with its exact text).

use crate::fixtures;

use fixtures::spec;
use serde_json::{json, Value};
use toolsmith_core::export::*;
use toolsmith_core::validate::strip_null_optionals;
use toolsmith_core::{Allow, Effects, ToolSpec};

fn obj(props: Value) -> Value {
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

fn obj_req(props: Value, required: Value) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn one(spec: ToolSpec, target: Target) -> Value {
    export_tool(&spec, target).unwrap_or_else(|e| panic!("{e}"))
}

fn err(specs: Vec<ToolSpec>, target: Target) -> String {
    match export(&specs, target) {
        Ok(v) => panic!("expected an error for {target}, got {v}"),
        Err(e) => e.to_string(),
    }
}

const OPENAI_STRICT: Target = Target::OpenAiChat { strict: true };

// ---------- targets, slugs, names ----------

#[test]
fn slugs_are_unique_stable_and_round_trip() {
    let slugs: Vec<&str> = Target::all().iter().map(|t| t.slug()).collect();
    assert_eq!(
        slugs,
        [
            "mcp-2025-06-18",
            "mcp-2025-11-25",
            "mcp-2026-07-28",
            "openai-chat",
            "openai-chat-strict",
            "openai-responses",
            "openai-responses-strict",
            "anthropic",
            "anthropic-strict",
            "gemini",
            "webmcp"
        ]
    );
    for t in Target::all() {
        assert_eq!(Target::from_slug(t.slug()), Some(*t));
    }
    assert_eq!(
        Target::Anthropic { strict: true }.to_string(),
        "Anthropic Messages (strict)"
    );
    assert_eq!(
        Target::Mcp(McpVersion::V2026_07_28).to_string(),
        "MCP 2026-07-28"
    );
}

#[test]
fn name_rules_per_target() {
    assert!(name_rejected_by("search_products").is_empty());
    let dotted = name_rejected_by("files.read");
    assert_eq!(
        dotted,
        vec![
            Target::OpenAiChat { strict: false },
            Target::OpenAiChat { strict: true },
            Target::OpenAiResponses { strict: false },
            Target::OpenAiResponses { strict: true },
            Target::Anthropic { strict: false },
            Target::Anthropic { strict: true },
        ]
    );
    assert_eq!(name_rejected_by("ns:tool"), {
        let mut all: Vec<Target> = Target::all().to_vec();
        all.retain(|t| *t != Target::Gemini);
        all
    });
    let long = "a".repeat(65);
    assert_eq!(
        name_rejected_by(&long).len(),
        7,
        "only MCP (3) and WebMCP accept 65 characters"
    );
    assert_eq!(name_rejected_by(&"a".repeat(129)).len(), 11);
    assert!(name_rejected_by("_private").is_empty());
    assert_eq!(name_rejected_by("2fa"), vec![Target::Gemini]);
    assert_eq!(name_rejected_by("").len(), 11);
    assert_eq!(name_rejected_by("naïve").len(), 11);
}

// ---------- document shapes ----------

#[test]
fn each_target_has_its_document_and_tool_shape() {
    let s = fixtures::get_time();
    let mcp = export(
        std::slice::from_ref(&s),
        Target::Mcp(McpVersion::V2025_06_18),
    )
    .unwrap();
    assert_eq!(mcp["tools"][0]["name"], "get_time");
    let chat = export(
        std::slice::from_ref(&s),
        Target::OpenAiChat { strict: false },
    )
    .unwrap();
    assert_eq!(chat[0]["type"], "function");
    assert_eq!(chat[0]["function"]["strict"], false);
    assert_eq!(
        chat[0]["function"]["parameters"],
        json!({"type": "object", "additionalProperties": false})
    );
    let resp = export(
        std::slice::from_ref(&s),
        Target::OpenAiResponses { strict: false },
    )
    .unwrap();
    assert_eq!(resp[0]["name"], "get_time");
    assert_eq!(
        resp[0]["strict"], false,
        "strict:false is explicit: the Responses API defaults to strict"
    );
    let anth = export(
        std::slice::from_ref(&s),
        Target::Anthropic { strict: false },
    )
    .unwrap();
    assert!(anth[0].get("strict").is_none());
    assert!(anth[0].get("input_schema").is_some());
    let anth_strict = export(std::slice::from_ref(&s), Target::Anthropic { strict: true }).unwrap();
    assert_eq!(anth_strict[0]["strict"], true);
    let gemini = export(std::slice::from_ref(&s), Target::Gemini).unwrap();
    assert_eq!(
        gemini["functionDeclarations"][0]["parametersJsonSchema"]["type"],
        "object"
    );
    let web = export(&[s], Target::WebMcp).unwrap();
    assert!(web[0].get("execute").is_none());
    assert!(web[0].get("title").is_none());
}

// ---------- annotations and metadata ----------

#[test]
fn mcp_annotations_are_explicit_and_mapped_from_effects() {
    let t = one(
        fixtures::close_ticket(),
        Target::Mcp(McpVersion::V2025_11_25),
    );
    assert_eq!(
        t["annotations"],
        json!({"title": "Close ticket", "readOnlyHint": false, "destructiveHint": true,
               "idempotentHint": false, "openWorldHint": false})
    );
    assert_eq!(t["title"], "Close ticket");
    let t = one(
        fixtures::search_products(),
        Target::Mcp(McpVersion::V2026_07_28),
    );
    assert_eq!(t["annotations"]["readOnlyHint"], true);
    assert_eq!(t["annotations"]["destructiveHint"], false);
    assert_eq!(
        t["annotations"]["idempotentHint"], true,
        "reading is idempotent"
    );
    let t = one(
        fixtures::create_order(),
        Target::Mcp(McpVersion::V2025_06_18),
    );
    assert_eq!(
        t["annotations"],
        json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true})
    );
}

#[test]
fn lint_allows_go_into_mcp_meta_only() {
    let mut s = fixtures::get_time();
    s.allows = vec![Allow::new("description_budget", "quoted in full")];
    for v in McpVersion::ALL {
        let t = one(s.clone(), Target::Mcp(v));
        assert_eq!(
            t["_meta"],
            json!({"toolsmith/allows": [{"rule": "description_budget", "reason": "quoted in full"}]})
        );
    }
    for t in Target::all()
        .iter()
        .filter(|t| !matches!(t, Target::Mcp(_)))
    {
        let text = one(s.clone(), *t).to_string();
        assert!(
            !text.contains("description_budget"),
            "{t} leaks allows: {text}"
        );
    }
    assert!(
        one(fixtures::get_time(), Target::Mcp(McpVersion::V2025_11_25))
            .get("_meta")
            .is_none()
    );
}

#[test]
fn webmcp_annotations_map_consequential_and_untrusted() {
    let mut s = fixtures::search_products();
    s.effects.untrusted_output = true;
    assert_eq!(
        one(s, Target::WebMcp)["annotations"],
        json!({"readOnlyHint": true, "untrustedContentHint": true, "consequentialHint": false})
    );
    for effects in [
        Effects::none().with_writes(true),
        Effects::none().with_destructive(true),
        Effects::none().with_requires_approval(true),
    ] {
        let mut s = fixtures::get_time();
        s.effects = effects;
        assert_eq!(
            one(s, Target::WebMcp)["annotations"]["consequentialHint"],
            true
        );
    }
    let t = one(fixtures::close_ticket(), Target::WebMcp);
    assert_eq!(t["title"], "Close ticket");
    assert_eq!(
        t["inputSchema"],
        fixtures::close_ticket().input_schema,
        "WebMCP keeps the canonical schema"
    );
}

// ---------- MCP schema handling ----------

/// The published output schema is the tool's own type (wrapped where the version needs an
/// object) with room for the status-only structured content of a failed call: both conform.
#[test]
fn mcp_output_schema_is_the_tools_own_type_and_admits_the_status_object() {
    let s = fixtures::search_products();
    let data = s.output_schema.clone().unwrap();
    assert_ne!(
        data["type"], "object",
        "the fixture's output is not an object"
    );
    let ok_sample = json!([]);
    for v in McpVersion::ALL {
        let out = &one(s.clone(), Target::Mcp(v))["outputSchema"];
        let (expected, ok) = if v == McpVersion::V2026_07_28 {
            (
                json!({"anyOf": [data.clone(), {"type": "object", "required": ["status"]}]}),
                ok_sample.clone(),
            )
        } else {
            (
                json!({"type": "object", "properties": {"result": data.clone()}}),
                json!({ "result": ok_sample.clone() }),
            )
        };
        assert_eq!(out, &expected, "{v}");
        let validator = jsonschema::validator_for(out).unwrap();
        assert!(validator.is_valid(&ok), "{v}");
        assert!(validator.is_valid(&json!({"status": "denied"})), "{v}");
    }
    // An object type keeps its properties at the root; its required list becomes one arm.
    let mut t = fixtures::get_time();
    t.output_schema = Some(
        json!({"type": "object", "properties": {"iso": {"type": "string"}},
        "required": ["iso"]}),
    );
    for v in McpVersion::ALL {
        let out = &one(t.clone(), Target::Mcp(v))["outputSchema"];
        assert_eq!(
            out,
            &json!({"type": "object", "properties": {"iso": {"type": "string"}},
                "anyOf": [{"required": ["iso"]}, {"required": ["status"]}]}),
            "{v}"
        );
        let validator = jsonschema::validator_for(out).unwrap();
        assert!(validator.is_valid(&json!({"iso": "2026-12-01T10:00:00Z"})));
        assert!(validator.is_valid(&json!({"status": "timeout"})));
        assert!(
            !validator.is_valid(&json!({})),
            "the data's required list still holds"
        );
    }
    // A tool without an output schema publishes none.
    t.output_schema = None;
    assert!(one(t, Target::Mcp(McpVersion::V2025_06_18))
        .get("outputSchema")
        .is_none());
}

#[test]
fn mcp_output_schema_hoists_data_defs_so_refs_still_resolve() {
    let mut s = fixtures::get_time();
    s.output_schema = Some(json!({"type": "array", "items": {"$ref": "#/$defs/Node"},
        "$defs": {"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}));
    for v in McpVersion::ALL {
        let out = &one(s.clone(), Target::Mcp(v))["outputSchema"];
        assert!(out["$defs"]["Node"].is_object(), "{v}");
        let validator = jsonschema::validator_for(out).unwrap();
        let tree = json!([{"kids": [{"kids": []}]}]);
        let ok = if v == McpVersion::V2026_07_28 {
            tree
        } else {
            json!({ "result": tree })
        };
        assert!(validator.is_valid(&ok), "{v}");
        assert!(
            !validator.is_valid(&json!({"result": [{"kids": 3}]})),
            "{v}"
        );
    }
}

/// A root `$schema` written by the schema's author is kept for every MCP revision (SEP-1613:
/// the client reads the dialect from it; the conformance suite checks it is not stripped) and
/// dropped for the vendor APIs, which take none.
#[test]
fn schema_uri_is_kept_for_mcp_and_dropped_for_vendor_apis() {
    let mut s = fixtures::get_time();
    for dialect in [
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
    ] {
        s.input_schema["$schema"] = json!(dialect);
        for version in McpVersion::ALL {
            assert_eq!(
                one(s.clone(), Target::Mcp(version))["inputSchema"]["$schema"],
                dialect,
                "{version:?}"
            );
        }
        assert!(one(s.clone(), Target::Gemini)["parametersJsonSchema"]
            .get("$schema")
            .is_none());
    }
}

/// A tool's task support is MCP 2025-11-25's `execution.taskSupport` (absent for the default,
/// `forbidden`); 2025-06-18 has no such field and 2026-07-28 moved tasks to an extension where
/// the server decides per call, and no vendor API has tasks.
#[test]
fn task_support_is_exported_as_execution_in_2025_11_25_only() {
    for support in toolsmith_core::TaskSupport::ALL {
        let s = fixtures::get_time().with_task(support);
        let exported = one(s.clone(), Target::Mcp(McpVersion::V2025_11_25));
        let expected = (!support.is_forbidden()).then(|| json!({"taskSupport": support.as_str()}));
        assert_eq!(exported.get("execution").cloned(), expected, "{support:?}");
        for target in [
            Target::Mcp(McpVersion::V2025_06_18),
            Target::Mcp(McpVersion::V2026_07_28),
            Target::Anthropic { strict: false },
            Target::Gemini,
            OPENAI_STRICT,
        ] {
            let text = one(s.clone(), target).to_string();
            assert!(!text.contains("taskSupport"), "{target:?}: {text}");
        }
        // Not model-facing: the fingerprint does not move.
        assert_eq!(s.fingerprint(), fixtures::get_time().fingerprint());
    }
}

// ---------- schema passes ----------

#[test]
fn documented_enums_collapse_to_enum_with_titles_in_the_description() {
    let params = |t| {
        let v = one(fixtures::close_ticket(), t);
        v.pointer("/function/parameters")
            .or(v.get("input_schema"))
            .or(v.get("parametersJsonSchema"))
            .cloned()
            .unwrap()
    };
    for t in [
        OPENAI_STRICT,
        Target::OpenAiChat { strict: false },
        Target::Anthropic { strict: false },
        Target::Anthropic { strict: true },
        Target::Gemini,
    ] {
        assert_eq!(
            params(t)["properties"]["resolution"],
            json!({"description": "Why the ticket is closed. One of: fixed (The problem was solved), \
                   wont_fix (The request is declined), duplicate (Another ticket covers it).",
                   "type": "string", "enum": ["fixed", "wont_fix", "duplicate"]}),
            "{t}"
        );
    }
    // MCP keeps the canonical oneOf.
    let mcp = one(
        fixtures::close_ticket(),
        Target::Mcp(McpVersion::V2025_11_25),
    );
    assert!(mcp["inputSchema"]["properties"]["resolution"]["oneOf"].is_array());
}

#[test]
fn one_of_becomes_any_of_and_const_becomes_enum() {
    let s = spec(
        "u",
        obj_req(
            json!({"v": {"description": "A or B.", "oneOf": [{"type": "string"}, {"type": "integer"}]},
                                     "k": {"const": "fixed", "description": "Always fixed."}}),
            json!(["v", "k"]),
        ),
    );
    let o = one(s.clone(), OPENAI_STRICT);
    assert_eq!(
        o["function"]["parameters"]["properties"]["v"],
        json!({"description": "A or B.", "anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    assert_eq!(
        o["function"]["parameters"]["properties"]["k"],
        json!({"const": "fixed", "description": "Always fixed."})
    );
    let g = one(s.clone(), Target::Gemini);
    assert!(g["parametersJsonSchema"]["properties"]["v"]["anyOf"].is_array());
    assert_eq!(
        g["parametersJsonSchema"]["properties"]["k"],
        json!({"description": "Always fixed.", "enum": ["fixed"]})
    );
    let m = one(s, Target::Mcp(McpVersion::V2026_07_28));
    assert!(m["inputSchema"]["properties"]["v"]["oneOf"].is_array());
}

#[test]
fn refs_are_inlined_for_gemini_and_anthropic_strict_and_kept_elsewhere() {
    let mut schema = obj_req(
        json!({"from": {"$ref": "#/$defs/Point", "description": "Start."},
                                    "to": {"$ref": "#/$defs/Point"}}),
        json!(["from", "to"]),
    );
    schema["$defs"] = json!({"Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                             "required": ["x", "y"], "additionalProperties": false}});
    let s = spec("route", schema);
    let point = json!({"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
                       "required": ["x", "y"], "additionalProperties": false});
    let g = one(s.clone(), Target::Gemini)["parametersJsonSchema"].clone();
    assert!(g.get("$defs").is_none());
    assert_eq!(g["properties"]["to"], point);
    let mut from = point.clone();
    from["description"] = json!("Start.");
    assert_eq!(g["properties"]["from"], from);
    let a = one(s.clone(), Target::Anthropic { strict: true })["input_schema"].clone();
    assert_eq!(a["properties"]["to"], point);
    // OpenAI strict keeps the reference, bare: a `$ref` with siblings is wrapped in anyOf.
    let o = one(s, OPENAI_STRICT)["function"]["parameters"].clone();
    assert_eq!(
        o["properties"]["from"],
        json!({"description": "Start.", "anyOf": [{"$ref": "#/$defs/Point"}]})
    );
    assert_eq!(o["properties"]["to"], json!({"$ref": "#/$defs/Point"}));
}

#[test]
fn all_of_is_merged_for_gemini() {
    let s = spec(
        "m",
        obj_req(
            json!({"p": {"description": "Merged.", "allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]}}),
            json!(["p"]),
        ),
    );
    let g = one(s, Target::Gemini);
    assert_eq!(
        g["parametersJsonSchema"]["properties"]["p"],
        json!({"description": "Merged.", "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
               "required": ["a", "b"]})
    );
}

#[test]
fn openai_strict_requires_every_property_and_makes_optional_ones_nullable() {
    let s = spec(
        "n",
        obj_req(
            json!({
                "q": {"type": "string", "description": "Query."},
                "mode": {"type": "string", "enum": ["a", "b"], "description": "Mode."},
                "either": {"description": "Either.", "anyOf": [{"type": "string"}, {"type": "integer"}]},
                "point": {"$ref": "#/$defs/P", "description": "A point."},
                "fixed": {"const": 3, "description": "Three."},
                "nested": {"type": "object", "description": "Nested.", "properties": {"z": {"type": "boolean"}}}
            }),
            json!(["q"]),
        ),
    );
    let mut s = s;
    s.input_schema["$defs"] = json!({"P": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}});
    let p = one(s, OPENAI_STRICT)["function"]["parameters"].clone();
    assert_eq!(
        p["required"],
        json!(["q", "mode", "either", "point", "fixed", "nested"])
    );
    assert_eq!(
        p["properties"]["q"],
        json!({"type": "string", "description": "Query."})
    );
    assert_eq!(
        p["properties"]["mode"],
        json!({"type": ["string", "null"], "enum": ["a", "b", null], "description": "Mode."})
    );
    assert_eq!(
        p["properties"]["either"],
        json!({"description": "Either.", "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
    );
    assert_eq!(
        p["properties"]["point"],
        json!({"description": "A point.", "anyOf": [{"$ref": "#/$defs/P"}, {"type": "null"}]})
    );
    assert_eq!(
        p["properties"]["fixed"],
        json!({"anyOf": [{"const": 3}, {"type": "null"}], "description": "Three."})
    );
    assert_eq!(
        p["properties"]["nested"],
        json!({"type": ["object", "null"], "description": "Nested.", "properties": {"z": {"type": ["boolean", "null"]}},
               "additionalProperties": false, "required": ["z"]})
    );
    assert_eq!(
        p["$defs"]["P"]["additionalProperties"], false,
        "definitions are made strict too"
    );
}

#[test]
fn anthropic_strict_closes_objects_but_keeps_optional_params_optional() {
    let s = spec(
        "n",
        json!({"type": "object", "properties": {"q": {"type": "string"},
        "o": {"type": "object", "properties": {"z": {"type": "boolean"}}}}, "required": ["q"]}),
    );
    let p = one(s, Target::Anthropic { strict: true })["input_schema"].clone();
    assert_eq!(p["required"], json!(["q"]));
    assert_eq!(p["additionalProperties"], false);
    assert_eq!(p["properties"]["o"]["additionalProperties"], false);
    assert_eq!(
        p["properties"]["o"]["properties"]["z"],
        json!({"type": "boolean"})
    );
}

#[test]
fn constraints_the_target_cannot_express_move_into_the_description() {
    let s = fixtures::search_products();
    let o = one(s.clone(), OPENAI_STRICT)["function"]["parameters"].clone();
    assert_eq!(
        o["properties"]["query"],
        json!({"type": "string", "description": "Words to search for, e.g. \"red shoes\". (1 to 200 characters)"})
    );
    assert_eq!(
        o["properties"]["limit"],
        json!({"type": ["integer", "null"], "description": "How many products to return, 1 to 50. (default: 10)", "minimum": 1, "maximum": 50})
    );
    let a = one(s.clone(), Target::Anthropic { strict: true })["input_schema"].clone();
    assert_eq!(
        a["properties"]["limit"],
        json!({"type": "integer", "description": "How many products to return, 1 to 50. (from 1 to 50; default: 10)"})
    );
    // Non-strict targets keep every constraint.
    let loose =
        one(s.clone(), Target::OpenAiChat { strict: false })["function"]["parameters"].clone();
    assert_eq!(loose, s.input_schema);
    let c = fixtures::create_order();
    let a = one(c.clone(), Target::Anthropic { strict: true })["input_schema"].clone();
    assert_eq!(
        a["properties"]["items"]["minItems"], 1,
        "minItems 0 or 1 is supported"
    );
    assert_eq!(
        a["properties"]["items"]["description"],
        "What to order, 1 to 20 lines. (at most 20 items)"
    );
    assert_eq!(
        a["properties"]["shipping_address"]["properties"]["country"]["description"],
        "ISO 3166-1 alpha-2 code, e.g. \"DE\". (exactly 2 characters)"
    );
    let g = one(c, Target::Gemini)["parametersJsonSchema"].clone();
    assert_eq!(
        g["properties"]["tags"],
        json!({"type": "array", "description": "Labels for the order. (no duplicate items)", "items": {"type": "string"}})
    );
    assert_eq!(
        g["properties"]["items"]["maxItems"], 20,
        "Gemini keeps array bounds"
    );
}

#[test]
fn a_constraint_without_description_gets_one_and_unsupported_formats_move() {
    let s = spec(
        "f",
        obj_req(
            json!({"site": {"type": "string", "format": "uri"}, "day": {"type": "string", "format": "date"},
                                     "n": {"type": "integer", "not": {"const": 13}}}),
            json!(["site", "day", "n"]),
        ),
    );
    let o = one(s.clone(), OPENAI_STRICT)["function"]["parameters"].clone();
    assert_eq!(
        o["properties"]["site"],
        json!({"type": "string", "description": "(format: uri)"})
    );
    assert_eq!(
        o["properties"]["day"],
        json!({"type": "string", "format": "date"})
    );
    assert_eq!(
        o["properties"]["n"],
        json!({"type": "integer", "description": "(`not`: {\"const\":13})"})
    );
    let g = one(s, Target::Gemini)["parametersJsonSchema"].clone();
    assert_eq!(g["properties"]["site"]["format"], "uri");
    assert_eq!(
        g["properties"]["n"],
        json!({"type": "integer", "description": "(`not`: {\"const\":13})"})
    );
}

#[test]
fn boolean_property_schemas_become_objects_for_mcp() {
    let s = spec("b", obj(json!({"anything": true})));
    assert_eq!(
        one(s.clone(), Target::Mcp(McpVersion::V2025_06_18))["inputSchema"]["properties"]
            ["anything"],
        json!({})
    );
    assert_eq!(
        one(s, Target::Mcp(McpVersion::V2026_07_28))["inputSchema"]["properties"]["anything"],
        json!(true)
    );
}

#[test]
fn null_optionals_are_stripped_for_the_runtime() {
    let mut schema = obj_req(
        json!({"q": {"type": "string"}, "limit": {"type": "integer"},
        "addr": {"$ref": "#/$defs/A"}, "keep": {"type": ["string", "null"]}}),
        json!(["q", "addr", "keep"]),
    );
    schema["$defs"] = json!({"A": {"type": "object", "properties": {"zip": {"type": "string"}, "city": {"type": "string"}}, "required": ["city"]}});
    let mut args =
        json!({"q": "x", "limit": null, "addr": {"zip": null, "city": "Berlin"}, "keep": null});
    strip_null_optionals(&schema, &mut args);
    assert_eq!(
        args,
        json!({"q": "x", "addr": {"city": "Berlin"}, "keep": null})
    );
}

/// A file of the committed golden export of `fixtures::all()` (`tests/golden/export/`, kept by
/// `export_golden.rs`).
fn golden(file: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/export")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The tool entries of a target's list document.
fn entries(target: Target, doc: &Value) -> &Vec<Value> {
    let list = match target {
        Target::Mcp(_) => &doc["tools"],
        Target::Gemini => &doc["functionDeclarations"],
        _ => doc,
    };
    list.as_array()
        .unwrap_or_else(|| panic!("{target}: no tool list in {doc}"))
}

/// A tool entry's name, at the top or under `function` (OpenAI chat).
fn entry_name(entry: &Value) -> &str {
    entry
        .get("name")
        .or_else(|| entry.pointer("/function/name"))
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no name in {entry}"))
}

/// What the committed golden export says of the representative specs: per target its document,
/// and per tool the slugs of the targets it exports to.
struct Golden {
    docs: Vec<(Target, Value)>,
    exported: Vec<(String, Vec<String>)>,
}

impl Golden {
    fn load() -> Golden {
        let index = golden("index.json");
        let exported = index["tools"]
            .as_array()
            .expect("the index lists tools")
            .iter()
            .map(|t| {
                let slugs = t["exported"].as_array().expect("exported targets");
                (
                    t["name"].as_str().unwrap().to_string(),
                    slugs
                        .iter()
                        .map(|s| s.as_str().unwrap().to_string())
                        .collect(),
                )
            })
            .collect();
        let docs = Target::all()
            .iter()
            .map(|&t| (t, golden(&format!("{}.json", t.slug()))))
            .collect();
        Golden { docs, exported }
    }

    fn doc(&self, target: Target) -> &Value {
        &self.docs.iter().find(|(t, _)| *t == target).unwrap().1
    }

    fn exports(&self, tool: &str, target: Target) -> bool {
        self.exported
            .iter()
            .find(|(name, _)| name == tool)
            .unwrap_or_else(|| panic!("{tool} is not in the golden index"))
            .1
            .iter()
            .any(|s| s == target.slug())
    }

    /// The golden document for `target` with only the entries of `names`.
    fn doc_of(&self, target: Target, names: &[&str]) -> Value {
        let mut doc = self.doc(target).clone();
        let list = match target {
            Target::Mcp(_) => &mut doc["tools"],
            Target::Gemini => &mut doc["functionDeclarations"],
            _ => &mut doc,
        };
        list.as_array_mut()
            .unwrap()
            .retain(|e| names.contains(&entry_name(e)));
        doc
    }

    /// A list exported for `target`: the golden document of its tools when every one exports
    /// there, an error otherwise; and the tools that export there, alone as a list, give it.
    fn check_list(&self, specs: &[ToolSpec], target: Target, order: &str) {
        let exporting: Vec<ToolSpec> = specs
            .iter()
            .filter(|s| self.exports(&s.name, target))
            .cloned()
            .collect();
        let names: Vec<&str> = exporting.iter().map(|s| s.name.as_str()).collect();
        let expected = self.doc_of(target, &names);
        match export(specs, target) {
            Ok(doc) => {
                assert_eq!(
                    exporting.len(),
                    specs.len(),
                    "{order}: {target} exported {doc}"
                );
                assert_eq!(doc, expected, "{order}: the list for {target}");
            }
            Err(e) => assert!(exporting.len() < specs.len(), "{order}: {target}: {e}"),
        }
        if !exporting.is_empty() {
            let doc =
                export(&exporting, target).unwrap_or_else(|e| panic!("{order}: {target}: {e}"));
            assert_eq!(doc, expected, "{order}: the exporting tools for {target}");
        }
    }

    /// One tool exported for `target`: its entry in the golden document, or an error where the
    /// index says it does not export.
    fn check_tool(&self, spec: &ToolSpec, target: Target, order: &str) {
        let entry = entries(target, self.doc(target))
            .iter()
            .find(|e| entry_name(e) == spec.name);
        match export_tool(spec, target) {
            Ok(v) => {
                assert!(
                    self.exports(&spec.name, target),
                    "{order}: {} for {target}",
                    spec.name
                );
                assert_eq!(Some(&v), entry, "{order}: {} for {target}", spec.name);
            }
            Err(e) => {
                assert!(
                    !self.exports(&spec.name, target),
                    "{order}: {}: {e}",
                    spec.name
                );
                assert!(entry.is_none(), "{order}: {} for {target}", spec.name);
            }
        }
    }
}

/// Exports leave the specs as they were, and no export leaks into another: run in three orders
/// (targets forward, backward, and each tool through every target in turn), every list and every
/// tool gives what the committed golden export (made by `export_golden.rs`) says.
#[test]
fn exports_do_not_change_the_canonical_spec_or_each_other() {
    let specs = fixtures::all();
    let before = specs.clone();
    if update_requested() {
        // The golden files are being rewritten (export_golden.rs does too): from this export.
        check_snapshot(
            &specs,
            format!("{}/tests/golden/export", env!("CARGO_MANIFEST_DIR")),
        )
        .unwrap();
    }
    let golden = Golden::load();
    for &t in Target::all() {
        golden.check_list(&specs, t, "forward");
    }
    for &t in Target::all().iter().rev() {
        golden.check_list(&specs, t, "backward");
    }
    for (i, spec) in specs.iter().enumerate() {
        let targets: Vec<Target> = if i % 2 == 0 {
            Target::all().to_vec()
        } else {
            Target::all().iter().rev().copied().collect()
        };
        for t in targets {
            golden.check_tool(spec, t, "tool by tool");
            golden.check_list(std::slice::from_ref(spec), t, "tool by tool")
        }
    }
    // Every target exports some of the tools and some targets refuse some: both paths ran.
    assert!(Target::all()
        .iter()
        .all(|&t| specs.iter().any(|s| golden.exports(&s.name, t))));
    assert!(specs
        .iter()
        .any(|s| Target::all().iter().any(|&t| !golden.exports(&s.name, t))));
    assert_eq!(specs, before);
}

// ---------- errors, with their exact text ----------

#[test]
fn error_invalid_name() {
    assert_eq!(
        err(vec![spec("files.read", obj(json!({})))], Target::OpenAiChat { strict: false }),
        "cannot export tool `files.read` to OpenAI Chat Completions: the name `files.read` is not accepted: \
         OpenAI Chat Completions names must be 1 to 64 characters from A-Z a-z 0-9 _ - (pattern \
         ^[a-zA-Z0-9_-]{1,64}$) (at /name). Rename the tool (`#[tool(name = \"...\")]`); a name of lowercase \
         letters, digits and `_`, starting with a letter and at most 64 characters, works on every target."
    );
    let e = err(vec![spec("1st", obj(json!({})))], Target::Gemini);
    assert!(e.starts_with("cannot export tool `1st` to Gemini: the name `1st` is not accepted: Gemini names must be \
                           a letter or _ followed by A-Z a-z 0-9 _ . : -, at most 64 characters in all (at /name)."), "{e}");
    let long = "a".repeat(65);
    let e = export(
        &[spec(&long, obj(json!({})))],
        Target::Anthropic { strict: false },
    )
    .unwrap_err();
    assert_eq!(
        (e.tool.as_str(), e.pointer.as_str()),
        (long.as_str(), "/name")
    );
}

#[test]
fn error_duplicate_name() {
    assert_eq!(
        err(vec![spec("dup", obj(json!({}))), spec("dup", obj(json!({})))], Target::Mcp(McpVersion::V2025_11_25)),
        "cannot export tool `dup` to MCP 2025-11-25: another tool in the list already has this name (at /name). \
         Give each tool a unique name."
    );
}

#[test]
fn error_description_too_long_and_missing() {
    let mut s = spec("long", obj(json!({})));
    s.description = "x".repeat(1025);
    assert_eq!(
        err(vec![s.clone()], Target::OpenAiResponses { strict: true }),
        "cannot export tool `long` to OpenAI Responses (strict): the description is 1025 characters long; the \
         limit is 1024 (at /description). Shorten the description: keep what the model needs to choose and call \
         the tool, move the rest into parameter descriptions."
    );
    assert!(export(&[s], Target::Anthropic { strict: false }).is_ok());
    let mut s = spec("nodesc", obj(json!({})));
    s.description = " ".into();
    assert_eq!(
        err(vec![s], Target::WebMcp),
        "cannot export tool `nodesc` to WebMCP: the description is empty and the target requires one (at \
         /description). Add a doc comment to the tool function."
    );
}

#[test]
fn error_root_not_an_object() {
    assert_eq!(
        err(vec![spec("arr", json!({"type": "array"}))], Target::Mcp(McpVersion::V2026_07_28)),
        "cannot export tool `arr` to MCP 2026-07-28: the input schema's root is not `\"type\": \"object\"` (at \
         /inputSchema/type). Take the arguments as named parameters (or one struct) so the input is a plain \
         object; put alternatives inside a parameter."
    );
    let root_any_of =
        json!({"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]});
    assert_eq!(
        err(vec![spec("anyroot", root_any_of.clone())], Target::OpenAiChat { strict: false }),
        "cannot export tool `anyroot` to OpenAI Chat Completions: `anyOf` is not allowed at the root of the input \
         schema (at /inputSchema/anyOf). Take the arguments as named parameters (or one struct) so the input is \
         a plain object; put alternatives inside a parameter."
    );
    assert!(export(
        &[spec("anyroot", root_any_of)],
        Target::Mcp(McpVersion::V2026_07_28)
    )
    .is_ok());
}

#[test]
fn error_recursive_schema() {
    assert_eq!(
        err(vec![fixtures::render_outline()], Target::Gemini),
        "cannot export tool `render_outline` to Gemini: the schema is recursive (`$ref: \"#/$defs/Section\"` \
         refers to a type that contains itself) and the target cannot express recursion (at \
         /inputSchema/$defs/Section/properties/children/items). Bound the nesting with a non-recursive type (for \
         example a flat list with parent ids)."
    );
    assert_eq!(
        err(vec![fixtures::render_outline()], Target::Anthropic { strict: true }),
        "cannot export tool `render_outline` to Anthropic Messages (strict): the schema is recursive (`$ref: \
         \"#/$defs/Section\"` refers to a type that contains itself) and the target cannot express recursion (at \
         /inputSchema/$defs/Section/properties/children/items). Bound the nesting with a non-recursive type (for \
         example a flat list with parent ids), or export with `Target::Anthropic { strict: false }`."
    );
    for t in [
        OPENAI_STRICT,
        Target::Anthropic { strict: false },
        Target::Mcp(McpVersion::V2025_06_18),
        Target::WebMcp,
    ] {
        assert!(
            export(&[fixtures::render_outline()], t).is_ok(),
            "{t} keeps $defs"
        );
    }
}

#[test]
fn error_unresolvable_ref() {
    assert_eq!(
        err(vec![spec("badref", obj(json!({"x": {"$ref": "#/definitions/X"}})))], Target::Gemini),
        "cannot export tool `badref` to Gemini: `$ref: \"#/definitions/X\"` does not point to a definition in the \
         root `$defs` (at /inputSchema/properties/x). Keep definitions in the root `$defs` and refer to them as \
         `#/$defs/Name`."
    );
}

#[test]
fn error_map_like_object_in_strict_mode() {
    let s = spec(
        "map",
        obj(json!({"labels": {"type": "object", "additionalProperties": {"type": "string"}}})),
    );
    assert_eq!(
        err(vec![s.clone()], OPENAI_STRICT),
        "cannot export tool `map` to OpenAI Chat Completions (strict): the object accepts arbitrary keys \
         (`additionalProperties` is not `false`), which strict mode cannot express (at \
         /inputSchema/properties/labels/additionalProperties). Use a list of `{key, value}` objects or a struct \
         with named fields instead of a map, or export this tool with `Target::OpenAiChat { strict: false }`."
    );
    assert!(
        err(vec![s.clone()], Target::Anthropic { strict: true }).contains("accepts arbitrary keys")
    );
    assert!(export(&[s], Target::OpenAiChat { strict: false }).is_ok());
}

#[test]
fn error_tuple_in_strict_mode() {
    let s = spec(
        "tuple",
        obj(
            json!({"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}}),
        ),
    );
    assert_eq!(
        err(vec![s.clone()], Target::OpenAiResponses { strict: true }),
        "cannot export tool `tuple` to OpenAI Responses (strict): a tuple (`prefixItems`) cannot be expressed by \
         the target (at /inputSchema/properties/point). Use a struct with named fields instead of a tuple, or \
         export this tool with `Target::OpenAiResponses { strict: false }`."
    );
    assert!(export(&[s], Target::Gemini).is_ok());
}

#[test]
fn error_array_without_items_and_untyped_values() {
    assert_eq!(
        err(vec![spec("noitems", obj(json!({"xs": {"type": "array"}})))], Target::OpenAiChat { strict: false }),
        "cannot export tool `noitems` to OpenAI Chat Completions: the array has no `items` schema (at \
         /inputSchema/properties/xs). Give the array an item type (`Vec<T>` with `T: JsonSchema`)."
    );
    assert_eq!(
        err(vec![spec("anyval", obj(json!({"v": {"description": "Anything."}})))], OPENAI_STRICT),
        "cannot export tool `anyval` to OpenAI Chat Completions (strict): the schema accepts any value (it has no \
         `type`), which strict mode cannot express (at /inputSchema/properties/v). Give the parameter a concrete \
         type instead of `serde_json::Value`, or export this tool with `Target::OpenAiChat { strict: false }`."
    );
}

#[test]
fn error_non_scalar_enum_for_anthropic_strict() {
    assert_eq!(
        err(vec![spec("objenum", obj(json!({"v": {"enum": [{"a": 1}]}})))], Target::Anthropic { strict: true }),
        "cannot export tool `objenum` to Anthropic Messages (strict): the enum has a value that is not a string, \
         number, boolean or null (at /inputSchema/properties/v/enum). Use an enum of strings, or export this tool \
         with `Target::Anthropic { strict: false }`."
    );
}

#[test]
fn error_per_request_limits() {
    let many = |n: usize| {
        (0..n)
            .map(|i| spec(&format!("t{i:03}"), obj(json!({}))))
            .collect::<Vec<_>>()
    };
    assert!(export(&many(20), Target::Anthropic { strict: true }).is_ok());
    assert_eq!(
        err(many(21), Target::Anthropic { strict: true }),
        "cannot export tool `t020` to Anthropic Messages (strict): adding this tool makes 21 strict tools in one \
         request; the limit is 20 (at /name). Send at most 20 tools per request (split the toolbox by task), or \
         export this tool with `Target::Anthropic { strict: false }`."
    );
    assert!(export(&many(128), Target::OpenAiChat { strict: false }).is_ok());
    assert_eq!(
        err(many(129), Target::OpenAiChat { strict: false }),
        "cannot export tool `t128` to OpenAI Chat Completions: adding this tool makes 129 tools in one request; \
         the limit is 128 (at /name). Send at most 128 tools per request (split the toolbox by task)."
    );
    // 5 tools with 5 optional parameters each: the fifth brings the total to 25 > 24.
    let optional = |i: usize| {
        let props: serde_json::Map<String, Value> = (0..5)
            .map(|k| (format!("p{k}"), json!({"type": "string"})))
            .collect();
        spec(&format!("o{i}"), obj(Value::Object(props)))
    };
    let specs: Vec<ToolSpec> = (0..5).map(optional).collect();
    assert_eq!(
        err(specs.clone(), Target::Anthropic { strict: true }),
        "cannot export tool `o4` to Anthropic Messages (strict): adding this tool makes 25 optional parameters in \
         one request; the limit is 24 (at /inputSchema). Make some parameters required or send fewer strict tools \
         per request, or export this tool with `Target::Anthropic { strict: false }`."
    );
    assert!(export(&specs, Target::Anthropic { strict: false }).is_ok());
    let union = |i: usize| {
        let props: serde_json::Map<String, Value> = (0..9)
            .map(|k| (format!("u{k}"), json!({"type": ["string", "integer"]})))
            .collect();
        let names: Vec<String> = (0..9).map(|k| format!("u{k}")).collect();
        spec(
            &format!("u{i}"),
            obj_req(Value::Object(props), json!(names)),
        )
    };
    let e = export(&[union(0), union(1)], Target::Anthropic { strict: true }).unwrap_err();
    assert_eq!(
        e.kind,
        ExportErrorKind::RequestLimit {
            what: "union-typed parameters",
            count: 18,
            max: 16
        }
    );
    assert_eq!(e.tool, "u1");
}

#[test]
fn numeric_const_unions_collapse_with_the_labels_they_have() {
    let s = spec(
        "levels",
        obj(json!({
            "level": {"description": "How loud.", "oneOf": [
                {"const": 1, "title": "Quiet"}, {"const": 2}, {"const": 3, "description": "Loud"}
            ]},
            "bare": {"anyOf": [{"const": 1.5}, {"const": 2.5}]},
            "mixed": {"oneOf": [{"const": 1}, {"const": "one"}]}
        })),
    );
    let a = one(s, Target::Anthropic { strict: false });
    let props = &a["input_schema"]["properties"];
    assert_eq!(
        props["level"],
        json!({"description": "How loud. One of: 1 (Quiet), 2, 3 (Loud).",
               "type": "integer", "enum": [1, 2, 3]})
    );
    assert_eq!(props["bare"], json!({"type": "number", "enum": [1.5, 2.5]}));
    // Constants of different types stay a union.
    assert_eq!(
        props["mixed"],
        json!({"oneOf": [{"const": 1}, {"const": "one"}]})
    );
}
