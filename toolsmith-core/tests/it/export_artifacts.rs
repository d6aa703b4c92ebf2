//! Build artifacts (`write_artifacts`, `index.json`) and the snapshot drift check.

use crate::fixtures;

use std::path::PathBuf;

use serde_json::Value;
use toolsmith_core::export::*;

fn temp_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsmith-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(dir: &std::path::Path, file: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join(file)).expect("read")).expect("json")
}

fn updating() -> bool {
    toolsmith_core::export::update_requested()
}

#[test]
fn artifacts_hold_one_file_per_target_and_an_index_reporting_failures() {
    let dir = temp_dir("artifacts");
    let specs = fixtures::all();
    let report = write_artifacts(&specs, &dir).expect("write");
    assert_eq!(report.files.len(), Target::all().len() + 1 + specs.len());
    for t in Target::all() {
        assert!(
            report
                .files
                .contains(&dir.join(format!("{}.json", t.slug()))),
            "{t}"
        );
    }
    // Each tool's form, the person's side of the same spec.
    for spec in &specs {
        let form = dir.join(format!("ui/{}.html", spec.name));
        assert!(report.files.contains(&form), "{}", spec.name);
        let html = std::fs::read_to_string(&form).unwrap();
        assert!(
            html.contains(&format!("data-toolsmith-tool=\"{}\"", spec.name)),
            "{html}"
        );
    }
    // The recursive tool fails for Gemini and Anthropic strict, and only there.
    let failed: Vec<(String, Target)> = report
        .failures
        .iter()
        .map(|f| (f.tool.clone(), f.target))
        .collect();
    assert_eq!(
        failed,
        vec![
            (
                "render_outline".to_string(),
                Target::Anthropic { strict: true }
            ),
            ("render_outline".to_string(), Target::Gemini)
        ]
    );
    let gemini = read(&dir, "gemini.json");
    let names: Vec<&str> = gemini["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        // Export order: by name, whatever the order of the specs.
        [
            "close_ticket",
            "create_order",
            "get_time",
            "search_products"
        ]
    );
    assert_eq!(
        read(&dir, "mcp-2025-11-25.json")["tools"]
            .as_array()
            .unwrap()
            .len(),
        5
    );

    let index = read(&dir, "index.json");
    let tools = index["tools"].as_array().unwrap();
    assert_eq!(tools.len(), specs.len());
    let mut by_name: Vec<&toolsmith_core::ToolSpec> = specs.iter().collect();
    by_name.sort_by(|a, b| a.name.cmp(&b.name));
    for (entry, spec) in tools.iter().zip(by_name) {
        assert_eq!(entry["name"], spec.name.as_str());
        assert_eq!(entry["fingerprint"], spec.fingerprint().as_str());
        assert_eq!(entry["version"], spec.version.as_str());
    }
    let outline = &tools[3];
    assert_eq!(outline["exported"].as_array().unwrap().len(), 9);
    assert_eq!(outline["failed"][0]["target"], "anthropic-strict");
    assert_eq!(
        outline["failed"][0]["pointer"],
        "/inputSchema/$defs/Section/properties/children/items"
    );
    assert!(outline["failed"][1]["reason"]
        .as_str()
        .unwrap()
        .starts_with("cannot export tool `render_outline` to Gemini: the schema is recursive"));
    assert_eq!(tools[0]["name"], "close_ticket");
    assert_eq!(tools[0]["allows"][0]["rule"], "description_budget");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn writing_into_a_file_path_is_an_io_error_naming_the_path() {
    let file = std::env::temp_dir().join(format!("toolsmith-not-a-dir-{}", std::process::id()));
    std::fs::write(&file, "x").unwrap();
    let err = write_artifacts(&fixtures::all(), file.join("sub")).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "cannot write tool artifacts to {}",
            file.join("sub").display()
        )),
        "{err}"
    );
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn default_artifact_dir_is_under_the_target_dir() {
    let dir = default_artifact_dir();
    assert!(dir.ends_with("tool-specs"));
    if std::env::var_os("CARGO_TARGET_DIR").is_none() {
        let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap()
            .to_path_buf();
        assert_eq!(dir, workspace.join("target").join("tool-specs"));
    }
}

#[test]
fn unchanged_specs_pass_and_a_version_bump_is_not_drift() {
    if updating() {
        return;
    }
    let dir = temp_dir("snap-same");
    let mut specs = fixtures::all();
    write_artifacts(&specs, &dir).unwrap();
    check_snapshot(&specs, &dir).expect("no drift");
    specs[0].version = "9.9.9".into();
    check_snapshot(&specs, &dir).expect("a version bump is not drift");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn drift(dir: &std::path::Path, specs: &[toolsmith_core::ToolSpec]) -> (Vec<String>, String) {
    match check_snapshot(specs, dir) {
        Err(SnapshotDrift::Changed { tools, report, .. }) => (tools, report),
        other => panic!("expected drift, got {other:?}"),
    }
}

#[test]
fn a_changed_description_is_reported_with_a_diff() {
    if updating() {
        return;
    }
    let dir = temp_dir("snap-desc");
    let mut specs = fixtures::all();
    write_artifacts(&specs, &dir).unwrap();
    specs[1].description = "Close a support ticket. Returns the closed ticket.".into();
    let (tools, report) = drift(&dir, &specs);
    assert_eq!(tools, ["close_ticket"]);
    assert!(
        report.contains("tool `close_ticket`: changed in every target file and index.json, and its form ui/close_ticket.html"),
        "{report}"
    );
    assert!(
        report
            .contains("  - description: \"Close a support ticket for good; it cannot be reopened."),
        "{report}"
    );
    assert!(
        report.contains("  --- snapshot/mcp-2026-07-28.json"),
        "{report}"
    );
    assert!(
        report.contains("-   \"description\": \"Close a support ticket for good;"),
        "{report}"
    );
    assert!(
        report.contains(
            "+   \"description\": \"Close a support ticket. Returns the closed ticket.\","
        ),
        "{report}"
    );
    assert!(
        report.contains("TOOLSMITH_UPDATE_SNAPSHOTS=1 cargo test"),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_removed_parameter_is_reported() {
    if updating() {
        return;
    }
    let dir = temp_dir("snap-param");
    let mut specs = fixtures::all();
    write_artifacts(&specs, &dir).unwrap();
    specs[0].input_schema["properties"]
        .as_object_mut()
        .unwrap()
        .remove("limit");
    let (tools, report) = drift(&dir, &specs);
    assert_eq!(tools, ["search_products"]);
    assert!(report.contains("  - parameter `limit` removed"), "{report}");
    assert!(report.contains("-       \"limit\": {"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_renamed_tool_is_reported_as_removed_and_added() {
    if updating() {
        return;
    }
    let dir = temp_dir("snap-rename");
    let mut specs = fixtures::all();
    write_artifacts(&specs, &dir).unwrap();
    specs[4].name = "current_time".into();
    let (tools, report) = drift(&dir, &specs);
    assert_eq!(tools, ["current_time", "get_time"]);
    assert!(
        report.contains("tool `current_time`: added (in mcp-2025-06-18.json,"),
        "{report}"
    );
    assert!(
        report.contains("tool `get_time`: removed (from mcp-2025-06-18.json,"),
        "{report}"
    );
    assert!(report.contains("; renamed to `current_time`?"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_new_export_failure_is_drift() {
    if updating() {
        return;
    }
    let dir = temp_dir("snap-fail");
    let mut specs = fixtures::all();
    write_artifacts(&specs, &dir).unwrap();
    specs[2].input_schema["properties"]["tags"]["items"] = serde_json::json!(true);
    let (tools, report) = drift(&dir, &specs);
    assert_eq!(tools, ["create_order"]);
    assert!(report.contains("  - export failures: [] -> [{"), "{report}");
    assert!(report.contains("  - no longer exported to openai-chat-strict.json, openai-responses-strict.json, anthropic-strict.json (see index.json)"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The forms are artifacts: a change that reaches only what people read (here a form written
/// by hand over the snapshot) is drift, shown as HTML lines, and a committed form whose tool is
/// gone is reported with the tool's removal.
#[test]
fn a_changed_or_orphaned_form_is_drift() {
    if updating() {
        return;
    }
    let dir = temp_dir("snap-form");
    let specs = fixtures::all();
    write_artifacts(&specs, &dir).unwrap();
    let form = dir.join(format!("ui/{}.html", specs[1].name));
    let text = std::fs::read_to_string(&form).unwrap();
    std::fs::write(&form, text.replacen("<h2 ", "<h2 class=\"edited\" ", 1)).unwrap();
    std::fs::write(
        dir.join("ui/gone_tool.html"),
        "<!doctype html>\n<p>old</p>\n",
    )
    .unwrap();
    let (tools, report) = drift(&dir, &specs);
    assert_eq!(
        tools,
        [specs[1].name.clone(), "gone_tool".to_string()],
        "{report}"
    );
    assert!(
        report.contains(&format!(
            "tool `{}`: changed in its form ui/{}.html",
            specs[1].name, specs[1].name
        )),
        "{report}"
    );
    assert!(
        report.contains("  -   <h2 class=\"edited\" id="),
        "{report}"
    );
    assert!(
        report.contains("tool `gone_tool`: removed (from ui/gone_tool.html)"),
        "{report}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
