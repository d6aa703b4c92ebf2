//! `toolsmith registry` end to end: the binary run in fixture crates (a temporary directory with a
//! Cargo.toml and a README), its `server.json` validated against the MCP Registry's schema, and
//! each refusal with its one-line message and exit code. No network.
//!
//! The schema, `tests/fixtures/specs/server-schema-2025-12-11.json`, is the file published at
//! <https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json>: the registry's
//! embedded copy, `internal/validators/schemas/2025-12-11.json` of `modelcontextprotocol/registry`
//! at commit e361b5ff5a925b36a38eda0544bca8230a84558b, less the `maven` and `jbang` examples that
//! commit added to it after publication (four lines of `examples` and one description).
//! `the_vendored_schema_is_the_published_one` checks its SHA-256 against that of the published
//! file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The SHA-256 of the schema file published at static.modelcontextprotocol.io.
const PUBLISHED_SHA256: &str = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0";

const SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

const PUBLISHER: &str = "io.modelcontextprotocol.registry/publisher-provided";

/// A crate's manifest: a package and the table the command reads.
const MANIFEST: &str = r#"[package]
name = "weather-mcp"
version = "0.3.0"
edition = "2021"
description = "Weather forecasts for any city, over MCP."
repository = "https://github.com/alice/weather-mcp.git"

[package.metadata.toolsmith-registry]
name = "io.github.alice/weather"
title = "Weather"
"#;

/// A README with the ownership line as visible text, in a bullet, as the registry's docs advise.
const README: &str =
    "# Weather\n\nForecasts for any city.\n\n- MCP Registry: `mcp-name: io.github.alice/weather`\n";

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/specs/server-schema-2025-12-11.json")
}

/// The errors of `doc` against the vendored schema (Draft 7, formats checked).
fn schema_errors(doc: &Value) -> Vec<String> {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    let validator = jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// A fixture crate for `test`: the directory, emptied, with `Cargo.toml` and, if given, the
/// README.
fn krate(test: &str, manifest: &str, readme: Option<&str>) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("toolsmith-cli-registry")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    if let Some(text) = readme {
        std::fs::write(dir.join("README.md"), text).unwrap();
    }
    dir
}

/// `toolsmith registry ARGS` run in `dir` (so the manifest is the default `./Cargo.toml`).
fn registry(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .arg("registry")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

/// The server.json a successful run printed, checked valid against the schema.
fn entry(o: &Output) -> Value {
    assert_eq!(code(o), 0, "{}", stderr(o));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new(), "{doc:#}");
    doc
}

/// Asserts a refusal: the exit code, the one line on standard error, nothing on standard output.
fn refused(o: &Output, rc: i32, message: &str) {
    assert_eq!(
        (code(o), stderr(o), stdout(o)),
        (rc, format!("toolsmith: error: {message}\n"), String::new())
    );
}

#[test]
fn the_vendored_schema_is_the_published_one() {
    let bytes = std::fs::read(schema_path()).unwrap();
    let hex: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(hex, PUBLISHED_SHA256);
    let schema: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(schema["$id"], SCHEMA_URL);
    // The limits the command enforces are the schema's.
    let server = &schema["definitions"]["ServerDetail"]["properties"];
    assert_eq!(server["description"]["maxLength"], 100);
    assert_eq!(server["title"]["maxLength"], 100);
    assert_eq!(
        server["name"]["pattern"],
        "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"
    );
    assert!(server["_meta"]["properties"][PUBLISHER].is_object());
    // The validation can fail: a description too long, a package without its transport.
    let broken = json!({"$schema": SCHEMA_URL, "name": "io.github.alice/weather",
        "description": "x".repeat(101), "version": "1.0.0",
        "packages": [{"registryType": "cargo", "identifier": "weather-mcp", "version": "1.0.0"}]});
    assert_eq!(
        schema_errors(&broken).len(),
        2,
        "{:?}",
        schema_errors(&broken)
    );
}

#[test]
fn a_stdio_entry_validates_against_the_registry_schema() {
    let manifest = format!(
        "{MANIFEST}packageArguments = [\"serve\", {{ type = \"named\", name = \"--units\", description = \"Units of the forecast.\", default = \"metric\", choices = [\"metric\", \"imperial\"] }}]\n\
         environmentVariables = [{{ name = \"WEATHER_API_KEY\", description = \"Key of the weather service.\", isRequired = true, isSecret = true }}, \"LOG_LEVEL\"]\n"
    );
    let dir = krate("stdio", &manifest, Some(README));
    let o = registry(&dir, &[]);
    assert_eq!(stderr(&o), "");
    assert_eq!(
        entry(&o),
        json!({
            "$schema": SCHEMA_URL,
            "name": "io.github.alice/weather",
            "title": "Weather",
            "description": "Weather forecasts for any city, over MCP.",
            "version": "0.3.0",
            "repository": {"url": "https://github.com/alice/weather-mcp", "source": "github"},
            "packages": [{
                "registryType": "cargo",
                "registryBaseUrl": "https://crates.io",
                "identifier": "weather-mcp",
                "version": "0.3.0",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "positional", "value": "serve"},
                    {"type": "named", "name": "--units", "description": "Units of the forecast.",
                     "default": "metric", "choices": ["metric", "imperial"]}
                ],
                "environmentVariables": [
                    {"name": "WEATHER_API_KEY", "description": "Key of the weather service.",
                     "isRequired": true, "isSecret": true},
                    {"name": "LOG_LEVEL"}
                ]
            }]
        })
    );
    // The text is pretty JSON ending with a new line, keys in the order above.
    let text = stdout(&o);
    assert!(
        text.starts_with("{\n  \"$schema\": ") && text.ends_with("}\n"),
        "{text}"
    );

    // Flags replace the table's arguments, variables and name.
    let o = registry(
        &dir,
        &[
            "--name",
            "io.github.alice/weather-two",
            "--arg",
            "--stdio",
            "--arg",
            "serve",
            "--env",
            "LOG_LEVEL:How much to log.",
            "--secret-env",
            "WEATHER_API_KEY",
        ],
    );
    let readme_names_the_first = stderr(&o);
    assert_eq!(code(&o), 1, "{readme_names_the_first}");
    std::fs::write(
        dir.join("README.md"),
        "# Weather\n\nmcp-name: io.github.alice/weather-two\n",
    )
    .unwrap();
    let o = registry(
        &dir,
        &[
            "--name",
            "io.github.alice/weather-two",
            "--arg",
            "--stdio",
            "--arg",
            "serve",
            "--env",
            "LOG_LEVEL:How much to log.",
            "--secret-env",
            "WEATHER_API_KEY",
        ],
    );
    let doc = entry(&o);
    assert_eq!(doc["name"], "io.github.alice/weather-two");
    assert_eq!(
        doc["packages"][0]["packageArguments"],
        json!([{"type": "positional", "value": "--stdio"}, {"type": "positional", "value": "serve"}])
    );
    assert_eq!(
        doc["packages"][0]["environmentVariables"],
        json!([
            {"name": "LOG_LEVEL", "description": "How much to log."},
            {"name": "WEATHER_API_KEY", "isRequired": true, "isSecret": true}
        ])
    );

    // A broken flag or table entry is refused with what to write instead.
    let o = registry(
        &dir,
        &["--name", "io.github.alice/weather-two", "--env", "KEY=1"],
    );
    refused(
        &o,
        2,
        "--env `KEY=1`: an environment variable's name has letters, digits and `_` only (NAME, or NAME:DESCRIPTION to describe it)",
    );
    let bad = krate(
        "stdio-bad-argument",
        &format!("{MANIFEST}packageArguments = [{{ type = \"positional\", description = \"A directory.\" }}]\n"),
        Some(README),
    );
    refused(
        &registry(&bad, &[]),
        2,
        "Cargo.toml: packageArguments[0] in [package.metadata.toolsmith-registry]: a positional argument needs `value` (passed as written) or `valueHint` (asked of the user)",
    );
}

#[test]
fn a_streamable_http_entry_validates_against_the_registry_schema() {
    let manifest = format!(
        "{MANIFEST}transport = \"streamable-http\"\nurl = \"http://127.0.0.1:{{port}}/mcp\"\n\
         packageArguments = [\"--http\", {{ type = \"positional\", valueHint = \"port\", description = \"The port to listen on.\", default = \"8080\", format = \"number\" }}]\n"
    );
    let dir = krate("http", &manifest, Some(README));
    let doc = entry(&registry(&dir, &[]));
    assert_eq!(
        doc["packages"][0]["transport"],
        json!({"type": "streamable-http", "url": "http://127.0.0.1:{port}/mcp"})
    );
    assert_eq!(
        doc["packages"][0]["packageArguments"][1],
        json!({"type": "positional", "valueHint": "port", "description": "The port to listen on.",
               "format": "number", "default": "8080"})
    );

    // From flags alone: --url implies streamable-http.
    let plain = krate("http-flags", MANIFEST, Some(README));
    let o = registry(
        &plain,
        &["--url", "http://127.0.0.1:8080/mcp", "--arg", "--http"],
    );
    let doc = entry(&o);
    assert_eq!(
        doc["packages"][0]["transport"],
        json!({"type": "streamable-http", "url": "http://127.0.0.1:8080/mcp"})
    );

    // A variable nothing defines, no URL, a URL for stdio.
    refused(
        &registry(&plain, &["--url", "http://127.0.0.1:{port}/mcp"]),
        2,
        "Cargo.toml: the URL `http://127.0.0.1:{port}/mcp` (--url) names `{port}`, which no argument's valueHint or name and no environment variable defines (none are defined)",
    );
    refused(
        &registry(&plain, &["--transport", "streamable-http"]),
        2,
        "Cargo.toml: a streamable-http server needs the URL a client connects to: give --url, e.g. http://127.0.0.1:8080/mcp, or set `url` in [package.metadata.toolsmith-registry]",
    );
    refused(
        &registry(
            &plain,
            &["--transport", "stdio", "--url", "http://127.0.0.1:8080/mcp"],
        ),
        2,
        "Cargo.toml: the transport is stdio (--transport), which has no URL, but --url gives one; drop the URL or choose streamable-http",
    );
}

/// A tool list of `n` tools with long names, written to `dir/tools.json`.
fn tool_list(dir: &Path, n: usize) -> PathBuf {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            json!({"name": format!("get_forecast_for_city_number_{i:03}"),
                   "description": format!("Returns forecast {i}."),
                   "inputSchema": {"type": "object"}})
        })
        .collect();
    let path = dir.join("tools.json");
    std::fs::write(&path, json!({ "tools": tools }).to_string()).unwrap();
    path
}

#[test]
fn a_pinned_lock_goes_under_the_publisher_provided_meta() {
    let dir = krate("pin", MANIFEST, Some(README));
    let list = tool_list(&dir, 3);
    let o = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["pin", list.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0);
    let lock_path = dir.join("tools.lock");
    std::fs::write(&lock_path, &o.stdout).unwrap();
    let lock: Value = serde_json::from_slice(&o.stdout).unwrap();

    let o = registry(&dir, &["--pin", "tools.lock"]);
    let doc = entry(&o);
    let meta = &doc["_meta"][PUBLISHER]["dev.toolsmith/tools-lock"];
    let mut tools = serde_json::Map::new();
    for e in lock["tools"].as_array().unwrap() {
        tools.insert(e["name"].as_str().unwrap().into(), e["sha256"].clone());
    }
    let tools = Value::Object(tools);
    let digest: String = Sha256::digest(toolsmith_spec::canonical_json(&tools).as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        meta,
        &json!({"toolsmithLock": 2, "count": 3, "sha256": digest, "tools": tools})
    );
    assert_eq!(doc["_meta"].as_object().unwrap().len(), 1);

    // The tool list itself gives the same entry, hashed as `toolsmith pin` does.
    let from_list = registry(&dir, &["--tools", "tools.json"]);
    assert_eq!(stdout(&from_list), stdout(&o));

    // A lock that is none.
    refused(
        &registry(&dir, &["--pin", "tools.json"]),
        2,
        "tools.json: not a toolsmith lockfile (no \"toolsmithLock\" version); write one with `toolsmith pin FILE > tools.json`",
    );
}

#[test]
fn a_lock_past_the_registrys_4096_bytes_keeps_its_digest_alone() {
    let dir = krate("pin-big", MANIFEST, Some(README));
    tool_list(&dir, 60);
    let o = registry(&dir, &["--tools", "tools.json"]);
    let doc = entry(&o);
    let meta = &doc["_meta"][PUBLISHER]["dev.toolsmith/tools-lock"];
    assert_eq!(meta["count"], 60);
    assert_eq!(meta["toolsmithLock"], 2);
    assert!(meta["sha256"].as_str().unwrap().len() == 64);
    assert!(meta.get("tools").is_none(), "{meta}");
    let size = serde_json::to_string(&doc["_meta"][PUBLISHER])
        .unwrap()
        .len();
    assert!(size <= 4096, "{size}");
    let err = stderr(&o);
    assert!(
        err.starts_with("toolsmith: registry: the hashes of 60 tools take ")
            && err.ends_with(" bytes of _meta, and the registry keeps at most 4096: server.json carries the lock's sha256 and count alone\n"),
        "{err}"
    );
}

#[test]
fn the_readme_must_show_the_mcp_name_as_crates_io_renders_it() {
    let cases = [
        (
            "# Weather\n\nForecasts.\n",
            "README.md: no `mcp-name: io.github.alice/weather`; the registry proves that a crate is yours by finding it in the README crates.io shows: add it as visible text (not in an HTML comment)",
        ),
        (
            "# Weather\n\n<!-- mcp-name: io.github.alice/weather -->\n",
            "README.md:3: `mcp-name: io.github.alice/weather` is only inside an HTML comment, and crates.io strips comments from the README it shows, so the registry will not find it: write `mcp-name: io.github.alice/weather` as visible text",
        ),
        (
            "# Weather\n\n<!--\nRegistry:\nmcp-name: io.github.alice/weather\n-->\n",
            "README.md:5: `mcp-name: io.github.alice/weather` is only inside an HTML comment, and crates.io strips comments from the README it shows, so the registry will not find it: write `mcp-name: io.github.alice/weather` as visible text",
        ),
        (
            "# Weather\n\nmcp-name: io.github.bob/weather\n",
            "README.md:3: shows `mcp-name: io.github.bob/weather`, but the server name is `io.github.alice/weather`; the registry needs `mcp-name: io.github.alice/weather`",
        ),
        (
            "# Weather\n\nIts name is mcp-name: io.github.alice/weather.\n",
            "README.md:3: shows `mcp-name: io.github.alice/weather.`, which runs on past the server name `io.github.alice/weather`; end the name with a space or the end of the line (the registry compares the whole name)",
        ),
    ];
    for (i, (readme, message)) in cases.iter().enumerate() {
        let dir = krate(&format!("readme-{i}"), MANIFEST, Some(readme));
        refused(&registry(&dir, &[]), 1, message);
    }

    // No README at all, and one the manifest switches off.
    let dir = krate("readme-none", MANIFEST, None);
    let none = "Cargo.toml: the crate has no README, and the registry proves that a crate is yours by finding `mcp-name: io.github.alice/weather` in the README crates.io shows: add a README.md with that line";
    refused(&registry(&dir, &[]), 1, none);
    let off = MANIFEST.replace(
        "edition = \"2021\"\n",
        "edition = \"2021\"\nreadme = false\n",
    );
    let dir = krate("readme-off", &off, Some(README));
    refused(&registry(&dir, &[]), 1, none);

    // Visible forms: a line of its own, and a fenced block (shown as written, comment and all);
    // the manifest's `readme` is the one read.
    for (i, readme) in [
        "# Weather\n\nmcp-name: io.github.alice/weather\n",
        "# Weather\n\n```text\n<!-- mcp-name: io.github.alice/weather -->\n```\n",
    ]
    .iter()
    .enumerate()
    {
        let dir = krate(&format!("readme-ok-{i}"), MANIFEST, Some(readme));
        entry(&registry(&dir, &[]));
    }
    let other = MANIFEST.replace(
        "edition = \"2021\"\n",
        "edition = \"2021\"\nreadme = \"docs/CRATE.md\"\n",
    );
    let dir = krate("readme-key", &other, Some("# Nothing here\n"));
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(dir.join("docs/CRATE.md"), README).unwrap();
    entry(&registry(&dir, &[]));
}

#[test]
fn a_name_outside_the_registry_grammar_is_refused() {
    let dir = krate(
        "bad-name",
        &MANIFEST.replace("\"io.github.alice/weather\"", "\"weather\""),
        Some(README),
    );
    refused(
        &registry(&dir, &[]),
        2,
        "Cargo.toml: the server name `weather` (`name` in [package.metadata.toolsmith-registry]) has no `/` between the namespace and the name; the registry takes reverse-DNS names such as io.github.alice/weather",
    );
    for (name, why) in [
        (
            "io.github.alice/we ather",
            "has ` ` in its name part, which takes only letters, digits, `.`, `_` and `-`",
        ),
        ("io.github.alice/a/b", "has more than one `/`"),
        (
            "io.github.alice/weather-",
            "has a name part (`weather-`) that does not start and end with a letter or digit",
        ),
    ] {
        refused(
            &registry(&dir, &["--name", name]),
            2,
            &format!("Cargo.toml: the server name `{name}` (--name) {why}; the registry takes reverse-DNS names such as io.github.alice/weather"),
        );
    }
    let none = krate(
        "no-name",
        &MANIFEST.replace("name = \"io.github.alice/weather\"\n", ""),
        Some(README),
    );
    refused(
        &registry(&none, &[]),
        2,
        "Cargo.toml: no server name: give --name io.github.USER/NAME, or set `name` in [package.metadata.toolsmith-registry]",
    );
}

#[test]
fn a_description_over_100_characters_is_refused_never_cut() {
    let long = "é".repeat(101);
    let manifest = MANIFEST.replace("Weather forecasts for any city, over MCP.", &long);
    let dir = krate("long-description", &manifest, Some(README));
    refused(
        &registry(&dir, &[]),
        2,
        "Cargo.toml: the description is 101 characters; server.json takes at most 100: set a shorter one as `description` in [package.metadata.toolsmith-registry] (the crate's own description can stay as it is)",
    );
    // The table's description stands in for the crate's; 100 characters fit.
    let short = "x".repeat(100);
    let dir = krate(
        "long-description-table",
        &format!("{manifest}description = \"{short}\"\n"),
        Some(README),
    );
    assert_eq!(entry(&registry(&dir, &[]))["description"], short);
    let dir = krate(
        "long-description-table-too",
        &format!("{manifest}description = \"{long}\"\n"),
        Some(README),
    );
    refused(
        &registry(&dir, &[]),
        2,
        "Cargo.toml: the description is 101 characters; server.json takes at most 100: shorten `description` in [package.metadata.toolsmith-registry]",
    );
}

#[test]
fn a_missing_or_unusable_manifest_is_refused() {
    let dir = krate("missing-manifest", "", None);
    std::fs::remove_file(dir.join("Cargo.toml")).unwrap();
    let o = registry(&dir, &[]);
    let err = stderr(&o);
    assert_eq!(code(&o), 2);
    assert!(
        err.starts_with("toolsmith: error: Cargo.toml: cannot read: ")
            && err.ends_with(
                "; run `toolsmith registry` in the crate's directory or give --manifest PATH\n"
            )
            && err.lines().count() == 1,
        "{err}"
    );
    let o = registry(&dir, &["--manifest", "nowhere/Cargo.toml"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).starts_with("toolsmith: error: nowhere/Cargo.toml: cannot read: "));

    std::fs::write(dir.join("Cargo.toml"), "[package\nname = 1\n").unwrap();
    let o = registry(&dir, &[]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).starts_with("toolsmith: error: Cargo.toml:1:9: invalid TOML: "),
        "{}",
        stderr(&o)
    );

    // The table where the #[tool] macro would refuse it, and a key the table does not know.
    let nested = MANIFEST.replace(
        "[package.metadata.toolsmith-registry]",
        "[package.metadata.toolsmith.registry]",
    );
    let dir = krate("nested-table", &nested, Some(README));
    refused(
        &registry(&dir, &[]),
        2,
        "Cargo.toml: [package.metadata.toolsmith.registry] would stop the crate from compiling (the #[tool] macro reads [package.metadata.toolsmith] and refuses keys it does not know): name the table [package.metadata.toolsmith-registry]",
    );
    let dir = krate(
        "unknown-key",
        &format!("{MANIFEST}website = \"https://x.example\"\n"),
        Some(README),
    );
    refused(
        &registry(&dir, &[]),
        2,
        "Cargo.toml: unknown key `website` in [package.metadata.toolsmith-registry]; valid keys: name, title, description, websiteUrl, transport, url, packageArguments, environmentVariables, subfolder",
    );

    // A crate kept off crates.io.
    let private = MANIFEST.replace(
        "edition = \"2021\"\n",
        "edition = \"2021\"\npublish = false\n",
    );
    let dir = krate("unpublished", &private, Some(README));
    refused(
        &registry(&dir, &[]),
        2,
        "Cargo.toml: the package's `publish` keeps it off crates.io, where the registry looks for a cargo package: allow crates.io there and publish the crate",
    );
}

#[test]
fn a_member_inherits_from_its_workspace() {
    let root = krate(
        "workspace",
        "[workspace]\nmembers = [\"server\"]\n\n[workspace.package]\nversion = \"1.4.2\"\n\
         repository = \"https://gitlab.com/alice/tools/weather\"\nreadme = \"README.md\"\n\
         homepage = \"https://weather.example\"\n",
        Some(README),
    );
    std::fs::create_dir_all(root.join("server")).unwrap();
    std::fs::write(
        root.join("server/Cargo.toml"),
        MANIFEST
            .replace("version = \"0.3.0\"", "version.workspace = true")
            .replace(
                "repository = \"https://github.com/alice/weather-mcp.git\"",
                "repository.workspace = true\nreadme.workspace = true\nhomepage.workspace = true",
            )
            .replace(
                "title = \"Weather\"",
                "title = \"Weather\"\nsubfolder = \"server\"",
            ),
    )
    .unwrap();
    let doc = entry(&registry(&root, &["--manifest", "server"]));
    assert_eq!(doc["version"], "1.4.2");
    assert_eq!(doc["packages"][0]["version"], "1.4.2");
    assert_eq!(doc["websiteUrl"], "https://weather.example");
    assert_eq!(
        doc["repository"],
        json!({"url": "https://gitlab.com/alice/tools/weather", "source": "gitlab", "subfolder": "server"})
    );
}

#[test]
fn check_compares_an_existing_server_json() {
    let dir = krate("check", MANIFEST, Some(README));
    let o = registry(&dir, &["--out", "server.json"]);
    assert_eq!(
        (code(&o), stdout(&o)),
        (
            0,
            "toolsmith: wrote server.json (io.github.alice/weather 0.3.0)\n".to_string()
        )
    );
    let o = registry(&dir, &["--check", "server.json"]);
    assert_eq!(
        (code(&o), stdout(&o)),
        (0, "toolsmith: server.json matches Cargo.toml\n".to_string())
    );

    // A new version and a title dropped: the file is stale.
    let next = MANIFEST
        .replace("version = \"0.3.0\"", "version = \"0.4.0\"")
        .replace("title = \"Weather\"\n", "");
    std::fs::write(dir.join("Cargo.toml"), next).unwrap();
    let o = registry(&dir, &["--check", "server.json"]);
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o),
        "removed: /title\nchanged: /version\nchanged: /packages/0/version\n\
         toolsmith: server.json differs from what Cargo.toml gives: 3 differences; write it again: the same command with --out server.json in place of --check\n"
    );
    let o = registry(&dir, &["--check", "absent.json"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).starts_with("toolsmith: error: absent.json: cannot read: "));
}
