//! `toolsmith lint`: human (rustc-style), JSON and SARIF 2.1.0 reports.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use bumpalo::Bump;
use serde_json::{json, Value};
use toolsmith_lint::doc::Node;
use toolsmith_lint::quality::lint_nodes_then;
use toolsmith_lint::{lookup_rule, Finding, LintConfig, Severity, RULES};

use crate::input::{self, Parsed, Shape};
use crate::style::{self, Style};
use crate::{CliError, Color, LintFormat, Only};

/// Whether a finding is a security finding: its rule guards against tool poisoning (the rule
/// table's `poisoning` flag); every other finding is a style finding.
fn is_security(rule: &str) -> bool {
    toolsmith_lint::rule(rule).is_some_and(|r| r.poisoning)
}

/// Whether a finding is one of the quality components (a style finding that the human report
/// ranks first, see [`toolsmith_lint::quality`]).
fn is_quality(rule: &str) -> bool {
    toolsmith_lint::quality::is_component(rule)
}

/// How many tools of a list have each of [`toolsmith_lint::quality::COMPONENTS`].
type Components = [usize; 5];

/// [`Components`] of tools from their findings (all of them, before any filter).
fn components_of(all: &[Vec<Finding>]) -> Components {
    let mut have = [0; 5];
    for each in all {
        for (n, missing) in have.iter_mut().zip(toolsmith_lint::quality::missing(each)) {
            *n += usize::from(!missing);
        }
    }
    have
}

/// A finding's class as the JSON and SARIF reports name it: `security` or `style`.
fn category(security: bool) -> &'static str {
    if security {
        "security"
    } else {
        "style"
    }
}

/// One finding with where it is in its source.
struct Located<'s, 'a> {
    finding: Finding,
    source: &'s Parsed<'a>,
    /// Index of the tool in the source.
    tool: usize,
    /// Pointer into the source document.
    pointer: String,
    /// 1-based line and column of the offending value (or of the nearest enclosing one), and of
    /// the span's start when the value is a string.
    line: usize,
    column: usize,
    /// The string at the finding's pointer in the tool's definition (`None` when that is no
    /// string), when the lookup for the position already found it.
    value: Option<Option<&'a str>>,
    /// Whether its rule guards against tool poisoning (see [`is_security`]).
    security: bool,
}

/// [`Located::tool`] of a finding on the whole list (`toxic_flow`), not on one tool.
const LIST: usize = usize::MAX;

/// One part of a source's findings (see [`lint_nodes_then`]), located, with its diagnostics
/// (human format) or its entries of the JSON report's `findings` (JSON format) already written
/// on the thread that linted it; empty for SARIF, which is built from every finding at once.
struct Part<'s, 'a> {
    located: Vec<Located<'s, 'a>>,
    text: Vec<u8>,
    /// How many of the part's tools have each quality component.
    have: Components,
}

/// What the lint reports: every finding, or one class of them (`--only`).
#[derive(Clone, Copy)]
struct Filter<'f> {
    /// Rules left out (`--allow`).
    allow: &'f [String],
    only: Option<Only>,
}

impl Filter<'_> {
    fn keeps(&self, f: &Finding, security: bool) -> bool {
        !self.allow.iter().any(|a| a == f.rule)
            && match self.only {
                None => true,
                Some(Only::Security) => security,
                Some(Only::Style) => !security,
                Some(Only::Quality) => !security && is_quality(f.rule),
            }
    }

    /// Whether the human report has a verdict line per tool: unless only style (or the quality
    /// components) is asked for.
    fn verdicts(&self) -> bool {
        matches!(self.only, None | Some(Only::Security))
    }

    /// Whether the human report has a line of each list's quality components: unless only
    /// security is asked for.
    fn components(&self) -> bool {
        self.only != Some(Only::Security)
    }
}

/// Runs the command; returns the exit code.
pub fn run(
    files: &[PathBuf],
    format: LintFormat,
    profile: &str,
    allow: &[String],
    only: Option<Only>,
    color: Color,
) -> Result<u8, CliError> {
    let cfg = LintConfig::profile(profile).map_err(|e| CliError::input(e.to_string()))?;
    for rule in allow {
        lookup_rule(rule).map_err(|e| CliError::input(e.to_string()))?;
    }
    let arena = Bump::new();
    let sources = input::load_all_nodes(files, &arena)?;
    let st = Style::stdout(color);
    let mut stdout = std::io::stdout();
    let filter = Filter { allow, only };
    let (parts, written) = write_report(&sources, &cfg, filter, format, st, &mut stdout);
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(CliError::input(format!("cannot write the output: {e}"))),
    }
    let (_, errors) = counts(&parts);
    let code = if errors > 0 { 1 } else { 0 };
    // The process ends right after: freeing every finding and the arena piece by piece would
    // only cost time.
    std::mem::forget(parts);
    std::mem::forget(sources);
    std::mem::forget(arena);
    Ok(code)
}

/// The report as it goes out: the first write error is kept and nothing is written after it.
struct Stream<'w, W> {
    out: &'w mut W,
    json: bool,
    /// Whether a finding of the JSON report's array was written.
    any: bool,
    result: std::io::Result<()>,
}

impl<W: Write> Stream<'_, W> {
    fn write(&mut self, bytes: &[u8]) {
        if self.result.is_ok() && !bytes.is_empty() {
            self.result = self.out.write_all(bytes);
        }
    }

    /// Before a part's findings (none when `empty`): the JSON array's separator.
    fn begin_part(&mut self, empty: bool) {
        if self.json && !empty {
            let sep: &[u8] = if self.any { b",\n" } else { b"\n" };
            self.write(sep);
            self.any = true;
        }
    }
}

/// Lints every source and writes the report in `format` to `out`; returns the located findings
/// of each part and how the writing went.
///
/// Each source is linted in one or two parts (see [`lint_nodes_then`]), each part located and
/// written on the thread that linted it. The second thread takes a little more than half of a
/// long list: the first has read the file and gathered its tools before. The first part's
/// report goes to `out` as it is written, in pieces of [`SPILL_AT`] bytes, while the second
/// thread writes its part into a buffer that follows it: a report held whole would be several
/// megabytes of fresh pages for the kernel to zero. SARIF is built from every finding at the end.
fn write_report<'s, 'a, W: Write + Send>(
    sources: &'s [Parsed<'a>],
    cfg: &LintConfig,
    filter: Filter,
    format: LintFormat,
    st: Style,
    out: &mut W,
) -> (Vec<Part<'s, 'a>>, std::io::Result<()>) {
    let json = format == LintFormat::Json;
    let mut stream = Stream {
        out,
        json,
        any: false,
        result: Ok(()),
    };
    if json {
        stream.write(&json_head(sources, cfg.profile.name()));
    }
    let stream = Mutex::new(stream);
    let lock = || stream.lock().unwrap_or_else(PoisonError::into_inner);
    let mut parts = Vec::new();
    let mut lists = Vec::with_capacity(sources.len());
    for source in sources {
        let split = source.defs.len() * SPLIT_PERCENT / 100;
        let done = lint_nodes_then(&source.defs, cfg, split, |first, all| {
            let tools = first..first + all.len();
            let have = components_of(&all);
            let located = locate_part(source, first, all, filter);
            let verdicts = (format == LintFormat::Human && filter.verdicts())
                .then_some(Verdicts { source, tools });
            if format == LintFormat::Sarif {
                return Part {
                    located,
                    text: Vec::new(),
                    have,
                };
            }
            // Every part of this source after the first is written once they are all done,
            // so the first can go out now, in order.
            let text = if first == 0 {
                let mut s = lock();
                s.begin_part(located.is_empty());
                let mut spill = |b: &[u8]| s.write(b);
                part_text(&located, verdicts, format, st, Some(&mut spill));
                Vec::new()
            } else {
                part_text(&located, verdicts, format, st, None)
            };
            Part {
                located,
                text,
                have,
            }
        });
        let mut s = lock();
        for p in done.iter().filter(|p| !p.text.is_empty()) {
            s.begin_part(false);
            s.write(&p.text);
        }
        let mut have = [0; 5];
        for p in &done {
            for (n, h) in have.iter_mut().zip(p.have) {
                *n += h;
            }
        }
        parts.extend(done);
        // The list rule: one finding for the source, after its tools'.
        if let Some((part, text)) = list_part(source, filter, format, st) {
            if !text.is_empty() {
                s.begin_part(false);
                s.write(&text);
            }
            parts.push(part);
        }
        if format == LintFormat::Human && filter.components() && !source.defs.is_empty() {
            s.write(components_line(&source.label, source.defs.len(), have, st).as_bytes());
        }
        drop(s);
        lists.push(have);
    }
    let mut stream = stream.into_inner().unwrap_or_else(PoisonError::into_inner);
    write_end(&mut stream, &parts, sources, &lists, format, st);
    let result = std::mem::replace(&mut stream.result, Ok(()));
    (parts, result.and_then(|()| stream.out.flush()))
}

/// The finding of the list rule (`toxic_flow`) on `source`, if `filter` keeps it, located at the
/// document's start, and its report in `format`.
fn list_part<'s, 'a>(
    source: &'s Parsed<'a>,
    filter: Filter,
    format: LintFormat,
    st: Style,
) -> Option<(Part<'s, 'a>, Vec<u8>)> {
    let f = toolsmith_lint::toxic_flow_nodes(&source.defs).filter(|f| filter.keeps(f, true))?;
    let (line, column) = input::positions(source.text, &[source.root.at])[0];
    let located = vec![Located {
        finding: f,
        source,
        tool: LIST,
        pointer: String::new(),
        line,
        column,
        value: Some(None),
        security: true,
    }];
    let text = part_text(&located, None, format, st, None);
    let part = Part {
        located,
        text: Vec::new(),
        have: [0; 5],
    };
    Some((part, text))
}

/// The human report's line of a list's quality components: how many of its `tools` have each
/// (`components in FILE: purpose 12/14, when to use 0/14, ...`).
fn components_line(label: &str, tools: usize, have: Components, st: Style) -> String {
    let mut out = String::new();
    st.wrap(&mut out, style::BOLD, |o| {
        o.push_str("components in ");
        o.push_str(label);
        o.push(':');
    });
    for (i, (c, n)) in toolsmith_lint::quality::COMPONENTS
        .iter()
        .zip(have)
        .enumerate()
    {
        let _ = write!(
            out,
            "{} {} {n}/{tools}",
            if i == 0 { "" } else { "," },
            c.name
        );
    }
    out.push('\n');
    out
}

/// The end of the report, after every part: the human summary, the JSON report's close, or
/// the whole SARIF document.
fn write_end<W: Write>(
    stream: &mut Stream<'_, W>,
    parts: &[Part],
    sources: &[Parsed],
    lists: &[Components],
    format: LintFormat,
    st: Style,
) {
    let tools: usize = sources.iter().map(|s| s.defs.len()).sum();
    let (n, errors) = counts(parts);
    match format {
        LintFormat::Human => {
            let security = parts
                .iter()
                .flat_map(|p| &p.located)
                .filter(|l| l.security)
                .count();
            let summary = human_summary(n == 0, sources, tools, errors, n - errors, security, st);
            stream.write(summary.as_bytes());
        }
        LintFormat::Json => {
            let close: &[u8] = if stream.any { b"\n  ]" } else { b"]" };
            stream.write(close);
            stream.write(&json_tail(sources, lists, tools, errors, n - errors));
        }
        LintFormat::Sarif => {
            let located: Vec<&Located> = parts.iter().flat_map(|p| &p.located).collect();
            let doc =
                serde_json::to_string_pretty(&sarif(&located)).expect("JSON values serialize");
            stream.write(doc.as_bytes());
            stream.write(b"\n");
        }
    }
}

/// How many findings the parts hold, and how many of them are errors.
fn counts(parts: &[Part]) -> (usize, usize) {
    let located = parts.iter().flat_map(|p| &p.located);
    let errors = located
        .clone()
        .filter(|l| l.finding.severity == Severity::Error)
        .count();
    (parts.iter().map(|p| p.located.len()).sum(), errors)
}

/// A part's human or JSON report: returned whole, or with `spill` handed each piece of about
/// [`SPILL_AT`] bytes as it is written (then nothing is returned).
fn part_text(
    located: &[Located],
    verdicts: Option<Verdicts>,
    format: LintFormat,
    st: Style,
    spill: Option<Spill<'_>>,
) -> Vec<u8> {
    match format {
        LintFormat::Human => diagnostics(located, verdicts, st, spill),
        LintFormat::Json => json_findings(located, spill),
        LintFormat::Sarif => Vec::new(),
    }
}

/// Where a part's report goes piece by piece as it is written (see [`part_text`]).
type Spill<'f> = &'f mut dyn FnMut(&[u8]);

/// How much of a report [`write_report`] gathers before it writes it out.
const SPILL_AT: usize = 64 * 1024;

/// The room of a report buffer for `findings` findings: all of them, or one piece of
/// [`SPILL_AT`] bytes and the finding that ends it when it spills.
fn report_capacity(findings: usize, spills: bool) -> usize {
    if spills {
        SPILL_AT + 4 * REPORT_BYTES_PER_FINDING
    } else {
        findings * REPORT_BYTES_PER_FINDING + 128
    }
}

/// The share of a long list's tools, in percent, that the first thread lints (see
/// [`write_report`]).
const SPLIT_PERCENT: usize = 48;

/// The tools of a part whose human report has a verdict line per tool (see [`diagnostics`]).
struct Verdicts<'s, 'a> {
    source: &'s Parsed<'a>,
    tools: std::ops::Range<usize>,
}

/// The findings of the tools `first..` of `source` (`all[i]` those of tool `first + i`) that
/// `filter` keeps, with their positions in the source: tool by tool, each tool's security
/// findings first (a reviewer's report), then the quality components it lacks (what to fix
/// first), then its other style findings, in the order the lint found them otherwise.
fn locate_part<'s, 'a>(
    source: &'s Parsed<'a>,
    first: usize,
    all: Vec<Vec<Finding>>,
    filter: Filter,
) -> Vec<Located<'s, 'a>> {
    let kept = Kept::of(source, first, all, filter);
    if kept.findings.is_empty() {
        return Vec::new();
    }
    let resolved = resolve_kept(source, &kept);
    let offsets: Vec<usize> = resolved.iter().map(|r| r.0).collect();
    let at = input::positions(source.text, &offsets);
    let mut located = Vec::with_capacity(kept.findings.len());
    let Kept {
        findings,
        pointers,
        tool_of,
        security,
    } = kept;
    for (((((finding, pointer), tool), (line, col)), (_, extra, value)), security) in findings
        .into_iter()
        .zip(pointers)
        .zip(tool_of)
        .zip(at)
        .zip(resolved)
        .zip(security)
    {
        located.push(Located {
            finding,
            source,
            tool,
            pointer,
            line,
            column: col + extra,
            value,
            security,
        });
    }
    located
}

/// The findings of a part that a filter keeps, in report order, side by side with each one's
/// pointer into the source, its tool and whether it is a security finding.
struct Kept {
    findings: Vec<Finding>,
    pointers: Vec<String>,
    tool_of: Vec<usize>,
    security: Vec<bool>,
}

impl Kept {
    /// See [`locate_part`]: tool by tool, each tool's security findings first.
    fn of(source: &Parsed, first: usize, all: Vec<Vec<Finding>>, filter: Filter) -> Kept {
        // Sized once: the vectors of a large list would otherwise be copied at every doubling.
        let n: usize = all.iter().map(Vec::len).sum();
        let mut kept = Kept {
            findings: Vec::with_capacity(n),
            pointers: Vec::with_capacity(n),
            tool_of: Vec::with_capacity(n),
            security: Vec::with_capacity(n),
        };
        let mut style = Vec::new();
        let mut quality = Vec::new();
        for (i, each) in all.into_iter().enumerate() {
            let ti = first + i;
            // Security findings go out at once; the quality components wait for the tool's last
            // one, and the other style findings for them.
            for f in each {
                let sec = is_security(f.rule);
                if !filter.keeps(&f, sec) {
                    continue;
                }
                if !sec {
                    if is_quality(f.rule) {
                        quality.push(f);
                    } else {
                        style.push(f);
                    }
                    continue;
                }
                kept.push(source, ti, f, true);
            }
            for f in quality.drain(..).chain(style.drain(..)) {
                kept.push(source, ti, f, false);
            }
        }
        kept
    }

    #[inline]
    fn push(&mut self, source: &Parsed, tool: usize, f: Finding, security: bool) {
        self.pointers
            .push(source.tools[tool].source_pointer(&f.pointer));
        self.tool_of.push(tool);
        self.security.push(security);
        self.findings.push(f);
    }
}

/// Each kept finding's offset, the columns to add for its span, and (for an MCP tool) the
/// string at its pointer, found on the way.
fn resolve_kept<'a>(
    source: &Parsed<'a>,
    kept: &Kept,
) -> Vec<(usize, usize, Option<Option<&'a str>>)> {
    if source.offsets {
        return kept
            .findings
            .iter()
            .zip(&kept.pointers)
            .zip(&kept.tool_of)
            .map(|((f, p), &ti)| {
                // An MCP tool's definition is its node in the document: look there.
                let mcp = source.tools[ti].shape == Shape::Mcp;
                let (node, whole) = if mcp {
                    source.defs[ti].deepest(&f.pointer)
                } else {
                    source.root.deepest(p)
                };
                let value = mcp.then(|| node.as_str().filter(|_| whole));
                (
                    node.at,
                    extra_columns(source.text, node.at, whole, f.span),
                    value,
                )
            })
            .collect();
    }
    let wanted: Vec<&str> = kept.pointers.iter().map(String::as_str).collect();
    let places = input::locate(source.text, &wanted);
    kept.findings
        .iter()
        .zip(&kept.pointers)
        .map(|(f, p)| {
            let (at, extra) = resolve(source.text, &places, p, f.span);
            (at, extra, None)
        })
        .collect()
}

/// The JSON report up to its findings array's `[`. With [`json_tail`], the same document, key
/// order and pretty-printing as `serde_json::to_string_pretty` of the report as a value.
fn json_head(sources: &[Parsed], profile: &str) -> Vec<u8> {
    let mut head = Vec::from(*b"{\n  \"profile\": ");
    json_str(&mut head, profile);
    head.extend_from_slice(b",\n  \"files\": [");
    for (i, s) in sources.iter().enumerate() {
        head.extend_from_slice(if i == 0 { &b"\n"[..] } else { b",\n" });
        head.extend_from_slice(b"    {\n      \"file\": ");
        json_str(&mut head, &s.label);
        head.extend_from_slice(b",\n      \"tools\": ");
        head.extend_from_slice(itoa::Buffer::new().format(s.defs.len()).as_bytes());
        head.extend_from_slice(b"\n    }");
    }
    head.extend_from_slice(if sources.is_empty() {
        &b"]"[..]
    } else {
        b"\n  ]"
    });
    head.extend_from_slice(b",\n  \"findings\": [");
    head
}

/// The JSON report after its findings array's `]`: the quality components of each list (how
/// many of its tools have each), then the summary.
fn json_tail(
    sources: &[Parsed],
    lists: &[Components],
    tools: usize,
    errors: usize,
    warnings: usize,
) -> Vec<u8> {
    let mut n = itoa::Buffer::new();
    let mut tail = Vec::from(*b",\n  \"components\": [");
    for (i, (s, have)) in sources.iter().zip(lists).enumerate() {
        tail.extend_from_slice(if i == 0 { &b"\n"[..] } else { b",\n" });
        tail.extend_from_slice(b"    {\n      \"file\": ");
        json_str(&mut tail, &s.label);
        tail.extend_from_slice(b",\n      \"tools\": ");
        tail.extend_from_slice(n.format(s.defs.len()).as_bytes());
        for (c, h) in toolsmith_lint::quality::COMPONENTS.iter().zip(have) {
            tail.extend_from_slice(b",\n      \"");
            tail.extend_from_slice(c.key.as_bytes());
            tail.extend_from_slice(b"\": ");
            tail.extend_from_slice(n.format(*h).as_bytes());
        }
        tail.extend_from_slice(b"\n    }");
    }
    tail.extend_from_slice(if lists.is_empty() {
        &b"]"[..]
    } else {
        b"\n  ]"
    });
    tail.extend_from_slice(b",\n  \"summary\": {\n    \"tools\": ");
    tail.extend_from_slice(n.format(tools).as_bytes());
    tail.extend_from_slice(b",\n    \"errors\": ");
    tail.extend_from_slice(n.format(errors).as_bytes());
    tail.extend_from_slice(b",\n    \"warnings\": ");
    tail.extend_from_slice(n.format(warnings).as_bytes());
    tail.extend_from_slice(b"\n  }\n}\n");
    tail
}

/// Appends a JSON string, escaped as `serde_json` escapes it.
fn json_str(out: &mut Vec<u8>, s: &str) {
    serde_json::to_writer(&mut *out, s).expect("a string serializes");
}

/// Room for one finding in a part's human or JSON report (about 350 and 400 bytes on the real
/// catalogs): a buffer that never has to grow is never copied, and its unused tail is never
/// touched.
const REPORT_BYTES_PER_FINDING: usize = 640;

/// The entries of the JSON report's `findings` array for `located`, pretty-printed at its
/// depth and separated by `,` and a line break (no break before the first or after the last).
fn json_findings(located: &[Located], mut spill: Option<Spill<'_>>) -> Vec<u8> {
    let mut out = Vec::with_capacity(report_capacity(located.len(), spill.is_some()));
    let mut n = itoa::Buffer::new();
    for (i, l) in located.iter().enumerate() {
        let f = &l.finding;
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        if let Some(spill) = spill.as_mut().filter(|_| out.len() >= SPILL_AT) {
            spill(&out);
            out.clear();
        }
        // The keys of `Finding::to_json`, then where the finding is.
        out.extend_from_slice(b"    {\n      \"rule\": ");
        json_str(&mut out, f.rule);
        out.extend_from_slice(b",\n      \"severity\": \"");
        out.extend_from_slice(f.severity.as_str().as_bytes());
        out.extend_from_slice(b"\",\n      \"category\": \"");
        out.extend_from_slice(category(l.security).as_bytes());
        out.extend_from_slice(b"\",\n      \"tool\": ");
        json_str(&mut out, &f.tool);
        out.extend_from_slice(b",\n      \"pointer\": ");
        json_str(&mut out, &f.pointer);
        out.extend_from_slice(b",\n      \"message\": ");
        json_str(&mut out, &f.message);
        out.extend_from_slice(b",\n      \"file\": ");
        json_str(&mut out, &l.source.label);
        out.extend_from_slice(b",\n      \"location\": ");
        json_str(&mut out, &l.pointer);
        out.extend_from_slice(b",\n      \"line\": ");
        out.extend_from_slice(n.format(l.line).as_bytes());
        out.extend_from_slice(b",\n      \"column\": ");
        out.extend_from_slice(n.format(l.column).as_bytes());
        match f.span {
            Some((s, len)) => {
                out.extend_from_slice(b",\n      \"span\": [\n        ");
                out.extend_from_slice(n.format(s).as_bytes());
                out.extend_from_slice(b",\n        ");
                out.extend_from_slice(n.format(len).as_bytes());
                out.extend_from_slice(b"\n      ]\n    }");
            }
            None => out.extend_from_slice(b",\n      \"span\": null\n    }"),
        }
    }
    spilled(out, spill)
}

/// The rest of a report buffer: handed to `spill` (then nothing is left), or returned.
fn spilled(mut out: Vec<u8>, spill: Option<Spill<'_>>) -> Vec<u8> {
    if let Some(spill) = spill {
        spill(&out);
        out.clear();
    }
    out
}

/// The JSON report through `serde_json`'s pretty printer, as it was written before
/// [`json_head`], [`json_findings`] and [`json_tail`]: the tests compare the two.
/// (The same document, key order and pretty-printing as building it as a `serde_json::Value`
/// first, without the intermediate tree.)
#[cfg(test)]
fn json_report(
    located: &[Located],
    sources: &[Parsed],
    lists: &[Components],
    profile: &str,
    tools: usize,
    errors: usize,
    warnings: usize,
) -> String {
    use serde::ser::SerializeMap;
    use serde::{Serialize, Serializer};

    struct Files<'a, 'b>(&'a [Parsed<'b>]);
    impl Serialize for Files<'_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(FileEntry))
        }
    }
    struct FileEntry<'a, 'b>(&'a Parsed<'b>);
    impl Serialize for FileEntry<'_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry("file", &self.0.label)?;
            m.serialize_entry("tools", &self.0.defs.len())?;
            m.end()
        }
    }
    struct Findings<'a, 'b, 'c>(&'a [Located<'b, 'c>]);
    impl Serialize for Findings<'_, '_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(FindingEntry))
        }
    }
    struct FindingEntry<'a, 'b, 'c>(&'a Located<'b, 'c>);
    impl Serialize for FindingEntry<'_, '_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let l = self.0;
            let f = &l.finding;
            // The keys of `Finding::to_json`, then where the finding is.
            let mut m = s.serialize_map(Some(11))?;
            m.serialize_entry("rule", f.rule)?;
            m.serialize_entry("severity", f.severity.as_str())?;
            m.serialize_entry("category", category(l.security))?;
            m.serialize_entry("tool", &f.tool)?;
            m.serialize_entry("pointer", &f.pointer)?;
            m.serialize_entry("message", &f.message)?;
            m.serialize_entry("file", &l.source.label)?;
            m.serialize_entry("location", &l.pointer)?;
            m.serialize_entry("line", &l.line)?;
            m.serialize_entry("column", &l.column)?;
            m.serialize_entry("span", &f.span.map(|(s, n)| [s, n]))?;
            m.end()
        }
    }
    struct Lists<'a, 'b>(&'a [Parsed<'b>], &'a [Components]);
    impl Serialize for Lists<'_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().zip(self.1).map(|(p, h)| ListEntry(p, h)))
        }
    }
    struct ListEntry<'a, 'b>(&'a Parsed<'b>, &'a Components);
    impl Serialize for ListEntry<'_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(7))?;
            m.serialize_entry("file", &self.0.label)?;
            m.serialize_entry("tools", &self.0.defs.len())?;
            for (c, h) in toolsmith_lint::quality::COMPONENTS.iter().zip(self.1) {
                m.serialize_entry(c.key, h)?;
            }
            m.end()
        }
    }
    struct Summary {
        tools: usize,
        errors: usize,
        warnings: usize,
    }
    impl Serialize for Summary {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(3))?;
            m.serialize_entry("tools", &self.tools)?;
            m.serialize_entry("errors", &self.errors)?;
            m.serialize_entry("warnings", &self.warnings)?;
            m.end()
        }
    }
    struct Doc<'a, 'b, 'c> {
        profile: &'a str,
        sources: &'a [Parsed<'c>],
        located: &'a [Located<'b, 'c>],
        lists: &'a [Components],
        summary: Summary,
    }
    impl Serialize for Doc<'_, '_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(5))?;
            m.serialize_entry("profile", self.profile)?;
            m.serialize_entry("files", &Files(self.sources))?;
            m.serialize_entry("findings", &Findings(self.located))?;
            m.serialize_entry("components", &Lists(self.sources, self.lists))?;
            m.serialize_entry("summary", &self.summary)?;
            m.end()
        }
    }
    let doc = Doc {
        profile,
        sources,
        located,
        lists,
        summary: Summary {
            tools,
            errors,
            warnings,
        },
    };
    let mut out = Vec::with_capacity(located.len() * 400 + 256);
    serde_json::to_writer_pretty(&mut out, &doc).expect("the report serializes");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Where a pointer's position is: the byte offset of the value itself, or of the nearest
/// enclosing value that exists, and the columns to add inside a string value to reach the span's
/// start when they can be counted exactly.
fn resolve(
    text: &str,
    places: &HashMap<&str, usize, input::FnvBuild>,
    pointer: &str,
    span: Option<(usize, usize)>,
) -> (usize, usize) {
    let mut p = pointer;
    loop {
        if let Some(&offset) = places.get(p) {
            return (
                offset,
                extra_columns(text, offset, p.len() == pointer.len(), span),
            );
        }
        match p.rfind('/') {
            Some(i) => p = &p[..i],
            None => return (0, 0),
        }
    }
}

/// The columns to add to a value's position to reach its span's start: counted inside the
/// string at `offset` when the finding's own value (`whole`) is there, else none.
fn extra_columns(text: &str, offset: usize, whole: bool, span: Option<(usize, usize)>) -> usize {
    match span {
        Some((start, _)) if whole => string_offset(text, offset, start).unwrap_or(0),
        _ => 0,
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

/// The human report's summary line.
fn human_summary(
    empty: bool,
    sources: &[Parsed],
    tools: usize,
    errors: usize,
    warnings: usize,
    security: usize,
    st: Style,
) -> String {
    let mut out = String::new();
    let files = sources.len();
    let where_ = format!(
        "{tools} tool{} in {files} file{}",
        plural(tools),
        plural(files)
    );
    if empty {
        let _ = writeln!(out, "{}: {where_}: no findings", st.good("toolsmith"));
    } else {
        let _ = writeln!(
            out,
            "{}: {where_}: {errors} error{}, {warnings} warning{} ({security} security finding{})",
            if errors > 0 {
                st.error("toolsmith")
            } else {
                st.warning("toolsmith")
            },
            plural(errors),
            plural(warnings),
            plural(security)
        );
    }
    out
}

/// The verdict line of one tool: `verdict: NAME: no security finding`, or `verdict: NAME: N
/// security finding(s) (RULE, RULE)` with each rule once, in order. A tool without a string name
/// is named `<unnamed tool at POINTER>`, its pointer in the source.
fn verdict(out: &mut String, v: &Verdicts, tool: usize, mine: &[Located], st: Style) {
    let security: Vec<&Located> = mine.iter().take_while(|l| l.security).collect();
    st.wrap(
        out,
        if security.is_empty() {
            style::BOLD
        } else {
            style::ERROR
        },
        |o| o.push_str("verdict:"),
    );
    out.push(' ');
    match v.source.defs[tool].get("name").and_then(Node::as_str) {
        Some(name) if !name.is_empty() => out.push_str(name),
        _ => {
            out.push_str("<unnamed tool at ");
            out.push_str(&v.source.tools[tool].at);
            out.push('>');
        }
    }
    if security.is_empty() {
        out.push_str(": no security finding\n");
        return;
    }
    let _ = write!(
        out,
        ": {} security finding{} (",
        security.len(),
        plural(security.len())
    );
    let mut rules: Vec<&str> = Vec::new();
    for l in &security {
        if !rules.contains(&l.finding.rule) {
            rules.push(l.finding.rule);
        }
    }
    out.push_str(&rules.join(", "));
    out.push_str(")\n");
}

/// The diagnostics of `located`, one after another; with `verdicts`, each tool of the part
/// starts with its verdict line (see [`verdict`]), a tool without findings has that line alone.
fn diagnostics(
    located: &[Located],
    verdicts: Option<Verdicts>,
    st: Style,
    mut spill: Option<Spill<'_>>,
) -> Vec<u8> {
    let mut capacity = report_capacity(located.len(), spill.is_some());
    if let Some(v) = verdicts.as_ref().filter(|_| spill.is_none()) {
        // One verdict line a tool.
        capacity += v.tools.len() * 64;
    }
    let mut out = String::with_capacity(capacity);
    let Some(v) = verdicts else {
        for l in located {
            diagnostic(&mut out, l, st, &mut spill);
        }
        return spilled(out.into_bytes(), spill);
    };
    let mut rest = located;
    for tool in v.tools.clone() {
        let n = rest.iter().take_while(|l| l.tool == tool).count();
        let (mine, after) = rest.split_at(n);
        rest = after;
        verdict(&mut out, &v, tool, mine, st);
        for l in mine {
            diagnostic(&mut out, l, st, &mut spill);
        }
        if mine.is_empty() {
            if let Some(spill) = spill.as_mut().filter(|_| out.len() >= SPILL_AT) {
                spill(out.as_bytes());
                out.clear();
            }
        }
    }
    spilled(out.into_bytes(), spill)
}

/// Appends one finding's diagnostic, handing `spill` the report so far when it is long.
fn diagnostic(out: &mut String, l: &Located, st: Style, spill: &mut Option<Spill<'_>>) {
    if let Some(spill) = spill.as_mut().filter(|_| out.len() >= SPILL_AT) {
        spill(out.as_bytes());
        out.clear();
    }
    let f = &l.finding;
    let (word, paint) = match f.severity {
        Severity::Error => ("error", style::ERROR),
        Severity::Warning => ("warning", style::WARNING),
    };
    st.wrap(out, paint, |o| {
        o.push_str(word);
        o.push('[');
        o.push_str(f.rule);
        o.push(']');
    });
    st.wrap(out, style::BOLD, |o| {
        o.push_str(": ");
        o.push_str(&f.message);
    });
    out.push_str("\n  ");
    st.wrap(out, style::GUTTER, |o| o.push_str("-->"));
    // ` FILE:LINE:COLUMN (tool `NAME`, POINTER)`, without the formatter.
    let mut n = itoa::Buffer::new();
    out.push(' ');
    out.push_str(&l.source.label);
    out.push(':');
    out.push_str(n.format(l.line));
    out.push(':');
    out.push_str(n.format(l.column));
    if l.tool == LIST {
        out.push_str(" (the whole list, ");
    } else {
        out.push_str(" (tool `");
        out.push_str(&f.tool);
        out.push_str("`, ");
    }
    out.push_str(if l.pointer.is_empty() {
        "/"
    } else {
        &l.pointer
    });
    out.push_str(")\n");
    let value = l.value.unwrap_or_else(|| {
        l.source.defs[l.tool]
            .pointer(&f.pointer)
            .and_then(Node::as_str)
    });
    if let Some(text) = value {
        let (shown, marks) = excerpt(text, f.span);
        let bar = |o: &mut String| {
            o.push_str("   ");
            st.wrap(o, style::GUTTER, |o| o.push('|'));
        };
        bar(out);
        out.push('\n');
        bar(out);
        out.push(' ');
        out.push_str(&shown);
        out.push('\n');
        if let Some(marks) = marks {
            bar(out);
            out.push(' ');
            st.wrap(out, paint, |o| o.push_str(&marks));
            out.push('\n');
        }
    }
    if let Some(rule) = toolsmith_lint::rule(f.rule) {
        out.push_str("   ");
        st.wrap(out, style::GUTTER, |o| o.push_str("= help:"));
        out.push(' ');
        out.push_str(rule.explanation);
        out.push('\n');
    }
    out.push('\n');
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
    // Printable ASCII shows as itself, one column a byte: no characters to decode.
    let plain = text.bytes().all(|b| (0x20..0x7F).contains(&b));
    let chars: Vec<char> = if plain {
        Vec::new()
    } else {
        text.chars().collect()
    };
    let count = if plain { text.len() } else { chars.len() };
    let (start, len) = match span {
        Some((s, n)) => (s.min(count), n.max(1)),
        None => (0, 0),
    };
    let lo = if start + len > WIDTH {
        start.saturating_sub(30)
    } else {
        0
    };
    let hi = (lo + WIDTH).max(start + len).min(count);
    if plain {
        return plain_excerpt(text, span.is_some(), (start, len), (lo, hi));
    }
    let mut shown = String::new();
    let mut marks = String::new();
    if lo > 0 {
        shown.push('…');
        marks.push(' ');
    }
    for (i, &c) in chars.iter().enumerate().take(hi).skip(lo) {
        let before = shown.len();
        render(c, &mut shown);
        // Every rendering is ASCII except a character shown as itself and `⏎`: one column each.
        let w = if shown.is_char_boundary(before) && shown[before..].is_ascii() {
            shown.len() - before
        } else {
            1
        };
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

/// [`excerpt`] of printable ASCII text: the window `lo..hi` as it is, the marks under
/// `start..start + len` (and one past the end for a span that starts there).
fn plain_excerpt(
    text: &str,
    marked: bool,
    (start, len): (usize, usize),
    (lo, hi): (usize, usize),
) -> (String, Option<String>) {
    let mut shown = String::with_capacity(hi - lo + 6);
    if lo > 0 {
        shown.push('…');
    }
    shown.push_str(&text[lo..hi]);
    if hi < text.len() {
        shown.push('…');
    }
    let marks = marked.then(|| {
        let (a, b) = (start.clamp(lo, hi), (start + len).clamp(lo, hi));
        let mut m = String::with_capacity(b - lo + 2);
        if lo > 0 {
            m.push(' ');
        }
        m.extend(std::iter::repeat_n(' ', a - lo));
        m.extend(std::iter::repeat_n('^', b - a));
        if start >= text.len() {
            m.push('^');
        }
        m.truncate(m.trim_end().len());
        m
    });
    (shown, marks)
}

/// Appends how a character is shown in an excerpt.
fn render(c: char, out: &mut String) {
    match c {
        '\n' | '\r' => out.push('⏎'),
        '\t' => out.push(' '),
        c if c.is_control() || is_invisible(c) => {
            let _ = write!(out, "<U+{:04X}>", c as u32);
        }
        c => out.push(c),
    }
}

/// Whether `c` is invisible when printed (format characters, fillers, tags, variation selectors).
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
        | 0x2060..=0x206F | 0x3164 | 0xFEFF | 0xFFA0 | 0xFFF9..=0xFFFB | 0xE0000..=0xE007F
        | 0xE0100..=0xE01EF)
}

/// The rules a tool list can be judged by: the table without the ones only the `#[tool]` macro
/// runs, which compare the text with a Rust signature.
fn list_rules() -> impl Iterator<Item = &'static toolsmith_lint::Rule> {
    RULES
        .iter()
        .filter(|r| !toolsmith_lint::compile_checks::SIGNATURE_RULES.contains(&r.id))
}

/// A SARIF 2.1.0 log with one run: every rule a tool list is judged by, and one result per
/// finding with its file, line, column and a logical location `tool/pointer`.
fn sarif(located: &[&Located]) -> Value {
    let rules: Vec<Value> = list_rules()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": {"text": r.explanation},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {
                    "category": category(r.poisoning),
                    "tags": if r.poisoning { vec!["security", "tool-poisoning"] } else { vec!["style", "tool-design"] },
                },
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
                "ruleIndex": list_rules().position(|r| r.id == f.rule).unwrap_or(0),
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
                "properties": {"pointer": l.pointer, "category": category(l.security)},
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

    /// The JSON report as `run` writes it.
    fn written_json(sources: &[Parsed], cfg: &LintConfig, allow: &[String]) -> (String, String) {
        let mut written = Vec::new();
        let filter = Filter { allow, only: None };
        let (parts, result) = write_report(
            sources,
            cfg,
            filter,
            LintFormat::Json,
            Style::stdout(Color::Never),
            &mut written,
        );
        result.unwrap();
        let (n, errors) = counts(&parts);
        let tools: usize = sources.iter().map(|s| s.defs.len()).sum();
        let profile = cfg.profile.name();
        let located: Vec<Located> = parts.into_iter().flat_map(|p| p.located).collect();
        // Each list's components, linted again in one part.
        let lists: Vec<Components> = sources
            .iter()
            .map(|s| {
                let mut have = [0; 5];
                for part in lint_nodes_then(&s.defs, cfg, 0, |_, all| components_of(&all)) {
                    for (n, h) in have.iter_mut().zip(part) {
                        *n += h;
                    }
                }
                have
            })
            .collect();
        let reference = json_report(
            &located,
            sources,
            &lists,
            profile,
            tools,
            errors,
            n - errors,
        );
        (String::from_utf8(written).unwrap(), reference)
    }

    #[test]
    fn the_written_json_report_is_serde_jsons() {
        let arena = Bump::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lint/");
        let load = |name: &str| {
            let text = std::fs::read_to_string(format!("{dir}{name}")).unwrap();
            input::parse_nodes(name.to_string(), arena.alloc_str(&text), &arena).unwrap()
        };
        let poisoned = load("poisoned.json");
        let shapes = load("shapes.json");
        // A list long enough for two threads, of the poisoned tools over and over, with
        // escapes, non-ASCII text and line breaks in its strings.
        let tools = poisoned.root.get("tools").unwrap().to_value();
        let many: Vec<Value> = (0..1500)
            .map(|i| tools[i % tools.as_array().unwrap().len()].clone())
            .collect();
        let long_text = serde_json::to_string_pretty(&json!({"tools": many})).unwrap();
        let long = input::parse_nodes(
            "long \"list\".json".into(),
            arena.alloc_str(&long_text),
            &arena,
        )
        .unwrap();
        let clean = input::parse_nodes("clean.json".into(), r#"[{"name": "get_time", "description": "Returns the time.", "inputSchema": {"type": "object"}}]"#, &arena).unwrap();
        let cfg = LintConfig::default();
        for sources in [vec![poisoned], vec![shapes], vec![clean], vec![long]] {
            let (written, reference) = written_json(&sources, &cfg, &[]);
            assert_eq!(written, reference, "{}", sources[0].label);
            let allow = vec!["hidden_text".to_string()];
            let (written, reference) = written_json(&sources, &cfg, &allow);
            assert_eq!(written, reference, "{}", sources[0].label);
        }
    }

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
