//! The example tools' exports, per target, checked against reviewed snapshots in
//! `tests/golden/examples/<example>/` — the ts-rs-style recipe from the README applied to this
//! repository's own examples. A changed description, a removed parameter or a renamed tool fails
//! here with a readable diff; `TOOLSMITH_UPDATE_SNAPSHOTS=1 cargo test -p toolsmith-tests --test it tool_specs::` accepts it.

use crate::helpdesk_tools as helpdesk;
use crate::store_tools as store;
use crate::workspace_tools as workspace;

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
        let dir = crate::workspace().join(format!("tests/golden/examples/{name}"));
        if let Err(e) = toolsmith::export::check_snapshot(&specs, &dir) {
            drift.push(format!("{name}: {e}"));
        }
    }
    assert!(drift.is_empty(), "{}", drift.join("\n\n"));
}

/// The text exports (`export_text`, `export_tool_text`, `Toolbox::export_text`) of every example
/// are the bytes `serde_json::to_string` writes for the value exports, for every target.
#[test]
fn example_text_exports_are_the_value_exports_written() {
    use toolsmith::export::{export, export_text, export_tool, export_tool_text, Target};
    for (name, tools) in [
        ("helpdesk", helpdesk::tools()),
        ("store", store::tools()),
        ("workspace", workspace::tools()),
    ] {
        let specs = specs(tools);
        for &target in Target::all() {
            let value = export(&specs, target).expect("every example exports everywhere");
            let text = serde_json::to_string(&value).unwrap();
            assert_eq!(
                export_text(&specs, target).unwrap(),
                text,
                "{name}, {target}"
            );
            for spec in &specs {
                let one = serde_json::to_string(&export_tool(spec, target).unwrap()).unwrap();
                assert_eq!(
                    export_tool_text(spec, target).unwrap(),
                    one,
                    "{}",
                    spec.name
                );
            }
        }
    }
    let customer = store::Customer {
        id: "cust-1".into(),
        purchased: Vec::new(),
    };
    let toolbox = store::toolbox(store::demo_catalogue(), customer).expect("the store builds");
    for &target in Target::all() {
        let value = toolbox
            .export(target)
            .expect("the store exports everywhere");
        let text = toolbox
            .export_text(target)
            .expect("the store exports everywhere");
        assert_eq!(text, serde_json::to_string(&value).unwrap(), "{target}");
    }
}
