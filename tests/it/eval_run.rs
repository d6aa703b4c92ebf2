//! Selection evals (`toolsmith-eval`) against the scripted model server on 127.0.0.1
//! (`common::scripted_model`), over the three wire formats: every scoring outcome produced and
//! counted, a 429 retried, a malformed answer reported, the key in no output; the command's
//! outputs and exit codes; an A/B of a description made ambiguous, against a model that reads
//! the descriptions.

use crate::common::scripted_model::{Reply, ScriptedModel};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolsmith::{tool, Toolbox};
use toolsmith_eval::provider::{Api, Client, EnvLookup, Provider};
use toolsmith_eval::report::{Comparison, Report};
use toolsmith_eval::scenario::Scenarios;
use toolsmith_eval::score::Outcome;
use toolsmith_eval::Eval;

/// The key the tests give, which must appear in no output.
const KEY: &str = "sk-eval-canary-41c7e2";

/// Lists the user's notes, oldest first. Returns the notes' texts.
#[tool(read_only)]
fn list_eval_notes() -> Vec<String> {
    unreachable!("an evaluation never runs a tool")
}

/// Adds a note for the user, once per note_id. Returns the number of notes kept.
#[tool(writes, idempotency_key(note_id))]
fn add_eval_note(
    /// The note's text, e.g. "The tent is packed."; at most 50 characters.
    #[arg(max_length = 50)]
    text: String,
    /// A short id for this note, e.g. "n-1".
    note_id: String,
) -> usize {
    let _ = (text, note_id);
    unreachable!("an evaluation never runs a tool")
}

/// Deletes every note of the user. Returns how many were deleted.
#[tool(destructive, requires_approval)]
fn clear_eval_notes() -> usize {
    unreachable!("an evaluation never runs a tool")
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(list_eval_notes::tool())
        .tool(add_eval_note::tool())
        .tool(clear_eval_notes::tool())
        .build()
        .unwrap()
}

/// The test's environment: the key's variable only.
fn env() -> EnvLookup {
    Arc::new(|name: &str| (name == "EVAL_TEST_KEY").then(|| KEY.to_string()))
}

fn provider(api: Api, model: &ScriptedModel) -> Provider {
    Provider::new(api, "scripted")
        .base_url(&model.url)
        .key_env("EVAL_TEST_KEY")
        .env(env())
        // Retries without waiting: the 429s say `Retry-After: 0`.
        .retries(3, Duration::ZERO, Duration::from_secs(1))
}

/// The last user message of a request, in any of the three formats.
fn prompt_of(body: &Value) -> String {
    let turns = body["messages"]
        .as_array()
        .or(body["input"].as_array())
        .cloned()
        .unwrap_or_default();
    turns
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// One case per outcome, each prompt answered by its own plan (the trials run side by side, so
/// the model answers by prompt, not by order).
const EVERY_OUTCOME: &str = r#"
system = "You keep the user's notes."

[[case]]
id = "correct"
prompt = "Note that the tent is packed."
expect = "add_eval_note"
[case.args]
text = { contains = "tent" }
note_id = { any = true }

[[case]]
id = "wrong-tool"
prompt = "Note that the stove is packed."
expect = "add_eval_note"

[[case]]
id = "made-up-tool"
prompt = "Note that the map is packed."
expect = "add_eval_note"

[[case]]
id = "no-call"
prompt = "Note that the boots are packed."
expect = "add_eval_note"

[[case]]
id = "abstained"
prompt = "What is the weather in Paris?"
expect = "none"

[[case]]
id = "unwanted-call"
prompt = "What time is it in Lima?"
expect = "none"

[[case]]
id = "forbidden"
prompt = "Show my notes."
expect = "list_eval_notes"
forbid = ["clear_eval_notes"]

[[case]]
id = "invalid-arguments"
prompt = "Note this long story."
expect = "add_eval_note"

[[case]]
id = "not-json"
prompt = "Note the rope."
expect = "add_eval_note"

[[case]]
id = "mismatch"
prompt = "Note that the lamp is packed."
expect = "add_eval_note"
[case.args]
text = { contains = "lamp" }
note_id = { pattern = "^n-[0-9]+$" }

[[case]]
id = "malformed"
prompt = "Note the compass."
expect = "add_eval_note"

[[case]]
id = "rate-limited"
prompt = "Note that the tarp is packed."
expect = "add_eval_note"

[[case]]
id = "refused"
prompt = "Note the knife."
expect = "add_eval_note"
"#;

/// What the model answers each prompt of [`EVERY_OUTCOME`] in `api`'s format; `seen` counts the
/// requests per prompt (the rate-limited one is refused first).
fn planned(api: Api, prompt: &str, seen: usize) -> Reply {
    let call = |name: &str, args: Value| match api {
        Api::OpenAiChat => Reply::tool_call("call_1", name, args),
        Api::OpenAiResponses => Reply::responses_call(name, args),
        Api::Anthropic => Reply::anthropic_tool_use(name, args),
    };
    let text = |t: &str| match api {
        Api::OpenAiChat => Reply::text(t),
        Api::OpenAiResponses => Reply::responses_text(t),
        Api::Anthropic => Reply::anthropic_text(t),
    };
    let note = |t: &str, id: &str| call("add_eval_note", json!({"text": t, "note_id": id}));
    match prompt {
        "Note that the tent is packed." => note("The tent is packed.", "n-1"),
        "Note that the stove is packed." => call("list_eval_notes", json!({})),
        "Note that the map is packed." => call("pack_bag", json!({})),
        "Note that the boots are packed." => text("Noted!"),
        "What is the weather in Paris?" => text("I cannot tell the weather."),
        "What time is it in Lima?" => call("list_eval_notes", json!({})),
        "Show my notes." => call("clear_eval_notes", json!({})),
        "Note this long story." => note(&"long ".repeat(20), "n-2"),
        "Note the rope." => match api {
            Api::OpenAiChat => {
                let mut reply = Reply::tool_call("call_1", "add_eval_note", json!({}));
                reply.body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] =
                    json!("{\"text\": \"rope\", ");
                reply
            }
            Api::OpenAiResponses => {
                let mut reply = Reply::responses_call("add_eval_note", json!({}));
                reply.body["output"][0]["arguments"] = json!("{\"text\": ");
                reply
            }
            Api::Anthropic => {
                let mut reply = Reply::anthropic_tool_use("add_eval_note", json!({}));
                reply.body["content"][0]["input"] = json!("text=rope");
                reply
            }
        },
        "Note that the lamp is packed." => note("The tent is packed.", "lamp"),
        "Note the compass." => Reply::raw("<html>upstream error</html>"),
        "Note that the tarp is packed." if seen == 1 => Reply::rate_limited(0),
        "Note that the tarp is packed." => note("The tarp is packed.", "n-3"),
        "Note the knife." => Reply::error(401, &format!("Incorrect API key provided: {KEY}")),
        other => Reply::error(500, &format!("no plan for {other:?}")),
    }
}

/// A model server answering [`EVERY_OUTCOME`] in `api`'s format.
async fn every_outcome_model(api: Api) -> ScriptedModel {
    let seen: Mutex<HashMap<String, usize>> = Mutex::new(HashMap::new());
    ScriptedModel::answering(move |_, body| {
        let prompt = prompt_of(body);
        let n = {
            let mut seen = seen.lock().unwrap();
            let n = seen.entry(prompt.clone()).or_default();
            *n += 1;
            *n
        };
        planned(api, &prompt, n)
    })
    .await
}

fn outcome_of<'a>(report: &'a Report, id: &str) -> &'a Outcome {
    &report.cases.iter().find(|c| c.id == id).unwrap().trials[0].outcome
}

/// Each case's outcome, and the figures counted from them.
fn assert_every_outcome(report: &Report) {
    let o = |id| outcome_of(report, id);
    assert_eq!(o("correct"), &Outcome::Correct);
    assert_eq!(
        o("wrong-tool"),
        &Outcome::WrongTool {
            picked: "list_eval_notes".into(),
            known: true
        }
    );
    assert_eq!(
        o("made-up-tool"),
        &Outcome::WrongTool {
            picked: "pack_bag".into(),
            known: false
        }
    );
    assert_eq!(o("no-call"), &Outcome::NoCall);
    assert_eq!(o("abstained"), &Outcome::Abstained);
    assert_eq!(
        o("unwanted-call"),
        &Outcome::UnwantedCall {
            picked: "list_eval_notes".into()
        }
    );
    assert_eq!(
        o("forbidden"),
        &Outcome::Forbidden {
            tool: "clear_eval_notes".into()
        }
    );
    let Outcome::InvalidArguments { errors } = o("invalid-arguments") else {
        panic!("{:?}", o("invalid-arguments"));
    };
    assert_eq!(errors[0].param, "text", "{errors:?}");
    assert!(errors[0].message.contains("at most 50"), "{errors:?}");
    let Outcome::InvalidArguments { errors } = o("not-json") else {
        panic!("{:?}", o("not-json"));
    };
    assert_eq!(errors[0].code, "NOT_JSON");
    let Outcome::ArgumentMismatch { mismatches } = o("mismatch") else {
        panic!("{:?}", o("mismatch"));
    };
    let params: Vec<_> = mismatches.iter().map(|m| m.param.as_str()).collect();
    assert_eq!(params, ["note_id", "text"]);
    assert_eq!(mismatches[1].got, Some(json!("The tent is packed.")));
    assert!(matches!(o("malformed"), Outcome::Malformed { reason } if reason.contains("not JSON")));
    assert_eq!(o("rate-limited"), &Outcome::Correct, "the 429 was retried");
    let Outcome::Failed { reason } = o("refused") else {
        panic!("{:?}", o("refused"));
    };
    assert!(reason.starts_with("HTTP 401"), "{reason}");
    assert!(
        !reason.contains(KEY),
        "the key echoed by the endpoint is scrubbed: {reason}"
    );

    // Counted: 13 trials, 2 not scored (malformed, failed); 3 correct (correct, abstained, the
    // retried one) of 11.
    let acc = report.accuracy();
    assert_eq!((acc.correct, acc.scored), (3, 11));
    assert!(acc.low < acc.rate && acc.rate < acc.high);
    let outcomes = report.outcomes();
    assert_eq!(outcomes["wrong_tool"], 2);
    assert_eq!(outcomes["invalid_arguments"], 2);
    assert_eq!(outcomes.values().sum::<u64>(), 13);
    let confusion = report.confusion();
    assert_eq!(confusion["add_eval_note"]["list_eval_notes"], 1);
    assert_eq!(confusion["add_eval_note"]["pack_bag"], 1);
    assert_eq!(confusion["add_eval_note"]["(none)"], 1);
    assert_eq!(confusion["none"]["list_eval_notes"], 1);
    let args = report.argument_errors();
    let text = args
        .iter()
        .find(|a| a.tool == "add_eval_note" && a.param == "text")
        .unwrap();
    assert_eq!((text.invalid, text.mismatched), (1, 1));
    let usage = report.usage();
    assert_eq!(usage.retries, 1);
    // 12 answered requests, the 429 and the 401 (not retried).
    assert_eq!(usage.requests, 14);
    let json = report.to_json().to_string();
    assert!(!json.contains(KEY), "the key is in no report");
}

#[tokio::test]
async fn every_outcome_is_produced_and_counted_on_each_wire_format() {
    for api in [Api::OpenAiChat, Api::OpenAiResponses, Api::Anthropic] {
        let model = every_outcome_model(api).await;
        let scenarios = Scenarios::parse(EVERY_OUTCOME, "every-outcome.toml").unwrap();
        let eval = Eval::new(toolbox(), scenarios);
        eval.check().unwrap();
        let client = Client::new(provider(api, &model)).unwrap();
        let done = AtomicUsize::new(0);
        let report = eval
            .run(&client, |n, total| {
                assert_eq!(total, 13);
                done.store(n, Ordering::SeqCst);
            })
            .await
            .unwrap();
        assert_eq!(done.load(Ordering::SeqCst), 13, "progress reached the end");
        assert_every_outcome(&report);

        // What each endpoint was sent: its path, the key in its header only, the tools in its
        // format, the system prompt.
        let sent = model.sent();
        let first = &sent[0];
        let header = |name: &str| {
            first
                .headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
        };
        match api {
            Api::OpenAiChat => {
                assert_eq!(first.path, "/v1/chat/completions");
                assert_eq!(header("authorization"), Some(&*format!("Bearer {KEY}")));
                assert_eq!(first.body["messages"][0]["role"], "system");
                // No bound unless one is set: the endpoint's own (OpenAI's reasoning models
                // refuse `max_tokens`).
                assert!(first.body.get("max_tokens").is_none());
                assert!(first.body.get("max_completion_tokens").is_none());
                assert!(first.body["tools"][0]["function"]["parameters"].is_object());
            }
            Api::OpenAiResponses => {
                assert_eq!(first.path, "/v1/responses");
                assert_eq!(first.body["instructions"], "You keep the user's notes.");
                assert_eq!(first.body["tools"][0]["type"], "function");
                assert!(first.body["tools"][0]["name"].is_string());
            }
            Api::Anthropic => {
                assert_eq!(first.path, "/v1/messages");
                assert_eq!(header("x-api-key"), Some(KEY));
                assert_eq!(header("anthropic-version"), Some("2023-06-01"));
                assert_eq!(first.body["system"], "You keep the user's notes.");
                assert_eq!(first.body["max_tokens"], 1024, "Anthropic requires a bound");
                assert!(first.body["tools"][0]["input_schema"].is_object());
            }
        }
        for s in &sent {
            assert!(!s.body.to_string().contains(KEY), "the key is in no body");
        }
    }
}

/// Prior turns go before the prompt, in order.
#[tokio::test]
async fn prior_turns_are_sent_before_the_request() {
    let model =
        ScriptedModel::start(vec![Reply::tool_call("c", "clear_eval_notes", json!({}))]).await;
    let scenarios = Scenarios::parse(
        r#"
[[case]]
id = "follow-up"
prompt = "And clear them all."
expect = "clear_eval_notes"
[[case.history]]
role = "user"
text = "What are my notes?"
[[case.history]]
role = "assistant"
text = "You have two notes."
"#,
        "history.toml",
    )
    .unwrap();
    let client = Client::new(provider(Api::OpenAiChat, &model).max_tokens(200)).unwrap();
    let report = Eval::new(toolbox(), scenarios)
        .run(&client, |_, _| {})
        .await
        .unwrap();
    assert_eq!(report.cases[0].trials[0].outcome, Outcome::Correct);
    assert_eq!(model.requests()[0]["max_completion_tokens"], 200);
    let messages = &model.requests()[0]["messages"];
    let turns: Vec<(&str, &str)> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        turns,
        [
            ("user", "What are my notes?"),
            ("assistant", "You have two notes."),
            ("user", "And clear them all.")
        ]
    );
}

/// A scenario file that does not fit the tools is refused, each problem named.
#[test]
fn scenarios_are_checked_against_the_tools() {
    let scenarios = Scenarios::parse(
        r#"
[[case]]
id = "renamed"
prompt = "Note it."
expect = "add_note"

[[case]]
id = "no-such-parameter"
prompt = "Note it."
expect = "add_eval_note"
forbid = ["drop_notes"]
[case.args]
title = "x"

[[case]]
id = "refused-value"
prompt = "Note it."
expect = "add_eval_note"
[case.args]
text = { one_of = ["fine", 7] }
"#,
        "bad.toml",
    )
    .unwrap();
    let problems = Eval::new(toolbox(), scenarios).check().unwrap_err();
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].contains("\"renamed\": expects \"add_note\", which no tool is named"));
    assert!(problems[1].contains("forbids \"drop_notes\""));
    assert!(
        problems[2].contains("expects the argument `title`, which \"add_eval_note\" does not have")
    );
    assert!(
        problems[3].contains("would refuse `text` = 7"),
        "{problems:#?}"
    );
}

/// Each way a scenario file can be wrong: one error, with its line where TOML gives one.
#[test]
fn a_malformed_scenario_file_names_the_line_and_the_fix() {
    let cases = [
        ("[[case]]\nid = \"a\"\nprompt = \"p\"\n", "missing field `expect`"),
        (
            "[[case]]\nid = \"a\"\nprompt = \"p\"\nexpect = \"x\"\n[[case]]\nid = \"a\"\nprompt = \"q\"\nexpect = \"x\"\n",
            "two cases have the id \"a\"",
        ),
        (
            "[[case]]\nid = \"a\"\nprompt = \"p\"\nexpect = \"x\"\n[case.args]\nn = { between = [1, 2] }\n",
            "`between` is not a form of expectation",
        ),
        (
            "[[case]]\nid = \"a\"\nprompt = \"p\"\nexpect = \"x\"\n[case.args]\nn = { pattern = \"(\" }\n",
            "`pattern` is not a regular expression",
        ),
        (
            "[[case]]\nid = \"a\"\nprompt = \"p\"\nexpect = \"none\"\n[case.args]\nn = 1\n",
            "expects no tool, so it cannot expect arguments",
        ),
        ("system = \"s\"\n", "the file has no cases"),
        ("[[case]]\nid = \"a\"\nprompt = \"p\"\nexpect = \"x\"\nweight = 2\n", "unknown field `weight`"),
    ];
    for (text, want) in cases {
        let err = Scenarios::parse(text, "s.toml").unwrap_err();
        assert!(err.to_string().contains(want), "{text:?}: {err}");
        assert!(err.to_string().starts_with("s.toml"), "{err}");
    }
    let err = Scenarios::parse(
        "[[case]]\nid = \"a\"\nprompt = \"p\"\nexpect = \"x\"\nweight = 2\n",
        "s.toml",
    )
    .unwrap_err();
    assert!(err.line.is_some(), "{err}");
}

/// A model that reads the descriptions: it calls the tool whose description shares the most
/// words with the request (the first of a tie; none when no word is shared), filling each
/// required argument from the request: a word the parameter's pattern matches, the first of its
/// values, else the request itself (cut to its length limit). Same request, same tools: same
/// answer.
fn reading_model(body: &Value) -> Reply {
    let words = |text: &str| -> Vec<String> {
        text.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3)
            .map(str::to_string)
            .collect()
    };
    let prompt = prompt_of(body);
    let asked = words(&prompt);
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    let mut best: Option<(usize, &Value)> = None;
    for t in &tools {
        let f = &t["function"];
        let shared = words(f["description"].as_str().unwrap_or_default())
            .iter()
            .filter(|w| asked.contains(w))
            .count();
        if shared > 0 && best.is_none_or(|(m, _)| shared > m) {
            best = Some((shared, f));
        }
    }
    let Some((_, f)) = best else {
        return Reply::text("None of my tools does that.");
    };
    let schema = &f["parameters"];
    let mut args = serde_json::Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap();
        let mut param = schema["properties"][name].clone();
        if let Some(target) = param["$ref"].as_str() {
            let pointer = target.trim_start_matches('#');
            param = schema.pointer(pointer).cloned().unwrap_or(Value::Null);
        }
        let value = if let Some(first) = param["enum"].get(0) {
            first.clone()
        } else if let Some(first) = param["oneOf"].get(0) {
            first["const"].clone()
        } else if let Some(pattern) = param["pattern"].as_str() {
            let re = regex::Regex::new(pattern).unwrap();
            let word = prompt
                .split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
                .find(|w| re.is_match(w));
            json!(word.unwrap_or_default())
        } else {
            let limit = param["maxLength"].as_u64().unwrap_or(40) as usize;
            json!(prompt.chars().take(limit).collect::<String>())
        };
        args.insert(name.into(), value);
    }
    Reply::tool_call("call_1", f["name"].as_str().unwrap(), Value::Object(args))
}

const AB_CASES: &str = r#"
[[case]]
id = "list-1"
prompt = "Show the notes, oldest first."
expect = "list_eval_notes"
[[case]]
id = "list-2"
prompt = "Which notes do I have? List them."
expect = "list_eval_notes"
[[case]]
id = "list-3"
prompt = "Read me my notes, oldest first."
expect = "list_eval_notes"
[[case]]
id = "add-1"
prompt = "Add a note: buy milk."
expect = "add_eval_note"
[[case]]
id = "add-2"
prompt = "Keep a note for me: call Ben."
expect = "add_eval_note"
[[case]]
id = "add-3"
prompt = "Add this note: the tent is packed."
expect = "add_eval_note"
"#;

#[tokio::test]
async fn an_ambiguous_description_shows_a_drop_and_no_change_shows_none() {
    let model = ScriptedModel::answering(|_, body| reading_model(body)).await;
    let client = Client::new(provider(Api::OpenAiChat, &model)).unwrap();
    let scenarios = Scenarios::parse(AB_CASES, "ab.toml").unwrap();
    let a = Eval::new(toolbox(), scenarios).trials(5);
    // The edit: add_eval_note's description says what list_eval_notes's does.
    let mut edit = BTreeMap::new();
    edit.insert(
        "add_eval_note".to_string(),
        "Works with the user's notes. Returns the result.".to_string(),
    );
    let b = a.with_descriptions(&edit).unwrap();
    let report_a = a.run(&client, |_, _| {}).await.unwrap();
    let report_b = b.run(&client, |_, _| {}).await.unwrap();
    assert_eq!(report_a.accuracy().rate, 1.0);
    let drop = Comparison {
        a: report_a.clone(),
        b: report_b,
    };
    // Overall, half the cases dropped and half did not: six cases cannot tell that from noise.
    let overall = drop.overall();
    assert_eq!(overall.difference, -0.5, "{overall:?}");
    assert!(!overall.is_significant(), "{overall:?}");
    // Per tool, every case of the edited one dropped: significant.
    let per_tool: BTreeMap<_, _> = drop
        .per_tool()
        .into_iter()
        .map(|t| (t.tool, t.difference))
        .collect();
    assert_eq!(per_tool["add_eval_note"].b.rate, 0.0);
    assert!(
        per_tool["add_eval_note"].is_significant() && per_tool["add_eval_note"].high < 0.0,
        "{:?}",
        per_tool["add_eval_note"]
    );
    assert!(!per_tool["list_eval_notes"].is_significant());

    // Nothing changed: the same answers, a difference of zero, an interval that holds it.
    let again = a.run(&client, |_, _| {}).await.unwrap();
    let same = Comparison {
        a: report_a,
        b: again,
    };
    let overall = same.overall();
    assert_eq!(overall.difference, 0.0);
    assert!(!overall.is_significant(), "{overall:?}");
}

/// The command: its outputs, its gate, its exit codes, and the key in none of them.
#[tokio::test]
async fn the_command_writes_its_reports_and_gates_on_accuracy() {
    let model = every_outcome_model(Api::OpenAiChat).await;
    let dir = crate::common::fresh_dir("eval-cli");
    let scenarios = dir.join("every.toml");
    std::fs::write(&scenarios, EVERY_OUTCOME).unwrap();
    let specs: Vec<Value> = toolbox()
        .specs()
        .iter()
        .map(|s| json!({"name": s.name, "description": s.description, "inputSchema": s.input_schema}))
        .collect();
    let tools = dir.join("tools.json");
    std::fs::write(&tools, json!({ "tools": specs }).to_string()).unwrap();
    let (json_out, html_out) = (dir.join("report.json"), dir.join("report.html"));
    let p = |p: &std::path::Path| p.display().to_string();
    let args = |extra: &[&str]| {
        let mut a = vec![
            "toolsmith-eval".to_string(),
            "run".into(),
            "--scenarios".into(),
            p(&scenarios),
            "--tools".into(),
            p(&tools),
            "--model".into(),
            "scripted".into(),
            "--base-url".into(),
            model.url.clone(),
            "--key-env".into(),
            "EVAL_TEST_KEY".into(),
            "--trials".into(),
            "1".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let exit = toolsmith_eval::cli::run_with_env(
        args(&[
            "--json",
            &p(&json_out),
            "--html",
            &p(&html_out),
            "--price-in",
            "2",
            "--price-out",
            "8",
        ]),
        env(),
    )
    .await;
    assert_eq!(exit.code, 0, "{exit:?}");
    assert!(exit.stdout.contains("3/11 correct"), "{}", exit.stdout);
    let written = std::fs::read_to_string(&json_out).unwrap();
    let report = Report::from_json(&written).unwrap();
    assert_every_outcome(&report);
    let json: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(json["summary"]["accuracy"]["correct"], 3);
    assert!(json["summary"]["cost"].as_f64().unwrap() > 0.0);
    let html = std::fs::read_to_string(&html_out).unwrap();
    assert!(html.contains("<svg"));
    for text in [&exit.stdout, &exit.stderr, &written, &html] {
        assert!(!text.contains(KEY), "the key is in an output");
    }

    // The gate.
    let exit = toolsmith_eval::cli::run_with_env(args(&["--fail-under", "0.5"]), env()).await;
    assert_eq!(exit.code, 1, "{exit:?}");
    assert!(
        exit.stderr.contains("below --fail-under 0.5"),
        "{}",
        exit.stderr
    );

    // No key: one error naming the variable, before any request.
    let before = model.sent().len();
    let nothing: EnvLookup = Arc::new(|_: &str| None);
    let exit = toolsmith_eval::cli::run_with_env(args(&[]), nothing).await;
    assert_eq!(exit.code, 2, "{exit:?}");
    assert!(
        exit.stderr.contains("EVAL_TEST_KEY holds no API key"),
        "{}",
        exit.stderr
    );
    assert_eq!(model.sent().len(), before);

    // A scenario file that does not fit: `check` names each problem, exit 1.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "[[case]]\nid = \"a\"\nprompt = \"p\"\nexpect = \"add_note\"\n",
    )
    .unwrap();
    let exit = toolsmith_eval::cli::run_with_env(
        [
            "toolsmith-eval",
            "check",
            "--scenarios",
            &p(&bad),
            "--tools",
            &p(&tools),
        ],
        env(),
    )
    .await;
    assert_eq!(exit.code, 1, "{exit:?}");
    assert!(
        exit.stdout
            .contains("expects \"add_note\", which no tool is named"),
        "{}",
        exit.stdout
    );

    // An endpoint that answers nothing: exit 3.
    let down = ScriptedModel::answering(|_, _| Reply::error(403, "Forbidden")).await;
    let mut a = args(&[]);
    let at = a.iter().position(|x| x == &model.url).unwrap();
    a[at] = down.url.clone();
    let exit = toolsmith_eval::cli::run_with_env(a, env()).await;
    assert_eq!(exit.code, 3, "{exit:?}");
    assert!(
        exit.stderr.contains("answered no trial: HTTP 403"),
        "{}",
        exit.stderr
    );
}

/// The examples' own scenario file (`examples/helpdesk/evals.toml`) fits the help desk's tools;
/// run against the model that reads descriptions, the help desk scores full marks, and an edit
/// that makes `get_ticket_status`'s description say nothing shows the drop, with an interval
/// that excludes zero.
#[tokio::test]
async fn the_help_desks_scenarios_fit_its_tools_and_an_ambiguous_edit_shows_its_drop() {
    let specs: Vec<_> = crate::helpdesk_tools::tools()
        .iter()
        .map(|t| t.spec().clone())
        .collect();
    let path = crate::workspace().join("examples/helpdesk/evals.toml");
    let scenarios = Scenarios::load(&path).unwrap();
    let a = Eval::from_specs(specs, scenarios).unwrap().trials(5);
    a.check().unwrap();

    let model = ScriptedModel::answering(|_, body| reading_model(body)).await;
    let client = Client::new(provider(Api::OpenAiChat, &model)).unwrap();
    let report_a = a.run(&client, |_, _| {}).await.unwrap();
    assert_eq!(
        report_a.accuracy().rate,
        1.0,
        "{:#?}",
        report_a.to_json()["tools"]
    );

    let mut edit = BTreeMap::new();
    edit.insert(
        "get_ticket_status".to_string(),
        "Looks things up. Returns what it finds.".to_string(),
    );
    let report_b = a
        .with_descriptions(&edit)
        .unwrap()
        .run(&client, |_, _| {})
        .await
        .unwrap();
    let ab = Comparison {
        a: report_a,
        b: report_b,
    };
    let tools: BTreeMap<_, _> = ab
        .per_tool()
        .into_iter()
        .map(|t| (t.tool, t.difference))
        .collect();
    let status = tools["get_ticket_status"];
    assert_eq!((status.a.rate, status.b.rate), (1.0, 0.0), "{status:?}");
    assert!(status.is_significant() && status.high < 0.0, "{status:?}");
    assert!(!tools["search_articles"].is_significant());
    // Picked instead: the ticket's creation.
    assert_eq!(ab.b.confusion()["get_ticket_status"]["create_ticket"], 10);

    // The same tools again: no change, and an interval that holds zero.
    let again = Comparison {
        a: ab.a.clone(),
        b: a.run(&client, |_, _| {}).await.unwrap(),
    };
    assert_eq!(again.overall().difference, 0.0);
    assert!(again
        .per_tool()
        .iter()
        .all(|t| !t.difference.is_significant()));
}

/// The vendored BFCL sample runs as it is: each case with its own tool list, through the
/// command, against the model that reads descriptions (every case answered and scored).
#[tokio::test]
async fn the_bfcl_sample_runs_with_each_cases_own_tools() {
    let model = ScriptedModel::answering(|_, body| reading_model(body)).await;
    let scenarios = crate::workspace().join("toolsmith-eval/data/bfcl/simple.toml");
    let dir = crate::common::fresh_dir("eval-bfcl");
    let json_out = dir.join("report.json");
    let p = |p: &std::path::Path| p.display().to_string();
    let check = toolsmith_eval::cli::run_with_env(
        ["toolsmith-eval", "check", "--scenarios", &p(&scenarios)],
        env(),
    )
    .await;
    assert_eq!(check.code, 0, "{check:?}");
    let exit = toolsmith_eval::cli::run_with_env(
        [
            "toolsmith-eval",
            "run",
            "--scenarios",
            &p(&scenarios),
            "--model",
            "scripted",
            "--base-url",
            &model.url,
            "--key-env",
            "EVAL_TEST_KEY",
            "--trials",
            "1",
            "--json",
            &p(&json_out),
        ],
        env(),
    )
    .await;
    assert_eq!(exit.code, 0, "{exit:?}");
    let report = Report::from_json(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    assert_eq!(report.cases.len(), 50);
    assert_eq!(
        report.accuracy().scored,
        50,
        "every case answered and scored"
    );
    // Each request carried its case's one tool.
    for sent in model.requests() {
        assert_eq!(sent["tools"].as_array().unwrap().len(), 1);
    }
}

/// An endpoint that answers more than `MAX_ANSWER_BYTES` gets a malformed trial: the body is not
/// read past the limit.
#[tokio::test]
async fn a_huge_answer_is_malformed_not_read_whole() {
    let huge = format!(
        "{{\"choices\": [{{\"message\": {{\"content\": \"{}\"}}}}]}}",
        "x".repeat(toolsmith_eval::provider::MAX_ANSWER_BYTES)
    );
    let model = ScriptedModel::start(vec![Reply::raw(&huge)]).await;
    let scenarios = Scenarios::parse(
        "[[case]]\nid = \"big\"\nprompt = \"Show my notes.\"\nexpect = \"list_eval_notes\"\n",
        "big.toml",
    )
    .unwrap();
    let client = Client::new(provider(Api::OpenAiChat, &model)).unwrap();
    let report = Eval::new(toolbox(), scenarios)
        .run(&client, |_, _| {})
        .await
        .unwrap();
    let Outcome::Malformed { reason } = &report.cases[0].trials[0].outcome else {
        panic!("{:?}", report.cases[0].trials[0].outcome);
    };
    assert_eq!(reason, "the answer is larger than 16 MiB");
}

/// Trials of one case are not independent: when each case's trials agree (5 cases always right,
/// 5 always wrong, 10 trials each), the interval is the case-clustered one, far wider than
/// Wilson's over 100 trials would be; and an A/B whose cases moved both ways by as much is not
/// significant, though its trials alone would say so.
#[test]
fn intervals_count_cases_not_only_trials() {
    use toolsmith_eval::report::{CaseReport, Rate, Trial};
    let trial = |ok: bool| Trial {
        outcome: if ok {
            Outcome::Correct
        } else {
            Outcome::NoCall
        },
        calls: Vec::new(),
        text: String::new(),
        usage: Default::default(),
    };
    let report = |right: &[bool]| Report {
        label: "t".into(),
        api: "openai-chat".into(),
        model: "m".into(),
        endpoint: "http://127.0.0.1".into(),
        trials: 10,
        duration_ms: 0,
        prices: None,
        cases: right
            .iter()
            .enumerate()
            .map(|(i, &ok)| CaseReport {
                id: format!("c{i}"),
                expect: "add_eval_note".into(),
                tags: Vec::new(),
                trials: (0..10).map(|_| trial(ok)).collect(),
            })
            .collect(),
    };
    let half = [
        true, true, true, true, true, false, false, false, false, false,
    ];
    let acc = report(&half).accuracy();
    let wilson = Rate::new(50, 100);
    assert_eq!((acc.correct, acc.scored, acc.rate), (50, 100, 0.5));
    assert!(wilson.low > 0.39 && wilson.high < 0.61, "{wilson:?}");
    assert!(acc.low < 0.15 && acc.high > 0.85, "clustered: {acc:?}");

    // B moves one case up and one down: zero in all, with cases that disagree.
    let mut moved = half;
    moved[0] = false;
    moved[9] = true;
    let ab = Comparison {
        a: report(&half),
        b: report(&moved),
    };
    let d = ab.overall();
    assert_eq!(d.difference, 0.0);
    assert!(!d.is_significant(), "{d:?}");
    // Every case moved the same way (all wrong to right): significant either way.
    let ab = Comparison {
        a: report(&[false; 10]),
        b: report(&[true; 10]),
    };
    let d = ab.overall();
    assert_eq!(d.difference, 1.0);
    assert!(d.is_significant() && d.low > 0.5, "{d:?}");
}
