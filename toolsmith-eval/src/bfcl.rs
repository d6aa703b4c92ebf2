//! Imports the Berkeley Function-Calling Leaderboard (BFCL,
//! <https://github.com/ShishirPatil/gorilla>, folder `berkeley-function-call-leaderboard`,
//! Apache-2.0) as [scenario files](crate::scenario): one call per case, each case with its own
//! tool list.
//!
//! BFCL publishes a category as two JSON-lines files: the questions
//! (`bfcl_eval/data/BFCL_v4_simple_python.json`), each line `{"id", "question": [[{"role",
//! "content"}, ...], ...], "function": [{"name", "description", "parameters"}]}`, and the possible
//! answers (`bfcl_eval/data/possible_answer/BFCL_v4_simple_python.json`), each line `{"id",
//! "ground_truth": [{"function_name": {"param": [acceptable values, ...]}}]}`. [`convert`] turns
//! one category into a scenario file and one MCP tool list per case:
//!
//! - **Functions → MCP tools** (`{"name", "description", "inputSchema"}`). A dot in a name becomes
//!   `_` (`math.factorial` → `math_factorial`), as BFCL renames them for OpenAI-style models, and
//!   the expected tool is renamed the same way. BFCL's types become JSON Schema's (`dict` →
//!   `object`, `float` → `number`, `tuple` → `array`, `list` → `array`, `bool` → `boolean`, and
//!   the Java and JavaScript names of BFCL's own table); `any` leaves the type out (BFCL sends
//!   `string`). Every other keyword (descriptions, `enum`, `default`, `required`, BFCL's
//!   non-standard `optional`, which JSON Schema reads as an annotation) is kept as it is, in
//!   `properties`, `items` and `additionalProperties` at every depth.
//! - **Each case**: `id` is BFCL's, `prompt` the last user message, earlier messages (of every
//!   turn) its `history`, `expect` the function of the ground truth, `tools` the case's own list
//!   (`<tools_dir>/<id>.json`), `tags = ["bfcl", <category>]`, no `forbid`.
//! - **Arguments**: a parameter's acceptable values become a plain value (one value), `{ equals =
//!   ... }` (one table) or `{ one_of = [...] }`; a `""` among them means the parameter may be left
//!   out: it is dropped and the expectation gets `optional = true` (`[""]` alone becomes `{ absent
//!   = true }`). A parameter of the expected function that the ground truth does not name becomes
//!   `{ absent = true }`: BFCL fails a call that passes it. A `dict` parameter's answers hold, per
//!   key, a list of acceptable values (`""` again for a key that may be left out), and an array
//!   of `dict`s holds such a dictionary per element: these are expanded into the whole values
//!   they accept (at most [`MAX_ALTERNATIVES`]). An acceptable value outside the parameter's
//!   type or `enum` (by BFCL's schema, at every depth) is left out, and named in the file's
//!   header: BFCL's checker checks the type before the value, and the toolbox refuses a value
//!   outside the `enum`, so no call could match it.
//!
//! What BFCL's AST checker accepts and these expectations do not (they compare JSON values,
//! numbers by value): strings are compared after removing spaces and `,./-_*^`, lower-casing and
//! reading `'` as `"` (`"San Francisco, CA"` = `"san francisco ca"`), in a list's string elements
//! and a dictionary's string values too; and a string argument `""` is accepted where `""` marks
//! the parameter optional.
//!
//! Cases that cannot be expressed are left out, each with its reason in
//! [`Converted::skipped`]: a ground truth of more than one call (the parallel categories) or of
//! none, a system message (a scenario file has one `system` for all its cases), a value holding
//! `null` (TOML has none), a ground truth naming a function or a parameter the case does not
//! have.

use crate::scenario::same;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The repository BFCL lives in.
pub const REPOSITORY: &str = "https://github.com/ShishirPatil/gorilla";

/// The most whole values one parameter's expectation is expanded into (from a `dict`'s
/// per-key alternatives); a case needing more is skipped.
pub const MAX_ALTERNATIVES: usize = 64;

/// One converted BFCL category: the scenario file's text and each case's tool list (file name →
/// MCP tools JSON).
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    /// The scenario file (TOML), its header naming the source.
    pub scenarios: String,
    /// Each case's tool list: its file name (`<id>.json`, in `tools_dir`) and the array of MCP
    /// tools it holds, in the cases' order.
    pub tools: Vec<(String, Value)>,
    /// The cases left out: their id and why.
    pub skipped: Vec<(String, String)>,
}

/// Where the converted lines come from, named in the scenario file's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source<'a> {
    /// The commit of [`REPOSITORY`] the files were taken from.
    pub commit: &'a str,
    /// The questions file, as a path in the repository.
    pub questions: &'a str,
    /// The possible answers file, as a path in the repository.
    pub answers: &'a str,
}

/// Converts one BFCL category: `questions_jsonl` and `answers_jsonl` are the two files' text,
/// `category` names the category in the tags and the header (`simple`, `multiple`), and
/// `tools_dir` is the folder, relative to the scenario file, where the tool lists are written.
/// The header names the repository but no commit: [`convert_from`] names it.
///
/// An error when a line is not a JSON object with an `id`, an id repeats, or no case at all can
/// be converted; a case that cannot be converted is [skipped](Converted::skipped).
pub fn convert(
    questions_jsonl: &str,
    answers_jsonl: &str,
    category: &str,
    tools_dir: &str,
) -> Result<Converted, String> {
    convert_inner(None, questions_jsonl, answers_jsonl, category, tools_dir)
}

/// [`convert`], the header naming the commit and files the lines were taken from.
pub fn convert_from(
    source: &Source<'_>,
    questions_jsonl: &str,
    answers_jsonl: &str,
    category: &str,
    tools_dir: &str,
) -> Result<Converted, String> {
    convert_inner(
        Some(source),
        questions_jsonl,
        answers_jsonl,
        category,
        tools_dir,
    )
}

impl Converted {
    /// The text of a tool list file: the tools as pretty JSON, with a final newline.
    pub fn tool_file_text(tools: &Value) -> String {
        let mut text = serde_json::to_string_pretty(tools).expect("JSON values serialize");
        text.push('\n');
        text
    }

    /// Writes the scenario file to `dir/scenario_file` and each tool list to
    /// `dir/tools_dir/<id>.json` (`tools_dir` as given to [`convert`]), creating the folders.
    pub fn write(&self, dir: &Path, scenario_file: &str, tools_dir: &str) -> Result<(), String> {
        let tools = dir.join(tools_dir);
        std::fs::create_dir_all(&tools)
            .map_err(|e| format!("cannot create {}: {e}", tools.display()))?;
        let write = |path: &Path, text: &str| {
            std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
        };
        write(&dir.join(scenario_file), &self.scenarios)?;
        for (name, list) in &self.tools {
            write(&tools.join(name), &Converted::tool_file_text(list))?;
        }
        Ok(())
    }
}

fn convert_inner(
    source: Option<&Source<'_>>,
    questions_jsonl: &str,
    answers_jsonl: &str,
    category: &str,
    tools_dir: &str,
) -> Result<Converted, String> {
    let category = category.trim();
    if category.is_empty() || category.contains(char::is_control) {
        return Err("the category must be a non-empty word, such as `simple`".into());
    }
    let tools_dir = tools_dir.trim_end_matches('/');
    let answers = lines(answers_jsonl, "answers")?;
    let mut by_id = BTreeMap::new();
    for (line, answer) in &answers {
        if by_id
            .insert(id_of(answer, "answers", *line)?, answer)
            .is_some()
        {
            return Err(format!(
                "answers line {line}: the id {} repeats",
                answer["id"]
            ));
        }
    }
    let mut seen = BTreeSet::new();
    let mut cases = Vec::new();
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    let mut dropped = Vec::new();
    for (line, question) in lines(questions_jsonl, "questions")? {
        let id = id_of(&question, "questions", line)?;
        if !seen.insert(id.clone()) {
            return Err(format!("questions line {line}: the id \"{id}\" repeats"));
        }
        match case(&id, &question, by_id.get(&id).copied(), category, tools_dir) {
            Ok((case, list, notes)) => {
                dropped.extend(notes);
                cases.push(case);
                tools.push((format!("{id}.json"), list));
            }
            Err(why) => skipped.push((id, why)),
        }
    }
    if cases.is_empty() {
        return Err(format!(
            "no case could be converted ({} questions, {} skipped{})",
            seen.len(),
            skipped.len(),
            skipped
                .first()
                .map(|(id, why)| format!("; the first, \"{id}\": {why}"))
                .unwrap_or_default()
        ));
    }
    let body = toml::to_string(&FileOut { case: cases })
        .map_err(|e| format!("the scenario file cannot be written as TOML: {e}"))?;
    Ok(Converted {
        scenarios: header(source, category, &skipped, &dropped) + "\n" + &body,
        tools,
        skipped,
    })
}

/// The file's non-blank lines as JSON, with their 1-based line numbers.
fn lines(text: &str, what: &str) -> Result<Vec<(usize, Value)>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .map(|v| (i + 1, v))
                .map_err(|e| format!("{what} line {}: not JSON: {e}", i + 1))
        })
        .collect()
}

fn id_of(v: &Value, what: &str, line: usize) -> Result<String, String> {
    match v.get("id") {
        Some(Value::String(id)) if !id.trim().is_empty() => Ok(id.trim().to_string()),
        _ => Err(format!(
            "{what} line {line}: not a BFCL entry (an object with a string `id`)"
        )),
    }
}

/// The comment that opens the scenario file.
fn header(
    source: Option<&Source<'_>>,
    category: &str,
    skipped: &[(String, String)],
    dropped: &[String],
) -> String {
    // TOML comments hold no control characters (a line break would end the comment).
    let one_line = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect()
    };
    let mut h = format!(
        "# BFCL (Berkeley Function-Calling Leaderboard), category \"{}\", converted by\n\
         # toolsmith_eval::bfcl: one call per case, each case with its own tool list.\n\
         # Source: {REPOSITORY}, folder berkeley-function-call-leaderboard,\n",
        one_line(category)
    );
    match source {
        Some(s) => {
            h += &format!("# commit {},\n", one_line(s.commit));
            h += &format!("# questions {},\n", one_line(s.questions));
            h += &format!("# answers {}.\n", one_line(s.answers));
        }
        None => h += "# (commit and files not recorded).\n",
    }
    h +=
        "# Licence: Apache-2.0, copyright the Gorilla / BFCL authors (the repository's LICENSE);\n\
          # converted (names, types and answers rewritten as the module docs of bfcl.rs say).\n";
    for (id, why) in skipped {
        h += &format!("# Skipped {}: {}\n", one_line(id), one_line(why));
    }
    for note in dropped {
        h += &format!("# Dropped {}\n", one_line(note));
    }
    h
}

#[derive(Serialize)]
struct FileOut {
    case: Vec<CaseOut>,
}

#[derive(Serialize)]
struct CaseOut {
    id: String,
    prompt: String,
    expect: String,
    tools: String,
    tags: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    history: Vec<TurnOut>,
    #[serde(skip_serializing_if = "Args::is_empty")]
    args: Args,
}

#[derive(Serialize)]
struct TurnOut {
    role: &'static str,
    text: String,
}

/// The arguments in the ground truth's order (then the function's), whatever map the `toml`
/// crate is built with.
struct Args(Vec<(String, ArgOut)>);

impl Args {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Args {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// One argument's expectation, as the scenario format writes it.
enum ArgOut {
    Plain(Value),
    Equals(Value, bool),
    OneOf(Vec<Value>, bool),
    Absent,
}

impl Serialize for ArgOut {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (optional, mut map) = match self {
            ArgOut::Plain(v) => return v.serialize(s),
            ArgOut::Equals(v, optional) => {
                let mut map = s.serialize_map(None)?;
                map.serialize_entry("equals", v)?;
                (*optional, map)
            }
            ArgOut::OneOf(vs, optional) => {
                let mut map = s.serialize_map(None)?;
                map.serialize_entry("one_of", vs)?;
                (*optional, map)
            }
            ArgOut::Absent => {
                let mut map = s.serialize_map(None)?;
                map.serialize_entry("absent", &true)?;
                (false, map)
            }
        };
        if optional {
            map.serialize_entry("optional", &true)?;
        }
        map.end()
    }
}

/// One case, its tool list and the acceptable values it drops (each described), or why it is
/// skipped.
fn case(
    id: &str,
    question: &Value,
    answer: Option<&Value>,
    category: &str,
    tools_dir: &str,
) -> Result<(CaseOut, Value, Vec<String>), String> {
    if id.starts_with('.')
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err("the id is not a safe file name (letters, digits, `_`, `-`, `.`)".into());
    }
    let (prompt, history) = conversation(question)?;

    // The functions, as MCP tools.
    let functions = question
        .get("function")
        .and_then(Value::as_array)
        .filter(|f| !f.is_empty())
        .ok_or("no `function` list")?;
    let mut list = Vec::with_capacity(functions.len());
    let mut names = BTreeSet::new();
    for f in functions {
        let tool = tool(f)?;
        let name = tool["name"].as_str().unwrap_or_default().to_string();
        if !names.insert(name.clone()) {
            return Err(format!(
                "two functions are named \"{name}\" once dots are replaced"
            ));
        }
        list.push(tool);
    }

    // The one call of the ground truth.
    let answer = answer.ok_or("no possible answer has this id")?;
    let calls = answer
        .get("ground_truth")
        .and_then(Value::as_array)
        .ok_or("the possible answer has no `ground_truth` list")?;
    let call = match calls.as_slice() {
        [call] => call,
        [] => return Err("the ground truth expects no call".into()),
        many => {
            return Err(format!(
                "the ground truth expects {} calls (parallel); a case expects one",
                many.len()
            ))
        }
    };
    let (name, params) = match call.as_object().map(|c| c.iter().collect::<Vec<_>>()) {
        Some(entries) if entries.len() == 1 => entries[0],
        _ => return Err("a ground truth call is not `{\"function\": {params}}`".into()),
    };
    let params = params
        .as_object()
        .ok_or_else(|| format!("the ground truth's parameters of \"{name}\" are not an object"))?;
    let function = functions
        .iter()
        .find(|f| f["name"].as_str() == Some(name))
        .ok_or_else(|| {
            format!("the ground truth calls \"{name}\", which is not among the case's functions")
        })?;
    let empty = Map::new();
    let props = function["parameters"]["properties"]
        .as_object()
        .unwrap_or(&empty);

    let mut args = Vec::new();
    let mut notes = Vec::new();
    for (param, accepted) in params {
        let schema = props.get(param).ok_or_else(|| {
            format!("the ground truth passes `{param}`, which \"{name}\" does not have")
        })?;
        let accepted = accepted
            .as_array()
            .ok_or_else(|| format!("`{param}`: the acceptable values are not a list"))?;
        let mut dropped = Vec::new();
        let arg =
            argument(schema, accepted, &mut dropped).map_err(|why| format!("`{param}`: {why}"))?;
        for v in dropped {
            notes.push(format!(
                "from {id}, `{param}`: {v} (outside the parameter's type or enum: no call can match it)"
            ));
        }
        args.push((param.clone(), arg));
    }
    for param in props.keys() {
        if !params.contains_key(param) {
            args.push((param.clone(), ArgOut::Absent));
        }
    }

    let case = CaseOut {
        id: id.to_string(),
        prompt,
        expect: mcp_name(name),
        tools: if tools_dir.is_empty() {
            format!("{id}.json")
        } else {
            format!("{tools_dir}/{id}.json")
        },
        tags: vec!["bfcl".into(), category.to_string()],
        history,
        args: Args(args),
    };
    Ok((case, Value::Array(list), notes))
}

/// The last user message and the messages before it (of every turn).
fn conversation(question: &Value) -> Result<(String, Vec<TurnOut>), String> {
    let turns = question
        .get("question")
        .and_then(Value::as_array)
        .ok_or("no `question` list")?;
    let mut messages = Vec::new();
    for turn in turns {
        // A turn is a list of messages (a bare message is read as a turn of one).
        match turn {
            Value::Array(ms) => messages.extend(ms),
            other => messages.push(other),
        }
    }
    let mut history = Vec::with_capacity(messages.len());
    for m in messages {
        let text = m
            .get("content")
            .and_then(Value::as_str)
            .ok_or("a message's `content` is not text")?;
        let role = match m.get("role").and_then(Value::as_str) {
            Some("user") => "user",
            Some("assistant") => "assistant",
            Some("system") => {
                return Err(
                    "a system message: a scenario file has one `system`, for all its cases".into(),
                )
            }
            other => {
                return Err(format!(
                    "a message's role {other:?} is not user or assistant"
                ))
            }
        };
        history.push(TurnOut {
            role,
            text: text.to_string(),
        });
    }
    match history.pop() {
        Some(last) if last.role == "user" && !last.text.trim().is_empty() => {
            Ok((last.text, history))
        }
        Some(last) if last.role == "user" => Err("the user's message is empty".into()),
        Some(_) => Err("the last message is not the user's".into()),
        None => Err("no message".into()),
    }
}

/// A function name as an MCP tool name: dots become `_`, as BFCL does for OpenAI-style models.
fn mcp_name(name: &str) -> String {
    name.replace('.', "_")
}

/// A BFCL function as an MCP tool.
fn tool(f: &Value) -> Result<Value, String> {
    let name = f
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or("a function has no name")?;
    let mut schema = match f.get("parameters") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(p) => mcp_schema(p, &format!("{name}.parameters"))
            .map_err(|why| format!("function \"{name}\": {why}"))?,
    };
    // The parameters are an object whatever BFCL calls it, with properties (as BFCL sends them).
    let Some(obj) = schema.as_object_mut() else {
        return Err(format!(
            "function \"{name}\": its parameters are not an object"
        ));
    };
    obj.insert("type".into(), "object".into());
    obj.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let mut tool = Map::new();
    tool.insert("name".into(), mcp_name(name).into());
    if let Some(d) = f.get("description") {
        tool.insert("description".into(), d.clone());
    }
    tool.insert("inputSchema".into(), schema);
    Ok(Value::Object(tool))
}

/// A BFCL schema in JSON Schema's words; `at` names it in errors.
fn mcp_schema(schema: &Value, at: &str) -> Result<Value, String> {
    let obj = schema
        .as_object()
        .ok_or_else(|| format!("{at} is not an object"))?;
    let mut out = Map::new();
    for (key, value) in obj {
        let value = match key.as_str() {
            "type" => {
                let t = value
                    .as_str()
                    .ok_or_else(|| format!("{at}: the type {value} is not a name"))?;
                match json_type(t) {
                    Some(Some(t)) => Value::from(t),
                    Some(None) => continue,
                    None => return Err(format!("{at}: the type \"{t}\" is not one BFCL defines")),
                }
            }
            "properties" => {
                let props = value
                    .as_object()
                    .ok_or_else(|| format!("{at}.properties is not an object"))?;
                let mut converted = Map::new();
                for (name, s) in props {
                    converted.insert(name.clone(), mcp_schema(s, &format!("{at}.{name}"))?);
                }
                Value::Object(converted)
            }
            "items" => match value {
                Value::Array(each) => Value::Array(
                    each.iter()
                        .enumerate()
                        .map(|(i, s)| mcp_schema(s, &format!("{at}.items[{i}]")))
                        .collect::<Result<_, _>>()?,
                ),
                s => mcp_schema(s, &format!("{at}.items"))?,
            },
            "additionalProperties" if value.is_object() => {
                mcp_schema(value, &format!("{at}.additionalProperties"))?
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Ok(Value::Object(out))
}

/// JSON Schema's type for a BFCL type (BFCL's `GORILLA_TO_OPENAPI`, `any` leaving the type
/// out): `None` for a type BFCL does not define, `Some(None)` for any type.
fn json_type(bfcl: &str) -> Option<Option<&'static str>> {
    Some(Some(match bfcl {
        "integer" | "byte" | "short" | "long" | "Bigint" => "integer",
        "number" | "float" | "double" => "number",
        "string" | "char" | "String" => "string",
        "boolean" | "bool" | "Boolean" => "boolean",
        "array" | "list" | "tuple" | "ArrayList" | "Array" | "Queue" | "Stack" => "array",
        "dict" | "object" | "HashMap" | "Hashtable" => "object",
        "any" | "Any" => return Some(None),
        _ => return None,
    }))
}

/// A parameter's expectation from its schema (BFCL's) and acceptable values; the values that are
/// not of the parameter's type are left out, into `dropped`.
fn argument(
    schema: &Value,
    accepted: &[Value],
    dropped: &mut Vec<Value>,
) -> Result<ArgOut, String> {
    let optional = accepted.iter().any(is_optional_mark);
    let kept: Vec<&Value> = accepted.iter().filter(|v| !is_optional_mark(v)).collect();
    let is_dict = |s: &Value| matches!(s["type"].as_str(), Some("dict" | "object"));
    let mut values: Vec<Value> = Vec::new();
    for v in kept {
        let expanded = if is_dict(schema) {
            dict_values(v)?
        } else if matches!(schema["type"].as_str(), Some("array" | "tuple"))
            && is_dict(&schema["items"])
        {
            list_of_dict_values(v)?
        } else {
            vec![v.clone()]
        };
        for e in expanded {
            if !fits(schema, &e) {
                if !dropped.contains(&e) {
                    dropped.push(e);
                }
            } else if !values.iter().any(|v| same(v, &e)) {
                values.push(e);
            }
        }
        if values.len() > MAX_ALTERNATIVES {
            return Err(format!(
                "more than {MAX_ALTERNATIVES} acceptable values once a dictionary's alternatives are expanded"
            ));
        }
    }
    for v in &values {
        toml_safe(v)?;
    }
    Ok(match (values.len(), optional) {
        (0, true) => ArgOut::Absent,
        (0, false) if dropped.is_empty() => return Err("no acceptable value".into()),
        (0, false) => return Err("no acceptable value of the parameter's type and enum".into()),
        (1, false) if !values[0].is_object() => ArgOut::Plain(values.remove(0)),
        (1, optional) => ArgOut::Equals(values.remove(0), optional),
        (_, optional) => ArgOut::OneOf(values, optional),
    })
}

/// Whether a value is of the BFCL schema's type and among its `enum`, at every depth (`items`,
/// `properties`). BFCL's checker checks an argument's type before its value, and the toolbox
/// refuses a value outside the `enum`: an acceptable value that is not (`[["Apple"],
/// ["Microsoft"]]` for an array of strings, `"GF"` for one of `"Gluten Free"`, ...) is one no
/// call can match.
fn fits(schema: &Value, v: &Value) -> bool {
    let of_type = match schema
        .get("type")
        .and_then(Value::as_str)
        .and_then(json_type)
    {
        Some(Some("integer")) => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        Some(Some("number")) => v.is_number(),
        Some(Some("string")) => v.is_string(),
        Some(Some("boolean")) => v.is_boolean(),
        Some(Some("array")) => v.is_array(),
        Some(Some("object")) => v.is_object(),
        _ => true,
    };
    let listed = schema
        .get("enum")
        .and_then(Value::as_array)
        .is_none_or(|e| e.iter().any(|x| same(x, v)));
    of_type
        && listed
        && match v {
            Value::Array(items) => schema
                .get("items")
                .filter(|s| s.is_object())
                .is_none_or(|s| items.iter().all(|i| fits(s, i))),
            Value::Object(map) => map
                .iter()
                .all(|(k, x)| schema["properties"].get(k).is_none_or(|s| fits(s, x))),
            _ => true,
        }
}

/// BFCL's mark of a parameter (or a dictionary key) that may be left out.
fn is_optional_mark(v: &Value) -> bool {
    v.as_str() == Some("")
}

/// The dictionaries a `dict` answer accepts: its keys hold lists of acceptable values (`""` for
/// a key that may be left out), as BFCL's `dict_checker` reads them. An answer that is not such a
/// dictionary is taken as it is.
fn dict_values(answer: &Value) -> Result<Vec<Value>, String> {
    let Some(keys) = answer.as_object() else {
        return Ok(vec![answer.clone()]);
    };
    if !keys.values().all(Value::is_array) {
        return Ok(vec![answer.clone()]);
    }
    let mut dicts = vec![Map::new()];
    for (key, accepted) in keys {
        let accepted = accepted.as_array().expect("checked above");
        let optional = accepted.iter().any(is_optional_mark);
        let choices: Vec<&Value> = accepted.iter().filter(|v| !is_optional_mark(v)).collect();
        let mut next = Vec::new();
        for d in &dicts {
            if optional {
                next.push(d.clone());
            }
            for &c in &choices {
                let mut d = d.clone();
                d.insert(key.clone(), c.clone());
                next.push(d);
            }
        }
        if next.len() > MAX_ALTERNATIVES {
            return Err(format!(
                "more than {MAX_ALTERNATIVES} acceptable dictionaries once the alternatives of its keys are expanded"
            ));
        }
        dicts = next;
    }
    Ok(dicts.into_iter().map(Value::Object).collect())
}

/// The lists an answer for an array of `dict`s accepts: each element is a `dict` answer, as BFCL's
/// `list_dict_checker` reads it (same length, element by element).
fn list_of_dict_values(answer: &Value) -> Result<Vec<Value>, String> {
    let Some(elements) = answer.as_array() else {
        return Ok(vec![answer.clone()]);
    };
    let mut lists = vec![Vec::new()];
    for e in elements {
        let choices = dict_values(e)?;
        let mut next = Vec::new();
        for l in &lists {
            for c in &choices {
                let mut l = l.clone();
                l.push(c.clone());
                next.push(l);
            }
        }
        if next.len() > MAX_ALTERNATIVES {
            return Err(format!(
                "more than {MAX_ALTERNATIVES} acceptable lists once the alternatives of their dictionaries are expanded"
            ));
        }
        lists = next;
    }
    Ok(lists.into_iter().map(Value::Array).collect())
}

/// Whether TOML can hold the value: no `null`, integers within `i64`.
fn toml_safe(v: &Value) -> Result<(), String> {
    match v {
        Value::Null => Err("an acceptable value holds null, which TOML cannot write".into()),
        Value::Number(n) if !n.is_i64() && !n.is_f64() => {
            Err(format!("the integer {n} is beyond TOML's 64-bit integers"))
        }
        Value::Array(items) => items.iter().try_for_each(toml_safe),
        Value::Object(map) => map.values().try_for_each(toml_safe),
        _ => Ok(()),
    }
}
