//! Audit records: JSON Lines round trip, no argument values, timestamps and operation ids.

use crate::common;

use serde_json::json;
use std::time::Duration;
use toolsmith_core::Caller;
use toolsmith_core::{args_digest, AuditEvent, AuditRecord, AuditSink, JsonLinesSink, MemorySink};
use toolsmith_core::{Effects, ToolSpec};
use toolsmith_core::{Envelope, Status, ToolError};

fn spec() -> ToolSpec {
    common::spec(
        "transfer",
        "Transfers money. Returns the receipt.",
        json!({"type": "object"}),
        Effects::none().with_writes(true),
    )
    .with_version("2.1.0")
}

fn temp_path(name: &str) -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("toolsmith-audit-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn json_lines_round_trip() {
    let path = temp_path("audit.jsonl");
    let sink = JsonLinesSink::open(&path).unwrap();
    let s = spec();
    let args = json!({"to": "IBAN DE00 1234", "amount": 250});
    let ok = Envelope::ok(json!({"receipt": "r-1"}));
    let refused: Envelope = ToolError::refused("LIMIT", "Over the daily limit.").into();
    let records = vec![
        AuditRecord::register(&s),
        AuditRecord::call(
            "op_a",
            &s,
            &Caller::new("ann"),
            &args,
            &ok,
            Duration::from_millis(42),
        ),
        AuditRecord::call(
            "op_b",
            &s,
            &Caller::anonymous(),
            &args,
            &refused,
            Duration::from_micros(10),
        )
        .with_detail("limit 200 reached"),
        AuditRecord::deregister(&s),
    ];
    for r in &records {
        sink.record(r);
    }
    assert_eq!(sink.errors(), 0);
    // Reopening appends.
    drop(sink);
    let sink = JsonLinesSink::open(&path).unwrap();
    sink.record(&records[1]);

    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 5);
    let back = JsonLinesSink::read_all(&path).unwrap();
    assert_eq!(&back[..4], &records[..]);
    assert_eq!(back[4], records[1]);

    let call = &back[1];
    assert_eq!(call.event, AuditEvent::Call);
    assert_eq!(call.fingerprint, s.fingerprint());
    assert_eq!(call.version, "2.1.0");
    assert_eq!(call.caller.as_deref(), Some("ann"));
    assert_eq!(call.status, Some(Status::Ok));
    assert_eq!(call.duration_ms, Some(42));
    assert_eq!(
        call.args_digest.as_deref(),
        Some(args_digest(&args).as_str())
    );
    assert_eq!(back[2].code.as_deref(), Some("LIMIT"));
    assert_eq!(back[2].status, Some(Status::Refused));
    assert_eq!(back[0].event, AuditEvent::Register);
    assert_eq!(back[3].event, AuditEvent::Deregister);
    // Lifecycle records leave the call fields out of the line.
    let first_line = text.lines().next().unwrap();
    assert!(first_line.contains("\"event\":\"register\""));
    assert!(!first_line.contains("status") && !first_line.contains("args_digest"));
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

#[test]
fn records_contain_no_argument_values() {
    let sink = MemorySink::new();
    let args = json!({
        "to": "IBAN DE44 5001 0517 5407 3249 31",
        "memo": "password hunter2",
        "nested": {"card": "4111111111111111"},
    });
    let env = Envelope::ok(json!({"echo": "4111111111111111"}));
    sink.record(&AuditRecord::call(
        "op_1",
        &spec(),
        &Caller::new("ann"),
        &args,
        &env,
        Duration::ZERO,
    ));
    let line = serde_json::to_string(&sink.records()[0]).unwrap();
    for secret in ["DE44", "hunter2", "4111111111111111", "memo", "card"] {
        assert!(!line.contains(secret), "{secret} leaked into {line}");
    }
    sink.clear();
    assert!(sink.records().is_empty());
}

#[test]
fn args_digests_are_canonical_and_distinguish_values() {
    let a = args_digest(&json!({"a": 1, "b": {"y": 2, "x": 1}}));
    let b = args_digest(&json!({"b": {"x": 1, "y": 2}, "a": 1}));
    assert_eq!(a, b);
    assert_eq!(a.len(), 16);
    assert!(a
        .bytes()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_ne!(a, args_digest(&json!({"a": 2, "b": {"x": 1, "y": 2}})));
}

#[test]
fn write_failures_do_not_break_calls() {
    // A directory cannot be opened for appending.
    let dir = temp_path("x");
    let parent = dir.parent().unwrap();
    assert!(JsonLinesSink::open(parent).is_err());
    // /dev/full (Linux) accepts the open and fails every write.
    if std::path::Path::new("/dev/full").exists() {
        let sink = JsonLinesSink::open("/dev/full").unwrap();
        sink.record(&AuditRecord::register(&spec()));
        sink.record(&AuditRecord::register(&spec()));
        assert_eq!(sink.errors(), 2);
    }
    std::fs::remove_dir_all(parent).ok();
}
