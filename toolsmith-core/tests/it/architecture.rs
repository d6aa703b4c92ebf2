//! The layers of toolsmith-core, checked (ARCHITECTURE.md, "Layers"): every module sits in one layer,
//! and a module imports only from its own layer or the ones below; the only import cycles are
//! between a module and its own children.
//!
//! The check reads `src/` as text: every `crate::` and `super::` path in code (comments and the
//! `#[cfg(test)] mod tests` block left out), with the crate root's re-exports
//! (`crate::Toolbox`) resolved to the module that defines them. A new module must be placed in
//! [`LAYERS`]; an import that goes up, or closes a cycle, fails with the path that does it.
//!
//! [`KNOWN`] lists the upward imports that are still to be removed, each with what removes it.
//! It may only shrink: an entry that no longer occurs fails too, so the list stays true.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each layer, lowest first, with its top-level modules (a module's children share its layer).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "contract",
        &[
            "codes",
            "envelope",
            "error",
            "reply",
            "context",
            "progress",
            "client",
            "secret",
            "operation",
            "unwind",
            "content",
        ],
    ),
    (
        "definition",
        &["arguments", "tool", "typed", "validate", "output_text"],
    ),
    (
        "services",
        &[
            "policy",
            "approval",
            "audit",
            "fault",
            "store",
            "state",
            "idempotency",
            "budget",
            "redact",
            "limits",
            "mcp_result",
            "tool_result",
            "options",
        ],
    ),
    ("call", &["pipeline"]),
    ("toolbox", &["toolbox", "export", "lint"]),
    ("root", &["lib"]),
];

/// Upward imports still to be removed (`from -> to`), each with the step that removes it.
const KNOWN: &[(&str, &str, &str)] = &[];

/// Import cycles still to be broken (their modules), each with the step that breaks it.
const KNOWN_CYCLES: &[(&[&str], &str)] = &[];

/// A module of the crate, by its path below the root (`pipeline::execute`; the root is `lib`).
type Module = String;

/// The crate's modules and their source text.
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.insert(
                    module_of(src, &path),
                    std::fs::read_to_string(&path).unwrap(),
                );
            }
        }
    }
    out
}

fn module_of(src: &Path, file: &Path) -> Module {
    let rel: PathBuf = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    if parts.is_empty() {
        "lib".to_string()
    } else {
        parts.join("::")
    }
}

/// The code of a module: no comment lines, and without its `#[cfg(test)] mod tests { ... }`
/// block (code after the block is kept).
fn code_of(text: &str) -> String {
    let mut code = text.to_string();
    if let Some(start) = text.find("#[cfg(test)]\nmod tests") {
        let end = text[start..]
            .find('{')
            .and_then(|open| block_end(&text[start + open..]).map(|len| start + open + len))
            .unwrap_or(text.len());
        code.replace_range(start..end, "");
    }
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The length of the block `text` opens with (`{` to its matching `}`), skipping braces in
/// strings, raw strings, character literals and comments; `None` when it is not closed.
fn block_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < b.len() {
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i += text[i..].find('\n').unwrap_or(text.len() - i);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += text[i..].find("*/").map_or(text.len() - i, |e| e + 1);
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && !b[i.saturating_sub(1)].is_ascii_alphanumeric() =>
            {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                if b.get(i + 1 + hashes) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    let body = i + 2 + hashes;
                    i = body + text[body..].find(&close)? + close.len() - 1;
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal (`'{'`, `'\''`), not a lifetime (`'a`).
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i += 2 + text[i + 2..].find('\'')?;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `name -> module` for the crate root's `pub use module::{...}` re-exports.
fn root_exports(lib: &str) -> BTreeMap<String, Module> {
    let mut out = BTreeMap::new();
    let code = code_of(lib);
    let mut rest = code.as_str();
    while let Some(at) = rest.find("pub use ") {
        rest = &rest[at + "pub use ".len()..];
        let end = rest.find(';').unwrap_or(rest.len());
        let item = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        rest = &rest[end..];
        let Some((module, names)) = item.split_once("::") else {
            continue;
        };
        let names = names.trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            // `Other as Renamed` is known by its new name.
            let name = name.rsplit(" as ").next().unwrap_or(name);
            out.insert(name.to_string(), module.to_string());
        }
    }
    out
}

/// The paths a module's code names after `crate::` or `super::`, with a group
/// (`crate::a::{b, c}`) split into its members.
fn paths_in(module: &str, code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (prefix, base) in [("crate::", String::new()), ("super::", parent(module))] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let path = rest[..len].trim_end_matches(':');
            let join = |p: &str| {
                if base.is_empty() {
                    p.to_string()
                } else {
                    format!("{base}::{p}")
                }
            };
            if rest[len..].starts_with('{') && (len == 0 || rest[..len].ends_with("::")) {
                let group_end = rest[len..].find('}').map_or(rest.len(), |e| len + e);
                for member in rest[len + 1..group_end].split(',') {
                    let member = member.trim().split([' ', ':']).next().unwrap_or("");
                    if !member.is_empty() && member != "self" {
                        let inner = if path.is_empty() {
                            member.to_string()
                        } else {
                            format!("{path}::{member}")
                        };
                        out.push(join(&inner));
                    }
                }
            }
            if !path.is_empty() {
                out.push(join(path));
            }
        }
    }
    out
}

fn parent(module: &str) -> String {
    match module.rsplit_once("::") {
        Some((p, _)) => p.to_string(),
        None => String::new(),
    }
}

/// The module a path leads to: the longest module prefix, or the module a root re-export comes
/// from.
fn resolve(
    path: &str,
    names: &BTreeSet<Module>,
    exports: &BTreeMap<String, Module>,
) -> Option<Module> {
    let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    if let Some(first) = segs.first() {
        if !names.contains(*first) {
            return exports.get(*first).cloned();
        }
    }
    (1..=segs.len())
        .rev()
        .map(|n| segs[..n].join("::"))
        .find(|m| names.contains(m))
}

/// `module -> modules it imports` (itself left out).
fn imports(mods: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let names: BTreeSet<Module> = mods.keys().cloned().collect();
    let exports = root_exports(&mods["lib"]);
    mods.iter()
        .map(|(m, text)| {
            let code = code_of(text);
            let to = paths_in(m, &code)
                .iter()
                .filter_map(|p| resolve(p, &names, &exports))
                .filter(|t| t != m && m != "lib")
                .collect();
            (m.clone(), to)
        })
        .collect()
}

/// The layer of a module (that of its top-level module), `None` if it is in no layer.
fn layer_of(module: &str) -> Option<usize> {
    let top = module.split("::").next().unwrap_or(module);
    LAYERS.iter().position(|(_, mods)| mods.contains(&top))
}

/// Every problem of an import graph: modules in no layer, upward imports not in `known`, known
/// ones that no longer occur, and cycles between modules that are not one module's children.
fn problems(
    graph: &BTreeMap<Module, BTreeSet<Module>>,
    known: &[(&str, &str, &str)],
    known_cycles: &[(&[&str], &str)],
) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen_known = BTreeSet::new();
    for (from, tos) in graph {
        let Some(lf) = layer_of(from) else {
            out.push(format!(
                "module `{from}` is in no layer: place it in LAYERS"
            ));
            continue;
        };
        for to in tos {
            let Some(lt) = layer_of(to) else { continue };
            if lt > lf {
                if let Some(k) = known.iter().find(|(f, t, _)| f == from && t == to) {
                    seen_known.insert((k.0, k.1));
                    continue;
                }
                out.push(format!(
                    "`{from}` ({}) imports `{to}` ({}), a layer above it",
                    LAYERS[lf].0, LAYERS[lt].0
                ));
            }
        }
    }
    for (f, t, why) in known {
        if !seen_known.contains(&(*f, *t)) {
            out.push(format!(
                "KNOWN lists `{f}` -> `{t}` ({why}), which no longer occurs: remove the entry"
            ));
        }
    }
    let mut seen_cycles = BTreeSet::new();
    for cycle in cycles(graph) {
        let top = |m: &Module| m.split("::").next().unwrap_or(m).to_string();
        let tops: BTreeSet<String> = cycle.iter().map(top).collect();
        let family = tops.len() == 1 && cycle.iter().filter(|m| !m.contains("::")).count() == 1;
        if family {
            continue;
        }
        if let Some(i) = known_cycles
            .iter()
            .position(|(mods, _)| *mods == cycle.as_slice())
        {
            seen_cycles.insert(i);
            continue;
        }
        out.push(format!("import cycle: {}", cycle.join(" -> ")));
    }
    for (i, (mods, why)) in known_cycles.iter().enumerate() {
        if !seen_cycles.contains(&i) {
            out.push(format!(
                "KNOWN_CYCLES lists {} ({why}), which no longer occurs: remove the entry",
                mods.join(" -> ")
            ));
        }
    }
    out
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<Module>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.graph.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_module_imports_from_a_layer_above_it_and_no_cycle_crosses_modules() {
    let graph = imports(&modules(&src()));
    assert!(graph.len() > 40, "{} modules read", graph.len());
    let problems = problems(&graph, KNOWN, KNOWN_CYCLES);
    assert!(
        problems.is_empty(),
        "toolsmith-core's layers (ARCHITECTURE.md, \"Layers\"):\n  {}",
        problems.join("\n  ")
    );
}

/// The checker itself: an upward import, a module in no layer and a cycle between two modules
/// are each reported; a module's cycle with its own children is not.
#[test]
fn the_check_reports_an_upward_import_a_stray_module_and_a_cycle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (f, t) in edges {
            g.entry(f.to_string()).or_default().insert(t.to_string());
            g.entry(t.to_string()).or_default();
        }
        g
    };
    let up = problems(&graph(&[("envelope", "toolbox")]), &[], &[]);
    assert_eq!(
        up,
        ["`envelope` (contract) imports `toolbox` (toolbox), a layer above it"]
    );
    let stray = problems(&graph(&[("helpers", "codes")]), &[], &[]);
    assert_eq!(
        stray,
        ["module `helpers` is in no layer: place it in LAYERS"]
    );
    let cycle = problems(&graph(&[("audit", "fault"), ("fault", "audit")]), &[], &[]);
    assert_eq!(cycle, ["import cycle: audit -> fault"]);
    let family = problems(
        &graph(&[
            ("pipeline", "pipeline::execute"),
            ("pipeline::execute", "pipeline"),
        ]),
        &[],
        &[],
    );
    assert!(family.is_empty(), "{family:?}");
    let siblings = problems(
        &graph(&[
            ("pipeline::execute", "pipeline::threads"),
            ("pipeline::threads", "pipeline::execute"),
        ]),
        &[],
        &[],
    );
    assert_eq!(
        siblings,
        ["import cycle: pipeline::execute -> pipeline::threads"]
    );
    let stale = problems(
        &graph(&[("codes", "envelope")]),
        &[("tool", "toolbox", "x")],
        &[(&["a", "b"], "y")],
    );
    assert_eq!(
        stale,
        [
            "KNOWN lists `tool` -> `toolbox` (x), which no longer occurs: remove the entry",
            "KNOWN_CYCLES lists a -> b (y), which no longer occurs: remove the entry",
        ]
    );
}

/// The reader: a group import is split, a root re-export is resolved, a comment and the test
/// module are not read.
#[test]
fn the_reader_resolves_groups_root_exports_and_skips_comments_and_tests() {
    let mut mods = BTreeMap::new();
    mods.insert(
        "lib".to_string(),
        "mod a;\nmod b;\nmod c;\npub use c::{Thing, Other as Renamed};\npub use b::Alias;\n"
            .to_string(),
    );
    mods.insert(
        "a".to_string(),
        "use crate::{b::X, c};\n// crate::d::Y\nfn f(_: crate::Renamed) {}\n#[cfg(test)]\nmod tests { use crate::d; const S: &str = \"}\"; const C: char = '}'; const R: &str = r#\"}\"#; }\n".to_string(),
    );
    // Code after the test module is read.
    mods.insert(
        "f".to_string(),
        "#[cfg(test)]\nmod tests {\n    fn t() { let _ = \"{\"; }\n}\nuse crate::b::Y;\n"
            .to_string(),
    );
    // A root export whose name holds the letters `as` is resolved by its whole name.
    mods.insert("e".to_string(), "fn g(_: crate::Alias) {}\n".to_string());
    mods.insert("b".to_string(), String::new());
    mods.insert("c".to_string(), "use super::b;".to_string());
    mods.insert("d".to_string(), String::new());
    let g = imports(&mods);
    assert_eq!(
        g["a"].iter().map(String::as_str).collect::<Vec<_>>(),
        ["b", "c"]
    );
    assert_eq!(g["c"].iter().map(String::as_str).collect::<Vec<_>>(), ["b"]);
    assert_eq!(g["e"].iter().map(String::as_str).collect::<Vec<_>>(), ["b"]);
    assert_eq!(g["f"].iter().map(String::as_str).collect::<Vec<_>>(), ["b"]);
}
