//! `toolsmith registry`: a crate's `server.json` for the MCP Registry.
//!
//! The entry is read from the crate's `Cargo.toml` (the package's name, version, description,
//! repository and homepage, inherited from the workspace where the manifest says so) and its
//! table `[package.metadata.toolsmith-registry]`; flags replace the table's values. It lists one
//! package of registry type `cargo` on crates.io, in the shape of the registry's schema of
//! 2025-12-11 (`tests/fixtures/specs/server-schema-2025-12-11.json`), and is refused where the
//! registry would refuse it: a name outside its grammar, a description over 100 characters, a URL
//! whose `{variables}` nothing defines, a crate that is not published on crates.io, or a README
//! that does not show `mcp-name: NAME` as crates.io renders it (the registry's proof that the
//! crate is the publisher's; crates.io strips HTML comments).
//!
//! The table is not `[package.metadata.toolsmith.registry]`: the `#[tool]` macro reads
//! `[package.metadata.toolsmith]` and refuses keys it does not know, so a crate with that table
//! would no longer compile.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use toolsmith_spec::canonical_json;

use crate::{emit, one_line, pin, CliError, Transport};

/// The `$schema` of every `server.json` this command writes.
pub const SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The registry type of a crate (the registry's `model.RegistryTypeCargo`).
pub const REGISTRY_TYPE: &str = "cargo";

/// The one registry base URL the official registry accepts for crates.
pub const CRATES_IO: &str = "https://crates.io";

/// The table of the crate's `Cargo.toml` this command reads: `[package.metadata.<TABLE>]`.
pub const TABLE: &str = "toolsmith-registry";

/// The keys of [`TABLE`]: those of `server.json` where one maps to one (`transport` and `url`
/// are the package's `transport.type` and `transport.url`; `subfolder` is the repository's).
pub const TABLE_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "websiteUrl",
    "transport",
    "url",
    "packageArguments",
    "environmentVariables",
    "subfolder",
];

/// The `_meta` key whose content the official registry keeps (it drops every other key).
pub const PUBLISHER_PROVIDED: &str = "io.modelcontextprotocol.registry/publisher-provided";

/// The key of the tools' lock inside [`PUBLISHER_PROVIDED`].
pub const LOCK_KEY: &str = "dev.toolsmith/tools-lock";

/// The most bytes of JSON the official registry keeps under [`PUBLISHER_PROVIDED`], measured as
/// Go's `encoding/json` writes it.
pub const PUBLISHER_PROVIDED_MAX: usize = 4096;

/// `maxLength` of `description` and `title` in the schema.
const TEXT_MAX: usize = 100;

/// `minLength` and `maxLength` of `name` in the schema.
const NAME_LEN: (usize, usize) = (3, 200);

/// `maxLength` of `version` in the schema.
const VERSION_MAX: usize = 255;

/// The keys of the schema's `Input`, which arguments and environment variables share.
const INPUT_KEYS: &[&str] = &[
    "description",
    "isRequired",
    "format",
    "value",
    "isSecret",
    "default",
    "placeholder",
    "choices",
    "variables",
];

/// The order in which an argument's or environment variable's keys are written (any other key,
/// none of which the table accepts, would follow).
const KEY_ORDER: &[&str] = &[
    "type",
    "name",
    "value",
    "valueHint",
    "description",
    "format",
    "isRequired",
    "isSecret",
    "isRepeated",
    "default",
    "placeholder",
    "choices",
    "variables",
];

/// The values of `Input.format`.
const FORMATS: &[&str] = &["string", "number", "boolean", "filepath"];

/// What `toolsmith registry` was asked to do (its command line).
#[derive(Debug, clap::Args)]
pub struct Options {
    /// The crate's Cargo.toml (or its directory).
    #[arg(long, value_name = "PATH", default_value = "Cargo.toml")]
    pub manifest: PathBuf,
    /// The server's name in the registry, reverse DNS: io.github.USER/NAME.
    #[arg(long)]
    pub name: Option<String>,
    /// How a client talks to the installed binary (default: stdio, or streamable-http when a
    /// URL is given).
    #[arg(long, value_enum)]
    pub transport: Option<Transport>,
    /// The endpoint of a streamable-HTTP server, e.g. http://127.0.0.1:8080/mcp ({NAME}
    /// stands for an argument's valueHint or an environment variable).
    #[arg(long)]
    pub url: Option<String>,
    /// An argument the client passes to the binary, as written (repeatable, in order; a flag
    /// too: --arg --stdio).
    #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// An environment variable the server reads, with an optional description:
    /// NAME or NAME:DESCRIPTION (repeatable).
    #[arg(long = "env", value_name = "NAME[:DESCRIPTION]")]
    pub env: Vec<String>,
    /// A secret the server needs from the environment (an API key, a token): NAME or
    /// NAME:DESCRIPTION, marked isSecret and isRequired (repeatable).
    #[arg(long = "secret-env", value_name = "NAME[:DESCRIPTION]")]
    pub secret_env: Vec<String>,
    /// A lockfile written by `toolsmith pin`: each tool's hash goes under `_meta`.
    #[arg(long, value_name = "LOCK", conflicts_with = "tools")]
    pub pin: Option<PathBuf>,
    /// A tool list (e.g. from `toolsmith fetch`), hashed as `toolsmith pin` would.
    #[arg(long, value_name = "LIST")]
    pub tools: Option<PathBuf>,
    /// Write server.json to FILE instead of standard output.
    #[arg(long, value_name = "FILE", conflicts_with = "check")]
    pub out: Option<PathBuf>,
    /// Compare FILE with what would be written; exit 1 and name each difference when they
    /// differ.
    #[arg(long, value_name = "FILE")]
    pub check: Option<PathBuf>,
}

/// `toolsmith registry`: builds the entry, checks the README, then prints it, writes it
/// (`--out`) or compares it with a file (`--check`, exit code 1 on a difference).
pub fn run(opts: &Options) -> Result<u8, CliError> {
    let manifest = Manifest::open(&opts.manifest)?;
    let server = build(&manifest, opts)?;
    check_readme(&manifest, &server.name)?;
    // What the entry leaves out, on standard error (as `convert` reports its losses).
    for note in &server.notes {
        eprintln!("toolsmith: registry: {note}");
    }
    if let Some(check) = &opts.check {
        return compare_file(check, &manifest.label, &server.json);
    }
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&server.json).expect("JSON values serialize")
    );
    if let Some(out) = &opts.out {
        std::fs::write(out, &text)
            .map_err(|e| CliError::input(format!("{}: cannot write: {e}", out.display())))?;
        emit(&format!(
            "toolsmith: wrote {} ({} {})\n",
            out.display(),
            server.name,
            server.version
        ))?;
    } else {
        emit(&text)?;
    }
    Ok(0)
}

// ---------------------------------------------------------------------------------------------
// The manifest
// ---------------------------------------------------------------------------------------------

/// A parsed `Cargo.toml`.
#[derive(Clone)]
struct Toml {
    /// The file as given, for messages.
    label: String,
    /// Its directory: paths in it are relative to this.
    dir: PathBuf,
    doc: toml::Table,
}

impl Toml {
    /// Reads and parses `path`; `hint` ends the message when the file cannot be read.
    fn read(path: &Path, hint: &str) -> Result<Toml, CliError> {
        let label = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::input(format!("{label}: cannot read: {e}{hint}")))?;
        let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let (line, column) = e
                .span()
                .map(|s| line_column(&text, s.start))
                .unwrap_or((1, 1));
            CliError::input(format!(
                "{label}:{line}:{column}: invalid TOML: {}",
                one_line(e.message().trim(), 200)
            ))
        })?;
        // Empty for a file named without a directory, so that paths beside it read as written.
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(Toml { label, dir, doc })
    }
}

/// The line and column (both from 1, the column in characters) of byte `offset` of `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

/// The crate's manifest, its `[package]`, and the workspace it inherits from (read when first
/// needed).
struct Manifest {
    toml: Toml,
    /// The manifest as given, for messages.
    label: String,
    workspace: std::cell::OnceCell<Toml>,
}

/// The value of a `[package]` key and the directory its paths are relative to (the workspace
/// root's for an inherited `readme`).
struct Field {
    value: toml::Value,
    dir: PathBuf,
}

impl Manifest {
    /// Reads the manifest at `path` (a `Cargo.toml`, or a directory holding one).
    fn open(path: &Path) -> Result<Manifest, CliError> {
        let path = if path.is_dir() {
            path.join("Cargo.toml")
        } else {
            path.to_path_buf()
        };
        let toml = Toml::read(
            &path,
            "; run `toolsmith registry` in the crate's directory or give --manifest PATH",
        )?;
        let label = toml.label.clone();
        let manifest = Manifest {
            toml,
            label,
            workspace: std::cell::OnceCell::new(),
        };
        if !manifest.toml.doc.contains_key("package") {
            return Err(CliError::input(format!(
                "{}: no [package]: give --manifest the Cargo.toml of the server's crate",
                manifest.label
            )));
        }
        Ok(manifest)
    }

    /// The `[package]` table.
    fn package(&self) -> Result<&toml::Table, CliError> {
        match self.toml.doc.get("package") {
            Some(toml::Value::Table(t)) => Ok(t),
            _ => Err(CliError::input(format!(
                "{}: `package` is not a table",
                self.label
            ))),
        }
    }

    /// The value of `[package].key`, read from the workspace's `[workspace.package]` when the
    /// manifest says `key.workspace = true`.
    fn field(&self, key: &str) -> Result<Option<Field>, CliError> {
        let Some(value) = self.package()?.get(key) else {
            return Ok(None);
        };
        let inherits = match value {
            toml::Value::Table(t) => match t.get("workspace") {
                Some(toml::Value::Boolean(true)) => true,
                _ => {
                    return Err(CliError::input(format!(
                        "{}: `package.{key}` is a table, but not `{{ workspace = true }}`",
                        self.label
                    )))
                }
            },
            _ => false,
        };
        if !inherits {
            return Ok(Some(Field {
                value: value.clone(),
                dir: self.toml.dir.clone(),
            }));
        }
        let ws = self.workspace(key)?;
        match ws
            .doc
            .get("workspace")
            .and_then(|w| w.get("package"))
            .and_then(|p| p.get(key))
        {
            Some(value) => Ok(Some(Field {
                value: value.clone(),
                dir: ws.dir.clone(),
            })),
            None => Err(CliError::input(format!(
                "{}: `{key}.workspace = true`, but {} has no `{key}` in [workspace.package]",
                self.label, ws.label
            ))),
        }
    }

    /// A string `[package].key`, or `None` when the manifest has no such key.
    fn string(&self, key: &str) -> Result<Option<String>, CliError> {
        match self.field(key)? {
            None => Ok(None),
            Some(Field {
                value: toml::Value::String(s),
                ..
            }) => Ok(Some(s)),
            Some(Field { value, .. }) => Err(CliError::input(format!(
                "{}: `package.{key}` is {}, not a string",
                self.label,
                a_type(&value)
            ))),
        }
    }

    /// The workspace root the manifest inherits from: `package.workspace` when set, the manifest
    /// itself when it holds `[workspace]`, else the nearest `Cargo.toml` with `[workspace]` above
    /// it (as cargo finds it).
    fn workspace(&self, key: &str) -> Result<&Toml, CliError> {
        if let Some(ws) = self.workspace.get() {
            return Ok(ws);
        }
        let found = self.find_workspace(key)?;
        Ok(self.workspace.get_or_init(|| found))
    }

    fn find_workspace(&self, key: &str) -> Result<Toml, CliError> {
        let hint = "";
        if let Some(toml::Value::String(root)) = self.package()?.get("workspace") {
            let ws = Toml::read(&self.toml.dir.join(root).join("Cargo.toml"), hint)?;
            if !ws.doc.contains_key("workspace") {
                return Err(CliError::input(format!(
                    "{}: `package.workspace` points to {}, which has no [workspace]",
                    self.label, ws.label
                )));
            }
            return Ok(ws);
        }
        if self.toml.doc.contains_key("workspace") {
            return Ok(self.toml.clone());
        }
        let here = if self.toml.dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            self.toml.dir.as_path()
        };
        let dir = std::fs::canonicalize(here)
            .map_err(|e| CliError::input(format!("{}: cannot read: {e}", here.display())))?;
        for above in dir.ancestors().skip(1) {
            let candidate = above.join("Cargo.toml");
            if candidate.is_file() {
                let ws = Toml::read(&candidate, hint)?;
                if ws.doc.contains_key("workspace") {
                    return Ok(ws);
                }
            }
        }
        Err(CliError::input(format!(
            "{}: `{key}.workspace = true`, but no Cargo.toml with [workspace] is above {}",
            self.label,
            dir.display()
        )))
    }

    /// `[package.metadata.toolsmith-registry]`, empty when the manifest has none; refused when
    /// it holds a key outside [`TABLE_KEYS`], or when the manifest puts the table under
    /// `[package.metadata.toolsmith]`.
    fn table(&self) -> Result<toml::Table, CliError> {
        let metadata = self.package()?.get("metadata");
        if metadata
            .and_then(|m| m.get("toolsmith"))
            .and_then(|t| t.get("registry"))
            .is_some()
        {
            return Err(CliError::input(format!(
                "{}: [package.metadata.toolsmith.registry] would stop the crate from compiling (the #[tool] macro reads [package.metadata.toolsmith] and refuses keys it does not know): name the table [package.metadata.{TABLE}]",
                self.label
            )));
        }
        let table = match metadata.and_then(|m| m.get(TABLE)) {
            None => return Ok(toml::Table::new()),
            Some(toml::Value::Table(t)) => t.clone(),
            Some(other) => {
                return Err(CliError::input(format!(
                    "{}: package.metadata.{TABLE} is {}, not a table",
                    self.label,
                    a_type(other)
                )))
            }
        };
        if let Some(key) = table.keys().find(|k| !TABLE_KEYS.contains(&k.as_str())) {
            return Err(CliError::input(format!(
                "{}: unknown key `{}` in [package.metadata.{TABLE}]; valid keys: {}",
                self.label,
                one_line(key, 80),
                TABLE_KEYS.join(", ")
            )));
        }
        Ok(table)
    }
}

/// "a string", "an integer", ... for a message.
fn a_type(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

// ---------------------------------------------------------------------------------------------
// The entry
// ---------------------------------------------------------------------------------------------

/// The entry and the facts the command reports.
struct Server {
    /// The server's name.
    name: String,
    /// The crate's version.
    version: String,
    /// `server.json`.
    json: Value,
    /// What the entry leaves out of the manifest, and why.
    notes: Vec<String>,
}

/// Where a value came from, for a message that says what to change.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Flag,
    Table,
    Package,
}

/// The string `key` of the table, if set.
fn table_string(
    manifest: &Manifest,
    table: &toml::Table,
    key: &str,
) -> Result<Option<String>, CliError> {
    match table.get(key) {
        None => Ok(None),
        Some(toml::Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(CliError::input(format!(
            "{}: `{key}` in [package.metadata.{TABLE}] is {}, not a string",
            manifest.label,
            a_type(other)
        ))),
    }
}

/// Builds `server.json` from the manifest and the flags, refusing (exit code 2) a value the
/// registry would refuse.
fn build(manifest: &Manifest, opts: &Options) -> Result<Server, CliError> {
    let label = &manifest.label;
    let table = manifest.table()?;
    let in_table = format!("[package.metadata.{TABLE}]");
    let mut notes = Vec::new();

    let crate_name = manifest
        .string("name")?
        .ok_or_else(|| CliError::input(format!("{label}: the package has no `name`")))?;
    let version = manifest
        .string("version")?
        .ok_or_else(|| CliError::input(format!("{label}: the package has no `version`; crates.io needs one, and server.json names the version to install")))?;
    if version.chars().count() > VERSION_MAX {
        return Err(CliError::input(format!(
            "{label}: the version is longer than the {VERSION_MAX} characters server.json takes"
        )));
    }
    check_published(manifest)?;

    // The server's name.
    let (name, from) = match (&opts.name, table_string(manifest, &table, "name")?) {
        (Some(n), _) => (n.clone(), Origin::Flag),
        (None, Some(n)) => (n, Origin::Table),
        (None, None) => {
            return Err(CliError::input(format!(
            "{label}: no server name: give --name io.github.USER/NAME, or set `name` in {in_table}"
        )))
        }
    };
    if let Err(why) = check_name(&name) {
        let place = match from {
            Origin::Flag => "--name".to_string(),
            _ => format!("`name` in {in_table}"),
        };
        return Err(CliError::input(format!(
            "{label}: the server name `{}` ({place}) {why}; the registry takes reverse-DNS names such as io.github.alice/weather",
            one_line(&name, 200)
        )));
    }

    // Description and title.
    let (description, from) = match table_string(manifest, &table, "description")? {
        Some(d) => (d, Origin::Table),
        None => match manifest.string("description")? {
            Some(d) => (d, Origin::Package),
            None => {
                return Err(CliError::input(format!(
                "{label}: no description: set `description` in [package] or in {in_table} (at most {TEXT_MAX} characters)"
            )))
            }
        },
    };
    let fix = match from {
        Origin::Package => format!("set a shorter one as `description` in {in_table} (the crate's own description can stay as it is)"),
        _ => format!("shorten `description` in {in_table}"),
    };
    check_text(label, "description", &description, &fix)?;
    let title = table_string(manifest, &table, "title")?;
    if let Some(t) = &title {
        check_text(label, "title", t, &format!("shorten `title` in {in_table}"))?;
    }

    // The website.
    let website = match table_string(manifest, &table, "websiteUrl")? {
        Some(url) => {
            if !is_https_url(&url) {
                return Err(CliError::input(format!(
                    "{label}: `websiteUrl` in {in_table} is `{}`; the registry takes only an https:// address",
                    one_line(&url, 200)
                )));
            }
            Some(url)
        }
        None => match manifest.string("homepage")? {
            Some(url) if is_https_url(&url) => Some(url),
            Some(url) => {
                notes.push(format!(
                    "the homepage `{}` is no https:// address, which is all the registry takes as websiteUrl: server.json leaves it out",
                    one_line(&url, 200)
                ));
                None
            }
            None => None,
        },
    };

    // The repository.
    let subfolder = table_string(manifest, &table, "subfolder")?;
    let repository = match manifest.string("repository")? {
        Some(url) => match repository_of(&url) {
            Some((url, source)) => {
                let mut repo = json!({"url": url, "source": source});
                if let Some(sub) = &subfolder {
                    if !is_subfolder(sub) {
                        return Err(CliError::input(format!(
                            "{label}: `subfolder` in {in_table} is `{}`; it must be a relative path of letters, digits, `-`, `_` and `.`, without `.` or `..` parts, and not start or end with `/`",
                            one_line(sub, 200)
                        )));
                    }
                    repo["subfolder"] = json!(sub);
                }
                Some(repo)
            }
            None => {
                notes.push(format!(
                    "the repository `{}` is not a GitHub (https://github.com/OWNER/REPO) or GitLab repository, the ones the registry accepts: server.json leaves it out",
                    one_line(&url, 200)
                ));
                None
            }
        },
        None => None,
    };
    if repository.is_none() && subfolder.is_some() {
        return Err(CliError::input(format!(
            "{label}: `subfolder` in {in_table} needs the package's `repository` on GitHub or GitLab"
        )));
    }

    // Arguments and environment variables: the flags', else the table's.
    let arguments = if opts.args.is_empty() {
        table_arguments(manifest, &table)?
    } else {
        opts.args
            .iter()
            .map(|a| {
                if a.is_empty() {
                    Err(CliError::input("--arg takes a non-empty argument"))
                } else {
                    Ok(json!({"type": "positional", "value": a}))
                }
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let env = if opts.env.is_empty() && opts.secret_env.is_empty() {
        table_env(manifest, &table)?
    } else {
        let mut out = Vec::new();
        for (spec, secret) in opts
            .env
            .iter()
            .map(|s| (s, false))
            .chain(opts.secret_env.iter().map(|s| (s, true)))
        {
            out.push(env_flag(spec, secret)?);
        }
        out
    };
    let mut seen = HashSet::new();
    for e in &env {
        let n = e["name"].as_str().unwrap_or_default();
        if !seen.insert(n.to_string()) {
            return Err(CliError::input(format!(
                "{label}: the environment variable `{n}` is listed twice"
            )));
        }
    }

    // The transport.
    let transport = transport_of(manifest, &table, opts, &arguments, &env)?;

    let mut package = Map::new();
    package.insert("registryType".into(), json!(REGISTRY_TYPE));
    package.insert("registryBaseUrl".into(), json!(CRATES_IO));
    package.insert("identifier".into(), json!(crate_name));
    package.insert("version".into(), json!(version));
    package.insert("transport".into(), transport);
    if !arguments.is_empty() {
        package.insert("packageArguments".into(), Value::Array(arguments));
    }
    if !env.is_empty() {
        package.insert("environmentVariables".into(), Value::Array(env));
    }

    let mut server = Map::new();
    server.insert("$schema".into(), json!(SCHEMA));
    server.insert("name".into(), json!(name));
    if let Some(t) = title {
        server.insert("title".into(), json!(t));
    }
    server.insert("description".into(), json!(description));
    server.insert("version".into(), json!(version));
    if let Some(w) = website {
        server.insert("websiteUrl".into(), json!(w));
    }
    if let Some(r) = repository {
        server.insert("repository".into(), r);
    }
    server.insert("packages".into(), json!([Value::Object(package)]));
    if let Some(lock) = lock_meta(opts, &mut notes)? {
        server.insert(
            "_meta".into(),
            json!({ PUBLISHER_PROVIDED: { LOCK_KEY: lock } }),
        );
    }
    Ok(Server {
        name,
        version,
        json: Value::Object(server),
        notes,
    })
}

/// Refuses a crate that cannot be on crates.io (`publish = false`, or a list of registries
/// without crates.io), where the registry looks for it.
fn check_published(manifest: &Manifest) -> Result<(), CliError> {
    let refused = match manifest.field("publish")? {
        None => false,
        Some(Field {
            value: toml::Value::Boolean(b),
            ..
        }) => !b,
        Some(Field {
            value: toml::Value::Array(registries),
            ..
        }) => !registries.iter().any(|r| r.as_str() == Some("crates-io")),
        Some(Field { value, .. }) => {
            return Err(CliError::input(format!(
                "{}: `package.publish` is {}, not a boolean or a list of registries",
                manifest.label,
                a_type(&value)
            )))
        }
    };
    if refused {
        return Err(CliError::input(format!(
            "{}: the package's `publish` keeps it off crates.io, where the registry looks for a cargo package: allow crates.io there and publish the crate",
            manifest.label
        )));
    }
    Ok(())
}

/// Why `name` is not a server name the registry takes, or `Ok`. The schema's pattern is
/// `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$` (3 to 200 characters); the registry's own check adds that
/// each part starts and ends with a letter or digit.
fn check_name(name: &str) -> Result<(), String> {
    let len = name.chars().count();
    if len < NAME_LEN.0 || len > NAME_LEN.1 {
        return Err(format!(
            "is {len} characters long; a server name has {} to {}",
            NAME_LEN.0, NAME_LEN.1
        ));
    }
    let Some((namespace, server)) = name.split_once('/') else {
        return Err("has no `/` between the namespace and the name".into());
    };
    if server.contains('/') {
        return Err("has more than one `/`".into());
    }
    let part = |what: &str, text: &str, extra: &[char]| -> Result<(), String> {
        if text.is_empty() {
            return Err(format!("has an empty {what}"));
        }
        if let Some(c) = text
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || extra.contains(c)))
        {
            let allowed = if extra.contains(&'_') {
                "letters, digits, `.`, `_` and `-`"
            } else {
                "letters, digits, `.` and `-`"
            };
            return Err(format!(
                "has `{}` in its {what}, which takes only {allowed}",
                one_line(&c.to_string(), 4)
            ));
        }
        let ends_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
        if !ends_ok(text.chars().next()) || !ends_ok(text.chars().last()) {
            return Err(format!(
                "has a {what} (`{text}`) that does not start and end with a letter or digit"
            ));
        }
        Ok(())
    };
    part("namespace", namespace, &['.', '-'])?;
    part("name part", server, &['.', '-', '_'])?;
    Ok(())
}

/// Refuses an empty description or title, or one longer than the schema's 100 characters (its
/// `maxLength`, counted in characters); `fix` says what to change.
fn check_text(label: &str, what: &str, text: &str, fix: &str) -> Result<(), CliError> {
    if text.trim().is_empty() {
        return Err(CliError::input(format!("{label}: the {what} is empty")));
    }
    let n = text.chars().count();
    if n > TEXT_MAX {
        return Err(CliError::input(format!(
            "{label}: the {what} is {n} characters; server.json takes at most {TEXT_MAX}: {fix}"
        )));
    }
    Ok(())
}

/// Whether `url` is an absolute `https://` URL with a host and no white space.
fn is_https_url(url: &str) -> bool {
    url.strip_prefix("https://").is_some_and(|rest| {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        !host.is_empty() && !url.chars().any(|c| c.is_whitespace() || c.is_control())
    })
}

/// The repository of a `repository` URL as the registry takes it: `(url, source)` for a GitHub
/// repository (`https://github.com/OWNER/REPO`) or a GitLab project (groups allowed), without a
/// trailing `/` or `.git`; `None` for any other address.
fn repository_of(url: &str) -> Option<(String, &'static str)> {
    let trimmed = url.trim_end_matches('/');
    let trimmed = trimmed.strip_suffix(".git").unwrap_or(trimmed);
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))?;
    let (host, path) = rest.split_once('/')?;
    let segments: Vec<&str> = path.split('/').collect();
    // Go's `[\w.-]+`: ASCII letters, digits, `_`, `.` and `-`.
    let word = |s: &&str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
    };
    if !segments.iter().all(word) {
        return None;
    }
    let source = match host {
        "github.com" | "www.github.com" if segments.len() == 2 => "github",
        "gitlab.com" | "www.gitlab.com" if segments.len() >= 2 => "gitlab",
        _ => return None,
    };
    Some((trimmed.to_string(), source))
}

/// Whether `path` is a subfolder the registry takes: relative, clean, of `[a-zA-Z0-9-_./]`.
fn is_subfolder(path: &str) -> bool {
    !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

/// Whether `name` is an environment variable name this command writes: a letter or `_`, then
/// letters, digits and `_`.
fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The entry of `--env NAME[:DESCRIPTION]` (or `--secret-env`, marked secret and required).
fn env_flag(spec: &str, secret: bool) -> Result<Value, CliError> {
    let flag = if secret { "--secret-env" } else { "--env" };
    let (name, description) = match spec.split_once(':') {
        Some((n, d)) => (n, Some(d.trim())),
        None => (spec, None),
    };
    if !is_env_name(name) {
        return Err(CliError::input(format!(
            "{flag} `{}`: an environment variable's name has letters, digits and `_` only (NAME, or NAME:DESCRIPTION to describe it)",
            one_line(spec, 80)
        )));
    }
    let mut e = Map::new();
    e.insert("name".into(), json!(name));
    match description {
        Some("") => {
            return Err(CliError::input(format!(
                "{flag} `{}`: the description after `:` is empty",
                one_line(spec, 80)
            )))
        }
        Some(d) => {
            e.insert("description".into(), json!(d));
        }
        None => {}
    }
    if secret {
        e.insert("isRequired".into(), json!(true));
        e.insert("isSecret".into(), json!(true));
    }
    Ok(Value::Object(e))
}

/// An entry of the table's `packageArguments` or `environmentVariables` (or a value of an
/// entry's `variables`), read into JSON of the schema's shape; `at` names it in messages
/// (`packageArguments[1]`).
struct Entry<'a> {
    manifest: &'a Manifest,
    at: String,
}

impl Entry<'_> {
    fn error(&self, what: impl std::fmt::Display) -> CliError {
        CliError::input(format!(
            "{}: {} in [package.metadata.{TABLE}]: {what}",
            self.manifest.label, self.at
        ))
    }

    /// The table `t` as a JSON object of the keys `keys` (others refused), each of the type the
    /// schema gives it.
    fn object(&self, t: &toml::Table, keys: &[&str]) -> Result<Map<String, Value>, CliError> {
        let mut out = Map::new();
        for (k, v) in t {
            if !keys.contains(&k.as_str()) {
                return Err(self.error(format!(
                    "unknown key `{}`; valid keys: {}",
                    one_line(k, 80),
                    keys.join(", ")
                )));
            }
            let json = match (k.as_str(), v) {
                ("isRequired" | "isSecret" | "isRepeated", toml::Value::Boolean(b)) => json!(b),
                ("isRequired" | "isSecret" | "isRepeated", other) => {
                    return Err(self.error(format!("`{k}` is {}, not a boolean", a_type(other))))
                }
                ("choices", toml::Value::Array(items)) => {
                    let mut choices = Vec::new();
                    for item in items {
                        match item {
                            toml::Value::String(s) => choices.push(json!(s)),
                            other => {
                                return Err(self.error(format!(
                                    "`choices` holds {}; it takes strings",
                                    a_type(other)
                                )))
                            }
                        }
                    }
                    Value::Array(choices)
                }
                ("variables", toml::Value::Table(vars)) => {
                    let mut out = Map::new();
                    for (var, input) in vars {
                        let inner = Entry {
                            manifest: self.manifest,
                            at: format!("{}.variables.{var}", self.at),
                        };
                        let toml::Value::Table(input) = input else {
                            return Err(inner.error(format!("is {}, not a table", a_type(input))));
                        };
                        let keys: Vec<&str> = INPUT_KEYS
                            .iter()
                            .copied()
                            .filter(|k| *k != "variables")
                            .collect();
                        out.insert(var.clone(), Value::Object(inner.object(input, &keys)?));
                    }
                    Value::Object(out)
                }
                ("choices", other) => {
                    return Err(self.error(format!(
                        "`choices` is {}, not an array of strings",
                        a_type(other)
                    )))
                }
                ("variables", other) => {
                    return Err(self.error(format!("`variables` is {}, not a table", a_type(other))))
                }
                (_, toml::Value::String(s)) if s.is_empty() => {
                    return Err(self.error(format!("`{k}` is empty")))
                }
                ("format", toml::Value::String(s)) if !FORMATS.contains(&s.as_str()) => {
                    return Err(self.error(format!(
                        "`format` is `{}`; it is one of {}",
                        one_line(s, 40),
                        FORMATS.join(", ")
                    )))
                }
                (_, toml::Value::String(s)) => json!(s),
                (_, other) => {
                    return Err(self.error(format!("`{k}` is {}, not a string", a_type(other))))
                }
            };
            out.insert(k.clone(), json);
        }
        let at = |k: &str| {
            KEY_ORDER
                .iter()
                .position(|o| *o == k)
                .unwrap_or(KEY_ORDER.len())
        };
        let mut entries: Vec<(String, Value)> = out.into_iter().collect();
        entries.sort_by_key(|(k, _)| at(k));
        Ok(entries.into_iter().collect())
    }
}

/// The table's `packageArguments`: each a string (an argument passed as written) or a table in
/// the schema's `Argument` shape (`type = "positional"` with `value` or `valueHint`, or
/// `type = "named"` with `name`).
fn table_arguments(manifest: &Manifest, table: &toml::Table) -> Result<Vec<Value>, CliError> {
    let items = match table.get("packageArguments") {
        None => return Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items,
        Some(other) => {
            return Err(CliError::input(format!(
                "{}: `packageArguments` in [package.metadata.{TABLE}] is {}, not an array",
                manifest.label,
                a_type(other)
            )))
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let entry = Entry {
            manifest,
            at: format!("packageArguments[{i}]"),
        };
        let arg = match item {
            toml::Value::String(s) if s.is_empty() => return Err(entry.error("is empty")),
            toml::Value::String(s) => json!({"type": "positional", "value": s}),
            toml::Value::Table(t) => {
                let kind = match t.get("type") {
                    Some(toml::Value::String(k)) => k.as_str(),
                    _ => {
                        return Err(entry.error(
                            "needs `type`: \"positional\" (with `value` or `valueHint`) or \"named\" (with `name`)",
                        ))
                    }
                };
                let mut keys: Vec<&str> = INPUT_KEYS.to_vec();
                keys.extend(["type", "isRepeated"]);
                match kind {
                    "positional" => keys.push("valueHint"),
                    "named" => keys.push("name"),
                    other => {
                        return Err(entry.error(format!(
                            "`type` is `{}`; it is \"positional\" or \"named\"",
                            one_line(other, 40)
                        )))
                    }
                }
                let obj = entry.object(t, &keys)?;
                if kind == "positional"
                    && !obj.contains_key("value")
                    && !obj.contains_key("valueHint")
                {
                    return Err(entry.error(
                        "a positional argument needs `value` (passed as written) or `valueHint` (asked of the user)",
                    ));
                }
                if kind == "named" {
                    let Some(name) = obj.get("name").and_then(Value::as_str) else {
                        return Err(entry.error("a named argument needs `name`, e.g. \"--port\""));
                    };
                    if name.contains(['<', '>', ' ', '$']) {
                        return Err(entry.error(format!(
                            "`name` is `{}`; it is the flag alone (e.g. \"--port\"), without `<`, `>`, `$` or spaces",
                            one_line(name, 80)
                        )));
                    }
                    for field in ["value", "default"] {
                        if obj
                            .get(field)
                            .and_then(Value::as_str)
                            .is_some_and(|v| v.starts_with(name))
                        {
                            return Err(entry.error(format!(
                                "`{field}` starts with the flag `{name}`; give the value alone"
                            )));
                        }
                    }
                }
                Value::Object(obj)
            }
            other => {
                return Err(entry.error(format!("is {}, not a string or a table", a_type(other))))
            }
        };
        out.push(arg);
    }
    Ok(out)
}

/// The table's `environmentVariables`: each a name, or a table in the schema's `KeyValueInput`
/// shape (`name`, `description`, `isRequired`, `isSecret`, `default`, ...).
fn table_env(manifest: &Manifest, table: &toml::Table) -> Result<Vec<Value>, CliError> {
    let items = match table.get("environmentVariables") {
        None => return Ok(Vec::new()),
        Some(toml::Value::Array(items)) => items,
        Some(other) => {
            return Err(CliError::input(format!(
                "{}: `environmentVariables` in [package.metadata.{TABLE}] is {}, not an array",
                manifest.label,
                a_type(other)
            )))
        }
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let entry = Entry {
            manifest,
            at: format!("environmentVariables[{i}]"),
        };
        let obj = match item {
            toml::Value::String(s) => {
                let mut m = Map::new();
                m.insert("name".into(), json!(s));
                m
            }
            toml::Value::Table(t) => {
                let mut keys: Vec<&str> = INPUT_KEYS.to_vec();
                keys.push("name");
                entry.object(t, &keys)?
            }
            other => {
                return Err(entry.error(format!("is {}, not a string or a table", a_type(other))))
            }
        };
        match obj.get("name").and_then(Value::as_str) {
            Some(name) if is_env_name(name) => {}
            Some(name) => {
                return Err(entry.error(format!(
                    "`{}` is no environment variable name (letters, digits and `_`)",
                    one_line(name, 80)
                )))
            }
            None => return Err(entry.error("needs `name`")),
        }
        out.push(Value::Object(obj));
    }
    Ok(out)
}

/// The package's `transport`: `--transport`, else the table's `transport`, else
/// `streamable-http` when a URL is given and `stdio` otherwise. A streamable-HTTP server needs a
/// URL whose `{variables}` name an argument's `valueHint` or `name` or an environment variable;
/// a stdio server has none.
fn transport_of(
    manifest: &Manifest,
    table: &toml::Table,
    opts: &Options,
    arguments: &[Value],
    env: &[Value],
) -> Result<Value, CliError> {
    let label = &manifest.label;
    let in_table = format!("[package.metadata.{TABLE}]");
    let (url, url_from) = match (&opts.url, table_string(manifest, table, "url")?) {
        (Some(u), _) => (Some(u.clone()), "--url".to_string()),
        (None, Some(u)) => (Some(u), format!("`url` in {in_table}")),
        (None, None) => (None, String::new()),
    };
    let (kind, kind_from) = match (opts.transport, table_string(manifest, table, "transport")?) {
        (Some(t), _) => (t, "--transport".to_string()),
        (None, Some(t)) => match t.as_str() {
            "stdio" => (Transport::Stdio, format!("`transport` in {in_table}")),
            "streamable-http" => (Transport::StreamableHttp, format!("`transport` in {in_table}")),
            other => {
                return Err(CliError::input(format!(
                    "{label}: `transport` in {in_table} is `{}`; it is \"stdio\" or \"streamable-http\"",
                    one_line(other, 40)
                )))
            }
        },
        (None, None) if url.is_some() => (Transport::StreamableHttp, url_from.clone()),
        (None, None) => (Transport::Stdio, String::new()),
    };
    match (kind, url) {
        (Transport::Stdio, None) => Ok(json!({"type": "stdio"})),
        (Transport::Stdio, Some(_)) => Err(CliError::input(format!(
            "{label}: the transport is stdio ({kind_from}), which has no URL, but {url_from} gives one; drop the URL or choose streamable-http"
        ))),
        (Transport::StreamableHttp, None) => Err(CliError::input(format!(
            "{label}: a streamable-http server needs the URL a client connects to: give --url, e.g. http://127.0.0.1:8080/mcp, or set `url` in {in_table}"
        ))),
        (Transport::StreamableHttp, Some(url)) => {
            check_url(&url, arguments, env).map_err(|why| {
                CliError::input(format!(
                    "{label}: the URL `{}` ({url_from}) {why}",
                    one_line(&url, 200)
                ))
            })?;
            Ok(json!({"type": "streamable-http", "url": url}))
        }
    }
}

/// Why a package's streamable-HTTP URL is refused, or `Ok`: it must be `http://` or `https://`
/// with a host and no white space, and each `{variable}` in it must be defined by an argument
/// (`valueHint` or `name`) or an environment variable, as the registry checks.
fn check_url(url: &str, arguments: &[Value], env: &[Value]) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or("is not an http:// or https:// address")?;
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("holds white space".into());
    }
    if rest.split(['/', '?', '#']).next().unwrap_or("").is_empty() {
        return Err("has no host".into());
    }
    let mut defined: Vec<&str> = Vec::new();
    for a in arguments {
        for k in ["valueHint", "name"] {
            if let Some(v) = a.get(k).and_then(Value::as_str) {
                defined.push(v);
            }
        }
    }
    defined.extend(
        env.iter()
            .filter_map(|e| e.get("name").and_then(Value::as_str)),
    );
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err("has a `{` without its `}`".into());
        };
        let var = &after[..close];
        if !defined.contains(&var) {
            return Err(format!(
                "names `{{{var}}}`, which no argument's valueHint or name and no environment variable defines ({})",
                if defined.is_empty() {
                    "none are defined".to_string()
                } else {
                    format!("defined: {}", defined.join(", "))
                }
            ));
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The tools' lock under `_meta`
// ---------------------------------------------------------------------------------------------

/// The lock of `--pin` or `--tools`, as `_meta` carries it: `toolsmithLock` (the lock format's
/// version), `count`, `sha256` (of the canonical JSON of `tools`) and `tools` (each tool's name
/// and the SHA-256 of its whole definition, as `toolsmith pin` writes them). When that takes more
/// of `_meta` than the registry keeps, `tools` is left out (with a note): the digest still lets a
/// client compare the list it installs.
fn lock_meta(opts: &Options, notes: &mut Vec<String>) -> Result<Option<Value>, CliError> {
    let (version, entries, label) = match (&opts.pin, &opts.tools) {
        (Some(lock), _) => {
            let (version, entries) = pin::read_lock(lock)?;
            (version, entries, lock.display().to_string())
        }
        (None, Some(list)) => (2, pin::lock_entries(list)?, list.display().to_string()),
        (None, None) => return Ok(None),
    };
    let mut tools = Map::new();
    for (i, e) in entries.iter().enumerate() {
        let name = e.get("name").and_then(Value::as_str);
        let hash = e.get("sha256").and_then(Value::as_str);
        match (name, hash) {
            (Some(n), Some(h))
                if h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) =>
            {
                tools.insert(n.to_string(), json!(h));
            }
            _ => {
                return Err(CliError::input(format!(
                    "{label}: tools[{i}] has no name or no sha256 of 64 hex digits; write the lock again with `toolsmith pin`"
                )))
            }
        }
    }
    let count = tools.len();
    let tools = Value::Object(tools);
    let digest = pin::sha256(&canonical_json(&tools));
    let full = json!({
        "toolsmithLock": version,
        "count": count,
        "sha256": digest,
        "tools": tools,
    });
    let size = go_json_len(&json!({ LOCK_KEY: &full }));
    if size <= PUBLISHER_PROVIDED_MAX {
        return Ok(Some(full));
    }
    notes.push(format!(
        "the hashes of {count} tools take {size} bytes of _meta, and the registry keeps at most {PUBLISHER_PROVIDED_MAX}: server.json carries the lock's sha256 and count alone"
    ));
    Ok(Some(json!({
        "toolsmithLock": version,
        "count": count,
        "sha256": digest,
    })))
}

/// The length of `v` as Go's `encoding/json` writes it (compact), which is how the registry
/// measures `_meta`: serde_json's compact length, plus what Go writes longer (`<`, `>`, `&` as
/// `\u003c`...; U+2028 and U+2029 escaped; `\b` and `\f` as `\u0008` and `\u000c`).
fn go_json_len(v: &Value) -> usize {
    fn extra(s: &str) -> usize {
        s.chars()
            .map(|c| match c {
                '<' | '>' | '&' => 5,
                '\u{2028}' | '\u{2029}' => 3,
                '\u{8}' | '\u{c}' => 4,
                _ => 0,
            })
            .sum()
    }
    fn walk(v: &Value) -> usize {
        match v {
            Value::String(s) => extra(s),
            Value::Array(items) => items.iter().map(walk).sum(),
            Value::Object(m) => m.iter().map(|(k, v)| extra(k) + walk(v)).sum(),
            _ => 0,
        }
    }
    serde_json::to_string(v).map_or(0, |s| s.len()) + walk(v)
}

// ---------------------------------------------------------------------------------------------
// The README
// ---------------------------------------------------------------------------------------------

/// An `mcp-name:` in the README.
#[derive(Debug, PartialEq, Eq)]
struct Mention {
    /// The line, from 1.
    line: usize,
    /// The name after it: the run of characters a server name may hold.
    name: String,
    /// Whether exactly one space separates `mcp-name:` from the name, as the registry reads it.
    spaced: bool,
    /// Whether it is inside an HTML comment, which crates.io does not show.
    hidden: bool,
}

/// Whether `c` may be part of a server name (the registry's boundary test).
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '/')
}

/// Every `mcp-name:` in a Markdown text, and whether crates.io shows it: text inside HTML
/// comments is stripped from the README it renders, except inside fenced code blocks, where a
/// comment is shown as written.
fn mentions(text: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    let mut in_comment = false;
    let mut fence: Option<(char, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let mut scan = |segment: &str, hidden: bool| {
            let mut from = 0;
            while let Some(at) = segment[from..].find("mcp-name:") {
                let after = &segment[from + at + "mcp-name:".len()..];
                let name_at = after.trim_start_matches([' ', '\t']);
                let gap = &after[..after.len() - name_at.len()];
                out.push(Mention {
                    line: number,
                    name: name_at.chars().take_while(|&c| is_name_char(c)).collect(),
                    spaced: gap == " ",
                    hidden,
                });
                from += at + "mcp-name:".len();
            }
        };
        if !in_comment {
            if let Some((ch, len)) = fence {
                scan(line, false);
                if fence_marker(line)
                    .is_some_and(|(c, n, rest)| c == ch && n >= len && rest.trim().is_empty())
                {
                    fence = None;
                }
                continue;
            }
            if let Some((ch, len, _)) = fence_marker(line) {
                fence = Some((ch, len));
                scan(line, false);
                continue;
            }
        }
        let mut rest = line;
        loop {
            if in_comment {
                match rest.find("-->") {
                    Some(end) => {
                        scan(&rest[..end], true);
                        rest = &rest[end + 3..];
                        in_comment = false;
                    }
                    None => {
                        scan(rest, true);
                        break;
                    }
                }
            } else {
                match rest.find("<!--") {
                    Some(start) => {
                        scan(&rest[..start], false);
                        rest = &rest[start + 4..];
                        in_comment = true;
                    }
                    None => {
                        scan(rest, false);
                        break;
                    }
                }
            }
        }
    }
    out
}

/// The fence of a line that opens or closes a fenced code block (up to three spaces, then three
/// or more backticks or tildes): its character, its length and the rest of the line.
fn fence_marker(line: &str) -> Option<(char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let body = &line[indent..];
    let ch = body.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = body.len() - body.trim_start_matches(ch).len();
    (len >= 3).then(|| (ch, len, &body[len..]))
}

/// The README crates.io shows for the crate: the manifest's `readme` (relative to the manifest,
/// or to the workspace root when inherited), else the first of README.md, README.txt and README
/// beside the manifest, as cargo picks it. `Ok(None)` when the crate has none.
fn readme_path(manifest: &Manifest) -> Result<Option<PathBuf>, CliError> {
    match manifest.field("readme")? {
        Some(Field {
            value: toml::Value::String(p),
            dir,
        }) => Ok(Some(dir.join(p))),
        Some(Field {
            value: toml::Value::Boolean(true),
            dir,
        }) => Ok(Some(dir.join("README.md"))),
        Some(Field {
            value: toml::Value::Boolean(false),
            ..
        }) => Ok(None),
        Some(Field { value, .. }) => Err(CliError::input(format!(
            "{}: `package.readme` is {}, not a path or a boolean",
            manifest.label,
            a_type(&value)
        ))),
        None => Ok(["README.md", "README.txt", "README"]
            .iter()
            .map(|f| manifest.toml.dir.join(f))
            .find(|p| p.is_file())),
    }
}

/// Checks that the README shows `mcp-name: NAME` as crates.io renders it, as the registry
/// requires of a cargo package: exit code 1 when it is missing, only inside an HTML comment, or
/// names another server; 2 when the README cannot be read.
fn check_readme(manifest: &Manifest, name: &str) -> Result<(), CliError> {
    let wanted = format!("mcp-name: {name}");
    let Some(path) = readme_path(manifest)? else {
        return Err(CliError::failed(format!(
            "{}: the crate has no README, and the registry proves that a crate is yours by finding `{wanted}` in the README crates.io shows: add a README.md with that line",
            manifest.label
        )));
    };
    let label = path.display().to_string();
    let text = std::fs::read_to_string(&path)
        .map_err(|e| CliError::input(format!("{label}: cannot read: {e}")))?;
    let all = mentions(&text);
    if all.iter().any(|m| !m.hidden && m.spaced && m.name == name) {
        return Ok(());
    }
    if let Some(m) = all.iter().find(|m| !m.hidden) {
        let found = one_line(&m.name, 200);
        let message = if m.name == name {
            format!(
                "{label}:{}: `mcp-name:` and the name must be apart by exactly one space; the registry looks for `{wanted}`",
                m.line
            )
        } else if m.spaced && m.name.starts_with(name) {
            format!(
                "{label}:{}: shows `mcp-name: {found}`, which runs on past the server name `{name}`; end the name with a space or the end of the line (the registry compares the whole name)",
                m.line
            )
        } else {
            format!(
                "{label}:{}: shows `mcp-name: {found}`, but the server name is `{name}`; the registry needs `{wanted}`",
                m.line
            )
        };
        return Err(CliError::failed(message));
    }
    if let Some(m) = all.first() {
        return Err(CliError::failed(format!(
            "{label}:{}: `mcp-name: {}` is only inside an HTML comment, and crates.io strips comments from the README it shows, so the registry will not find it: write `{wanted}` as visible text",
            m.line,
            one_line(&m.name, 200)
        )));
    }
    Err(CliError::failed(format!(
        "{label}: no `{wanted}`; the registry proves that a crate is yours by finding it in the README crates.io shows: add it as visible text (not in an HTML comment)"
    )))
}

// ---------------------------------------------------------------------------------------------
// --check
// ---------------------------------------------------------------------------------------------

/// `--check FILE`: compares the file's JSON with the entry (key order and layout aside), naming
/// each difference by its JSON pointer, one line each; exit code 1 when they differ.
fn compare_file(path: &Path, manifest: &str, want: &Value) -> Result<u8, CliError> {
    let label = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("{label}: cannot read: {e}")))?;
    let have: Value = serde_json::from_str(&text).map_err(|e| {
        CliError::input(format!(
            "{label}:{}:{}: invalid JSON: {e}",
            e.line(),
            e.column().max(1)
        ))
    })?;
    let mut lines = Vec::new();
    differences("", &have, want, &mut lines);
    let mut out = String::new();
    for l in &lines {
        let _ = writeln!(out, "{l}");
    }
    if lines.is_empty() {
        let _ = writeln!(out, "toolsmith: {label} matches {manifest}");
    } else {
        let _ = writeln!(
            out,
            "toolsmith: {label} differs from what {manifest} gives: {} difference{}; write it again: the same command with --out {label} in place of --check",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" }
        );
    }
    emit(&out)?;
    Ok(if lines.is_empty() { 0 } else { 1 })
}

/// A JSON pointer's token for `key`.
fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The differences between `have` (the file) and `want` (the entry) under `at`: `changed:`,
/// `added:` (what the entry has and the file lacks) and `removed:` (the other way round).
fn differences(at: &str, have: &Value, want: &Value, out: &mut Vec<String>) {
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => {
            for (k, hv) in h {
                let here = format!("{at}/{}", token(k));
                match w.get(k) {
                    Some(wv) => differences(&here, hv, wv, out),
                    None => out.push(format!("removed: {here}")),
                }
            }
            for k in w.keys().filter(|k| !h.contains_key(*k)) {
                out.push(format!("added: {at}/{}", token(k)));
            }
        }
        (Value::Array(h), Value::Array(w)) => {
            for (i, (hv, wv)) in h.iter().zip(w).enumerate() {
                differences(&format!("{at}/{i}"), hv, wv, out);
            }
            for i in w.len()..h.len() {
                out.push(format!("removed: {at}/{i}"));
            }
            for i in h.len()..w.len() {
                out.push(format!("added: {at}/{i}"));
            }
        }
        _ if have != want => out.push(format!("changed: {}", if at.is_empty() { "/" } else { at })),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_registry_grammar() {
        for ok in ["io.github.alice/weather", "com.example/my_server.v2", "a/b"] {
            assert_eq!(check_name(ok), Ok(()), "{ok}");
        }
        for (bad, why) in [
            ("weather", "has no `/`"),
            ("io.github.alice/a/b", "more than one `/`"),
            ("io.github_alice/x", "has `_` in its namespace"),
            ("io.github.alice/we ather", "has ` ` in its name part"),
            ("-io.github/x", "does not start and end"),
            ("io.github/x_", "does not start and end"),
            ("/x", "is 2 characters"),
        ] {
            let err = check_name(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
        assert!(check_name(&format!("io.github.a/{}", "x".repeat(190))).is_err());
    }

    #[test]
    fn comments_hide_and_fences_show() {
        let text = "# T\n\n<!-- mcp-name: io.a/hidden -->\nmcp-name: io.a/shown\n\
                    <!--\nmcp-name: io.a/block\n-->\n```\n<!-- mcp-name: io.a/fenced -->\n```\n\
                    text <!-- x --> mcp-name:  io.a/twospaces.\n";
        let found = mentions(text);
        let got: Vec<(usize, &str, bool, bool)> = found
            .iter()
            .map(|m| (m.line, m.name.as_str(), m.spaced, m.hidden))
            .collect();
        assert_eq!(
            got,
            vec![
                (3, "io.a/hidden", true, true),
                (4, "io.a/shown", true, false),
                (6, "io.a/block", true, true),
                (9, "io.a/fenced", true, false),
                (11, "io.a/twospaces.", false, false),
            ]
        );
    }

    #[test]
    fn repositories_the_registry_accepts() {
        assert_eq!(
            repository_of("https://github.com/alice/weather.git/"),
            Some(("https://github.com/alice/weather".into(), "github"))
        );
        assert_eq!(
            repository_of("https://gitlab.com/group/sub/project"),
            Some(("https://gitlab.com/group/sub/project".into(), "gitlab"))
        );
        assert_eq!(
            repository_of("https://github.com/alice/weather/tree/main"),
            None
        );
        assert_eq!(repository_of("https://example.invalid/toolsmith"), None);
        assert_eq!(repository_of("git@github.com:alice/weather.git"), None);
    }

    #[test]
    fn go_escapes_count_towards_the_limit() {
        assert_eq!(go_json_len(&json!({"a": "b"})), 9);
        assert_eq!(go_json_len(&json!({"a": "<&>"})), 11 + 15);
        assert_eq!(go_json_len(&json!(["\u{2028}"])), 7 + 3);
    }

    #[test]
    fn a_urls_variables_must_be_defined() {
        let args = [json!({"type": "positional", "valueHint": "port"})];
        assert_eq!(check_url("http://127.0.0.1:{port}/mcp", &args, &[]), Ok(()));
        let err = check_url("http://{host}:8080/mcp", &args, &[]).unwrap_err();
        assert!(
            err.contains("`{host}`") && err.contains("defined: port"),
            "{err}"
        );
        assert!(check_url("ftp://x/mcp", &[], &[]).is_err());
        assert!(check_url("http:///mcp", &[], &[]).is_err());
    }
}
