//! The report as a self-contained HTML page: [`report`] for one run, [`comparison`] for two
//! versions of the same tools.
//!
//! The page needs nothing but itself: its style is inline, its charts are SVG drawn here, it runs
//! no script, and its Content-Security-Policy (`default-src 'none'`) lets it load nothing, so it
//! can be opened from disk, kept as a CI artifact or attached to a review. Every text on it comes
//! from the report — tool names from third-party tool lists, case ids from the scenarios, and
//! what a model answered — and is escaped as hostile, in the page and in the charts alike.
//!
//! Percentages have one decimal everywhere (`83.3%`); an accuracy's 95% interval is written
//! `70.1%–91.4%`, a difference in percentage points with its sign (`+12.5 points`).

use crate::report::{ArgStats, CaseReport, Comparison, Difference, Rate, Report, ToolStats, Trial};
use crate::scenario::NONE;
use crate::score::{Mismatch, Outcome, ParamError};
use serde_json::Value;
use std::collections::BTreeMap;

/// What the page may load: its own inline style, and images inlined as data; nothing else.
const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// Each outcome's colour and the colour of text on it, in [`Outcome::LABELS`]' order: greens
/// for the successes, warm colours for a wrong choice, blues for wrong arguments, browns and
/// greys for the trials that were not scored.
const COLOURS: [(&str, &str, &str); 10] = [
    ("correct", "#1a7f37", "#ffffff"),
    ("abstained", "#7ad18f", "#0d2d16"),
    ("no_call", "#e9b949", "#3b2f00"),
    ("wrong_tool", "#cf222e", "#ffffff"),
    ("unwanted_call", "#f0883e", "#3d1d00"),
    ("forbidden", "#8250df", "#ffffff"),
    ("invalid_arguments", "#0969da", "#ffffff"),
    ("argument_mismatch", "#8cc8ff", "#0a2a4d"),
    ("malformed", "#8c6d5a", "#ffffff"),
    ("failed", "#afb8c1", "#1f2328"),
];

/// The style sheet, before the outcomes' colour classes (see [`style`]).
const STYLE: &str = "
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #ffffff; font: 15px/1.45 system-ui, 'Segoe UI', 'DejaVu Sans', sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 20px 32px 48px; }
header { border-bottom: 1px solid var(--line); padding-bottom: 8px; }
.kicker { margin: 0; color: var(--muted); font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.06em; }
h1 { font-size: 1.6rem; margin: 2px 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 1.25rem; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
h3 { font-size: 1.1rem; margin: 22px 0 6px; overflow-wrap: anywhere; }
h4 { font-size: 1rem; margin: 16px 0 4px; }
dl.run { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 6px 24px; margin: 8px 0; }
dl.run dt { color: var(--muted); font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.04em; }
dl.run dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.headline { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px; margin: 8px 0 4px; }
.big { font-size: 2.4rem; font-weight: 700; line-height: 1.1; font-variant-numeric: tabular-nums; }
.note { color: var(--muted); font-size: 0.875rem; max-width: 80ch; }
.better { color: #1a7f37; } .worse { color: #cf222e; } .same { color: var(--muted); }
.cards { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 16px; }
.card h3 { margin-top: 4px; }
div.table { max-width: 100%; overflow-x: auto; margin: 8px 0 12px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background: var(--soft); font-weight: 600; }
th[scope=row] { font-weight: normal; }
.n { text-align: right; }
td.heat-strong { color: #ffffff; }
code { font: 0.875em 'DejaVu Sans Mono', ui-monospace, monospace; unicode-bidi: isolate; overflow-wrap: anywhere; }
th code { overflow-wrap: break-word; }
pre, blockquote.said { margin: 4px 0 8px; padding: 6px 8px; background: var(--soft); border-radius: 4px; max-width: 90ch; white-space: pre-wrap; overflow-wrap: anywhere; }
pre { font: 0.8125rem/1.4 'DejaVu Sans Mono', ui-monospace, monospace; }
blockquote.said { border-left: 3px solid var(--line); }
details { margin: 2px 0; }
summary { cursor: pointer; }
details.trial { border-left: 3px solid var(--line); padding-left: 8px; margin: 4px 0; }
details.trial[open] { padding-bottom: 4px; }
th.case { min-width: 10em; } td.chips { max-width: 16em; } td.failing { width: 55%; }
.chip { display: inline-block; padding: 0 8px; margin: 1px 2px 1px 0; border-radius: 10px; font-size: 0.8125rem; white-space: nowrap; }
.tags { display: block; color: var(--muted); font-size: 0.8125rem; }
.irrelevance { font-style: italic; }
ul.legend { list-style: none; padding: 0; margin: 4px 0 8px; display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 0.875rem; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 8px 0; }
svg.chart text { font-size: 13px; fill: var(--fg); }
svg.chart text.tick, svg.chart tspan.muted { fill: var(--muted); }
svg.chart text.tick { font-size: 11px; }
svg.chart text.in { font-size: 11px; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .zero { stroke: var(--fg); stroke-width: 1.5; }
svg.chart .ci { stroke: var(--fg); stroke-width: 1.5; fill: none; }
svg.chart rect.bar { fill: var(--accent); }
svg.chart rect.bar.better { fill: #1a7f37; } svg.chart rect.bar.worse { fill: #cf222e; } svg.chart rect.bar.same { fill: #afb8c1; }
svg.chart text.significant { font-weight: 700; }
";

// Geometry of the horizontal bar charts: a column of tool names, the plot, a column of values.
const LABEL_W: f64 = 250.0;
const PLOT_W: f64 = 500.0;
const VALUE_W: f64 = 210.0;
const WIDTH: f64 = LABEL_W + PLOT_W + VALUE_W;
const ROW_H: f64 = 30.0;
const BAR_H: f64 = 16.0;
/// Room above the first row for the axis' labels.
const TOP: f64 = 26.0;
/// Characters of a tool name a chart shows (the whole name is in the bar's title).
const LABEL_CHARS: usize = 30;
/// Characters of a call's arguments the page shows.
const ARGUMENTS_CHARS: usize = 4000;

/// One run's page: the run (label, model, API, endpoint, trials, duration, requests, tokens,
/// cost), the accuracy with its 95% interval and per expected tool, what the trials came to per
/// tool, which tool was called instead, the argument errors by parameter, and every case with
/// what the model did in its failing trials.
pub fn report(report: &Report) -> String {
    let title = format!("{} on {} — toolsmith-eval", report.label, report.model);
    let mut body =
        String::from("<header>\n<p class=\"kicker\">toolsmith-eval · tool selection</p>\n");
    body.push_str(&format!("<h1>{}</h1>\n", esc(&report.label)));
    body.push_str(&run_facts(report));
    body.push_str("</header>\n");
    body.push_str(&heading(2, "Accuracy"));
    body.push_str(&accuracy_headline(report));
    body.push_str(&report_sections(report, 2));
    page(&title, &body)
}

/// Two runs' page (an A/B of two versions of the tools): both runs side by side, the overall
/// change B − A with its 95% interval, the change per tool drawn around zero (the ones whose
/// interval excludes zero marked), then each run's own charts and tables.
pub fn comparison(comparison: &Comparison) -> String {
    let (a, b) = (&comparison.a, &comparison.b);
    let model = if a.model == b.model {
        a.model.clone()
    } else {
        format!("{} and {}", a.model, b.model)
    };
    let title = format!("{} vs {} on {model} — toolsmith-eval", a.label, b.label);
    let mut body =
        String::from("<header>\n<p class=\"kicker\">toolsmith-eval · A/B comparison</p>\n");
    body.push_str(&format!(
        "<h1>A: {} <span class=\"same\">vs</span> B: {}</h1>\n",
        esc(&a.label),
        esc(&b.label)
    ));
    body.push_str(&format!(
        "<p>Model <code>{}</code></p>\n</header>\n",
        esc(&model)
    ));

    body.push_str(&heading(2, "The change"));
    body.push_str(&difference_headline(&comparison.overall()));
    body.push_str("<div class=\"cards\">\n");
    for (side, run) in [("A", a), ("B", b)] {
        body.push_str(&format!(
            "<section class=\"card\">\n<h3>{side}: {}</h3>\n",
            esc(&run.label)
        ));
        body.push_str(&accuracy_headline(run));
        body.push_str(&run_facts(run));
        body.push_str("</section>\n");
    }
    body.push_str("</div>\n");

    let tools = comparison.per_tool();
    body.push_str(&heading(2, "The change per tool"));
    body.push_str(&difference_chart(&tools));
    body.push_str(
        "<p class=\"note\">Each bar is a tool's change in accuracy, B − A, in percentage points; \
         the line across it is its 95% interval (Newcombe's over the trials, widened by how far \
         the cases' own changes spread). A coloured bar's interval \
         excludes zero (green: B is better, red: B is worse); a grey bar's interval holds zero, \
         so the change may be noise.</p>\n",
    );
    body.push_str(&difference_table(&tools));

    for (side, run) in [("A", a), ("B", b)] {
        body.push_str(&heading(2, &format!("{side}: {}", esc(&run.label))));
        body.push_str(&heading(3, "Accuracy"));
        body.push_str(&report_sections(run, 3));
    }
    page(&title, &body)
}

// ---------------------------------------------------------------------------------------------
// The page and its parts

/// The whole document around `body`.
fn page(title: &str, body: &str) -> String {
    let mut out =
        String::from("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
    ));
    out.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!("<title>{}</title>\n", esc(title)));
    out.push_str(&format!("<style>{}</style>\n", style()));
    out.push_str("</head>\n<body>\n<main>\n");
    out.push_str(body);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// The style sheet, with a class per outcome (`o-correct`, ...) for the legends and chips.
fn style() -> String {
    let mut css = String::from(STYLE);
    for (label, background, text) in COLOURS {
        css.push_str(&format!(
            ".o-{label} {{ background: {background}; color: {text}; }}\n"
        ));
    }
    css
}

/// A heading of `level` (2 to 4) holding `html` (already escaped).
fn heading(level: u8, html: &str) -> String {
    format!("<h{level}>{html}</h{level}>\n")
}

/// The charts and tables of one run, under headings of `level`: the accuracy per tool, the
/// outcomes, the confusion, the argument errors and the cases.
fn report_sections(report: &Report, level: u8) -> String {
    let tools = report.per_tool();
    let mut out = accuracy_chart(&tools);
    out.push_str(
        "<p class=\"note\">Each bar is the share of a tool's scored trials that were correct; the \
         line across it is the 95% interval (Wilson's over the trials, widened by how far the \
         cases' own rates spread). <span class=\"irrelevance\">none</span> is \
         the irrelevance cases, correct when the model calls no tool. Malformed and failed \
         answers are not scored.</p>\n",
    );
    out.push_str(&collapsed(
        "The accuracy per tool as a table",
        &accuracy_table(&tools),
    ));

    out.push_str(&heading(level, "What the trials came to"));
    out.push_str(&legend(report));
    out.push_str(&outcome_chart(&tools));
    out.push_str(&collapsed(
        "The outcomes per tool as a table",
        &outcome_table(&tools),
    ));

    out.push_str(&heading(level, "Which tool was called instead"));
    out.push_str(&confusion_table(report, &tools));

    out.push_str(&heading(level, "Argument errors"));
    out.push_str(&argument_table(&report.argument_errors()));

    out.push_str(&heading(level, "Cases"));
    out.push_str(&cases_table(&report.cases));
    out
}

/// The run's facts as a description list.
fn run_facts(report: &Report) -> String {
    let usage = report.usage();
    let mut facts = vec![
        ("Model", code(&report.model)),
        ("API", esc(&report.api)),
        ("Endpoint", code(&report.endpoint)),
        ("Cases", thousands(report.cases.len() as u64)),
        ("Trials per case", thousands(u64::from(report.trials))),
        ("Duration", duration(report.duration_ms)),
        (
            "Requests",
            format!(
                "{} ({} retried)",
                thousands(usage.requests),
                thousands(usage.retries)
            ),
        ),
        (
            "Tokens in / out",
            format!(
                "{} / {}",
                thousands(usage.input_tokens),
                thousands(usage.output_tokens)
            ),
        ),
    ];
    if let (Some(cost), Some((input, output))) = (report.cost(), report.prices) {
        facts.push((
            "Cost",
            format!(
                "{cost:.4} <span class=\"same\">(at {} / {} per million tokens)</span>",
                number(input),
                number(output)
            ),
        ));
    }
    let mut out = String::from("<dl class=\"run\">\n");
    for (term, value) in facts {
        out.push_str(&format!("<div><dt>{term}</dt><dd>{value}</dd></div>\n"));
    }
    out.push_str("</dl>\n");
    out
}

/// The run's accuracy in large type, with its interval and what it counts.
fn accuracy_headline(report: &Report) -> String {
    let rate = report.accuracy();
    let trials: u64 = report.cases.iter().map(|c| c.trials.len() as u64).sum();
    let unscored = trials - rate.scored;
    let mut counted = format!(
        "{} of {} scored trials correct",
        thousands(rate.correct),
        thousands(rate.scored)
    );
    if unscored > 0 {
        counted.push_str(&format!(
            "; {} not scored (malformed or failed)",
            thousands(unscored)
        ));
    }
    format!(
        "<p class=\"headline\"><span class=\"big\">{}</span><span>correct, 95% interval {}<br>\
         <span class=\"same\">{counted}</span></span></p>\n",
        pct(rate.rate),
        interval(&rate)
    )
}

/// The overall change in large type, with its interval and what it means.
fn difference_headline(d: &Difference) -> String {
    let class = change_class(d);
    let verdict = match class {
        "better" => "B is better: the interval excludes zero.",
        "worse" => "B is worse: the interval excludes zero.",
        _ => "No clear change: the interval holds zero.",
    };
    format!(
        "<p class=\"headline\"><span>B − A</span><span class=\"big{}\">{} points</span>\
         <span>95% interval {} to {} points<br><span class=\"{class}\">{verdict}</span>\
         </span></p>\n<p class=\"note\">A: {} correct ({} of {}); B: {} correct ({} of {}).</p>\n",
        if d.is_significant() {
            format!(" {class}")
        } else {
            String::new()
        },
        signed_points(d.difference),
        signed_points(d.low),
        signed_points(d.high),
        pct(d.a.rate),
        thousands(d.a.correct),
        thousands(d.a.scored),
        pct(d.b.rate),
        thousands(d.b.correct),
        thousands(d.b.scored),
    )
}

/// `better`, `worse` or `same` (the interval holds zero).
fn change_class(d: &Difference) -> &'static str {
    match (d.is_significant(), d.difference > 0.0) {
        (true, true) => "better",
        (true, false) => "worse",
        (false, _) => "same",
    }
}

/// `html` under a closed disclosure whose summary says `summary`.
fn collapsed(summary: &str, html: &str) -> String {
    format!("<details>\n<summary>{summary}</summary>\n{html}</details>\n")
}

// ---------------------------------------------------------------------------------------------
// Charts

/// The opening of a chart of `rows` rows, named `name` for assistive technology.
fn svg_open(kind: &str, rows: usize, name: &str) -> String {
    let height = chart_height(rows);
    format!(
        "<svg class=\"chart\" data-chart=\"{kind}\" role=\"img\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\">\n<title>{}</title>\n",
        esc(name)
    )
}

fn chart_height(rows: usize) -> f64 {
    TOP + ROW_H * rows as f64 + 8.0
}

/// The vertical middle of row `i`.
fn row_middle(i: usize) -> f64 {
    TOP + ROW_H * i as f64 + ROW_H / 2.0
}

/// Grid lines at `ticks` (positions in the plot, 0 to 1) with their labels above the plot.
fn grid(ticks: &[(f64, String)], rows: usize, class: impl Fn(f64) -> &'static str) -> String {
    let bottom = chart_height(rows) - 6.0;
    let mut out = String::new();
    for (at, label) in ticks {
        let x = LABEL_W + PLOT_W * at;
        out.push_str(&format!(
            "<line class=\"{}\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/>\n\
             <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
            class(*at),
            TOP - 4.0,
            TOP - 10.0,
            esc(label)
        ));
    }
    out
}

/// A tool's name at the left of row `i`, cut to fit (the whole name in its title).
fn row_label(i: usize, tool: &str, bold: bool) -> String {
    let shown = tool_label(tool);
    let short = shorten(&shown, LABEL_CHARS);
    let class = if bold { " class=\"significant\"" } else { "" };
    let title = if short == shown {
        String::new()
    } else {
        format!("<title>{}</title>", esc(&shown))
    };
    format!(
        "<text{class} x=\"{:.1}\" y=\"{:.1}\" dy=\"0.35em\" text-anchor=\"end\">{title}{}</text>\n",
        LABEL_W - 10.0,
        row_middle(i),
        esc(&short)
    )
}

/// A horizontal error bar from `low` to `high` (positions in the plot, 0 to 1) on row `i`.
fn error_bar(i: usize, low: f64, high: f64) -> String {
    let (l, h, y) = (
        LABEL_W + PLOT_W * low,
        LABEL_W + PLOT_W * high,
        row_middle(i),
    );
    format!(
        "<path class=\"ci\" d=\"M{l:.1},{y:.1}H{h:.1}M{l:.1},{:.1}V{:.1}M{h:.1},{:.1}V{:.1}\"/>\n",
        y - 6.0,
        y + 6.0,
        y - 6.0,
        y + 6.0
    )
}

/// The value column's text on row `i`: `main` then `muted` (both already escaped).
fn row_value(i: usize, main: &str, muted: &str) -> String {
    format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" dy=\"0.35em\">{main} <tspan class=\"muted\">{muted}</tspan></text>\n",
        LABEL_W + PLOT_W + 14.0,
        row_middle(i)
    )
}

/// A rectangle on row `i` from `from` to `to` (positions in the plot, 0 to 1).
fn row_rect(i: usize, from: f64, to: f64, attributes: &str, title: &str) -> String {
    let (x0, x1) = (from.min(to), from.max(to));
    format!(
        "<rect {attributes} x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{BAR_H}\"><title>{}</title></rect>\n",
        LABEL_W + PLOT_W * x0,
        row_middle(i) - BAR_H / 2.0,
        PLOT_W * (x1 - x0),
        esc(title)
    )
}

/// The accuracy per expected tool: a bar each, its 95% interval as an error bar.
fn accuracy_chart(tools: &[ToolStats]) -> String {
    if tools.is_empty() {
        return "<p class=\"note\">No cases.</p>\n".into();
    }
    let mut out = svg_open(
        "accuracy",
        tools.len(),
        "Accuracy per expected tool, with 95% intervals",
    );
    let ticks: Vec<(f64, String)> = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|t| (t, format!("{:.0}%", t * 100.0)))
        .collect();
    out.push_str(&grid(&ticks, tools.len(), |_| "grid"));
    for (i, t) in tools.iter().enumerate() {
        let r = &t.accuracy;
        out.push_str("<g class=\"row\">\n");
        out.push_str(&row_label(i, &t.tool, false));
        let title = format!(
            "{}: {} correct ({} of {} scored trials), 95% interval {}",
            tool_label(&t.tool),
            pct(r.rate),
            r.correct,
            r.scored,
            interval(r)
        );
        out.push_str(&row_rect(i, 0.0, r.rate, "class=\"bar\"", &title));
        out.push_str(&error_bar(i, r.low, r.high));
        let muted = if r.scored == 0 {
            "no scored trial".to_string()
        } else {
            format!("{} · {}/{}", interval(r), r.correct, r.scored)
        };
        out.push_str(&row_value(i, &pct(r.rate), &muted));
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// What each expected tool's trials came to: a bar split by outcome, as shares of its trials.
fn outcome_chart(tools: &[ToolStats]) -> String {
    if tools.is_empty() {
        return String::new();
    }
    let mut out = svg_open(
        "outcomes",
        tools.len(),
        "Outcomes of the trials per expected tool",
    );
    let ticks: Vec<(f64, String)> = [0.0, 0.5, 1.0]
        .into_iter()
        .map(|t| (t, format!("{:.0}%", t * 100.0)))
        .collect();
    out.push_str(&grid(&ticks, tools.len(), |_| "grid"));
    for (i, t) in tools.iter().enumerate() {
        let total: u64 = t.outcomes.values().sum();
        out.push_str("<g class=\"row\">\n");
        out.push_str(&row_label(i, &t.tool, false));
        let mut from = 0.0;
        for (label, fill, ink) in COLOURS {
            let count = t.outcomes.get(label).copied().unwrap_or(0);
            if count == 0 {
                continue;
            }
            let share = count as f64 / total as f64;
            let title = format!(
                "{}: {label} in {count} of {total} trials ({})",
                tool_label(&t.tool),
                pct(share)
            );
            let attributes = format!("class=\"segment\" fill=\"{fill}\"");
            out.push_str(&row_rect(i, from, from + share, &attributes, &title));
            if PLOT_W * share >= 22.0 {
                out.push_str(&format!(
                    "<text class=\"in\" x=\"{:.1}\" y=\"{:.1}\" dy=\"0.35em\" text-anchor=\"middle\" style=\"fill: {ink}\">{count}</text>\n",
                    LABEL_W + PLOT_W * (from + share / 2.0),
                    row_middle(i)
                ));
            }
            from += share;
        }
        out.push_str(&row_value(i, &thousands(total), "trials"));
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// The change per tool around a zero line, each with its interval; the changes whose interval
/// excludes zero coloured and their tools in bold.
fn difference_chart(tools: &[crate::report::ToolDifference]) -> String {
    if tools.is_empty() {
        return "<p class=\"note\">No cases.</p>\n".into();
    }
    // The axis runs from -bound to +bound points, the smallest of a few round bounds that holds
    // every interval.
    let reach = tools
        .iter()
        .map(|t| t.difference.low.abs().max(t.difference.high.abs()))
        .fold(0.0, f64::max);
    let bound = [0.1, 0.2, 0.25, 0.5, 1.0]
        .into_iter()
        .find(|b| reach <= *b + 1e-9)
        .unwrap_or(1.0);
    let at = |d: f64| 0.5 + d / (2.0 * bound);
    let mut out = svg_open(
        "difference",
        tools.len(),
        "Change in accuracy per expected tool, B minus A, with 95% intervals",
    );
    let ticks: Vec<(f64, String)> = [-1.0, -0.5, 0.0, 0.5, 1.0]
        .into_iter()
        .map(|f| {
            let points = signed_points(f * bound);
            let label = points.strip_suffix(".0").unwrap_or(&points).to_string();
            (at(f * bound), label)
        })
        .collect();
    out.push_str(&format!(
        "<text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">B − A, in points</text>\n",
        LABEL_W - 32.0,
        TOP - 10.0
    ));
    out.push_str(&grid(&ticks, tools.len(), |x| {
        if (x - 0.5).abs() < 1e-9 {
            "zero"
        } else {
            "grid"
        }
    }));
    for (i, t) in tools.iter().enumerate() {
        let d = &t.difference;
        let class = change_class(d);
        out.push_str("<g class=\"row\">\n");
        out.push_str(&row_label(i, &t.tool, d.is_significant()));
        let title = format!(
            "{}: {} → {}, B − A {} points, 95% interval {} to {}{}",
            tool_label(&t.tool),
            pct(d.a.rate),
            pct(d.b.rate),
            signed_points(d.difference),
            signed_points(d.low),
            signed_points(d.high),
            match class {
                "better" => " (better: the interval excludes zero)",
                "worse" => " (worse: the interval excludes zero)",
                _ => " (the interval holds zero)",
            }
        );
        let attributes = format!("class=\"bar {class}\"");
        out.push_str(&row_rect(i, at(0.0), at(d.difference), &attributes, &title));
        out.push_str(&error_bar(i, at(d.low), at(d.high)));
        let mark = if d.is_significant() { " *" } else { "" };
        out.push_str(&row_value(
            i,
            &format!("{}{mark}", signed_points(d.difference)),
            &format!("[{}, {}]", signed_points(d.low), signed_points(d.high)),
        ));
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// The outcomes' legend, each with its count in the run.
fn legend(report: &Report) -> String {
    let counts = report.outcomes();
    let mut out = String::from("<ul class=\"legend\">\n");
    for label in Outcome::LABELS {
        let count = counts.get(label).copied().unwrap_or(0);
        out.push_str(&format!(
            "<li><span class=\"swatch o-{label}\"></span>{label} <span class=\"same\">{}</span></li>\n",
            thousands(count)
        ));
    }
    out.push_str("</ul>\n");
    out
}

// ---------------------------------------------------------------------------------------------
// Tables

/// The opening of a table with a header row of `columns` (already escaped; a leading `#` puts
/// the column's numbers on the right).
fn table_open(columns: &[&str]) -> String {
    let mut out = String::from("<div class=\"table\"><table>\n<thead><tr>");
    for column in columns {
        match column.strip_prefix('#') {
            Some(c) => out.push_str(&format!("<th scope=\"col\" class=\"n\">{c}</th>")),
            None => out.push_str(&format!("<th scope=\"col\">{column}</th>")),
        }
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    out
}

const TABLE_CLOSE: &str = "</tbody>\n</table></div>\n";

/// A row header naming a tool.
fn tool_header(tool: &str) -> String {
    format!("<th scope=\"row\">{}</th>", tool_html(tool))
}

/// A number cell.
fn number_cell(n: u64) -> String {
    format!("<td class=\"n\">{}</td>", thousands(n))
}

fn accuracy_table(tools: &[ToolStats]) -> String {
    let mut out = table_open(&[
        "Expected tool",
        "#Accuracy",
        "95% interval",
        "#Correct",
        "#Scored",
    ]);
    for t in tools {
        let r = &t.accuracy;
        out.push_str(&format!(
            "<tr>{}<td class=\"n\">{}</td><td>{}</td>{}{}</tr>\n",
            tool_header(&t.tool),
            pct(r.rate),
            interval(r),
            number_cell(r.correct),
            number_cell(r.scored)
        ));
    }
    out.push_str(TABLE_CLOSE);
    out
}

fn outcome_table(tools: &[ToolStats]) -> String {
    let mut columns = vec!["Expected tool"];
    let numbered: Vec<String> = Outcome::LABELS
        .iter()
        .map(|l| format!("#{}", breakable(l)))
        .collect();
    columns.extend(numbered.iter().map(String::as_str));
    let mut out = table_open(&columns);
    for t in tools {
        out.push_str(&format!("<tr>{}", tool_header(&t.tool)));
        for label in Outcome::LABELS {
            out.push_str(&number_cell(t.outcomes.get(label).copied().unwrap_or(0)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
    out
}

/// Expected tool against the tool called instead, each cell shaded by its count.
fn confusion_table(report: &Report, tools: &[ToolStats]) -> String {
    let table = report.confusion();
    if table.is_empty() {
        return "<p class=\"note\">No trial called another tool than the one expected.</p>\n"
            .into();
    }
    // The tools called, by name, with no call at all last.
    let mut picked: Vec<&str> = Vec::new();
    for row in table.values() {
        for name in row.keys() {
            if !picked.contains(&name.as_str()) {
                picked.push(name);
            }
        }
    }
    picked.sort_by_key(|name| (*name == "(none)", *name));
    let max = table
        .values()
        .flat_map(|row| row.values())
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let trials: BTreeMap<&str, u64> = tools
        .iter()
        .map(|t| (t.tool.as_str(), t.outcomes.values().sum()))
        .collect();

    let headers: Vec<String> = picked
        .iter()
        .map(|name| {
            if *name == "(none)" {
                "<em>no call</em>".to_string()
            } else {
                format!("<code>{}</code>", breakable(name))
            }
        })
        .collect();
    let mut columns = vec!["Expected ↓ · called instead →"];
    columns.extend(headers.iter().map(String::as_str));
    columns.push("#Trials");
    let mut out = table_open(&columns);
    // The rows in the order of the tools.
    let mut rows: Vec<&String> = table.keys().collect();
    rows.sort_by_key(|tool| {
        tools
            .iter()
            .position(|t| &t.tool == *tool)
            .unwrap_or(usize::MAX)
    });
    for expected in rows {
        let row = &table[expected];
        out.push_str(&format!("<tr>{}", tool_header(expected)));
        for name in &picked {
            out.push_str(&heat_cell(row.get(*name).copied().unwrap_or(0), max));
        }
        out.push_str(&number_cell(
            trials.get(expected.as_str()).copied().unwrap_or(0),
        ));
        out.push_str("</tr>\n");
    }
    out.push_str(TABLE_CLOSE);
    out.push_str(
        "<p class=\"note\">Trials that called another tool than the expected one (or a \
         forbidden one, or any when none fitted), and trials that called none when a tool was \
         expected; the darker the cell, the more trials.</p>\n",
    );
    out
}

/// A count shaded from pale to strong red by its share of `max` (empty when 0).
fn heat_cell(count: u64, max: u64) -> String {
    if count == 0 {
        return "<td class=\"n\"></td>".into();
    }
    let alpha = 0.12 + 0.68 * count as f64 / max as f64;
    let strong = if alpha > 0.5 { " heat-strong" } else { "" };
    format!(
        "<td class=\"n{strong}\" style=\"background: rgba(207, 34, 46, {alpha:.2})\">{}</td>",
        thousands(count)
    )
}

fn argument_table(errors: &[ArgStats]) -> String {
    if errors.is_empty() {
        return "<p class=\"note\">No argument errors: whenever the expected tool was called, \
                its arguments were valid and held what the cases expect.</p>\n"
            .into();
    }
    let mut out = table_open(&["Tool", "Parameter", "#Invalid", "#Mismatched"]);
    for e in errors {
        let param = param_cell(&e.param);
        out.push_str(&format!(
            "<tr>{}<td>{param}</td>{}{}</tr>\n",
            tool_header(&e.tool),
            number_cell(e.invalid),
            number_cell(e.mismatched)
        ));
    }
    out.push_str(TABLE_CLOSE);
    out.push_str(
        "<p class=\"note\">Invalid: the toolbox's validator refused the arguments for the \
         parameter. Mismatched: the arguments were valid, but the parameter did not hold what the \
         case expects.</p>\n",
    );
    out
}

fn difference_table(tools: &[crate::report::ToolDifference]) -> String {
    let mut out = table_open(&[
        "Expected tool",
        "#A",
        "#B",
        "#B − A",
        "95% interval",
        "Change",
    ]);
    for t in tools {
        let d = &t.difference;
        let class = change_class(d);
        let verdict = match class {
            "better" => "better",
            "worse" => "worse",
            _ => "no clear change",
        };
        out.push_str(&format!(
            "<tr>{}<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n {class}\">{}</td>\
             <td>{} to {}</td><td class=\"{class}\">{verdict}</td></tr>\n",
            tool_header(&t.tool),
            pct(d.a.rate),
            pct(d.b.rate),
            signed_points(d.difference),
            signed_points(d.low),
            signed_points(d.high)
        ));
    }
    out.push_str(TABLE_CLOSE);
    out
}

// ---------------------------------------------------------------------------------------------
// Cases

fn cases_table(cases: &[CaseReport]) -> String {
    if cases.is_empty() {
        return "<p class=\"note\">No cases.</p>\n".into();
    }
    let mut out = table_open(&[
        "Case",
        "Expected tool",
        "Outcomes",
        "#Correct",
        "Failing trials",
    ]);
    for case in cases {
        out.push_str(&case_row(case));
    }
    out.push_str(TABLE_CLOSE);
    out
}

fn case_row(case: &CaseReport) -> String {
    let tags = if case.tags.is_empty() {
        String::new()
    } else {
        let tags: Vec<String> = case.tags.iter().map(|t| esc(t)).collect();
        format!("<span class=\"tags\">{}</span>", tags.join(", "))
    };
    let scored: Vec<&Trial> = case
        .trials
        .iter()
        .filter(|t| t.outcome.is_scored())
        .collect();
    let correct = scored.iter().filter(|t| t.outcome.is_correct()).count();
    let failing: String = case
        .trials
        .iter()
        .enumerate()
        .filter(|(_, t)| !t.outcome.is_correct())
        .map(|(i, t)| trial_details(i + 1, t))
        .collect();
    format!(
        "<tr><th scope=\"row\" class=\"case\">{}{tags}</th><td>{}</td><td class=\"chips\">{}</td>\
         <td class=\"n\">{correct}/{}</td><td class=\"failing\">{failing}</td></tr>\n",
        code(&case.id),
        tool_html(&case.expect),
        outcome_chips(&case.trials),
        scored.len()
    )
}

/// The trials' outcomes as coloured chips, one per outcome with its count.
fn outcome_chips(trials: &[Trial]) -> String {
    let mut out = String::new();
    for label in Outcome::LABELS {
        let count = trials.iter().filter(|t| t.outcome.label() == label).count();
        if count > 0 {
            out.push_str(&format!(
                "<span class=\"chip o-{label}\">{label} ×{count}</span>"
            ));
        }
    }
    out
}

/// A failing trial, collapsed: what it came to, and what the model called and said.
fn trial_details(number: usize, trial: &Trial) -> String {
    let label = trial.outcome.label();
    let mut out = format!(
        "<details class=\"trial\"><summary><span class=\"chip o-{label}\">{label}</span> trial {number}{}</summary>\n",
        outcome_brief(&trial.outcome)
    );
    out.push_str(&outcome_detail(&trial.outcome));
    if trial.calls.is_empty() {
        if trial.outcome.is_scored() {
            out.push_str("<p>The model called no tool.</p>\n");
        }
    } else {
        for call in &trial.calls {
            out.push_str(&call_html(call));
        }
    }
    if !trial.text.is_empty() {
        out.push_str(&format!(
            "<p>The model said:</p>\n<blockquote class=\"said\">{}</blockquote>\n",
            esc(&trial.text)
        ));
    }
    out.push_str("</details>\n");
    out
}

/// A few words after the trial's label in its summary.
fn outcome_brief(outcome: &Outcome) -> String {
    match outcome {
        Outcome::WrongTool { picked, known } => format!(
            ": called {}{}",
            code(picked),
            if *known {
                ""
            } else {
                " (not a tool of the list)"
            }
        ),
        Outcome::UnwantedCall { picked } => format!(": called {}", code(picked)),
        Outcome::Forbidden { tool } => format!(": called {}, which the case forbids", code(tool)),
        Outcome::InvalidArguments { errors } => {
            format!(": {} refused", plural(errors.len(), "argument problem"))
        }
        Outcome::ArgumentMismatch { mismatches } => {
            format!(": {} not as expected", plural(mismatches.len(), "argument"))
        }
        _ => String::new(),
    }
}

/// The outcome's own findings: the reason of an unscored trial, the validator's messages, the
/// mismatches.
fn outcome_detail(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Malformed { reason } | Outcome::Failed { reason } => {
            format!("<p>Why: {}</p>\n", esc(reason))
        }
        Outcome::InvalidArguments { errors } => validator_table(errors),
        Outcome::ArgumentMismatch { mismatches } => mismatch_table(mismatches),
        _ => String::new(),
    }
}

fn validator_table(errors: &[ParamError]) -> String {
    let mut out = String::from("<p>The toolbox's validator refused the arguments:</p>\n");
    out.push_str(&table_open(&["Parameter", "Code", "Message"]));
    for e in errors {
        let param = param_cell(&e.param);
        out.push_str(&format!(
            "<tr><td>{param}</td><td>{}</td><td>{}</td></tr>\n",
            code(&e.code),
            esc(&e.message)
        ));
    }
    out.push_str(TABLE_CLOSE);
    out
}

fn mismatch_table(mismatches: &[Mismatch]) -> String {
    let mut out = String::from("<p>Valid arguments, but not what the case expects:</p>\n");
    out.push_str(&table_open(&["Parameter", "Expected", "Sent"]));
    for m in mismatches {
        let got = match &m.got {
            Some(value) => code(&compact_json(value)),
            None => "<em>left out</em>".to_string(),
        };
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{got}</td></tr>\n",
            code(&m.param),
            esc(&m.expected)
        ));
    }
    out.push_str(TABLE_CLOSE);
    out
}

/// One tool call: its name and its arguments (as the model sent them).
fn call_html(call: &Value) -> String {
    let name = call["name"].as_str().unwrap_or("(no name)");
    let arguments = match &call["arguments"] {
        // Arguments that were not JSON are kept as the model's text.
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        value => serde_json::to_string_pretty(value).unwrap_or_default(),
    };
    let mut out = format!("<p>The model called {} with:</p>\n", code(name));
    out.push_str(&format!(
        "<pre>{}</pre>\n",
        esc(&shorten(&arguments, ARGUMENTS_CHARS))
    ));
    out
}

// ---------------------------------------------------------------------------------------------
// Text

/// `text` escaped for HTML text and double-quoted attribute values; control characters (but
/// tabs and line breaks) and the bidirectional controls, with which a text can show itself
/// reversed, replaced by U+FFFD.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' | '\r' => out.push(c),
            c if c.is_control() || is_bidi_control(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The embeddings, overrides, isolates and marks of the bidirectional algorithm.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{061c}')
}

/// `text` escaped, with a line break allowed after each underscore (`wrong_<wbr>tool`): a
/// narrow column's header then breaks between words.
fn breakable(text: &str) -> String {
    esc(text).replace('_', "_<wbr>")
}

/// `text` escaped, in code type.
fn code(text: &str) -> String {
    format!("<code>{}</code>", esc(text))
}

/// How a tool is named in a chart: the irrelevance cases' `none` said as such.
fn tool_label(tool: &str) -> String {
    if tool == NONE {
        "none (irrelevance)".to_string()
    } else {
        tool.to_string()
    }
}

/// How a tool is named in a table.
fn tool_html(tool: &str) -> String {
    if tool == NONE {
        "<span class=\"irrelevance\">none</span> <span class=\"same\">(irrelevance)</span>"
            .to_string()
    } else {
        code(tool)
    }
}

/// `text` cut to `max` characters, an ellipsis marking the cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn compact_json(value: &Value) -> String {
    shorten(&value.to_string(), ARGUMENTS_CHARS)
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

// ---------------------------------------------------------------------------------------------
// Numbers

/// A proportion as a percentage with one decimal: `83.3%`.
fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// A rate's 95% interval: `70.1%–91.4%`.
fn interval(rate: &Rate) -> String {
    format!("{}–{}", pct(rate.low), pct(rate.high))
}

/// A difference of proportions in percentage points with its sign and one decimal: `+12.5`,
/// `−3.0` (a true minus), `0.0`.
fn signed_points(x: f64) -> String {
    let points = (x * 1000.0).round() / 10.0;
    if points == 0.0 {
        "0.0".to_string()
    } else if points > 0.0 {
        format!("+{points:.1}")
    } else {
        format!("−{:.1}", -points)
    }
}

/// An integer with thousands separators: `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A price or other decimal as written (`0.15`, `2`).
fn number(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "?".to_string()
    }
}

/// A duration: `850 ms`, `12.3 s`, `4 min 05 s`, `1 h 02 min`.
fn duration(ms: u64) -> String {
    match ms {
        0..=999 => format!("{ms} ms"),
        1_000..=59_999 => format!("{:.1} s", ms as f64 / 1000.0),
        60_000..=3_599_999 => format!("{} min {:02} s", ms / 60_000, ms % 60_000 / 1000),
        _ => format!("{} h {:02} min", ms / 3_600_000, ms % 3_600_000 / 60_000),
    }
}

/// A parameter's name as code, or what an empty one means: the arguments as a whole.
fn param_cell(param: &str) -> String {
    if param.is_empty() {
        "<em>the arguments as a whole</em>".to_string()
    } else {
        code(param)
    }
}
