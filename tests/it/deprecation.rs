//! Versions and deprecation: a deprecated tool is listed with the notice (every target, the MCP
//! `_meta`), its calls are audited as deprecated, and after the window the host sets it leaves
//! the list and its calls answer `TOOL_RETIRED` naming the replacement, which stays callable.
//! The compile-time checks of `deprecated(...)` are the UI cases `tests/ui/fail/deprecated_*.rs`;
//! the MCP end-to-end test is in toolsmith-mcp/tests/deprecation.rs.

use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use toolsmith::audit::{AuditEvent, DeprecationState, MemorySink};
use toolsmith::export::{McpVersion, Target};
use toolsmith::{tool, Caller, Deprecation, Effects, Policy, Problem, Tool, ToolSpec, Toolbox};

const NOTICE: &str =
    "Deprecated since version 3: bookings moved to one tool. Use `book_trip` instead.";

/// Books a flight for the traveller. Returns the booking reference.
#[tool(
    writes,
    version = "3.1.0",
    deprecated(
        since = "3",
        note = "bookings moved to one tool",
        replaced_by = "book_trip"
    )
)]
fn book_flight(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    format!("booked {flight}")
}

/// Books a trip: flights, hotel and car in one booking. Returns the booking reference.
#[tool(writes, version = "4.0.0")]
fn book_trip(
    /// The flight number, e.g. "SK1455".
    flight: String,
) -> String {
    format!("trip {flight}")
}

/// A clock the test moves by hand.
#[derive(Clone)]
struct TestClock(Arc<Mutex<SystemTime>>);

impl TestClock {
    fn new() -> TestClock {
        TestClock(Arc::new(Mutex::new(
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        )))
    }
    fn now(&self) -> SystemTime {
        *self.0.lock().unwrap()
    }
    fn advance(&self, by: Duration) {
        *self.0.lock().unwrap() += by;
    }
    fn reader(&self) -> impl Fn() -> SystemTime + Send + Sync + 'static {
        let c = self.clone();
        move || c.now()
    }
}

const WINDOW: Duration = Duration::from_secs(30 * 86_400);

/// A tool built at run time; `ran` counts its runs.
fn hand_tool(name: &str, deprecation: Option<Deprecation>, ran: Arc<AtomicUsize>) -> Tool {
    let mut spec = ToolSpec::new(
        name,
        format!("Searches offers ({name}). Returns the offers found."),
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
    )
    .with_effects(Effects::none().with_read_only(true))
    .with_version("1.0.0");
    if let Some(d) = deprecation {
        spec = spec.with_deprecated(d);
    }
    Tool::from_fn(spec, move |_, _| {
        ran.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(json!([])) })
    })
}

fn dep(by: &str) -> Deprecation {
    Deprecation::new("2").with_replacement(by)
}

#[test]
fn a_deprecated_tool_is_listed_with_the_notice_on_every_target_and_in_mcp_meta() {
    let toolbox = Toolbox::builder()
        .tool(book_flight::tool())
        .tool(book_trip::tool())
        .build()
        .unwrap();
    let spec = toolbox.spec("book_flight").unwrap();
    assert_eq!(
        spec.description,
        format!("Books a flight for the traveller. Returns the booking reference. {NOTICE}")
    );
    let d = spec.deprecated.clone().unwrap();
    assert_eq!(
        (
            d.since.as_str(),
            d.note.as_deref(),
            d.replaced_by.as_deref()
        ),
        ("3", Some("bookings moved to one tool"), Some("book_trip"))
    );
    assert_eq!(spec.version, "3.1.0");
    // Every target carries the description, so every model reads the notice.
    for target in Target::all() {
        let text = toolbox.export_text(*target).unwrap();
        assert!(text.contains(NOTICE), "{target:?}: {text}");
    }
    let mcp = toolbox
        .export(Target::Mcp(McpVersion::V2025_11_25))
        .unwrap();
    let listed = &mcp["tools"][0];
    assert_eq!(
        listed["_meta"]["toolsmith/deprecated"],
        json!({"since": "3", "note": "bookings moved to one tool", "replacedBy": "book_trip"})
    );
    // The replacement carries none of it.
    assert!(mcp["tools"][1].get("_meta").is_none());
    // The notice passes the project's own lint rules.
    let findings = toolbox.lint(&toolsmith::lint::LintConfig::default());
    assert!(
        findings.iter().all(|f| f.tool != "book_flight"),
        "{findings:?}"
    );
}

#[test]
fn a_spec_without_a_deprecation_keeps_its_serialization() {
    let spec = book_trip::tool().spec().clone();
    assert!(spec.deprecated.is_none());
    let text = serde_json::to_string(&spec).unwrap();
    assert!(!text.contains("deprecat"), "{text}");
}

#[tokio::test]
async fn calls_of_a_deprecated_tool_run_and_are_audited_as_deprecated() {
    let sink = Arc::new(MemorySink::new());
    let toolbox = Toolbox::builder()
        .tool(book_flight::tool())
        .tool(book_trip::tool())
        .shared_audit(sink.clone())
        .build()
        .unwrap();
    let env = toolbox
        .call("book_flight", json!({"flight": "SK1455"}))
        .await;
    assert_eq!(env.data, Some(json!("booked SK1455")));
    let env = toolbox.call("book_trip", json!({"flight": "SK1455"})).await;
    assert_eq!(env.data, Some(json!("trip SK1455")));
    let records = sink.records();
    let calls: Vec<_> = records
        .iter()
        .filter(|r| r.event == AuditEvent::Call)
        .collect();
    assert_eq!(calls.len(), 2);
    let old = calls[0];
    assert_eq!(old.tool, "book_flight");
    assert_eq!(old.version, "3.1.0");
    assert_eq!(
        old.fingerprint,
        toolbox.spec("book_flight").unwrap().fingerprint()
    );
    let d = old.deprecation.as_ref().unwrap();
    assert_eq!(d.state, DeprecationState::Deprecated);
    assert_eq!(
        (d.since.as_str(), d.replaced_by.as_deref()),
        ("3", Some("book_trip"))
    );
    let line = serde_json::to_value(old).unwrap();
    assert_eq!(
        line["deprecation"],
        json!({"state": "deprecated", "since": "3", "replaced_by": "book_trip"})
    );
    // The tool in use has no deprecation in its record.
    assert!(calls[1].deprecation.is_none());
    assert!(!serde_json::to_string(calls[1])
        .unwrap()
        .contains("deprecation"));
    // The registration record says so too.
    let reg = records
        .iter()
        .find(|r| r.event == AuditEvent::Register && r.tool == "book_flight")
        .unwrap();
    assert_eq!(
        reg.deprecation.as_ref().unwrap().state,
        DeprecationState::Deprecated
    );
}

#[tokio::test]
async fn after_the_window_the_tool_leaves_the_list_and_calls_answer_tool_retired_naming_the_replacement(
) {
    let clock = TestClock::new();
    let sink = Arc::new(MemorySink::new());
    let toolbox = Toolbox::builder()
        .tool(book_flight::tool())
        .tool(book_trip::tool())
        .retire_deprecated_after(clock.now(), WINDOW)
        .clock(clock.reader())
        .shared_audit(sink.clone())
        .build()
        .unwrap();
    let changes = toolbox.watch_changes();
    assert_eq!(toolbox.names(), ["book_flight", "book_trip"]);
    assert_eq!(toolbox.next_retirement_in(), Some(WINDOW));
    // One second before the end of the window: still listed, still runs.
    clock.advance(WINDOW - Duration::from_secs(1));
    assert_eq!(toolbox.names(), ["book_flight", "book_trip"]);
    let env = toolbox.call("book_flight", json!({"flight": "SK1"})).await;
    assert_eq!(env.data, Some(json!("booked SK1")));
    assert!(!changes.has_changed().unwrap());

    clock.advance(Duration::from_secs(1));
    // A call finds it retired even before anything lists the tools.
    let env = toolbox.call("book_flight", json!({"flight": "SK2"})).await;
    assert_eq!(env.status, toolsmith::Status::InvalidInput);
    assert_eq!(env.code.as_deref(), Some("TOOL_RETIRED"));
    let message = env.message.clone().unwrap();
    assert!(
        message.starts_with(
            "The tool \"book_flight\" was retired and can no longer be called. Call \"book_trip\" instead, which replaces it: Books a trip"
        ),
        "{message}"
    );
    // Listing moves it out: absent from the list and from every export.
    assert_eq!(toolbox.names(), ["book_trip"]);
    assert!(toolbox.spec("book_flight").is_none());
    for target in Target::all() {
        let text = toolbox.export_text(*target).unwrap();
        assert!(!text.contains("book_flight"), "{target:?}");
    }
    assert!(
        changes.has_changed().unwrap(),
        "watchers hear of the change"
    );
    assert_eq!(toolbox.generation(), 1);
    assert_eq!(toolbox.next_retirement_in(), None);
    // The replacement is callable; the retired name keeps answering, never running.
    let env = toolbox.call("book_trip", json!({"flight": "SK3"})).await;
    assert_eq!(env.data, Some(json!("trip SK3")));
    for _ in 0..3 {
        let again = toolbox.call("book_flight", json!({"flight": "SK4"})).await;
        assert_eq!(again.code.as_deref(), Some("TOOL_RETIRED"));
        assert_eq!(again.message.as_deref(), Some(message.as_str()));
    }

    let records = sink.records();
    let retire: Vec<_> = records
        .iter()
        .filter(|r| r.event == AuditEvent::Retire)
        .collect();
    assert_eq!(retire.len(), 1);
    assert_eq!(retire[0].tool, "book_flight");
    assert_eq!(
        retire[0].deprecation.as_ref().unwrap().state,
        DeprecationState::Retired
    );
    let refused: Vec<_> = records
        .iter()
        .filter(|r| r.event == AuditEvent::Call && r.code.as_deref() == Some("TOOL_RETIRED"))
        .collect();
    assert_eq!(
        refused.len(),
        4,
        "every call of the retired name is audited"
    );
    for r in refused {
        assert_eq!(r.tool, "book_flight");
        assert_eq!(r.version, "3.1.0");
        assert!(!r.fingerprint.is_empty());
        let d = r.deprecation.as_ref().unwrap();
        assert_eq!(d.state, DeprecationState::Retired);
        assert_eq!(d.replaced_by.as_deref(), Some("book_trip"));
    }
}

#[tokio::test]
async fn a_window_already_past_at_build_never_lists_the_tool() {
    let clock = TestClock::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let toolbox = Toolbox::builder()
        .tool(hand_tool("search_v1", Some(dep("search")), ran.clone()))
        .tool(hand_tool("search", None, ran.clone()))
        .retire_at("search_v1", clock.now() - Duration::from_secs(1))
        .clock(clock.reader())
        .build()
        .unwrap();
    assert_eq!(toolbox.names(), ["search"]);
    assert_eq!(toolbox.generation(), 0);
    let env = toolbox.call("search_v1", "{}").await;
    assert_eq!(env.code.as_deref(), Some("TOOL_RETIRED"));
    assert!(env.message.unwrap().contains("Call \"search\" instead"));
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    toolbox.call("search", "{}").await;
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_chain_of_replacements_names_the_first_tool_still_listed() {
    let clock = TestClock::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let toolbox = Toolbox::builder()
        .tool(hand_tool("search_v1", Some(dep("search_v2")), ran.clone()))
        .tool(hand_tool("search_v2", Some(dep("search_v3")), ran.clone()))
        .tool(hand_tool("search_v3", None, ran.clone()))
        .retire_at("search_v1", clock.now() + Duration::from_secs(10))
        .retire_at("search_v2", clock.now() + Duration::from_secs(20))
        .clock(clock.reader())
        .build()
        .unwrap();
    clock.advance(Duration::from_secs(10));
    let env = toolbox.call("search_v1", "{}").await;
    assert!(env.message.unwrap().contains("Call \"search_v2\" instead"));
    clock.advance(Duration::from_secs(10));
    let env = toolbox.call("search_v1", "{}").await;
    assert!(env.message.unwrap().contains("Call \"search_v3\" instead"));
    assert_eq!(toolbox.names(), ["search_v3"]);
    assert_eq!(ran.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_replacement_is_named_only_to_a_caller_who_may_call_it() {
    let clock = TestClock::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let toolbox = Toolbox::builder()
        .tool(hand_tool("search_v1", Some(dep("search")), ran.clone()))
        .tool(hand_tool("search", None, ran.clone()))
        .tool(hand_tool("list_offers", None, ran.clone()))
        .retire_at("search_v1", clock.now())
        .policy(Policy::allow_all().deny_tool("search"))
        .clock(clock.reader())
        .build()
        .unwrap();
    let env = toolbox
        .call_as(&Caller::new("ann"), "search_v1", "{}")
        .await;
    assert_eq!(env.code.as_deref(), Some("TOOL_RETIRED"));
    assert_eq!(
        env.message.as_deref(),
        Some("The tool \"search_v1\" was retired and can no longer be called. The tools are \"list_offers\".")
    );
}

fn problems(builder: toolsmith::ToolboxBuilder) -> Vec<Problem> {
    builder.build().unwrap_err().problems
}

#[test]
fn the_toolbox_refuses_a_missing_replacement_a_cycle_and_a_retirement_it_cannot_honour() {
    let ran = Arc::new(AtomicUsize::new(0));
    let missing =
        problems(Toolbox::builder().tool(hand_tool("search_v1", Some(dep("search")), ran.clone())));
    assert_eq!(missing.len(), 1);
    assert_eq!(
        missing[0].to_string(),
        "tool `search_v1`: it is replaced by `search`, which is not registered: register `search` too, or name another tool"
    );

    let cycle = problems(
        Toolbox::builder()
            .tool(hand_tool("a_search", Some(dep("b_search")), ran.clone()))
            .tool(hand_tool("b_search", Some(dep("c_search")), ran.clone()))
            .tool(hand_tool("c_search", Some(dep("a_search")), ran.clone())),
    );
    assert_eq!(cycle.len(), 1, "{cycle:?}");
    assert!(
        cycle[0].to_string().contains(
            "its replacements form a cycle (`a_search` → `b_search` → `c_search` → `a_search`)"
        ),
        "{}",
        cycle[0]
    );
    let own = problems(Toolbox::builder().tool(hand_tool(
        "a_search",
        Some(dep("a_search")),
        ran.clone(),
    )));
    assert!(own[0].to_string().contains("cycle"), "{}", own[0]);

    let not_deprecated = problems(
        Toolbox::builder()
            .tool(hand_tool("search", None, ran.clone()))
            .retire_at("search", SystemTime::now()),
    );
    assert!(
        matches!(&not_deprecated[0], Problem::InvalidRetirement { tool, .. } if tool == "search")
    );
    assert!(not_deprecated[0]
        .to_string()
        .contains("is not deprecated: deprecate it first"));
    let unknown = problems(
        Toolbox::builder()
            .tool(hand_tool("search", None, ran.clone()))
            .retire_at("serch", SystemTime::now()),
    );
    assert_eq!(
        unknown[0].to_string(),
        "tool `serch`: it has a retirement time but no tool of that name is registered"
    );
}

#[tokio::test]
async fn a_tool_registered_at_run_time_is_checked_and_retires_on_the_same_window() {
    let clock = TestClock::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let toolbox = Toolbox::builder()
        .tool(hand_tool("search", None, ran.clone()))
        .retire_deprecated_after(clock.now(), WINDOW)
        .clock(clock.reader())
        .build()
        .unwrap();
    let err = toolbox
        .register(hand_tool("find_v1", Some(dep("find")), ran.clone()))
        .unwrap_err();
    assert!(
        matches!(&err.problems[0], Problem::InvalidReplacement { tool, .. } if tool == "find_v1")
    );
    assert_eq!(
        toolbox.names(),
        ["search"],
        "a refused tool is not registered"
    );
    toolbox
        .register(hand_tool("search_v1", Some(dep("search")), ran.clone()))
        .unwrap();
    assert_eq!(toolbox.names(), ["search", "search_v1"]);
    clock.advance(WINDOW);
    assert_eq!(toolbox.names(), ["search"]);
    let env = toolbox.call("search_v1", "{}").await;
    assert_eq!(env.code.as_deref(), Some("TOOL_RETIRED"));
    // Registering the name again brings it back, as after a deregistration.
    toolbox
        .register(hand_tool("search_v1", None, ran.clone()))
        .unwrap();
    assert_eq!(toolbox.call("search_v1", "{}").await.code, None);
}

#[test]
fn the_exported_json_of_a_deprecated_tool() {
    let toolbox = Toolbox::builder()
        .tool(book_flight::tool())
        .tool(book_trip::tool())
        .build()
        .unwrap();
    let mcp = toolbox
        .export(Target::Mcp(McpVersion::V2025_11_25))
        .unwrap();
    let tool: &Value = &mcp["tools"][0];
    // The README shows this excerpt.
    assert_eq!(
        json!({"name": tool["name"], "description": tool["description"], "_meta": tool["_meta"]}),
        json!({
            "name": "book_flight",
            "description": "Books a flight for the traveller. Returns the booking reference. Deprecated since version 3: bookings moved to one tool. Use `book_trip` instead.",
            "_meta": {"toolsmith/deprecated": {"since": "3", "note": "bookings moved to one tool", "replacedBy": "book_trip"}}
        })
    );
}

/// The same tool before its deprecation.
mod before {
    use toolsmith::tool;

    /// Books a flight for the traveller. Returns the booking reference.
    #[tool(writes, version = "2.4.0")]
    pub fn book_flight(
        /// The flight number, e.g. "SK1455".
        flight: String,
    ) -> String {
        format!("booked {flight}")
    }
}

/// The lists `toolsmith diff` is tested on (toolsmith-cli/tests/it/cli.rs, `diff_reports_a_deprecation`):
/// real exports of a toolbox before the deprecation (v1), with it (v2) and after the
/// retirement (v3), as MCP `tools/list` results and OpenAI Chat arrays. Rewritten with
/// `TOOLSMITH_UPDATE_SNAPSHOTS=1`.
#[test]
fn the_diff_fixtures_are_real_exports() {
    let clock = TestClock::new();
    let v1 = Toolbox::builder()
        .tool(before::book_flight::tool())
        .tool(book_trip::tool())
        .build()
        .unwrap();
    let v2 = Toolbox::builder()
        .tool(book_flight::tool())
        .tool(book_trip::tool())
        .build()
        .unwrap();
    let v3 = Toolbox::builder()
        .tool(book_flight::tool())
        .tool(book_trip::tool())
        .retire_at("book_flight", clock.now())
        .clock(clock.reader())
        .build()
        .unwrap();
    let dir = crate::workspace().join("toolsmith-cli/tests/fixtures/deprecation");
    let update = std::env::var_os("TOOLSMITH_UPDATE_SNAPSHOTS").is_some();
    for (tb, v) in [(&v1, "v1"), (&v2, "v2"), (&v3, "v3")] {
        for (target, shape) in [
            (Target::Mcp(McpVersion::V2025_11_25), "mcp"),
            (Target::OpenAiChat { strict: false }, "openai"),
        ] {
            let text = format!(
                "{}\n",
                serde_json::to_string_pretty(&tb.export(target).unwrap()).unwrap()
            );
            let path = dir.join(format!("{v}.{shape}.json"));
            if update {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &text).unwrap();
            } else {
                let kept = std::fs::read_to_string(&path).unwrap_or_default();
                assert_eq!(
                    kept,
                    text,
                    "{} is stale: rerun with TOOLSMITH_UPDATE_SNAPSHOTS=1",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn the_snapshot_check_shows_a_deprecation_as_a_change_of_the_tool() {
    use toolsmith::export::{check_snapshot, update_requested, write_artifacts};
    if update_requested() {
        return; // the check would rewrite instead of compare
    }
    let dir =
        std::env::temp_dir().join(format!("toolsmith-deprecation-snap-{}", std::process::id()));
    let before = vec![
        before::book_flight::tool().spec().clone(),
        book_trip::tool().spec().clone(),
    ];
    let after = vec![
        book_flight::tool().spec().clone(),
        book_trip::tool().spec().clone(),
    ];
    write_artifacts(&before, &dir).unwrap();
    let drift = check_snapshot(&after, &dir).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(drift.contains("tool `book_flight`: changed"), "{drift}");
    assert!(drift.contains("Use `book_trip` instead."), "{drift}");
    assert!(drift.contains("toolsmith/deprecated"), "{drift}");
    assert!(!drift.contains("tool `book_trip`"), "{drift}");
}
