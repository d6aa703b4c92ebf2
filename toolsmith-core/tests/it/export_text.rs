//! `export_text` and `export_tool_text` write, byte for byte, what `serde_json::to_string` writes
//! for `export` and `export_tool`, and fail with the same errors: on the representative specs,
//! the captured MCP catalogs, and random specs (`specgen`), for every target.

use crate::fixtures;
use crate::specgen;

use proptest::prelude::*;
use toolsmith_core::export::{export, export_text, export_tool, export_tool_text, Target};
use toolsmith_core::ToolSpec;

/// Checks one list against every target; the number of (target, list) pairs that exported.
fn text_matches_value(specs: &[ToolSpec]) -> usize {
    let mut exported = 0;
    for &target in Target::all() {
        let value = export(specs, target);
        let text = export_text(specs, target);
        match (&value, &text) {
            (Ok(v), Ok(t)) => {
                assert_eq!(
                    t,
                    &serde_json::to_string(v).unwrap(),
                    "export_text differs from export for {target}"
                );
                exported += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "different errors for {target}"),
            _ => panic!("export and export_text disagree for {target}: {value:?} / {text:?}"),
        }
        for spec in specs {
            match (export_tool(spec, target), export_tool_text(spec, target)) {
                (Ok(v), Ok(t)) => assert_eq!(
                    t,
                    serde_json::to_string(&v).unwrap(),
                    "export_tool_text differs for {} and {target}",
                    spec.name
                ),
                (Err(a), Err(b)) => assert_eq!(a, b, "different errors for {}", spec.name),
                (a, b) => panic!("export_tool and export_tool_text disagree: {a:?} / {b:?}"),
            }
        }
    }
    exported
}

#[test]
fn text_matches_the_value_for_the_fixtures_and_catalogs() {
    let fixtures = fixtures::all();
    // `render_outline` is recursive: Gemini and Anthropic strict refuse the list.
    assert_eq!(text_matches_value(&fixtures), Target::all().len() - 2);
    for spec in fixtures {
        assert!(text_matches_value(std::slice::from_ref(&spec)) > 0);
    }
    for file in ["everything.json", "filesystem.json"] {
        let specs = fixtures::catalog_specs(file);
        assert!(text_matches_value(&specs) > 0, "{file} exports nowhere");
        // One tool at a time too: the targets that refuse a tool refuse only that one.
        for spec in specs {
            text_matches_value(std::slice::from_ref(&spec));
        }
    }
}

#[test]
fn text_matches_the_value_for_failures() {
    let bad = fixtures::spec("files.read", serde_json::json!({"type": "string"}));
    let specs = vec![fixtures::get_time(), bad, fixtures::get_time()];
    assert_eq!(text_matches_value(&specs), 0);
    // Over the per-request limits of OpenAI (128 tools) and Anthropic strict (20).
    let many: Vec<ToolSpec> = (0..130)
        .map(|i| {
            let mut s = fixtures::search_products();
            s.name = format!("search_{i}");
            s
        })
        .collect();
    let exported = text_matches_value(&many);
    assert_eq!(exported, Target::all().len() - 5);
}

proptest! {
    // A failure's seed is appended to `export_text.proptest-regressions` beside this file
    // (proptest's `WithSource` naming), and the seeds committed there are replayed first.
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn text_matches_the_value_for_random_specs(specs in specgen::specs()) {
        text_matches_value(&specs);
    }

    /// Specs every name and description rule accepts, with an object root: most of them get
    /// through the strict targets' lowering, which changes the most.
    #[test]
    fn text_matches_the_value_for_random_lowerable_specs(
        props in prop::collection::vec(("[a-f]{1,3}", specgen::schema()), 1..6),
        bits in any::<u8>(),
        output in specgen::output_schema(),
    ) {
        let mut spec = ToolSpec::new("tool_a", "Does a thing.", specgen::object_of(props, bits & !1))
            .with_version("1.0.0");
        spec.output_schema = output;
        text_matches_value(&[spec]);
    }
}
