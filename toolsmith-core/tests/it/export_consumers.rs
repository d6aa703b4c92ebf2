//! Proofs against real consumers, one per export target (MCP's is the official schema, in
//! `export_mcp_schema.rs`):
//! - WebMCP: the export registers in real headless Chromium (`document.modelContext`) and
//!   `getTools()` gives back every name, title, description, input schema and annotation unchanged
//!   (150 returns `inputSchema` as JSON text, 156 as an object: what the browser holds is compared);
//! - OpenAI strict: every `parameters` is a fixed point of openai-agents'
//!   `ensure_strict_json_schema` (the reference lowering);
//! - Anthropic strict: every tool is a `ToolParam` of the official `anthropic` SDK and its
//!   `input_schema` a fixed point of the SDK's `transform_schema`, up to the equivalences listed
//!   in `consumers/anthropic_strict.py`;
//! - Gemini: the official `google-genai` SDK accepts the export (`types.Tool.model_validate`,
//!   unknown fields forbidden) and converts each declaration's schema into its own `Schema`
//!   without losing a property, description, enum or `required`.
//!
//! Each consumer is also fed a deliberately broken export and must reject it, so a consumer check
//! that passes everything cannot hide.
//!
//! When a consumer is missing the test prints a loud SKIP line and passes, unless
//! `TOOLSMITH_REQUIRE_CONSUMERS=1` (CI) makes it fail. `.ci/consumers.sh` installs them.

use crate::fixtures;
use crate::require;

use require::missing;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use toolsmith_core::export::{export, Target};
use toolsmith_core::ToolSpec;

fn consumers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/consumers")
}

fn write_temp(label: &str, value: &Value) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toolsmith-{label}-{}-{:?}.json",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, serde_json::to_vec_pretty(value).expect("serialize"))
        .expect("write temp export");
    path
}

fn run_json(mut cmd: Command, what: &str) -> (bool, Value) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .unwrap_or_else(|| {
            panic!("{what} printed no JSON result.\nstdout:\n{stdout}\nstderr:\n{stderr}")
        });
    (out.status.success(), value)
}

/// Every spec the Python consumers check: the hand-built set and both captured catalogs.
fn all_specs() -> Vec<ToolSpec> {
    let mut specs = fixtures::all();
    specs.extend(fixtures::catalog_specs("everything.json"));
    specs.extend(fixtures::catalog_specs("filesystem.json"));
    specs
}

/// `all_specs()` less those `target` refuses by design; only the recursive `render_outline` may
/// be refused (Gemini and Anthropic strict cannot express recursion), so nothing is skipped
/// silently.
fn exportable_specs(target: Target) -> Vec<ToolSpec> {
    let (ok, refused): (Vec<ToolSpec>, Vec<ToolSpec>) = all_specs()
        .into_iter()
        .partition(|s| export(std::slice::from_ref(s), target).is_ok());
    let refused: Vec<&str> = refused.iter().map(|s| s.name.as_str()).collect();
    assert!(
        refused.iter().all(|n| *n == "render_outline"),
        "{target} refuses {refused:?}"
    );
    ok
}

fn webmcp_specs() -> Vec<ToolSpec> {
    let mut specs = fixtures::all();
    // Exercise untrustedContentHint too.
    specs[0].effects.untrusted_output = true;
    specs.extend(
        fixtures::catalog_specs("filesystem.json")
            .into_iter()
            .take(4),
    );
    specs
}

fn chromium() -> String {
    std::env::var("TOOLSMITH_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into())
}

/// Runs `webmcp.mjs` on an export: `None` (SKIP printed) when a consumer is missing.
fn run_webmcp(exported: &Value) -> Option<(bool, Value)> {
    let chromium = chromium();
    if !Path::new(&chromium).exists() {
        return missing("chromium", &format!("{chromium} does not exist"));
    }
    if !consumers_dir()
        .join("node_modules/playwright-core")
        .exists()
    {
        return missing(
            "playwright-core",
            "tests/consumers/node_modules/playwright-core is not installed",
        );
    }
    if Command::new("node").arg("--version").output().is_err() {
        return missing("node", "`node` is not on PATH");
    }
    let file = write_temp("webmcp", exported);
    let mut cmd = Command::new("node");
    cmd.arg(consumers_dir().join("webmcp.mjs"))
        .arg(&file)
        .env("TOOLSMITH_CHROMIUM", &chromium)
        .current_dir(consumers_dir());
    let (ok, result) = run_json(cmd, "node webmcp.mjs");
    let _ = std::fs::remove_file(&file);
    println!(
        "WebMCP consumer: {chromium}, Chromium {}",
        result["version"].as_str().unwrap_or("of unknown version")
    );
    Some((ok, result))
}

#[test]
fn webmcp_export_registers_unchanged_in_real_chromium() {
    let specs = webmcp_specs();
    let exported = export(&specs, Target::WebMcp).unwrap_or_else(|e| panic!("{e}"));
    let Some((ok, result)) = run_webmcp(&exported) else {
        return;
    };
    assert!(ok, "webmcp.mjs failed: {result}");
    assert_eq!(
        result["secure"], true,
        "the page is not a secure context: {result}"
    );
    assert_eq!(
        result["errors"],
        serde_json::json!([]),
        "registerTool rejected tools: {result}"
    );
    let got = result["tools"].as_array().expect("getTools() list");
    assert_eq!(
        got.len(),
        specs.len(),
        "getTools() returned {} tools",
        got.len()
    );
    for spec in &specs {
        // The export lists tools by name, not in spec order.
        let sent = exported
            .as_array()
            .expect("array")
            .iter()
            .find(|t| t["name"] == spec.name.as_str())
            .expect("every spec is exported");
        let back = got
            .iter()
            .find(|t| t["name"] == spec.name.as_str())
            .unwrap_or_else(|| panic!("`{}` is missing from getTools()", spec.name));
        assert_eq!(
            back["description"], sent["description"],
            "description of {}",
            spec.name
        );
        assert_eq!(
            back["title"].as_str(),
            Some(spec.title.as_deref().unwrap_or("")),
            "title of {}",
            spec.name
        );
        // Chromium 150 hands the schema back as JSON text, 156 as an object; either way the
        // browser must hold exactly what was registered.
        let form = back["inputSchemaType"].as_str().unwrap_or("missing");
        assert!(
            form == "object" || form == "string",
            "inputSchema of {} came back as {form}",
            spec.name
        );
        assert_eq!(
            back["inputSchema"], sent["inputSchema"],
            "inputSchema of {} changed (returned as {form})",
            spec.name
        );
        // readOnlyHint and untrustedContentHint are in every version's WebMCP; Chromium 156
        // also holds consequentialHint, which 150 drops: a hint the browser holds must be the
        // one sent.
        for hint in ["readOnlyHint", "untrustedContentHint", "consequentialHint"] {
            let held = back["annotations"].get(hint);
            if held.is_none() && hint == "consequentialHint" {
                continue;
            }
            assert_eq!(
                held,
                sent["annotations"].get(hint),
                "{hint} of {}",
                spec.name
            );
        }
    }
    let holds_consequential = got
        .iter()
        .any(|t| t["annotations"].get("consequentialHint").is_some());
    println!("WebMCP consumer holds consequentialHint: {holds_consequential}");
    let search = got
        .iter()
        .find(|t| t["name"] == "search_products")
        .expect("search_products");
    assert_eq!(search["annotations"]["untrustedContentHint"], true);
    assert_eq!(search["annotations"]["readOnlyHint"], true);
    let close = got
        .iter()
        .find(|t| t["name"] == "close_ticket")
        .expect("close_ticket");
    if holds_consequential {
        assert_eq!(close["annotations"]["consequentialHint"], true);
    }
}

/// The browser check is not vacuous: Chromium rejects what WebMCP forbids (an empty
/// description, a name outside the allowed characters), and the test sees it.
#[test]
fn webmcp_consumer_rejects_a_broken_export() {
    let mut exported = export(&fixtures::all(), Target::WebMcp).expect("export");
    exported[0]["description"] = Value::from("");
    exported[1]["name"] = Value::from("close ticket!");
    let Some((_, result)) = run_webmcp(&exported) else {
        return;
    };
    let errors: Vec<&str> = result["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(errors.len(), 2, "expected two rejections: {result}");
    assert!(errors[0].contains("Description is required"), "{errors:?}");
    assert!(errors[1].contains("Invalid tool name"), "{errors:?}");
}

fn python() -> String {
    require::python(env!("CARGO_MANIFEST_DIR"))
}

/// A Python consumer: the package whose import proves it is there, and its script.
#[derive(Clone, Copy)]
struct PyConsumer {
    package: &'static str,
    import: &'static str,
    script: &'static str,
}

const OPENAI_AGENTS: PyConsumer = PyConsumer {
    package: "openai-agents (PyPI)",
    import: "agents.strict_schema",
    script: "openai_strict.py",
};
const ANTHROPIC: PyConsumer = PyConsumer {
    package: "anthropic (PyPI)",
    import: "anthropic.lib._parse._transform",
    script: "anthropic_strict.py",
};
const GOOGLE_GENAI: PyConsumer = PyConsumer {
    package: "google-genai (PyPI)",
    import: "google.genai.types",
    script: "gemini.py",
};

impl PyConsumer {
    /// `None` (SKIP printed) when the package cannot be imported.
    fn available(self) -> Option<Self> {
        match Command::new(python())
            .args(["-c", &format!("import {}", self.import)])
            .output()
        {
            Err(e) => missing(&python(), &e.to_string()),
            Ok(o) if !o.status.success() => {
                missing(self.package, &format!("`import {}` fails", self.import))
            }
            Ok(_) => Some(self),
        }
    }

    /// Runs the script on `exported`: its exit status and its JSON report.
    fn run(self, label: &str, exported: &Value) -> (bool, Value) {
        let file = write_temp(label, exported);
        let mut cmd = Command::new(python());
        cmd.arg(consumers_dir().join(self.script)).arg(&file);
        let result = run_json(cmd, self.script);
        let _ = std::fs::remove_file(&file);
        result
    }
}

#[test]
fn openai_strict_export_is_a_fixed_point_of_openai_agents() {
    let Some(consumer) = OPENAI_AGENTS.available() else {
        return;
    };
    let specs = all_specs();
    for target in [
        Target::OpenAiChat { strict: true },
        Target::OpenAiResponses { strict: true },
    ] {
        let exported = export(&specs, target).unwrap_or_else(|e| panic!("{e}"));
        let (ok, result) = consumer.run(target.slug(), &exported);
        assert_eq!(
            result["errors"],
            serde_json::json!([]),
            "{target}: openai-agents rejects: {result}"
        );
        assert_eq!(
            result["changed"],
            serde_json::json!([]),
            "{target}: not a fixed point: {result:#}"
        );
        assert!(ok);
        assert_eq!(
            result["checked"].as_array().map(Vec::len),
            Some(specs.len())
        );
    }
}

/// The fixed-point check is not vacuous: a non-strict export is changed by the reference.
#[test]
fn openai_agents_changes_a_non_strict_schema() {
    let Some(consumer) = OPENAI_AGENTS.available() else {
        return;
    };
    let exported = export(
        &[fixtures::search_products()],
        Target::OpenAiChat { strict: false },
    )
    .expect("export");
    let (ok, result) = consumer.run("openai-loose", &exported);
    assert!(!ok);
    assert_eq!(result["changed"][0]["name"], "search_products");
}

#[test]
fn anthropic_strict_export_is_a_fixed_point_of_the_sdk_transform() {
    let Some(consumer) = ANTHROPIC.available() else {
        return;
    };
    let specs = exportable_specs(Target::Anthropic { strict: true });
    // A strict request carries at most 20 strict tools: check the export in requests of 20.
    let mut checked = 0;
    for (i, chunk) in specs.chunks(20).enumerate() {
        let exported =
            export(chunk, Target::Anthropic { strict: true }).unwrap_or_else(|e| panic!("{e}"));
        let (ok, result) = consumer.run(&format!("anthropic-strict-{i}"), &exported);
        assert_eq!(
            result["errors"],
            serde_json::json!([]),
            "the anthropic SDK rejects: {result}"
        );
        assert_eq!(
            result["changed"],
            serde_json::json!([]),
            "not a fixed point of transform_schema: {result:#}"
        );
        assert!(ok);
        checked += result["checked"].as_array().map_or(0, Vec::len);
    }
    assert_eq!(checked, specs.len());
}

/// The Anthropic check is not vacuous: a strict export carrying a keyword strict mode does not
/// take (`minLength`) is changed by the SDK, and an unknown tool field is rejected.
#[test]
fn anthropic_consumer_rejects_a_broken_export() {
    let Some(consumer) = ANTHROPIC.available() else {
        return;
    };
    let mut exported = export(
        &exportable_specs(Target::Anthropic { strict: true })[..2],
        Target::Anthropic { strict: true },
    )
    .expect("export");
    // The export lists tools by name: close_ticket, then search_products.
    assert_eq!(exported[1]["name"], "search_products");
    exported[1]["input_schema"]["properties"]["query"]["minLength"] = Value::from(1);
    exported[0]["parameters"] = serde_json::json!({"type": "object"});
    let (ok, result) = consumer.run("anthropic-broken", &exported);
    assert!(!ok, "{result}");
    assert_eq!(result["changed"][0]["name"], "search_products", "{result}");
    assert_eq!(result["errors"][0]["name"], "close_ticket", "{result}");
}

#[test]
fn gemini_export_is_accepted_and_converted_by_google_genai() {
    let Some(consumer) = GOOGLE_GENAI.available() else {
        return;
    };
    let specs = exportable_specs(Target::Gemini);
    let exported = export(&specs, Target::Gemini).unwrap_or_else(|e| panic!("{e}"));
    let (ok, result) = consumer.run("gemini", &exported);
    assert_eq!(
        result["errors"],
        serde_json::json!([]),
        "google-genai rejects: {result}"
    );
    assert_eq!(
        result["lost"],
        serde_json::json!([]),
        "google-genai's Schema lost what the model reads: {result:#}"
    );
    assert!(ok);
    assert_eq!(
        result["checked"].as_array().map(Vec::len),
        Some(specs.len())
    );
}

/// The Gemini check is not vacuous: a field the SDK's models forbid (`strict` on a declaration,
/// an unknown schema keyword) is rejected.
#[test]
fn gemini_consumer_rejects_a_broken_export() {
    let Some(consumer) = GOOGLE_GENAI.available() else {
        return;
    };
    let mut exported =
        export(&exportable_specs(Target::Gemini)[..2], Target::Gemini).expect("export");
    // The export lists tools by name: close_ticket, then search_products.
    assert_eq!(exported["functionDeclarations"][0]["name"], "close_ticket");
    exported["functionDeclarations"][1]["strict"] = Value::from(true);
    exported["functionDeclarations"][0]["parametersJsonSchema"]["x-unknown"] = Value::from(1);
    let (ok, result) = consumer.run("gemini-broken", &exported);
    assert!(!ok, "{result}");
    let errors = result["errors"].as_array().expect("errors");
    assert!(
        errors
            .iter()
            .any(|e| e["name"] == "*" && e["error"].as_str().is_some_and(|m| m.contains("strict"))),
        "Tool.model_validate accepted an unknown field: {result}"
    );
    assert!(
        errors.iter().any(|e| e["name"] == "close_ticket"),
        "JSONSchema accepted an unknown keyword: {result}"
    );
}

// ---------------------------------------------------------------------------------------------
// The fields a list adds (deferral, namespaces, the cache breakpoint, example calls), checked
// against the SDKs' request types with unknown keys refused (`consumers/tool_fields.py`).
// ---------------------------------------------------------------------------------------------

const ANTHROPIC_FIELDS: PyConsumer = PyConsumer {
    package: "anthropic (PyPI)",
    import: "anthropic.types",
    script: "tool_fields.py",
};
const OPENAI_FIELDS: PyConsumer = PyConsumer {
    package: "openai (PyPI)",
    import: "openai.types.responses.namespace_tool_param",
    script: "tool_fields.py",
};

impl PyConsumer {
    /// Runs `tool_fields.py PLATFORM` on `exported`.
    fn run_fields(self, platform: &str, label: &str, exported: &Value) -> (bool, Value) {
        let file = write_temp(label, exported);
        let mut cmd = Command::new(python());
        cmd.arg(consumers_dir().join(self.script))
            .arg(platform)
            .arg(&file);
        let result = run_json(cmd, self.script);
        let _ = std::fs::remove_file(&file);
        result
    }
}

/// The fixtures with a core set (every other tool deferred), example calls on the first and
/// the catalogs' tools in two namespaces.
fn loading_specs(target: Target) -> Vec<ToolSpec> {
    let mut specs = exportable_specs(target);
    specs[0] = specs[0]
        .clone()
        .with_example(serde_json::json!({"query": "tent", "limit": 5}))
        .with_core(true);
    specs[1].core = true;
    for (i, s) in specs.iter_mut().enumerate().skip(5) {
        let ns = if i % 2 == 0 {
            toolsmith_core::Namespace::new("everything", "The reference server's test tools.")
        } else {
            toolsmith_core::Namespace::new("files", "Reading and writing files of the workspace.")
        };
        s.namespace = Some(ns);
    }
    specs
}

fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

#[test]
fn anthropic_tool_param_accepts_deferral_examples_and_cache_control() {
    let Some(consumer) = ANTHROPIC_FIELDS.available() else {
        return;
    };
    let options = toolsmith_core::export::ExportOptions::default().with_cache_control(true);
    for target in [
        Target::Anthropic { strict: false },
        Target::Anthropic { strict: true },
    ] {
        // A strict request carries at most 20 strict tools.
        let specs: Vec<ToolSpec> = loading_specs(target).into_iter().take(20).collect();
        let exported = toolsmith_core::export::export_with(&specs, target, &options)
            .unwrap_or_else(|e| panic!("{e}"));
        let text = exported.to_string();
        assert_eq!(count(&text, "\"defer_loading\":true"), specs.len() - 2);
        assert_eq!(count(&text, "\"input_examples\""), 1);
        assert_eq!(count(&text, "\"cache_control\""), 1);
        assert_eq!(count(&text, "tool_search_tool_regex_20251119"), 1);
        let (ok, result) = consumer.run_fields("anthropic", target.slug(), &exported);
        assert_eq!(
            result["errors"],
            serde_json::json!([]),
            "{target}: {result}"
        );
        assert!(ok);
        assert_eq!(
            result["checked"].as_array().map(Vec::len),
            Some(specs.len() + 1),
            "every tool and the search tool: {result}"
        );
    }
    let bm25 = options.with_tool_search(toolsmith_core::export::ToolSearch::Bm25);
    let target = Target::Anthropic { strict: false };
    let exported =
        toolsmith_core::export::export_with(&loading_specs(target), target, &bm25).unwrap();
    assert_eq!(exported[0]["type"], "tool_search_tool_bm25_20251119");
    let (ok, result) = consumer.run_fields("anthropic", "anthropic-bm25", &exported);
    assert!(ok, "{result}");
}

/// The check is not vacuous: a deferral flag that is not a boolean, an unknown field and an
/// unknown key of `cache_control` are each refused.
#[test]
fn anthropic_tool_param_rejects_broken_fields() {
    let Some(consumer) = ANTHROPIC_FIELDS.available() else {
        return;
    };
    let target = Target::Anthropic { strict: false };
    let options = toolsmith_core::export::ExportOptions::default().with_cache_control(true);
    let mut exported =
        toolsmith_core::export::export_with(&loading_specs(target)[..4], target, &options).unwrap();
    let list = exported.as_array_mut().unwrap();
    let cached = list.iter().position(|t| t.get("cache_control").is_some());
    list[cached.unwrap()]["cache_control"]["scope"] = Value::from("global");
    let deferred = list.iter().position(|t| t.get("defer_loading").is_some());
    list[deferred.unwrap()]["defer_loading"] = Value::from("yes");
    list.last_mut().unwrap()["namespace"] = Value::from("billing");
    let (ok, result) = consumer.run_fields("anthropic", "anthropic-fields-broken", &exported);
    assert!(!ok, "{result}");
    let errors: Vec<&str> = result["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["error"].as_str())
        .collect();
    assert_eq!(errors.len(), 3, "{result}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("cache_control: keys ['scope']")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.contains("Input should be a valid boolean")),
        "{errors:?}"
    );
    assert!(
        errors.iter().any(|e| e.contains("keys ['namespace']")),
        "{errors:?}"
    );
}

#[test]
fn openai_responses_types_accept_deferral_and_namespaces() {
    let Some(consumer) = OPENAI_FIELDS.available() else {
        return;
    };
    for target in [
        Target::OpenAiResponses { strict: false },
        Target::OpenAiResponses { strict: true },
    ] {
        let specs = loading_specs(target);
        let exported = export(&specs, target).unwrap_or_else(|e| panic!("{e}"));
        let list = exported.as_array().unwrap();
        assert_eq!(list[0], serde_json::json!({"type": "tool_search"}));
        let namespaces: Vec<&str> = list
            .iter()
            .filter(|t| t["type"] == "namespace")
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(namespaces, ["everything", "files"]);
        assert_eq!(
            count(&exported.to_string(), "\"defer_loading\":true"),
            specs.len() - 2
        );
        let (ok, result) = consumer.run_fields("openai-responses", target.slug(), &exported);
        assert_eq!(
            result["errors"],
            serde_json::json!([]),
            "{target}: {result}"
        );
        assert!(ok);
        // The search tool, the five tools outside a namespace, the two namespaces.
        assert_eq!(result["checked"].as_array().map(Vec::len), Some(1 + 5 + 2));
    }
}

/// The check is not vacuous: a namespace without a description, a member with a field the
/// namespace's function type does not have, and a deferral flag that is no boolean are refused.
#[test]
fn openai_responses_types_reject_broken_fields() {
    let Some(consumer) = OPENAI_FIELDS.available() else {
        return;
    };
    let target = Target::OpenAiResponses { strict: true };
    let mut exported = export(&loading_specs(target), target).unwrap();
    let list = exported.as_array_mut().unwrap();
    let at = list.iter().position(|t| t["type"] == "namespace").unwrap();
    list[at].as_object_mut().unwrap().remove("description");
    list[at + 1]["tools"][0]["input_examples"] = serde_json::json!([{}]);
    list[1]["defer_loading"] = Value::from(1);
    let (ok, result) = consumer.run_fields("openai-responses", "openai-fields-broken", &exported);
    assert!(!ok, "{result}");
    let errors: Vec<&str> = result["errors"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["error"].as_str())
        .collect();
    assert_eq!(errors.len(), 3, "{result}");
    assert!(errors[0].contains("defer_loading"), "{errors:?}");
    assert!(errors[1].contains("description"), "{errors:?}");
    assert!(errors[2].contains("keys ['input_examples']"), "{errors:?}");
}
