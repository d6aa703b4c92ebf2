//! The example tools' exports, per target, checked against reviewed snapshots in
//! `tests/golden/examples/<example>/` — the ts-rs-style recipe from the README applied to this
//! repository's own examples. A changed description, a removed parameter or a renamed tool fails
//! here with a readable diff; `TOOLSMITH_UPDATE_SNAPSHOTS=1 cargo test --test tool_specs` accepts it.

#[allow(dead_code)]
#[path = "../examples/helpdesk/tools.rs"]
mod helpdesk;
#[allow(dead_code)]
#[path = "../examples/store/tools.rs"]
mod store;
#[allow(dead_code)]
#[path = "../examples/workspace/tools.rs"]
mod workspace;

use toolsmith::{Tool, ToolSpec};

fn specs(tools: Vec<Tool>) -> Vec<ToolSpec> {
    tools.iter().map(|t| t.spec().clone()).collect()
}

#[test]
fn example_exports_match_their_snapshots() {
    let examples = [
        ("helpdesk", specs(helpdesk::tools())),
        ("store", specs(store::tools())),
        ("workspace", specs(workspace::tools())),
    ];
    let mut drift = Vec::new();
    for (name, specs) in examples {
        // Also the build artifacts, as a crate would write them on `cargo test`.
        let out = toolsmith::export::default_artifact_dir().join(name);
        let report = toolsmith::export::write_artifacts(&specs, &out).expect("artifacts written");
        assert!(report.failures.is_empty(), "{name}: {:?}", report.failures);
        let dir = format!(
            "{}/tests/golden/examples/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        if let Err(e) = toolsmith::export::check_snapshot(&specs, &dir) {
            drift.push(format!("{name}: {e}"));
        }
    }
    assert!(drift.is_empty(), "{}", drift.join("\n\n"));
}
