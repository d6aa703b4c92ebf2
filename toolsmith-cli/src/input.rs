//! Reading tool lists: files, standard input and directories of exported artifacts, in every
//! shape the command accepts, normalized to MCP-shaped definitions.

use std::collections::{HashMap, HashSet};
use std::fmt::{self, Write as _};
use std::io::Read;
use std::path::{Path, PathBuf};

use bumpalo::Bump;
use serde_json::Value;
use toolsmith_lint::doc::{self, Kind, Node, Obj};

use crate::CliError;

/// Where a tool came from, so pointers can be mapped back into the source document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// An MCP tool (`name`, `description`, `inputSchema`, ...).
    Mcp,
    /// OpenAI Chat Completions: `{"type": "function", "function": {name, description, parameters}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type": "function", name, description, parameters}`.
    OpenAiResponses,
    /// Anthropic: `{name, description, input_schema}`.
    Anthropic,
    /// A Gemini function declaration: `{name, description, parameters | parametersJsonSchema}`.
    Gemini,
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Shape::Mcp => "MCP",
            Shape::OpenAiChat => "OpenAI Chat Completions",
            Shape::OpenAiResponses => "OpenAI Responses",
            Shape::Anthropic => "Anthropic",
            Shape::Gemini => "Gemini",
        })
    }
}

/// Where one tool of a source sits and which shape it had; its MCP-shaped definition is the
/// entry of [`Source::defs`] at the same index.
#[derive(Clone, Debug)]
pub struct Tool {
    /// The JSON pointer of the tool object in the source document, e.g. `/tools/3`.
    pub at: String,
    /// The shape it was written in.
    pub shape: Shape,
    /// For Gemini: the key that held the schema (`parameters` or `parametersJsonSchema`).
    schema_key: &'static str,
}

/// The name of an MCP-shaped definition (empty if it has none).
pub fn name_of(def: &Value) -> &str {
    def.get("name").and_then(Value::as_str).unwrap_or_default()
}

impl Tool {
    /// Maps a pointer into the tool's MCP-shaped definition to a pointer into the source document.
    pub fn source_pointer(&self, pointer: &str) -> String {
        let (head, rest) = match pointer.strip_prefix("/inputSchema") {
            Some(rest) => (
                match self.shape {
                    Shape::Mcp => "/inputSchema",
                    Shape::OpenAiChat => "/function/parameters",
                    Shape::OpenAiResponses => "/parameters",
                    Shape::Anthropic => "/input_schema",
                    Shape::Gemini => {
                        if self.schema_key == "parameters" {
                            "/parameters"
                        } else {
                            "/parametersJsonSchema"
                        }
                    }
                },
                rest,
            ),
            None if self.shape == Shape::OpenAiChat && !pointer.is_empty() => {
                ("/function", pointer)
            }
            None => ("", pointer),
        };
        let mut out = String::with_capacity(self.at.len() + head.len() + rest.len());
        out.push_str(&self.at);
        out.push_str(head);
        out.push_str(rest);
        out
    }
}

/// One input: a file, standard input, or one file of a directory.
#[derive(Debug)]
pub struct Source {
    /// The path as given (`-` is shown as `<stdin>`).
    pub label: String,
    /// The tools' MCP-shaped definitions (`{"name", "title"?, "description"?, "inputSchema"?,
    /// ...}`), in document order.
    pub defs: Vec<Value>,
    /// Where each definition came from (same order).
    pub tools: Vec<Tool>,
}

/// One input read as borrowed [`Node`]s: what the lint reads.
pub struct Parsed<'a> {
    /// The path as given (`-` is shown as `<stdin>`).
    pub label: String,
    /// The raw text, kept to locate pointers (line and column).
    pub text: &'a str,
    /// The whole document.
    pub root: Node<'a>,
    /// Whether the nodes know their byte offsets in `text` (read by [`doc::parse`]); `false`
    /// when `serde_json` read the document (see [`parse_nodes`]), so positions come from
    /// [`locate`].
    pub offsets: bool,
    /// The tools' MCP-shaped definitions, in document order.
    pub defs: Vec<Node<'a>>,
    /// Where each definition came from (same order).
    pub tools: Vec<Tool>,
}

/// Calls `f(label, text)` for every argument, in order: files, `-` for standard input, or
/// directories (every `*.json` file in it except `index.json`, in name order).
pub fn for_each_input(
    args: &[PathBuf],
    mut f: impl FnMut(String, String) -> Result<(), CliError>,
) -> Result<(), CliError> {
    for arg in args {
        if arg.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| CliError::input(format!("<stdin>: cannot read: {e}")))?;
            f("<stdin>".into(), text)?;
        } else if arg.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(arg)
                .map_err(|e| {
                    CliError::input(format!("{}: cannot read directory: {e}", arg.display()))
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "json")
                        && p.file_name().is_some_and(|n| n != "index.json")
                })
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(CliError::input(format!(
                    "{}: the directory holds no .json tool lists",
                    arg.display()
                )));
            }
            for file in files {
                let (label, text) = read_file(&file)?;
                f(label, text)?;
            }
        } else {
            let (label, text) = read_file(arg)?;
            f(label, text)?;
        }
    }
    Ok(())
}

/// Reads every argument (see [`for_each_input`]) as `serde_json::Value` definitions.
pub fn load_all(args: &[PathBuf]) -> Result<Vec<Source>, CliError> {
    let mut out = Vec::new();
    for_each_input(args, |label, text| {
        out.push(parse_source(label, &text)?);
        Ok(())
    })?;
    Ok(out)
}

/// Reads the arguments (see [`for_each_input`]) as nodes in `arena`. The texts are leaked: they
/// live until the process exits, as the reports that point into them do.
pub fn load_all_nodes<'a>(args: &[PathBuf], arena: &'a Bump) -> Result<Vec<Parsed<'a>>, CliError> {
    let mut out = Vec::new();
    for_each_input(args, |label, text| {
        out.push(parse_nodes(label, text.leak(), arena)?);
        Ok(())
    })?;
    Ok(out)
}

/// A file's label and text.
fn read_file(path: &Path) -> Result<(String, String), CliError> {
    let label = path.display().to_string();
    let bytes =
        std::fs::read(path).map_err(|e| CliError::input(format!("{label}: cannot read: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        CliError::input(format!(
            "{label}: not UTF-8 text (byte {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok((label, text))
}

/// Reads one file.
pub fn load_file(path: &Path) -> Result<Source, CliError> {
    let (label, text) = read_file(path)?;
    parse_source(label, &text)
}

/// Parses a source's text into `serde_json::Value` definitions.
pub fn parse_source(label: String, text: &str) -> Result<Source, CliError> {
    let arena = Bump::new();
    let parsed = parse_nodes(label, text, &arena)?;
    Ok(Source {
        defs: parsed.defs.iter().map(Node::to_value).collect(),
        tools: parsed.tools,
        label: parsed.label,
    })
}

/// Parses a source's text into nodes: with [`doc::parse_in_two`], or, for a text it leaves to
/// `serde_json` (a syntax error, a duplicate key, deep nesting), with `serde_json` (whose error,
/// with its line and column, is the one reported).
pub fn parse_nodes<'a>(
    label: String,
    text: &'a str,
    arena: &'a Bump,
) -> Result<Parsed<'a>, CliError> {
    if text.trim().is_empty() {
        return Err(CliError::input(format!(
            "{label}: the input is empty; expected a JSON tool list"
        )));
    }
    let side = arena.alloc(Bump::new());
    let (root, offsets) = match doc::parse_in_two(text, arena, side) {
        Some(root) => (root, true),
        None => {
            let doc: Value = serde_json::from_str(text).map_err(|e| {
                CliError::input(format!(
                    "{label}:{}:{}: invalid JSON: {}",
                    e.line(),
                    e.column().max(1),
                    strip_position(&e.to_string())
                ))
            })?;
            (Node::from_value(&doc, arena), false)
        }
    };
    let (defs, tools) =
        tools_of(&root, arena).map_err(|m| CliError::input(format!("{label}: {m}")))?;
    Ok(Parsed {
        label,
        text,
        root,
        offsets,
        defs,
        tools,
    })
}

/// serde_json's message without its " at line L column C" suffix (the position is printed first).
fn strip_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

/// [`toolsmith_lint::walk::describe_value`] with at most six keys of an object.
fn describe(v: &Node<'_>) -> String {
    toolsmith_lint::walk::describe_value(&v.to_value(), 6)
}

const SHAPES: &str = "expected an MCP tools/list result {\"tools\": [...]}, a JSON-RPC response, an array of MCP, OpenAI or Anthropic tools, or Gemini {\"functionDeclarations\": [...]}";

/// Definitions and where they came from.
type Tools<'a> = (Vec<Node<'a>>, Vec<Tool>);

/// The tools of a document, normalized to MCP-shaped definitions (new objects in `arena` where
/// the shape is not MCP's).
pub fn tools_of<'a>(doc: &Node<'a>, arena: &'a Bump) -> Result<Tools<'a>, String> {
    let mut out = (Vec::new(), Vec::new());
    match doc.kind {
        Kind::Array(items) => items_into(items, "", arena, &mut out)?,
        Kind::Object(m) => {
            if let Some(tools) = m.get("tools") {
                let Some(items) = tools.as_array() else {
                    return Err(format!(
                        "{SHAPES}; \"tools\" is {}, not an array",
                        describe(tools)
                    ));
                };
                items_into(items, "/tools", arena, &mut out)?;
            } else if let Some(decls) = m.get("functionDeclarations") {
                gemini_into(decls, "/functionDeclarations", arena, &mut out)?;
            } else if let Some(result) = m.get("result") {
                match result.get("tools").and_then(Node::as_array) {
                    Some(items) => items_into(items, "/result/tools", arena, &mut out)?,
                    _ => return Err(format!("{SHAPES}; \"result\" is {}", describe(result))),
                }
            } else if let Some(error) = m.get("error") {
                return Err(format!(
                    "the JSON-RPC response is an error, not a tool list: {error}"
                ));
            } else {
                return Err(format!("{SHAPES}; found {}", describe(doc)));
            }
        }
        _ => return Err(format!("{SHAPES}; found {}", describe(doc))),
    }
    Ok(out)
}

fn gemini_into<'a>(
    decls: &Node<'a>,
    at: &str,
    arena: &'a Bump,
    out: &mut Tools<'a>,
) -> Result<(), String> {
    let Some(items) = decls.as_array() else {
        return Err(format!(
            "\"functionDeclarations\" at {at:?} is {}, not an array",
            describe(decls)
        ));
    };
    for (i, d) in items.iter().enumerate() {
        let here = format!("{at}/{i}");
        let Some(obj) = d.as_object() else {
            return Err(format!(
                "the declaration at {here} is {}, not an object",
                describe(d)
            ));
        };
        let (schema_key, schema) = match obj.get("parametersJsonSchema") {
            Some(s) => ("parametersJsonSchema", Some(s)),
            None => ("parameters", obj.get("parameters")),
        };
        out.0.push(mcp_def(obj, schema, arena));
        out.1.push(Tool {
            at: here,
            shape: Shape::Gemini,
            schema_key,
        });
    }
    Ok(())
}

/// The MCP-shaped definition of a tool object with the schema `schema`. A vendor's example
/// calls (Anthropic `input_examples`) and deferral (`defer_loading: true`, Anthropic and OpenAI
/// Responses) go under `_meta` where toolsmith's MCP export keeps them (`toolsmith/examples`,
/// `toolsmith/deferred`), so every command reads them in one place.
fn mcp_def<'a>(obj: Obj<'a>, schema: Option<&Node<'a>>, arena: &'a Bump) -> Node<'a> {
    let mut m = Vec::with_capacity(5);
    for key in ["name", "title", "description"] {
        if let Some(v) = obj.get(key) {
            m.push((key, *v));
        }
    }
    if let Some(s) = schema {
        m.push(("inputSchema", *s));
    }
    let mut meta = Vec::new();
    if let Some(examples) = obj.get("input_examples") {
        meta.push(("toolsmith/examples", *examples));
    }
    if obj.get("defer_loading").and_then(Node::as_bool) == Some(true) {
        meta.push(("toolsmith/deferred", Node::new(Kind::Bool(true))));
    }
    if !meta.is_empty() {
        let meta = Node::new(Kind::Object(Obj(arena.alloc_slice_copy(&meta))));
        m.push(("_meta", meta));
    }
    Node::new(Kind::Object(Obj(arena.alloc_slice_copy(&m))))
}

/// The members of a tool object that say which shape it is written in, found in one pass over
/// its members (a list of thousands of tools would otherwise scan each object once a key).
struct ShapeKeys<'a> {
    function_declarations: Option<&'a Node<'a>>,
    /// `"type": "function"` (OpenAI).
    is_function: bool,
    /// `function` when it is an object (OpenAI Chat).
    function: Option<Obj<'a>>,
    /// `input_schema` (Anthropic).
    input_schema_snake: Option<&'a Node<'a>>,
    parameters: Option<&'a Node<'a>>,
    /// Whether there is an `inputSchema` (MCP).
    input_schema: bool,
    /// `"type": "namespace"` with its `tools` (OpenAI Responses).
    namespace_tools: Option<&'a [Node<'a>]>,
    /// A platform's tool-search tool (`"type": "tool_search"`, Anthropic
    /// `tool_search_tool_*`): a tool of the platform, no definition of the list's.
    tool_search: bool,
}

impl<'a> ShapeKeys<'a> {
    fn of(obj: Obj<'a>) -> ShapeKeys<'a> {
        let mut keys = ShapeKeys {
            function_declarations: None,
            is_function: false,
            function: None,
            input_schema_snake: None,
            parameters: None,
            input_schema: false,
            namespace_tools: None,
            tool_search: false,
        };
        let mut is_namespace = false;
        let mut tools = None;
        // An object's keys are unique, so each is seen at most once.
        for (k, v) in obj.0 {
            match *k {
                "functionDeclarations" => keys.function_declarations = Some(v),
                "type" => {
                    let t = v.as_str().unwrap_or_default();
                    keys.is_function = t == "function";
                    is_namespace = t == "namespace";
                    keys.tool_search = t == "tool_search" || t.starts_with("tool_search_tool_");
                }
                "tools" => tools = v.as_array(),
                "function" => keys.function = v.as_object(),
                "input_schema" => keys.input_schema_snake = Some(v),
                "parameters" => keys.parameters = Some(v),
                "inputSchema" => keys.input_schema = true,
                _ => {}
            }
        }
        if is_namespace {
            keys.namespace_tools = tools;
        }
        keys
    }
}

fn items_into<'a>(
    items: &[Node<'a>],
    at: &str,
    arena: &'a Bump,
    out: &mut Tools<'a>,
) -> Result<(), String> {
    let mut index = itoa::Buffer::new();
    out.0.reserve(items.len());
    out.1.reserve(items.len());
    for (i, item) in items.iter().enumerate() {
        let digits = index.format(i);
        let mut here = String::with_capacity(at.len() + 1 + digits.len());
        here.push_str(at);
        here.push('/');
        here.push_str(digits);
        let mut tool = Tool {
            at: here,
            shape: Shape::Mcp,
            schema_key: "",
        };
        let Some(obj) = item.as_object() else {
            // The lint reports it as not well formed.
            out.0.push(*item);
            out.1.push(tool);
            continue;
        };
        let keys = ShapeKeys::of(obj);
        if keys.tool_search {
            continue;
        }
        if let Some(members) = keys.namespace_tools {
            // An OpenAI namespace: its functions are the list's tools.
            let at = format!("{}/tools", tool.at);
            items_into(members, &at, arena, out)?;
            continue;
        }
        if let Some(decls) = keys.function_declarations {
            let at = format!("{}/functionDeclarations", tool.at);
            gemini_into(decls, &at, arena, out)?;
            continue;
        }
        let def = if let (true, Some(f)) = (keys.is_function, keys.function) {
            tool.shape = Shape::OpenAiChat;
            mcp_def(f, f.get("parameters"), arena)
        } else if keys.is_function {
            tool.shape = Shape::OpenAiResponses;
            mcp_def(obj, keys.parameters, arena)
        } else if let Some(schema) = keys.input_schema_snake {
            tool.shape = Shape::Anthropic;
            mcp_def(obj, Some(schema), arena)
        } else if keys.parameters.is_some() && !keys.input_schema {
            tool.shape = Shape::Gemini;
            tool.schema_key = "parameters";
            mcp_def(obj, keys.parameters, arena)
        } else {
            *item
        };
        out.0.push(def);
        out.1.push(tool);
    }
    Ok(())
}

/// Byte offsets of the values at `pointers` in `text` (and of every value enclosing one), in
/// one pass that descends only into the objects and arrays on the way to a wanted pointer.
///
/// The keys of the map borrow from `pointers`; nothing is allocated per value scanned.
pub fn locate<'p>(text: &str, pointers: &[&'p str]) -> HashMap<&'p str, usize, FnvBuild> {
    // Every wanted pointer and each of its prefixes ("" included): the scanner descends into
    // exactly these, and records the offset of each.
    let mut prefixes: HashSet<&'p str, FnvBuild> = HashSet::default();
    for &p in pointers {
        let mut end = p.len();
        loop {
            if !prefixes.insert(&p[..end]) {
                break;
            }
            match p[..end].rfind('/') {
                Some(i) => end = i,
                None => break,
            }
        }
    }
    let mut found: HashMap<&'p str, usize, FnvBuild> = HashMap::default();
    let mut scanner = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    let mut path = String::new();
    scanner.value(&mut path, &prefixes, &mut found);
    found
}

/// 1-based line and column (in characters) of each byte offset, in one sweep over the text.
pub fn positions(text: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    // Findings mostly come in document order: sort only when they do not. Each position
    // depends on its offset alone, so the order among equal offsets does not matter.
    if !offsets.is_sorted() {
        order.sort_unstable_by_key(|&i| offsets[i]);
    }
    let mut out = vec![(1, 1); offsets.len()];
    let (mut line, mut col, mut pos) = (1usize, 1usize, 0usize);
    let bytes = text.as_bytes();
    for i in order {
        let target = offsets[i].min(text.len()).max(pos);
        // Columns count characters: every byte but UTF-8 continuation bytes.
        let seg = &bytes[pos..target];
        match memchr::memrchr(b'\n', seg) {
            None => col += bytecount::num_chars(seg),
            Some(last) => {
                line += bytecount::count(&seg[..=last], b'\n');
                col = 1 + bytecount::num_chars(&seg[last + 1..]);
            }
        }
        pos = target;
        out[i] = (line, col);
    }
    out
}

/// The fast hash of the scanner's pointer sets (short keys, one short-lived run).
pub use toolsmith_lint::FnvBuild;

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    /// Skips a string starting at `"`, returning its raw contents' range.
    fn string(&mut self) -> (usize, usize) {
        self.i += 1;
        let start = self.i;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return (start, self.i - 1);
                }
                _ => self.i += 1,
            }
        }
        (start, self.i)
    }

    fn skip(&mut self) {
        let mut depth = 0usize;
        loop {
            self.ws();
            if self.i >= self.b.len() {
                return;
            }
            match self.b[self.i] {
                b'"' => {
                    self.string();
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.i += 1;
                }
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    self.i += 1;
                }
                b',' | b':' => self.i += 1,
                _ => {
                    while self.i < self.b.len()
                        && !matches!(
                            self.b[self.i],
                            b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'
                        )
                    {
                        self.i += 1;
                    }
                }
            }
            if depth == 0 {
                // A scalar or a closed container: done, unless a separator is next inside.
                return;
            }
        }
    }

    /// Moves past white space and commas to the next member of the object or array closed by
    /// `close`; `false`, past the closing byte, when the container ends (or the text does).
    fn next_member(&mut self, close: u8) -> bool {
        loop {
            self.ws();
            if self.i >= self.b.len() || self.b[self.i] == close {
                self.i += 1;
                return false;
            }
            if self.b[self.i] != b',' {
                return true;
            }
            self.i += 1;
        }
    }

    fn value<'p>(
        &mut self,
        path: &mut String,
        prefixes: &HashSet<&'p str, FnvBuild>,
        found: &mut HashMap<&'p str, usize, FnvBuild>,
    ) {
        self.ws();
        if self.i >= self.b.len() {
            return;
        }
        // Every prefix of a wanted pointer is recorded too: a finding about a missing value
        // points at the nearest enclosing one.
        let Some(&key) = prefixes.get(path.as_str()) else {
            self.skip();
            return;
        };
        found.insert(key, self.i);
        match self.b[self.i] {
            b'{' => {
                self.i += 1;
                while self.next_member(b'}') {
                    let (a, z) = self.string();
                    let raw = std::str::from_utf8(&self.b[a..z]).unwrap_or_default();
                    self.ws();
                    if self.i < self.b.len() && self.b[self.i] == b':' {
                        self.i += 1;
                    }
                    let len = path.len();
                    if raw.contains(['\\', '~', '/']) {
                        let key: String = if raw.contains('\\') {
                            serde_json::from_str::<String>(&format!("\"{raw}\""))
                                .unwrap_or_default()
                        } else {
                            raw.to_string()
                        };
                        toolsmith_lint::walk::push_token(path, &key);
                    } else {
                        path.push('/');
                        path.push_str(raw);
                    }
                    self.value(path, prefixes, found);
                    path.truncate(len);
                }
            }
            b'[' => {
                self.i += 1;
                let mut n = 0usize;
                while self.next_member(b']') {
                    let len = path.len();
                    let _ = write!(path, "/{n}");
                    self.value(path, prefixes, found);
                    path.truncate(len);
                    n += 1;
                }
            }
            _ => self.skip(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_values_by_pointer() {
        let text = "{\n  \"tools\": [\n    {\"name\": \"a\", \"x\": [1, {\"y\": 2}]},\n    {\"name\": \"é\", \"description\": \"d\"}\n  ]\n}";
        let got = locate(
            text,
            &["/tools/1/description", "/tools/0/x/1/y", "/tools/0", ""],
        );
        let at = |p: &str| positions(text, &[got[p]])[0];
        assert_eq!(at("/tools/1/description"), (4, 34));
        assert_eq!(at("/tools/0/x/1/y"), (3, 34));
        assert_eq!(at("/tools/0"), (3, 5));
        assert_eq!(at(""), (1, 1));
        let all = positions(
            text,
            &[got["/tools/1/description"], got[""], got["/tools/0"]],
        );
        assert_eq!(all, vec![(4, 34), (1, 1), (3, 5)]);
    }

    /// The tools of a document given as a JSON value.
    fn tools_of(v: serde_json::Value) -> Result<(Vec<Value>, Vec<Tool>), String> {
        let arena = Bump::new();
        let (defs, tools) = super::tools_of(&Node::from_value(&v, &arena), &arena)?;
        Ok((defs.iter().map(Node::to_value).collect(), tools))
    }

    #[test]
    fn counts_breaks_and_characters() {
        for n in 0..20 {
            let t = "a\né€\n\n𝄞x".repeat(n);
            // Every character boundary, in document order and reversed.
            let offsets: Vec<usize> = (0..=t.len()).filter(|&i| t.is_char_boundary(i)).collect();
            let want: Vec<(usize, usize)> = offsets
                .iter()
                .map(|&i| {
                    let before = &t[..i];
                    let line_start = before.rfind('\n').map_or(0, |b| b + 1);
                    (
                        before.matches('\n').count() + 1,
                        before[line_start..].chars().count() + 1,
                    )
                })
                .collect();
            assert_eq!(positions(&t, &offsets), want, "{t:?}");
            let reversed: Vec<usize> = offsets.iter().rev().copied().collect();
            let mut back = positions(&t, &reversed);
            back.reverse();
            assert_eq!(back, want, "{t:?}");
            // Out of order with repeats: each offset still gets its own position.
            let mixed: Vec<usize> = (0..offsets.len() * 2)
                .map(|k| (k * 7 + k / 3) % offsets.len())
                .collect();
            let got = positions(&t, &mixed.iter().map(|&k| offsets[k]).collect::<Vec<_>>());
            let expect: Vec<(usize, usize)> = mixed.iter().map(|&k| want[k]).collect();
            assert_eq!(got, expect, "{t:?}");
        }
    }

    #[test]
    fn shapes_are_normalized() {
        let openai = serde_json::json!([{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}]);
        let (defs, tools) = tools_of(openai).unwrap();
        let t = &tools[0];
        assert_eq!((t.shape, name_of(&defs[0])), (Shape::OpenAiChat, "a"));
        assert_eq!(defs[0]["inputSchema"]["type"], "object");
        assert_eq!(
            t.source_pointer("/inputSchema/properties"),
            "/0/function/parameters/properties"
        );
        assert_eq!(t.source_pointer("/description"), "/0/function/description");
        let gemini = serde_json::json!({"functionDeclarations": [{"name": "g", "parameters": {}}]});
        let t = &tools_of(gemini).unwrap().1[0];
        assert_eq!(
            t.source_pointer("/inputSchema"),
            "/functionDeclarations/0/parameters"
        );
        let anthropic = serde_json::json!([{"name": "c", "input_schema": {"type": "object"}}]);
        assert_eq!(tools_of(anthropic).unwrap().1[0].shape, Shape::Anthropic);
        assert!(tools_of(serde_json::json!({"tool": []})).is_err());
    }
}
