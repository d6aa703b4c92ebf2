//! Scenarios as data: the cases an evaluation sends to a model, in a TOML file that lives beside
//! the tools.
//!
//! ```toml
//! # Optional, for every case of the file.
//! system = "You keep the user's notes."
//!
//! [[case]]
//! id = "add-a-note"                      # unique in the file
//! prompt = "Remember that the tent is packed."
//! expect = "add_note"                    # the tool the model should call
//! forbid = ["clear_notes"]               # tools it must not call
//! tags = ["writes"]
//! [case.args]                            # what the call's arguments should hold
//! text = { contains = "tent" }           # a substring, case ignored
//! note_id = { any = true }               # present, any valid value
//!
//! [[case]]
//! id = "weather-is-not-ours"
//! prompt = "What's the weather in Paris?"
//! expect = "none"                        # no tool fits: an irrelevance case
//!
//! [[case]]
//! id = "follow-up"
//! prompt = "And clear them all."
//! expect = "clear_notes"
//! [[case.history]]                       # prior turns, oldest first
//! role = "user"
//! text = "What are my notes?"
//! [[case.history]]
//! role = "assistant"
//! text = "You have two notes."
//! ```
//!
//! An argument's expectation is a value (equal after the toolbox's own normalization: defaults
//! filled in, integers written as floats made integers) or a table of exactly one of:
//!
//! | form | holds when the argument |
//! |---|---|
//! | `{ equals = V }` | equals `V` (the form for a table value) |
//! | `{ pattern = "re" }` | is a string the regular expression matches (anywhere; anchor it with `^...$`) |
//! | `{ contains = "s" }` | is a string that contains `s`, case ignored |
//! | `{ one_of = [V, ...] }` | equals one of the values |
//! | `{ any = true }` | is present (with any valid value) |
//! | `{ absent = true }` | is left out |
//!
//! A form may add `optional = true`: leaving the argument out holds too (`{ one_of = [1, 2],
//! optional = true }`).
//!
//! A case may name a tool list of its own, `tools = "path/to/tools.json"` (relative to the
//! scenario file; an MCP `tools/list` result or an array of MCP tools): it is sent, and its
//! calls scored, instead of the evaluation's tools. Imported benchmarks, whose every case has its
//! own functions, use it.
//!
//! [`Scenarios::check`] checks a file against the tools: every named tool exists, every expected
//! argument is a parameter of the expected tool, and every expected value is one the tool
//! accepts. Run it in a test, so a renamed tool or parameter fails the build's tests.

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;
use toolsmith_core::ToolSpec;

/// The word `expect` takes for an irrelevance case.
pub const NONE: &str = "none";

/// A file of cases.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenarios {
    /// The system prompt every case is sent with, if any.
    pub system: Option<String>,
    /// The cases, in the file's order.
    pub cases: Vec<Case>,
}

/// One case: a request and what the model should do with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// Unique in its file.
    pub id: String,
    /// The user's request.
    pub prompt: String,
    /// Turns before the request, oldest first.
    pub history: Vec<Turn>,
    /// The tool the model should call, or none.
    pub expect: Expect,
    /// What the call's arguments should hold, by parameter.
    pub args: BTreeMap<String, ArgExpect>,
    /// Tools the model must not call.
    pub forbid: Vec<String>,
    /// Free labels, for a person reading the report.
    pub tags: Vec<String>,
    /// The case's own tool list file, resolved against the scenario file's folder.
    pub tools: Option<std::path::PathBuf>,
}

/// One earlier turn of the conversation.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// Who spoke.
    pub role: Role,
    /// What they said.
    pub text: String,
}

/// Who spoke a [`Turn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (the model).
    Assistant,
}

/// What a case expects the model to call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// This tool.
    Tool(String),
    /// No tool: none of them fits the request.
    Nothing,
}

impl Expect {
    /// The tool's name, or `none`.
    pub fn label(&self) -> &str {
        match self {
            Expect::Tool(name) => name,
            Expect::Nothing => NONE,
        }
    }
}

/// What one argument should hold (the table in the [module docs](self)), and whether leaving it
/// out holds too.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgExpect {
    /// The form.
    pub form: ArgForm,
    /// Whether leaving the argument out holds too.
    pub optional: bool,
}

impl ArgExpect {
    /// Whether `got` (the argument's value after validation, `None` when left out) holds.
    pub fn holds(&self, got: Option<&Value>) -> bool {
        (self.optional && got.is_none()) || self.form.holds(got)
    }

    /// How a report shows the expectation.
    pub fn describe(&self) -> String {
        let form = self.form.describe();
        if self.optional {
            format!("{form}, or left out")
        } else {
            form
        }
    }
}

/// The form of an [`ArgExpect`].
#[derive(Clone, Debug)]
pub enum ArgForm {
    /// Equal to the value.
    Equals(Value),
    /// A string the expression matches.
    Pattern(Regex),
    /// A string containing this, case ignored (kept lower-cased).
    Contains(String),
    /// Equal to one of the values.
    OneOf(Vec<Value>),
    /// Present, any valid value.
    Any,
    /// Left out.
    Absent,
}

impl PartialEq for ArgForm {
    fn eq(&self, other: &ArgForm) -> bool {
        match (self, other) {
            (ArgForm::Pattern(a), ArgForm::Pattern(b)) => a.as_str() == b.as_str(),
            (ArgForm::Equals(a), ArgForm::Equals(b)) => a == b,
            (ArgForm::Contains(a), ArgForm::Contains(b)) => a == b,
            (ArgForm::OneOf(a), ArgForm::OneOf(b)) => a == b,
            (ArgForm::Any, ArgForm::Any) | (ArgForm::Absent, ArgForm::Absent) => true,
            _ => false,
        }
    }
}

impl ArgForm {
    /// Whether `got` (the argument's value after validation, `None` when left out) holds.
    pub fn holds(&self, got: Option<&Value>) -> bool {
        match (self, got) {
            (ArgForm::Absent, got) => got.is_none(),
            (_, None) => false,
            (ArgForm::Any, Some(_)) => true,
            (ArgForm::Equals(want), Some(got)) => same(want, got),
            (ArgForm::OneOf(wants), Some(got)) => wants.iter().any(|w| same(w, got)),
            (ArgForm::Pattern(re), Some(got)) => got.as_str().is_some_and(|s| re.is_match(s)),
            (ArgForm::Contains(part), Some(got)) => got
                .as_str()
                .is_some_and(|s| s.to_lowercase().contains(part.as_str())),
        }
    }

    /// How a report shows the expectation.
    pub fn describe(&self) -> String {
        match self {
            ArgForm::Equals(v) => v.to_string(),
            ArgForm::Pattern(re) => format!("matching /{}/", re.as_str()),
            ArgForm::Contains(s) => format!("containing \"{s}\""),
            ArgForm::OneOf(vs) => format!(
                "one of {}",
                vs.iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            ArgForm::Any => "any valid value".into(),
            ArgForm::Absent => "left out".into(),
        }
    }

    /// The values a check asks the tool to accept (those an `equals` or `one_of` names).
    fn values(&self) -> &[Value] {
        match self {
            ArgForm::Equals(v) => std::slice::from_ref(v),
            ArgForm::OneOf(vs) => vs,
            _ => &[],
        }
    }
}

/// JSON equality with numbers compared by value (`3` and `3.0` are the same argument).
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A scenario file that cannot be read, with where and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or the label the text was given).
    pub origin: String,
    /// The 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong and what right looks like.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.origin, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRaw {
    system: Option<String>,
    #[serde(default, rename = "case")]
    cases: Vec<toml::Spanned<CaseRaw>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseRaw {
    id: String,
    prompt: String,
    expect: String,
    #[serde(default)]
    history: Vec<Turn>,
    #[serde(default)]
    args: BTreeMap<String, toml::Value>,
    #[serde(default)]
    forbid: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    tools: Option<String>,
}

impl Scenarios {
    /// Reads a scenario file.
    pub fn load(path: impl AsRef<Path>) -> Result<Scenarios, ScenarioError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
            origin: origin.clone(),
            line: None,
            message: format!("cannot read the scenario file: {e}"),
        })?;
        let mut scenarios = Scenarios::parse(&text, &origin)?;
        let folder = path.parent().unwrap_or(Path::new(""));
        for case in &mut scenarios.cases {
            if let Some(tools) = &mut case.tools {
                *tools = folder.join(&*tools);
            }
        }
        Ok(scenarios)
    }

    /// Parses scenario text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Scenarios, ScenarioError> {
        let error = |offset: Option<usize>, message: String| ScenarioError {
            origin: origin.to_string(),
            line: offset.map(|at| line_of(text, at)),
            message,
        };
        let raw: FileRaw = toml::from_str(text).map_err(|e| {
            let message = e.message().trim_end().to_string();
            error(e.span().map(|s| s.start), message)
        })?;
        if raw.cases.is_empty() {
            return Err(error(
                None,
                "the file has no cases: add one `[[case]]` with `id`, `prompt` and `expect`".into(),
            ));
        }
        let mut seen = BTreeSet::new();
        let mut cases = Vec::with_capacity(raw.cases.len());
        for spanned in raw.cases {
            let at = Some(spanned.span().start);
            let raw = spanned.into_inner();
            let id = raw.id.trim().to_string();
            if id.is_empty() {
                return Err(error(at, "a case's `id` is empty".into()));
            }
            if !seen.insert(id.clone()) {
                return Err(error(at, format!("two cases have the id \"{id}\"")));
            }
            if raw.prompt.trim().is_empty() {
                return Err(error(at, format!("case \"{id}\": `prompt` is empty")));
            }
            let expect = match raw.expect.trim() {
                "" => {
                    return Err(error(
                        at,
                        format!("case \"{id}\": `expect` is empty: name a tool, or \"none\""),
                    ))
                }
                NONE => Expect::Nothing,
                name => Expect::Tool(name.to_string()),
            };
            if expect == Expect::Nothing && !raw.args.is_empty() {
                return Err(error(
                    at,
                    format!("case \"{id}\" expects no tool, so it cannot expect arguments"),
                ));
            }
            let mut args = BTreeMap::new();
            for (name, value) in raw.args {
                let parsed = arg_expect(&value)
                    .map_err(|why| error(at, format!("case \"{id}\", argument `{name}`: {why}")))?;
                args.insert(name, parsed);
            }
            cases.push(Case {
                id,
                prompt: raw.prompt,
                history: raw.history,
                expect,
                args,
                forbid: raw.forbid,
                tags: raw.tags,
                tools: raw.tools.map(std::path::PathBuf::from),
            });
        }
        Ok(Scenarios {
            system: raw.system,
            cases,
        })
    }

    /// Checks the cases against the tools they name: every expected and forbidden tool is one of
    /// `specs`, every expected argument is a parameter of the expected tool, and every value an
    /// `equals` or `one_of` names is one the parameter's schema accepts (checked by
    /// `accepts(tool, arguments)`, which an evaluation answers with the toolbox's own
    /// validator). Every problem is returned, each naming its case.
    pub fn check(
        &self,
        specs: &[ToolSpec],
        accepts: impl Fn(&str, &str, &Value) -> Result<(), String>,
    ) -> Result<(), Vec<String>> {
        let tools: BTreeMap<&str, &ToolSpec> = specs.iter().map(|s| (s.name.as_str(), s)).collect();
        let mut problems = Vec::new();
        let known = |name: &str| tools.contains_key(name);
        let list = || tools.keys().copied().collect::<Vec<_>>().join(", ");
        for case in &self.cases {
            let id = &case.id;
            if tools.contains_key(NONE) {
                problems.push(format!(
                    "case \"{id}\": a tool is named \"none\", the word `expect` uses for no tool; rename the tool"
                ));
            }
            for name in &case.forbid {
                if !known(name) {
                    problems.push(format!(
                        "case \"{id}\": forbids \"{name}\", which no tool is named (tools: {})",
                        list()
                    ));
                }
                if case.expect == Expect::Tool(name.clone()) {
                    problems.push(format!(
                        "case \"{id}\": expects and forbids the same tool \"{name}\""
                    ));
                }
            }
            let Expect::Tool(expected) = &case.expect else {
                continue;
            };
            let Some(spec) = tools.get(expected.as_str()) else {
                problems.push(format!(
                    "case \"{id}\": expects \"{expected}\", which no tool is named (tools: {})",
                    list()
                ));
                continue;
            };
            let params: BTreeSet<&str> = spec.input_schema["properties"]
                .as_object()
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            for (name, want) in &case.args {
                if !params.contains(name.as_str()) {
                    problems.push(format!(
                        "case \"{id}\": expects the argument `{name}`, which \"{expected}\" does not have (its parameters: {})",
                        params.iter().copied().collect::<Vec<_>>().join(", ")
                    ));
                    continue;
                }
                for value in want.form.values() {
                    if let Err(why) = accepts(expected, name, value) {
                        problems.push(format!(
                            "case \"{id}\": \"{expected}\" would refuse `{name}` = {value}: {why}"
                        ));
                    }
                }
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// One argument's expectation from its TOML value.
fn arg_expect(value: &toml::Value) -> Result<ArgExpect, String> {
    let json = |v: &toml::Value| serde_json::to_value(v).map_err(|e| e.to_string());
    let toml::Value::Table(table) = value else {
        return Ok(ArgExpect {
            form: ArgForm::Equals(json(value)?),
            optional: false,
        });
    };
    let mut table = table.clone();
    let optional = match table.remove("optional") {
        None => false,
        Some(toml::Value::Boolean(b)) => b,
        Some(_) => return Err("`optional` takes `true` or `false`".into()),
    };
    Ok(ArgExpect {
        form: arg_form(&table)?,
        optional,
    })
}

/// The form of an expectation's table (without `optional`).
fn arg_form(table: &toml::Table) -> Result<ArgForm, String> {
    let json = |v: &toml::Value| serde_json::to_value(v).map_err(|e| e.to_string());
    let forms = "`equals`, `pattern`, `contains`, `one_of`, `any` or `absent`";
    let mut entries = table.iter();
    let (Some((form, v)), None) = (entries.next(), entries.next()) else {
        return Err(format!(
            "a table must hold exactly one of {forms}; for a table value write {{ equals = {{ ... }} }}"
        ));
    };
    let text = |what: &str| {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("`{form}` takes {what}"))
    };
    match form.as_str() {
        "equals" => Ok(ArgForm::Equals(json(v)?)),
        "pattern" => {
            let source = text("a regular expression, as a string")?;
            Regex::new(&source)
                .map(ArgForm::Pattern)
                .map_err(|e| format!("`pattern` is not a regular expression: {e}"))
        }
        "contains" => Ok(ArgForm::Contains(text("a string")?.to_lowercase())),
        "one_of" => match v {
            toml::Value::Array(items) if !items.is_empty() => Ok(ArgForm::OneOf(
                items.iter().map(json).collect::<Result<_, _>>()?,
            )),
            _ => Err("`one_of` takes a non-empty array of values".into()),
        },
        "any" | "absent" if v.as_bool() == Some(true) => Ok(if form == "any" {
            ArgForm::Any
        } else {
            ArgForm::Absent
        }),
        "any" | "absent" => Err(format!("`{form}` takes `true`")),
        other => Err(format!(
            "`{other}` is not a form of expectation; use {forms}, or {{ equals = {{ ... }} }} for a table value"
        )),
    }
}
