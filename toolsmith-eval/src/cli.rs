//! The command `toolsmith-eval` (also `toolsmith eval`), as a function the binary and the tests
//! call: [`run`] takes the arguments and gives the exit code and what goes to standard output and
//! standard error (the progress bar, drawn only on a terminal, goes to standard error as it
//! runs).
//!
//! Exit codes: 0 done; 1 the gate failed (`--fail-under`, `--fail-on-drop`) or `check` found
//! problems; 2 the input could not be used (a file, a scenario, a setting, the key's variable);
//! 3 the endpoint answered no trial at all.

use crate::provider::{Api, Client, Provider};
use crate::report::{Comparison, Report};
use crate::scenario::Scenarios;
use crate::Eval;
use clap::{Args, Parser, Subcommand};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "toolsmith-eval",
    version,
    about = "Does the model pick the tool? Selection evals of a tool list against a model endpoint.",
    after_help = "Exit codes: 0 done; 1 the gate failed or `check` found problems; 2 the input could not be used; 3 the endpoint answered no trial.\n\nExamples:\n  toolsmith-eval check --scenarios evals/notes.toml --tools tool-specs\n  OPENAI_API_KEY=... toolsmith-eval run --scenarios evals/notes.toml --tools tools.json --model gpt-5.4-mini --trials 5 --html report.html --fail-under 0.9\n  toolsmith-eval run --scenarios s.toml --tools tools.json --base-url http://127.0.0.1:8080/v1 --key-env LOCAL_KEY --model qwen3\n  toolsmith-eval ab --scenarios s.toml --a git:HEAD~1:tool-specs --b tool-specs --model claude-sonnet-4-5 --api anthropic --trials 10\n  toolsmith-eval bfcl --questions BFCL_v4_simple_python.json --answers possible_answer/BFCL_v4_simple_python.json --category simple --out evals/bfcl"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Checks the scenarios against the tools: every tool and argument they name exists, and
    /// every expected value is one the tool accepts. No model is asked.
    Check {
        /// The scenario file (TOML).
        #[arg(long)]
        scenarios: PathBuf,
        /// The tools: a tool list file (MCP `tools/list`, or an array of MCP tools) or an export
        /// folder; may be left out when every case names its own.
        #[arg(long)]
        tools: Option<String>,
    },
    /// Runs the scenarios against a model and reports how often it picks the right tool with
    /// the right arguments.
    Run {
        /// The tools: a tool list file or an export folder (`git:REV:PATH` reads it at a git
        /// revision); may be left out when every case names its own.
        #[arg(long)]
        tools: Option<String>,
        #[command(flatten)]
        common: Common,
        /// Exit 1 when the accuracy is below this (0 to 1).
        #[arg(long, value_name = "RATE")]
        fail_under: Option<f64>,
    },
    /// Converts a category of the Berkeley Function-Calling Leaderboard (its questions and
    /// possible answers, JSON lines) into a scenario file, each case with its own tool list.
    Bfcl {
        /// The questions file, e.g. BFCL_v4_simple_python.json.
        #[arg(long)]
        questions: PathBuf,
        /// The possible answers file of the same category.
        #[arg(long)]
        answers: PathBuf,
        /// The category's name, in the tags and the file's name (e.g. simple).
        #[arg(long)]
        category: String,
        /// The folder to write CATEGORY.toml and tools/ID.json into.
        #[arg(long)]
        out: PathBuf,
        /// The gorilla repository's commit the files come from, named in the file's header.
        #[arg(long)]
        commit: Option<String>,
    },
    /// Runs the scenarios on two versions of the tools (A, then B) and reports the difference
    /// per tool with its 95% interval.
    Ab {
        /// Version A of the tools (a file, a folder, or `git:REV:PATH`).
        #[arg(long)]
        a: String,
        /// Version B of the tools.
        #[arg(long)]
        b: String,
        #[command(flatten)]
        common: Common,
        /// Exit 1 when B's accuracy is lower than A's beyond the interval (a significant drop).
        #[arg(long)]
        fail_on_drop: bool,
    },
}

#[derive(Args)]
struct Common {
    /// The scenario file (TOML).
    #[arg(long)]
    scenarios: PathBuf,
    /// The model's name, as the endpoint knows it.
    #[arg(long)]
    model: String,
    /// The wire format: openai-chat, openai-responses or anthropic.
    #[arg(long, default_value = "openai-chat")]
    api: String,
    /// The endpoint's base URL (default: the API's official one), e.g. http://127.0.0.1:11434/v1.
    #[arg(long)]
    base_url: Option<String>,
    /// The environment variable holding the API key (default OPENAI_API_KEY or
    /// ANTHROPIC_API_KEY). The key is never printed or written.
    #[arg(long)]
    key_env: Option<String>,
    /// Trials per case.
    #[arg(long, default_value_t = 3)]
    trials: u32,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// The sampling temperature (default: the endpoint's).
    #[arg(long)]
    temperature: Option<f64>,
    /// At most this many tokens per answer (default: the endpoint's; Anthropic's 1024).
    #[arg(long)]
    max_tokens: Option<u32>,
    /// Retries of a rate-limited or failed request.
    #[arg(long, default_value_t = 5)]
    retries: u32,
    /// The price of a million input tokens, for the cost summary.
    #[arg(long, requires = "price_out")]
    price_in: Option<f64>,
    /// The price of a million output tokens.
    #[arg(long, requires = "price_in")]
    price_out: Option<f64>,
    /// Write the JSON report here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the HTML report here.
    #[arg(long)]
    html: Option<PathBuf>,
    /// No progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    quiet: bool,
}

/// A failure: its exit code and one line.
struct Fail(u8, String);

fn input(message: impl Into<String>) -> Fail {
    Fail(2, message.into())
}

/// What a run of the command came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    /// The exit code.
    pub code: u8,
    /// What goes to standard output.
    pub stdout: String,
    /// What goes to standard error (one line on failure, `--help` and usage errors).
    pub stderr: String,
}

/// Runs the command with `args` (the first is the program's name), reading the key from the
/// process's environment.
pub async fn run<I, T>(args: I) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    run_with_env(
        args,
        std::sync::Arc::new(|name: &str| std::env::var(name).ok()),
    )
    .await
}

/// [`run`], the key's variable read through `env` (a map of the host's own, in a test).
pub async fn run_with_env<I, T>(args: I, env: crate::provider::EnvLookup) -> Exit
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let text = e.render().to_string();
            let (stdout, stderr) = if e.use_stderr() {
                (String::new(), text)
            } else {
                (text, String::new())
            };
            return Exit {
                code,
                stdout,
                stderr,
            };
        }
    };
    let mut out = String::new();
    match command(cli.command, &env, &mut out).await {
        Ok(()) => Exit {
            code: 0,
            stdout: out,
            stderr: String::new(),
        },
        Err(Fail(code, message)) => Exit {
            code,
            stdout: out,
            stderr: format!("toolsmith-eval: error: {message}\n"),
        },
    }
}

async fn command(
    command: Command,
    env: &crate::provider::EnvLookup,
    out: &mut String,
) -> Result<(), Fail> {
    match command {
        Command::Check { scenarios, tools } => {
            let eval = eval_of(load(&scenarios)?, tools.as_deref())?;
            match eval.check() {
                Ok(()) => {
                    let _ = writeln!(out, "{}: every case fits the tools", scenarios.display());
                    Ok(())
                }
                Err(problems) => {
                    for p in &problems {
                        let _ = writeln!(out, "{}: {p}", scenarios.display());
                    }
                    Err(Fail(
                        1,
                        format!("{} problem(s) in {}", problems.len(), scenarios.display()),
                    ))
                }
            }
        }
        Command::Bfcl {
            questions,
            answers,
            category,
            out: dir,
            commit,
        } => {
            let read = |p: &Path| {
                std::fs::read_to_string(p)
                    .map_err(|e| input(format!("cannot read {}: {e}", p.display())))
            };
            let (q, a) = (read(&questions)?, read(&answers)?);
            let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
            let converted = match &commit {
                Some(commit) => crate::bfcl::convert_from(
                    &crate::bfcl::Source {
                        commit,
                        questions: &name(&questions).unwrap_or_default(),
                        answers: &name(&answers).unwrap_or_default(),
                    },
                    &q,
                    &a,
                    &category,
                    "tools",
                ),
                None => crate::bfcl::convert(&q, &a, &category, "tools"),
            }
            .map_err(input)?;
            let file = format!("{category}.toml");
            converted.write(&dir, &file, "tools").map_err(input)?;
            let _ = writeln!(
                out,
                "{}: {} cases, {} skipped",
                dir.join(&file).display(),
                converted.tools.len(),
                converted.skipped.len()
            );
            for (id, why) in &converted.skipped {
                let _ = writeln!(out, "  skipped {id}: {why}");
            }
            Ok(())
        }
        Command::Run {
            tools,
            common,
            fail_under,
        } => {
            let label = tools
                .clone()
                .unwrap_or_else(|| "each case's own tools".into());
            let eval = settings(
                eval_of(load(&common.scenarios)?, tools.as_deref())?,
                &common,
            )?
            .label(label);
            let client = client(&common, env)?;
            let report = measure(&eval, &client, &common).await?;
            write_outputs(&common, report.to_json(), || crate::html::report(&report))?;
            print_summary(&report, out);
            answered(&report)?;
            if let Some(floor) = fail_under {
                let rate = report.accuracy().rate;
                if rate < floor {
                    return Err(Fail(
                        1,
                        format!("accuracy {rate:.3} is below --fail-under {floor}"),
                    ));
                }
            }
            Ok(())
        }
        Command::Ab {
            a,
            b,
            common,
            fail_on_drop,
        } => {
            // One reading of the scenarios for both sides.
            let scenarios = load(&common.scenarios)?;
            let eval_a = settings(eval_of(scenarios.clone(), Some(&a))?, &common)?.label(&a);
            let eval_b = settings(eval_of(scenarios, Some(&b))?, &common)?.label(&b);
            let client = client(&common, env)?;
            let report_a = measure(&eval_a, &client, &common).await?;
            answered(&report_a)?;
            let report_b = measure(&eval_b, &client, &common).await?;
            answered(&report_b)?;
            let comparison = Comparison {
                a: report_a,
                b: report_b,
            };
            write_outputs(&common, comparison.to_json(), || {
                crate::html::comparison(&comparison)
            })?;
            let overall = comparison.overall();
            let _ = writeln!(
                out,
                "A {}: {:.1}%   B {}: {:.1}%   B-A {:+.1} points [{:+.1}, {:+.1}]{}",
                a,
                overall.a.rate * 100.0,
                b,
                overall.b.rate * 100.0,
                overall.difference * 100.0,
                overall.low * 100.0,
                overall.high * 100.0,
                if overall.is_significant() {
                    ""
                } else {
                    "  (the interval holds 0: no clear change)"
                }
            );
            for t in comparison.per_tool() {
                let d = t.difference;
                let _ = writeln!(
                    out,
                    "  {:<32} {:>6.1}% -> {:>6.1}%  {:+.1} [{:+.1}, {:+.1}]{}",
                    t.tool,
                    d.a.rate * 100.0,
                    d.b.rate * 100.0,
                    d.difference * 100.0,
                    d.low * 100.0,
                    d.high * 100.0,
                    if d.is_significant() { " *" } else { "" }
                );
            }
            if fail_on_drop && overall.high < 0.0 {
                return Err(Fail(
                    1,
                    format!(
                        "B's accuracy dropped by {:.1} points, beyond the interval",
                        -overall.difference * 100.0
                    ),
                ));
            }
            Ok(())
        }
    }
}

/// The scenario file at `path`.
fn load(path: &Path) -> Result<Scenarios, Fail> {
    Scenarios::load(path).map_err(|e| input(e.to_string()))
}

/// The scenarios over the tools at `tools` (a file, a folder, or `git:REV:PATH`; none: each
/// case names its own).
fn eval_of(scenarios: Scenarios, tools: Option<&str>) -> Result<Eval, Fail> {
    let Some(tools) = tools else {
        return Eval::from_specs(Vec::new(), scenarios)
            .and_then(Eval::with_case_tools)
            .map_err(input);
    };
    let specs = match tools.strip_prefix("git:") {
        Some(spec) => {
            let (rev, path) = spec
                .split_once(':')
                .ok_or_else(|| input(format!("`{tools}`: write git:REVISION:PATH")))?;
            let text = git_show(rev, path)?;
            let value: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| input(format!("{tools}: not JSON: {e}")))?;
            crate::tools_of(&value).map_err(|e| input(format!("{tools}: {e}")))?
        }
        None => crate::load_tools(Path::new(tools)).map_err(input)?,
    };
    Eval::from_specs(specs, scenarios)
        .and_then(Eval::with_case_tools)
        .map_err(input)
}

/// A file at a git revision (a folder: its `mcp-2025-11-25.json`).
fn git_show(rev: &str, path: &str) -> Result<String, Fail> {
    let show = |p: &str| {
        std::process::Command::new("git")
            .args(["show", &format!("{rev}:{p}")])
            .output()
    };
    let out = show(path).map_err(|e| input(format!("cannot run git: {e}")))?;
    let out = match std::str::from_utf8(&out.stdout) {
        Ok(text) if out.status.success() && text.starts_with("tree ") => show(&format!(
            "{}/mcp-2025-11-25.json",
            path.trim_end_matches('/')
        ))
        .map_err(|e| input(format!("cannot run git: {e}")))?,
        _ => out,
    };
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        return Err(input(format!(
            "git show {rev}:{path}: {}",
            why.lines().next().unwrap_or("failed")
        )));
    }
    String::from_utf8(out.stdout).map_err(|_| input(format!("{rev}:{path} is not UTF-8 text")))
}

fn settings(eval: Eval, common: &Common) -> Result<Eval, Fail> {
    let eval = eval.trials(common.trials).concurrency(common.concurrency);
    Ok(match (common.price_in, common.price_out) {
        (Some(i), Some(o)) => eval.prices(i, o),
        _ => eval,
    })
}

fn client(common: &Common, env: &crate::provider::EnvLookup) -> Result<Client, Fail> {
    let api = Api::from_slug(&common.api).ok_or_else(|| {
        input(format!(
            "--api {}: use openai-chat, openai-responses or anthropic",
            common.api
        ))
    })?;
    let mut provider = Provider::new(api, &common.model).env(env.clone()).retries(
        common.retries,
        Duration::from_secs(1),
        Duration::from_secs(60),
    );
    if let Some(url) = &common.base_url {
        provider = provider.base_url(url);
    }
    if let Some(var) = &common.key_env {
        provider = provider.key_env(var);
    }
    if let Some(t) = common.temperature {
        provider = provider.temperature(t);
    }
    if let Some(n) = common.max_tokens {
        provider = provider.max_tokens(n);
    }
    provider.check_key().map_err(|e| input(e.to_string()))?;
    Client::new(provider).map_err(|e| input(e.to_string()))
}

/// Runs `eval`, drawing a progress bar on a terminal.
async fn measure(eval: &Eval, client: &Client, common: &Common) -> Result<Report, Fail> {
    let draw = !common.quiet && std::io::stderr().is_terminal();
    let report = eval
        .run(client, |done, total| {
            if draw {
                let width = 30;
                let filled = done * width / total.max(1);
                let mut err = std::io::stderr().lock();
                let _ = write!(
                    err,
                    "\r[{}{}] {done}/{total}",
                    "#".repeat(filled),
                    " ".repeat(width - filled)
                );
                if done == total {
                    let _ = writeln!(err);
                }
            }
        })
        .await
        .map_err(input)?;
    Ok(report)
}

/// Fails with code 3 when no trial got an answer (every request failed), naming the first
/// failure.
fn answered(report: &Report) -> Result<(), Fail> {
    let trials: Vec<_> = report.cases.iter().flat_map(|c| &c.trials).collect();
    if trials.iter().any(|t| t.outcome.is_scored()) || trials.is_empty() {
        return Ok(());
    }
    let first = match &trials[0].outcome {
        crate::score::Outcome::Failed { reason } | crate::score::Outcome::Malformed { reason } => {
            reason.clone()
        }
        _ => String::new(),
    };
    Err(Fail(3, format!("the endpoint answered no trial: {first}")))
}

fn write_outputs(
    common: &Common,
    json: serde_json::Value,
    html: impl FnOnce() -> String,
) -> Result<(), Fail> {
    if let Some(path) = &common.json {
        let text = serde_json::to_string_pretty(&json).unwrap_or_default();
        std::fs::write(path, text + "\n")
            .map_err(|e| input(format!("cannot write {}: {e}", path.display())))?;
    }
    if let Some(path) = &common.html {
        std::fs::write(path, html())
            .map_err(|e| input(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

fn print_summary(report: &Report, out: &mut String) {
    let acc = report.accuracy();
    let usage = report.usage();
    let _ = writeln!(
        out,
        "{} on {} ({}): {}/{} correct, {:.1}% [{:.1}, {:.1}]",
        report.label,
        report.model,
        report.api,
        acc.correct,
        acc.scored,
        acc.rate * 100.0,
        acc.low * 100.0,
        acc.high * 100.0
    );
    for t in report.per_tool() {
        let outcomes: BTreeMap<_, _> = t.outcomes.iter().filter(|(k, _)| *k != "correct").collect();
        let _ = writeln!(
            out,
            "  {:<32} {:>6.1}%  {}",
            t.tool,
            t.accuracy.rate * 100.0,
            outcomes
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let cost = report
        .cost()
        .map(|c| format!(", cost {c:.4}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "requests {} (retried {}), tokens in {} out {}{cost}",
        usage.requests, usage.retries, usage.input_tokens, usage.output_tokens
    );
}
