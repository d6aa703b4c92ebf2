//! Profiles, overrides from `[package.metadata.toolsmith]`, and configuration errors.

use serde_json::json;
use toolsmith_lint::{lint_definition, ConfigError, LintConfig, Profile};

fn budgets(cfg: &LintConfig) -> (usize, usize, usize, usize, usize) {
    (
        cfg.name_budget,
        cfg.param_name_budget,
        cfg.description_budget,
        cfg.param_description_budget,
        cfg.definition_budget,
    )
}

#[test]
fn profiles_inherit_chrome_figures() {
    assert_eq!(budgets(&LintConfig::default()), (30, 30, 500, 150, 1500));
    assert_eq!(LintConfig::default().profile, Profile::Chrome);
    assert_eq!(
        budgets(&LintConfig::profile("chrome").unwrap()),
        (30, 30, 500, 150, 1500)
    );
    assert_eq!(
        budgets(&LintConfig::profile("openai").unwrap()),
        (64, 30, 1024, 150, 1500)
    );
    assert_eq!(
        budgets(&LintConfig::profile("anthropic").unwrap()),
        (64, 30, 500, 150, 1500)
    );
    assert_eq!(
        budgets(&LintConfig::profile("mcp").unwrap()),
        (128, 30, 500, 150, 1500)
    );
    for p in Profile::ALL {
        assert_eq!(Profile::from_name(p.name()), Some(p));
    }
}

#[test]
fn manifest_without_the_section_gives_the_default() {
    let cfg =
        LintConfig::from_manifest_str("[package]\nname = \"shop\"\nversion = \"0.1.0\"\n").unwrap();
    assert_eq!(cfg, LintConfig::default());
    let cfg = LintConfig::from_manifest_str("[package.metadata.other]\nx = 1\n").unwrap();
    assert_eq!(cfg, LintConfig::default());
}

#[test]
fn manifest_profile_and_overrides() {
    let cfg = LintConfig::from_manifest_str(
        r#"
[package]
name = "shop"
description = "not [package.metadata.toolsmith] = nothing"

[package.metadata.toolsmith]
profile = "openai"
description_budget = 800
"#,
    )
    .unwrap();
    assert_eq!(cfg.profile, Profile::OpenAi);
    assert_eq!(budgets(&cfg), (64, 30, 800, 150, 1500));

    // Overrides without a profile start from chrome; inline-table spelling works too.
    let cfg = LintConfig::from_manifest_str(
        "[package]\nname = \"x\"\nmetadata.toolsmith = { name_budget = 40, param_name_budget = 20, param_description_budget = 200, definition_budget = 3000 }\n",
    )
    .unwrap();
    assert_eq!(cfg.profile, Profile::Chrome);
    assert_eq!(budgets(&cfg), (40, 20, 500, 200, 3000));
}

#[test]
fn an_override_changes_what_fires() {
    let tool = json!({"name": "get_weather", "description": format!("Returns the forecast. {}", "x".repeat(600))});
    let chrome = lint_definition(&tool, &LintConfig::default());
    assert!(chrome.iter().any(|f| f.rule == "description_budget"));
    let openai =
        LintConfig::from_manifest_str("[package.metadata.toolsmith]\nprofile = \"openai\"\n")
            .unwrap();
    assert!(lint_definition(&tool, &openai)
        .iter()
        .all(|f| f.rule != "description_budget"));
    let tight = LintConfig::from_manifest_str(
        "[package.metadata.toolsmith]\nprofile = \"openai\"\ndescription_budget = 600\n",
    )
    .unwrap();
    let f: Vec<_> = lint_definition(&tool, &tight)
        .into_iter()
        .filter(|f| f.rule == "description_budget")
        .collect();
    assert_eq!(
        f[0].message,
        "description is 622 characters; the budget is 600"
    );
}

#[test]
fn unknown_key_names_it_and_lists_valid_ones() {
    let err =
        LintConfig::from_manifest_str("[package.metadata.toolsmith]\ndescription_limit = 800\n")
            .unwrap_err();
    assert_eq!(
        err,
        ConfigError::UnknownKey {
            key: "description_limit".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "unknown key `description_limit` in [package.metadata.toolsmith]; valid keys: profile, name_budget, \
         param_name_budget, description_budget, param_description_budget, definition_budget"
    );
}

#[test]
fn unknown_profile_lists_valid_ones() {
    let err = LintConfig::from_manifest_str("[package.metadata.toolsmith]\nprofile = \"gemini\"\n")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown lint profile `gemini`; valid profiles: chrome, openai, anthropic, mcp"
    );
}

#[test]
fn bad_values_say_what_the_key_takes() {
    let err = LintConfig::from_manifest_str(
        "[package.metadata.toolsmith]\ndescription_budget = \"800\"\n",
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`description_budget = \"800\"` in [package.metadata.toolsmith] is not valid; `description_budget` takes a positive whole number of characters"
    );
    let err = LintConfig::from_manifest_str("[package.metadata.toolsmith]\nname_budget = 0\n")
        .unwrap_err();
    assert!(err.to_string().starts_with("`name_budget = 0` in"), "{err}");
    let err = LintConfig::from_manifest_str("[package.metadata.toolsmith]\nname_budget = -5\n")
        .unwrap_err();
    assert!(
        err.to_string().starts_with("`name_budget = -5` in"),
        "{err}"
    );
    let err =
        LintConfig::from_manifest_str("[package.metadata.toolsmith]\nprofile = 3\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "`profile = 3` in [package.metadata.toolsmith] is not valid; `profile` takes a profile name in quotes (chrome, openai, anthropic, mcp)"
    );
    let err =
        LintConfig::from_manifest_str("[package.metadata]\ntoolsmith = \"openai\"\n").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("`package.metadata.toolsmith` is a string;"),
        "{err}"
    );
}

#[test]
fn invalid_toml_is_reported() {
    let err = LintConfig::from_manifest_str("[package\nname = 1").unwrap_err();
    assert!(matches!(err, ConfigError::Toml { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("the manifest is not valid TOML: "),
        "{err}"
    );
}

#[test]
fn from_manifest_dir_reads_cargo_toml() {
    // This crate's own manifest has no [package.metadata.toolsmith].
    let cfg = LintConfig::from_manifest_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    assert_eq!(cfg, LintConfig::default());

    let dir = std::env::temp_dir().join(format!("tool-lint-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package.metadata.toolsmith]\nprofile = \"mcp\"\nbogus = 1\n",
    )
    .unwrap();
    let err = LintConfig::from_manifest_dir(&dir).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("Cargo.toml: unknown key `bogus`"), "{text}");
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package.metadata.toolsmith]\nprofile = \"mcp\"\n",
    )
    .unwrap();
    assert_eq!(
        LintConfig::from_manifest_dir(&dir).unwrap().name_budget,
        128
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let missing = LintConfig::from_manifest_dir("/nonexistent/toolsmith-lint").unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("cannot read /nonexistent/toolsmith-lint/Cargo.toml: "),
        "{missing}"
    );
}

#[test]
fn section_of_the_wrong_type() {
    let err = LintConfig::from_manifest_str("[package.metadata]\ntoolsmith = [1]\n").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("`package.metadata.toolsmith` is an array;"),
        "{err}"
    );
}
