//! Scoring one answer against its case: which tool, whether the toolbox would accept the
//! arguments (its own validator, no tool run), whether they hold what the case expects, and
//! whether a forbidden tool was called.

use crate::provider::{Answer, AskError, Call};
use crate::scenario::{Case, Expect};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_core::Toolbox;

/// What one trial of a case came to. Exactly one per trial; the first that applies, in this
/// order: no answer, a forbidden tool called, then by what the case expects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The expected tool, with arguments the toolbox accepts and that hold what the case expects.
    Correct,
    /// No tool fitted, and the model called none.
    Abstained,
    /// A tool was expected; the model called none.
    NoCall,
    /// Another tool than the expected one (`known`: one of the list; else a name the model made
    /// up).
    WrongTool {
        /// The tool called.
        picked: String,
        /// Whether it is one of the tools sent.
        known: bool,
    },
    /// No tool fitted, yet the model called one.
    UnwantedCall {
        /// The tool called.
        picked: String,
    },
    /// The model called a tool the case forbids.
    Forbidden {
        /// The tool called.
        tool: String,
    },
    /// The expected tool, with arguments the toolbox refuses.
    InvalidArguments {
        /// Each problem, by parameter.
        errors: Vec<ParamError>,
    },
    /// The expected tool, with valid arguments that do not hold what the case expects.
    ArgumentMismatch {
        /// Each argument that does not hold.
        mismatches: Vec<Mismatch>,
    },
    /// The endpoint answered something that is not its API's answer (not scored).
    Malformed {
        /// What was wrong.
        reason: String,
    },
    /// No answer came: refused, unreachable, no key (not scored).
    Failed {
        /// Why.
        reason: String,
    },
}

impl Outcome {
    /// Whether the trial is a success.
    pub fn is_correct(&self) -> bool {
        matches!(self, Outcome::Correct | Outcome::Abstained)
    }

    /// Whether the trial counts toward accuracy (the model answered in its API's form).
    pub fn is_scored(&self) -> bool {
        !matches!(self, Outcome::Malformed { .. } | Outcome::Failed { .. })
    }

    /// The outcome's name, as in the JSON (`correct`, `wrong_tool`, ...).
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Correct => "correct",
            Outcome::Abstained => "abstained",
            Outcome::NoCall => "no_call",
            Outcome::WrongTool { .. } => "wrong_tool",
            Outcome::UnwantedCall { .. } => "unwanted_call",
            Outcome::Forbidden { .. } => "forbidden",
            Outcome::InvalidArguments { .. } => "invalid_arguments",
            Outcome::ArgumentMismatch { .. } => "argument_mismatch",
            Outcome::Malformed { .. } => "malformed",
            Outcome::Failed { .. } => "failed",
        }
    }

    /// Every label, in the order reports list them.
    pub const LABELS: [&'static str; 10] = [
        "correct",
        "abstained",
        "no_call",
        "wrong_tool",
        "unwanted_call",
        "forbidden",
        "invalid_arguments",
        "argument_mismatch",
        "malformed",
        "failed",
    ];
}

/// A problem the toolbox found with one argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamError {
    /// The top-level parameter (empty when the arguments as a whole are wrong).
    pub param: String,
    /// The validator's code (`MISSING_ARGUMENT`, `INVALID_ARGUMENT`, ...).
    pub code: String,
    /// The validator's message.
    pub message: String,
}

/// An argument that does not hold what the case expects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// The parameter.
    pub param: String,
    /// What the case expects, as a person reads it.
    pub expected: String,
    /// What the model sent (after validation), `None` when left out.
    pub got: Option<Value>,
}

/// Scores `answer` (or the failure to get one) against `case`, checking arguments with
/// `toolbox` (no tool runs).
pub fn score(case: &Case, answer: &Result<Answer, AskError>, toolbox: &Toolbox) -> Outcome {
    let answer = match answer {
        Ok(answer) => answer,
        Err(AskError::Malformed(reason)) => {
            return Outcome::Malformed {
                reason: reason.clone(),
            }
        }
        Err(e) => {
            return Outcome::Failed {
                reason: e.to_string(),
            }
        }
    };
    if let Some(call) = answer.calls.iter().find(|c| case.forbid.contains(&c.name)) {
        return Outcome::Forbidden {
            tool: call.name.clone(),
        };
    }
    let expected = match &case.expect {
        Expect::Nothing => {
            return match answer.calls.first() {
                None => Outcome::Abstained,
                Some(call) => Outcome::UnwantedCall {
                    picked: call.name.clone(),
                },
            }
        }
        Expect::Tool(name) => name,
    };
    let Some(call) = answer
        .calls
        .iter()
        .find(|c| &c.name == expected)
        .or(answer.calls.first())
    else {
        return Outcome::NoCall;
    };
    if &call.name != expected {
        return Outcome::WrongTool {
            picked: call.name.clone(),
            known: toolbox.spec(&call.name).is_some(),
        };
    }
    arguments(case, call, toolbox)
}

/// The outcome of the expected tool's call, by its arguments.
fn arguments(case: &Case, call: &Call, toolbox: &Toolbox) -> Outcome {
    let args = match &call.arguments {
        Ok(args) => args.clone(),
        Err(text) => {
            return Outcome::InvalidArguments {
                errors: vec![ParamError {
                    param: String::new(),
                    code: "NOT_JSON".into(),
                    message: format!("the arguments are not a JSON object: {text}"),
                }],
            }
        }
    };
    let valid = match toolbox.check_arguments(&call.name, args) {
        // Scoring only reaches here for the expected tool, which the toolbox has.
        None => {
            return Outcome::WrongTool {
                picked: call.name.clone(),
                known: false,
            }
        }
        Some(Err(errors)) => {
            return Outcome::InvalidArguments {
                errors: errors
                    .into_iter()
                    .map(|e| ParamError {
                        param: top_param(&e.path),
                        code: e.code.to_string(),
                        message: e.message,
                    })
                    .collect(),
            }
        }
        Some(Ok(valid)) => valid,
    };
    let mismatches: Vec<Mismatch> = case
        .args
        .iter()
        .filter(|(name, want)| !want.holds(valid.get(name.as_str())))
        .map(|(name, want)| Mismatch {
            param: name.clone(),
            expected: want.describe(),
            got: valid.get(name.as_str()).cloned(),
        })
        .collect();
    if mismatches.is_empty() {
        Outcome::Correct
    } else {
        Outcome::ArgumentMismatch { mismatches }
    }
}

/// The top-level parameter of a validator path (`filters.size` → `filters`, `skus[1]` → `skus`).
fn top_param(path: &str) -> String {
    path.split(['.', '['])
        .next()
        .unwrap_or_default()
        .to_string()
}
