//! `toolsmith`: lint, measure, diff, pin, convert and fetch any tool list, and write a crate's
//! `server.json` for the MCP Registry.
//!
//! Exit codes: 0 success (no errors found, no change of the class given to `--fail-on`, the lock
//! matches, `server.json` written or matching); 1 the check failed (lint errors, a failing diff, a
//! lock mismatch, tools a target could not carry, a README without a visible `mcp-name:` line, a
//! `server.json` that differs); 2 the input could not be read or parsed (a list given to `pin`
//! that names a tool more than once, a lock that pins a name twice, a manifest value that
//! `server.json` cannot take), a server could not be fetched, or the command line is wrong.
#![deny(missing_docs)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod convert;
mod diff;
mod fetch;
mod input;
mod lint;
mod measure;
mod pin;
mod registry;
mod style;

/// An error that ends the command: its message (one line) and exit code.
#[derive(Debug)]
pub struct CliError {
    /// 1: a check failed; 2: the input could not be read, parsed or fetched.
    pub code: u8,
    /// One line, without the `toolsmith: error:` prefix.
    pub message: String,
}

impl CliError {
    /// Exit code 2: the input could not be read or parsed.
    pub fn input(message: impl Into<String>) -> CliError {
        CliError {
            code: 2,
            message: message.into(),
        }
    }

    /// Exit code 1: a check failed, and the command has nothing else to show for it.
    pub fn failed(message: impl Into<String>) -> CliError {
        CliError {
            code: 1,
            message: message.into(),
        }
    }
}

/// Lint, measure, diff, pin, convert and fetch tool lists (MCP, OpenAI, Anthropic, Gemini), and
/// write a crate's server.json for the MCP Registry.
#[derive(Parser)]
#[command(
    name = "toolsmith",
    version,
    about,
    long_about = None,
    after_help = "Examples:\n  toolsmith lint tools.json\n  toolsmith fetch -- npx -y @modelcontextprotocol/server-everything > tools.json\n  toolsmith diff old.json new.json --fail-on breaking\n  toolsmith registry --out server.json\n\nExit codes: 0 success, 1 the check failed, 2 the input could not be read or the command line is wrong.\nThe reference: toolsmith-cli/README.md (the toolsmith-cli crate's page)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Output formats of `lint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// rustc-style diagnostics.
    Human,
    /// One JSON document.
    Json,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
}

/// Output formats of `diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// A plain-text report.
    Human,
    /// One JSON document.
    Json,
    /// A Markdown table for a pull-request comment.
    Markdown,
}

/// The class of findings `lint --only` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Only {
    /// Security findings: the rules that guard against tool poisoning (hidden text, instructions
    /// to the agent, requests for secrets or the conversation, places to send data, shadowing).
    Security,
    /// Style findings: every other rule (budgets, names, descriptions, schemas).
    Style,
    /// The quality components alone, a part of the style findings: purpose, when to use,
    /// limits, parameters, what comes back.
    Quality,
}

/// When to use colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// On a terminal, unless `NO_COLOR` is set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The transport of the server `registry` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// The client starts the installed binary and speaks MCP on its standard input and output.
    Stdio,
    /// The client connects to the running binary at `--url`.
    StreamableHttp,
}

/// The lowest change class that fails `diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Fail on breaking changes.
    Breaking,
    /// Fail on breaking and agent-visible changes.
    AgentVisible,
}

#[derive(Subcommand)]
enum Command {
    /// Lint tool lists: MCP tools/list results, JSON-RPC responses, arrays of MCP, OpenAI or
    /// Anthropic tools, Gemini declarations, or directories of exported artifacts (`-` reads
    /// standard input).
    ///
    /// The human report goes tool by tool: a verdict line (`verdict: NAME: no security finding`
    /// or `verdict: NAME: N security findings (RULE, ...)`), then the tool's security findings,
    /// then the quality components it lacks (purpose, when to use, limits, parameters, what comes
    /// back: what to fix first), then its other style findings; after each list, a line of how
    /// many of its tools have each component (`components in FILE: purpose 12/14, ...`). JSON
    /// and SARIF give each finding's `category` (`security` or `style`); the JSON report has the
    /// components of each list under `components`.
    ///
    /// Exit codes: 0 no error among the findings shown (warnings allowed); 1 at least one error
    /// among them; 2 the input could not be read or parsed, or the command line is wrong.
    #[command(
        after_help = "Examples:\n  toolsmith lint tools.json\n  toolsmith lint --only security --format sarif tools.json > lint.sarif\n  toolsmith lint --profile openai --allow name_style target/tool-specs/"
    )]
    Lint {
        /// Files, directories, or `-` for standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = LintFormat::Human)]
        format: LintFormat,
        /// Budget profile: chrome, openai, anthropic or mcp.
        #[arg(long, default_value = "chrome")]
        profile: String,
        /// A rule to leave out (repeatable).
        #[arg(long = "allow", value_name = "RULE")]
        allow: Vec<String>,
        /// Show only security findings (tool poisoning), only style findings, or only the
        /// quality components (a part of style); the exit code counts the findings shown.
        #[arg(long, value_enum)]
        only: Option<Only>,
        /// Colour in the human format.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// The characters and tokens (o200k_base) of each tool's parts, totals and each tool's share.
    #[command(
        after_help = "Examples:\n  toolsmith measure tools.json\n  toolsmith measure --json target/tool-specs/"
    )]
    Measure {
        /// Files, directories, or `-` for standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Colour of the bar chart.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Classify each change between two tool lists: breaking, agent-visible or compatible.
    #[command(
        after_help = "Examples:\n  toolsmith diff old.json new.json\n  toolsmith diff old.json new.json --fail-on agent-visible --format markdown"
    )]
    Diff {
        /// The list before.
        old: PathBuf,
        /// The list after.
        new: PathBuf,
        /// Exit 1 when a change of this class (or a more serious one) is found.
        #[arg(long, value_enum)]
        fail_on: Option<FailOn>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
        format: DiffFormat,
    },
    /// Print a lockfile of each tool's definition hash (the whole tool object, every field, and
    /// each field on its own): `toolsmith pin FILE > tools.lock`.
    ///
    /// Exit codes: 0 the lock was printed; 2 the list could not be read or parsed, or it names a
    /// tool more than once (a lock approves one definition per name).
    #[command(after_help = "Example:\n  toolsmith pin tools.json > tools.lock")]
    Pin {
        /// The approved tool list.
        file: PathBuf,
    },
    /// Check a tool list against a lockfile; names every tool and field that changed, every tool
    /// added or removed, and every tool the list names more than once, one line each (`changed:`,
    /// `added:`, `removed:`, `duplicate:`).
    ///
    /// Exit codes: 0 the list matches the lock; 1 any difference; 2 the lock or the list could
    /// not be read or parsed, or the lock pins a name twice.
    #[command(after_help = "Example:\n  toolsmith verify --lock tools.lock tools.json")]
    Verify {
        /// The lockfile written by `toolsmith pin`.
        #[arg(long)]
        lock: PathBuf,
        /// The tool list to check.
        file: PathBuf,
    },
    /// Lower a tool list to a target with the export pipeline; reports what the target could not
    /// carry (on standard error). Exit code 1 when a tool had to be left out.
    #[command(
        after_help = "Examples:\n  toolsmith convert --to openai tools.json\n  toolsmith convert --to mcp-2025-06-18 tools.json"
    )]
    Convert {
        /// mcp, openai, anthropic, gemini, webmcp, or an exact target slug (e.g.
        /// openai-responses-strict, mcp-2025-06-18).
        #[arg(long)]
        to: String,
        /// The tool list.
        file: PathBuf,
    },
    /// Connect to an MCP server (stdio command or streamable HTTP URL), perform the handshake and
    /// print its tools/list result: each tool's JSON object exactly as the server sent it, every
    /// field included, all pages.
    ///
    /// A stdio server's standard error is read, not shown: its last line is quoted if it exits
    /// before answering. When the fetch fails, the first line the server wrote to standard output
    /// that is not JSON-RPC is quoted too (on one line, clipped). The server's processes (its
    /// process group) are ended when fetch ends.
    ///
    /// Exit codes: 0 the list was printed; 2 the server could not be started, exited, did not
    /// answer within --timeout, nothing listens at the URL, the URL is no MCP endpoint, or the
    /// command line is wrong.
    #[command(
        after_help = "Examples:\n  toolsmith fetch -- npx -y @modelcontextprotocol/server-everything\n  toolsmith fetch --url http://127.0.0.1:8000/mcp --timeout 30"
    )]
    Fetch {
        /// The server's streamable-HTTP endpoint, e.g. http://127.0.0.1:8000/mcp.
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// Seconds to wait for the server to start, answer the handshake and list its tools.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
        /// The command that starts a stdio server, after `--`.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Write the crate's server.json for the MCP Registry (schema 2025-12-11; a cargo package on
    /// crates.io), from its Cargo.toml.
    ///
    /// Reads the package's name, version, description, repository and homepage, and the table
    /// [package.metadata.toolsmith-registry] (name, title, description, websiteUrl, transport,
    /// url, packageArguments, environmentVariables, subfolder); a flag replaces the table's
    /// value.
    ///
    /// Before writing, checks that the README (the manifest's `readme`, else README.md beside
    /// it) shows the line `mcp-name: NAME` as crates.io renders it: the registry proves that the
    /// crate is yours by finding it there, and crates.io strips HTML comments, so a line inside
    /// `<!-- -->` does not count. `--pin` (a lock written by `toolsmith pin`) or `--tools` (a tool
    /// list) puts each tool's hash under `_meta`, in the registry's publisher-provided namespace.
    ///
    /// Exit codes: 0 server.json was written (or matches --check); 1 the README does not show
    /// `mcp-name: NAME` (nothing is written), or --check found a difference; 2 the manifest, the
    /// README, the lock or the list could not be read, a value does not fit server.json (the
    /// name, a description over 100 characters, a URL, ...), or the command line is wrong.
    #[command(
        after_help = "Examples:\n  toolsmith registry > server.json\n  toolsmith registry --name io.github.alice/weather --secret-env WEATHER_API_KEY --out server.json\n  toolsmith registry --transport streamable-http --url http://127.0.0.1:8080/mcp --arg --http\n  toolsmith registry --pin tools.lock --check server.json"
    )]
    Registry(registry::Options),
    /// Selection evals: does a model pick the right tool with the right arguments? Runs the
    /// `toolsmith-eval` command (the crate toolsmith-eval: `cargo install toolsmith-eval`) with
    /// the arguments that follow; `toolsmith eval --help` is its help. Its exit codes: 0 done,
    /// 1 a gate failed, 2 the input could not be used, 3 the endpoint answered no trial.
    #[command(disable_help_flag = true)]
    Eval {
        /// The arguments of `toolsmith-eval`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
}

fn run(cli: Cli) -> Result<u8, CliError> {
    match cli.command {
        Command::Eval { args } => eval(&args),
        Command::Lint {
            files,
            format,
            profile,
            allow,
            only,
            color,
        } => lint::run(&files, format, &profile, &allow, only, color),
        Command::Measure { files, json, color } => measure::run(&files, json, color),
        Command::Diff {
            old,
            new,
            fail_on,
            format,
        } => diff::run(&old, &new, fail_on, format),
        Command::Pin { file } => pin::pin(&file),
        Command::Verify { lock, file } => pin::verify(&lock, &file),
        Command::Convert { to, file } => convert::run(&to, &file),
        Command::Fetch {
            url,
            timeout,
            command,
        } => fetch::run(url.as_deref(), &command, timeout),
        Command::Registry(options) => registry::run(&options),
    }
}

/// `toolsmith eval ARGS`: `toolsmith-eval ARGS`, the one beside this binary first (as
/// `cargo install` puts them), else the one on `PATH`; its exit code is this one's.
fn eval(args: &[std::ffi::OsString]) -> Result<u8, CliError> {
    let name = format!("toolsmith-eval{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(&name)))
        .filter(|p| p.is_file());
    let program = beside.unwrap_or_else(|| PathBuf::from(&name));
    let status = std::process::Command::new(&program)
        .args(args)
        .status()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CliError::input(
                "`toolsmith eval` runs the toolsmith-eval command, which is not installed: cargo install toolsmith-eval",
            ),
            _ => CliError::input(format!("cannot run {}: {e}", program.display())),
        })?;
    // A signal ends it without a code: said as the input error it most likely was not, but
    // never as success.
    Ok(status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .unwrap_or(2))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("toolsmith: error: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

/// `text` for one line of a message: each control, invisible or line-separating
/// character shown as `<U+XXXX>`, at most `max` characters of it (then `…`).
pub fn one_line(text: &str, max: usize) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(text.len().min(max.saturating_mul(4)));
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() || lint::is_invisible(c) || matches!(c, '\u{2028}' | '\u{2029}') {
            let _ = write!(out, "<U+{:04X}>", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes to standard output; a closed pipe (`| head`) is not an error worth a panic.
pub fn emit(text: &str) -> Result<(), CliError> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::input(format!("cannot write the output: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::{CommandFactory, Parser};

    /// Every example a `--help` shows is a command line the parser accepts (a redirection after
    /// `>` is the shell's, not the command's).
    #[test]
    fn the_help_examples_parse() {
        let cmd = Cli::command();
        let mut helps: Vec<String> = cmd
            .get_after_help()
            .map(|h| h.to_string())
            .into_iter()
            .collect();
        helps.extend(
            cmd.get_subcommands()
                .filter_map(|c| c.get_after_help().map(|h| h.to_string())),
        );
        let mut seen = 0;
        for help in &helps {
            for line in help
                .lines()
                .filter_map(|l| l.trim().strip_prefix("toolsmith "))
            {
                let line = line.split(" > ").next().unwrap_or(line);
                let args = std::iter::once("toolsmith").chain(line.split_whitespace());
                if let Err(e) = Cli::try_parse_from(args) {
                    panic!("the help example `toolsmith {line}` does not parse: {e}");
                }
                seen += 1;
            }
        }
        assert!(seen >= 10, "{seen} examples");
    }
}
