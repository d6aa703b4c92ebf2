//! The drift check: the current export against a committed snapshot directory.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::artifacts::{render, write_artifacts, FORMS_DIR};
use super::target::Target;
use crate::spec::ToolSpec;

/// The environment variable that makes [`check_snapshot`] write the current export instead of
/// comparing: `TOOLSMITH_UPDATE_SNAPSHOTS=1 cargo test`.
pub const UPDATE_ENV: &str = "TOOLSMITH_UPDATE_SNAPSHOTS";

/// The current export differs from the committed snapshot, or the snapshot cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotDrift {
    /// There is no snapshot and `CI` is set, so none is created.
    #[error(
        "no tool snapshot in {}: `CI` is set, so it is not created here. Run \
         `{UPDATE_ENV}=1 cargo test` locally and commit the directory.",
        dir.display()
    )]
    Missing {
        /// The snapshot directory.
        dir: PathBuf,
    },
    /// Exported definitions changed; `report` shows what, per tool.
    #[error("{report}")]
    Changed {
        /// The snapshot directory.
        dir: PathBuf,
        /// The tools that changed, were added or were removed.
        tools: Vec<String>,
        /// The readable report: per tool a summary and a unified-style diff.
        report: String,
    },
    /// The snapshot could not be read or written.
    #[error("cannot use the tool snapshot at {}: {message}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Whether the environment asks for snapshots and golden files to be rewritten: `UPDATE_ENV`
/// set to anything but empty, `0` or `false`, and `CI` not set so. The one reading of the
/// variable: the snapshot check and every golden test of the workspace ask here.
///
/// A CI run checks the committed files and never rewrites them, whatever `UPDATE_ENV` says: a
/// run that rewrote every golden before comparing would pass whatever changed.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// # std::env::remove_var(toolsmith::export::UPDATE_ENV);
/// assert!(!toolsmith::export::update_requested());
/// ```
pub fn update_requested() -> bool {
    wants_update(
        std::env::var(UPDATE_ENV).ok().as_deref(),
        std::env::var("CI").ok().as_deref(),
    )
}

/// [`update_requested`] for the values of `UPDATE_ENV` and `CI`.
fn wants_update(update: Option<&str>, ci: Option<&str>) -> bool {
    on(update) && !on(ci)
}

/// Whether a variable's value says yes: set, and not empty, `0` or `false`.
fn on(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

fn env_on(name: &str) -> bool {
    on(std::env::var(name).ok().as_deref())
}

/// Compares the export of `specs` for every target (the files [`write_artifacts`] writes:
/// `<slug>.json` per target, `index.json` and each tool's form `ui/<tool>.html`) with the
/// committed files in `dir`. A form that changed is shown as a diff of its HTML lines; a
/// committed form whose tool is gone counts as that tool's removal.
///
/// - With `TOOLSMITH_UPDATE_SNAPSHOTS=1` it writes the current export into `dir` and passes.
/// - When `dir` has no `index.json` (first run) it writes the snapshot and passes, unless the
///   `CI` environment variable is set: then it fails with [`SnapshotDrift::Missing`], because a
///   snapshot created in CI proves nothing.
/// - Otherwise every difference fails with [`SnapshotDrift::Changed`]: per tool, whether it was
///   added, removed (with a rename hint) or changed, a summary (title, description, parameters
///   added or removed, annotations) and a diff of its definition, plus the other files it
///   changed in. The `version` field of `index.json` is ignored (bumping the crate version is not
///   drift); fingerprints and export failures are compared. Files in `dir` that are not
///   artifacts are ignored.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// # use toolsmith::ToolSpec;
/// # let mut spec = ToolSpec::new("get_time", "Returns the current UTC time.",
/// #     serde_json::json!({"type": "object", "additionalProperties": false}))
/// #     .with_version("1.0.0");
/// use toolsmith::export::{check_snapshot, write_artifacts};
/// let dir = std::env::temp_dir().join(format!("toolsmith-snap-doc-{}", std::process::id()));
/// write_artifacts(&[spec.clone()], &dir).unwrap();
/// assert!(check_snapshot(&[spec.clone()], &dir).is_ok());
/// spec.description = "Returns the current time in UTC.".into();
/// # if std::env::var_os(toolsmith::export::UPDATE_ENV).is_none() {
/// let drift = check_snapshot(&[spec], &dir).unwrap_err().to_string();
/// assert!(drift.contains("tool `get_time`: changed"));
/// # }
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn check_snapshot(specs: &[ToolSpec], dir: impl AsRef<Path>) -> Result<(), SnapshotDrift> {
    let dir = dir.as_ref();
    let write = || {
        write_artifacts(specs, dir)
            .map(|_| ())
            .map_err(|e| SnapshotDrift::Io {
                path: dir.to_path_buf(),
                message: e.to_string(),
            })
    };
    if update_requested() {
        return write();
    }
    if !dir.join("index.json").exists() {
        if env_on("CI") {
            return Err(SnapshotDrift::Missing {
                dir: dir.to_path_buf(),
            });
        }
        write()?;
        eprintln!(
            "toolsmith: wrote a new tool snapshot to {}; review and commit it",
            dir.display()
        );
        return Ok(());
    }
    let changes = drift_of(specs, dir)?;
    if changes.is_empty() {
        return Ok(());
    }
    let (tools, report) = report(dir, &changes);
    Err(SnapshotDrift::Changed {
        dir: dir.to_path_buf(),
        tools,
        report,
    })
}

/// Every tool entry that differs between the committed snapshot in `dir` and the current exports.
fn drift_of(specs: &[ToolSpec], dir: &Path) -> Result<Vec<Change>, SnapshotDrift> {
    let (files, _) = render(specs, &super::loading::ExportOptions::default());
    let mut changes: Vec<Change> = Vec::new();
    for (file, current_text) in &files {
        let path = dir.join(file);
        let committed_text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => {
                return Err(SnapshotDrift::Io {
                    path,
                    message: e.to_string(),
                })
            }
        };
        if let Some(tool) = form_tool(file) {
            form_changes(tool, file, &committed_text, current_text, &mut changes);
        } else {
            file_changes(file, &committed_text, current_text, &mut changes);
        }
    }
    // A committed form whose tool is gone.
    if let Ok(entries) = std::fs::read_dir(dir.join(FORMS_DIR)) {
        let mut gone: Vec<String> = entries
            .filter_map(Result::ok)
            .map(|e| format!("{FORMS_DIR}/{}", e.file_name().to_string_lossy()))
            .filter(|f| form_tool(f).is_some() && !files.iter().any(|(name, _)| name == f))
            .collect();
        gone.sort();
        for file in gone {
            let committed = std::fs::read_to_string(dir.join(&file)).unwrap_or_default();
            let tool = form_tool(&file).unwrap_or_default();
            changes.push(Change::new(
                tool,
                &file,
                Some(&Value::String(committed)),
                None,
            ));
        }
    }
    Ok(changes)
}

/// The tool of a form's artifact file (`ui/<tool>.html`).
fn form_tool(file: &str) -> Option<&str> {
    file.strip_prefix(FORMS_DIR)?
        .strip_prefix('/')?
        .strip_suffix(".html")
}

/// A form that was added or changed (its text is kept whole, for a line diff).
fn form_changes(
    tool: &str,
    file: &str,
    committed_text: &str,
    current_text: &str,
    changes: &mut Vec<Change>,
) {
    if committed_text == current_text {
        return;
    }
    let old = (!committed_text.is_empty()).then(|| Value::String(committed_text.to_string()));
    let new = Value::String(current_text.to_string());
    changes.push(Change::new(tool, file, old.as_ref(), Some(&new)));
}

/// The tool entries of one artifact file that were added, removed or changed.
fn file_changes(file: &str, committed_text: &str, current_text: &str, changes: &mut Vec<Change>) {
    if committed_text == current_text {
        return;
    }
    let current: Value = serde_json::from_str(current_text).unwrap_or(Value::Null);
    let committed: Value = serde_json::from_str(committed_text).unwrap_or(Value::Null);
    let old = entries(file, &committed);
    let new = entries(file, &current);
    for (name, new_v) in &new {
        match old.iter().find(|(n, _)| n == name) {
            None => changes.push(Change::new(name, file, None, Some(new_v))),
            Some((_, old_v)) if old_v != new_v => {
                changes.push(Change::new(name, file, Some(old_v), Some(new_v)))
            }
            Some(_) => {}
        }
    }
    for (name, old_v) in &old {
        if !new.iter().any(|(n, _)| n == name) {
            changes.push(Change::new(name, file, Some(old_v), None));
        }
    }
}

struct Change {
    tool: String,
    file: String,
    old: Option<Value>,
    new: Option<Value>,
}

impl Change {
    fn new(tool: &str, file: &str, old: Option<&Value>, new: Option<&Value>) -> Change {
        Change {
            tool: tool.to_string(),
            file: file.to_string(),
            old: old.cloned(),
            new: new.cloned(),
        }
    }
}

/// The tool entries of one artifact file, keyed by tool name (`version` dropped from the index).
fn entries(file: &str, doc: &Value) -> Vec<(String, Value)> {
    let slug = file.trim_end_matches(".json");
    let list = match (slug, Target::from_slug(slug)) {
        ("index", _) => doc.get("tools"),
        (_, Some(Target::Mcp(_))) => doc.get("tools"),
        (_, Some(Target::Gemini)) => doc.get("functionDeclarations"),
        _ => Some(doc),
    };
    let Some(Value::Array(items)) = list else {
        return if doc.is_null() {
            Vec::new()
        } else {
            vec![("(whole file)".to_string(), doc.clone())]
        };
    };
    items
        .iter()
        .map(|item| {
            let name = item
                .get("name")
                .or_else(|| item.get("function").and_then(|f| f.get("name")))
                .and_then(Value::as_str)
                .unwrap_or("(unnamed)")
                .to_string();
            let mut item = item.clone();
            if slug == "index" {
                if let Some(m) = item.as_object_mut() {
                    m.remove("version");
                }
            }
            (name, item)
        })
        .collect()
}

/// The file whose diff best shows a tool's change: the MCP 2026-07-28 export (closest to the
/// canonical spec), then the index, then any.
fn preferred<'a>(changes: &[&'a Change]) -> &'a Change {
    for f in ["mcp-2026-07-28.json", "index.json"] {
        if let Some(c) = changes.iter().find(|c| c.file == f) {
            return c;
        }
    }
    changes[0]
}

fn report(dir: &Path, changes: &[Change]) -> (Vec<String>, String) {
    let mut tools: Vec<String> = Vec::new();
    for c in changes {
        if !tools.contains(&c.tool) {
            tools.push(c.tool.clone());
        }
    }
    // The tools every change of which is `each` (an addition, a removal).
    let tools_whose_changes_all = |each: fn(&Change) -> bool| -> Vec<&String> {
        tools
            .iter()
            .filter(|t| changes.iter().filter(|c| &&c.tool == t).all(each))
            .collect()
    };
    let added = tools_whose_changes_all(|c| c.old.is_none());
    let removed = tools_whose_changes_all(|c| c.new.is_none());
    let mut out = format!(
        "exported tool definitions drifted from the snapshot in {} ({} tool{}):\n",
        dir.display(),
        tools.len(),
        if tools.len() == 1 { "" } else { "s" }
    );
    for tool in &tools {
        let mine: Vec<&Change> = changes.iter().filter(|c| &c.tool == tool).collect();
        let files: Vec<&str> = mine.iter().map(|c| c.file.as_str()).collect();
        out.push('\n');
        if added.contains(&tool) {
            out.push_str(&format!("tool `{tool}`: added (in {})\n", files.join(", ")));
            continue;
        }
        if removed.contains(&tool) {
            out.push_str(&format!(
                "tool `{tool}`: removed (from {})",
                files.join(", ")
            ));
            if added.len() == 1 && removed.len() == 1 {
                out.push_str(&format!("; renamed to `{}`?", added[0]));
            }
            out.push('\n');
            continue;
        }
        report_changed(&mut out, tool, &mine, &files);
    }
    out.push_str(&format!(
        "\nIf these changes are intended, run `{UPDATE_ENV}=1 cargo test` and commit {}.",
        dir.display()
    ));
    (tools, out)
}

/// The lines of one changed tool: where, what (summarized), and the diff of its best file.
fn report_changed(out: &mut String, tool: &str, mine: &[&Change], files: &[&str]) {
    let (forms, exports): (Vec<&str>, Vec<&str>) =
        files.iter().partition(|f| form_tool(f).is_some());
    let everywhere = exports.len() == Target::all().len() + 1;
    let mut place = if everywhere {
        "every target file and index.json".to_string()
    } else {
        exports.join(", ")
    };
    if !forms.is_empty() {
        if place.is_empty() {
            place = format!("its form {}", forms.join(", "));
        } else {
            place = format!("{place}, and its form {}", forms.join(", "));
        }
    }
    out.push_str(&format!("tool `{tool}`: changed in {place}\n"));
    let shown = preferred(mine);
    let mut facts = summarize(shown.old.as_ref(), shown.new.as_ref());
    if let Some(index) = mine.iter().find(|c| c.file == "index.json") {
        for fact in summarize(index.old.as_ref(), index.new.as_ref()) {
            if !facts.contains(&fact) {
                facts.push(fact);
            }
        }
    }
    // The files in which the tool's change is `each` (a removal, an addition).
    let files_where = |each: fn(&Change) -> bool| -> Vec<&str> {
        mine.iter()
            .filter(|c| each(c))
            .map(|c| c.file.as_str())
            .collect()
    };
    let gone = files_where(|c| c.new.is_none());
    if !gone.is_empty() {
        facts.push(format!(
            "no longer exported to {} (see index.json)",
            gone.join(", ")
        ));
    }
    let new_in = files_where(|c| c.old.is_none());
    if !new_in.is_empty() {
        facts.push(format!("now also exported to {}", new_in.join(", ")));
    }
    for line in facts {
        out.push_str(&format!("  - {line}\n"));
    }
    out.push_str(&format!(
        "  --- snapshot/{}\n  +++ current/{}\n",
        shown.file, shown.file
    ));
    // A form is shown as its HTML lines; an export entry as pretty JSON.
    let text = |v: &Value| match v {
        Value::String(html) if form_tool(&shown.file).is_some() => html.clone(),
        other => pretty(other),
    };
    let old = shown.old.as_ref().map(text).unwrap_or_default();
    let new = shown.new.as_ref().map(text).unwrap_or_default();
    for line in diff_lines(&old, &new) {
        out.push_str("  ");
        out.push_str(&line);
        out.push('\n');
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// One-line facts about what changed in a tool entry.
fn summarize(old: Option<&Value>, new: Option<&Value>) -> Vec<String> {
    let (Some(old), Some(new)) = (old, new) else {
        return Vec::new();
    };
    let get = |v: &Value, ptr: &str| v.pointer(ptr).cloned();
    let mut out = Vec::new();
    for (ptr, what) in [
        ("/title", "title"),
        ("/description", "description"),
        ("/function/description", "description"),
        ("/annotations", "annotations"),
        ("/fingerprint", "fingerprint"),
        ("/failed", "export failures"),
    ] {
        let (a, b) = (get(old, ptr), get(new, ptr));
        if a != b {
            out.push(format!(
                "{what}: {} -> {}",
                a.map(|v| v.to_string()).unwrap_or_else(|| "(none)".into()),
                b.map(|v| v.to_string()).unwrap_or_else(|| "(none)".into())
            ));
        }
    }
    let params = |v: &Value| -> Vec<String> {
        [
            "/inputSchema/properties",
            "/parameters/properties",
            "/function/parameters/properties",
        ]
        .iter()
        .find_map(|p| v.pointer(p).and_then(Value::as_object))
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
    };
    let (a, b) = (params(old), params(new));
    for p in a.iter().filter(|p| !b.contains(p)) {
        out.push(format!("parameter `{p}` removed"));
    }
    for p in b.iter().filter(|p| !a.contains(p)) {
        out.push(format!("parameter `{p}` added"));
    }
    out
}

/// A line diff with two lines of context, `-`/`+` marked, `...` between hunks.
///
/// `similar` (Myers' algorithm, O((n+m)·d)) replaces a hand-written LCS table, which cost n·m
/// cells (4M on large entries) and gave up on larger ones.
fn diff_lines(old: &str, new: &str) -> Vec<String> {
    const CONTEXT: usize = 2;
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    for (k, group) in diff.grouped_ops(CONTEXT).iter().enumerate() {
        if k > 0 {
            out.push("...".to_string());
        }
        for op in group {
            for change in diff.iter_changes(op) {
                let mark = match change.tag() {
                    similar::ChangeTag::Equal => ' ',
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                };
                let line = change.value();
                out.push(format!(
                    "{mark} {}",
                    line.strip_suffix('\n').unwrap_or(line)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{diff_lines, wants_update};

    /// CI checks the committed files and never rewrites them, even when asked to.
    #[test]
    fn ci_never_rewrites_the_goldens() {
        assert!(wants_update(Some("1"), None));
        assert!(wants_update(Some("yes"), Some("false")));
        assert!(!wants_update(Some("1"), Some("true")));
        assert!(!wants_update(Some("1"), Some("1")));
        assert!(!wants_update(None, None));
        assert!(!wants_update(Some("0"), None));
        assert!(!wants_update(Some(""), None));
    }

    #[test]
    fn a_diff_shows_the_changed_lines_with_two_lines_of_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\ni\nJ\n";
        assert_eq!(
            diff_lines(old, new),
            ["  b", "  c", "- d", "+ D", "  e", "  f", "...", "  h", "  i", "- j", "+ J"]
        );
    }

    #[test]
    fn a_large_entry_diffs_to_its_one_change() {
        // 6,000 lines each side: a quadratic table would need 36M cells.
        let old: String = (0..6000).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 3000\n", "line three thousand\n");
        assert_eq!(
            diff_lines(&old, &new),
            [
                "  line 2998",
                "  line 2999",
                "- line 3000",
                "+ line three thousand",
                "  line 3001",
                "  line 3002"
            ]
        );
    }
}
