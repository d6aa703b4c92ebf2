//! Does the model pick the tool? Selection evals for toolsmith tools, or any MCP tool list,
//! against a real model endpoint.
//!
//! The lint says whether a description follows the rules; only an evaluation says whether a model
//! now picks the right tool and fills in the right arguments. This crate sends scenarios
//! ([`scenario`]: a request, the tool expected or none, the arguments expected) to a model with
//! the tools in its platform's format ([`provider`]: OpenAI chat completions and responses, which
//! local servers speak too, and Anthropic messages), `N` trials each, and scores each answer
//! ([`score`]): the tool chosen, the arguments checked by the toolbox's own validator (no tool
//! body runs, nothing is written), the arguments against the expected ones, a forbidden tool
//! called. The [`report`] gives accuracy per tool with a 95% interval, which tool was picked
//! instead, argument errors by parameter, tokens and cost, as JSON and HTML; two versions of
//! the tools (an edited description) compare with an interval on the difference, so a person
//! knows whether the edit helped or the change is noise.
//!
//! ```no_run
//! # async fn run(toolbox: toolsmith_core::Toolbox) -> Result<(), Box<dyn std::error::Error>> {
//! use toolsmith_eval::provider::{Api, Client, Provider};
//! use toolsmith_eval::{scenario::Scenarios, Eval};
//!
//! let scenarios = Scenarios::load("evals/notes.toml")?;
//! let eval = Eval::new(toolbox, scenarios).trials(5);
//! eval.check().map_err(|problems| problems.join("\n"))?; // a renamed tool or parameter
//! // The key is read from OPENAI_API_KEY when the first request is sent.
//! let client = Client::new(Provider::new(Api::OpenAiChat, "gpt-5.4-mini"))?;
//! let report = eval.run(&client, |_done, _total| {}).await?;
//! println!("accuracy {:.0}%", report.accuracy().rate * 100.0);
//! # Ok(())
//! # }
//! ```
//!
//! The command `toolsmith-eval` (also reached as `toolsmith eval`) runs the same on a tool list
//! file or an export folder.
//!
//! # Scenarios beside the tools
//!
//! Keep the scenario file in the crate that declares the tools and check it in a test: a renamed
//! tool or parameter, or an expected value the tool would refuse, then fails `cargo test`, with
//! no model asked.
//!
//! ```no_run
//! # fn toolbox() -> toolsmith_core::Toolbox { unimplemented!() }
//! #[test]
//! fn the_scenarios_fit_the_tools() {
//!     let scenarios = toolsmith_eval::scenario::Scenarios::load("evals/notes.toml").unwrap();
//!     let problems = toolsmith_eval::Eval::new(toolbox(), scenarios).check();
//!     assert_eq!(problems, Ok(()));
//! }
//! ```
//!
//! # What the numbers mean
//!
//! - **Outcomes.** Each trial comes to one [`score::Outcome`]: `correct` (the expected tool, with
//!   arguments the toolbox accepts and that hold what the case expects), `abstained` (no tool
//!   fitted, none called), `no_call`, `wrong_tool` (another tool; a name that is not in the list
//!   is marked), `unwanted_call` (a tool when none fitted), `forbidden` (a tool the case forbids,
//!   whatever else was right), `invalid_arguments` (the toolbox refused them, by parameter),
//!   `argument_mismatch` (valid, but not what the case expects). `malformed` (the endpoint's
//!   answer is not its API's) and `failed` (no answer: refused, unreachable) say nothing about
//!   the descriptions and are **not scored**.
//! - **Accuracy** is correct (with abstained) over scored trials, per tool and overall. Its 95%
//!   interval is the wider of two: Wilson's over the trials (with 10 trials, 8 correct is
//!   anywhere from 49% to 94%), and the case-clustered one (the pooled rate ± t·SE, the
//!   standard error taken between cases). A case's trials share their prompt and agree with
//!   each other more than with other cases' (at temperature 0 they repeat), so trials alone
//!   would make the interval too narrow: 10 cases of 10 trials, half the cases always right and
//!   half always wrong, is 50% anywhere from 12% to 88%, not 40% to 60%. More cases narrow it
//!   more than more trials.
//! - **A/B.** The difference B − A of two runs of the same scenarios, paired by case. Its 95%
//!   interval is the wider of Newcombe's over the trials and the case-paired one (the
//!   difference ± t·SE of the cases' own differences). When the interval holds zero, the change
//!   may be noise; when it lies below zero, the edit most likely made the model pick worse. Run
//!   both sides at the same settings and close in time.
//! - **Cost** is the endpoint's token counts times the prices given (`--price-in`,
//!   `--price-out`, per million tokens); nothing is priced by guess.

#![deny(missing_docs)]

pub mod bfcl;
pub mod cli;
pub mod html;
pub mod provider;
pub mod report;
pub mod scenario;
pub mod score;

use futures::StreamExt;
use provider::{Answer, AskError, Client};
use report::{CaseReport, Report, Trial};
use scenario::{Case, Scenarios};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolsmith_core::{Tool, ToolError, ToolSpec, Toolbox};

/// An evaluation: scenarios over a set of tools, `trials` times each.
#[derive(Clone)]
pub struct Eval {
    toolbox: Arc<Toolbox>,
    scenarios: Scenarios,
    trials: u32,
    concurrency: usize,
    label: String,
    prices: Option<(f64, f64)>,
    /// Each case's own tool list (cases with a `tools` file), loaded once.
    own: BTreeMap<PathBuf, Arc<Toolbox>>,
}

impl std::fmt::Debug for Eval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Eval")
            .field("tools", &self.toolbox.names())
            .field("cases", &self.scenarios.cases.len())
            .field("trials", &self.trials)
            .finish_non_exhaustive()
    }
}

impl Eval {
    /// The scenarios over `toolbox`'s tools (their calls are checked by its validator; no tool
    /// runs), one trial each, four requests at a time. A case with a tool list of its own must
    /// be loaded with [`with_case_tools`](Self::with_case_tools).
    pub fn new(toolbox: impl Into<Arc<Toolbox>>, scenarios: Scenarios) -> Eval {
        Eval {
            toolbox: toolbox.into(),
            scenarios,
            trials: 1,
            concurrency: 4,
            label: "toolbox".to_string(),
            prices: None,
            own: BTreeMap::new(),
        }
    }

    /// The scenarios over tools known only by their specs (a tool list file): their calls are
    /// checked by a toolbox of the same specs whose tools never run.
    pub fn from_specs(specs: Vec<ToolSpec>, scenarios: Scenarios) -> Result<Eval, String> {
        Ok(Eval::new(inert_toolbox(specs)?, scenarios))
    }

    /// Loads the tool lists the cases name (`tools = "..."`).
    pub fn with_case_tools(mut self) -> Result<Eval, String> {
        for case in &self.scenarios.cases {
            if let Some(path) = &case.tools {
                if !self.own.contains_key(path) {
                    let toolbox = inert_toolbox(load_tools(path)?)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    self.own.insert(path.clone(), Arc::new(toolbox));
                }
            }
        }
        Ok(self)
    }

    /// Trials per case (at least 1).
    #[must_use]
    pub fn trials(mut self, n: u32) -> Eval {
        self.trials = n.max(1);
        self
    }

    /// Requests in flight at once (at least 1).
    #[must_use]
    pub fn concurrency(mut self, n: usize) -> Eval {
        self.concurrency = n.max(1);
        self
    }

    /// What the report calls these tools (a file, a revision).
    #[must_use]
    pub fn label(mut self, label: impl Into<String>) -> Eval {
        self.label = label.into();
        self
    }

    /// Prices per million input and output tokens, for the report's cost.
    #[must_use]
    pub fn prices(mut self, input: f64, output: f64) -> Eval {
        self.prices = Some((input, output));
        self
    }

    /// The same evaluation with the named tools' descriptions replaced (the B side of an A/B
    /// of a description edit).
    pub fn with_descriptions(&self, overrides: &BTreeMap<String, String>) -> Result<Eval, String> {
        let mut specs = self.toolbox.specs();
        for (name, description) in overrides {
            let spec = specs
                .iter_mut()
                .find(|s| &s.name == name)
                .ok_or_else(|| format!("no tool is named \"{name}\""))?;
            spec.description = description.clone();
        }
        let mut eval = self.clone();
        eval.toolbox = Arc::new(inert_toolbox(specs)?);
        Ok(eval)
    }

    /// The tools' specs.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.toolbox.specs()
    }

    /// Checks the scenarios against the tools (see [`Scenarios::check`]), the expected values
    /// by the toolbox's validator.
    pub fn check(&self) -> Result<(), Vec<String>> {
        let mut problems = Vec::new();
        let mut own: Vec<&Case> = Vec::new();
        let shared = Scenarios {
            system: None,
            cases: self
                .scenarios
                .cases
                .iter()
                .filter(|c| {
                    if c.tools.is_some() {
                        own.push(c);
                        false
                    } else {
                        true
                    }
                })
                .cloned()
                .collect(),
        };
        if !shared.cases.is_empty() && self.toolbox.names().is_empty() {
            problems.extend(shared.cases.iter().map(|c| {
                format!(
                    "case \"{}\" names no tool list of its own (`tools = \"...\"`), and the evaluation has no tools",
                    c.id
                )
            }));
        } else if !shared.cases.is_empty() {
            if let Err(p) = shared.check(&self.toolbox.specs(), accepts(&self.toolbox)) {
                problems.extend(p);
            }
        }
        for case in own {
            let Some(toolbox) = case.tools.as_ref().and_then(|p| self.own.get(p)) else {
                problems.push(format!(
                    "case \"{}\": its tool list is not loaded (Eval::with_case_tools)",
                    case.id
                ));
                continue;
            };
            let one = Scenarios {
                system: None,
                cases: vec![case.clone()],
            };
            if let Err(p) = one.check(&toolbox.specs(), accepts(toolbox)) {
                problems.extend(p);
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// Runs every case `trials` times against `client`'s model, calling `progress(done, total)`
    /// after each trial. A trial whose request fails is recorded as `failed` (not scored); the
    /// run itself fails only when the tools cannot be put in the API's format.
    pub async fn run(
        &self,
        client: &Client,
        progress: impl Fn(usize, usize),
    ) -> Result<Report, String> {
        let started = std::time::Instant::now();
        let shared_tools = client.tools(&self.toolbox.specs())?;
        let mut own_tools = BTreeMap::new();
        for (path, toolbox) in &self.own {
            let tools = client
                .tools(&toolbox.specs())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            own_tools.insert(path.clone(), tools);
        }
        let system = self.scenarios.system.as_deref();
        let jobs = self
            .scenarios
            .cases
            .iter()
            .enumerate()
            .flat_map(|(i, case)| (0..self.trials).map(move |t| (i, t, case)));
        let total = self.scenarios.cases.len() * self.trials as usize;
        let mut done = 0;
        let mut results: Vec<(usize, u32, Trial)> = Vec::with_capacity(total);
        let mut stream = futures::stream::iter(jobs)
            .map(|(i, t, case)| {
                let (tools, toolbox) = match &case.tools {
                    Some(path) => (&own_tools[path], &self.own[path]),
                    None => (&shared_tools, &self.toolbox),
                };
                async move {
                    let (answer, usage) = client.ask(system, case, tools).await;
                    (i, t, trial(case, answer, usage, toolbox))
                }
            })
            .buffer_unordered(self.concurrency);
        while let Some(result) = stream.next().await {
            results.push(result);
            done += 1;
            progress(done, total);
        }
        results.sort_by_key(|(i, t, _)| (*i, *t));
        let mut cases: Vec<CaseReport> = self
            .scenarios
            .cases
            .iter()
            .map(|c| CaseReport {
                id: c.id.clone(),
                expect: c.expect.label().to_string(),
                tags: c.tags.clone(),
                trials: Vec::with_capacity(self.trials as usize),
            })
            .collect();
        for (i, _, trial) in results {
            cases[i].trials.push(trial);
        }
        let p = client.provider();
        Ok(Report {
            label: self.label.clone(),
            api: p.api().slug().to_string(),
            model: p.model().to_string(),
            endpoint: p.url().to_string(),
            trials: self.trials,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            cases,
            prices: self.prices,
        })
    }
}

/// `accepts(tool, param, value)` for [`Scenarios::check`]: whether the toolbox's validator
/// refuses `value` for the parameter, with the parameter's own problems only.
fn accepts(toolbox: &Toolbox) -> impl Fn(&str, &str, &Value) -> Result<(), String> + '_ {
    move |tool, param, value| match toolbox.check_arguments(tool, json!({ param: value })) {
        None => Err(format!("no tool is named \"{tool}\"")),
        Some(Ok(_)) => Ok(()),
        Some(Err(errors)) => {
            // Only the parameter's own problems: the others' absence is not the value's fault.
            let own: Vec<String> = errors
                .into_iter()
                .filter(|e| {
                    e.path == param
                        || e.path.starts_with(&format!("{param}."))
                        || e.path.starts_with(&format!("{param}["))
                })
                .map(|e| e.message)
                .collect();
            if own.is_empty() {
                Ok(())
            } else {
                Err(own.join(" "))
            }
        }
    }
}

/// One trial's record.
fn trial(
    case: &Case,
    answer: Result<Answer, AskError>,
    usage: provider::Usage,
    toolbox: &Toolbox,
) -> Trial {
    let outcome = score::score(case, &answer, toolbox);
    match answer {
        Ok(answer) => Trial {
            outcome,
            calls: answer
                .calls
                .iter()
                .map(|c| {
                    json!({"name": c.name, "arguments": match &c.arguments {
                        Ok(v) => v.clone(),
                        Err(text) => Value::String(text.clone()),
                    }})
                })
                .collect(),
            text: answer.text.chars().take(500).collect(),
            usage,
        },
        Err(_) => Trial {
            outcome,
            calls: Vec::new(),
            text: String::new(),
            usage,
        },
    }
}

/// A toolbox of `specs` whose tools never run: it validates calls only.
fn inert_toolbox(specs: Vec<ToolSpec>) -> Result<Toolbox, String> {
    let tools = specs.into_iter().map(|spec| {
        Tool::from_fn(spec, |_, _| {
            Box::pin(async {
                Err(ToolError::failed(
                    "EVAL_ONLY",
                    "this tool is only described for an evaluation; it does not run",
                ))
            })
        })
    });
    Toolbox::builder()
        .tools(tools)
        .build()
        .map_err(|e| format!("the tools cannot be checked: {e}"))
}

/// The tools of a tool list file (an MCP `tools/list` result, a JSON-RPC response holding one,
/// or an array of MCP tools), or of an export folder (its `mcp-2025-11-25.json`).
pub fn load_tools(path: &Path) -> Result<Vec<ToolSpec>, String> {
    let file = if path.is_dir() {
        path.join("mcp-2025-11-25.json")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read the tool list {}: {e}", file.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", file.display()))?;
    tools_of(&value).map_err(|e| format!("{}: {e}", file.display()))
}

/// The tools of a parsed tool list.
pub fn tools_of(value: &Value) -> Result<Vec<ToolSpec>, String> {
    let list = match value {
        Value::Array(list) => list,
        Value::Object(o) => o
            .get("tools")
            .or_else(|| o.get("result").and_then(|r| r.get("tools")))
            .and_then(Value::as_array)
            .ok_or("expected an array of tools, or an object with `tools` (or `result.tools`)")?,
        _ => return Err("expected an array of tools".into()),
    };
    list.iter()
        .enumerate()
        .map(|(i, tool)| {
            let name = tool["name"]
                .as_str()
                .ok_or_else(|| format!("tool {i} has no `name`"))?;
            let schema = tool
                .get("inputSchema")
                .or_else(|| tool.get("input_schema"))
                .or_else(|| tool.get("parameters"))
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"}));
            let mut spec = ToolSpec::new(
                name,
                tool["description"].as_str().unwrap_or_default(),
                schema,
            );
            if let Some(title) = tool["title"].as_str() {
                spec = spec.with_title(title);
            }
            if let Some(output) = tool.get("outputSchema").filter(|v| v.is_object()) {
                spec = spec.with_output_schema(output.clone());
            }
            Ok(spec)
        })
        .collect()
}
