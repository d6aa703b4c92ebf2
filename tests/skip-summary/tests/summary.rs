//! The one test of this crate: prints what the run's other tests skipped (see `src/lib.rs`),
//! past the harness's capture, and clears the run's records.

#[path = "../src/lib.rs"]
mod skip;

use std::io::Write;

#[test]
fn print_what_the_run_skipped() {
    let Some(dir) = skip::run_dir() else {
        return;
    };
    let records = skip::read_records(&dir);
    let text = skip::summary(&records)
        .unwrap_or_else(|| "\n======== no test skipped ========\n\n".to_string());
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
    let _ = std::fs::remove_dir_all(&dir);
    if let Some(root) = dir.parent() {
        skip::prune(root, &dir);
    }
}

#[test]
fn records_read_back_grouped_with_their_command() {
    let record = |need, what: &str, test: &str| skip::Record {
        need,
        what: what.into(),
        why: "not installed".into(),
        test: test.into(),
    };
    let records = [
        record(skip::Need::Consumer, "chromium", "ui_forms::a"),
        record(skip::Need::Service, "Redis", "outage::b"),
        record(skip::Need::Consumer, "chromium", "ui_forms::c"),
    ];
    let text = skip::summary(&records).unwrap();
    assert!(text.contains("SKIPPED: 3 tests"), "{text}");
    assert!(
        text.contains("- chromium missing (not installed): 2 tests: ui_forms::a, ui_forms::c"),
        "{text}"
    );
    assert!(text.contains(skip::Need::Service.command()), "{text}");
    assert!(skip::summary(&[]).is_none());
}
