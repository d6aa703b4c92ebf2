//! What an evaluation found: every trial of every case, and the figures a person reads from them
//! (accuracy with its interval, per tool; which tool was picked instead; argument errors by
//! parameter; tokens and cost), as JSON for CI and as a self-contained HTML page.

use crate::provider::Usage;
use crate::score::Outcome;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The JSON report's format, in its `schema` field.
pub const SCHEMA: &str = "toolsmith-eval/1";

/// A case's correct and scored trials.
pub type Counts = (u64, u64);

/// One trial: its outcome and what the model did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// What the trial came to.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The model's tool calls: `{"name", "arguments"}` (arguments as sent; text when not JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<Value>,
    /// The model's text, cut to 500 characters.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Requests and tokens of the trial.
    pub usage: Usage,
}

/// One case's trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    /// The case's id.
    pub id: String,
    /// The expected tool, or `none`.
    pub expect: String,
    /// The case's tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Its trials, in order.
    pub trials: Vec<Trial>,
}

impl CaseReport {
    /// The case's correct and scored trials.
    pub fn counts(&self) -> Counts {
        self.trials
            .iter()
            .filter(|t| t.outcome.is_scored())
            .fold((0, 0), |(k, n), t| {
                (k + u64::from(t.outcome.is_correct()), n + 1)
            })
    }
}

/// A whole run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// A label for the tools evaluated (a file, a revision, "toolbox").
    pub label: String,
    /// The API's slug.
    pub api: String,
    /// The model's name.
    pub model: String,
    /// The endpoint's base URL.
    pub endpoint: String,
    /// Trials per case.
    pub trials: u32,
    /// Wall time of the run, in milliseconds.
    pub duration_ms: u64,
    /// The cases, in the scenario file's order.
    pub cases: Vec<CaseReport>,
    /// Prices per million tokens (input, output), when given: the cost is computed from them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<(f64, f64)>,
}

/// A proportion with its 95% Wilson score interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Successes.
    pub correct: u64,
    /// Trials counted.
    pub scored: u64,
    /// `correct / scored` (0 when nothing was scored).
    pub rate: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// The interval's upper bound.
    pub high: f64,
}

/// z for a two-sided 95% interval.
const Z: f64 = 1.959_963_984_540_054;

impl Rate {
    /// The rate of cases' trials, `(correct, scored)` per case. The interval is the wider of
    /// Wilson's over all the trials and the case-clustered one (the pooled rate ± t·SE, the
    /// standard error taken between cases): a case's trials share their prompt and agree with
    /// each other more than with other cases' (at a low temperature they repeat), so counting
    /// them as independent would make the interval too narrow.
    pub fn of_cases(cases: &[Counts]) -> Rate {
        let (correct, scored) = cases
            .iter()
            .fold((0, 0), |(k, n), &(ki, ni)| (k + ki, n + ni));
        let mut rate = Rate::new(correct, scored);
        let scored_cases: Vec<(f64, f64)> = cases
            .iter()
            .filter(|&&(_, n)| n > 0)
            .map(|&(k, n)| (k as f64, n as f64))
            .collect();
        let m = scored_cases.len();
        if m >= 2 {
            // The ratio estimator's variance over clusters.
            let total = scored as f64;
            let sum_sq: f64 = scored_cases
                .iter()
                .map(|&(k, n)| (k - rate.rate * n).powi(2))
                .sum();
            let se = (m as f64 / (m as f64 - 1.0) * sum_sq).sqrt() / total;
            let half = t95(m - 1) * se;
            rate.low = rate.low.min((rate.rate - half).max(0.0));
            rate.high = rate.high.max((rate.rate + half).min(1.0));
        }
        rate
    }

    /// `correct` of `scored` independent trials, with Wilson's interval.
    pub fn new(correct: u64, scored: u64) -> Rate {
        let (low, high) = wilson(correct, scored);
        Rate {
            correct,
            scored,
            rate: if scored == 0 {
                0.0
            } else {
                correct as f64 / scored as f64
            },
            low,
            high,
        }
    }
}

/// The Wilson score interval of `k` successes in `n` (the whole range when `n` is 0).
fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z * Z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (1.96 past 30).
fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        _ => Z,
    }
}

/// Per tool: its accuracy and what its trials came to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolStats {
    /// The expected tool (`none` for the irrelevance cases).
    pub tool: String,
    /// Its accuracy.
    pub accuracy: Rate,
    /// Trials by outcome label.
    pub outcomes: BTreeMap<String, u64>,
}

/// Argument problems of one parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArgStats {
    /// The tool.
    pub tool: String,
    /// The parameter (empty: the arguments as a whole).
    pub param: String,
    /// Trials whose arguments the toolbox refused for it.
    pub invalid: u64,
    /// Trials with valid arguments where it did not hold what the case expects.
    pub mismatched: u64,
}

impl Report {
    /// Every scored trial of the run.
    pub fn accuracy(&self) -> Rate {
        self.rate_of(|_| true)
    }

    fn rate_of(&self, keep: impl Fn(&CaseReport) -> bool) -> Rate {
        let cases: Vec<(u64, u64)> = self
            .cases
            .iter()
            .filter(|c| keep(c))
            .map(CaseReport::counts)
            .collect();
        Rate::of_cases(&cases)
    }

    /// Trials by outcome label.
    pub fn outcomes(&self) -> BTreeMap<String, u64> {
        count_outcomes(self.cases.iter().flat_map(|c| &c.trials))
    }

    /// Per expected tool, in the order tools first appear among the cases.
    pub fn per_tool(&self) -> Vec<ToolStats> {
        let mut order: Vec<&str> = Vec::new();
        for c in &self.cases {
            if !order.contains(&c.expect.as_str()) {
                order.push(&c.expect);
            }
        }
        order
            .into_iter()
            .map(|tool| ToolStats {
                tool: tool.to_string(),
                accuracy: self.rate_of(|c| c.expect == tool),
                outcomes: count_outcomes(
                    self.cases
                        .iter()
                        .filter(|c| c.expect == tool)
                        .flat_map(|c| &c.trials),
                ),
            })
            .collect()
    }

    /// Which tool was called instead: expected → called → trials (`(none)` when no tool was
    /// called); only the trials that called another tool, or none when one was expected, or one
    /// when none was.
    pub fn confusion(&self) -> BTreeMap<String, BTreeMap<String, u64>> {
        let mut table: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        for case in &self.cases {
            for t in &case.trials {
                let picked = match &t.outcome {
                    Outcome::WrongTool { picked, .. } | Outcome::UnwantedCall { picked } => {
                        picked.clone()
                    }
                    Outcome::Forbidden { tool } => tool.clone(),
                    Outcome::NoCall => "(none)".to_string(),
                    _ => continue,
                };
                *table
                    .entry(case.expect.clone())
                    .or_default()
                    .entry(picked)
                    .or_default() += 1;
            }
        }
        table
    }

    /// Argument problems by tool and parameter, most frequent first.
    pub fn argument_errors(&self) -> Vec<ArgStats> {
        let mut by: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
        for case in &self.cases {
            for t in &case.trials {
                let tool = case.expect.clone();
                match &t.outcome {
                    Outcome::InvalidArguments { errors } => {
                        let mut params: Vec<&str> =
                            errors.iter().map(|e| e.param.as_str()).collect();
                        params.dedup();
                        for p in params {
                            by.entry((tool.clone(), p.to_string())).or_default().0 += 1;
                        }
                    }
                    Outcome::ArgumentMismatch { mismatches } => {
                        for m in mismatches {
                            by.entry((tool.clone(), m.param.clone())).or_default().1 += 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut list: Vec<ArgStats> = by
            .into_iter()
            .map(|((tool, param), (invalid, mismatched))| ArgStats {
                tool,
                param,
                invalid,
                mismatched,
            })
            .collect();
        list.sort_by_key(|a| std::cmp::Reverse(a.invalid + a.mismatched));
        list
    }

    /// Requests, retries and tokens of the whole run.
    pub fn usage(&self) -> Usage {
        let mut usage = Usage::default();
        for t in self.cases.iter().flat_map(|c| &c.trials) {
            usage.add(t.usage);
        }
        usage
    }

    /// The cost in the prices' currency, when prices were given.
    pub fn cost(&self) -> Option<f64> {
        let (input, output) = self.prices?;
        let u = self.usage();
        Some((u.input_tokens as f64 * input + u.output_tokens as f64 * output) / 1_000_000.0)
    }

    /// The report as JSON: the run, its summary figures and every trial.
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        v["schema"] = json!(SCHEMA);
        v["summary"] = json!({
            "accuracy": self.accuracy(),
            "outcomes": self.outcomes(),
            "usage": self.usage(),
            "cost": self.cost(),
        });
        v["tools"] = json!(self.per_tool());
        v["confusion"] = json!(self.confusion());
        v["argument_errors"] = json!(self.argument_errors());
        v
    }

    /// A report read back from [`to_json`](Self::to_json)'s output.
    pub fn from_json(text: &str) -> Result<Report, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        if v["schema"] != SCHEMA {
            return Err(format!(
                "not a {SCHEMA} report (its `schema` is {})",
                v["schema"]
            ));
        }
        serde_json::from_value(v).map_err(|e| format!("not a {SCHEMA} report: {e}"))
    }
}

fn count_outcomes<'a>(trials: impl Iterator<Item = &'a Trial>) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for t in trials {
        *counts.entry(t.outcome.label().to_string()).or_default() += 1;
    }
    counts
}

/// The difference of two accuracies (B − A), with Newcombe's 95% interval (the hybrid Wilson
/// score method for two independent proportions).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// A's accuracy.
    pub a: Rate,
    /// B's accuracy.
    pub b: Rate,
    /// `b.rate - a.rate`.
    pub difference: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// The interval's upper bound.
    pub high: f64,
}

impl Difference {
    /// B − A of two runs of the same cases, `(correct, scored)` of each case in A and in B
    /// (paired by case). The interval is the wider of Newcombe's over the trials and the
    /// case-paired one (the difference ± t·SE of the cases' own differences), for the reason
    /// [`Rate::of_cases`] gives.
    pub fn of_cases(pairs: &[(Counts, Counts)]) -> Difference {
        let a: Vec<(u64, u64)> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<(u64, u64)> = pairs.iter().map(|p| p.1).collect();
        let mut d = Difference::of(Rate::of_cases(&a), Rate::of_cases(&b));
        let diffs: Vec<f64> = pairs
            .iter()
            .filter(|(a, b)| a.1 > 0 && b.1 > 0)
            .map(|(a, b)| b.0 as f64 / b.1 as f64 - a.0 as f64 / a.1 as f64)
            .collect();
        let m = diffs.len();
        if m >= 2 {
            let mean = diffs.iter().sum::<f64>() / m as f64;
            let var = diffs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (m as f64 - 1.0);
            let half = t95(m - 1) * (var / m as f64).sqrt();
            d.low = d.low.min((d.difference - half).max(-1.0));
            d.high = d.high.max((d.difference + half).min(1.0));
        }
        d
    }

    /// B − A of two independent rates, with Newcombe's interval.
    pub fn of(a: Rate, b: Rate) -> Difference {
        let d = b.rate - a.rate;
        let low = d - ((b.rate - b.low).powi(2) + (a.high - a.rate).powi(2)).sqrt();
        let high = d + ((b.high - b.rate).powi(2) + (a.rate - a.low).powi(2)).sqrt();
        Difference {
            a,
            b,
            difference: d,
            low: low.max(-1.0),
            high: high.min(1.0),
        }
    }

    /// Whether the interval excludes zero: the change is unlikely to be noise.
    pub fn is_significant(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// Two runs of the same scenarios on two versions of a tool list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The first version's run.
    pub a: Report,
    /// The second version's run.
    pub b: Report,
}

/// One tool's difference between the versions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolDifference {
    /// The expected tool.
    pub tool: String,
    /// Its accuracy's change.
    pub difference: Difference,
}

impl Comparison {
    /// The overall change.
    pub fn overall(&self) -> Difference {
        Difference::of_cases(&self.pairs(|_| true))
    }

    /// The change per expected tool, in A's order.
    pub fn per_tool(&self) -> Vec<ToolDifference> {
        self.a
            .per_tool()
            .into_iter()
            .map(|t| ToolDifference {
                difference: Difference::of_cases(&self.pairs(|c| c.expect == t.tool)),
                tool: t.tool,
            })
            .collect()
    }

    /// Each case of A kept by `keep`, with the same case of B (by id; a case B lacks is
    /// unscored there).
    fn pairs(&self, keep: impl Fn(&CaseReport) -> bool) -> Vec<(Counts, Counts)> {
        let b: BTreeMap<&str, &CaseReport> =
            self.b.cases.iter().map(|c| (c.id.as_str(), c)).collect();
        self.a
            .cases
            .iter()
            .filter(|c| keep(c))
            .map(|c| {
                let other = b.get(c.id.as_str()).map_or((0, 0), |o| o.counts());
                (c.counts(), other)
            })
            .collect()
    }

    /// Both runs and the differences, as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "schema": "toolsmith-eval-ab/1",
            "a": self.a.to_json(),
            "b": self.b.to_json(),
            "overall": self.overall(),
            "tools": self.per_tool(),
        })
    }
}
