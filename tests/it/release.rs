//! What a release ships: every crate of the workspace packages with complete registry metadata,
//! and the facade's public API is the one committed in `tests/golden/public_api.txt`.
//!
//! The API guard has two halves:
//!
//! - `tests/public_api/names.rs` names every public path of the facade in a `use` line. It is
//!   compiled by every `cargo test`, so an item that disappears or moves fails to compile there.
//! - `public_api_matches_the_snapshot` reads the facade's rustdoc output (built with the features
//!   users turn on: `mcp`, `workspace`, `sqlite`, `postgres`, `redis`): every item `all.html` lists,
//!   with its declaration, inherent methods, trait implementations and auto traits, plus the
//!   modules and re-exports. It compares that with the snapshot and checks that `names.rs` names exactly
//!   those paths. The docs come from `TOOLSMITH_API_DOCS` (a `target/doc` directory); without
//!   it the test says so and passes, except under `CI`, where `.ci/run` sets it.
//!
//! `TOOLSMITH_UPDATE_SNAPSHOTS=1 bash scripts/public-api.sh` rebuilds the docs and rewrites both
//! files; review the diff (a removed item or a changed signature breaks users: bump the version).

use crate::skip;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use serde_json::Value;

// The compile-time half: a `use` line for every public path (generated with the snapshot).
#[rustfmt::skip]
#[allow(unused_imports)]
#[path = "../public_api/names.rs"]
mod names;

const SNAPSHOT: &str = "tests/golden/public_api.txt";
const NAMES: &str = "tests/public_api/names.rs";
const DOCS_ENV: &str = "TOOLSMITH_API_DOCS";
const REFRESH: &str = "TOOLSMITH_UPDATE_SNAPSHOTS=1 bash scripts/public-api.sh";
/// The facade's features whose modules the docs must show (the ones docs.rs builds with).
const FEATURE_MODULES: [&str; 5] = ["mcp", "workspace", "sqlite", "postgres", "redis"];
/// The auto traits the snapshot records (a type that stops being `Send` breaks its users); the
/// toolchain's unstable ones (`Freeze`, `UnsafeUnpin`, ...) are left out.
const AUTO_TRAITS: [&str; 5] = ["Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"];

// ---------------------------------------------------------------------------------------------
// Packaging: every crate is publishable as a user would get it
// ---------------------------------------------------------------------------------------------

/// crates.io's category slugs (its `src/boot/categories.toml`); another slug is dropped, with a
/// warning, when the crate is published.
const CATEGORIES: &[&str] = &[
    "algorithms",
    "api-bindings",
    "asynchronous",
    "authentication",
    "caching",
    "command-line-interface",
    "command-line-utilities",
    "compression",
    "computer-vision",
    "concurrency",
    "config",
    "cryptography",
    "cryptography::cryptocurrencies",
    "data-structures",
    "database",
    "database-implementations",
    "date-and-time",
    "development-tools",
    "development-tools::build-utils",
    "development-tools::cargo-plugins",
    "development-tools::debugging",
    "development-tools::ffi",
    "development-tools::procedural-macro-helpers",
    "development-tools::profiling",
    "development-tools::testing",
    "email",
    "embedded",
    "emulators",
    "encoding",
    "external-ffi-bindings",
    "filesystem",
    "game-development",
    "game-engines",
    "games",
    "graphics",
    "gui",
    "hardware-support",
    "internationalization",
    "localization",
    "mathematics",
    "memory-management",
    "multimedia",
    "multimedia::audio",
    "multimedia::encoding",
    "multimedia::images",
    "multimedia::video",
    "network-programming",
    "no-std",
    "os",
    "os::linux-apis",
    "os::macos-apis",
    "os::unix-apis",
    "os::windows-apis",
    "parser-implementations",
    "parsing",
    "rendering",
    "rendering::data-formats",
    "rendering::engine",
    "rendering::graphics-api",
    "rust-patterns",
    "science",
    "science::robotics",
    "simulation",
    "template-engine",
    "text-editors",
    "text-processing",
    "value-formatting",
    "visualization",
    "wasm",
    "web-programming",
    "web-programming::http-client",
    "web-programming::http-server",
    "web-programming::websocket",
];

/// Folders whose crates exist for the project's own checks and are never published.
const UNPUBLISHED_DIRS: [&str; 4] = ["tests/", "bench/", "examples/", "fuzz/"];

fn workspace_metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .arg("--manifest-path")
        .arg(crate::workspace().join("Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn text_field<'a>(package: &'a Value, key: &str) -> Option<&'a str> {
    package[key].as_str().filter(|s| !s.trim().is_empty())
}

fn list_field<'a>(package: &'a Value, key: &str) -> Vec<&'a str> {
    package[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn valid_keyword(k: &str) -> bool {
    k.len() <= 20
        && k.starts_with(|c: char| c.is_ascii_alphabetic())
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_+".contains(c))
}

/// What `cargo package --workspace` and a publish need from one package, as problems.
fn package_problems(package: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let manifest = PathBuf::from(package["manifest_path"].as_str().expect("a manifest path"));
    let dir = manifest.parent().expect("the package's folder").to_owned();
    let rel = dir
        .strip_prefix(crate::workspace())
        .expect("a member inside the workspace");
    let rel = format!("{}/", rel.display());
    // `publish = false` is an empty list; no key at all is null.
    let published = package["publish"].as_array().is_none_or(|r| !r.is_empty());

    // Every member is packaged by `cargo package --workspace`, published or not: a path
    // dependency that is built into the package needs a version the registry can resolve.
    for dep in package["dependencies"].as_array().into_iter().flatten() {
        let dev = dep["kind"].as_str() == Some("dev");
        if dep["path"].is_string() && !dev && dep["req"].as_str() == Some("*") {
            problems.push(format!(
                "the path dependency `{}` has no version: add version = \"...\" beside its path",
                dep["name"].as_str().unwrap_or("?")
            ));
        }
    }

    if UNPUBLISHED_DIRS.iter().any(|d| rel.starts_with(d)) {
        if published {
            problems.push(format!(
                "a crate under {rel} exists for the project's own checks: add publish = false"
            ));
        }
        return problems;
    }

    // One naming scheme: a published crate is `toolsmith` or `toolsmith-*`, in a folder named
    // like it (the facade at the root).
    let name = package["name"].as_str().unwrap_or_default();
    if name != "toolsmith" && !name.starts_with("toolsmith-") {
        problems.push(format!(
            "a published crate is named toolsmith-*, not `{name}`"
        ));
    }
    if rel != "/" && rel != format!("{name}/") {
        problems.push(format!(
            "the crate `{name}` lives in {rel}: name its folder `{name}/`"
        ));
    }
    if !published {
        return problems;
    }

    for key in ["description", "repository"] {
        if text_field(package, key).is_none() {
            problems.push(format!(
                "no `{key}` (`{key}.workspace = true` where it is shared)"
            ));
        }
    }
    if text_field(package, "license").is_none() && text_field(package, "license_file").is_none() {
        problems.push("no `license` (`license.workspace = true`)".to_owned());
    }
    let is_library = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| list_field(t, "kind"))
        .any(|k| k.contains("lib") || k == "proc-macro");
    let name = package["name"].as_str().unwrap_or("?");
    if is_library && text_field(package, "documentation").is_none() {
        problems.push(format!(
            "a library without `documentation`: add documentation = \"https://docs.rs/{name}\""
        ));
    }
    match text_field(package, "readme") {
        None => problems.push(
            "no `readme`: add a short README.md to the crate (its role, a pointer to the main \
             README) and readme = \"README.md\""
                .to_owned(),
        ),
        Some(readme) => {
            let path = dir.join(readme);
            if !path.is_file() {
                problems.push(format!("the readme {} does not exist", path.display()));
            } else if !path.starts_with(&dir) || readme.contains("..") {
                problems.push(format!(
                    "the readme {readme} lies outside the package: give the crate its own"
                ));
            }
        }
    }
    let keywords = list_field(package, "keywords");
    if keywords.is_empty() || keywords.len() > 5 {
        problems.push(format!(
            "{} keywords: crates.io takes 1 to 5 (`keywords.workspace = true` for the shared ones)",
            keywords.len()
        ));
    }
    for k in keywords.iter().filter(|k| !valid_keyword(k)) {
        problems.push(format!(
            "the keyword {k:?} is not one crates.io takes (at most 20 ASCII letters, digits, -, _ or +, starting with a letter)"
        ));
    }
    let categories = list_field(package, "categories");
    if categories.is_empty() || categories.len() > 5 {
        problems.push(format!(
            "{} categories: crates.io takes 1 to 5 (`categories.workspace = true` for the shared ones)",
            categories.len()
        ));
    }
    for c in categories.iter().filter(|c| !CATEGORIES.contains(c)) {
        problems.push(format!("{c:?} is no crates.io category slug"));
    }
    problems
}

/// cargo runs the members' test binaries in the order of their names: the crate that prints
/// what the run skipped (`tests/skip-summary`) must sort after every other member, or the
/// tests of a member after it would skip unsummarized.
#[test]
fn the_skip_summary_runs_after_every_other_members_tests() {
    let metadata = workspace_metadata();
    let mut names: Vec<&str> = metadata["packages"]
        .as_array()
        .expect("the members")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names.last(),
        Some(&"zz-skip-summary"),
        "a member sorts after the skip summary: rename one of them ({names:?})"
    );
}

/// Each test binary links the dependency graph it uses again, so each crate's integration tests
/// are one binary and the ones that stand apart say why (TESTING.md, "Test binaries").
const MAX_TEST_BINARIES: usize = 15;

#[test]
fn the_workspace_builds_at_most_fifteen_test_binaries() {
    let metadata = workspace_metadata();
    let mut binaries = Vec::new();
    for package in metadata["packages"].as_array().expect("the members") {
        for target in package["targets"].as_array().expect("the targets") {
            let kinds = list_field(target, "kind");
            let builds_a_test_binary = target["test"].as_bool() == Some(true)
                && kinds
                    .iter()
                    .any(|k| matches!(*k, "lib" | "rlib" | "bin" | "test" | "proc-macro"));
            if builds_a_test_binary {
                binaries.push(format!(
                    "{} {} {}",
                    package["name"].as_str().unwrap_or("?"),
                    kinds.join(","),
                    target["name"].as_str().unwrap_or("?")
                ));
            }
        }
    }
    assert!(
        binaries.len() <= MAX_TEST_BINARIES,
        "`cargo test --workspace` builds {} test binaries (at most {MAX_TEST_BINARIES}): add the \
         new tests as modules of their crate's `tests/it/main.rs`, or set `test = false` on a \
         target without tests:\n  {}",
        binaries.len(),
        binaries.join("\n  ")
    );
}

/// `cargo run --example quickstart` builds every dev-dependency of the facade, so those are only
/// what the quickstart and the doctests use, and the other examples (with the servers, stores and
/// browsers they need) are the test package's.
#[test]
fn the_quickstart_builds_only_what_it_uses() {
    let metadata = workspace_metadata();
    let facade = metadata["packages"]
        .as_array()
        .expect("the members")
        .iter()
        .find(|p| p["name"] == "toolsmith")
        .expect("the facade is a member");
    let mut dev: Vec<&str> = facade["dependencies"]
        .as_array()
        .expect("the dependencies")
        .iter()
        .filter(|d| d["kind"] == "dev")
        .filter_map(|d| d["name"].as_str())
        .collect();
    dev.sort_unstable();
    assert_eq!(
        dev,
        ["serde_json", "tokio"],
        "the facade's dev-dependencies are built by `cargo run --example quickstart`: a test's \
         dependency belongs to the test package (tests/Cargo.toml)"
    );
    let examples: Vec<&str> = facade["targets"]
        .as_array()
        .expect("the targets")
        .iter()
        .filter(|t| list_field(t, "kind").contains(&"example"))
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        examples,
        ["quickstart"],
        "the facade's one example is the quickstart; the others are the test package's"
    );
    // The full JSON Schema validator is half of a cold build: the facade's default features
    // leave it out (the `full-json-schema` feature turns it on).
    let enabled = default_features(&metadata, "toolsmith");
    for heavy in [
        "toolsmith-core/full-json-schema",
        "toolsmith-core/jsonschema",
    ] {
        assert!(
            !enabled.contains(heavy),
            "the facade's default features turn on {heavy}: {enabled:?}"
        );
    }
}

/// The features `cargo build -p package` turns on across the workspace's members, as
/// `member/feature` (the closure of the package's `default`, following `dep/feature` and
/// `dep:name` entries into other members and their defaults when not declared without them).
fn default_features(metadata: &Value, package: &str) -> std::collections::BTreeSet<String> {
    let packages = metadata["packages"].as_array().expect("the members");
    let find = |name: &str| packages.iter().find(|p| p["name"] == name);
    let mut enabled = std::collections::BTreeSet::new();
    let mut todo = vec![format!("{package}/default")];
    while let Some(entry) = todo.pop() {
        if !enabled.insert(entry.clone()) {
            continue;
        }
        let (name, feature) = entry.split_once('/').expect("member/feature");
        let Some(member) = find(name) else { continue };
        // A member's non-optional dependencies on other members, with their declared features.
        if feature == "default" {
            for dep in member["dependencies"].as_array().into_iter().flatten() {
                let dep_name = dep["name"].as_str().unwrap_or_default();
                if dep["kind"].is_null() && dep["optional"] == false && find(dep_name).is_some() {
                    if dep["uses_default_features"] != false {
                        todo.push(format!("{dep_name}/default"));
                    }
                    for f in list_field(dep, "features") {
                        todo.push(format!("{dep_name}/{f}"));
                    }
                }
            }
        }
        for item in list_field(&member["features"], feature) {
            if let Some(dep) = item.strip_prefix("dep:") {
                todo.push(format!("{name}/{dep}"));
            } else if let Some((dep, f)) = item.split_once('/') {
                todo.push(format!("{}/{f}", dep.trim_end_matches('?')));
            } else {
                todo.push(format!("{name}/{item}"));
            }
        }
    }
    enabled
}

#[test]
fn every_crate_packages_with_complete_metadata() {
    let metadata = workspace_metadata();
    let packages = metadata["packages"].as_array().expect("the members");
    let mut report = Vec::new();
    let mut published = BTreeSet::new();
    for package in packages {
        let name = package["name"].as_str().expect("a name");
        if package["publish"].as_array().is_none_or(|r| !r.is_empty()) {
            published.insert(name);
        }
        for problem in package_problems(package) {
            report.push(format!("{name}: {problem}"));
        }
    }
    assert!(
        report.is_empty(),
        "crates that would not publish as a user would get them:\n  {}",
        report.join("\n  ")
    );
    // The facade and the crates it is built from are published (a test of the check itself).
    for name in [
        "toolsmith",
        "toolsmith-core",
        "toolsmith-macros",
        "toolsmith-lint",
        "toolsmith-cli",
    ] {
        assert!(
            published.contains(name),
            "{name} must be published: {published:?}"
        );
    }
}

#[test]
fn the_package_check_names_what_is_missing() {
    let bare = serde_json::json!({
        "name": "tool-new",
        "manifest_path": format!("{}/tool-new/Cargo.toml", crate::workspace().display()),
        "publish": null,
        "description": "A crate.",
        "license": null,
        "keywords": ["llm", "not a keyword"],
        "categories": ["ai"],
        "targets": [{"kind": ["lib"]}],
        "dependencies": [
            {"name": "toolsmith-core", "path": "/x", "req": "*", "kind": null},
            {"name": "toolsmith", "path": "/y", "req": "*", "kind": "dev"}
        ]
    });
    let problems = package_problems(&bare).join("\n");
    for expected in [
        "path dependency `toolsmith-core` has no version",
        "no `repository`",
        "no `license`",
        "add documentation = \"https://docs.rs/tool-new\"",
        "no `readme`",
        "\"not a keyword\" is not one crates.io takes",
        "\"ai\" is no crates.io category slug",
        "a published crate is named toolsmith-*, not `tool-new`",
    ] {
        assert!(
            problems.contains(expected),
            "{expected:?} missing from:\n{problems}"
        );
    }
    assert!(
        !problems.contains("`toolsmith`"),
        "a dev path dependency is dropped: {problems}"
    );

    let moved = serde_json::json!({
        "name": "toolsmith-new",
        "manifest_path": format!("{}/new/Cargo.toml", crate::workspace().display()),
        "publish": null,
        "targets": [{"kind": ["lib"]}],
    });
    assert!(package_problems(&moved).contains(
        &"the crate `toolsmith-new` lives in new/: name its folder `toolsmith-new/`".into()
    ));

    let test_crate = serde_json::json!({
        "name": "facade-extra",
        "manifest_path": format!("{}/tests/facade-extra/Cargo.toml", crate::workspace().display()),
        "publish": null,
        "targets": [{"kind": ["lib"]}],
    });
    assert_eq!(
        package_problems(&test_crate),
        ["a crate under tests/facade-extra/ exists for the project's own checks: add publish = false"]
    );
}

// ---------------------------------------------------------------------------------------------
// The facade's public API, read from rustdoc's HTML
// ---------------------------------------------------------------------------------------------

/// The text of an HTML fragment: tags dropped, entities decoded. A `div` tag breaks the line:
/// rustdoc puts an attribute such as `#[non_exhaustive]` in a div before the declaration, and a
/// `where` clause in one after the signature.
fn html_text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let gt = rest[lt..].find('>').map_or(rest.len() - 1, |i| lt + i);
        let tag = &rest[lt + 1..gt];
        if tag == "/div" || tag.starts_with("div ") || tag == "div" {
            out.push('\n');
        }
        rest = &rest[gt + 1..];
    }
    out.push_str(rest);
    decode_entities(&out)
}

fn decode_entities(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let entity = rest
            .find(';')
            .filter(|&i| i <= 10)
            .map(|i| (&rest[1..i], i));
        let decoded = entity.and_then(|(name, end)| {
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ => match name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok().and_then(char::from_u32),
                    None => name
                        .strip_prefix('#')
                        .and_then(|d| d.parse().ok())
                        .and_then(char::from_u32),
                },
            };
            c.map(|c| (c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// One line: whitespace runs (a `where` clause rustdoc breaks onto lines) become one space.
fn one_line(html: &str) -> String {
    html_text(html)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every fragment between `start` and the next `end`, in order.
fn fragments<'a>(s: &'a str, start: &str, end: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find(start) {
        let from = &rest[i + start.len()..];
        let Some(j) = from.find(end) else { break };
        out.push(&from[..j]);
        rest = &from[j + end.len()..];
    }
    out
}

/// The value of `attr="..."` in one tag.
fn attribute<'a>(tag: &'a str, attr: &str) -> Option<&'a str> {
    let key = format!("{attr}=\"");
    let from = &tag[tag.find(&key)? + key.len()..];
    Some(&from[..from.find('"')?])
}

/// The public API as the snapshot records it: one entry per module and per item, keyed by its
/// header line (`struct toolsmith::Toolbox`), with its indented lines.
#[derive(Default, PartialEq)]
struct Api {
    entries: BTreeMap<String, Vec<String>>,
    /// Every path a user writes (`toolsmith::mcp::McpServer`, `toolsmith::regex`, ...).
    paths: BTreeSet<String>,
}

impl Api {
    fn read(docs: &Path) -> Result<Api, String> {
        let dir = docs.join("toolsmith");
        let read = |rel: &str| {
            std::fs::read_to_string(dir.join(rel))
                .map_err(|e| format!("{}: {e}", dir.join(rel).display()))
        };
        let mut api = Api::default();
        api.read_module(&dir, "index.html", "toolsmith")?;
        for feature in FEATURE_MODULES {
            if !api.paths.contains(&format!("toolsmith::{feature}")) {
                return Err(format!(
                    "the docs in {} have no module `{feature}`: they were built without the \
                     facade's features; run `bash scripts/public-api.sh`",
                    docs.display()
                ));
            }
        }
        let all = read("all.html")?;
        let lists = fragments(&all, "<ul class=\"all-items\">", "</ul>");
        if lists.is_empty() {
            return Err(format!(
                "{}: no item list (has rustdoc's layout changed?)",
                dir.join("all.html").display()
            ));
        }
        for list in lists {
            for li in fragments(list, "<li>", "</li>") {
                let href =
                    attribute(li, "href").ok_or_else(|| format!("an item without a link: {li}"))?;
                let file = href.rsplit('/').next().unwrap_or(href);
                let kind = file.split('.').next().unwrap_or(file);
                let path = format!("toolsmith::{}", html_text(li).trim());
                let lines = item_lines(&read(href)?);
                api.entries.insert(format!("{kind} {path}"), lines);
                api.paths.insert(path);
            }
        }
        Ok(api)
    }

    /// A module's entry (its re-exports of whole crates or modules), then its submodules.
    fn read_module(&mut self, dir: &Path, index: &str, path: &str) -> Result<(), String> {
        let file = dir.join(index);
        let page =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut lines = Vec::new();
        for dt in fragments(&page, "<dt id=\"reexport.", "</dt>") {
            let name = &dt[..dt.find('"').unwrap_or(0)];
            lines.push(format!(
                "    {}",
                one_line(&dt[dt.find('>').map_or(0, |i| i + 1)..])
            ));
            self.paths.insert(format!("{path}::{name}"));
        }
        self.entries.insert(format!("mod {path}"), lines);
        if path != "toolsmith" {
            self.paths.insert(path.to_owned());
        }
        for dt in fragments(&page, "<dt><a class=\"mod\" ", "</a>") {
            let (Some(href), Some(title)) = (attribute(dt, "href"), attribute(dt, "title")) else {
                continue;
            };
            let sub = title.trim_start_matches("mod ").to_owned();
            let base = Path::new(index).parent().unwrap_or(Path::new(""));
            self.read_module(dir, &base.join(href).to_string_lossy(), &sub)?;
        }
        Ok(())
    }

    fn render(&self) -> String {
        let mut out = String::from(
            "# The public API of the facade crate `toolsmith`, features mcp, workspace, sqlite, postgres and redis, as rustdoc\n\
             # documents it: each module with its re-exports, and each item of all.html with its declaration,\n\
             # inherent methods, trait implementations and auto traits. Checked by tests/it/release.rs;\n",
        );
        out.push_str(&format!("# rewritten by `{REFRESH}` (review the diff).\n"));
        for (header, lines) in &self.entries {
            out.push('\n');
            out.push_str(header);
            out.push('\n');
            for line in lines {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }

    fn parse(text: &str) -> BTreeMap<String, Vec<String>> {
        let mut entries: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut current = None;
        for line in text.lines() {
            if line.starts_with(' ') {
                if let Some(lines) = current.as_ref().and_then(|h| entries.get_mut(h)) {
                    lines.push(line.to_owned());
                }
            } else if !line.is_empty() && !line.starts_with('#') {
                entries.insert(line.to_owned(), Vec::new());
                current = Some(line.to_owned());
            }
        }
        entries
    }

    /// The compile-time half: a `use` for every path, grouped by the module that holds it (one
    /// module per namespace of the facade, so equal names in two namespaces do not clash).
    fn names_file(&self) -> String {
        let mut groups: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for path in &self.paths {
            let parent = path.rsplit_once("::").map_or("toolsmith", |(p, _)| p);
            groups.entry(parent).or_default().insert(path);
        }
        let mut out = format!(
            "// Generated by tests/it/release.rs with the snapshot tests/golden/public_api.txt: every public path\n\
             // of the facade, one `use` each. A removed or moved item fails to compile here. If that is\n\
             // intended, delete its line and run `{REFRESH}`.\n"
        );
        for (parent, paths) in groups {
            let module = format!("in_{}", parent.replace("::", "_"));
            out.push_str(&format!("\nmod {module} {{\n"));
            for path in paths {
                out.push_str(&format!("    use {path};\n"));
            }
            out.push_str("}\n");
        }
        out
    }
}

/// An item page, as lines: the declaration, then inherent impls with their members, trait
/// implementations and auto traits (blanket implementations are the standard library's).
fn item_lines(page: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(decl) = fragments(
        page,
        "<pre class=\"rust item-decl\"><code>",
        "</code></pre>",
    )
    .first()
    {
        for line in html_text(decl).lines() {
            if !line.trim().is_empty() {
                lines.push(format!("    {}", line.trim_end()));
            }
        }
    }
    let mut sections = page.split("<h2 id=\"");
    sections.next();
    for section in sections {
        let id = &section[..section.find('"').unwrap_or(0)];
        let members = matches!(
            id,
            "implementations" | "required-methods" | "provided-methods"
        ) || id.starts_with("required-associated")
            || id.starts_with("provided-associated")
            || id.starts_with("deref-methods");
        let impls = members || id == "trait-implementations" || id == "synthetic-implementations";
        if !impls {
            continue;
        }
        for (level, header) in headers(section) {
            let line = one_line(header);
            let auto = id == "synthetic-implementations";
            if level == 3 && (!auto || AUTO_TRAITS.contains(&impl_trait(&line))) {
                lines.push(format!("    {line}"));
            } else if level == 4 && members {
                lines.push(format!("        {line}"));
            }
        }
    }
    lines
}

/// The `<h3>`/`<h4>` code headers of a section, in order, with their level.
fn headers(section: &str) -> Vec<(u8, &str)> {
    let mut out = Vec::new();
    let mut rest = section;
    loop {
        let h3 = rest.find("<h3 class=\"code-header\">");
        let h4 = rest.find("<h4 class=\"code-header\">");
        let (level, at) = match (h3, h4) {
            (Some(a), Some(b)) if a < b => (3, a),
            (Some(a), None) => (3, a),
            (_, Some(b)) => (4, b),
            (None, None) => return out,
        };
        let from = &rest[at + "<h3 class=\"code-header\">".len()..];
        let end = if level == 3 { "</h3>" } else { "</h4>" };
        let Some(j) = from.find(end) else { return out };
        out.push((level, &from[..j]));
        rest = &from[j + end.len()..];
    }
}

/// The trait of an impl header: `impl<'a> !Send for X<'a>` gives `Send`.
fn impl_trait(header: &str) -> &str {
    let mut rest = header.trim_start_matches("impl");
    if rest.starts_with('<') {
        let mut depth = 0;
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                rest = &rest[i + 1..];
                break;
            }
        }
    }
    let rest = rest.trim_start().trim_start_matches('!');
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The docs to read: `TOOLSMITH_API_DOCS`, relative to the workspace root when relative.
fn docs_dir() -> Option<PathBuf> {
    let dir = std::env::var_os(DOCS_ENV).filter(|v| !v.is_empty())?;
    Some(crate::workspace().join(dir))
}

fn newest_source(dir: &Path, newest: &mut SystemTime) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            newest_source(&path, newest);
        } else if path.extension().is_some_and(|e| e == "rs") {
            if let Ok(modified) = entry.metadata().and_then(|m| m.modified()) {
                *newest = (*newest).max(modified);
            }
        }
    }
}

/// The source folders of the facade and of every workspace crate it is built from (its path
/// dependencies, followed through theirs): a change in any of them changes the facade's docs.
fn facade_sources() -> Vec<PathBuf> {
    let metadata = workspace_metadata();
    let packages = metadata["packages"].as_array().expect("the members");
    let by_name = |name: &str| packages.iter().find(|p| p["name"] == name);
    let mut seen = BTreeSet::new();
    let mut todo = vec!["toolsmith".to_owned()];
    let mut dirs = Vec::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(package) = by_name(&name) else {
            continue;
        };
        let manifest = Path::new(package["manifest_path"].as_str().expect("a manifest path"));
        dirs.push(manifest.parent().expect("a folder").join("src"));
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            if dep["path"].is_string() && dep["kind"].as_str() != Some("dev") {
                todo.push(dep["name"].as_str().expect("a name").to_owned());
            }
        }
    }
    dirs
}

/// Refuses docs older than the facade's sources (a stale local `target/doc` would compare an
/// old API).
fn check_fresh(docs: &Path) {
    let all = docs.join("toolsmith/all.html");
    let Ok(built) = std::fs::metadata(&all).and_then(|m| m.modified()) else {
        panic!(
            "{} is missing: run `bash scripts/public-api.sh`",
            all.display()
        );
    };
    let mut newest = SystemTime::UNIX_EPOCH;
    for dir in facade_sources() {
        newest_source(&dir, &mut newest);
    }
    assert!(
        newest <= built,
        "{} is older than the sources: rebuild the docs with `bash scripts/public-api.sh`",
        all.display()
    );
}

fn diff_report(
    expected: &BTreeMap<String, Vec<String>>,
    actual: &BTreeMap<String, Vec<String>>,
) -> String {
    let mut out = String::new();
    for (header, lines) in expected {
        match actual.get(header) {
            None => out.push_str(&format!("removed: {header}\n")),
            Some(now) if now != lines => {
                out.push_str(&format!("changed: {header}\n"));
                for line in lines.iter().filter(|l| !now.contains(l)) {
                    out.push_str(&format!("  - {}\n", line.trim_start()));
                }
                for line in now.iter().filter(|l| !lines.contains(l)) {
                    out.push_str(&format!("  + {}\n", line.trim_start()));
                }
                if lines.iter().all(|l| now.contains(l)) && now.iter().all(|l| lines.contains(l)) {
                    out.push_str("  (the same lines in another order)\n");
                }
            }
            Some(_) => {}
        }
    }
    for header in actual.keys().filter(|h| !expected.contains_key(*h)) {
        out.push_str(&format!("added: {header}\n"));
    }
    out
}

#[test]
fn public_api_matches_the_snapshot() {
    let Some(docs) = docs_dir() else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(
            !ci,
            "CI must check the public API: set {DOCS_ENV} to the docs built with the facade's \
             features (.ci/run does)"
        );
        skip::skip(
            skip::Need::Docs,
            "the facade's rendered docs",
            &format!("{DOCS_ENV} is not set; names.rs was compiled all the same"),
        );
        return;
    };
    check_fresh(&docs);
    let api = Api::read(&docs).unwrap_or_else(|e| panic!("{e}"));
    let rendered = api.render();
    let names = api.names_file();
    let snapshot = crate::workspace().join(SNAPSHOT);
    let names_path = crate::workspace().join(NAMES);
    if toolsmith::export::update_requested() {
        std::fs::write(&snapshot, &rendered).expect("write the API snapshot");
        std::fs::write(&names_path, &names).expect("write the names file");
        return;
    }
    let committed = std::fs::read_to_string(&snapshot)
        .unwrap_or_else(|e| panic!("{}: {e}; `{REFRESH}` writes it", snapshot.display()));
    let report = diff_report(&Api::parse(&committed), &Api::parse(&rendered));
    assert!(
        report.is_empty() && committed == rendered,
        "the public API of `toolsmith` differs from {SNAPSHOT}:\n{report}\n\
         A removed item, a changed signature or a lost trait breaks users (bump the version). If \
         the change is intended, run `{REFRESH}` and review the diff."
    );
    let committed_names = std::fs::read_to_string(&names_path).unwrap_or_default();
    assert!(
        committed_names == names,
        "{NAMES} does not name exactly the public paths of the snapshot: run `{REFRESH}`"
    );
}

#[test]
fn the_api_reader_reads_rustdoc_markup() {
    let page = r##"<pre class="rust item-decl"><code><div class="code-attribute">#[non_exhaustive]</div>pub struct Envelope {
    pub status: <a class="enum" href="enum.Status.html" title="enum toolsmith::Status">Status</a>,
}</code></pre><h2 id="implementations" class="section-header">Implementations</h2>
<h3 class="code-header">impl <a href="x">Envelope</a></h3><h4 class="code-header">pub fn <a href="#method.ok" class="fn">ok</a>(data: Value) -&gt; <a>Envelope</a>
<div class="where">where T: &#39;static</div></h4>
<h2 id="trait-implementations">Trait Implementations</h2><h3 class="code-header">impl Clone for Envelope</h3><h4 class="code-header">fn clone(&amp;self) -&gt; Envelope</h4>
<h2 id="synthetic-implementations">Auto Trait Implementations</h2><h3 class="code-header">impl Freeze for Envelope</h3><h3 class="code-header">impl !<a>RefUnwindSafe</a> for Envelope</h3><h3 class="code-header">impl&lt;&#39;a&gt; Send for Envelope</h3>
<h2 id="blanket-implementations">Blanket Implementations</h2><h3 class="code-header">impl&lt;T&gt; From&lt;T&gt; for T</h3>"##;
    assert_eq!(
        item_lines(page),
        [
            "    #[non_exhaustive]",
            "    pub struct Envelope {",
            "        pub status: Status,",
            "    }",
            "    impl Envelope",
            "        pub fn ok(data: Value) -> Envelope where T: 'static",
            "    impl Clone for Envelope",
            "    impl !RefUnwindSafe for Envelope",
            "    impl<'a> Send for Envelope",
        ]
    );
    let before = Api::parse("# c\n\nstruct toolsmith::A\n    pub struct A;\n    impl Send for A\n\nfn toolsmith::f\n    pub fn f()\n");
    let after =
        Api::parse("struct toolsmith::A\n    pub struct A;\n\nfn toolsmith::g\n    pub fn g()\n");
    assert_eq!(
        diff_report(&before, &after),
        "removed: fn toolsmith::f\nchanged: struct toolsmith::A\n  - impl Send for A\nadded: fn toolsmith::g\n"
    );
}

/// The most names the facade's root may list: the macros, the types a tool author and a host
/// write every day, the modules that hold the rest, and the four dependency crates the derives
/// refer to (`serde`, `serde_json`, `schemars`, `regex`).
const MAX_ROOT_NAMES: usize = 62;

/// The committed snapshot's items, as `Api::parse` reads them: `(kind, path, declaration and the
/// rest of the block)`.
fn snapshot_items(snapshot: &str) -> Vec<(String, String, String)> {
    Api::parse(snapshot)
        .into_iter()
        .filter_map(|(head, lines)| {
            let (kind, path) = head.split_once(' ')?;
            Some((kind.to_owned(), path.to_owned(), lines.join("\n")))
        })
        .collect()
}

/// Items reachable at two paths: the same kind, name and declaration under two paths is one item
/// re-exported twice.
fn second_paths(items: &[(String, String, String)]) -> Vec<String> {
    let mut seen: BTreeMap<(&str, &str, &str), &str> = BTreeMap::new();
    let mut twice = Vec::new();
    for (kind, path, rest) in items {
        if kind == "mod" {
            continue;
        }
        let name = path.rsplit("::").next().unwrap_or(path);
        if let Some(first) = seen.insert((kind, name, rest), path) {
            twice.push(format!("{kind} {name}: {first} and {path}"));
        }
    }
    twice
}

#[test]
fn the_facade_root_is_curated_and_each_item_has_one_path() {
    let snapshot =
        std::fs::read_to_string(crate::workspace().join(SNAPSHOT)).expect("read the snapshot");
    let items = snapshot_items(&snapshot);

    // The root: every item right under `toolsmith::`, and the crates it re-exports.
    let mut root: Vec<String> = items
        .iter()
        .filter(|(_, path, _)| path.matches("::").count() == 1)
        .map(|(_, path, _)| path.clone())
        .collect();
    let (_, _, reexports) = items
        .iter()
        .find(|(kind, path, _)| kind == "mod" && path == "toolsmith")
        .expect("the snapshot lists the root's re-exports");
    root.extend(reexports.lines().map(|l| l.trim().to_string()));
    assert!(
        root.len() <= MAX_ROOT_NAMES,
        "the facade's root lists {} names (at most {MAX_ROOT_NAMES}): put what is not written \
         every day in a named module\n{root:#?}",
        root.len()
    );

    let twice = second_paths(&items);
    assert!(
        twice.is_empty(),
        "items reachable at two paths:\n{}",
        twice.join("\n")
    );

    // Re-exports by name: a glob would let every new item of toolsmith-core into the facade unseen.
    let facade =
        std::fs::read_to_string(crate::workspace().join("src/lib.rs")).expect("read src/lib.rs");
    let globs: Vec<&str> = facade
        .lines()
        .filter(|l| l.trim_start().starts_with("pub use") && l.contains('*'))
        .collect();
    assert!(globs.is_empty(), "glob re-exports in src/lib.rs: {globs:?}");
}

#[test]
fn the_curation_check_finds_a_second_path() {
    let snapshot = "# header\n\nstruct toolsmith::Content\n    pub struct Content;\n\n\
                    struct toolsmith::content::Content\n    pub struct Content;\n\n\
                    struct toolsmith::redis::ConnectError\n    pub struct ConnectError(String);\n";
    let items = snapshot_items(snapshot);
    assert_eq!(items.len(), 3);
    assert_eq!(
        second_paths(&items),
        ["struct Content: toolsmith::Content and toolsmith::content::Content"]
    );
    assert!(second_paths(&items[1..]).is_empty());
}
