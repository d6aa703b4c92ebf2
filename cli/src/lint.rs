//! `toolsmith lint`: human (rustc-style), JSON and SARIF 2.1.0 reports.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{json, Value};
use tool_lint::{lint_each, lookup_rule, Finding, LintConfig, Severity, RULES};

use crate::input::{self, Source};
use crate::style::Style;
use crate::{emit, CliError, Color, LintFormat};

/// One finding with where it is in its source.
struct Located<'a> {
    finding: Finding,
    source: &'a Source,
    /// Index of the tool in the source.
    tool: usize,
    /// Pointer into the source document.
    pointer: String,
    /// 1-based line and column of the offending value (or of the nearest enclosing one), and of
    /// the span's start when the value is a string.
    line: usize,
    column: usize,
}

/// Runs the command; returns the exit code.
pub fn run(
    files: &[PathBuf],
    format: LintFormat,
    profile: &str,
    allow: &[String],
    color: Color,
) -> Result<u8, CliError> {
    let cfg = LintConfig::profile(profile).map_err(|e| CliError::input(e.to_string()))?;
    for rule in allow {
        lookup_rule(rule).map_err(|e| CliError::input(e.to_string()))?;
    }
    let sources = input::load_all(files)?;
    let mut located = Vec::new();
    for source in &sources {
        let mut findings = Vec::new();
        let mut pointers = Vec::new();
        let mut tool_of = Vec::new();
        for (ti, each) in lint_each(&source.defs, &cfg).into_iter().enumerate() {
            for f in each {
                if allow.iter().any(|a| a == f.rule) {
                    continue;
                }
                pointers.push(source.tools[ti].source_pointer(&f.pointer));
                tool_of.push(ti);
                findings.push(f);
            }
        }
        if findings.is_empty() {
            continue;
        }
        let wanted: Vec<&str> = pointers.iter().map(String::as_str).collect();
        let places = input::locate(&source.text, &wanted);
        let resolved: Vec<(usize, usize)> = findings
            .iter()
            .zip(&pointers)
            .map(|(f, p)| resolve(&source.text, &places, p, f.span))
            .collect();
        let offsets: Vec<usize> = resolved.iter().map(|r| r.0).collect();
        let at = input::positions(&source.text, &offsets);
        for ((((finding, pointer), tool), (line, col)), (_, extra)) in findings
            .into_iter()
            .zip(pointers)
            .zip(tool_of)
            .zip(at)
            .zip(resolved)
        {
            let column = col + extra;
            located.push(Located {
                finding,
                source,
                tool,
                pointer,
                line,
                column,
            });
        }
    }
    let errors = located
        .iter()
        .filter(|l| l.finding.severity == Severity::Error)
        .count();
    let warnings = located.len() - errors;
    let tools: usize = sources.iter().map(|s| s.defs.len()).sum();
    let out = match format {
        LintFormat::Human => human(
            &located,
            &sources,
            tools,
            errors,
            warnings,
            Style::stdout(color),
        ),
        LintFormat::Json => {
            let doc = json!({
                "profile": cfg.profile.name(),
                "files": sources.iter().map(|s| json!({"file": s.label, "tools": s.defs.len()})).collect::<Vec<_>>(),
                "findings": located.iter().map(|l| {
                    let mut f = l.finding.to_json();
                    let o = f.as_object_mut().expect("to_json gives an object");
                    o.insert("file".into(), json!(l.source.label));
                    o.insert("location".into(), json!(l.pointer));
                    o.insert("line".into(), json!(l.line));
                    o.insert("column".into(), json!(l.column));
                    o.insert("span".into(), l.finding.span.map_or(Value::Null, |(s, n)| json!([s, n])));
                    f
                }).collect::<Vec<_>>(),
                "summary": {"tools": tools, "errors": errors, "warnings": warnings},
            });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&doc).expect("JSON values serialize")
            )
        }
        LintFormat::Sarif => format!(
            "{}\n",
            serde_json::to_string_pretty(&sarif(&located)).expect("JSON values serialize")
        ),
    };
    emit(&out)?;
    Ok(if errors > 0 { 1 } else { 0 })
}

/// Where a pointer's position is: the byte offset of the value itself, or of the nearest
/// enclosing value that exists, and the columns to add inside a string value to reach the span's
/// start when they can be counted exactly.
fn resolve(
    text: &str,
    places: &HashMap<String, usize>,
    pointer: &str,
    span: Option<(usize, usize)>,
) -> (usize, usize) {
    let mut p = pointer;
    loop {
        if let Some(&offset) = places.get(p) {
            let extra = match span {
                Some((start, _)) if p.len() == pointer.len() => {
                    string_offset(text, offset, start).unwrap_or(0)
                }
                _ => 0,
            };
            return (offset, extra);
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => return (0, 0),
        }
    }
}

/// Columns from a string's opening quote (at byte `offset`) to its `start`-th character, when no
/// escape or line break comes before it.
fn string_offset(text: &str, offset: usize, start: usize) -> Option<usize> {
    let rest = text.get(offset..)?;
    let mut chars = rest.chars();
    if chars.next()? != '"' {
        return None;
    }
    let mut n = 0;
    for c in chars.take(start) {
        if matches!(c, '\\' | '"' | '\n') {
            return None;
        }
        n += 1;
    }
    (n == start).then_some(start + 1)
}

fn human(
    located: &[Located],
    sources: &[Source],
    tools: usize,
    errors: usize,
    warnings: usize,
    st: Style,
) -> String {
    let mut out = String::new();
    for l in located {
        let f = &l.finding;
        let head = match f.severity {
            Severity::Error => st.error(&format!("error[{}]", f.rule)),
            Severity::Warning => st.warning(&format!("warning[{}]", f.rule)),
        };
        let _ = writeln!(out, "{head}{}", st.bold(&format!(": {}", f.message)));
        let _ = writeln!(
            out,
            "  {} {}:{}:{} (tool `{}`, {})",
            st.gutter("-->"),
            l.source.label,
            l.line,
            l.column,
            f.tool,
            if l.pointer.is_empty() {
                "/"
            } else {
                &l.pointer
            }
        );
        let value = l.source.defs[l.tool]
            .pointer(&f.pointer)
            .and_then(Value::as_str);
        if let Some(text) = value {
            let (shown, marks) = excerpt(text, f.span);
            let bar = st.gutter("|");
            let _ = writeln!(out, "   {bar}");
            let _ = writeln!(out, "   {bar} {shown}");
            if let Some(marks) = marks {
                let paint = match f.severity {
                    Severity::Error => st.error(&marks),
                    Severity::Warning => st.warning(&marks),
                };
                let _ = writeln!(out, "   {bar} {paint}");
            }
        }
        if let Some(rule) = RULES.iter().find(|r| r.id == f.rule) {
            let _ = writeln!(out, "   {} {}", st.gutter("= help:"), rule.explanation);
        }
        out.push('\n');
    }
    let files = sources.len();
    let where_ = format!(
        "{tools} tool{} in {files} file{}",
        plural(tools),
        plural(files)
    );
    if located.is_empty() {
        let _ = writeln!(out, "{}: {where_}: no findings", st.good("toolsmith"));
    } else {
        let _ = writeln!(
            out,
            "{}: {where_}: {errors} error{}, {warnings} warning{}",
            if errors > 0 {
                st.error("toolsmith")
            } else {
                st.warning("toolsmith")
            },
            plural(errors),
            plural(warnings)
        );
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A one-line window of `text` around `span` (at most about 100 characters; line breaks shown as
/// `⏎`, invisible characters as `<U+XXXX>`) and the `^` marks under the span.
fn excerpt(text: &str, span: Option<(usize, usize)>) -> (String, Option<String>) {
    const WIDTH: usize = 100;
    let chars: Vec<char> = text.chars().collect();
    let (start, len) = match span {
        Some((s, n)) => (s.min(chars.len()), n.max(1)),
        None if chars.len() <= WIDTH => (0, 0),
        None => (0, 0),
    };
    let lo = if start + len > WIDTH {
        start.saturating_sub(30)
    } else {
        0
    };
    let hi = (lo + WIDTH).max(start + len).min(chars.len());
    let mut shown = String::new();
    let mut marks = String::new();
    if lo > 0 {
        shown.push('…');
        marks.push(' ');
    }
    for (i, &c) in chars.iter().enumerate().take(hi).skip(lo) {
        let r = render(c);
        let w = r.chars().count();
        shown.push_str(&r);
        let mark = if i >= start && i < start + len {
            '^'
        } else {
            ' '
        };
        marks.extend(std::iter::repeat_n(mark, w));
    }
    if span.is_some() && start >= chars.len() {
        marks.push('^');
    }
    if hi < chars.len() {
        shown.push('…');
    }
    let marks = span.map(|_| marks.trim_end().to_string());
    (shown, marks)
}

fn render(c: char) -> String {
    match c {
        '\n' | '\r' => "⏎".into(),
        '\t' => " ".into(),
        c if c.is_control() || is_invisible(c) => format!("<U+{:04X}>", c as u32),
        c => c.to_string(),
    }
}

fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
        | 0x2060..=0x206F | 0x3164 | 0xFEFF | 0xFFA0 | 0xFFF9..=0xFFFB | 0xE0000..=0xE007F
        | 0xE0100..=0xE01EF)
}

/// A SARIF 2.1.0 log with one run: every rule of the table, and one result per finding with its
/// file, line, column and a logical location `tool/pointer`.
fn sarif(located: &[Located]) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.explanation},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {"tags": if poisoning(r.id) { vec!["security", "tool-poisoning"] } else { vec!["tool-design"] }},
            })
        })
        .collect();
    let results: Vec<Value> = located
        .iter()
        .map(|l| {
            let f = &l.finding;
            let mut region = json!({"startLine": l.line, "startColumn": l.column});
            if let Some((_, len)) = f.span {
                region["endLine"] = json!(l.line);
                region["endColumn"] = json!(l.column + len.max(1));
            }
            json!({
                "ruleId": f.rule,
                "ruleIndex": RULES.iter().position(|r| r.id == f.rule).unwrap_or(0),
                "level": level(f.severity),
                "message": {"text": format!("{}: {}", f.tool, f.message)},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(&l.source.label)},
                        "region": region,
                    },
                    "logicalLocations": [{
                        "name": f.tool,
                        "fullyQualifiedName": format!("{}{}", f.tool, f.pointer),
                        "kind": "member",
                    }],
                }],
                "properties": {"pointer": l.pointer},
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolsmith",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://example.invalid/toolsmith",
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

fn poisoning(rule: &str) -> bool {
    matches!(
        rule,
        "hidden_text"
            | "agent_instructions"
            | "sensitive_data_request"
            | "conversation_exfiltration"
            | "exfiltration_target"
            | "tool_shadowing"
            | "unrelated_parameter"
    )
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// A relative URI reference for a path as given: forward slashes, spaces and `%` escaped.
fn uri(label: &str) -> String {
    if label == "<stdin>" {
        return "stdin".into();
    }
    let mut out = String::new();
    for c in label.replace('\\', "/").chars() {
        match c {
            ' ' => out.push_str("%20"),
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_mark_the_span() {
        let (shown, marks) = excerpt("Adds. <IMPORTANT>x", Some((6, 11)));
        assert_eq!(shown, "Adds. <IMPORTANT>x");
        assert_eq!(marks.as_deref(), Some("      ^^^^^^^^^^^"));
        let (shown, marks) = excerpt("a\u{200B}b", Some((1, 1)));
        assert_eq!(shown, "a<U+200B>b");
        assert_eq!(marks.as_deref(), Some(" ^^^^^^^^"));
        let long = format!("{}TARGET", "x".repeat(200));
        let (shown, marks) = excerpt(&long, Some((200, 6)));
        assert!(shown.starts_with('…') && shown.contains("TARGET"));
        assert!(marks.unwrap().ends_with("^^^^^^"));
    }
}
