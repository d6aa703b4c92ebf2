//! toolsmith-eval's HTML pages (`toolsmith_eval::html`): a run's report and an A/B comparison,
//! built here by hand with every outcome, a tool named `<script>alert(1)</script>` and answers
//! that try to close the page's elements. The pages escape every text, load nothing (no
//! resource, no script: their policy forbids it), and draw a bar per tool; in Debian's Chromium
//! (driven by playwright-core, as the other browser tests) the charts have a size, the title is
//! the run's, the hostile texts stay text, no request leaves the page, and the screenshots are
//! pictures, not blank windows.
//!
//! `TOOLSMITH_UPDATE_SNAPSHOTS=1` writes the single report's screenshot to
//! `docs/eval-report.png` (the README's picture).
//!
//! Needs chromium, node and playwright-core (`.ci/consumers.sh`) for the browser test; skipped
//! with a notice unless `TOOLSMITH_REQUIRE_CONSUMERS=1`.

use serde_json::{json, Value};
use std::process::Command;
use toolsmith_eval::provider::Usage;
use toolsmith_eval::report::{CaseReport, Comparison, Report, Trial};
use toolsmith_eval::score::{Mismatch, Outcome, ParamError};

const HOSTILE_TOOL: &str = "<script>alert(1)</script>";
const HOSTILE_TEXT: &str = "</details><img src=x onerror=alert(2)>";
const HOSTILE_CASE: &str = "case-<img src=x onerror=alert(3)>";
const HOSTILE_PICK: &str = "\"><svg onload=alert(4)>";

// ---------------------------------------------------------------------------------------------
// The reports

fn usage() -> Usage {
    Usage {
        requests: 1,
        retries: 0,
        input_tokens: 1_240,
        output_tokens: 38,
    }
}

fn trial(outcome: Outcome) -> Trial {
    Trial {
        outcome,
        calls: Vec::new(),
        text: String::new(),
        usage: usage(),
    }
}

/// A trial whose model called `name` with `arguments`.
fn called(outcome: Outcome, name: &str, arguments: Value) -> Trial {
    Trial {
        calls: vec![json!({"name": name, "arguments": arguments})],
        ..trial(outcome)
    }
}

fn correct(n: usize) -> Vec<Trial> {
    (0..n).map(|_| trial(Outcome::Correct)).collect()
}

fn case(id: &str, expect: &str, tags: &[&str], trials: Vec<Trial>) -> CaseReport {
    CaseReport {
        id: id.into(),
        expect: expect.into(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        trials,
    }
}

fn wrong(picked: &str, known: bool) -> Outcome {
    Outcome::WrongTool {
        picked: picked.into(),
        known,
    }
}

/// A notes keeper's tools evaluated five times a case: `edited` is the B side of an A/B whose
/// edit of `update_note`'s description fixed it (and cost `search_notes` one trial, noise).
fn notes_report(label: &str, edited: bool) -> Report {
    let mut by_tag = correct(if edited { 2 } else { 3 });
    by_tag.push(called(
        Outcome::ArgumentMismatch {
            mismatches: vec![Mismatch {
                param: "tag".into(),
                expected: "\"work\"".into(),
                got: Some(json!("Work")),
            }],
        },
        "search_notes",
        json!({"tag": "Work"}),
    ));
    by_tag.push(if edited {
        called(
            Outcome::ArgumentMismatch {
                mismatches: vec![Mismatch {
                    param: "tag".into(),
                    expected: "\"work\"".into(),
                    got: None,
                }],
            },
            "search_notes",
            json!({"query": "work"}),
        )
    } else {
        called(wrong("list_tags", true), "list_tags", json!({}))
    });

    let mut new_note = correct(4);
    new_note.push(called(
        Outcome::InvalidArguments {
            errors: vec![ParamError {
                param: "title".into(),
                code: "MISSING_ARGUMENT".into(),
                message: "`title` is required".into(),
            }],
        },
        "create_note",
        json!({"body": "Buy oat milk"}),
    ));

    let (append, rename) = if edited {
        let mut rename = correct(4);
        rename.push(trial(Outcome::Malformed {
            reason: "the answer has no `choices`".into(),
        }));
        (correct(5), rename)
    } else {
        let append = vec![
            trial(Outcome::Correct),
            called(
                wrong("create_note", true),
                "create_note",
                json!({"title": "Trip", "body": "Book the ferry"}),
            ),
            called(
                wrong("create_note", true),
                "create_note",
                json!({"title": "Trip", "body": "- book the ferry"}),
            ),
            called(
                wrong("edit_note", false),
                "edit_note",
                json!({"note": "Trip", "append": "Book the ferry"}),
            ),
            Trial {
                text: "Which note should I add the line to?".into(),
                ..trial(Outcome::NoCall)
            },
        ];
        let mut rename = correct(2);
        rename.push(called(
            Outcome::ArgumentMismatch {
                mismatches: vec![Mismatch {
                    param: "title".into(),
                    expected: "contains \"2026 plans\"".into(),
                    got: Some(json!("Plans")),
                }],
            },
            "update_note",
            json!({"id": "n-17", "title": "Plans"}),
        ));
        rename.push(called(
            wrong("create_note", true),
            "create_note",
            json!({"title": "2026 plans"}),
        ));
        rename.push(trial(Outcome::Malformed {
            reason: "the answer has no `choices`".into(),
        }));
        (append, rename)
    };

    let mut remove = correct(3);
    remove.push(called(
        Outcome::Forbidden {
            tool: "purge_notes".into(),
        },
        "purge_notes",
        json!({"older_than_days": 30}),
    ));
    remove.push(Trial {
        usage: Usage {
            requests: 6,
            retries: 5,
            input_tokens: 0,
            output_tokens: 0,
        },
        ..trial(Outcome::Failed {
            reason: "HTTP 529: overloaded (5 retries)".into(),
        })
    });

    let mut weather: Vec<Trial> = (0..4).map(|_| trial(Outcome::Abstained)).collect();
    weather.push(called(
        Outcome::UnwantedCall {
            picked: "search_notes".into(),
        },
        "search_notes",
        json!({"query": "weather tomorrow"}),
    ));

    Report {
        label: label.into(),
        api: "openai-chat".into(),
        model: "sample-data (not a real run)".into(),
        endpoint: "http://127.0.0.1:8080/v1".into(),
        trials: 5,
        duration_ms: 48_200,
        cases: vec![
            case("find-groceries", "search_notes", &["search"], correct(5)),
            case("search-by-tag", "search_notes", &["search", "tags"], by_tag),
            case("new-note", "create_note", &[], new_note),
            case("append-line", "update_note", &["edit"], append),
            case("rename", "update_note", &["edit"], rename),
            case("remove-old", "delete_note", &[], remove),
            case("weather", "none", &["irrelevance"], weather),
            case(
                "joke",
                "none",
                &["irrelevance"],
                (0..5).map(|_| trial(Outcome::Abstained)).collect(),
            ),
        ],
        prices: Some((0.15, 0.6)),
    }
}

/// `report` with a hostile label, model and endpoint, and a case whose tool, id, tags, calls,
/// validator messages, mismatches and answers are markup.
fn with_hostile(mut report: Report) -> Report {
    report.label = "<h1 onclick=alert(5)>tools.json".into();
    report.model = "gpt\"><script>alert(6)</script>".into();
    report.endpoint =
        "https://api.example.invalid/v1?<link rel=stylesheet href=https://evil.example/a.css>"
            .into();
    let trials = vec![
        trial(Outcome::Correct),
        Trial {
            text: HOSTILE_TEXT.into(),
            ..called(
                wrong(HOSTILE_PICK, false),
                HOSTILE_PICK,
                json!({"q": "</pre><script>alert(7)</script>"}),
            )
        },
        called(
            Outcome::InvalidArguments {
                errors: vec![ParamError {
                    param: "<i>p</i>".into(),
                    code: "INVALID_ARGUMENT".into(),
                    message: "<iframe src=https://evil.example/b></iframe>".into(),
                }],
            },
            HOSTILE_TOOL,
            json!("not JSON </pre><object data=https://evil.example/c></object>"),
        ),
        trial(Outcome::ArgumentMismatch {
            mismatches: vec![Mismatch {
                param: "q\" onmouseover=\"alert(8)".into(),
                expected: "</td><style>body{display:none}</style>".into(),
                got: Some(json!(
                    "<link rel=stylesheet href=https://evil.example/d.css>"
                )),
            }],
        }),
        trial(Outcome::Forbidden {
            tool: "<embed src=https://evil.example/e>".into(),
        }),
        trial(Outcome::Failed {
            reason: "HTTP 401: <a href=https://evil.example/f>sign in</a>".into(),
        }),
        Trial {
            text: "I'd rather not.\u{202e}\u{0}<style>*{color:red}</style>".into(),
            ..trial(Outcome::NoCall)
        },
    ];
    report
        .cases
        .push(case(HOSTILE_CASE, HOSTILE_TOOL, &["<b>tag</b>"], trials));
    report
}

fn comparison() -> Comparison {
    Comparison {
        a: with_hostile(notes_report("git:HEAD~1:target/toolsmith", false)),
        b: with_hostile(notes_report("target/toolsmith", true)),
    }
}

// ---------------------------------------------------------------------------------------------
// What the HTML holds

/// Every tag of `html` as its name and the text inside its brackets. A raw `<` always opens a
/// tag: every text is escaped (and the style sheet has none).
fn tags(html: &str) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let after = &rest[start + 1..];
        let end = after.find('>').expect("every tag is closed");
        let inner = &after[..end];
        let name = inner
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '!')
            .collect::<String>()
            .to_ascii_lowercase();
        out.push((name, inner));
        rest = &after[end + 1..];
    }
    out
}

/// What the page's markup may be made of: no script, no frame, no element that loads.
const ALLOWED_TAGS: &[&str] = &[
    "!doctype",
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "main",
    "header",
    "section",
    "div",
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "span",
    "em",
    "strong",
    "code",
    "pre",
    "blockquote",
    "br",
    "dl",
    "dt",
    "dd",
    "ul",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "details",
    "summary",
    "svg",
    "g",
    "rect",
    "path",
    "line",
    "text",
    "tspan",
    "wbr",
];

/// Attributes that load or navigate.
const LOADING_ATTRIBUTES: &[&str] = &[
    "src",
    "href",
    "xlink:href",
    "srcset",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
];

/// Whether `html[at..]` is in text (between tags), not inside a tag.
fn in_text(html: &str, at: usize) -> bool {
    let before = &html[..at];
    before.rfind('>') > before.rfind('<')
}

/// The page is markup of the allowed tags, with no event handler and nothing that loads, and its
/// style sheet fetches nothing; every `http`, `onerror=` and `<script` it holds is escaped text.
fn assert_self_contained(html: &str) {
    assert!(
        html.starts_with("<!doctype html>\n<html lang=\"en\">"),
        "{html}"
    );
    assert!(
        html.contains(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'; img-src data:\">"
        ),
        "the page's policy forbids every load"
    );
    // The policy's own `http-equiv` is the one attribute that says http.
    let html = &html.replacen("<meta http-equiv=", "<meta policy=", 1);
    for (name, inner) in tags(html) {
        assert!(
            ALLOWED_TAGS.contains(&name.as_str()),
            "<{inner}> is not an element the page draws"
        );
        for token in inner.split_whitespace().skip(1) {
            let Some((attribute, _)) = token.split_once('=') else {
                continue;
            };
            let attribute = attribute.to_ascii_lowercase();
            assert!(
                !attribute.starts_with("on"),
                "<{inner}> has an event handler"
            );
            assert!(
                !LOADING_ATTRIBUTES.contains(&attribute.as_str()),
                "<{inner}> loads something"
            );
        }
        assert!(!inner.contains("http"), "<{inner}> names a URL");
    }
    let style = html
        .split_once("<style>")
        .and_then(|(_, rest)| rest.split_once("</style>"))
        .expect("one style sheet")
        .0;
    for fetch in ["url(", "@import", "http", "<"] {
        assert!(!style.contains(fetch), "the style sheet holds {fetch}");
    }
    for needle in ["http", "onerror=", "onload=", "onclick=", "onmouseover="] {
        for (at, _) in html.match_indices(needle) {
            assert!(
                in_text(html, at),
                "`{needle}` at {at} is markup: {}",
                &html[at.saturating_sub(80)..at + 20]
            );
        }
    }
    for raw in [
        "<script",
        "<img",
        "<iframe",
        "<link",
        "<object",
        "<embed",
        "<a ",
        "<svg onload",
    ] {
        assert!(!html.contains(raw), "the page holds a raw {raw}");
    }
    assert!(
        !html.contains('\u{0}'),
        "a control character reached the page"
    );
}

/// Occurrences of `needle` in `html`.
fn count(html: &str, needle: &str) -> usize {
    html.matches(needle).count()
}

#[test]
fn the_report_escapes_every_text_and_loads_nothing() {
    let report = with_hostile(notes_report("target/toolsmith", false));
    let html = toolsmith_eval::html::report(&report);
    assert_self_contained(&html);

    // The hostile texts are on the page, as text.
    for text in [
        HOSTILE_TOOL,
        HOSTILE_TEXT,
        HOSTILE_CASE,
        HOSTILE_PICK,
        "</pre><script>alert(7)</script>",
        "<iframe src=https://evil.example/b></iframe>",
        "</td><style>body{display:none}</style>",
        "<link rel=stylesheet href=https://evil.example/d.css>",
        "<a href=https://evil.example/f>sign in</a>",
        &report.label,
        &report.model,
        &report.endpoint,
    ] {
        assert!(
            html.contains(&escaped(text)),
            "{text} is not on the page as text"
        );
    }
    // The model's text keeps its line but not its controls, nor the override that would show it
    // reversed.
    assert!(html.contains("I&#39;d rather not.\u{fffd}\u{fffd}&lt;style&gt;"));
    assert!(html.contains(&format!(
        "<title>{} on {} — toolsmith-eval</title>",
        escaped(&report.label),
        escaped(&report.model)
    )));
}

/// `text` as the page writes it.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[test]
fn the_report_draws_a_bar_per_tool_and_every_outcome() {
    let report = with_hostile(notes_report("target/toolsmith", false));
    let html = toolsmith_eval::html::report(&report);
    let tools = report.per_tool();
    assert_eq!(tools.len(), 6, "five expected tools and none");

    assert_eq!(
        count(&html, "<svg class=\"chart\""),
        2,
        "accuracy and outcomes"
    );
    assert_eq!(
        count(&html, "<rect class=\"bar\""),
        tools.len(),
        "a bar per tool"
    );
    assert_eq!(count(&html, "<g class=\"row\">"), 2 * tools.len());
    let segments: usize = tools
        .iter()
        .map(|t| t.outcomes.values().filter(|n| **n > 0).count())
        .sum();
    assert_eq!(count(&html, "<rect class=\"segment\""), segments);
    // Every outcome happened, and each has a colour of its own in the legend and the chart.
    let outcomes = report.outcomes();
    assert_eq!(outcomes.len(), Outcome::LABELS.len(), "{outcomes:?}");
    let mut fills: Vec<&str> = html
        .match_indices("class=\"segment\" fill=\"")
        .map(|(at, m)| &html[at + m.len()..at + m.len() + 7])
        .collect();
    fills.sort_unstable();
    fills.dedup();
    assert_eq!(fills.len(), Outcome::LABELS.len(), "{fills:?}");
    for label in Outcome::LABELS {
        assert!(html.contains(&format!("<span class=\"swatch o-{label}\"></span>{label}")));
    }

    // Numbers: the accuracy, its interval and the per-tool figures with one decimal.
    let acc = report.accuracy();
    assert!(html.contains(&format!(
        "<span class=\"big\">{:.1}%</span><span>correct, 95% interval {:.1}%–{:.1}%",
        acc.rate * 100.0,
        acc.low * 100.0,
        acc.high * 100.0
    )));
    for t in &tools {
        assert!(html.contains(&format!("{:.1}%", t.accuracy.rate * 100.0)));
    }
    // The run's facts.
    let usage = report.usage();
    assert_eq!((usage.requests, usage.retries), (52, 5));
    assert_eq!((usage.input_tokens, usage.output_tokens), (57_040, 1_748));
    for fact in [
        "<dt>Model</dt><dd><code>gpt&quot;&gt;&lt;script&gt;",
        "<dt>API</dt><dd>openai-chat</dd>",
        "<dt>Trials per case</dt><dd>5</dd>",
        "<dt>Duration</dt><dd>48.2 s</dd>",
        "<dt>Requests</dt><dd>52 (5 retried)</dd>",
        "<dt>Tokens in / out</dt><dd>57,040 / 1,748</dd>",
        &format!("<dt>Cost</dt><dd>{:.4} ", report.cost().unwrap()),
    ] {
        assert!(html.contains(fact), "{fact}");
    }
    // The confusion: update_note's trials went to create_note (3) and a made-up edit_note.
    assert!(html.contains("Expected ↓ · called instead →"));
    assert!(html.contains("<th scope=\"col\"><em>no call</em></th>"));
    assert!(html.contains("<th scope=\"col\"><code>create_<wbr>note</code></th>"));
    // Failing trials are collapsed with what the model called.
    assert!(html.contains("<details class=\"trial\"><summary>"));
    assert!(html.contains("<p>The model called <code>edit_note</code> with:</p>"));
    assert!(html.contains("Which note should I add the line to?"));
    assert!(html.contains("<td><code>MISSING_ARGUMENT</code></td><td>`title` is required</td>"));
}

#[test]
fn the_comparison_draws_the_change_per_tool_around_zero() {
    let comparison = comparison();
    let html = toolsmith_eval::html::comparison(&comparison);
    assert_self_contained(&html);
    let tools = comparison.per_tool();
    assert_eq!(count(&html, "data-chart=\"difference\""), 1);
    // Each tool's bar is coloured by its interval: better, worse, or holding zero. With two
    // cases of update_note, its rise is not significant: two cases cannot say.
    let class = |better: bool| {
        tools
            .iter()
            .filter(|t| t.difference.is_significant() && (t.difference.difference > 0.0) == better)
            .count()
    };
    let same = tools.len() - class(true) - class(false);
    assert_eq!(count(&html, "<rect class=\"bar better\""), class(true));
    assert_eq!(count(&html, "<rect class=\"bar worse\""), class(false));
    assert_eq!(count(&html, "<rect class=\"bar same\""), same);
    assert_eq!(count(&html, "<line class=\"zero\""), 1);
    let update = tools.iter().find(|t| t.tool == "update_note").unwrap();
    assert!(update.difference.difference > 0.0, "{update:?}");
    assert!(!update.difference.is_significant(), "{update:?}");

    // Ten cases that all rise: that change is marked, in the chart and in bold.
    let all = |ok: bool| Report {
        cases: (0..10)
            .map(|i| {
                let trials = (0..5)
                    .map(|_| {
                        trial(if ok {
                            Outcome::Correct
                        } else {
                            Outcome::NoCall
                        })
                    })
                    .collect();
                case(&format!("c{i}"), "update_note", &[], trials)
            })
            .collect(),
        ..notes_report("t", false)
    };
    let rise = Comparison {
        a: all(false),
        b: all(true),
    };
    let marked = toolsmith_eval::html::comparison(&rise);
    assert!(rise.per_tool()[0].difference.is_significant());
    assert_eq!(count(&marked, "<rect class=\"bar better\""), 1);
    assert!(marked.contains("<text class=\"significant\""));
    // Both runs' charts and tables follow.
    assert_eq!(count(&html, "data-chart=\"accuracy\""), 2);
    assert_eq!(count(&html, "data-chart=\"outcomes\""), 2);
    assert_eq!(count(&html, "<rect class=\"bar\""), 2 * tools.len());
    let overall = comparison.overall();
    assert!(overall.difference > 0.0, "{overall:?}");
    assert!(html.contains(&format!(
        "<span class=\"big{}\">+{:.1} points</span>",
        if overall.is_significant() {
            " better"
        } else {
            ""
        },
        overall.difference * 100.0
    )));
    assert!(html.contains(&escaped(HOSTILE_TOOL)));
}

// ---------------------------------------------------------------------------------------------
// In Chromium

/// The width and height in a PNG's header.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR", "no IHDR first");
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn the_pages_render_in_chromium_with_their_charts() {
    let Some(chromium) = crate::common::chromium() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("toolsmith-eval-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let single = notes_report("target/toolsmith", false);
    let hostile = with_hostile(notes_report("target/toolsmith", false));
    let comparison = comparison();
    let pages = [
        (
            "report",
            toolsmith_eval::html::report(&single),
            "target/toolsmith on sample-data (not a real run) — toolsmith-eval".to_string(),
            single.per_tool().len(),
        ),
        (
            "hostile",
            toolsmith_eval::html::report(&hostile),
            format!("{} on {} — toolsmith-eval", hostile.label, hostile.model),
            hostile.per_tool().len(),
        ),
        (
            "comparison",
            toolsmith_eval::html::comparison(&comparison),
            format!(
                "{} vs {} on {} — toolsmith-eval",
                comparison.a.label, comparison.b.label, comparison.a.model
            ),
            comparison.per_tool().len(),
        ),
    ];
    let mut args = Vec::new();
    for (name, html, _, _) in &pages {
        let file = dir.join(format!("{name}.html"));
        std::fs::write(&file, html).unwrap();
        args.push(file);
        args.push(dir.join(format!("{name}.png")));
    }
    let out = Command::new("node")
        .arg(crate::common::consumers_dir().join("eval_report.mjs"))
        .args(&args)
        .env("TOOLSMITH_CHROMIUM", &chromium)
        .current_dir(crate::common::consumers_dir())
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "eval_report.mjs failed:\n{stdout}\n{stderr}"
    );
    let seen: Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("eval_report.mjs printed no JSON:\n{stdout}\n{stderr}"));
    println!("the eval reports in Chromium {}", seen["version"]);

    for (i, (name, _, title, tools)) in pages.iter().enumerate() {
        let page = &seen["pages"][i];
        assert_eq!(page["title"], json!(title), "{name}");
        assert_eq!(page["requests"], json!([]), "{name} made requests");
        assert_eq!(
            page["errors"],
            json!([]),
            "{name}: console errors (a policy violation?)"
        );
        for tag in ["script", "img", "iframe", "link", "object", "embed"] {
            assert_eq!(page["elements"][tag], 0, "{name} has a <{tag}>");
        }
        assert_eq!(page["elements"]["style"], 1, "{name}: one style sheet");
        let charts = page["charts"].as_array().unwrap();
        assert_eq!(
            charts.len(),
            if *name == "comparison" { 5 } else { 2 },
            "{name}"
        );
        for chart in charts {
            assert!(chart["width"].as_f64().unwrap() > 600.0, "{name}: {chart}");
            assert!(chart["height"].as_f64().unwrap() > 50.0, "{name}: {chart}");
            assert_eq!(
                chart["rows"],
                json!(tools),
                "{name}: a row per tool: {chart}"
            );
            if chart["kind"] == "accuracy" {
                let bars = chart["bars"].as_array().unwrap();
                assert_eq!(bars.len(), *tools, "{name}: a bar per tool: {chart}");
                // Every tool here has a correct trial, so every bar shows.
                assert!(
                    bars.iter().all(|w| w.as_f64().unwrap() > 1.0),
                    "{name}: {chart}"
                );
            }
        }
        let shot = &page["shot"];
        assert_eq!(
            (shot["width"].as_u64(), shot["height"].as_u64()),
            (Some(1280), Some(1400))
        );
        assert!(
            shot["colours"].as_u64().unwrap() > 40,
            "{name}: a picture: {shot}"
        );
        assert!(
            shot["dominant"].as_f64().unwrap() < 0.97,
            "{name}: not one colour: {shot}"
        );
        let png = std::fs::read(dir.join(format!("{name}.png"))).unwrap();
        assert_eq!(png_size(&png), (1280, 1400), "{name}");
        assert!(png.len() > 20_000, "{name}: {} bytes", png.len());
    }
    // The hostile texts are the page's text, not its elements.
    let text = seen["pages"][1]["text"].as_str().unwrap();
    for hostile in [
        HOSTILE_TOOL,
        HOSTILE_CASE,
        "</pre><script>alert(7)</script>",
    ] {
        assert!(text.contains(hostile), "{hostile} is not text on the page");
    }

    if std::env::var("TOOLSMITH_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        let png = std::fs::read(dir.join("report.png")).unwrap();
        assert!(
            png.len() < 300_000,
            "the README's picture is {} bytes",
            png.len()
        );
        let target = crate::workspace().join("docs/eval-report.png");
        std::fs::write(&target, png).unwrap();
        println!("wrote {}", target.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
