//! Proofs against real consumers:
//! - WebMCP: the export registers in real headless Chromium (`document.modelContext`) and
//!   `getTools()` gives back every name, title, description, input schema and annotation unchanged;
//! - OpenAI strict: every `parameters` is a fixed point of openai-agents'
//!   `ensure_strict_json_schema` (the reference lowering).
//!
//! When a consumer is missing the test prints a loud SKIP line and passes, unless
//! `TOOLSMITH_REQUIRE_CONSUMERS=1` (CI) makes it fail. `.ci/consumers.sh` installs them.

#[path = "consumers/fixtures.rs"]
mod fixtures;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tool_core::export::{export, Target};
use tool_core::spec::ToolSpec;

fn consumers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/consumers")
}

/// `Err` with a SKIP already printed when the consumer is missing and not required.
fn missing(what: &str, why: &str) -> Result<(), ()> {
    if std::env::var("TOOLSMITH_REQUIRE_CONSUMERS").as_deref() == Ok("1") {
        panic!(
            "consumer {what} is missing ({why}) and TOOLSMITH_REQUIRE_CONSUMERS=1 requires it; \
             install it with .ci/consumers.sh"
        );
    }
    eprintln!(
        "\n======== SKIP: consumer {what} is missing ({why}); run .ci/consumers.sh ========\n"
    );
    Err(())
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

#[test]
fn webmcp_export_registers_unchanged_in_real_chromium() {
    let chromium =
        std::env::var("TOOLSMITH_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        return missing("chromium", &format!("{chromium} does not exist")).unwrap_or(());
    }
    if !consumers_dir()
        .join("node_modules/playwright-core")
        .exists()
    {
        return missing(
            "playwright-core",
            "tests/consumers/node_modules/playwright-core is not installed",
        )
        .unwrap_or(());
    }
    if Command::new("node").arg("--version").output().is_err() {
        return missing("node", "`node` is not on PATH").unwrap_or(());
    }
    let specs = webmcp_specs();
    let exported = export(&specs, Target::WebMcp).unwrap_or_else(|e| panic!("{e}"));
    let file = write_temp("webmcp", &exported);
    let mut cmd = Command::new("node");
    cmd.arg(consumers_dir().join("webmcp.mjs"))
        .arg(&file)
        .current_dir(consumers_dir());
    let (ok, result) = run_json(cmd, "node webmcp.mjs");
    let _ = std::fs::remove_file(&file);
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
    for (spec, sent) in specs.iter().zip(exported.as_array().expect("array")) {
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
        assert_eq!(
            back["inputSchemaType"], "object",
            "inputSchema of {} is not an object",
            spec.name
        );
        assert_eq!(
            back["inputSchema"], sent["inputSchema"],
            "inputSchema of {} changed",
            spec.name
        );
        for hint in ["readOnlyHint", "untrustedContentHint", "consequentialHint"] {
            assert_eq!(
                back["annotations"][hint], sent["annotations"][hint],
                "{hint} of {}",
                spec.name
            );
        }
    }
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
    assert_eq!(close["annotations"]["consequentialHint"], true);
}

/// The Python that runs the consumers: `TOOLSMITH_PYTHON`, else the venv `.ci/consumers.sh`
/// makes (`target/consumers-venv`), else `python3` (whose imports then decide SKIP).
fn python() -> String {
    if let Ok(p) = std::env::var("TOOLSMITH_PYTHON") {
        return p;
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/consumers-venv/bin/python");
    if venv.exists() {
        return venv.to_string_lossy().into_owned();
    }
    "python3".into()
}

#[test]
fn openai_strict_export_is_a_fixed_point_of_openai_agents() {
    let probe = Command::new(python())
        .args(["-c", "import agents.strict_schema"])
        .output();
    match probe {
        Err(e) => return missing("python3", &e.to_string()).unwrap_or(()),
        Ok(o) if !o.status.success() => {
            return missing(
                "openai-agents (PyPI)",
                "`import agents.strict_schema` fails",
            )
            .unwrap_or(())
        }
        Ok(_) => {}
    }
    let mut specs = fixtures::all();
    specs.extend(fixtures::catalog_specs("everything.json"));
    specs.extend(fixtures::catalog_specs("filesystem.json"));
    for target in [
        Target::OpenAiChat { strict: true },
        Target::OpenAiResponses { strict: true },
    ] {
        let exported = export(&specs, target).unwrap_or_else(|e| panic!("{e}"));
        let file = write_temp(target.slug(), &exported);
        let mut cmd = Command::new(python());
        cmd.arg(consumers_dir().join("openai_strict.py")).arg(&file);
        let (ok, result) = run_json(cmd, "openai_strict.py");
        let _ = std::fs::remove_file(&file);
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
    if Command::new(python())
        .args(["-c", "import agents.strict_schema"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
    {
        let exported = export(
            &[fixtures::search_products()],
            Target::OpenAiChat { strict: false },
        )
        .expect("export");
        let file = write_temp("openai-loose", &exported);
        let mut cmd = Command::new(python());
        cmd.arg(consumers_dir().join("openai_strict.py")).arg(&file);
        let (ok, result) = run_json(cmd, "openai_strict.py");
        let _ = std::fs::remove_file(&file);
        assert!(!ok);
        assert_eq!(result["changed"][0]["name"], "search_products");
    } else {
        let _ = missing(
            "openai-agents (PyPI)",
            "`import agents.strict_schema` fails",
        );
    }
}
