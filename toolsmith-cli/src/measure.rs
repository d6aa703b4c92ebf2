//! `toolsmith measure`: characters and tokens of each part of each tool, with a bar chart.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::input::{self, name_of};
use crate::style::Style;
use crate::{emit, CliError, Color};

/// The tokenizer, as named in the output.
pub const TOKENIZER: &str = "o200k_base";

/// The parts of a definition that are measured, with their JSON pointers into the MCP-shaped
/// definition. The example calls go into the model's context too (Anthropic `input_examples`,
/// read into MCP `_meta` as `toolsmith/examples`).
const PARTS: [(&str, &str); 7] = [
    ("name", "/name"),
    ("title", "/title"),
    ("description", "/description"),
    ("input", "/inputSchema"),
    ("output", "/outputSchema"),
    ("annotations", "/annotations"),
    ("examples", "/_meta/toolsmith~1examples"),
];

/// The number of [`PARTS`].
const N: usize = PARTS.len();

/// Whether a definition is deferred: loaded only on demand (`defer_loading: true` in an
/// Anthropic or OpenAI Responses list, `_meta` `toolsmith/deferred` in an MCP one).
pub fn is_deferred(def: &Value) -> bool {
    def.pointer("/_meta/toolsmith~1deferred") == Some(&Value::Bool(true))
}

/// Characters and tokens of one text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Unicode scalar values.
    pub chars: usize,
    /// o200k_base tokens.
    pub tokens: usize,
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, o: Cost) {
        self.chars += o.chars;
        self.tokens += o.tokens;
    }
}

/// The o200k_base tokenizer (its BPE table ships inside tiktoken-rs; nothing is downloaded).
pub fn tokenizer() -> Result<tiktoken_rs::CoreBPE, CliError> {
    tiktoken_rs::o200k_base().map_err(|e| CliError {
        code: 2,
        message: format!("cannot load the {TOKENIZER} tokenizer: {e}"),
    })
}

/// The cost of a part: a string as itself, anything else as compact JSON.
pub fn cost(bpe: &tiktoken_rs::CoreBPE, v: &Value) -> Cost {
    let owned;
    let text = match v {
        Value::String(s) => s.as_str(),
        other => {
            owned = other.to_string();
            owned.as_str()
        }
    };
    Cost {
        chars: text.chars().count(),
        tokens: bpe.encode_ordinary(text).len(),
    }
}

/// Each part's cost and the sum.
pub fn tool_cost(bpe: &tiktoken_rs::CoreBPE, def: &Value) -> ([Cost; N], Cost) {
    let mut parts = [Cost::default(); N];
    let mut total = Cost::default();
    for (i, (_, pointer)) in PARTS.iter().enumerate() {
        if let Some(v) = def.pointer(pointer).filter(|v| !v.is_null()) {
            parts[i] = cost(bpe, v);
            total += parts[i];
        }
    }
    (parts, total)
}

/// The cost of each tool of a list, most tokens first, with the sum of each part and the
/// total.
struct Costs {
    /// Each tool's name, the cost of each part, its whole cost, and whether it is deferred.
    rows: Vec<(String, [Cost; N], Cost, bool)>,
    sum: [Cost; N],
    total: Cost,
    /// When the list defers tools: the number of tools loaded up front and their cost.
    core: Option<(usize, Cost)>,
}

impl Costs {
    fn of(bpe: &tiktoken_rs::CoreBPE, defs: &[Value]) -> Costs {
        let mut rows: Vec<(String, [Cost; N], Cost, bool)> = defs
            .iter()
            .map(|d| {
                let (parts, total) = tool_cost(bpe, d);
                (name_of(d).to_string(), parts, total, is_deferred(d))
            })
            .collect();
        rows.sort_by(|a, b| b.2.tokens.cmp(&a.2.tokens).then_with(|| a.0.cmp(&b.0)));
        let mut sum = [Cost::default(); N];
        let mut total = Cost::default();
        let mut core = (0, Cost::default());
        for (_, parts, t, deferred) in &rows {
            for (s, p) in sum.iter_mut().zip(parts) {
                *s += *p;
            }
            total += *t;
            if !deferred {
                core.0 += 1;
                core.1 += *t;
            }
        }
        let core = rows.iter().any(|r| r.3).then_some(core);
        Costs {
            rows,
            sum,
            total,
            core,
        }
    }
}

/// Runs the command.
pub fn run(files: &[PathBuf], as_json: bool, color: Color) -> Result<u8, CliError> {
    let sources = input::load_all(files)?;
    let bpe = tokenizer()?;
    let st = Style::stdout(color);
    let mut out = String::new();
    let mut docs = Vec::new();
    for source in &sources {
        let costs = Costs::of(&bpe, &source.defs);
        if as_json {
            docs.push(json_doc(&source.label, &costs));
        } else {
            write_table(&mut out, &st, &source.label, &costs);
        }
    }
    if as_json {
        let doc = if docs.len() == 1 {
            docs.pop().expect("one document")
        } else {
            Value::Array(docs)
        };
        out = format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).expect("JSON values serialize")
        );
    }
    emit(&out)?;
    Ok(0)
}

/// The costs of the list `label` as a JSON document.
fn json_doc(label: &str, costs: &Costs) -> Value {
    let part_json = |parts: &[Cost; N]| {
        let mut m = serde_json::Map::new();
        for (i, (label, _)) in PARTS.iter().enumerate() {
            m.insert(
                (*label).into(),
                json!({"chars": parts[i].chars, "tokens": parts[i].tokens}),
            );
        }
        Value::Object(m)
    };
    let total = costs.total;
    let mut doc = json!({
        "file": label,
        "tokenizer": TOKENIZER,
        "tools": costs.rows.iter().map(|(name, parts, t, deferred)| {
            let mut row = json!({
                "name": name,
                "parts": part_json(parts),
                "chars": t.chars,
                "tokens": t.tokens,
                "share": share(t.tokens, total.tokens),
            });
            if *deferred {
                row["deferred"] = Value::Bool(true);
            }
            row
        }).collect::<Vec<_>>(),
        "total": {"parts": part_json(&costs.sum), "chars": total.chars, "tokens": total.tokens},
    });
    // The tools loaded up front against the whole, when the list defers some.
    if let Some((n, c)) = costs.core {
        doc["core"] = json!({
            "tools": n,
            "chars": c.chars,
            "tokens": c.tokens,
            "share": share(c.tokens, total.tokens),
        });
    }
    doc
}

/// The costs of the list `label` as a table for a terminal: a row per tool, with a bar of its
/// share, and the total.
fn write_table(out: &mut String, st: &Style, label: &str, costs: &Costs) {
    let (rows, total) = (&costs.rows, costs.total);
    let _ = writeln!(
        out,
        "{}: {} tool{}; tokens by {TOKENIZER} (tiktoken-rs, the GPT-4o tokenizer), characters are Unicode scalar values; each cell is tokens/characters",
        st.bold(label),
        rows.len(),
        if rows.len() == 1 { "" } else { "s" }
    );
    let width = rows
        .iter()
        .map(|r| r.0.chars().count() + if r.3 { 11 } else { 0 })
        .max()
        .unwrap_or(4)
        .clamp(5, 40);
    let _ = write!(out, "{:<width$}", "tool");
    for (label, _) in PARTS {
        let _ = write!(out, " {label:>12}");
    }
    let _ = writeln!(out, " {:>12}  share", "total");
    for (name, parts, t, deferred) in rows {
        let name = if *deferred {
            format!("{name} (deferred)")
        } else {
            name.clone()
        };
        let _ = write!(out, "{:<width$}", clip(&name, width));
        for p in parts {
            let _ = write!(out, " {:>12}", cell(*p));
        }
        let s = share(t.tokens, total.tokens);
        let _ = writeln!(
            out,
            " {:>12}  {} {:>5.1}%",
            cell(*t),
            st.good(&bar(s, 24)),
            s * 100.0
        );
    }
    let _ = write!(out, "{:<width$}", "total");
    for p in &costs.sum {
        let _ = write!(out, " {:>12}", cell(*p));
    }
    let _ = writeln!(out, " {:>12}", cell(total));
    if let Some((n, c)) = costs.core {
        let _ = writeln!(
            out,
            "core set: {n} of {} tool{} loaded up front, {}/{} tokens/characters ({:.1}% of the whole); the rest are deferred",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            c.tokens,
            c.chars,
            share(c.tokens, total.tokens) * 100.0
        );
    }
    out.push('\n');
}

fn cell(c: Cost) -> String {
    if c.chars == 0 {
        "-".into()
    } else {
        format!("{}/{}", c.tokens, c.chars)
    }
}

fn share(part: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

fn clip(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(width - 1).collect();
        s.push('…');
        s
    }
}

/// A bar of `width` cells for a share of 0..=1, in eighths.
fn bar(share: f64, width: usize) -> String {
    const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let eighths = (share.clamp(0.0, 1.0) * (width * 8) as f64).round() as usize;
    let mut s: String = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push(EIGHTHS[eighths % 8]);
    }
    format!("{s:<width$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_fill_in_eighths() {
        assert_eq!(bar(1.0, 4), "████");
        assert_eq!(bar(0.0, 4), "    ");
        assert_eq!(bar(0.625, 4), "██▌ ");
        assert_eq!(bar(0.5 + 1.0 / 32.0, 4), "██▏ ");
    }

    #[test]
    fn the_tokenizer_is_real() {
        let bpe = tokenizer().unwrap();
        assert_eq!(
            cost(&bpe, &json!("hello world")),
            Cost {
                chars: 11,
                tokens: 2
            }
        );
        assert_eq!(cost(&bpe, &json!({"a": 1})).chars, 7);
    }
}
